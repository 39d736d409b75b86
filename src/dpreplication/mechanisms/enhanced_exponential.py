"""Enhanced exponential mechanism (EEM) of PrivGene (Zhang et al., SIGMOD 2013, §4).

Scores ``f(D, ω) = h(ω) + Σ_{t∈D} q(t, ω)`` over a public candidate set ``Ω``; neighbours
replace one tuple (spec §1). The selection probability is ``P(ω) ∝ exp(ε f(D, ω)/Δ)``
(paper Eq. 3/5: the *dampening factor* ``Δ`` is twice a sensitivity) with

* ``Δ1 = 2 max_{t,t',ω} [q(t,ω) - q(t',ω)]`` (Eq. 7, Lemma 2) — the ordinary EM;
* ``Δ2 = 2 max_{t,ω,ω'} [q(t,ω) - q(t,ω')]`` (Eq. 8, Lemma 3) — new in the paper;
* EEM: ``Δ = min(Δ1, Δ2)`` (Eq. 6, Theorem 1).

Guarantee (Theorem 1): ε-DP. With either factor the change of the score vector between
neighbours, ``δ_ω = q(t,ω) - q(t',ω)``, has range ``max δ - min δ ≤ Δ`` (for ``Δ1``
even ``|δ_ω| ≤ Δ/2``). A shift-invariant selector therefore sees a change of
sup-norm ``≤ Δ/2`` after re-centring, so it is ε-DP when calibrated to sensitivity
``Δ/2``: the exponential mechanism (Gumbel-max, ``exp(ε f/Δ)``) and report-noisy-max with
exponential noise of scale ``Δ/ε`` (≡ permute-and-flip, Ding et al. 2021), both taken
from :mod:`dpreplication.mechanisms.selection_sampling` (their exact pmfs from
:mod:`dpreplication.mechanisms.selection`). Selecting ``k`` candidates without
replacement spends ``ε/k`` per draw (paper Algorithm 2), ε in total by sequential composition.

Both factors are functions of the candidate set alone (computed from its formulas in
:mod:`dpreplication.learning.fitness`), never of the data. :func:`exact_dampening` computes
them by enumeration over a finite tuple domain (paper Example 1, tests).
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from dpreplication.docstrings import parameter_entries, shared_parameters
from dpreplication.mechanisms import selection, selection_sampling
from dpreplication.validation import non_negative

_PARAMETERS = parameter_entries(
    """
    tuple_scores : array_like of shape (|T|, |Ω|)
        Finite ``q[t, ω]``: rows the tuples ``t`` of the domain, columns the candidates ``ω``.
    scores : array_like of shape (m,)
        Finite scores ``f(D, ω)`` of the ``m ≥ 1`` candidates.
    epsilon : float
        Privacy budget, ε > 0 (finite).
    dampening : float
        Dampening factor Δ > 0 (finite): ``min(Δ1, Δ2)`` for EEM, ``Δ1`` for EM (Eqs. 6, 7).
    selector : {"exponential_mechanism", "rnm_exp"}
        The exponential mechanism (Gumbel-max) or report-noisy-max with exponential noise.
    """
)

Selector = Literal["exponential_mechanism", "rnm_exp"]
SELECTORS: dict[str, str] = {"exponential_mechanism": "gumbel", "rnm_exp": "exponential"}
"""Selector name → noise of :func:`selection_sampling.sample_report_noisy_max` (Gumbel = EM; exponential = P&F)."""
Dampening = Literal["eem", "em"]


def dampening_factor(delta1: float, delta2: float, rule: Dampening = "eem") -> float:
    """``Δ`` used by a selection: ``min(Δ1, Δ2)`` for EEM (Eq. 6), ``Δ1`` for EM (Eq. 7).

    With either rule the selection is ε-DP (Theorem 1; Lemma 2 for EM).

    Parameters
    ----------
    delta1 : float
        ``Δ1 ≥ 0`` of Eq. 7 (Lemma 2), finite (``ValueError`` otherwise).
    delta2 : float
        ``Δ2 ≥ 0`` of Eq. 8 (Lemma 3); ``inf`` where it is not derived (``ValueError`` if NaN).
    rule : {"eem", "em"}
        EEM (``min(Δ1, Δ2)``) or the ordinary exponential mechanism (``Δ1``); ``ValueError`` otherwise.

    Returns
    -------
    float
        The dampening factor Δ.

    Examples
    --------
    >>> from dpreplication.mechanisms import dampening_factor
    >>> dampening_factor(128.0, 56.0), dampening_factor(128.0, 56.0, rule='em')  # Example 1 of the paper
    (56.0, 128.0)
    """
    non_negative("delta1", delta1)
    non_negative("delta2", delta2, allow_infinity=True)
    if rule == "eem":
        return float(min(delta1, delta2))
    if rule == "em":
        return float(delta1)
    raise ValueError(f"dampening rule must be 'eem' or 'em', got {rule!r}")


@shared_parameters(_PARAMETERS)
def exact_dampening(tuple_scores) -> tuple[float, float]:
    """Exact ``(Δ1, Δ2)`` of Eq. 7 and 8 from ``q[t, ω]`` over a *finite* tuple domain.

    ``Δ1 = 2 max_ω (max_t q - min_t q)``; ``Δ2 = 2 max_t (max_ω q - min_ω q)``.
    Paper Example 1 (``T = {0..10}``, ``Ω = {6, 7, 8}``, ``q = -(t - ω)²``): 128 and 56.

    Parameters
    ----------
    {tuple_scores}

    Returns
    -------
    tuple of float
        ``(Δ1, Δ2)``, both ≥ 0.
    """
    q = np.asarray(tuple_scores, dtype=float)
    return 2.0 * float(np.ptp(q, axis=0).max()), 2.0 * float(np.ptp(q, axis=1).max())


@shared_parameters(_PARAMETERS)
def tight_dampening(tuple_scores) -> float:
    """``Δ* = max_{t,t',ω,ω'} [q(t,ω) - q(t,ω') - q(t',ω) + q(t',ω')] ≤ min(Δ1, Δ2)`` (spec §9).

    The largest range of a score change ``q(t,·) - q(t',·)``; ``exp(ε f/Δ*)`` is still
    ε-DP (the proof of Lemma 3 needs exactly this). Enumeration over a finite domain,
    ``O(|T|² |Ω|)``.

    Parameters
    ----------
    {tuple_scores}

    Returns
    -------
    float
        ``Δ* ≥ 0``.
    """
    q = np.asarray(tuple_scores, dtype=float)
    return float(max(np.ptp(q[t] - q, axis=1).max() for t in range(len(q))))


@shared_parameters(_PARAMETERS)
def selection_pmf(scores, epsilon: float, dampening: float, selector: Selector = "exponential_mechanism") -> np.ndarray:
    """Exact output distribution of one selection with budget ``ε`` and dampening ``Δ``.

    EM: ``softmax(ε f/Δ)``; RNM-Exp: the permute-and-flip pmf at sensitivity ``Δ/2``.
    Paper Eq. 3/5; the selection is ε-DP when ``Δ ≥ min(Δ1, Δ2)`` of the candidate set (Theorem 1).

    Parameters
    ----------
    {scores, epsilon, dampening, selector}

    Returns
    -------
    ndarray of shape (m,)
        Selection probabilities, summing to 1.

    Examples
    --------
    >>> from dpreplication.mechanisms import selection_pmf
    >>> selection_pmf([3.0, 2.0, 0.0], epsilon=1.0, dampening=2.0).round(4).tolist()
    [0.5465, 0.3315, 0.122]
    """
    if selector == "exponential_mechanism":
        return selection.exponential_mechanism_pmf(scores, epsilon, dampening / 2.0)
    if selector == "rnm_exp":
        return selection.permute_and_flip_pmf(scores, epsilon, dampening / 2.0)
    raise ValueError(f"selector must be one of {sorted(SELECTORS)}, got {selector!r}")


@shared_parameters(_PARAMETERS)
def select(
    scores,
    epsilon: float,
    dampening: float,
    k: int,
    rng: np.random.Generator,
    selector: Selector = "exponential_mechanism",
) -> np.ndarray:
    """Draw ``k`` candidate indices without replacement, each draw with budget ``ε/k`` (Algorithm 2).

    Each draw is ``argmax_i (f_i + b·N_i)`` over the remaining candidates, ``b = Δk/ε``,
    ``N`` standard Gumbel (EM, ``P ∝ exp((ε/k) f/Δ)``) or exponential (RNM-Exp). For the
    Gumbel selector, this sequential peeling has the law of Gumbel-top-k (spec §2.2).
    Guarantee: ε-DP whenever ``Δ ≥ min(Δ1, Δ2)`` of the candidate set (module docstring;
    Theorem 1 per draw, sequential composition over the ``k`` draws).

    Parameters
    ----------
    {scores}
    epsilon : float
        Total privacy budget, ε > 0 (finite); each draw spends ``ε/k``.
    {dampening}
    k : int
        Number of candidates to select, ``1 ≤ k ≤ m`` (``ValueError`` otherwise).
    rng : numpy.random.Generator
        Source of the Gumbel or exponential noise.
    {selector}

    Returns
    -------
    ndarray of int64, shape (k,)
        Distinct candidate indices in the order drawn.

    Examples
    --------
    >>> import numpy as np
    >>> from dpreplication.mechanisms import select
    >>> select([3.0, 2.0, 0.0, 2.5], epsilon=1.0, dampening=1.0, k=2, rng=np.random.default_rng(0)).tolist()
    [3, 0]
    """
    if selector not in SELECTORS:
        raise ValueError(f"selector must be one of {sorted(SELECTORS)}, got {selector!r}")
    remaining = np.arange(np.asarray(scores).size)
    values = np.asarray(scores, dtype=float)
    if not 1 <= k <= remaining.size:
        raise ValueError(f"cannot select k={k} of {remaining.size} candidates")
    chosen = np.empty(k, dtype=np.int64)
    for draw in range(k):
        index = selection_sampling.sample_report_noisy_max(
            values[remaining], epsilon / k, dampening / 2.0, 1, rng, SELECTORS[selector]
        )[0]
        chosen[draw] = remaining[index]
        remaining = np.delete(remaining, index)
    return chosen


@shared_parameters(_PARAMETERS)
def privacy_loss(
    scores, neighbour_scores, epsilon: float, dampening: float, selector: Selector = "exponential_mechanism"
) -> float:
    """``max_ω |log P_D(ω) - log P_D'(ω)|`` over outputs and over a batch of neighbours (exact pmfs).

    ``scores``: ``f(D, ·)``, shape ``(m,)``; ``neighbour_scores``: ``f(D', ·)`` for each
    neighbour ``D'``, shape ``(..., m)``. ε-DP of one selection means the result is ≤ ε
    (Theorem 1: at most ε when ``Δ ≥ min(Δ1, Δ2)``).

    Parameters
    ----------
    scores : array_like of shape (m,)
        Finite scores ``f(D, ·)``.
    neighbour_scores : array_like of shape (..., m)
        Finite scores ``f(D', ·)`` of one or more neighbours ``D'``.
    {epsilon, dampening, selector}

    Returns
    -------
    float
        The largest absolute log-ratio of the selection probabilities.
    """
    base = np.log(selection_pmf(scores, epsilon, dampening, selector))
    rows = np.asarray(neighbour_scores, dtype=float).reshape(-1, base.size)
    return float(max(np.max(np.abs(np.log(selection_pmf(row, epsilon, dampening, selector)) - base)) for row in rows))
