"""A real single-node SLURM cluster on this machine, for tests/test_slurm.py and tests/test_slurm_serving.py.

Debian's ``slurm-wlm`` and ``munge`` packages (SLURM 22.05 on Debian 12), installed with
apt-get when missing. The daemons run in the foreground as children of the test (munged,
slurmctld, slurmd), with state, spool, logs and pid files in a temporary directory and traffic
on loopback only (the node's address is 127.0.0.1). The configuration must sit at
``/etc/slurm/slurm.conf``: the ``srun`` step inside a job does not see ``SLURM_CONF`` (SLURM 22.05 as
Debian packages it). A file already there that this module did not write is never touched.

There is no accounting database (``AccountingStorageType=accounting_storage/none``): the
cluster's own job list is ``squeue --states=all``, which keeps finished jobs for ``MinJobAge``
seconds (set to an hour here).
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from workflow_scripts.llm.serving.embedded import stop as stop_process

PACKAGES = ("slurm-wlm", "munge")
COMMANDS = ("munged", "mungekey", "slurmctld", "slurmd", "sbatch", "squeue", "sinfo", "scontrol")
SLURM_CONF = Path("/etc/slurm/slurm.conf")
GRES_CONF = Path("/etc/slurm/gres.conf")
MARKER = "# written by llm-dilemmas tests/slurm_cluster.py"
MUNGE_KEY = Path("/etc/munge/munge.key")
MUNGE_SOCKET_DIR = Path("/run/munge")
PARTITIONS = ("debug", "net")
"""The default partition, and one standing for 'the partition whose nodes reach the providers'."""
SBIN = ("/usr/sbin", "/sbin")


class ClusterUnavailable(RuntimeError):
    """The cluster cannot be started here; ``fixable`` says whether CI should have managed it."""

    def __init__(self, reason: str, fixable: bool):
        super().__init__(reason)
        self.fixable = fixable


def which(command: str) -> str | None:
    """Path of ``command`` on PATH or in /usr/sbin, /sbin (daemons live there)."""
    return shutil.which(command, path=os.pathsep.join([os.environ.get("PATH", ""), *SBIN]))


def missing_commands() -> list[str]:
    """The SLURM and munge commands not installed here."""
    return [c for c in COMMANDS if which(c) is None]


def install_packages() -> None:
    """``apt-get install slurm-wlm munge`` when any of their commands is missing.

    Raises:
        ClusterUnavailable: not root or no apt-get (not fixable here), or the install failed.
    """
    if not missing_commands():
        return
    if os.geteuid() != 0:
        raise ClusterUnavailable(f"SLURM is not installed and installing {PACKAGES} needs root", fixable=False)
    if shutil.which("apt-get") is None:
        raise ClusterUnavailable(f"SLURM is not installed and there is no apt-get to install {PACKAGES}", fixable=False)
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for command in (["apt-get", "update", "-qq"],
                    ["apt-get", "install", "-y", "-qq", "--no-install-recommends", *PACKAGES]):
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=900)
        if done.returncode != 0:
            raise ClusterUnavailable(f"{' '.join(command)} failed: {done.stderr[-2000:]}", fixable=True)
    if missing_commands():
        raise ClusterUnavailable(f"still missing after apt-get install: {missing_commands()}", fixable=True)


def slurm_conf(root: Path, host: str, cpus: int, memory_mb: int, gpus: int = 0,
               partitions: tuple[str, ...] = PARTITIONS) -> str:
    """slurm.conf of a one-node cluster whose state, spool and logs are under ``root``.

    The settings that work on one machine without cgroups are these:
    linuxproc process tracking, no task plugin, cons_tres with cores and memory as resources. The
    node is taken as configured (``SlurmdParameters=config_overrides``), so it may declare more CPUs
    than the machine has, and ``gpus`` GPUs that stand-in device files represent (:func:`gres_conf`):
    enough for a job that asks ``--gpus`` to be scheduled and accounted, with no GPU behind it.
    """
    gres = ["GresTypes=gpu"] if gpus else []
    return "\n".join([
        MARKER,
        "ClusterName=llmdilemmas",
        f"SlurmctldHost={host}(127.0.0.1)",
        "SlurmUser=root",
        "SlurmdUser=root",
        "AuthType=auth/munge",
        "ProctrackType=proctrack/linuxproc",
        "TaskPlugin=task/none",
        "SelectType=select/cons_tres",
        "SelectTypeParameters=CR_Core_Memory",
        "AccountingStorageType=accounting_storage/none",
        "JobAcctGatherType=jobacct_gather/none",
        "MpiDefault=none",
        "ReturnToService=2",
        "MinJobAge=3600",
        "SlurmdParameters=config_overrides",
        *gres,
        f"StateSaveLocation={root / 'state'}",
        f"SlurmdSpoolDir={root / 'spool'}",
        f"SlurmctldPidFile={root / 'slurmctld.pid'}",
        f"SlurmdPidFile={root / 'slurmd.pid'}",
        f"SlurmctldLogFile={root / 'slurmctld.log'}",
        f"SlurmdLogFile={root / 'slurmd.log'}",
        "SlurmctldDebug=info",
        "SlurmdDebug=info",
        f"NodeName={host} NodeAddr=127.0.0.1 CPUs={cpus} RealMemory={memory_mb}"
        f"{f' Gres=gpu:{gpus}' if gpus else ''} State=UNKNOWN",
        *(f"PartitionName={name} Nodes={host} Default={'YES' if i == 0 else 'NO'} MaxTime=INFINITE State=UP "
          "OverSubscribe=FORCE:2" for i, name in enumerate(partitions)),
        "",
    ])


STAND_IN_DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/urandom")
"""Character devices that stand in for GPU device files (slurmd counts a GPU per file; nothing opens them)."""


def gres_conf(host: str, gpus: int) -> str:
    """gres.conf declaring ``gpus`` (at most 4) GPUs on ``host``, each a stand-in device file, no detection."""
    return f"{MARKER}\nAutoDetect=off\nNodeName={host} Name=gpu File={','.join(STAND_IN_DEVICES[:gpus])}\n"


@dataclass
class Cluster:
    """Daemons started by :func:`start`; :meth:`stop` ends exactly these and removes the config."""

    root: Path
    processes: dict[str, subprocess.Popen] = field(default_factory=dict)
    wrote_conf: bool = False

    def log(self, daemon: str) -> str:
        """Text of a daemon's log file ('' if none yet)."""
        path = self.root / f"{daemon}.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def jobs(self) -> list[dict]:
        """Every job slurmctld knows (running or finished within MinJobAge): id, name, partition, state, comment."""
        done = subprocess.run(["squeue", "--states=all", "--noheader", "--format=%i|%j|%P|%T|%k"],
                              capture_output=True, text=True, timeout=60, check=True)
        keys = ("id", "name", "partition", "state", "comment")
        return [dict(zip(keys, line.split("|", 4))) for line in done.stdout.splitlines() if line.strip()]

    def stop(self) -> None:
        """Terminate the daemons this cluster started (slurmd, slurmctld, munged), then drop its config."""
        for name in ("slurmd", "slurmctld", "munged"):
            process = self.processes.pop(name, None)
            if process is not None:
                stop_process(process)  # terminate, then kill after 10 s
        if self.wrote_conf:
            for conf in (SLURM_CONF, GRES_CONF):
                if conf.exists() and conf.read_text().startswith(MARKER):
                    conf.unlink()
            self.wrote_conf = False


def start(root: Path, cpus: int = 2, memory_mb: int = 16000, timeout: float = 60, gpus: int = 0,
          partitions: tuple[str, ...] = PARTITIONS) -> Cluster:
    """Install the packages if needed and start munged, slurmctld and slurmd; wait until the node is idle.

    Args:
        cpus, memory_mb, gpus: what the node declares (:func:`slurm_conf`), whatever the machine has.
        partitions: their names, the first the default.

    Raises:
        ClusterUnavailable: why the cluster cannot run here (see its ``fixable``).
    """
    install_packages()
    for conf in (SLURM_CONF, GRES_CONF):
        if conf.exists() and not conf.read_text().startswith(MARKER):
            raise ClusterUnavailable(f"{conf} exists and belongs to another SLURM installation; not touching it",
                                     fixable=False)
    if _running("slurmctld") or _running("slurmd"):
        raise ClusterUnavailable("a slurmctld or slurmd is already running on this machine", fixable=False)
    host = socket.gethostname().split(".")[0]
    for sub in ("state", "spool"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    cluster = Cluster(root)
    try:
        _start_munge(cluster)
        SLURM_CONF.parent.mkdir(parents=True, exist_ok=True)
        SLURM_CONF.write_text(slurm_conf(root, host, cpus, memory_mb, gpus, partitions))
        cluster.wrote_conf = True
        if gpus:
            GRES_CONF.write_text(gres_conf(host, gpus))
        cluster.processes["slurmctld"] = _daemon(["slurmctld", "-D", "-i"], root / "slurmctld.out")
        _wait(lambda: _quiet(["scontrol", "ping"]), timeout, "slurmctld answers `scontrol ping`", cluster)
        cluster.processes["slurmd"] = _daemon(["slurmd", "-D"], root / "slurmd.out")
        _wait(lambda: _idle(host), timeout, f"node {host} is idle in sinfo", cluster)
    except BaseException:
        cluster.stop()
        raise
    return cluster


def _start_munge(cluster: Cluster) -> None:
    """Create the munge key if there is none and start munged as user munge, unless one is running."""
    if _running("munged"):
        return
    munge = pwd.getpwnam("munge")
    if not MUNGE_KEY.exists():
        subprocess.run([which("mungekey"), "--create", "--keyfile", str(MUNGE_KEY)], check=True, timeout=60)
    os.chown(MUNGE_KEY, munge.pw_uid, munge.pw_gid)
    MUNGE_KEY.chmod(0o400)
    for directory in (MUNGE_SOCKET_DIR, Path("/var/lib/munge"), Path("/var/log/munge")):
        directory.mkdir(parents=True, exist_ok=True)
        os.chown(directory, munge.pw_uid, munge.pw_gid)
    cluster.processes["munged"] = _daemon(["munged", "--foreground"], cluster.root / "munged.out",
                                          user=munge.pw_uid, group=munge.pw_gid)
    _wait(lambda: _quiet(["munge", "-n"]), 30, "munged answers `munge -n`", cluster)


def _daemon(command: list[str], output: Path, **kwargs) -> subprocess.Popen:
    with open(output, "ab") as sink:
        return subprocess.Popen([which(command[0]), *command[1:]], stdout=sink, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, **kwargs)


def _running(name: str) -> bool:
    return subprocess.run(["pgrep", "-x", name], capture_output=True).returncode == 0


def _quiet(command: list[str]) -> bool:
    return subprocess.run([which(command[0]), *command[1:]], capture_output=True, timeout=30).returncode == 0


def _idle(host: str) -> bool:
    done = subprocess.run(["sinfo", "--noheader", "--nodes", host, "--format=%T"], capture_output=True,
                          text=True, timeout=30)
    return done.returncode == 0 and done.stdout.strip() == "idle"


def _wait(ready, timeout: float, what: str, cluster: Cluster) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for name, process in cluster.processes.items():
            if process.poll() is not None:
                raise ClusterUnavailable(f"{name} exited with {process.returncode} while waiting until {what}:\n"
                                         f"{_tail(cluster.root, name)}", fixable=True)
        if ready():
            return
        time.sleep(0.5)
    raise ClusterUnavailable(f"timed out after {timeout} s waiting until {what}", fixable=True)


def _tail(root: Path, name: str) -> str:
    texts = [p.read_text(errors="replace")[-3000:] for p in (root / f"{name}.log", root / f"{name}.out") if p.exists()]
    return "\n".join(texts)
