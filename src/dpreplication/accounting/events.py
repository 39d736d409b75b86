"""Privacy maps of the replications' release events, and the accountants that compose them into one (ε, δ).

A release is described by a dp-accounting :class:`~dp_accounting.dp_event.DpEvent` built from the
parameters its sampler actually uses: plain data, recorded below the mechanisms
(:mod:`dpreplication.releases`). Where the library has a class it is used (``LaplaceDpEvent``:
noise scale ``s`` over L1 sensitivity ``C``, ``noise_multiplier = s/C``, ε = 1/noise_multiplier;
``PoissonSampledDpEvent`` of a ``GaussianDpEvent`` for DP-SGD; ``SelfComposedDpEvent``,
``ComposedDpEvent``, ``NonPrivateDpEvent``). The selections, objective perturbation, the truncated
Laplacian, the majority vote and a library's release have none, so they get small event types of
their own (:mod:`dpreplication.releases.events`). This module interprets them all: each event
class has its privacy map in :data:`PRIVACY_MAPS`, the one registry :func:`epsilon_delta` dispatches
on (an event carries no map of its own, as dp-accounting's accountants interpret its events):

- :class:`~dpreplication.releases.events.ReportNoisyMaxDpEvent` — ``argmax_i (q_i + b·N_i)`` over
  scores of sensitivity ``Δ`` (Gumbel: the exponential mechanism; exponential: permute-and-flip;
  Laplace: RNM-Laplace), and the exponential mechanism written as its probabilities
  ``∝ exp(ε q/(2Δ))``: ε = 2Δ/b (Dwork & Roth Theorem 3.10; Ding et al. 2021 Theorem 1;
  McSherry & Talwar 2007).
- :class:`~dpreplication.releases.events.ObjectivePerturbationDpEvent` — a minimiser perturbed by
  ``b`` with density ``∝ exp(-‖b‖/θ)`` (``ε_b = 2/θ``) under the ridge ``Λ``, for a loss with
  curvature ``c`` on ``n`` rows: ε = ε_b + 2 log(1 + c/(nΛ)) (Chaudhuri, Monteleoni & Sarwate 2011,
  Theorem 9).
- :class:`~dpreplication.releases.events.TruncatedLaplaceDpEvent` — ``Lap(λ)`` truncated to
  ``[-A, A]`` at sensitivity ``Δ``: (ε, δ) = (Δ/λ, (e^ε - 1)/(2(e^{A/λ} - 1))), the inverse of
  ``A = λ ln(1 + (e^ε - 1)/(2δ))`` (Geng et al. 2020, Definition 3 and Theorem 1).
- :class:`~dpreplication.releases.events.MajorityVoteDpEvent` — DaRRM_γ (Jiang, Zhang & Joshi
  2024, Algorithm 1) over K voters, each ``(ε_v, Δ_v)``-DP: at a given δ, ε = m·ε_v for the smallest
  m at which the exact verifier (spec §7,
  :func:`~dpreplication.accounting.privacy_verifier.effective_budget`) finds it ``(mε_v, δ)``-DP.
  The majority of m voters polled at random is DaRRM with γ_Sub (Lemma 3.1).
- :class:`~dpreplication.releases.events.LibraryDpEvent` — a release drawn inside another library
  (diffprivlib), whose own accountant reports its (ε, δ): the ledger can only take the library's
  word for it.

A Gaussian release (dp-accounting ``GaussianDpEvent``) and a majority vote have a curve of (ε, δ)
guarantees, not one pair: :func:`epsilon_delta` reads them at a given δ (the Gaussian through
dp-accounting's ``RdpAccountant``, the majority vote through the exact verifier).

Two dp-accounting ``PrivacyAccountant`` compose (ε, δ) events. :class:`BasicCompositionAccountant`:
the ε and δ of the parts add up, exactly, which is what a budget stated as "ε per point" promises.
:class:`AdvancedCompositionAccountant`: k releases, each at most ``(ε, δ)``-DP, are
``(√(2k log(1/δ'))ε + kε(e^ε − 1), kδ + δ')``-DP (Dwork, Rothblum & Vadhan 2010; Dwork & Roth,
Theorem 3.20), what DaRRM states for a set of Q queries.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

from dp_accounting import dp_event
from dp_accounting.privacy_accountant import NeighboringRelation, PrivacyAccountant

from dpreplication.releases.events import (
    LibraryDpEvent,
    MajorityVoteDpEvent,
    ObjectivePerturbationDpEvent,
    ReportNoisyMaxDpEvent,
    TruncatedLaplaceDpEvent,
)
from dpreplication.validation import in_unit_interval, non_negative, positive, whole_number

EFFECTIVE_BUDGET_RESOLUTION = 1e-13
"""Bisection width of a majority vote's m in the ledger: far below its 1e-9 relative tolerance."""


class NoEpsilonDelta(ValueError):
    """An event whose guarantee is no (ε, δ) pair by itself: a curve read at no δ, or RDP only."""


def check_event(event: dp_event.DpEvent) -> dp_event.DpEvent:
    """Return ``event`` if each of its parameters is in range; else ``ValueError`` naming the parameter and its value.

    Noise scales and multipliers ``≥ 0`` (0: no noise, ε = ∞), sensitivities and curvatures ``≥ 0``,
    sampling rates in [0, 1], counts whole, a library's ε ``≥ 0`` (∞: not private) and δ in [0, 1);
    all but that ε finite, so that NaN never composes to a small ε. Composed events are checked part by part.
    """
    if isinstance(event, dp_event.LaplaceDpEvent | dp_event.GaussianDpEvent):
        non_negative("noise_multiplier", event.noise_multiplier)
    elif isinstance(event, ReportNoisyMaxDpEvent):
        non_negative("noise_scale", event.noise_scale)
        non_negative("sensitivity", event.sensitivity)
    elif isinstance(event, ObjectivePerturbationDpEvent):
        positive("noise_scale", event.noise_scale)
        non_negative("curvature", event.curvature)
        whole_number("n", event.n, minimum=1)
        positive("ridge", event.ridge)
    elif isinstance(event, TruncatedLaplaceDpEvent):
        positive("scale", event.scale)
        positive("bound", event.bound)
        non_negative("sensitivity", event.sensitivity)
    elif isinstance(event, LibraryDpEvent):
        non_negative("epsilon", event.epsilon, allow_infinity=True)
        in_unit_interval("delta", event.delta)
    elif isinstance(event, dp_event.PoissonSampledDpEvent):
        in_unit_interval("sampling_probability", event.sampling_probability, include_one=True)
        check_event(event.event)
    elif isinstance(event, dp_event.SelfComposedDpEvent):
        whole_number("count", event.count)
        check_event(event.event)
    elif isinstance(event, dp_event.ComposedDpEvent):
        for part in event.events:
            check_event(part)
    return event


def rdp_accountant():
    """dp-accounting's ``RdpAccountant`` over our integer orders (:data:`~dpreplication.accounting.rdp.DEFAULT_ORDERS`)."""
    from dp_accounting.rdp import RdpAccountant

    from dpreplication.accounting.rdp import DEFAULT_ORDERS

    return RdpAccountant(orders=[float(order) for order in DEFAULT_ORDERS])


@functools.lru_cache(maxsize=256)
def _gaussian_epsilon(event: dp_event.DpEvent, delta: float) -> float:
    return float(rdp_accountant().compose(event).get_epsilon(delta))


@functools.lru_cache(maxsize=256)
def rdp_epsilon(records: tuple[tuple[dp_event.DpEvent, int], ...], delta: float) -> float:
    """ε at ``delta`` of ``(event, count)`` records composed by :func:`rdp_accountant`, cached.

    One call costs about 1.5 CPU-s for a DP-SGD event (dp-accounting evaluates the sampled Gaussian
    at each of its 999 orders); a job that checks and then reports the same ledger, or trains
    teachers on shards of one size, composes each distinct one once. ``delta`` in [0, 1) (0: ε = ∞);
    dp-accounting reads a NaN δ as ε = 0.
    """
    in_unit_interval("delta", delta)
    for event, count in records:
        check_event(dp_event.SelfComposedDpEvent(event, count))
    composed = dp_event.ComposedDpEvent([dp_event.SelfComposedDpEvent(event, count) for event, count in records])
    return float(rdp_accountant().compose(composed).get_epsilon(delta))


@functools.lru_cache(maxsize=256)
def _majority_vote_epsilon(event: MajorityVoteDpEvent, delta: float) -> float:
    """``m_eff(δ)·ε_v``: the smallest private m (to :data:`EFFECTIVE_BUDGET_RESOLUTION`) times ε_v."""
    from dpreplication.accounting.privacy_verifier import effective_budget

    K = len(event.gamma) - 1
    m = effective_budget(
        event.gamma, K, event.voter_epsilon, event.voter_delta, delta, resolution=EFFECTIVE_BUDGET_RESOLUTION
    )
    return m * event.voter_epsilon


PrivacyMap = Callable[[dp_event.DpEvent, float | None], tuple[float, float]]
"""An event's privacy map: ``(event, δ or None) → (ε, δ)``; raises :class:`NoEpsilonDelta` where it has none."""


def _no_epsilon_delta(event: dp_event.DpEvent) -> NoEpsilonDelta:
    return NoEpsilonDelta(
        f"{type(event).__name__} has no (ε, δ) of its own; read it at a δ, or compose it with an RDP accountant"
    )


def _read_at_delta(epsilon_at: Callable[[dp_event.DpEvent, float], float]) -> PrivacyMap:
    """Return the map of an event with a curve of guarantees: ``(epsilon_at(event, δ), δ)``, none without a δ."""

    def read(event, delta):
        if delta is None:
            raise _no_epsilon_delta(event)
        return epsilon_at(event, float(delta)), float(delta)

    return read


def _no_op(event, delta):
    return 0.0, 0.0


def _non_private(event, delta):
    return math.inf, 0.0


def _laplace(event, delta):
    return (math.inf if event.noise_multiplier == 0 else 1.0 / event.noise_multiplier), 0.0


def _report_noisy_max(event, delta):
    return (math.inf if event.noise_scale == 0 else 2.0 * event.sensitivity / event.noise_scale), 0.0


def _objective_perturbation(event, delta):
    return 2.0 / event.noise_scale + 2.0 * math.log1p(event.curvature / (event.n * event.ridge)), 0.0


def _truncated_laplace(event, delta):
    epsilon, width = event.sensitivity / event.scale, event.bound / event.scale
    # (e^ε - 1)/(2(e^{A/λ} - 1)) written with e^{-A/λ} so that a wide support cannot overflow
    return epsilon, -math.expm1(-epsilon) * math.exp(epsilon - width) / (-2.0 * math.expm1(-width))


def _library(event, delta):
    return event.epsilon, event.delta


def _self_composed(event, delta):
    epsilon, spent_delta = epsilon_delta(event.event, delta)
    return event.count * epsilon, event.count * spent_delta


def _composed(event, delta):
    parts = [epsilon_delta(part, delta) for part in event.events]
    return math.fsum(e for e, _ in parts), math.fsum(d for _, d in parts)


PRIVACY_MAPS: dict[type[dp_event.DpEvent], PrivacyMap] = {
    dp_event.NoOpDpEvent: _no_op,
    dp_event.NonPrivateDpEvent: _non_private,
    dp_event.LaplaceDpEvent: _laplace,
    ReportNoisyMaxDpEvent: _report_noisy_max,
    ObjectivePerturbationDpEvent: _objective_perturbation,
    TruncatedLaplaceDpEvent: _truncated_laplace,
    LibraryDpEvent: _library,
    dp_event.GaussianDpEvent: _read_at_delta(_gaussian_epsilon),
    MajorityVoteDpEvent: _read_at_delta(_majority_vote_epsilon),
    dp_event.SelfComposedDpEvent: _self_composed,
    dp_event.ComposedDpEvent: _composed,
}
"""Each event class's privacy map (module docstring), the registry :func:`epsilon_delta` dispatches on.

An event class without one (``PoissonSampledDpEvent``: DP-SGD, RDP only) has no (ε, δ) of its own.
"""


def privacy_map(event: dp_event.DpEvent) -> PrivacyMap:
    """Return the map of ``event``'s class in :data:`PRIVACY_MAPS` (or of its nearest base class that has one).

    Raises
    ------
    NoEpsilonDelta
        If no class of ``event`` has a map.
    """
    for kind in type(event).__mro__:
        if kind in PRIVACY_MAPS:
            return PRIVACY_MAPS[kind]
    raise _no_epsilon_delta(event)


def epsilon_delta(event: dp_event.DpEvent, delta: float | None = None) -> tuple[float, float]:
    """``(ε, δ)`` of one event by its privacy map (:data:`PRIVACY_MAPS`); ``(inf, 0)`` for a non-private one.

    ``delta``: where an event has a curve of guarantees (Gaussian, majority vote), the δ at which it
    is read, in [0, 1); ignored by an event with an (ε, δ) of its own.

    Raises
    ------
    NoEpsilonDelta
        For an event whose guarantee is not an (ε, δ) pair by itself and no ``delta`` (Gaussian, a
        majority vote), or whose guarantee is RDP only (DP-SGD: compose it with an RDP accountant).
    ValueError
        For a parameter of the event (:func:`check_event`) or a ``delta`` out of range (NaN included).
    """
    check_event(event)
    if delta is not None:
        in_unit_interval("delta", delta)
    return privacy_map(event)(event, delta)


def releases(event: dp_event.DpEvent, delta: float | None = None) -> list[tuple[float, float, int]]:
    """``(ε, δ, count)`` of each kind of release in ``event`` (composed and self-composed events unrolled)."""
    if isinstance(event, dp_event.ComposedDpEvent):
        return [part for inner in event.events for part in releases(inner, delta)]
    if isinstance(event, dp_event.SelfComposedDpEvent):
        return [(epsilon, spent, count * event.count) for epsilon, spent, count in releases(event.event, delta)]
    return [(*epsilon_delta(event, delta), 1)]


class BasicCompositionAccountant(PrivacyAccountant):
    """Basic composition of (ε, δ) events: ε and δ add up (Dwork & Roth, Theorem 3.16).

    ``get_epsilon(target_delta)`` is the summed ε when the summed δ is at most ``target_delta``
    (else ``inf``); ``get_delta(target_epsilon)`` is the summed δ when the summed ε is at most
    ``target_epsilon`` (else 1).
    """

    def __init__(
        self,
        release_delta: float | None = None,
        neighboring_relation: NeighboringRelation = NeighboringRelation.REPLACE_ONE,
    ):
        super().__init__(neighboring_relation)
        self.release_delta = None if release_delta is None else in_unit_interval("release_delta", release_delta)
        self._epsilons: list[float] = []
        self._deltas: list[float] = []

    def _maybe_compose(self, event, count, do_compose):
        try:
            epsilon, delta = epsilon_delta(event, self.release_delta)
        except NoEpsilonDelta as error:
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


class AdvancedCompositionAccountant(BasicCompositionAccountant):
    """Advanced composition of (ε, δ) events (Dwork, Rothblum & Vadhan 2010; Dwork & Roth, Theorem 3.20).

    k releases, each at most ``(ε, δ)``-DP (ε, δ the largest of the parts), are
    ``(√(2k log(1/δ'))ε + kε(e^ε − 1), kδ + δ')``-DP. Events with a curve of guarantees are read
    at ``release_delta``; ``get_epsilon``/``get_delta`` as for :class:`BasicCompositionAccountant`.
    """

    def __init__(
        self,
        delta_prime: float,
        release_delta: float | None = None,
        neighboring_relation: NeighboringRelation = NeighboringRelation.REPLACE_ONE,
    ):
        super().__init__(release_delta, neighboring_relation)
        self.delta_prime = in_unit_interval("delta_prime", delta_prime, include_zero=False, include_one=True)
        self._releases: list[tuple[float, float, int]] = []

    def _maybe_compose(self, event, count, do_compose):
        try:
            parts = releases(event, self.release_delta)
        except NoEpsilonDelta as error:
            return self.CompositionErrorDetails(invalid_event=event, error_message=str(error))
        if do_compose:
            self._releases += [(epsilon, delta, number * count) for epsilon, delta, number in parts]
        return None

    def _composed(self) -> tuple[float, float]:
        from dpreplication.accounting.composition import advanced_composition

        k = sum(count for _, _, count in self._releases)
        epsilon = max((epsilon for epsilon, _, _ in self._releases), default=0.0)
        if k == 0 or math.isinf(epsilon):
            return epsilon, 0.0
        return advanced_composition(epsilon, max(delta for _, delta, _ in self._releases), k, self.delta_prime)

    @property
    def epsilon(self) -> float:
        """Composed ε of the events composed so far (advanced composition)."""
        return self._composed()[0]

    @property
    def delta(self) -> float:
        """Composed δ of the events composed so far (advanced composition)."""
        return self._composed()[1]
