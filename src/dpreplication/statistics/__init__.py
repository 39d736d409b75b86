"""Statistical tests and bands used to compare samples with exact distributions."""

from dpreplication.statistics.distributions import (
    GoodnessOfFit,
    binomial_z_scores,
    counts,
    goodness_of_fit,
    homogeneity,
    total_variation,
    tv_null_quantiles,
    wilson_interval,
)

__all__ = [
    "GoodnessOfFit",
    "binomial_z_scores",
    "counts",
    "goodness_of_fit",
    "homogeneity",
    "total_variation",
    "tv_null_quantiles",
    "wilson_interval",
]
