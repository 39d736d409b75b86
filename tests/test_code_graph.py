"""The package's static call graph (:mod:`dpreplication.pipeline.code_graph`), on a small package: each kind
of edge the figure map relies on is needed to reach a mechanism (negative controls)."""

from dpreplication.pipeline.code_graph import PACKAGE, call_graph, import_closure, mechanisms_reached


def test_call_graph_follows_values_exports_and_tables(tmp_path):
    """Negative controls on a small package: each kind of edge is needed to reach the mechanism."""
    package = tmp_path / "pkg"
    (package / "mechanisms").mkdir(parents=True)
    (package / "replications").mkdir()
    (package / "__init__.py").write_text("")
    (package / "replications" / "__init__.py").write_text("")
    (package / "mechanisms" / "__init__.py").write_text('_EXPORTS = {"noisy": "additive"}\n')
    (package / "mechanisms" / "additive.py").write_text(
        "def noisy():\n    return helper()\n\n\ndef helper():\n    return 0\n\n\ndef other():\n    return 1\n\n\n"
        "TABLE = {'other': other}\n"
    )
    (package / "replications" / "job.py").write_text(
        "from pkg.mechanisms import noisy\n"
        "from pkg.mechanisms import additive as add\n\n\n"
        "def run(repeat):\n    return repeat(noisy)\n\n\n"
        "def table():\n    return add.TABLE\n\n\n"
        "def unused():\n    return add.helper\n"
    )
    graph = call_graph(package)
    assert graph["pkg.replications.job.run"] == {"pkg.mechanisms.additive.noisy"}  # a value, through _EXPORTS
    reached = mechanisms_reached({"pkg.replications.job.run", "pkg.replications.job.table"}, graph, package)
    assert reached == {"pkg.mechanisms.additive.noisy", "pkg.mechanisms.additive.other"}  # not helper


def test_import_closure_follows_lazy_exports_and_function_level_imports(tmp_path):
    script = tmp_path / "script.py"
    script.write_text(
        "from dpreplication.mechanisms import permute_and_flip_pmf\n"
        "def later():\n    from dpreplication.replications.darrm import verified\n"
    )
    reached = {path.relative_to(PACKAGE).as_posix() for path in import_closure(script)}
    assert {"mechanisms/selection.py", "replications/darrm/verified.py", "replications/darrm/lemmas.py"} <= reached
