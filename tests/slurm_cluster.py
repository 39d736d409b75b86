"""A real single-node SLURM cluster for the tests: Debian's ``slurm-wlm`` and ``munge``, started in
a temporary directory and stopped afterwards.

What it takes (found when this was built; SLURM 22.05):

- one node named ``hostname -s`` at ``NodeAddr=127.0.0.1``, with the CPUs and at most the
  ``RealMemory`` that ``slurmd -C`` reports (more and the node is drained);
- no cgroups (``proctrack/linuxproc``, ``task/none``), no accounting daemon; so the Snakemake
  plugin queries job states with ``squeue``, which sees finished jobs only for ``MinJobAge``
  seconds: at least three times the plugin's first status delay;
- munge on its own socket and key (``AuthInfo=socket=…``), never the system's daemon;
- the configuration at the default path ``/etc/slurm/slurm.conf`` as well as in ``SLURM_CONF``:
  the plugin's job step strips ``SLURM_*`` variables before its inner ``srun``. A configuration
  already there that this module did not write is never touched (the cluster is then skipped).

Every wait is bounded. Needs root (``slurmd`` runs jobs as the submitting user).
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

DEFAULT_CONF = Path("/etc/slurm/slurm.conf")
MARKER = "# written by dpreplication's tests/slurm_cluster.py"
BINARIES = ("munged", "slurmctld", "slurmd", "sbatch", "squeue", "scontrol", "sinfo")
MIN_JOB_AGE = 60  # seconds a finished job stays visible to squeue (≥ 3 × the plugin's first delay)


class ClusterUnavailable(RuntimeError):
    """This machine cannot start the test cluster (the reason says why)."""


@dataclass
class Cluster:
    """A running cluster: its directory, configuration and the environment its clients need."""

    directory: Path
    conf: Path
    node: str
    cpus: int
    env: dict

    def run(self, *command: str, timeout: float = 30) -> subprocess.CompletedProcess:
        """A SLURM client command against this cluster."""
        return subprocess.run(command, env=self.env, capture_output=True, text=True, timeout=timeout, check=False)

    def log(self, daemon: str) -> str:
        """The log of ``slurmctld``, ``slurmd`` or ``munged``."""
        path = self.directory / f"{daemon}.log"
        return path.read_text(errors="replace") if path.is_file() else ""


def unavailable_reason() -> str | None:
    """Why the cluster cannot start here, or None."""
    missing = [name for name in BINARIES if shutil.which(name) is None]
    if missing:
        return f"SLURM is not installed ({', '.join(missing)} missing: apt-get install slurm-wlm munge)"
    if os.geteuid() != 0:
        return "the test cluster needs root (slurmd runs the jobs)"
    if DEFAULT_CONF.exists() and MARKER not in DEFAULT_CONF.read_text(errors="replace"):
        return f"{DEFAULT_CONF} belongs to a SLURM installation this test did not write"
    return None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _node_hardware() -> tuple[str, int, int]:
    """``(hostname -s, CPUs, RealMemory in MB)`` as ``slurmd -C`` sees this machine."""
    described = subprocess.run(["slurmd", "-C"], capture_output=True, text=True, timeout=30, check=True).stdout
    cpus = int(re.search(r"\bCPUs=(\d+)", described).group(1))
    memory = int(re.search(r"\bRealMemory=(\d+)", described).group(1))
    return socket.gethostname().split(".")[0], cpus, memory


def _configuration(directory: Path, node: str, cpus: int, memory: int, munge_socket: Path) -> str:
    return f"""{MARKER}
ClusterName=dpreplication-test
SlurmctldHost={node}(127.0.0.1)
SlurmctldPort={_free_port()}
SlurmdPort={_free_port()}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={munge_socket}
StateSaveLocation={directory}/state
SlurmdSpoolDir={directory}/spool
SlurmctldPidFile={directory}/slurmctld.pid
SlurmdPidFile={directory}/slurmd.pid
SlurmctldLogFile={directory}/slurmctld.log
SlurmdLogFile={directory}/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ReturnToService=2
MinJobAge={MIN_JOB_AGE}
NodeName={node} NodeAddr=127.0.0.1 CPUs={cpus} RealMemory={memory} State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
"""


def _wait(condition, timeout: float, what: str, logs) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.2)
    raise ClusterUnavailable(f"{what} within {timeout:g} s; logs:\n{logs()}")


class single_node_cluster:
    """Context manager: start munged, slurmctld and slurmd in ``directory``; stop them on exit."""

    def __init__(self, directory: Path, start_timeout: float = 60):
        self.directory = Path(directory)
        self.start_timeout = start_timeout
        self.daemons: list[subprocess.Popen] = []

    def __enter__(self) -> Cluster:
        reason = unavailable_reason()
        if reason:
            raise ClusterUnavailable(reason)
        directory = self.directory
        for sub in ("state", "spool", "munge"):
            (directory / sub).mkdir(parents=True, exist_ok=True)
        key = directory / "munge" / "munge.key"
        key.write_bytes(os.urandom(1024))
        key.chmod(0o400)
        munge_socket = directory / "munge" / "munge.socket"
        node, cpus, memory = _node_hardware()
        text = _configuration(directory, node, cpus, memory, munge_socket)
        conf = directory / "slurm.conf"
        conf.write_text(text)
        DEFAULT_CONF.parent.mkdir(parents=True, exist_ok=True)
        DEFAULT_CONF.write_text(text)
        env = {**os.environ, "SLURM_CONF": str(DEFAULT_CONF)}
        self.cluster = Cluster(directory, DEFAULT_CONF, node, cpus, env)
        try:
            self._start(
                "munged",
                [
                    "munged",
                    "--foreground",
                    "--force",
                    f"--key-file={key}",
                    f"--socket={munge_socket}",
                    f"--pid-file={directory}/munge/munged.pid",
                    f"--log-file={directory}/munged.log",
                    f"--seed-file={directory}/munge/munged.seed",
                ],
            )
            _wait(munge_socket.exists, self.start_timeout, "munged did not open its socket", self._logs)
            self._start("slurmctld", ["slurmctld", "-D", "-i", "-f", str(DEFAULT_CONF)])
            _wait(
                lambda: self.cluster.run("scontrol", "ping").stdout.count("UP") > 0,
                self.start_timeout,
                "slurmctld did not answer",
                self._logs,
            )
            self._start("slurmd", ["slurmd", "-D", "-f", str(DEFAULT_CONF)])
            _wait(self._node_idle, self.start_timeout, f"node {node} did not become idle", self._logs)
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self.cluster

    def _start(self, name: str, command: list[str]) -> None:
        output = open(self.directory / f"{name}.stdout", "w")
        self.daemons.append(subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT, env=self.cluster.env))

    def _node_idle(self) -> bool:
        states = self.cluster.run("sinfo", "--noheader", "--format=%T").stdout.split()
        return bool(states) and all(state.rstrip("*") == "idle" for state in states)

    def _logs(self) -> str:
        return "\n".join(
            f"--- {name}\n{(self.directory / name).read_text(errors='replace')[-3000:]}"
            for name in ("munged.log", "slurmctld.log", "slurmd.log", "slurmctld.stdout", "slurmd.stdout")
            if (self.directory / name).is_file()
        )

    def __exit__(self, *exc) -> None:
        for daemon in reversed(self.daemons):
            daemon.terminate()
        for daemon in reversed(self.daemons):
            try:
                daemon.wait(timeout=20)
            except subprocess.TimeoutExpired:
                daemon.kill()
                daemon.wait(timeout=10)
        self.daemons.clear()
        if DEFAULT_CONF.is_file() and MARKER in DEFAULT_CONF.read_text(errors="replace"):
            DEFAULT_CONF.unlink()
