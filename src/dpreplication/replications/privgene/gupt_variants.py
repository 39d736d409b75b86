"""PrivGene: GUPT variants for Fig. 5 (spec ``privgene.md`` §3.6, §10.6), a gap experiment.

:func:`gupt_variants_job` runs GUPT's k-means with the ε split of its code, with the noisy
output clamped to the data box and with GUPT's own output-range estimation
(:mod:`dpreplication.learning.gupt_loose`), against PrivGene at the same ε, on the streams of the Fig. 5 jobs;
:func:`gupt_variants_summary` compares their mean variances. The other gap experiments are in
:mod:`dpreplication.replications.privgene.ablations`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpreplication.accounting.ledger import LEDGER_COLUMNS, ledger_table, spending
from dpreplication.data import tabular
from dpreplication.learning import sample_and_aggregate as gupt
from dpreplication.learning.genetic import privgene
from dpreplication.learning.gupt_loose import gupt_loose_aggregate
from dpreplication.replications.privgene.jobs import job_streams
from dpreplication.replications.privgene.methods import KMEANS_SELECTION, KMeansTask, algorithm_settings
from dpreplication.statistics.intervals import log_ratio_interval


def gupt_variants_job(
    data: tabular.TabularData,
    k: int,
    *,
    seed: int,
    runs: int,
    epsilon: float,
    variants: dict[str, dict],
    algorithm: dict,
    restarts: int = 10,
    max_iter: int = 300,
) -> pd.DataFrame:
    """Fig. 5 at one ε: PrivGene (EM, m' = 10) and GUPT with each variant of ``variants``.

    ``runs`` runs on the full scaled data. Run ``i`` uses the streams of the Fig. 5 jobs of run
    ``i`` (partition, block fits, noise at ε), so the variant ``eps_fraction = 1``, unclamped,
    reproduces the Fig. 5 GUPT value, PrivGene reproduces its Fig. 5 value, and the GUPT variants
    share their block fits and Laplace draws. A variant with ``range: estimated`` estimates each
    coordinate's range from the block outputs within [-1, 1] (GUPT-loose, ``eps_fraction`` = its
    share for the noisy mean), its percentiles drawn from the stream ``(ε, "range")``.
    Columns: dataset, task, k, run, method (``PrivGene`` or ``GUPT <variant>``), epsilon, variance,
    ``budget_share`` (the share of ε the release states it spends: φ for a variant with a given
    range, whose code split leaves the range's 1 − φ unspent; 1 otherwise) and the release's
    ledger (:data:`~dpreplication.accounting.ledger.LEDGER_COLUMNS`, each release budgeted at ε).

    Parameters
    ----------
    variants : dict of str to dict
        Name → ``eps_fraction``, ``clamp_output``, ``range`` (``given``: [-1, 1]; ``estimated``).
    """
    points, task = data.features, KMeansTask(k)
    fitness = task.fitness(points, None, algorithm)
    settings = algorithm_settings(algorithm, **KMEANS_SELECTION)

    rows = []
    for run in range(runs):
        streams = job_streams(seed, "kmeans", data.name, task.name, "PrivGene", run, 0)
        with spending(epsilon) as ledger:
            omega = privgene(fitness, epsilon, settings, streams(epsilon)).omega
        rows.append((run, "PrivGene", task.score(points, None, omega), 1.0, *ledger.summary().values()))
        streams = job_streams(seed, "kmeans", data.name, task.name, "GUPT", run, 0)
        generator = streams("partition")
        blocks = gupt.gupt_partition(len(points), generator)
        outputs = gupt.kmeans_block_outputs(points, blocks, k, generator, restarts, max_iter)
        for name, variant in variants.items():
            with spending(epsilon) as ledger:
                if variant["range"] == "estimated":
                    centres = gupt_loose_aggregate(
                        outputs,
                        gupt.CENTRE_RANGE,
                        epsilon,
                        streams(epsilon),
                        streams(epsilon, "range"),
                        variant["eps_fraction"],
                    )
                else:
                    centres = gupt.gupt_aggregate(
                        outputs, gupt.CENTRE_RANGE, epsilon, streams(epsilon), variant["eps_fraction"]
                    )
            if variant["clamp_output"]:  # post-processing: the same guarantee
                centres = np.clip(centres, *gupt.CENTRE_RANGE)
            share = variant["eps_fraction"] if variant["range"] == "given" else 1.0
            rows.append((run, f"GUPT {name}", task.score(points, None, centres), share, *ledger.summary().values()))
    frame = pd.DataFrame(rows, columns=["run", "method", "variance", "budget_share", *LEDGER_COLUMNS])
    return frame.assign(dataset=data.name, task=task.name, k=k, epsilon=epsilon)[
        ["dataset", "task", "k", "run", "method", "epsilon", "variance", "budget_share", *LEDGER_COLUMNS]
    ]


def gupt_variants_ledger(jobs: pd.DataFrame) -> pd.DataFrame:
    """Return the privacy ledger of every (dataset, k, method) point: its runs' releases against φε or ε."""
    return ledger_table(jobs, ["dataset", "task", "k", "method"], release=("run",))


def gupt_variants_summary(jobs: pd.DataFrame, variants: dict[str, dict]) -> pd.DataFrame:
    """Per (dataset, task, GUPT variant): mean variances of GUPT and PrivGene over the same runs.

    With ``ratio = GUPT / PrivGene`` and ``log10_ratio`` (as the Fig. 5 ``comparison_pairs`` table),
    the latter with its paired 95 % interval (:func:`~dpreplication.statistics.intervals.log_ratio_interval`,
    runs paired by ``run``: the same data draws).
    """
    rows = []
    for (dataset, task), panel in jobs.groupby(["dataset", "task"], sort=False):
        privgene_runs = panel[panel.method == "PrivGene"].set_index("run").variance
        privgene_mean = float(privgene_runs.mean())
        for name, variant in variants.items():
            gupt_runs = panel[panel.method == f"GUPT {name}"].set_index("run").variance
            paired = pd.concat([privgene_runs, gupt_runs], axis=1, keys=["privgene", "gupt"]).dropna()
            log_se, log_half = log_ratio_interval(paired.privgene, paired.gupt)
            log10_ratio = float(np.log10(gupt_runs.mean() / privgene_mean))
            rows.append(
                {
                    "dataset": dataset,
                    "task": task,
                    "variant": name,
                    "eps_fraction": variant["eps_fraction"],
                    "clamp_output": bool(variant["clamp_output"]),
                    "range": variant["range"],
                    "epsilon": float(panel.epsilon.iloc[0]),
                    "runs": len(gupt_runs),
                    "privgene_variance": privgene_mean,
                    "gupt_variance": float(gupt_runs.mean()),
                    "ratio": float(gupt_runs.mean()) / privgene_mean,
                    "log10_ratio": log10_ratio,
                    "log10_ratio_se": log_se,
                    "log10_ratio_ci_low": log10_ratio - log_half,
                    "log10_ratio_ci_high": log10_ratio + log_half,
                }
            )
    return pd.DataFrame(rows)
