"""A long job's progress reaches the terminal: the package's log lines, once the job has run a while."""

import logging
from types import SimpleNamespace

import pytest

from dpreplication.pipeline import jobs


def fake_snakemake(tmp_path):
    return SimpleNamespace(
        rule="privgene_comparison_job",
        wildcards=["Adult", "lr", "0-4"],  # Snakemake's wildcards iterate over their values
        log=[str(tmp_path / "job.log")],
        input=[],
        output=[],
        params=SimpleNamespace(items=lambda: {}.items()),
    )


@pytest.mark.parametrize("after, shown", [(0.0, True), (3600.0, False)])
def test_package_lines_reach_the_terminal_once_the_job_has_run_a_while(tmp_path, monkeypatch, capsys, after, shown):
    monkeypatch.setattr(jobs, "PROGRESS_AFTER_S", after)
    monkeypatch.setattr(jobs.atexit, "register", lambda *args: None)
    jobs.start(fake_snakemake(tmp_path))
    logging.getLogger("dpreplication.replications.privgene.jobs").info("Adult lr PrivGene: repetition 3 done")
    terminal = capsys.readouterr().err
    line = "[privgene_comparison_job Adult lr 0-4] Adult lr PrivGene: repetition 3 done"
    assert (line in terminal) == shown, terminal
    assert "repetition 3 done" in (tmp_path / "job.log").read_text()  # the log file has every line


def test_a_second_start_replaces_the_terminal_handler(tmp_path, monkeypatch):
    monkeypatch.setattr(jobs.atexit, "register", lambda *args: None)
    for _ in range(3):
        jobs.start(fake_snakemake(tmp_path))
    package = logging.getLogger("dpreplication")
    assert sum(any(isinstance(f, jobs.RunningFor) for f in h.filters) for h in package.handlers) == 1
