"""pytest plugin of the mutant runner: append the node id of every failed test or collection to the
file named by ``$MUTANT_FAILURES``, so that the runner can rerun exactly those on the unmutated copy."""

import os


def _record(report) -> None:
    if report.failed:
        with open(os.environ["MUTANT_FAILURES"], "a") as handle:
            handle.write(report.nodeid + "\n")


def pytest_runtest_logreport(report) -> None:
    _record(report)


def pytest_collectreport(report) -> None:
    _record(report)
