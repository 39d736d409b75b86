"""Statistical tests and bands used to compare samples with exact distributions."""

from dpreplication.statistics.distributions import (
    GoodnessOfFit,
    counts,
    goodness_of_fit,
    homogeneity,
    total_variation,
    tv_null_quantiles,
    wilson_interval,
)

__all__ = [
    "GoodnessOfFit",
    "counts",
    "goodness_of_fit",
    "homogeneity",
    "total_variation",
    "tv_null_quantiles",
    "wilson_interval",
]
