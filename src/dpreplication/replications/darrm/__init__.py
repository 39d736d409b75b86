"""DaRRM, private majority of K private mechanisms (Jiang, Zhang & Joshi, TMLR 2024; spec ``darrm.md``).

* :mod:`.analytic` — the analytic figures (γ shapes, ensemble errors, the feasible region);
* :mod:`.lemmas`, :mod:`.verified` — the lemmas and the spec's verified tables, number by number;
* :mod:`.teachers`, :mod:`.prediction`, :mod:`.teacher_quality`, :mod:`.teacher_ablation`,
  :mod:`.teacher_ablation_choice` — private prediction from DP-SGD teachers on MNIST and Fashion-MNIST;
* :mod:`.config_checks` — the checks of the ``darrm`` settings the schema cannot state.
"""
