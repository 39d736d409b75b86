"""PrivGene (Zhang, Xiao, Yang, Zhang & Winslett, SIGMOD 2013; spec ``privgene.md``).

* :mod:`.datasets` — Table 2's datasets;
* :mod:`.methods` — the tasks and the methods (``prepare``/``release``); :mod:`.jobs` — the one
  runner of every job of Figs 2–7;
* :mod:`.figures` — Fig. 2, Figs 6–7 and the reference levels from the job tables;
* :mod:`.comparison`, :mod:`.comparison_figures`, :mod:`.repetitions` — Figs 3–5 against the baselines;
* :mod:`.verified`, :mod:`.baseline_checks`, :mod:`.ablations`, :mod:`.gupt_variants` — the exact
  numbers, the baseline cross-checks and the gap experiments;
* :mod:`.config_checks` — the checks of the ``privgene`` settings the schema cannot state.
"""

PAPER = "privgene"
"""The paper's key, the first of every stream this replication draws."""
