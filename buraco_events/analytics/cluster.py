"""A Spark standalone cluster on this machine: a master and workers, each its own process.

What a test (or a try-out before a real cluster) needs to run `buraco spark-index --master
spark://...` against real separate processes rather than Spark's local mode: pyspark ships
`bin/spark-class`, which starts the master (`org.apache.spark.deploy.master.Master`) and each
worker (`org.apache.spark.deploy.worker.Worker`), the same commands as on a real cluster (the
README's "Scale out: Spark" section).

Everything listens on the loopback only (`--host 127.0.0.1`, and `SPARK_LOCAL_IP` for the web
UIs, the executors and the driver's own ports), on ports free when the cluster starts; the master's
REST submission server (a fixed port, 6066) is off. Each process starts in its own process group,
so that stopping it stops what it started too (a worker's executors and their Python workers):
`standalone` stops every group it started when its block ends, also on failure, and checks that
none is left.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

#: the classes `spark-class` starts
MASTER = "org.apache.spark.deploy.master.Master"
WORKER = "org.apache.spark.deploy.worker.Worker"
#: seconds a process group has to end after SIGTERM before SIGKILL
_GRACE = 15.0


class ClusterError(Exception):
    """The cluster did not start (or a process of it would not stop): what and its log's end."""


@dataclass
class Cluster:
    """A running standalone cluster: its master URL, web UI and processes (one group each)."""

    master: str
    webui: str
    folder: Path
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)

    @property
    def groups(self) -> list[int]:
        """Return the process group ids of the master and the workers."""
        return [p.pid for p in self.processes]

    def status(self) -> dict[str, object]:
        """Return the master's status (its web UI's JSON: `aliveworkers`, `cores`, ...)."""
        return _status(self.webui)

    def alive(self) -> list[int]:
        """Return the groups that still hold a process."""
        return [g for g in self.groups if group_alive(g)]


def spark_home() -> Path:
    """Return the Spark installation that pyspark ships (its `bin/spark-class`)."""
    import pyspark

    return Path(pyspark.__file__).resolve().parent


def free_port() -> int:
    """Return a TCP port free on the loopback now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def group_members(pgid: int) -> list[int]:
    """Return the processes of group `pgid` that still run (a zombie, dead and waiting to be
    reaped, does not count: in a container nobody may ever reap it). Without /proc: the group's
    id if any process of it is left, as kill(2) tells."""
    proc = Path("/proc")
    if not (proc / "self" / "stat").is_file():
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return []
        except PermissionError:  # a process of that group exists (another user's)
            return [pgid]
        return [pgid]
    members = []
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # ended meanwhile
            continue
        fields = stat[stat.rindex(")") + 2:].split()  # after the command name: state ppid pgrp
        if int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
            members.append(int(entry.name))
    return members


def group_alive(pgid: int) -> bool:
    """Return whether a process of group `pgid` still runs (`group_members`)."""
    return bool(group_members(pgid))


def stop_group(process: subprocess.Popen[bytes], grace: float = _GRACE) -> None:
    """Stop a process and its group: SIGTERM, then SIGKILL after `grace` seconds; raise
    `ClusterError` if the group is still there `grace` seconds after that."""
    pgid = process.pid  # started with start_new_session: its pid is its group's id
    for sig in (signal.SIGTERM, signal.SIGKILL):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pgid, sig)
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline:
            # poll reaps our child; its own children, once orphaned, are init's to reap
            if process.poll() is not None and not group_alive(pgid):
                return
            time.sleep(0.2)
    raise ClusterError(f"process group {pgid} did not stop")


def _status(webui: str) -> dict[str, object]:
    # no proxy: the UI is on the loopback, whatever http_proxy says
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(f"{webui}/json/", timeout=5) as response:
        value = json.loads(response.read())
    return value if isinstance(value, dict) else {}


def _tail(path: Path, lines: int = 15) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


@contextlib.contextmanager
def standalone(folder: str | os.PathLike[str], workers: int = 2, cores: int = 1,
               memory: str = "1g", env: Mapping[str, str] | None = None,
               timeout: float = 180.0) -> Iterator[Cluster]:
    """Start a master and `workers` workers (`cores` and `memory` each) on the loopback, logs
    and work folders under `folder`; yield the cluster once every worker has registered; stop
    every process when the block ends (raising `ClusterError` if one is left).

    `env` is added to the processes' environment (e.g. PYSPARK_PYTHON, for the Python the
    executors start). Raises `ClusterError` when the cluster is not up within `timeout` seconds.
    """
    root = Path(folder).resolve()
    root.mkdir(parents=True, exist_ok=True)
    home = spark_home()
    spark_class = home / "bin" / "spark-class"
    environ = {
        **os.environ, "SPARK_HOME": str(home), "SPARK_LOCAL_IP": "127.0.0.1",
        "SPARK_MASTER_OPTS": "-Dspark.master.rest.enabled=false",
        **(env or {}),
    }
    port, ui = free_port(), free_port()
    cluster = Cluster(f"spark://127.0.0.1:{port}", f"http://127.0.0.1:{ui}", root)

    def start(name: str, *args: str) -> None:
        with open(root / f"{name}.log", "wb") as log:
            cluster.processes.append(subprocess.Popen(
                [str(spark_class), *args], stdin=subprocess.DEVNULL, stdout=log,
                stderr=subprocess.STDOUT, cwd=root, env=environ, start_new_session=True))

    def wait_for(what: str, ready: str, done: object) -> None:
        deadline = time.monotonic() + timeout
        while True:
            for process, name in zip(cluster.processes, ["master", *names], strict=False):
                if process.poll() is not None:
                    raise ClusterError(f"the {name} exited ({process.returncode}) before {what}:\n"
                                       + _tail(root / f"{name}.log"))
            with contextlib.suppress(OSError, ValueError):
                if _status(cluster.webui).get(ready) == done:
                    return
            if time.monotonic() > deadline:
                raise ClusterError(f"no {what} within {timeout:g} s:\n"
                                   + _tail(root / "master.log"))
            time.sleep(0.5)

    names = [f"worker-{i}" for i in range(workers)]
    try:
        start("master", MASTER, "--host", "127.0.0.1", "--port", str(port),
              "--webui-port", str(ui))
        wait_for("the master is up", "status", "ALIVE")
        for name in names:
            work = root / name
            work.mkdir(exist_ok=True)
            start(name, WORKER, cluster.master, "--host", "127.0.0.1", "--cores", str(cores),
                  "--memory", memory, "--webui-port", str(free_port()), "--work-dir", str(work))
        wait_for(f"{workers} workers registered", "aliveworkers", workers)
        yield cluster
    finally:
        problems = []
        for process in reversed(cluster.processes):  # the workers first, the master last
            try:
                stop_group(process)
            except ClusterError as exc:
                problems.append(str(exc))
        if problems:
            raise ClusterError("; ".join(problems))
