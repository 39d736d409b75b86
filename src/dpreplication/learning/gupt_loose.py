"""GUPT with its own output-range estimation ("GUPT-loose", Mohan et al., SIGMOD 2012, §4.1).

:mod:`dpreplication.learning.sample_and_aggregate` is GUPT given a tight range (spec §3.6). Here the
analyst gives only a loose range ``[lo, hi]`` and GUPT estimates each output coordinate's range from
the block outputs, as its code's ``GuptRunTime.start_windsorized`` / ``_windsorized`` does
(``prashmohan/GUPT``, ``gupt.py``; Smith, STOC 2011, winsorized mean). Per coordinate, with the ``ℓ``
block outputs ``v`` and budget ``ε_c``:

1. ``a, b`` = private 25th and 75th percentiles of ``v`` within ``[lo, hi]``
   (:func:`~dpreplication.mechanisms.quantile.private_quantile`), ``(1 − φ)·ε_c/2`` each
   (GUPT's code: ``ε_c/4`` each, ``φ = 1/2``);
2. the range ``[l, u] = (a + b)/2 ± 4·ℓ^(1/3 + 0.1)·|b − a|`` (GUPT's ``rad``; not intersected with
   ``[lo, hi]``, as in its code);
3. the mean of ``v`` winsorized (clamped) to ``[l, u]``, plus ``Lap((u − l)/(ℓ·φ·ε_c))``; the noisy
   output is not clamped.

Guarantee: ε-DP under replace-one neighbours with ``ε_c = ε/p`` over the ``p`` output coordinates.
The partition depends on indices only, so replacing one record changes one block's output (one row
of ``outputs``): each percentile is ``(1 − φ)ε_c/2``-DP in that row, and given ``[l, u]`` the
winsorized mean moves by at most ``(u − l)/ℓ``, so the Laplace step is ``φ·ε_c``-DP; adaptive
sequential composition gives ``ε_c`` per coordinate and ``ε`` over all ``p``.

Where GUPT's code is not ε-DP at its nominal ε, the budget is spent as its comments intend (each a
constant of this module, so a variant can be read against the code):

* its ``_privatize_windsorized`` passes the whole ε to every top-level output (each k-means centre)
  and splits it only over that centre's coordinates; here ``ε/p`` over all ``p = k·d`` coordinates
  (as its ``_privatize``, ``ε/(3p)``);
* its Laplace scale ``|u − l|/(2·ε_c·ℓ)`` is 4× below what the ``ε_c/2`` left after the percentiles
  allows; here ``(u − l)/(ℓ·φ·ε_c)``;
* its percentile weights ``exp(−ε·|i − q·k|)`` lack the exponential mechanism's ½, and its sequential
  sampler compares ``|j − q·k|`` with ``(i − q·k)`` rather than ``|i − q·k|``; here the exact law
  (:mod:`dpreplication.mechanisms.quantile`).
"""

from __future__ import annotations

import numpy as np

from dpreplication.mechanisms.additive import laplace_mechanism
from dpreplication.mechanisms.quantile import private_quantile
from dpreplication.validation import in_unit_interval, positive

QUARTILES = (0.25, 0.75)
"""The percentiles GUPT estimates (``ComputeDriver.get_percentiles``' default; ``_windsorized``)."""
WIDENING_FACTOR = 4.0
"""``[l, u] = mid ± 4·rad·IQR`` in GUPT's ``_windsorized``."""
WIDENING_EXPONENT = 1.0 / 3.0 + 0.1
"""``rad = ℓ^(1/3 + 0.1)`` in GUPT's ``_windsorized``."""
CODE_AGGREGATION_SHARE = 0.5
"""φ of GUPT's ``_windsorized``: ε/4 to each quartile, the rest to the noisy mean."""


def gupt_estimated_range(
    values, loose_range: tuple[float, float], epsilon: float, rng: np.random.Generator
) -> tuple[float, float]:
    """GUPT's private range of one output coordinate: ``mid ± 4·ℓ^(1/3+0.1)·IQR`` of private quartiles.

    Guarantee: ε-DP in ``values`` under replace-one (two private percentiles at ε/2 each, Smith 2011
    Algorithm 1; basic composition). GUPT's ``_windsorized`` (``gupt.py``), module docstring.

    Parameters
    ----------
    values : array_like of shape (ℓ,)
        One output coordinate of the ``ℓ`` blocks (ℓ ≥ 1, finite).
    loose_range : tuple of float, (lo, hi) with lo < hi
        The analyst's loose range: the percentiles lie in it.
    epsilon : float
        Budget of the two percentiles together, ε > 0 and finite.
    rng : numpy.random.Generator
        Source of the percentile draws.

    Returns
    -------
    tuple of float
        ``(l, u)``, ``l ≤ u``; it may extend beyond ``loose_range`` (as in GUPT's code).
    """
    values = np.asarray(values, dtype=float)
    lo, hi = loose_range
    low, high = (private_quantile(values, q, epsilon / 2, lo, hi, rng) for q in QUARTILES)
    middle, half_width = (low + high) / 2, WIDENING_FACTOR * values.size**WIDENING_EXPONENT * abs(high - low)
    return middle - half_width, middle + half_width


def gupt_loose_aggregate(
    outputs,
    loose_range: tuple[float, float],
    epsilon: float,
    rng: np.random.Generator,
    range_rng: np.random.Generator,
    eps_fraction: float = CODE_AGGREGATION_SHARE,
) -> np.ndarray:
    """GUPT-loose: per coordinate, a private range from the block outputs, then a noisy winsorized mean.

    Guarantee: ε-DP under replace-one neighbours when the rows of ``outputs`` come from disjoint
    blocks chosen from the indices alone and each depends only on its own block (module docstring;
    GUPT's sample-and-aggregate, spec §3.6, with Smith 2011's winsorized mean): ``ε/p`` per
    coordinate, ``(1 − φ)`` of it on the two percentiles, ``φ`` on the Laplace mechanism.

    Parameters
    ----------
    outputs : array_like of shape (ℓ, p)
        One row of ``p`` outputs per block (:func:`~dpreplication.learning.sample_and_aggregate.block_outputs`).
    loose_range : tuple of float, (lo, hi) with lo < hi
        The analyst's loose range of every coordinate ([-1, 1] for the centres).
    epsilon : float
        Privacy budget, ε > 0 and finite.
    rng : numpy.random.Generator
        Source of the Laplace noise (one draw per coordinate, in order).
    range_rng : numpy.random.Generator
        Source of the percentile draws.
    eps_fraction : float
        Share φ in (0, 1) of each coordinate's budget spent on the noisy mean (GUPT's code: 1/2).

    Returns
    -------
    numpy.ndarray of shape (p,)
        The noisy winsorized means (not clamped).
    """
    positive("epsilon", epsilon)
    in_unit_interval("eps_fraction", eps_fraction, include_zero=False, include_one=False)
    outputs = np.asarray(outputs, dtype=float)
    n_blocks, n_outputs = outputs.shape
    per_coordinate = epsilon / n_outputs
    released = np.empty(n_outputs)
    for c, column in enumerate(outputs.T):
        low, high = gupt_estimated_range(column, loose_range, (1 - eps_fraction) * per_coordinate, range_rng)
        mean = np.clip(column, low, high).mean()
        if high > low:
            released[c] = laplace_mechanism(mean, eps_fraction * per_coordinate, rng, (high - low) / n_blocks)
        else:  # a zero-width range (probability 0): the mean is the private midpoint itself
            released[c] = mean
    return released
