"""Tests of :mod:`dpreplication.mechanisms.selection_sampling` (spec §6 checks 9–11): the samplers of
the exponential mechanism, report-noisy-max and permute-and-flip, and the intermediate algorithms A
and B of Lemmas 2–4. Their docstrings state that each has the law of its exact pmf in
:mod:`dpreplication.mechanisms.selection`, hence its guarantee: report-noisy-max with exponential
noise, literal and batched permute-and-flip and algorithms A and B all have the law of
permute-and-flip (Ding et al., Thm 5), and report-noisy-max with Gumbel noise is the exponential
mechanism."""

import numpy as np
import pytest

from dpreplication.mechanisms import selection as sel
from dpreplication.mechanisms import selection_sampling as sampling
from dpreplication.replications.permute_and_flip.exact import score_vector
from dpreplication.statistics import counts, goodness_of_fit, homogeneity, total_variation, tv_null_quantiles

Q5 = score_vector("Q5")
Q100 = score_vector("Q100")


# ------------------------------------------------------------------ the objects inside Lemmas 2–4


def test_lemma_objects_hold_on_every_draw():
    """Lemma 3: S = S' on every draw; Lemma 4: Algorithm B outputs argmax v†; v† − q ≥ 0."""
    rng = np.random.default_rng(4)
    b = sel.noise_scale(1.0)
    noise, fresh = b * rng.standard_exponential((5000, 5)), b * rng.standard_exponential((5000, 5))
    objects = sampling.intermediate_objects(Q5, noise, fresh)
    np.testing.assert_array_equal(objects.in_s, objects.in_s_prime)
    np.testing.assert_array_equal(objects.choice, objects.v_dagger.argmax(axis=1))
    assert np.all(objects.v_dagger >= Q5) and np.all(objects.in_s[:, 0])  # the top item is always in S
    np.testing.assert_allclose(objects.in_s.mean(axis=0), sel.flip_probabilities(Q5, 1.0), atol=0.03)


# ------------------------------------------------------------------ sampling (checks 9–11)


def test_rnm_exponential_and_batch_pf_fit_the_exact_pmf_and_controls_do_not():
    n, pf, em = 200_000, sel.permute_and_flip_pmf(Q5, 1), sel.exponential_mechanism_pmf(Q5, 1)
    a1 = counts(sampling.sample_report_noisy_max(Q5, 1, 1, n, np.random.default_rng(91)), 5)
    a2 = counts(sampling.sample_permute_and_flip_batch(Q5, 1, 1, n, np.random.default_rng(92)), 5)
    g = counts(sampling.sample_report_noisy_max(Q5, 1, 1, n, np.random.default_rng(93), "gumbel"), 5)
    assert goodness_of_fit(a1, pf).chi2_pvalue > 1e-4
    assert goodness_of_fit(a2, pf).chi2_pvalue > 1e-4
    assert homogeneity(a1, a2)[1] > 1e-4
    threshold = tv_null_quantiles(pf, n, [0.999], 2000, np.random.default_rng(94))[0]
    assert total_variation(a1 / n, pf) < threshold
    assert goodness_of_fit(g, em).chi2_pvalue > 1e-4
    assert goodness_of_fit(a1, em).chi2_pvalue < 1e-10
    assert homogeneity(a1, g)[1] < 1e-10


@pytest.mark.parametrize(
    "sampler",
    [sampling.sample_permute_and_flip_literal, sampling.sample_intermediate_a, sampling.sample_intermediate_b],
)
def test_literal_pf_and_intermediate_algorithms_fit_the_exact_pmf(sampler):
    observed = counts(sampler(Q5, 1, 1, 20_000, np.random.default_rng(10)), 5)
    assert goodness_of_fit(observed, sel.permute_and_flip_pmf(Q5, 1)).chi2_pvalue > 1e-4


def test_sampler_is_deterministic_given_seed():
    a = sampling.sample_report_noisy_max(Q100, 1, 1, 1000, np.random.default_rng(5))
    b = sampling.sample_report_noisy_max(Q100, 1, 1, 1000, np.random.default_rng(5))
    np.testing.assert_array_equal(a, b)
