"""Release audit of GUPT with its own range estimation (learning/gupt_loose.py) at moderate ε.

The percentile mechanism is spied on (its own privacy is checked exactly in
``tests/mechanisms/test_quantile.py``) and returns fixed quartiles, so the range, the winsorized
mean's sensitivity and each Laplace scale follow from GUPT's formulas written out here: per
coordinate ``ε/p``, ``(1 − φ)ε/(2p)`` to each quartile, ``[l, u] = mid ± 4·ℓ^(1/3+0.1)·IQR``, scale
``(u − l)/(ℓ·φ·ε/p)``. Negative controls: half the sensitivity, and GUPT's code budget (the whole
ε per coordinate), must fail the audit.
"""

from __future__ import annotations

import numpy as np
import pytest
from release_audit import RecordingGenerator, fails

from dpreplication.learning import gupt_loose

EPSILONS = [0.1, 0.5, 2.0]
QUARTILE_VALUES = {0.25: -0.1, 0.75: 0.2}


def spy_quantiles(monkeypatch):
    """Replace the private percentile by a recorder returning fixed quartiles; return its calls."""
    calls = []

    def recorded(values, quantile, epsilon, lower, upper, rng):
        calls.append((len(values), quantile, epsilon, lower, upper))
        return QUARTILE_VALUES[quantile]

    monkeypatch.setattr(gupt_loose, "private_quantile", recorded)
    return calls


def check_gupt_loose(monkeypatch, epsilon, phi, blocks=40, p=3):
    calls = spy_quantiles(monkeypatch)
    outputs = np.random.default_rng(30).uniform(-1, 1, (blocks, p))
    rng = RecordingGenerator(31)
    released = gupt_loose.gupt_loose_aggregate(outputs, (-1.0, 1.0), epsilon, rng, np.random.default_rng(32), phi)
    per_coordinate = epsilon / p
    assert calls == [(blocks, q, (1 - phi) * per_coordinate / 2, -1.0, 1.0) for _ in range(p) for q in (0.25, 0.75)]
    low_q, high_q = QUARTILE_VALUES[0.25], QUARTILE_VALUES[0.75]
    half_width = 4 * blocks ** (1 / 3 + 0.1) * (high_q - low_q)
    width = 2 * half_width
    sensitivity = width / blocks  # one block's output moves the winsorized mean by at most (u − l)/ℓ
    assert rng.laplace_scales() == pytest.approx([sensitivity / (phi * per_coordinate)] * p)
    spent = sum(call[2] for call in calls) + sum(sensitivity / scale for scale in rng.laplace_scales())
    assert spent == pytest.approx(epsilon)
    low, high = (low_q + high_q) / 2 - half_width, (low_q + high_q) / 2 + half_width
    assert low < -1 and high > 1  # the widened range is not cut back to the loose range (GUPT's code)
    assert released.shape == (p,)


@pytest.mark.parametrize("epsilon", EPSILONS)
@pytest.mark.parametrize("phi", [0.5, 0.25])
def test_gupt_loose_spends_epsilon_as_gupt_splits_it(monkeypatch, epsilon, phi):
    check_gupt_loose(monkeypatch, epsilon, phi)


def test_negative_control_half_sensitivity(monkeypatch):
    original = gupt_loose.laplace_mechanism
    monkeypatch.setattr(
        gupt_loose,
        "laplace_mechanism",
        lambda value, epsilon, rng, sensitivity: original(value, epsilon, rng, sensitivity / 2),
    )
    assert fails(check_gupt_loose, monkeypatch, 0.5, 0.5)


def test_negative_control_gupt_code_budget_per_coordinate(monkeypatch):
    """GUPT's ``_privatize_windsorized`` gives each top-level output the whole ε: with p outputs that
    spends p·ε, which the audit must reject."""
    original = gupt_loose.gupt_loose_aggregate

    def whole_epsilon_each(outputs, loose_range, epsilon, rng, range_rng, eps_fraction=0.5):
        columns = np.asarray(outputs, dtype=float).T
        return np.concatenate(
            [original(column[:, None], loose_range, epsilon, rng, range_rng, eps_fraction) for column in columns]
        )

    monkeypatch.setattr(gupt_loose, "gupt_loose_aggregate", whole_epsilon_each)
    assert fails(check_gupt_loose, monkeypatch, 0.5, 0.5)


def test_estimated_range_and_release_are_accurate_at_large_epsilon():
    """Concentrated block outputs, ε = 1e4: the quartiles are the data's, the range is their IQR widened
    by 8·ℓ^(1/3+0.1), and the release is the mean."""
    rng = np.random.default_rng(33)
    outputs = np.column_stack([rng.normal(0.3, 0.01, 60), rng.normal(-0.4, 0.01, 60)])
    low, high = gupt_loose.gupt_estimated_range(outputs[:, 0], (-1.0, 1.0), 1e4, np.random.default_rng(34))
    iqr = np.subtract(*np.quantile(outputs[:, 0], [0.75, 0.25]))
    assert high - low == pytest.approx(8 * 60 ** (1 / 3 + 0.1) * iqr, rel=0.2)
    released = gupt_loose.gupt_loose_aggregate(outputs, (-1.0, 1.0), 1e4, rng, np.random.default_rng(35))
    np.testing.assert_allclose(released, outputs.mean(axis=0), atol=0.01)


@pytest.mark.parametrize("phi", [0.0, 1.0])
def test_rejects_a_share_without_range_or_mean_budget(phi):
    with pytest.raises(ValueError, match="eps_fraction"):
        gupt_loose.gupt_loose_aggregate(
            np.zeros((5, 2)), (-1.0, 1.0), 1.0, np.random.default_rng(0), np.random.default_rng(1), phi
        )
