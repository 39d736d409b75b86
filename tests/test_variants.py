"""Variants: a run whose configuration differs from its profile's writes its own tree, never
figures/; nested --config values keep their types; --profile keeps applying under --config."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from dpreplication.pipeline.config import merge_config, typed_overrides, typed_value, variant_name

REPO = Path(__file__).resolve().parents[1]
SNAKEMAKE = str(Path(sys.executable).parent / "snakemake")
TARGET = "permute_and_flip/tv_convergence.png"
DRAWING = "draw_permute_and_flip_tv_convergence"


def planned_png(*arguments: str) -> str:
    """The tv_convergence PNG path a dry run of its rule plans, under the given arguments."""
    result = subprocess.run(
        [SNAKEMAKE, "-n", "--verbose", DRAWING, "--forcerun", "pf_tv_convergence", *arguments],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    paths = {
        word.rstrip(":,")
        for word in result.stdout.split() + result.stderr.split()
        if word.endswith(".png") or word.endswith(".png:")
    }
    paths = {p for p in paths if p.endswith(TARGET)}
    assert len(paths) == 1, paths
    return paths.pop()


def test_merge_and_types():
    assert merge_config({"a": {"b": 1, "c": 2}, "d": 3}, {"a": {"b": 5}}) == {"a": {"b": 5, "c": 2}, "d": 3}
    assert [typed_value(v) for v in ("2", "1e-5", "[1, 2]", "true", "highs", 3)] == [2, 1e-5, [1, 2], True, "highs", 3]
    assert typed_overrides({"p": {"f": {"epsilon": "2"}}, "seed": 5}) == {"p": {"f": {"epsilon": 2}}, "seed": 5}


def test_variant_names():
    profile = {"profile": "default", "seed": 1, "data": {"mirror": None}, "variant": "", "p": {"e": 1}}
    assert variant_name(profile, profile) == ""
    assert variant_name({**profile, "data": {"mirror": "/elsewhere"}}, profile) == ""  # where, not what
    changed = {**profile, "p": {"e": 2}}
    assert variant_name(changed, profile).startswith("default-") and variant_name(changed, profile) == variant_name(
        changed, profile
    )
    assert variant_name({**changed, "variant": "mine"}, profile) == "mine"
    for bad in ("quick", "../up", "a b"):
        with pytest.raises(ValueError, match="config key 'variant'"):
            variant_name({**profile, "variant": bad}, profile)


def test_profiles_publish_to_their_own_trees():
    assert planned_png() == f"figures/{TARGET}"
    assert planned_png("--config", "profile=quick") == f"results/quick/figures/{TARGET}"
    assert planned_png("--profile", "profiles/quick") == f"results/quick/figures/{TARGET}"


def test_changed_parameters_never_write_into_figures(tmp_path):
    nested = planned_png("--config", "permute_and_flip={tv_convergence: {epsilon: 2}}")
    configfile = tmp_path / "my.yaml"
    configfile.write_text("permute_and_flip: {tv_convergence: {epsilon: 2}}\n")
    from_file = planned_png("--configfile", str(configfile))
    assert nested == from_file and nested.startswith("results/default-")  # same config, same tree
    assert (
        planned_png("--config", "seed=5").startswith("results/default-") and planned_png("--config", "seed=5") != nested
    )
    assert (
        planned_png("--config", "variant=eps2", "permute_and_flip={tv_convergence: {epsilon: 2}}")
        == f"results/eps2/figures/{TARGET}"
    )
    assert planned_png("--profile", "profiles/quick", "--config", "seed=3").startswith("results/quick-")


@pytest.mark.parametrize(
    "override, message",
    [
        ("darrm={f2_gamma_shapes: {ms: [3, 13]}}", "config key 'darrm.f2_gamma_shapes.ms': [13] not in [1, K]"),
        ("darrm={private_prediction: {ms: [12]}}", "config key 'darrm.private_prediction.ms': [12] not in [1, K]"),
        ("truncated_laplace={lp_optimum: {solver: higs}}", "config key 'truncated_laplace.lp_optimum.solver'"),
        ("darrm={solver: higs}", "'higs' is not one of"),
    ],
)
def test_inconsistent_configuration_stops_before_any_job_naming_the_key(override, message):
    result = subprocess.run(
        [SNAKEMAKE, "-n", "pf_tv_convergence", "--config", override],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode != 0 and message in result.stdout + result.stderr, (result.stdout + result.stderr)[-2000:]


def test_the_workflow_refuses_a_package_from_elsewhere(tmp_path):
    from dpreplication.pipeline.environment import check_package_location

    assert check_package_location(REPO / "src" / "dpreplication" / "__init__.py", REPO) == ""
    message = check_package_location(tmp_path / "dpreplication" / "__init__.py", REPO)
    assert "not this checkout's" in message and "pip install -e ." in message


class _Named(dict):
    """The part of Snakemake's named lists that :func:`publish` uses: ``x[name]``, ``.get``, ``.keys``."""


def _published_table(tmp_path, epsilon, variant):
    from types import SimpleNamespace

    import pandas as pd

    from dpreplication.pipeline.jobs import publish

    data = pd.DataFrame({"delta": [1e-6, 1e-6, 1e-3, 1e-3], "epsilon": [0.5, 1.0] * 2, "ratio": [0.3, 0.5, 0.6, 0.8]})
    stem = tmp_path / f"{variant or 'published'}-{epsilon}"
    job = SimpleNamespace(
        output=_Named(csv=f"{stem}.csv", json=f"{stem}.json"),
        params=_Named(settings={"epsilon": epsilon, "n_draws": 1000, "grid": [0.1, 0.2, 0.4, 0.8, 1.6]}, seed=7),
        config={"profile": "default", "variant": variant},
        rule="test_rule",
        log=[],
    )
    publish(job, data, drawing={"column": "ratio"})
    return data, stem


def test_sidecars_carry_the_parameters_each_output_was_computed_with(tmp_path):
    _, stem = _published_table(tmp_path, 1.0, "")
    record = json.loads(Path(f"{stem}.json").read_text())
    assert record["parameters"] == "profile default · epsilon=1 · n_draws=1000 · grid=0.1…1.6 (5 values) · seed=7"
    assert record["drawing"] == {"column": "ratio"} and record["outputs"] == [f"{stem.name}.csv"]
    _, variant = _published_table(tmp_path, 2.0, "mine")
    line = json.loads(Path(f"{variant}.json").read_text())["parameters"]
    assert line.startswith("profile default, variant mine · epsilon=2 ·")


def test_a_figure_drawn_from_its_published_table_is_the_figure_of_the_computed_one(tmp_path):
    from dpreplication.plotting import draw, save_png
    from dpreplication.plotting.noise_distributions import ratio_lines

    data, stem = _published_table(tmp_path, 1.0, "")
    drawn, pdf = draw(
        "noise_distributions.ratio_lines",
        [f"{stem}.csv"],
        f"{stem}.json",
        tmp_path / "drawn.png",
        tmp_path / "drawn.pdf",
    )
    direct = save_png(ratio_lines(data, "ratio"), tmp_path / "direct.png")
    assert drawn.read_bytes() == direct.read_bytes() and pdf.read_bytes().startswith(b"%PDF-")
