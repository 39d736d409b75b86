"""DaRRM's cross-field configuration checks: what the schema cannot state about the ``darrm`` section.

Called by :func:`dpreplication.pipeline.config_validation.cross_field_problems` before any job;
each problem names its key.
"""

from __future__ import annotations


def _sections(config: dict, path: str = ""):
    """Every mapping in ``config`` with its dotted key path."""
    for key, value in config.items():
        if isinstance(value, dict):
            dotted = f"{path}.{key}" if path else key
            yield dotted, value
            yield from _sections(value, dotted)


def darrm_problems(config: dict) -> list[str]:
    """Check DaRRM's settings: the privacy allowances, the private-prediction shards, the teacher ablation.

    Every privacy allowance m ≤ K (an ensemble of K mechanisms, or K teachers); the
    private-prediction classes differ and the shards fit; the teacher ablation within the ensemble
    and its budgets defined.
    """
    problems = []
    for path, section in _sections(config.get("darrm", {}), "darrm"):
        ensemble = section.get("K", section.get("teachers"))
        if ensemble is not None and "ms" in section:
            too_large = [m for m in section["ms"] if not 1 <= m <= ensemble]
            if too_large:
                problems.append(f"config key '{path}.ms': {too_large} not in [1, K] with K = {ensemble}")
    prediction = config.get("darrm", {}).get("private_prediction", {})
    K = prediction.get("teachers")
    classes = prediction.get("classes", [])
    if len(set(classes)) != len(classes):
        problems.append(f"config key 'darrm.private_prediction.classes': {classes} must be two different classes")
    shard, train = prediction.get("shard_size"), prediction.get("train_size")
    if shard is not None and train is not None and K is not None and shard * K > train:
        problems.append(
            f"config key 'darrm.private_prediction.shard_size': {K} teachers × {shard} images exceed "
            f"train_size = {train}"
        )
    ablation = config.get("darrm", {}).get("teacher_ablation")
    if ablation and K is not None:
        for key in ("teachers", "m"):
            if key in ablation and not 1 <= ablation[key] <= K:
                problems.append(
                    f"config key 'darrm.teacher_ablation.{key}': {ablation[key]} not in [1, K] with "
                    f"K = darrm.private_prediction.teachers = {K}"
                )
        datasets = prediction.get("datasets", {})
        if "dataset" in ablation and datasets and ablation["dataset"] not in datasets:
            problems.append(
                f"config key 'darrm.teacher_ablation.dataset': {ablation['dataset']!r} is not one of "
                f"darrm.private_prediction.datasets {sorted(datasets)}"
            )
        budgets = ["stated", *ablation.get("budgets", {})]
        names = [c["name"] for c in ablation.get("configs", [])]
        if len(set(names)) != len(names):
            problems.append(f"config key 'darrm.teacher_ablation.configs': names {names} are not unique")
        for index, entry in enumerate(ablation.get("configs", [])):
            if entry["budget"] not in budgets:
                problems.append(
                    f"config key 'darrm.teacher_ablation.configs[{index}].budget': {entry['budget']!r} is not "
                    f"one of {budgets} (stated, or a key of darrm.teacher_ablation.budgets)"
                )
            elif entry["epochs"] is None and entry["budget"] != "stated":
                problems.append(
                    f"config key 'darrm.teacher_ablation.configs[{index}].epochs': null (the pipeline's protocol) "
                    f"needs budget 'stated', not {entry['budget']!r}"
                )
    return problems
