"""Truncated Laplacian mechanism (Geng, Ding, Guo & Kumar): acceptance checks of spec §10.

Numbering follows spec §10. Oracles independent of the code under test: scipy
adaptive quadrature, mpmath at 50 digits, scalar ``brentq``, a generic
grid-based hockey-stick audit, dp-accounting, autodp and diffprivlib (the
last three optional, skipped when not installed). The checks that call the mechanisms
directly are in ``tests/mechanisms/`` (``test_truncated_laplace_mechanism.py``, ``test_additive.py``,
``test_bounds.py``, ``test_noise_comparison.py``), those of the LP lower bound (check 12) in
``tests/optimisation/test_noise_lp.py``; this file keeps those of the replication tables, scale
invariance and the library cross-checks.
"""

from pathlib import Path

import numpy as np
import pytest

from dpreplication import oracles
from dpreplication.mechanisms import additive as add
from dpreplication.mechanisms import bounds
from dpreplication.mechanisms import noise_comparison as nc
from dpreplication.mechanisms import truncated_laplace as tl_mechanism
from dpreplication.optimisation.noise_lp import optimal_noise_lower_bound, richardson_extrapolation
from dpreplication.pipeline.config import profile_config
from dpreplication.replications.truncated_laplace import audits as tla
from dpreplication.replications.truncated_laplace import bounds as tlb
from dpreplication.replications.truncated_laplace import figures as tl

CONFIG = profile_config("default", Path(__file__).resolve().parents[2])["truncated_laplace"]


def settings(section: str, **changes) -> dict:
    """The default profile's settings of ``truncated_laplace.<section>``, with ``changes``."""
    return {**CONFIG[section], **changes}


EPSILONS = (0.01, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0)

SPEC_RATIO_TABLE = {
    ("amplitude", 1e-2): (0.8587, 0.8554, 0.7103, 0.6327, 0.5513, 0.4397, 0.3580),
    ("amplitude", 1e-4): (0.6694, 0.5053, 0.4242, 0.3930, 0.3612, 0.3149, 0.2753),
    ("amplitude", 1e-6): (0.4084, 0.3451, 0.3111, 0.2967, 0.2810, 0.2558, 0.2316),
    ("amplitude", 1e-10): (0.2500, 0.2312, 0.2192, 0.2136, 0.2071, 0.1957, 0.1835),
    ("power", 1e-2): (0.6480, 0.7281, 0.5670, 0.4719, 0.3731, 0.2451, 0.1632),
    ("power", 1e-4): (0.5154, 0.3166, 0.2274, 0.1959, 0.1659, 0.1263, 0.0965),
    ("power", 1e-6): (0.2112, 0.1515, 0.1232, 0.1120, 0.1005, 0.0833, 0.0683),
    ("power", 1e-10): (0.0796, 0.0681, 0.0612, 0.0581, 0.0546, 0.0488, 0.0429),
}

SPEC_CANONICAL = {  # (ε, δ): A, V_up, D_up, V_low*, D_low*, σ_aG, R_V, R_D
    (1.0, 1e-6): (13.663689, 0.99998410, 1.99975089, 0.581961, 1.259138, 4.22467889, 0.296660, 0.112044),
    (0.1, 1e-6): (108.702139, 9.99793285, 199.733953, 9.506265, 190.061114, 36.3046904, 0.345150, 0.151540),
    (1.0, 1e-2): (4.464920, 0.94803041, 1.66402074, 0.531409, 0.978195, 1.87787556, 0.632726, 0.471873),
    (0.5, 1e-5): (20.774114, 1.99935954, 7.98413308, 1.540855, 6.278679, 7.03182668, 0.356355, 0.161470),
    (2.0, 1e-4): (5.185906, 0.49983766, 0.49899580, 0.156359, 0.204657, 1.73435098, 0.361203, 0.165891),
    (5.0, 1e-3): (2.241572, 0.19996959, 0.07991966, 0.006756, 0.006820, 0.68984233, 0.363307, 0.167940),
    (0.01, 1e-2): (40.713595, 18.9792679, 497.208318, 18.482136, 478.589610, 27.7008825, 0.858709, 0.647964),
}


def printed_precision(value):
    """0.6 units in the last decimal the spec printed (trailing zeros dropped, so never tighter)."""
    decimals = f"{value:.10g}".partition(".")[2]
    return 0.6 * 10.0 ** -len(decimals)


# --------------------------------------------------------------------------- 1–3 density, moments, values


def test_3_canonical_values_table():
    table = tl.canonical_values(**settings("canonical_values"))
    columns = [
        "bound",
        "amplitude_upper",
        "power_upper",
        "amplitude_lower_reconstructed",
        "power_lower_reconstructed",
        "analytic_gaussian_sigma",
        "amplitude_ratio",
        "power_ratio",
    ]
    for row in table.itertuples():
        expected = SPEC_CANONICAL[(row.epsilon, row.delta)]
        for column, value in zip(columns, expected):
            assert getattr(row, column) == pytest.approx(value, abs=printed_precision(value)), (
                row.epsilon,
                row.delta,
                column,
            )
    first = table.iloc[0]
    assert first.classic_gaussian_sigma == pytest.approx(5.298803, abs=1e-6)
    assert first.classic_amplitude_ratio == pytest.approx(0.236524, abs=1e-6)
    assert first.classic_power_ratio == pytest.approx(0.071223, abs=1e-6)


# --------------------------------------------------------------------------- 5–6 Gaussian calibration


def test_the_cross_check_table_calls_every_oracle_and_the_audit_every_calibration():
    """The table and the tests share one adapter per library: every entry of ORACLES appears in the
    table once per point, and the high-precision audit judges exactly the analytic calibrations."""
    table = tla.library_cross_check(points=[(1.0, 1e-6)])
    assert list(zip(table.library, table.function)) == [(o.library, o.function) for o in oracles.ORACLES]
    audit = tla.calibration_audit(np.random.default_rng(1), **settings("calibration_audit", n_points=1))
    assert list(audit.function[1:]) == [o.function for o in oracles.ANALYTIC_GAUSSIAN_CALIBRATIONS]
    assert {o.function for o in oracles.ANALYTIC_GAUSSIAN_CALIBRATIONS} == {
        o.function for o in oracles.ORACLES if o.quantity == "analytic_gaussian_sigma"
    } - {"pld.accountant.get_smallest_gaussian_noise"}


def test_6_opendp_one_sided():
    opendp = pytest.importorskip("opendp.prelude", reason="the oracle opendp is absent (extra 'oracles')")
    table = tla.library_cross_check(points=[(1.0, 1e-6), (0.5, 1e-5)])
    rows = table[table.library == "opendp"]
    if rows.library_value.isna().all():
        pytest.skip(f"OpenDP call unavailable in {opendp.__name__}")
    assert np.all(rows.library_value >= rows.ours)
    others = table[table.library.isin(["dp-accounting", "diffprivlib"]) & (table.data_status == "")]  # installed ones
    assert np.all(np.abs(others.relative_difference) < 1e-4)


# --------------------------------------------------------------------------- 7–8 ratios


def test_7_ratio_reference_values():
    assert nc.amplitude_ratio(1, 1e-6) == pytest.approx(0.296660, abs=1e-5)
    assert nc.power_ratio(1, 1e-6) == pytest.approx(0.112044, abs=1e-5)
    assert nc.amplitude_ratio(1, 1e-2) == pytest.approx(0.632726, abs=1e-5)
    assert nc.power_ratio(0.01, 1e-2) == pytest.approx(0.647964, abs=1e-5)
    table = tl.ratio_table(**settings("ratio_table")).set_index(["delta", "epsilon"])
    for (quantity, dlt), values in SPEC_RATIO_TABLE.items():
        for eps, expected in zip(EPSILONS, values):
            assert table.loc[(dlt, eps), f"{quantity}_ratio"] == pytest.approx(expected, abs=1e-4), (quantity, eps, dlt)


def test_8_ratio_facts_table():
    facts = tl.ratio_facts(**settings("ratio_facts"))
    lookup = facts.set_index(["fact", "quantity"])
    assert lookup.loc[("sup_ratio", "amplitude"), "value"] == pytest.approx(0.8987, abs=5e-4)
    assert lookup.loc[("sup_ratio", "power"), "value"] == pytest.approx(0.768, abs=5e-4)
    assert lookup.loc[("inf_ratio", "amplitude"), "value"] == pytest.approx(0.110, abs=5e-4)
    assert lookup.loc[("inf_ratio", "power"), "value"] == pytest.approx(0.0155, abs=5e-5)
    assert lookup.loc[("break_even_delta", "amplitude"), "value"] == pytest.approx(0.395, abs=1e-3)
    assert lookup.loc[("break_even_delta", "power"), "value"] == pytest.approx(0.402, abs=1e-3)
    peaks = facts[(facts.fact == "peak_ratio") & (facts.delta == 1e-2)].set_index("quantity")
    assert peaks.loc["amplitude", "value"] == pytest.approx(0.889, abs=5e-4)
    assert peaks.loc["amplitude", "epsilon"] == pytest.approx(0.034, abs=2e-3)
    assert peaks.loc["power", "value"] == pytest.approx(0.743, abs=5e-4)
    assert peaks.loc["power", "epsilon"] == pytest.approx(0.056, abs=2e-3)
    assert np.all(facts[facts.fact == "decreasing_in_epsilon_for_delta_le_1e-4"].value == 1.0)
    increasing = facts[facts.fact == "increasing_in_delta"]
    assert np.all(increasing[increasing.epsilon >= 1].value == 1.0)
    assert np.all(increasing[increasing.epsilon <= 0.1].value == 0.0)
    savings = facts[facts.fact == "analytic_over_classic_sigma"].value.to_numpy()
    np.testing.assert_allclose(savings, [0.8605, 0.7973, 0.0169], atol=1e-4)


# --------------------------------------------------------------------------- 13 scale invariance


@pytest.mark.parametrize("sensitivity", [0.5, 3.0])
def test_13_scale_invariance(sensitivity):
    eps = np.array([0.01, 0.5, 1.0, 5.0])
    dlt = np.array([1e-2, 1e-6, 1e-3, 0.3])
    pairs = [
        (tl_mechanism.truncated_laplace_amplitude, 1),
        (bounds.amplitude_lower_bound, 1),
        (add.analytic_gaussian_sigma, 1),
        (tl_mechanism.truncated_laplace_bound, 1),
        (tl_mechanism.truncated_laplace_power, 2),
        (bounds.power_lower_bound, 2),
        (add.classic_gaussian_sigma, 1),
    ]
    for function, power in pairs:
        np.testing.assert_allclose(
            function(eps, dlt, sensitivity), sensitivity**power * function(eps, dlt, 1.0), rtol=1e-12
        )
    ratio = tl_mechanism.truncated_laplace_amplitude(eps, dlt, sensitivity) / add.analytic_gaussian_sigma(
        eps, dlt, sensitivity
    )
    np.testing.assert_allclose(
        ratio, tl_mechanism.truncated_laplace_amplitude(eps, dlt) / add.analytic_gaussian_sigma(eps, dlt), rtol=1e-12
    )
    lp = optimal_noise_lower_bound(1.0, 1e-2, 4, "power", sensitivity=sensitivity).value
    assert lp == pytest.approx(sensitivity**2 * optimal_noise_lower_bound(1.0, 1e-2, 4, "power").value, rel=1e-7)


# --------------------------------------------------------------------------- 14 figure data


def finite(frame):
    numbers = frame.select_dtypes("number").to_numpy(float)
    return frame.shape[0] > 0 and np.all(np.isfinite(numbers))


def test_14_figure_and_table_frames():
    density = tl.figure1_density(**settings("density", n_points=201))
    assert finite(density) and set(density.mechanism) == {"truncated_laplace", "laplace", "analytic_gaussian"}
    tl_density = density[density.mechanism == "truncated_laplace"]
    assert tl_density.density.max() == pytest.approx(0.529099, abs=1e-6)
    notes = tl.figure1_annotations().set_index("quantity").value
    assert notes["bound"] == pytest.approx(2.900477, abs=1e-6) and notes["delta_region_mass"] == pytest.approx(
        0.05, rel=1e-12
    )
    assert notes["analytic_gaussian_sigma"] == pytest.approx(1.332778, abs=1e-6)

    for frame, column in (
        (tl.figure2_amplitude_ratio(epsilons=np.logspace(-2, 1, 31), **settings("ratio_curves")), "amplitude_ratio"),
        (tl.figure3_power_ratio(epsilons=np.logspace(-2, 1, 31), **settings("ratio_curves")), "power_ratio"),
        (tl.figure2_amplitude_ratio_heatmap(**settings("ratio_heatmap", n_epsilon=20, n_delta=15)), "amplitude_ratio"),
        (tl.figure3_power_ratio_heatmap(**settings("ratio_heatmap", n_epsilon=20, n_delta=15)), "power_ratio"),
    ):
        assert finite(frame)
        assert np.all(frame.loc[frame.delta <= 0.1, column] < 1)
    assert len(tl.figure2_amplitude_ratio(**settings("ratio_curves"))) == 6 * 301

    gap = tlb.bound_gap(epsilons=np.logspace(-3, 1, 21), **settings("bound_gap"))
    assert finite(gap) and np.all(gap.amplitude_bound_ratio <= 1) and np.all(gap.power_bound_ratio <= 1)
    lp = tlb.lp_optimum(**settings("lp_optimum", epsilons=(1.0, 2.0), resolutions=(4, 8)))
    assert finite(lp)
    richardson = lp[(lp.estimate == "lp_richardson") & (lp.cost == "amplitude")].set_index("epsilon").value
    assert richardson[1.0] == pytest.approx(
        richardson_extrapolation(
            *lp[(lp.estimate == "lp") & (lp.cost == "amplitude") & (lp.epsilon == 1.0)].value.to_numpy()
        )
    )
    mc = tla.monte_carlo_moments(
        np.random.default_rng(3),
        points=[(1.0, 1e-6)],
        n_samples=10_000,
        library_points=[(1.0, 1e-6)],
        library_samples=500,
    )
    computed = mc.data_status.fillna("") == ""
    assert set(mc[~computed].sampler) <= {"diffprivlib"}  # only the optional library may be missing
    drawn = mc[computed]
    assert finite(drawn) and np.all(drawn.max_abs_sample <= drawn.bound) and np.all(np.abs(drawn.z_score) < 5)
    audit = tla.privacy_audit(**settings("privacy_audit", points=[(0.5, 0.2)], n_points=200_000))
    assert finite(audit) and np.max(np.abs(audit.error_over_delta)) < 1e-3
    profiles = tla.privacy_profiles(**settings("privacy_profiles"))
    assert finite(profiles)
    flat = profiles[(profiles.mechanism == "truncated_laplace") & (profiles.epsilon_prime >= 1.0)]
    np.testing.assert_allclose(flat.delta_prime, 1e-6, rtol=1e-9)
    baselines = tl.baseline_table(**settings("baselines"))
    assert finite(baselines) and not np.any((baselines.mechanism == "classic_gaussian") & (baselines.epsilon >= 1))
    limit = tl.small_epsilon_limit(epsilons=np.array([1e-6, 1e-5, 1.0]), **settings("small_epsilon_limit"))
    assert finite(limit)
    row = limit[limit.epsilon == 1e-5].iloc[0]
    assert row.amplitude_ratio == pytest.approx(0.78555, abs=2e-5) and row.power_ratio == pytest.approx(
        0.52382, abs=2e-5
    )
    assert abs(limit.amplitude_ratio.iloc[0] - limit.amplitude_ratio_limit.iloc[0]) < 2e-4


def test_14_library_cross_check_table_columns():
    table = tla.library_cross_check(points=[(1.0, 1e-6)])
    assert list(table.columns) == [
        "epsilon",
        "delta",
        "library",
        "function",
        "quantity",
        "ours",
        "library_value",
        "relative_difference",
        "data_status",
    ]
    assert set(table.library) == {"dp-accounting", "autodp", "diffprivlib", "opendp"}


def test_an_absent_library_makes_its_cross_check_rows_missing_not_empty(monkeypatch):
    """Without the optional library the table keeps its rows, NaN with a data_status, so the
    scorecard claims reading them are 'missing' rather than failing or passing silently."""
    import builtins

    from dpreplication.scorecard import Claim, evaluate_claims

    real_import = builtins.__import__

    def without_diffprivlib(name, *args, **kwargs):
        if name.startswith("diffprivlib"):
            raise ImportError(f"No module named {name!r}")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", without_diffprivlib)
    table = tla.library_cross_check(points=[(1.0, 1e-6)])
    absent = table[table.library == "diffprivlib"]
    assert len(absent) == 2 and absent.library_value.isna().all()
    assert absent.data_status.str.startswith("missing: diffprivlib is not installed").all()
    others = table[table.library != "diffprivlib"]  # computed, or missing for a reason naming their own library
    assert all(
        status == "" or status.startswith(f"missing: {library} ")
        for library, status in zip(others.library, others.data_status)
    )
    claim = Claim(
        id="c",
        paper="truncated_laplace",
        section="s",
        claim="x",
        expected=0.0,
        kind="spec",
        table="library_cross_check",
        column="relative_difference",
        tolerance=1e-8,
        select={"library": "diffprivlib", "function": "mechanisms.GaussianAnalytic.variance"},
    )
    scored = evaluate_claims([claim], {"library_cross_check": table})
    assert scored.status.tolist() == ["missing"] and "diffprivlib is not installed" in scored.reason.iloc[0]
    moments = tla.monte_carlo_moments(
        np.random.default_rng(0), points=[(1.0, 1e-6)], n_samples=100, library_points=[(1.0, 1e-6)], library_samples=10
    )
    library_rows = moments[moments.sampler == "diffprivlib"]
    assert len(library_rows) and library_rows.estimate.isna().all() and library_rows.data_status.ne("").all()


def test_the_bound_curves_bend_exactly_where_floor_n_changes():
    kinks = tlb.bound_kinks(**settings("bound_kinks", delta=0.1, n_fine=20_001))
    assert set(kinks.floor_n_before) == {2, 3, 4} and (kinks.unexplained_kinks == 0).all()
    assert (kinks.relative_distance <= kinks.relative_grid_step).all()
    n = [float(tl_mechanism.calibrate_truncated_laplace(e, 0.1).n) for e in kinks.crossing_epsilon]
    np.testing.assert_allclose(n, kinks.floor_n_before, rtol=1e-10)


def test_high_precision_delta_agrees_with_the_float_evaluation_and_judges_sigma():
    """50-digit δ(σ) equals the package's log-space hockey stick where floats suffice, and a σ 1 %
    too small is caught as under-noising (negative control)."""
    sigma = float(add.analytic_gaussian_sigma(1.0, 1e-6))
    assert oracles.gaussian_delta_high_precision(sigma, 1.0) == pytest.approx(1e-6, rel=1e-9)
    assert oracles.gaussian_delta_high_precision(0.99 * sigma, 1.0) > 1.05e-6
    audit = tla.calibration_audit(np.random.default_rng(0), **settings("calibration_audit", n_points=5))
    ours = audit[audit.library == "dpreplication"]
    assert (ours.relative_excess.abs() < 1e-9).all() and not ours.under_noises.any()
