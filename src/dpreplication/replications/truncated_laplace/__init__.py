"""The truncated Laplacian mechanism (Geng, Ding, Guo & Kumar, AISTATS 2020; spec ``truncated_laplace.md``).

* :mod:`.figures` — the paper's figures and tables against the analytic Gaussian;
* :mod:`.bounds` — the optimal-noise lower bounds and the discretised LP optimum (E1, E2);
* :mod:`.audits` — audits of the mechanism and its Gaussian baseline (E3–E5, E8);
* :mod:`.config_checks` — the checks of the ``truncated_laplace`` settings the schema cannot state.
"""
