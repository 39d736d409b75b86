"""DP-SGD: the noise multiplier, clip norm and sampling rate Opacus actually trains with are the
accountant's inputs, and the ε the package reports equals Opacus' own accounting of the run."""

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="DP-SGD needs torch (extra 'learning')")
pytest.importorskip("opacus", reason="DP-SGD needs Opacus (extra 'learning')")

from dpreplication.accounting import rdp  # noqa: E402
from dpreplication.learning import teachers  # noqa: E402

SHARD, BATCH, STEPS, SIGMA, CLIP, DELTA = 96, 16, 7, 1.3, 0.7, 1e-5


@pytest.fixture(scope="module")
def trained():
    rng = np.random.default_rng(0)
    images, labels = rng.integers(0, 256, (SHARD, 28, 28), dtype=np.uint8), rng.integers(0, 2, SHARD)
    device = teachers.configure_torch(1)
    return teachers.train_private(images, labels, STEPS, SIGMA, CLIP, 0.01, BATCH, 0, device)[1]


def test_opacus_trains_with_the_accountant_inputs(trained):
    assert trained.noise_multiplier == SIGMA and trained.max_grad_norm == CLIP
    assert trained.sample_rate == teachers.poisson_sample_rate(SHARD, BATCH) == pytest.approx(BATCH / SHARD)
    assert trained.steps == STEPS and trained.accountant_history == ((SIGMA, trained.sample_rate, STEPS),)


def opacus_epsilon_of(history, delta, orders):
    """ε of an Opacus accountant history by Opacus' own RDP analysis, at the given orders."""
    from opacus.accountants.analysis.rdp import compute_rdp, get_privacy_spent

    orders = [float(o) for o in orders]
    total = sum(compute_rdp(q=q, noise_multiplier=s, steps=t, orders=orders) for s, q, t in history)
    return get_privacy_spent(orders=orders, rdp=total, delta=delta)[0]


def test_reported_epsilon_is_opacus_accounting_of_the_run(trained):
    """Same RDP orders, so the two accountants must agree to rounding (Opacus' default orders stop
    at 256 and give a looser, still valid, ε: 0.0985 against 0.0889 at the teachers' setting)."""
    reported = rdp.dp_sgd_epsilon(trained.noise_multiplier, trained.sample_rate, trained.steps, DELTA)
    opacus = opacus_epsilon_of(trained.accountant_history, DELTA, rdp.DEFAULT_ORDERS)
    assert reported == pytest.approx(opacus, rel=1e-9)
    # negative control: the run accounted with a factor 2 in σ is far off
    assert rdp.dp_sgd_epsilon(2 * SIGMA, trained.sample_rate, STEPS, DELTA) < 0.7 * opacus


def test_the_teachers_setting_matches_opacus_too():
    sigma, rate, steps, delta = 10.0, 1 / 32, 104, 1e-4
    assert rdp.dp_sgd_epsilon(sigma, rate, steps, delta) == pytest.approx(
        opacus_epsilon_of([(sigma, rate, steps)], delta, rdp.DEFAULT_ORDERS), rel=1e-9
    )
