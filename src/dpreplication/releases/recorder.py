"""The release recorder: what a sampler calls, just before it draws, to record what it spends.

Every function that draws privacy noise calls one ``record_*`` function with the parameters its
sampler actually uses (the noise scale and the sensitivity it was given, the selection's scale,
DP-SGD's noise multiplier, sampling rate and steps), not the ε its caller meant to spend. Each
builds a plain event (dp-accounting's, or one of :mod:`dpreplication.releases.events`) and appends
it to the active ledger: the innermost :func:`recording` block, which
:func:`dpreplication.accounting.ledger.spending` opens around one released quantity, found without
an argument threaded through the calls (a :mod:`contextvars` variable). Outside such a block a
record costs one lookup and is dropped, and no event class is imported.

This module interprets nothing: what an event costs, the composition of a ledger's events and its
budget guard are the accounting layer's (:class:`dpreplication.accounting.ledger.Ledger`), which
the mechanisms never import (``tests/test_layering.py``).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Protocol

from dpreplication.validation import in_unit_interval, non_negative, positive, whole_number


class ReleaseLog(Protocol):
    """Where records go: :class:`dpreplication.accounting.ledger.Ledger`, or anything with its ``add``."""

    def add(self, mechanism: str, event, count: int = 1) -> None:
        """Record ``count`` draws of ``event`` by ``mechanism`` (refusing them, before the draw, beyond a budget)."""


_ACTIVE: ContextVar[ReleaseLog | None] = ContextVar("dpreplication_privacy_ledger", default=None)


def active_ledger() -> ReleaseLog | None:
    """Return the ledger of the innermost :func:`recording` block, or ``None`` outside one (for a record of one's own)."""
    return _ACTIVE.get()


@contextmanager
def recording(ledger: ReleaseLog) -> Iterator[ReleaseLog]:
    """Send the records of everything drawn inside the block to ``ledger``; blocks nest (the innermost takes them)."""
    token = _ACTIVE.set(ledger)
    try:
        yield ledger
    finally:
        _ACTIVE.reset(token)


def record_laplace(mechanism: str, scale: float, sensitivity: float, count: int = 1) -> None:
    """``count`` draws of ``Lap(scale)`` on a query of L1 sensitivity Δ (dp-accounting ``LaplaceDpEvent``, ε = Δ/scale)."""
    if (ledger := _ACTIVE.get()) is not None:
        from dp_accounting import dp_event

        noise_multiplier = positive("scale", scale) / positive("sensitivity", sensitivity)
        ledger.add(mechanism, dp_event.LaplaceDpEvent(noise_multiplier), count)


def record_report_noisy_max(mechanism: str, noise: str, scale: float, sensitivity: float, count: int = 1) -> None:
    """``count`` selections ``argmax(q + scale·N)`` over scores of sensitivity Δ (ε = 2Δ/scale)."""
    if (ledger := _ACTIVE.get()) is not None:
        from dpreplication.releases.events import ReportNoisyMaxDpEvent

        event = ReportNoisyMaxDpEvent(noise, positive("scale", scale), positive("sensitivity", sensitivity))
        ledger.add(mechanism, event, count)


def record_objective_perturbation(mechanism: str, noise_scale: float, curvature: float, n: int, ridge: float) -> None:
    """One objective-perturbation minimiser, noise ``∝ exp(-‖b‖/θ)`` (ε = 2/θ + 2 log(1 + c/(nΛ)))."""
    if (ledger := _ACTIVE.get()) is not None:
        from dpreplication.releases.events import ObjectivePerturbationDpEvent

        event = ObjectivePerturbationDpEvent(
            positive("noise_scale", noise_scale),
            non_negative("curvature", curvature),
            whole_number("n", n, minimum=1),
            positive("ridge", ridge),
        )
        ledger.add(mechanism, event)


def record_truncated_laplace(mechanism: str, scale: float, bound: float, sensitivity: float, count: int = 1) -> None:
    """``count`` draws of the truncated Laplacian ``Lap(scale)`` on ``[-bound, bound]`` at sensitivity Δ."""
    if (ledger := _ACTIVE.get()) is not None:
        from dpreplication.releases.events import TruncatedLaplaceDpEvent

        event = TruncatedLaplaceDpEvent(
            positive("scale", scale), positive("bound", bound), positive("sensitivity", sensitivity)
        )
        ledger.add(mechanism, event, count)


def record_majority_vote(mechanism: str, gamma, voter_epsilon: float, voter_delta: float, count: int = 1) -> None:
    """``count`` DaRRM_γ releases over ``(voter_epsilon, voter_delta)``-DP voters (ε = m_eff(δ)·ε_v by the exact verifier)."""
    if (ledger := _ACTIVE.get()) is not None:
        from dpreplication.releases.events import MajorityVoteDpEvent

        event = MajorityVoteDpEvent(tuple(float(g) for g in gamma), float(voter_epsilon), float(voter_delta))
        ledger.add(mechanism, event, count)


def record_dp_sgd(mechanism: str, noise_multiplier: float, sampling_probability: float, steps: int) -> None:
    """DP-SGD: ``steps`` Poisson-sampled Gaussian steps (dp-accounting events, composed by RDP)."""
    if (ledger := _ACTIVE.get()) is not None:
        from dp_accounting import dp_event

        rate = in_unit_interval("sampling_probability", sampling_probability, include_zero=False, include_one=True)
        noise = dp_event.GaussianDpEvent(positive("noise_multiplier", noise_multiplier))
        ledger.add(mechanism, dp_event.PoissonSampledDpEvent(rate, noise), whole_number("steps", steps))


def record_gaussian(mechanism: str, scale: float, sensitivity: float, count: int = 1) -> None:
    """``count`` draws of ``N(0, scale²)`` on a query of L2 sensitivity Δ (dp-accounting ``GaussianDpEvent(scale/Δ)``)."""
    if (ledger := _ACTIVE.get()) is not None:
        from dp_accounting import dp_event

        noise_multiplier = positive("scale", scale) / positive("sensitivity", sensitivity)
        ledger.add(mechanism, dp_event.GaussianDpEvent(noise_multiplier), count)


def record_library(mechanism: str, library: str, epsilon: float, delta: float = 0.0) -> None:
    """Record a release drawn inside ``library``, as its own accountant reports it.

    Made after the draw: the budget guard can then only refuse to return the release.
    """
    if (ledger := _ACTIVE.get()) is not None:
        from dpreplication.releases.events import LibraryDpEvent

        event = LibraryDpEvent(library, non_negative("epsilon", epsilon), in_unit_interval("delta", delta))
        ledger.add(mechanism, event)


def record_non_private(mechanism: str) -> None:
    """Record a release without privacy (dp-accounting ``NonPrivateDpEvent``: ε = ∞)."""
    if (ledger := _ACTIVE.get()) is not None:
        from dp_accounting import dp_event

        ledger.add(mechanism, dp_event.NonPrivateDpEvent())
