"""Privacy events of the replications' releases, and the accountant that composes them by basic composition.

A release is described by a dp-accounting :class:`~dp_accounting.dp_event.DpEvent` built from the
parameters its sampler actually uses. Where the library has a class it is used
(``LaplaceDpEvent``: noise scale ``s`` over L1 sensitivity ``C``, ``noise_multiplier = s/C``,
ε = 1/noise_multiplier; ``PoissonSampledDpEvent`` of a ``GaussianDpEvent`` for DP-SGD;
``SelfComposedDpEvent``, ``ComposedDpEvent``, ``NonPrivateDpEvent``). The selections and
objective perturbation have none, so they get small event types here, each with its privacy map:

- :class:`ReportNoisyMaxDpEvent` — ``argmax_i (q_i + b·N_i)`` over scores of sensitivity ``Δ``
  (Gumbel: the exponential mechanism; exponential: permute-and-flip; Laplace: RNM-Laplace), and
  the exponential mechanism written as its probabilities ``∝ exp(ε q/(2Δ))``: ε = 2Δ/b (Dwork &
  Roth Theorem 3.10; Ding et al. 2021 Theorem 1; McSherry & Talwar 2007).
- :class:`ObjectivePerturbationDpEvent` — a minimiser perturbed by ``b`` with density
  ``∝ exp(-ε_b‖b‖/2)`` under the ridge ``Λ``, for a loss with curvature ``c`` on ``n`` rows:
  ε = ε_b + 2 log(1 + c/(nΛ)) (Chaudhuri, Monteleoni & Sarwate 2011, Theorem 9).
- :class:`TruncatedLaplaceDpEvent` — ``Lap(λ)`` truncated to ``[-A, A]`` at sensitivity ``Δ``:
  (ε, δ) = (Δ/λ, (e^ε - 1)/(2(e^{A/λ} - 1))), the inverse of ``A = λ ln(1 + (e^ε - 1)/(2δ))``
  (Geng et al. 2020, Definition 3 and Theorem 1).

:class:`BasicCompositionAccountant` is a dp-accounting ``PrivacyAccountant`` that composes these
events by basic composition: the ε and δ of the parts add up, exactly, which is what a budget
stated as "ε per point" promises.
"""

from __future__ import annotations

import math

import attr
from dp_accounting import dp_event
from dp_accounting.privacy_accountant import NeighboringRelation, PrivacyAccountant


@attr.s(frozen=True, slots=True, auto_attribs=True)
class ReportNoisyMaxDpEvent(dp_event.DpEvent):
    """``argmax_i (q_i + noise_scale·N_i)`` over scores of sensitivity ``sensitivity``: ε = 2Δ/b."""

    noise: str
    noise_scale: float
    sensitivity: float


@attr.s(frozen=True, slots=True, auto_attribs=True)
class ObjectivePerturbationDpEvent(dp_event.DpEvent):
    """Objective perturbation: ε = noise_epsilon + 2 log(1 + curvature/(n·ridge))."""

    noise_epsilon: float
    curvature: float
    n: int
    ridge: float


@attr.s(frozen=True, slots=True, auto_attribs=True)
class TruncatedLaplaceDpEvent(dp_event.DpEvent):
    """``Lap(scale)`` truncated to ``[-bound, bound]`` at sensitivity Δ: (ε, δ) of Geng et al. Theorem 1."""

    scale: float
    bound: float
    sensitivity: float


def epsilon_delta(event: dp_event.DpEvent) -> tuple[float, float]:
    """``(ε, δ)`` of one event by its privacy map (module docstring); ``(inf, 0)`` for a non-private one.

    Raises
    ------
    ValueError
        For an event whose guarantee is not an (ε, δ) pair by itself (Gaussian, DP-SGD: compose those
        with an RDP accountant).
    """
    if isinstance(event, dp_event.NoOpDpEvent):
        return 0.0, 0.0
    if isinstance(event, dp_event.NonPrivateDpEvent):
        return math.inf, 0.0
    if isinstance(event, dp_event.LaplaceDpEvent):
        return (math.inf if event.noise_multiplier == 0 else 1.0 / event.noise_multiplier), 0.0
    if isinstance(event, ReportNoisyMaxDpEvent):
        return (math.inf if event.noise_scale == 0 else 2.0 * event.sensitivity / event.noise_scale), 0.0
    if isinstance(event, ObjectivePerturbationDpEvent):
        return event.noise_epsilon + 2.0 * math.log1p(event.curvature / (event.n * event.ridge)), 0.0
    if isinstance(event, TruncatedLaplaceDpEvent):
        epsilon, width = event.sensitivity / event.scale, event.bound / event.scale
        # (e^ε - 1)/(2(e^{A/λ} - 1)) written with e^{-A/λ} so that a wide support cannot overflow
        return epsilon, -math.expm1(-epsilon) * math.exp(epsilon - width) / (-2.0 * math.expm1(-width))
    if isinstance(event, dp_event.SelfComposedDpEvent):
        epsilon, delta = epsilon_delta(event.event)
        return event.count * epsilon, event.count * delta
    if isinstance(event, dp_event.ComposedDpEvent):
        parts = [epsilon_delta(part) for part in event.events]
        return math.fsum(e for e, _ in parts), math.fsum(d for _, d in parts)
    raise ValueError(f"{type(event).__name__} has no (ε, δ) of its own; compose it with an RDP accountant")


class BasicCompositionAccountant(PrivacyAccountant):
    """Basic composition of (ε, δ) events: ε and δ add up (Dwork & Roth, Theorem 3.16).

    ``get_epsilon(target_delta)`` is the summed ε when the summed δ is at most ``target_delta``
    (else ``inf``); ``get_delta(target_epsilon)`` is the summed δ when the summed ε is at most
    ``target_epsilon`` (else 1).
    """

    def __init__(self, neighboring_relation: NeighboringRelation = NeighboringRelation.REPLACE_ONE):
        super().__init__(neighboring_relation)
        self._epsilons: list[float] = []
        self._deltas: list[float] = []

    def _maybe_compose(self, event, count, do_compose):
        try:
            epsilon, delta = epsilon_delta(event)
        except ValueError as error:
            return self.CompositionErrorDetails(invalid_event=event, error_message=str(error))
        if do_compose:
            self._epsilons.append(count * epsilon)
            self._deltas.append(count * delta)
        return None

    @property
    def epsilon(self) -> float:
        """Summed ε of the events composed so far."""
        return math.fsum(self._epsilons)

    @property
    def delta(self) -> float:
        """Summed δ of the events composed so far."""
        return math.fsum(self._deltas)

    def get_epsilon(self, target_delta: float) -> float:  # noqa: D102
        return self.epsilon if self.delta <= target_delta else math.inf

    def get_delta(self, target_epsilon: float) -> float:  # noqa: D102
        return self.delta if self.epsilon <= target_epsilon else 1.0
