from dpreplication.scorecard.pages import main

raise SystemExit(main())
