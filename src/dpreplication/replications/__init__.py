"""The papers' replications, a subpackage per paper: the modules that build its grids, loops and tables.

:mod:`~dpreplication.replications.permute_and_flip` (Ding et al. 2021),
:mod:`~dpreplication.replications.truncated_laplace` (Geng, Ding, Guo & Kumar, AISTATS 2020),
:mod:`~dpreplication.replications.darrm` (DaRRM, Jiang, Zhang & Joshi, TMLR 2024) and
:mod:`~dpreplication.replications.privgene` (PrivGene, Zhang et al., SIGMOD 2013).

They compose the concept packages (mechanisms, accounting, learning, optimisation, data, statistics)
and never import :mod:`dpreplication.pipeline` or :mod:`dpreplication.scorecard`.
"""
