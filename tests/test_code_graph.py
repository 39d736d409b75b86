"""The package's import graph (:mod:`dpreplication.pipeline.code_graph`): lazy exports and function-level imports are followed."""

from dpreplication.pipeline.code_graph import PACKAGE, import_closure


def test_import_closure_follows_lazy_exports_and_function_level_imports(tmp_path):
    script = tmp_path / "script.py"
    script.write_text(
        "from dpreplication.mechanisms import permute_and_flip_pmf\n"
        "def later():\n    from dpreplication.replications.darrm import verified\n"
    )
    reached = {path.relative_to(PACKAGE).as_posix() for path in import_closure(script)}
    assert {"mechanisms/selection.py", "replications/darrm/verified.py", "replications/darrm/lemmas.py"} <= reached
