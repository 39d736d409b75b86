"""Permute-and-flip ≡ report-noisy-max with exponential noise (Ding et al. 2021; spec ``permute_and_flip.md``).

* :mod:`.exact` — the exact tables, the privacy audit and the utility against the exponential mechanism;
* :mod:`.sampling` — the equivalence chain by sampling (F1–F3, T1–T2).
"""
