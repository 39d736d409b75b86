"""The papers' replications: the modules that build each paper's grids, loops and tables.

``darrm*`` (DaRRM, Jiang, Zhang & Joshi, TMLR 2024), ``permute_and_flip*`` (Ding et al. 2021),
``privgene*`` (PrivGene, Zhang et al., SIGMOD 2013) and ``truncated_laplace*`` (Geng, Ding, Guo &
Kumar, AISTATS 2020).
"""
