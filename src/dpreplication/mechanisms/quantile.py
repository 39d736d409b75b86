"""Private quantile: the exponential mechanism over the gaps between sorted values (Smith 2011).

The mechanism GUPT uses to estimate an output range from its block outputs (Mohan et al., SIGMOD
2012, §4.1 "GUPT-loose"; code ``dpalgos.estimate_percentile`` of ``prashmohan/GUPT``), after
Smith (STOC 2011, Algorithm 1) and McSherry & Talwar (FOCS 2007, Theorem 6).

The ``n`` values are clipped to the public range ``[lower, upper]`` and sorted together with the two
ends, ``z_0 = lower ≤ z_1 ≤ … ≤ z_n ≤ z_{n+1} = upper``. An output ``x`` in the gap
``(z_i, z_{i+1})`` has ``i`` values below it and score ``u(x) = −|i − q·(n + 1)|`` (GUPT's target
rank ``q·k`` with ``k = n + 1`` gaps). The release has density ``∝ exp(ε·u(x)/2)`` on
``[lower, upper]``: gap ``i`` is drawn with probability ``∝ (z_{i+1} − z_i)·exp(ε·u_i/2)`` and the
output is uniform on it.

Guarantee: ε-DP with the ``n`` values as the dataset, neighbouring = one value replaced (``n`` and
the range are public). Replacing one value changes the number of values below any ``x`` by at most
1, so ``|u(x) − u'(x)| ≤ 1`` for every ``x``; with the Lebesgue base measure on ``[lower, upper]``
this is the exponential mechanism at sensitivity 1, whose densities differ by at most ``e^ε`` at
every ``x`` (``e^{ε/2}`` from the score, ``e^{ε/2}`` from the normaliser). GUPT's code weights the
gaps by ``exp(−ε·|i − q·k|)`` (no ½), which is 2ε-DP at its nominal ε; the privacy test's negative
control is exactly that factor. In GUPT's sample-and-aggregate the values are the block outputs:
one record changes one block, hence one value.

Computed in log space: ``log P_i = log(z_{i+1} − z_i) + ε·u_i/2 − logsumexp(…)``; empty gaps (ties)
have probability 0 (``log P = −inf``); the draw is a Gumbel arg-max of the log-probabilities.
"""

from __future__ import annotations

import numpy as np
from scipy import special

from dpreplication.docstrings import parameter_entries, shared_parameters
from dpreplication.releases.recorder import record_report_noisy_max
from dpreplication.validation import finite_array, in_unit_interval, positive

_PARAMETERS = parameter_entries(
    """
    values : array_like of shape (n,)
        The private values (n ≥ 1, finite), clipped to ``[lower, upper]``.
    quantile : float
        Target quantile ``q`` in [0, 1] (GUPT: 0.25 and 0.75).
    epsilon : float
        Privacy budget, ε > 0 and finite.
    lower : float
        Public lower end of the range (finite, ``< upper``).
    upper : float
        Public upper end of the range (finite).
    """
)


def _sorted_gaps(values, quantile: float, epsilon: float, lower: float, upper: float):
    """Check the arguments; return the ``n + 2`` sorted ends ``z`` and ``ε·u_i/2`` of the ``n + 1`` gaps."""
    values = finite_array("values", values)
    if values.ndim != 1 or values.size == 0:
        raise ValueError(f"values must be a non-empty 1-D array, got shape {values.shape}")
    in_unit_interval("quantile", quantile, include_zero=True, include_one=True)
    positive("epsilon", epsilon)
    lower, upper = float(lower), float(upper)
    if not (np.isfinite(lower) and np.isfinite(upper) and lower < upper):
        raise ValueError(f"the range must be finite with lower < upper, got [{lower!r}, {upper!r}]")
    z = np.sort(np.concatenate([[lower, upper], np.clip(values, lower, upper)]))
    gaps = z.size - 1
    return z, -0.5 * epsilon * np.abs(np.arange(gaps) - quantile * gaps)


def _log_normaliser(z: np.ndarray, half_scores: np.ndarray) -> float:
    with np.errstate(divide="ignore"):
        return float(special.logsumexp(np.log(np.diff(z)) + half_scores))


@shared_parameters(_PARAMETERS)
def private_quantile_log_probabilities(
    values, quantile: float, epsilon: float, lower: float, upper: float
) -> tuple[np.ndarray, np.ndarray]:
    """Return the gaps ``[z_i, z_{i+1}]`` and their log-probabilities: the exact law of :func:`private_quantile`.

    Guarantee: the law of an ε-DP release (module docstring: exponential mechanism at sensitivity
    1, McSherry & Talwar 2007, Theorem 6; Smith 2011, Algorithm 1). The output is uniform on the
    gap drawn.

    Parameters
    ----------
    {values, quantile, epsilon, lower, upper}

    Returns
    -------
    edges : ndarray of shape (n + 2,)
        Sorted ends ``z``; gap ``i`` is ``[z_i, z_{i+1}]``.
    log_probabilities : ndarray of shape (n + 1,)
        ``log P_i``; ``-inf`` for empty gaps; ``logsumexp = 0``.

    Examples
    --------
    >>> import numpy as np
    >>> from dpreplication.mechanisms.quantile import private_quantile_log_probabilities
    >>> edges, log_p = private_quantile_log_probabilities([0.0], 0.5, epsilon=1.0, lower=-1.0, upper=1.0)
    >>> edges.tolist(), np.exp(log_p).round(3).tolist()  # target rank q·(n + 1) = 1: the upper gap
    ([-1.0, 0.0, 1.0], [0.378, 0.622])
    """
    z, half_scores = _sorted_gaps(values, quantile, epsilon, lower, upper)
    with np.errstate(divide="ignore"):
        log_weights = np.log(np.diff(z)) + half_scores
    return z, log_weights - special.logsumexp(log_weights)


@shared_parameters(_PARAMETERS)
def private_quantile_log_pdf(x, values, quantile: float, epsilon: float, lower: float, upper: float) -> np.ndarray:
    """Return the log-density of :func:`private_quantile` at ``x``: ``ε·u(x)/2 − log Z`` on the range, ``-inf`` outside.

    Guarantee: the density of an ε-DP release (module docstring; McSherry & Talwar 2007,
    Theorem 6): for neighbouring ``values`` the log-densities differ by at most ε at every ``x``.
    ``u(x)`` counts the clipped values strictly below ``x`` (at a tie the gap to the right of it).

    Parameters
    ----------
    x : float or array_like
        Points at which to evaluate, any real.
    values : array_like of shape (n,)
        The private values (n ≥ 1, finite).
    quantile : float
        Target quantile ``q`` in [0, 1].
    {epsilon, lower, upper}
    """
    z, half_scores = _sorted_gaps(values, quantile, epsilon, lower, upper)
    x = np.asarray(x, dtype=float)
    gap = np.clip(np.searchsorted(z[1:-1], x, side="right"), 0, half_scores.size - 1)
    inside = (x >= z[0]) & (x <= z[-1])
    return np.where(inside, half_scores[gap] - _log_normaliser(z, half_scores), -np.inf)[()]


@shared_parameters(_PARAMETERS)
def private_quantile(
    values, quantile: float, epsilon: float, lower: float, upper: float, rng: np.random.Generator
) -> float:
    """Release an estimate of the ``quantile`` of ``values`` within ``[lower, upper]``.

    Guarantee: ε-DP with ``values`` as the dataset, neighbouring = one value replaced (module
    docstring: the exponential mechanism at sensitivity 1, McSherry & Talwar 2007, Theorem 6; Smith
    2011, Algorithm 1). As GUPT's ``estimate_percentile``, with the ½ of the exponential mechanism
    that its code omits.

    Parameters
    ----------
    {values, quantile, epsilon, lower, upper}
    rng : numpy.random.Generator
        Source of the gap (a Gumbel arg-max) and of the uniform draw within it.

    Returns
    -------
    float
        A point of ``[lower, upper]``.

    Examples
    --------
    >>> import numpy as np
    >>> from dpreplication.mechanisms.quantile import private_quantile
    >>> values = np.linspace(-0.5, 0.5, 101)
    >>> round(private_quantile(values, 0.5, 100.0, -1.0, 1.0, np.random.default_rng(0)), 2)  # in [0, 0.01]
    0.01
    """
    z, log_probabilities = private_quantile_log_probabilities(values, quantile, epsilon, lower, upper)
    record_report_noisy_max("private_quantile", "gumbel", 2.0 / epsilon, 1.0)  # weights exp(ε·u/2), Δu = 1
    gap = int(np.argmax(log_probabilities + rng.gumbel(size=log_probabilities.size)))
    return float(rng.uniform(z[gap], z[gap + 1]))
