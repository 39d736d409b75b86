"""dpreplication: a reference replication of four differential-privacy papers.

The package holds the mechanisms, accounting, optimisation and learning code of the replication of
permute-and-flip, the truncated Laplacian mechanism, DaRRM and PrivGene.

The public API is exported per concept; each name is imported on first use, so importing a
subpackage stays cheap:

- :mod:`dpreplication.mechanisms`: selection (exponential mechanism, permute-and-flip,
  report-noisy-max), additive noise (Laplace, truncated Laplacian, analytic Gaussian), the
  enhanced exponential mechanism, private majority (DaRRM, subsampling, randomized response,
  GNMax);
- :mod:`dpreplication.releases`: the DP events the samplers record, as plain data, and the
  recorder they call (below the mechanisms);
- :mod:`dpreplication.accounting`: RDP and DP-SGD accounting, GNMax calibration, DaRRM's exact
  privacy verifier, composition, the events' privacy maps and the privacy ledger;
- :mod:`dpreplication.optimisation`: DaRRM's optimal noise function γ_opt, the optimal-noise
  lower bound of the truncated-Laplacian paper;
- :mod:`dpreplication.learning`: PrivGene and the DP model-fitting baselines;
- :mod:`dpreplication.statistics`: goodness-of-fit and homogeneity tests.
"""

from importlib import metadata as _metadata

try:
    __version__ = _metadata.version("dpreplication")
except _metadata.PackageNotFoundError:  # a source tree that is not installed
    __version__ = "0+unknown"

__all__ = ["__version__"]
