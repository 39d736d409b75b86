"""DaRRM private prediction (spec §3): how good the teachers behind the votes are.

* :func:`teachers_table` — per (dataset, kind): shards, steps, the accountant's ε against the
  stated ε, and the teachers' test accuracies;
* :func:`teacher_diagnostics` — per teacher: accuracy, the share of votes for each class, the
  confusion counts and whether it has collapsed to one class (:func:`vote_diagnostics`).

Datasets that cannot be had give NaN rows whose ``data_status`` says why (the scorecard reports
their claims as missing).
"""

from __future__ import annotations

import os
from collections.abc import Mapping

import numpy as np
import pandas as pd

from dpreplication.accounting.ledger import ledger_table
from dpreplication.replications.darrm.prediction import needs_download
from dpreplication.replications.darrm.teachers import KINDS, TEACHER_COLUMNS
from dpreplication.tables import DATA_STATUS_COLUMN


def teachers_ledger(per_teacher: dict, by=("dataset", "kind", "teacher")) -> pd.DataFrame:
    """Return the privacy ledger of every teacher: what its training recorded against the ε reported for it.

    A private teacher's DP-SGD steps compose by RDP at its Δ (:mod:`dpreplication.accounting.ledger`)
    and must give the ε of its row (our RDP accountant); a non-private teacher states and spends
    ε = ∞. One row per ``by`` (add ``"replicate"`` for the teachers of several seed replicates).
    """
    empty = pd.DataFrame(columns=[*TEACHER_COLUMNS, *(key for key in by if key not in TEACHER_COLUMNS)])
    frames = list(per_teacher.values()) or [empty]  # no dataset: no teacher
    rows = pd.concat(frames, ignore_index=True).assign(failure="")
    return ledger_table(rows, list(by), non_private={"kind": ("nonprivate",)}, release=())


def replicates_ledger(teachers_by_replicate: Mapping[str, list[Mapping[str, str | os.PathLike]]]) -> pd.DataFrame:
    """Return the ledger of every teacher of every seed replicate, from ``{dataset: [{kind: CSV path}, ...]}``."""
    per_teacher = {
        (dataset, kind, replicate): pd.read_csv(path).assign(replicate=replicate)
        for dataset, replicates in teachers_by_replicate.items()
        for replicate, by_kind in enumerate(replicates)
        for kind, path in by_kind.items()
    }
    return teachers_ledger(per_teacher, by=("dataset", "kind", "replicate", "teacher"))


def teachers_table(per_teacher: dict, statuses: dict, settings: dict) -> pd.DataFrame:
    """One row per (dataset, kind): shards, steps, ε against the stated ε, and test accuracies.

    ε is the max over teachers; the test accuracies are the mean, std, min and max (each teacher's
    is in the rule's work CSV). Missing datasets give NaN rows.

    Parameters
    ----------
    per_teacher : dict
        ``{(dataset, kind): DataFrame of teacher_votes}`` for the available datasets.
    statuses : dict
        ``{dataset: availability dict}``.
    """
    rows = []
    for dataset in settings["datasets"]:
        for kind in KINDS:
            row = {
                "dataset": dataset,
                "kind": kind,
                "teachers": settings["teachers"],
                "epsilon_target": settings["datasets"][dataset]["epsilon_teacher"] if kind == "private" else np.nan,
                "Delta": settings["Delta"] if kind == "private" else np.nan,
            }
            frame = per_teacher.get((dataset, kind))
            if frame is None:
                rows.append({**row, DATA_STATUS_COLUMN: needs_download(dataset, statuses[dataset])})
                continue
            accuracy = frame.test_accuracy.to_numpy()
            rows.append(
                {
                    **row,
                    "shard_size_min": frame.shard_size.min(),
                    "shard_size_max": frame.shard_size.max(),
                    "steps": frame.steps.max(),
                    "epochs": frame.epochs.max(),
                    "sample_rate": frame.sample_rate.max(),
                    "epsilon": frame.epsilon.max(),
                    "epsilon_opacus_prv": frame.epsilon_opacus_prv.max(),
                    "accuracy_mean": accuracy.mean(),
                    "accuracy_std": accuracy.std(),
                    "accuracy_min": accuracy.min(),
                    "accuracy_max": accuracy.max(),
                    "off_class_votes": frame.off_class_votes.mean(),
                    DATA_STATUS_COLUMN: "",
                }
            )
    columns = [
        "dataset",
        "kind",
        "teachers",
        "shard_size_min",
        "shard_size_max",
        "steps",
        "epochs",
        "sample_rate",
        "Delta",
        "epsilon_target",
        "epsilon",
        "epsilon_opacus_prv",
        "accuracy_mean",
        "accuracy_std",
        "accuracy_min",
        "accuracy_max",
        "off_class_votes",
        DATA_STATUS_COLUMN,
    ]
    return pd.DataFrame(rows).reindex(columns=columns)


COLLAPSE_RATE = 0.9
"""A teacher whose votes go to one class on more than this share of the test pool has collapsed."""


def vote_diagnostics(vote: np.ndarray, truth: np.ndarray, classes) -> dict:
    """Diagnose one teacher's votes ``vote`` on the pool with labels ``truth``.

    Accuracy, the share of votes for each class, the confusion counts (positive = ``classes[1]``)
    and ``collapsed``: more than :data:`COLLAPSE_RATE` of the votes for class 1, or for anything
    else.
    """
    negative, positive = classes
    positive_rate = float(np.mean(vote == positive))
    return {
        "accuracy": float(np.mean(vote == truth)),
        "rate_negative_class": float(np.mean(vote == negative)),
        "rate_positive_class": positive_rate,
        "true_positive": int(np.sum((vote == positive) & (truth == positive))),
        "false_positive": int(np.sum((vote == positive) & (truth == negative))),
        "true_negative": int(np.sum((vote == negative) & (truth == negative))),
        "false_negative": int(np.sum((vote == negative) & (truth == positive))),
        "collapsed": bool(max(positive_rate, 1.0 - positive_rate) > COLLAPSE_RATE),
    }


def teacher_diagnostics(votes: dict, statuses: dict, settings: dict) -> pd.DataFrame:
    """One row per (dataset, kind, teacher) on the test pool, plus one summary row per (dataset, kind).

    A teacher's row: accuracy, the share of votes for each of the two classes, the confusion counts
    (positive = the second class) and whether the teacher has collapsed to one class
    (:data:`COLLAPSE_RATE`). The summary row, ``teacher = "all"``, has the mean accuracy and the
    number collapsed. Unavailable datasets give NaN rows that say why.
    """
    rows = []
    for dataset in settings["datasets"]:
        for kind in KINDS:
            cached = votes.get(dataset, {}).get(kind)
            if cached is None:
                rows.append(
                    {
                        "dataset": dataset,
                        "kind": kind,
                        "teacher": "all",
                        DATA_STATUS_COLUMN: needs_download(dataset, statuses[dataset]),
                    }
                )
                continue
            per_teacher = [
                {
                    "dataset": dataset,
                    "kind": kind,
                    "teacher": str(teacher),
                    **vote_diagnostics(vote, cached["labels"], settings["classes"]),
                    DATA_STATUS_COLUMN: "",
                }
                for teacher, vote in enumerate(cached["votes"])
            ]
            frame = pd.DataFrame(per_teacher)
            rows += per_teacher
            rows.append(
                {
                    "dataset": dataset,
                    "kind": kind,
                    "teacher": "all",
                    "accuracy": float(frame.accuracy.mean()),
                    "rate_positive_class": float(frame.rate_positive_class.mean()),
                    "collapsed_teachers": int(frame.collapsed.sum()),
                    DATA_STATUS_COLUMN: "",
                }
            )
    return pd.DataFrame(rows)
