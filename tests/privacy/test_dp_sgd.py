"""DP-SGD: what Opacus actually trains with is what the package accounts for.

* After ``make_private``, the noise multiplier, clip norm, Poisson rate and expected batch size that
  Opacus' optimiser and data loader hold are the accountant's inputs ``(σ, C, q = 1/⌈n/B⌉)``;
* the ε the package reports equals Opacus' own accountant of the trained run, at the same orders;
* the noise itself: on all-zero images the first convolution's per-sample gradients are exactly 0,
  so one SGD step (lr 1) moves its 400 weights by ``−N(0, σ²C²)/E``, ``E = ⌊n q⌋`` — a
  chi-square test of the variance and a KS test of the shape audit the released update;
* the DaRRM teacher pipeline reports ε from those settings and refuses a run that trained otherwise.

Negative controls: a run trained with σ/2 or 2C fails the noise audit; accounting with 2σ is far
from Opacus' ε; a trainer that hands Opacus σ/2 makes the pipeline raise.
"""

import math

import numpy as np
import pytest
from scipy import stats

torch = pytest.importorskip("torch", reason="DP-SGD needs torch (extra 'learning')")
pytest.importorskip("opacus", reason="DP-SGD needs Opacus (extra 'learning')")

from release_audit import P_FLOOR, fails  # noqa: E402

from dpreplication.accounting import ledger, rdp  # noqa: E402
from dpreplication.learning import teachers  # noqa: E402
from dpreplication.replications.darrm import teachers as darrm_teachers  # noqa: E402

SHARD, BATCH, STEPS, SIGMA, CLIP, DELTA = 96, 16, 7, 1.3, 0.7, 1e-5


def shard(seed=0, blank=False):
    rng = np.random.default_rng(seed)
    images = np.zeros((SHARD, 28, 28), np.uint8) if blank else rng.integers(0, 256, (SHARD, 28, 28), dtype=np.uint8)
    return images, rng.integers(0, 2, SHARD)


@pytest.fixture(scope="module")
def trained():
    device = teachers.configure_torch(1)
    return teachers.train_private(*shard(), STEPS, SIGMA, CLIP, 0.01, BATCH, 0, device)[1]


def test_opacus_trains_with_the_accountant_inputs(trained):
    rate = teachers.poisson_sample_rate(SHARD, BATCH)
    assert rate == pytest.approx(1 / -(-SHARD // BATCH), rel=1e-15)
    assert trained.noise_multiplier == SIGMA and trained.max_grad_norm == CLIP
    assert trained.sample_rate == trained.poisson_rate == rate
    assert trained.expected_batch_size == int(SHARD * rate) == BATCH
    assert trained.steps == STEPS and trained.accountant_history == ((SIGMA, rate, STEPS),)


def opacus_epsilon_of(history, delta, orders):
    """ε of an Opacus accountant history by Opacus' own RDP analysis, at the given orders."""
    from opacus.accountants.analysis.rdp import compute_rdp, get_privacy_spent

    orders = [float(o) for o in orders]
    total = sum(compute_rdp(q=q, noise_multiplier=s, steps=t, orders=orders) for s, q, t in history)
    return get_privacy_spent(orders=orders, rdp=total, delta=delta)[0]


def test_reported_epsilon_is_opacus_accounting_of_the_run(trained):
    """At the package's integer RDP orders, its ε and Opacus' accountant of the trained run agree to
    rounding (Opacus' default orders, fractional ones below 11 included, can differ either way)."""
    reported = rdp.dp_sgd_epsilon(trained.noise_multiplier, trained.sample_rate, trained.steps, DELTA)
    orders = [float(o) for o in rdp.DEFAULT_ORDERS]
    assert reported == pytest.approx(trained.accountant.get_epsilon(DELTA, alphas=orders), rel=1e-9)
    assert reported == pytest.approx(opacus_epsilon_of(trained.accountant_history, DELTA, orders), rel=1e-9)
    # negative control: the run accounted with a factor 2 in σ is far off
    assert rdp.dp_sgd_epsilon(2 * SIGMA, trained.sample_rate, STEPS, DELTA) < 0.7 * reported


def test_the_teachers_setting_matches_opacus_too():
    sigma, rate, steps, delta = 10.0, 1 / 32, 104, 1e-4
    assert rdp.dp_sgd_epsilon(sigma, rate, steps, delta) == pytest.approx(
        opacus_epsilon_of([(sigma, rate, steps)], delta, rdp.DEFAULT_ORDERS), rel=1e-9
    )


# --------------------------------------------------------------------------- the noise Opacus adds


def standardised_noise(sigma, clip, seeds=range(4)):
    """``−Δw·E/(σC)`` of the first convolution's weights after one SGD step (lr 1) on blank images,
    one run per seed, with ``σ`` and ``C`` those handed to the trainer."""
    device = teachers.configure_torch(1)
    images, labels = shard(blank=True)
    values = []
    for seed in seeds:
        start, _ = teachers.train_private(images, labels, 0, sigma, clip, 1.0, BATCH, seed, device, optimiser="sgd")
        model, record = teachers.train_private(
            images, labels, 1, sigma, clip, 1.0, BATCH, seed, device, optimiser="sgd"
        )
        step = (model.features[0].weight - start.features[0].weight).detach().double().numpy().ravel()
        values.append(-step * record.expected_batch_size)
    return np.concatenate(values)


def check_noise(trained_with, stated=(SIGMA, CLIP)):
    """The update of a run trained with ``trained_with = (σ, C)`` is ``N(0, σ²C²)/E`` for the stated (σ, C)."""
    z = standardised_noise(*trained_with) / (stated[0] * stated[1])
    variance = stats.chi2(z.size)
    p_variance = 2 * min(variance.cdf(np.sum(z**2)), variance.sf(np.sum(z**2)))
    assert p_variance >= P_FLOOR, f"variance {np.mean(z**2):.3f} of {z.size} standardised draws, p = {p_variance:.2g}"
    assert stats.kstest(z, "norm").pvalue >= P_FLOOR


def test_opacus_adds_gaussian_noise_of_std_sigma_times_clip(dp_sgd):
    check_noise((SIGMA, CLIP))


@pytest.mark.parametrize("trained_with", [(SIGMA / 2, CLIP), (SIGMA, 2 * CLIP)], ids=["sigma/2", "2C"])
def test_noise_negative_control(trained_with, dp_sgd):
    assert fails(check_noise, trained_with)


# --------------------------------------------------------------------------- the DaRRM teachers

TEACHER_SETTINGS = {"noise_multiplier": SIGMA, "Delta": DELTA, "max_grad_norm": CLIP, "learning_rate": 0.01}


def teacher_epsilon(steps=STEPS):
    device = teachers.configure_torch(1)
    _, record, epsilon, _ = darrm_teachers._train_teacher(
        *shard(), "private", steps, {**TEACHER_SETTINGS, "batch_size": BATCH}, 0, device
    )
    return record, epsilon


def test_teacher_pipeline_reports_opacus_accounting_of_its_run():
    record, epsilon = teacher_epsilon()
    assert record.accountant_history == ((SIGMA, teachers.poisson_sample_rate(SHARD, BATCH), STEPS),)
    orders = [float(o) for o in rdp.DEFAULT_ORDERS]
    assert epsilon == pytest.approx(record.accountant.get_epsilon(DELTA, alphas=orders), rel=1e-9)


def test_each_teacher_records_its_dp_sgd_steps_in_its_ledger():
    """The ledger of one teacher's training, composed by dp-accounting's RDP accountant at Δ, is the
    ε the pipeline reports, to 1e-9; a non-private teacher's ledger says ε = ∞."""
    with ledger.spending(budget_epsilon=50.0, budget_delta=DELTA) as spent:
        record, epsilon = teacher_epsilon()
    assert spent.spent() == (pytest.approx(epsilon, rel=1e-9), DELTA)
    assert spent.summary()["draws"] == STEPS and spent.summary()["mechanisms"] == "dp_sgd"
    with ledger.spending() as free:
        teachers.train_nonprivate(*shard(), 1, 0.01, BATCH, 0, teachers.configure_torch(1))
    assert free.spent() == (math.inf, 0.0)


def test_a_teacher_over_its_budget_is_refused_before_training(monkeypatch):
    """Negative control: a trainer that hands Opacus σ/2 records the larger ε, and the teacher's
    budget (the ε it would report for σ) refuses it before any step."""
    original = teachers.train_private
    monkeypatch.setattr(
        teachers, "train_private", lambda x, y, steps, sigma, *rest, **kw: original(x, y, steps, sigma / 2, *rest, **kw)
    )
    budget = rdp.dp_sgd_epsilon(SIGMA, teachers.poisson_sample_rate(SHARD, BATCH), STEPS, DELTA)
    with ledger.spending(budget, DELTA), pytest.raises(ledger.PrivacyBudgetExceeded, match="dp_sgd would spend"):
        teacher_epsilon()


def test_teacher_pipeline_refuses_a_run_with_other_settings(monkeypatch):
    """Negative control: a trainer that hands Opacus σ/2 (ε still reported for σ) is caught."""
    original = teachers.train_private
    monkeypatch.setattr(
        teachers, "train_private", lambda x, y, steps, sigma, *rest, **kw: original(x, y, steps, sigma / 2, *rest, **kw)
    )
    with pytest.raises(RuntimeError, match="not the accounted settings"):
        teacher_epsilon(steps=2)


@pytest.mark.parametrize(
    "steps, sigma, clip, message",
    [
        (math.inf, SIGMA, CLIP, "steps must be non-negative and finite, got inf"),
        (STEPS, math.nan, CLIP, "noise_multiplier must be positive and finite, got nan"),
        (STEPS, 0.0, CLIP, "noise_multiplier must be positive and finite, got 0.0"),
        (STEPS, SIGMA, math.inf, "max_grad_norm must be positive and finite, got inf"),
    ],
)
def test_the_trainer_refuses_unbounded_steps_and_missing_noise(steps, sigma, clip, message):
    """Before, infinite steps never ended and a NaN σ reached Opacus; now nothing is trained."""
    with pytest.raises(ValueError, match=message):
        teachers.train_private(*shard(), steps, sigma, clip, 0.01, BATCH, 0, teachers.configure_torch(1))
