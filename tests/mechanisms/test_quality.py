"""Tests of :mod:`dpreplication.mechanisms.quality`: the mode and median score functions over
histogram bins. Its docstrings state that both follow McKenna & Sheldon (2020, §5) — mode
``q = 2·x``, median ``q_i = −s_i`` with ``s_i`` the records to move to make bin ``i`` a median — so
that a selection mechanism run with Δ = 1 and ``λ = ε/(2Δ)`` matches their experiments: the
anchors below are those experiments' numbers (HEPTH) and the synthetic median fallback's."""

import numpy as np
import pytest
from dpbench_histograms import dpbench_histogram as _dpbench

from dpreplication.mechanisms import selection as sel
from dpreplication.mechanisms.quality import median_scores, mode_scores


def test_hepth_anchors():
    x = _dpbench("HEPTH")
    mode, median = mode_scores(x), median_scores(x)
    em = sel.expected_error(sel.exponential_mechanism_pmf(mode, 0.04), mode)
    pf = sel.expected_error(sel.permute_and_flip_pmf(mode, 0.04), mode)
    assert em / pf == pytest.approx(1.8397, abs=1e-3)
    assert sel.epsilon_for_expected_error(mode, pf) / 0.04 == pytest.approx(1.2654, abs=1e-3)
    ratio = sel.expected_error(sel.exponential_mechanism_pmf(median, 0.01), median) / sel.expected_error(
        sel.permute_and_flip_pmf(median, 0.01), median
    )
    assert ratio == pytest.approx(1.9090, abs=1e-3)


def test_synthetic_median_fallback():
    i = np.arange(1024)
    x = np.floor(2000 * np.exp(-(((i - 300) / 60) ** 2)) + 800 * np.exp(-(((i - 700) / 25) ** 2)))
    assert x.sum() == 247894
    q = median_scores(x)
    epsilon = sel.epsilon_for_expected_error(q, 50)
    assert epsilon == pytest.approx(0.00459153, rel=1e-6)
    assert sel.expected_error(sel.permute_and_flip_pmf(q, epsilon), q) == pytest.approx(25.660725, rel=1e-6)
    assert sel.expected_error(sel.report_noisy_max_laplace_pmf(q, epsilon), q) == pytest.approx(69.778822, rel=1e-6)
