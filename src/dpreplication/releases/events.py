"""The replications' own DP events: frozen classes of parameters, as dp-accounting's own events are.

dp-accounting has no event for a selection, objective perturbation, the truncated Laplacian, a
majority vote or a release drawn inside another library, so they are defined here, each holding
the parameters its sampler actually uses and nothing else. What an event costs (its privacy map)
is not its own: :data:`dpreplication.accounting.events.PRIVACY_MAPS` maps each event class to it,
and the accountants of :mod:`dpreplication.accounting.events` compose them.

- :class:`ReportNoisyMaxDpEvent` — ``argmax_i (q_i + b·N_i)`` over scores of sensitivity ``Δ``.
- :class:`ObjectivePerturbationDpEvent` — a minimiser perturbed by ``b`` with density
  ``∝ exp(-‖b‖/θ)`` under the ridge ``Λ``, for a loss with curvature ``c`` on ``n`` rows.
- :class:`TruncatedLaplaceDpEvent` — ``Lap(λ)`` truncated to ``[-A, A]`` at sensitivity ``Δ``.
- :class:`MajorityVoteDpEvent` — DaRRM_γ (Jiang, Zhang & Joshi 2024, Algorithm 1) over K voters,
  each ``(ε_v, Δ_v)``-DP.
- :class:`LibraryDpEvent` — a release drawn inside another library (diffprivlib), with the (ε, δ)
  its own accountant reports.
"""

from __future__ import annotations

import attr
from dp_accounting import dp_event


@attr.s(frozen=True, slots=True, auto_attribs=True)
class ReportNoisyMaxDpEvent(dp_event.DpEvent):
    """``argmax_i (q_i + noise_scale·N_i)`` over scores of sensitivity ``sensitivity``: ε = 2Δ/b."""

    noise: str
    noise_scale: float
    sensitivity: float


@attr.s(frozen=True, slots=True, auto_attribs=True)
class ObjectivePerturbationDpEvent(dp_event.DpEvent):
    """Objective perturbation, noise ``∝ exp(-‖b‖/noise_scale)``: ε = 2/noise_scale + 2 log(1 + curvature/(n·ridge))."""

    noise_scale: float
    curvature: float
    n: int
    ridge: float


@attr.s(frozen=True, slots=True, auto_attribs=True)
class TruncatedLaplaceDpEvent(dp_event.DpEvent):
    """``Lap(scale)`` truncated to ``[-bound, bound]`` at sensitivity Δ: (ε, δ) of Geng et al. Theorem 1."""

    scale: float
    bound: float
    sensitivity: float


@attr.s(frozen=True, slots=True, auto_attribs=True)
class MajorityVoteDpEvent(dp_event.DpEvent):
    """DaRRM_γ over ``len(gamma) − 1`` voters, each ``(voter_epsilon, voter_delta)``-DP: ε(δ) = m_eff(δ)·ε_v.

    The privacy ledger's event of a majority vote, read at a δ by the exact verifier's
    :func:`~dpreplication.accounting.privacy_verifier.effective_budget`
    (:data:`~dpreplication.accounting.events.PRIVACY_MAPS`).
    """

    gamma: tuple[float, ...]
    voter_epsilon: float
    voter_delta: float


@attr.s(frozen=True, slots=True, auto_attribs=True)
class LibraryDpEvent(dp_event.DpEvent):
    """A release drawn inside ``library``, which reports it ``(epsilon, delta)``-DP."""

    library: str
    epsilon: float
    delta: float
