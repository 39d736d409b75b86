"""What a release spends, as plain data, and where it is recorded: the floor below the mechanisms.

- :mod:`dpreplication.releases.events`: the DP events the replications' samplers record, frozen
  classes that hold their parameters and nothing else (dp-accounting keeps events as data and lets
  its accountants interpret them);
- :mod:`dpreplication.releases.recorder`: the ``record_*`` functions a sampler calls just before it
  draws, and the context that routes their events to the active privacy ledger.

The mechanisms import this package; what the events cost, the ledger that composes them and its
budget guard are the accounting layer's (:mod:`dpreplication.accounting.events`,
:mod:`dpreplication.accounting.ledger`), one floor above the mechanisms (``tests/test_layering.py``).
"""
