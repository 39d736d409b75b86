"""Configuration: every default has one home (the schema), every profile validates, a bad value
stops the run naming the key."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from snakemake.utils import validate

from dpreplication.pipeline.config import BASE_CONFIG, PROFILES, load_yaml, merge_config, profile_config, with_defaults
from dpreplication.pipeline.config_validation import ConfigurationError, value_problems

REPO = Path(__file__).resolve().parents[1]
SNAKEMAKE = [sys.executable, "-m", "snakemake", "--directory", str(REPO), "--snakefile", str(REPO / "Snakefile")]
SCHEMA = REPO / "workflow" / "schemas" / "config.schema.yaml"


@pytest.mark.parametrize("profile", ["quick", "default", "paper"])
def test_every_profile_validates(profile):
    validate(profile_config(profile, REPO), str(SCHEMA))


def leaves(mapping, path=()):
    """(key path, value) of every non-mapping value and every empty mapping of ``mapping``."""
    for key, value in mapping.items():
        if isinstance(value, dict) and value:
            yield from leaves(value, (*path, key))
        else:
            yield (*path, key), value


def value_at(mapping, path):
    for key in path:
        if not isinstance(mapping, dict) or key not in mapping:
            return KeyError
        mapping = mapping[key]
    return mapping


def test_the_base_config_states_only_what_differs_from_the_schema_defaults():
    defaults = with_defaults({"profile": "default"}, SCHEMA)
    base = load_yaml(REPO / BASE_CONFIG)
    repeated = [".".join(p) for p, v in leaves(base) if p != ("profile",) and value_at(defaults, p) == v]
    assert not repeated, f"config/config.yaml repeats the schema's default of {repeated}: delete them there"


@pytest.mark.parametrize("profile", ["quick", "default", "paper"])
def test_a_profile_overlay_states_only_what_differs_from_the_default_profile(profile):
    base = profile_config("default", REPO)
    overlay = load_yaml(REPO / PROFILES / f"{profile}.yaml")
    repeated = [".".join(p) for p, v in leaves(overlay) if value_at(base, p) == v]
    assert not repeated, f"config/profiles/{profile}.yaml repeats the default profile's {repeated}: delete them there"


def test_a_repeated_default_is_caught(tmp_path):
    """Negative control of the two checks above: restating one default is found."""
    defaults = with_defaults({"profile": "default"}, SCHEMA)
    restated = {
        "profile": "default",
        "darrm": {"f8_errors": {"n_repeats": defaults["darrm"]["f8_errors"]["n_repeats"]}},
    }
    assert [p for p, v in leaves(restated) if p != ("profile",) and value_at(defaults, p) == v] == [
        ("darrm", "f8_errors", "n_repeats")
    ]


def test_the_order_keys_are_written_in_changes_nothing():
    """Mappings come out in schema order, so a user's key order cannot change a settings line, a
    sidecar or a configuration hash."""

    def reversed_keys(value):
        if isinstance(value, dict):
            return {key: reversed_keys(value[key]) for key in reversed(list(value))}
        return [reversed_keys(item) for item in value] if isinstance(value, list) else value

    written = merge_config(load_yaml(REPO / BASE_CONFIG), load_yaml(REPO / PROFILES / "quick.yaml"))
    resolved = with_defaults({**written, "profile": "quick"}, SCHEMA)
    assert json.dumps(with_defaults(reversed_keys({**written, "profile": "quick"}), SCHEMA)) == json.dumps(resolved)
    assert list(resolved) == [key for key in load_yaml(SCHEMA)["properties"] if key in resolved]


def test_the_command_line_prints_a_profiles_whole_configuration():
    printed = subprocess.run(
        [sys.executable, "-m", "dpreplication.pipeline.config", "quick"], capture_output=True, text=True, cwd=REPO
    )
    assert printed.returncode == 0, printed.stderr
    assert yaml.safe_load(printed.stdout) == profile_config("quick", REPO)


def test_every_key_has_a_description_and_a_default():
    schema = yaml.safe_load(SCHEMA.read_text())

    def walk(node, path):
        for key, sub in node.get("properties", {}).items():
            assert "description" in sub, f"{path}{key}: no description"
            assert "default" in sub or key in node.get("required", []), f"{path}{key}: no default"
            walk(sub, f"{path}{key}.")

    walk(schema, "")


def dry_run(*args):
    return subprocess.run([*SNAKEMAKE, "-n", *args], capture_output=True, text=True, cwd=REPO)


def test_bad_value_stops_the_run_naming_the_key():
    result = dry_run("--config", "seed=-3")
    assert result.returncode != 0
    assert "seed" in result.stderr + result.stdout and "minimum" in result.stderr + result.stdout


def test_unknown_profile_is_named():
    result = dry_run("--config", "profile=bogus")
    assert result.returncode != 0 and "config key 'profile'" in result.stderr + result.stdout


def test_value_problems_name_non_finite_numbers_and_float_integers_by_key():
    schema = load_yaml(SCHEMA)
    config = profile_config("quick", REPO)
    assert value_problems(config, schema) == []
    config = merge_config(
        config, {"seed": 7.0, "darrm": {"f2_gamma_shapes": {"epsilon": float("-inf"), "ms": [1, 3.0]}}}
    )
    config["truncated_laplace"]["monte_carlo"]["points"][0][1] = float("nan")
    assert value_problems(config, schema) == [
        "config key 'seed': 7.0 must be an integer; write 7",
        "config key 'truncated_laplace.monte_carlo.points[0][1]': nan is not a finite number",
        "config key 'darrm.f2_gamma_shapes.ms[1]': 3.0 must be an integer; write 3",
        "config key 'darrm.f2_gamma_shapes.epsilon': -inf is not a finite number",
    ]


def test_a_number_where_the_schema_takes_a_number_may_be_a_float():
    """ε = 2.0 and δ = 1e-5 are numbers; only integer-typed keys refuse floats."""
    schema = load_yaml(SCHEMA)
    config = merge_config(profile_config("quick", REPO), {"darrm": {"f2_gamma_shapes": {"epsilon": 2.0}}})
    assert value_problems(config, schema) == []


def test_privgene_defaults_have_one_value_in_the_schema_and_the_code():
    """The schema's ``privgene.algorithm`` defaults are the code's: :class:`PrivGeneSettings` built
    from them (``algorithm_settings``, the one path from config to the algorithm) equals its own
    defaults, and so do the C and Δ factor the fitness and the baselines default to. The fields the
    schema lacks are the selection, which each job sets (EEM, EM, m')."""
    import dataclasses

    from dpreplication.learning import models
    from dpreplication.learning.fitness import KMeansFitness
    from dpreplication.learning.genetic import PrivGeneSettings
    from dpreplication.replications.privgene.methods import MethodSettings, algorithm_settings

    algorithm = with_defaults({"profile": "default"})["privgene"]["algorithm"]  # the schema's defaults alone
    assert algorithm_settings(algorithm) == PrivGeneSettings()
    fields = {field.name for field in dataclasses.fields(PrivGeneSettings)}
    assert fields - set(algorithm) == {"m_prime", "dampening", "selector"}
    assert set(algorithm) - fields == {"svm_C", "kmeans_delta_factor"}
    assert algorithm["svm_C"] == models.PRIVATE_SVM_C == MethodSettings().svm_C
    assert algorithm["kmeans_delta_factor"] == KMeansFitness.__init__.__defaults__[0]


# --------------------------------------------------------------------------- bad input (issue #51)


def numeric_lists(node, path=""):
    """(key path, subschema) of every list of numbers (or of [ε, δ] points) the schema declares."""
    for key, sub in node.get("properties", {}).items():
        items = sub.get("items", {}) if isinstance(sub.get("items"), dict) else {}
        kinds = {items.get("type"), items.get("$ref", "").rsplit("/", 1)[-1]}
        if "array" in str(sub.get("type")) and kinds & {"number", "integer", "epsilon", "count", "tl_point"}:
            yield f"{path}{key}", sub
        yield from numeric_lists(sub, f"{path}{key}.")


def test_every_grid_refuses_a_repeated_value():
    """A grid (ε, δ, c, sample sizes, points, …) with a repeated value used to validate and then
    crash its job in pandas; every list of numbers is a grid, except a [from, to] range and the
    two DaRRM classes (checked apart, row 12 of docs/faults.md)."""
    schema = yaml.safe_load(SCHEMA.read_text())
    budgets = schema["$defs"]["budgets"]  # the ms of every DaRRM figure
    grids = {path: sub for path, sub in numeric_lists(schema) if not path.endswith(("_range", ".classes"))}
    assert len(grids) >= 28 and budgets["uniqueItems"] is True  # 28 since the baseline checks read Figs 3–4's ε grid
    assert [path for path, sub in grids.items() if sub.get("uniqueItems") is not True] == []


@pytest.mark.parametrize(
    "overlay, line",
    [
        (
            {"privgene": {"choice_of_c": {"c_grid": [0.0005, 0.0005, 0.00125]}}},
            "config key 'privgene.choice_of_c.c_grid': [0.0005, 0.0005, 0.00125] has non-unique elements",
        ),
        (
            {"truncated_laplace": {"monte_carlo": {"points": [[1, 1.0e-6], [1.0, 1.0e-6]]}}},
            "config key 'truncated_laplace.monte_carlo.points': [[1, 1e-06], [1.0, 1e-06]] has non-unique elements",
        ),
        (
            {"darrm": {"f2_gamma_shapes": {"ms": [3, 5, 3]}}},
            "config key 'darrm.f2_gamma_shapes.ms': [3, 5, 3] has non-unique elements",
        ),
    ],
)
def test_a_repeated_grid_value_is_refused_naming_the_key(overlay, line):
    with pytest.raises(ConfigurationError) as refused:
        with_defaults(merge_config(profile_config("quick", REPO), overlay), SCHEMA)
    assert str(refused.value).splitlines() == ["invalid configuration:", line]


def test_problems_are_one_line_each_naming_the_key_with_the_value_cut_to_80_characters():
    """Before: the first problem only, in Snakemake's multi-line ``ValidationError`` that printed the
    whole offending value and the schema beside it."""
    config = merge_config(
        profile_config("quick", REPO),
        {"seed": -1, "permute_and_flip": {"tv_convergence": {"epsilon": "x" * 500, "epsilonn": 2}}},
    )
    with pytest.raises(ConfigurationError) as refused:
        with_defaults(config, SCHEMA)
    assert str(refused.value).splitlines() == [
        "invalid configuration:",
        "config key 'permute_and_flip.tv_convergence.epsilonn': unknown key; did you mean 'epsilon'?",
        f"config key 'permute_and_flip.tv_convergence.epsilon': '{'x' * 78}… is not of type 'number'",
        "config key 'seed': -1 is less than the minimum of 0",
    ]


def test_a_misspelt_key_or_choice_is_one_line_naming_the_nearest_valid_one():
    overlay = {
        "darrm": {"f3_erors": {"n_repeats": 2}, "solver": "higs", "f6_errors": {"n_repets": 1}, "zzz": 1},
        "instruction_set": "x86-64-v9",
    }
    with pytest.raises(ConfigurationError) as refused:
        with_defaults(merge_config(profile_config("quick", REPO), overlay), SCHEMA)
    lines = str(refused.value).splitlines()
    assert lines[:4] == [
        "invalid configuration:",
        "config key 'darrm.f3_erors': unknown key; did you mean 'f3_errors'?",
        "config key 'darrm.zzz': unknown key; expected one of solver, f2_gamma_shapes, f3_errors, f4_feasible_region, "
        "f5_gamma_shapes, f6_errors, f7_gamma_shapes, f8_errors, f9_prior_shapes, f9_prior_errors, lp_diagnostic…",
        "config key 'darrm.f6_errors.n_repets': unknown key; did you mean 'n_repeats'?",
    ]
    assert lines[4].endswith(
        "is not one of ['highs', 'highs-ds', 'highs-ipm', 'cvxpy-highs', 'cvxpy-clarabel']; did you mean 'highs'?"
    )
    assert lines[5].startswith("config key 'instruction_set': 'x86-64-v9' is not one of") and len(lines) == 6


@pytest.mark.parametrize("profile", ["quick", "default", "paper"])
def test_the_defaults_are_snakemakes(profile):
    """:func:`with_defaults` collects every problem with Snakemake's validator and fills the same defaults."""
    merged = merge_config(load_yaml(REPO / BASE_CONFIG), load_yaml(REPO / PROFILES / f"{profile}.yaml"))
    merged["profile"] = profile
    theirs = json.loads(json.dumps(merged))
    validate(theirs, str(SCHEMA), set_default=True)
    assert json.dumps(with_defaults(merged, SCHEMA), sort_keys=True) == json.dumps(theirs, sort_keys=True)


def alias_bomb(levels: int) -> str:
    """A YAML overlay of about 400 bytes whose aliases expand to 10^(levels + 1) values under one ε."""
    anchors = ["a0: &a0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]"]
    anchors += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, levels + 1)]
    return "\n".join([*anchors, f"permute_and_flip: {{tv_convergence: {{epsilon: *a{levels}}}}}", ""])


def test_an_alias_bomb_is_refused_before_it_is_built_or_validated(tmp_path):
    """A 400-byte file that expands to 10^7 values: read here, refused before PyYAML builds it;
    read by Snakemake (which builds it, sharing what an alias names), refused before the schema
    walks it. It used to hang the config check, and at 6 levels print a 33 MB error."""
    import time

    from snakemake.common.configfile import load_configfile

    bomb = tmp_path / "bomb.yaml"
    bomb.write_text(alias_bomb(6))
    with pytest.raises(
        ValueError, match=rf"^{bomb}: its YAML aliases expand it to 23,456,801 nodes, 23,456,771 beyond the 30 written"
    ):
        load_yaml(bomb)
    loaded = {k: v for k, v in load_configfile(str(bomb)).items() if not k.startswith("a")}
    start = time.process_time()
    with pytest.raises(ConfigurationError) as refused:
        with_defaults(merge_config(profile_config("quick", REPO), loaded), SCHEMA)
    assert time.process_time() - start < 2 and len(str(refused.value)) < 400
    assert "config key 'permute_and_flip.tv_convergence.epsilon[" in str(refused.value)
    assert "holds more than 100,000 values once its YAML aliases are expanded" in str(refused.value)


def test_a_small_alias_still_reads_and_a_large_or_recursive_one_does_not(tmp_path):
    """config/config.yaml names its Monte Carlo points once (``&tl_mc_points``); a file over 1 MB is
    refused unread, a recursive alias named by its line."""
    monte_carlo = load_yaml(REPO / BASE_CONFIG)["truncated_laplace"]["monte_carlo"]
    assert monte_carlo["library_points"] == monte_carlo["points"] and len(monte_carlo["points"]) == 20
    large = tmp_path / "large.yaml"
    large.write_text("seed: 1\n" + "# padding\n" * 110_000)
    with pytest.raises(ValueError, match=rf"^{large}: 1,100,008 bytes, over the 1,000,000 a YAML file may hold"):
        load_yaml(large)
    recursive = tmp_path / "recursive.yaml"
    recursive.write_text("seed: 1\nloop: &loop [*loop]\n")
    with pytest.raises(ValueError, match=rf"^{recursive}: a recursive YAML alias at line 2, column 7"):
        load_yaml(recursive)
