"""Shared tools of the release-path audits (imported by the test modules of this folder).

* :class:`RecordingGenerator` spies on the random draws: a numpy Generator that records the name
  and arguments of every call, so a test can assert the scale handed to the noise;
* :func:`fails` runs a check on a deliberately wrong implementation (a negative control must make
  its check fail);
* :func:`assert_fits` is the goodness-of-fit test of a released discrete output against its law;
* :class:`PrivGeneAudit` spies on every PrivGene run and audits each selection's ε, Δ and scores.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

P_FLOOR = 1e-6
"""A correct sampler fails a goodness-of-fit test with probability 1e-6; every test is seeded."""
GOF_SAMPLES = 60_000


class RecordingGenerator:
    """A numpy Generator that records the name and arguments of every draw, then draws as usual."""

    def __init__(self, seed=0):
        self._rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        self.calls: list[tuple[str, tuple, dict]] = []

    def __getattr__(self, name):
        attribute = getattr(self._rng, name)
        if not callable(attribute):
            return attribute

        def recorded(*args, **kwargs):
            self.calls.append((name, args, kwargs))
            return attribute(*args, **kwargs)

        return recorded

    def parameter(self, method: str, position: int, keyword: str) -> list[float]:
        """The values a parameter took in every call of ``method`` (positional or keyword)."""
        return [
            float(kwargs[keyword]) if keyword in kwargs else float(args[position])
            for name, args, kwargs in self.calls
            if name == method
        ]

    def laplace_scales(self) -> list[float]:
        return self.parameter("laplace", 1, "scale")


def fails(check, *args, **kwargs) -> bool:
    """Whether ``check`` raises AssertionError: a negative control must make its check fail."""
    try:
        check(*args, **kwargs)
    except AssertionError:
        return True
    return False


def assert_fits(draws, pmf, label="") -> None:
    """Chi-square test of integer draws against ``pmf``: an outcome of probability 0 must never
    occur; cells of expected count < 5 are pooled."""
    pmf = np.asarray(pmf, dtype=float)
    observed = np.bincount(np.asarray(draws), minlength=pmf.size)
    assert observed.size == pmf.size and not observed[pmf == 0].any(), f"{label}: impossible outcomes drawn"
    observed, pmf = observed[pmf > 0], pmf[pmf > 0]
    expected = observed.sum() * pmf / pmf.sum()
    small = expected < 5
    if small.any():
        observed = np.append(observed[~small], observed[small].sum())
        expected = np.append(expected[~small], expected[small].sum())
    p_value = stats.chisquare(observed, expected).pvalue
    assert p_value >= P_FLOOR, f"{label}: p = {p_value:.2g}, observed {observed.tolist()}, expected {expected.round(1)}"


def unit_rows(n: int, d: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Features in [−1, 1]^d and a label in {0, 1} that depends on the first feature."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, d))
    return X, (X[:, 0] + 0.3 * rng.standard_normal(n) > 0).astype(float)


def truncated_laplace_cdf(x, epsilon, delta, sensitivity):
    """Geng et al. Def. 3, written out here: density B e^{−|x|/λ} on [−A, A]."""
    lam = sensitivity / epsilon
    bound = lam * math.log1p((math.exp(epsilon) - 1) / (2 * delta))
    mass = lambda t: np.sign(t) * (1 - np.exp(-np.abs(t) / lam))  # ∫_0^t e^{−|u|/λ} du / λ  # noqa: E731
    return np.clip((mass(x) + mass(bound)) / (2 * mass(bound)), 0, 1), bound


# --------------------------------------------------------------------------- PrivGene


def independent_scores(fitness, candidates) -> np.ndarray:
    """``f(D, ω)`` written out from the papers' definitions on the data the fitness holds:
    LR ``Σ y z − log(1 + e^z)`` (Def. 1), SVM ``−½‖α‖² − C Σ max(0, 1 − y z)`` (Def. 2, ``h`` on
    the weights only), k-means ``−Σ_t min_i ‖t − c_i‖²`` (Def. 3)."""
    candidates = np.asarray(candidates, dtype=float)
    if fitness.task == "lr":
        z = fitness.design.columns.T @ candidates.T  # X̃ written out dense
        return fitness.labels @ z - np.logaddexp(0.0, z).sum(axis=0)
    if fitness.task == "svm":
        margins = fitness.design.columns.T @ candidates.T  # rows y·[x, 1], written out dense
        return -0.5 * (candidates[:, :-1] ** 2).sum(axis=1) - fitness.C * np.maximum(0.0, 1.0 - margins).sum(axis=0)
    centres = candidates.reshape(len(candidates), fitness.k, -1)
    distances = ((fitness.points[:, None, None, :] - centres[None]) ** 2).sum(axis=3)
    return -distances.min(axis=2).sum(axis=0)


def independent_dampening(fitness, candidates, rule: str) -> float:
    """Δ of one selection from the public candidate set: Δ1 = 2b·max(‖ω‖₁ + 1), Δ2 = 2b·max ‖ω − ω'‖₁
    (LR b = 1, Eq. 11, 13; SVM b = C, Eq. 15, 16); k-means Δ1 = 2·max_C min_c Σ_j (1 + |c_j|)²
    (Eq. 18 with the factor 2 of Eq. 7), no Δ2. EEM uses min(Δ1, Δ2), EM Δ1."""
    candidates = np.asarray(candidates, dtype=float)
    if fitness.task == "kmeans":
        centres = candidates.reshape(len(candidates), fitness.k, -1)
        return 2.0 * float(((1.0 + np.abs(centres)) ** 2).sum(axis=2).min(axis=1).max())
    b = 1.0 if fitness.task == "lr" else fitness.C
    delta1 = 2.0 * b * (np.abs(candidates).sum(axis=1).max() + 1.0)
    delta2 = 2.0 * b * np.abs(candidates[:, None, :] - candidates[None, :, :]).sum(axis=2).max()
    return float(min(delta1, delta2) if rule == "eem" else delta1)


class PrivGeneAudit:
    """Spies on every PrivGene run (wherever it is called from): the ε it receives, the candidate set
    of each round, and every draw of its selections (the scores, ε, sensitivity and noise handed to
    report-noisy-max). :meth:`check` then audits each run against the papers' formulas."""

    def __init__(self, monkeypatch, modules=()):
        from dpreplication.learning import genetic
        from dpreplication.mechanisms import selection_sampling

        self.runs: list[dict] = []
        privgene, sampler = genetic.privgene, selection_sampling.sample_report_noisy_max

        def run(fitness, epsilon, settings, rng, n_iterations=None):
            record = {"epsilon": float(epsilon), "fitness": fitness, "settings": settings, "rounds": []}
            self.runs.append(record)
            scores = fitness.scores

            def recorded_scores(candidates, parent=None):
                record["rounds"].append({"candidates": np.array(candidates), "draws": []})
                return scores(candidates, parent=parent)

            fitness.scores = recorded_scores
            try:
                return privgene(fitness, epsilon, settings, rng, n_iterations)
            finally:
                del fitness.scores

        def draw(scores, epsilon, sensitivity, n, rng, noise="exponential"):
            index = sampler(scores, epsilon, sensitivity, n, rng, noise)
            self.runs[-1]["rounds"][-1]["draws"].append(
                (np.array(scores), epsilon, sensitivity, noise, n, int(index[0]))
            )
            return index

        for module in (genetic, *modules):
            monkeypatch.setattr(module, "privgene", run)
        monkeypatch.setattr(selection_sampling, "sample_report_noisy_max", draw)

    @staticmethod
    def check(run: dict) -> None:
        """Round ``i`` of ``r`` draws ``m'`` candidates (1 in the last round), each with ``ε/(r·draws)``
        and sensitivity ``Δ/2`` on the true scores of the candidates still in play; ε in total."""
        settings, rounds, epsilon = run["settings"], run["rounds"], run["epsilon"]
        noise = {"exponential_mechanism": "gumbel", "rnm_exp": "exponential"}[settings.selector]
        spent = 0.0
        for i, round_ in enumerate(rounds):
            candidates, draws = round_["candidates"], round_["draws"]
            expected = 1 if i == len(rounds) - 1 else min(settings.selected, len(candidates))
            assert len(draws) == expected, f"round {i}: {len(draws)} draws, not {expected}"
            scores = independent_scores(run["fitness"], candidates)
            delta = independent_dampening(run["fitness"], candidates, settings.dampening)
            remaining = np.arange(len(candidates))
            for seen, budget, sensitivity, kind, n, index in draws:
                assert (kind, n) == (noise, 1)
                assert budget == pytest.approx(epsilon / len(rounds) / expected, rel=1e-12), (i, budget)
                assert sensitivity == pytest.approx(delta / 2.0, rel=1e-12), (i, sensitivity, delta)
                np.testing.assert_allclose(seen, scores[remaining], rtol=1e-9, atol=1e-9)
                remaining = np.delete(remaining, index)
                spent += budget
        assert spent == pytest.approx(epsilon, rel=1e-12)
