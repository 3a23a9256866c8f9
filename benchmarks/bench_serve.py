"""Live tables under load: K 4-seat tables of scripted WebSocket clients against `buraco serve`.

Usage: python benchmarks/bench_serve.py [--tables K] [--pace SECONDS] [--seconds S]
       [--clients P] [--out benchmarks/results/serve.json]

The real server (`buraco serve` on uvicorn, one process, 127.0.0.1, a free port, bots without
delay, its folder a temporary one) and P client processes (asyncio, the `websockets` client),
each holding its share of the tables: four sockets per table, one per seat, every seat a scripted
player that picks the greedy bot's move from its own view (`serve.remote.greedy_choice`). A table
acts once per `--pace` seconds (2: people; 0: flat out); a game that ends is replaced by a new
table. Measured:

- tables held: tables whose four sockets stayed open to the end (none dropped, no error);
- actions/s: actions acknowledged (their view reached all four seats) per second of the run;
- p50/p99 latency: from a client's send of an action to the last of the four seats getting the
  view of its event (one clock: the clients of a table are in one process);
- memory per idle table: the server's RSS grown by K tables made and dealt, nobody connected,
  divided by K;
- the server's CPU time per action (its user+system time over the run).

The clients run on the same machine as the server: on 2 cores their own work (decoding four views
per action, and the greedy bot's choice) takes a large share of the CPU, so `--policy first` (the
first action offered: a meld or lay-off when there is one, else the first draw or discard) shows
more of what the server alone can hold.

`measure(quick)` (benchmarks/run.py) runs a short flat-out load and a small paced one.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import multiprocessing
import os
import random
import resource
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

#: the goals set for a live server (the rows' baselines)
GOAL_FLAT = 1500.0  # actions/s with all four views pushed
GOAL_P99_MS = 100.0  # at human pace
GOAL_IDLE_KB = 200.0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _raise_fd_limit() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


class Server:
    """`buraco serve` in its own process group."""

    def __init__(self, folder: Path) -> None:
        self.port = _free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "cli.main", "serve", "--port", str(self.port), "--dir", str(folder),
             "--bot-delay", "0", "--create-rate", "0", "--max-tables", "100000", "--message-rate", "100000"],
            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
        deadline = time.monotonic() + 30
        while True:
            try:
                _request(self.base, "/api/variants")
                return
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError("the server did not start") from None
                time.sleep(0.05)

    def rss_kb(self) -> int:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        raise RuntimeError("no VmRSS")

    def cpu_s(self) -> float:
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)


def _request(base: str, path: str, body: Any = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data=data, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as answer:
        return json.loads(answer.read())


def new_table(base: str) -> dict[str, Any]:
    """Make a 4-seat table of people, one hand."""
    return _request(base, "/api/tables", {"variant": "stbl", "players": 4, "target": 0})


# -- the clients (each in its own process) ---------------------------------------------------------


class Stats:
    def __init__(self) -> None:
        self.actions = 0
        self.latencies: list[float] = []
        self.errors = 0
        self.dropped = 0
        self.games = 0
        self.held = 0


class TableRun:
    """One table's four scripted seats: readers stamp each message as it comes; the actor plays."""

    def __init__(self, made: dict[str, Any], stats: Stats, pace: float, stop_at: float, measure_from: float,
                 policy: str = "greedy") -> None:
        self.made = made
        self.policy = policy
        self.stats = stats
        self.pace = pace
        self.stop_at = stop_at
        self.measure_from = measure_from
        self.ready: tuple[int, dict[str, Any]] | None = None
        self.wake = asyncio.Event()
        self.ended = False
        self.failed = False
        self.pending: tuple[int, float, dict[int, float]] | None = None
        self.rules: Any = None

    async def run(self, ws_base: str) -> None:
        from websockets.asyncio.client import connect

        from buraco_events.bots.greedy import GreedyBot
        from buraco_events.serve.remote import greedy_choice, rules_of

        table_id = self.made["table_id"]
        sockets = {}
        try:
            for seat in self.made["seats"]:
                sockets[seat["seat"]] = await connect(f"{ws_base}/ws/{table_id}?token={seat['token']}",
                                                      max_size=2**22, compression=None, open_timeout=60)
            readers = [asyncio.create_task(self.reader(seat, ws)) for seat, ws in sockets.items()]
            bot = GreedyBot()
            last = time.perf_counter() - random.random() * self.pace
            while not self.ended and not self.failed and time.perf_counter() < self.stop_at:
                await self.wake.wait()
                self.wake.clear()
                if self.ended or self.failed or self.ready is None:
                    continue
                seat, view = self.ready
                self.ready = None
                if self.pace:
                    await asyncio.sleep(max(0.0, last + self.pace - time.perf_counter()))
                last = time.perf_counter()
                action = greedy_choice(self.rules or rules_of(self.hello), view, bot) if self.policy == "greedy" else 0
                self.pending = (view["seq"] + 1, time.perf_counter(), {})
                await sockets[seat].send(json.dumps({"type": "act", "seq": view["seq"], "action": action}))
            if not self.failed:
                self.stats.held += not self.ended
                self.stats.games += self.ended
            for task in readers:
                task.cancel()
        except (TimeoutError, OSError) as exc:
            self.stats.dropped += 1
            self.failed = True
            print(f"table {table_id}: {type(exc).__name__}: {exc}", file=sys.stderr)
        finally:
            for ws in sockets.values():
                await ws.close()

    async def reader(self, seat: int, ws: Any) -> None:
        import msgspec
        from websockets.exceptions import ConnectionClosed

        from buraco_events.serve.remote import rules_of

        decode = msgspec.json.decode
        try:
            async for raw in ws:
                now = time.perf_counter()
                message = decode(raw)
                kind = message["type"]
                if kind == "view":
                    pending = self.pending
                    if pending is not None and message["seq"] >= pending[0]:
                        pending[2][seat] = now
                        if len(pending[2]) == 4:
                            self.pending = None
                            if pending[1] >= self.measure_from:
                                self.stats.actions += 1
                                self.stats.latencies.append(max(pending[2].values()) - pending[1])
                    if message["actions"] and message["seq"] >= 0:
                        self.ready = (seat, message)
                        self.wake.set()
                elif kind == "hello":
                    self.hello = message
                    self.rules = rules_of(message)
                elif kind == "ended":
                    self.ended = True
                    self.wake.set()
                elif kind == "error":
                    self.stats.errors += 1
                    self.failed = True
                    print(f"error: {message['message']}", file=sys.stderr)
                    self.wake.set()
        except ConnectionClosed:
            if not self.ended and time.perf_counter() < self.stop_at:
                self.stats.dropped += 1
                self.failed = True
                self.wake.set()


async def _clients(base: str, tables: list[dict[str, Any]], pace: float, seconds: float, warmup: float,
                   policy: str) -> Stats:
    stats = Stats()
    ws_base = base.replace("http://", "ws://")
    start = time.perf_counter()
    stop_at = start + warmup + seconds
    measure_from = start + warmup
    loop = asyncio.get_running_loop()

    async def keep(made: dict[str, Any]) -> None:
        while time.perf_counter() < stop_at:
            run = TableRun(made, stats, pace, stop_at, measure_from, policy)
            await run.run(ws_base)
            if run.failed or not run.ended:
                return
            made = await loop.run_in_executor(None, new_table, base)  # the game ended: a new table

    await asyncio.gather(*(keep(made) for made in tables))
    return stats


def _client_process(base: str, tables: list[dict[str, Any]], pace: float, seconds: float, warmup: float,
                    policy: str, out: Any) -> None:
    _raise_fd_limit()
    # the clients stand for people's browsers, each on a machine of its own: their collector's
    # pauses (a full pass over a client process's thousands of sockets takes 0.1-0.2 s) would be
    # counted as the server's latency; their garbage is acyclic, freed by reference counts
    gc.disable()
    stats = asyncio.run(_clients(base, tables, pace, seconds, warmup, policy))
    out.send(vars(stats))


def run_load(tables: int, pace: float, seconds: float, clients: int = 1, warmup: float | None = None,
             policy: str = "greedy") -> dict[str, Any]:
    """Run one load; return its figures."""
    _raise_fd_limit()
    warmup = (pace * 1.5 + 1.0) if warmup is None else warmup
    with tempfile.TemporaryDirectory() as tmp:
        server = Server(Path(tmp) / "tables")
        try:
            new_table(server.base)  # everything imported and warm
            time.sleep(0.5)
            before = server.rss_kb()
            made = [new_table(server.base) for _ in range(tables)]
            time.sleep(1.0)
            idle_kb = (server.rss_kb() - before) / tables
            cpu0 = server.cpu_s()
            pipes, procs = [], []
            ctx = multiprocessing.get_context("spawn")
            for i in range(clients):
                receive, send = ctx.Pipe(duplex=False)
                proc = ctx.Process(target=_client_process,
                                   args=(server.base, made[i::clients], pace, seconds, warmup, policy, send))
                proc.start()
                pipes.append(receive)
                procs.append(proc)
            parts = [pipe.recv() for pipe in pipes]
            for proc in procs:
                proc.join()
            cpu = server.cpu_s() - cpu0
            rss_kb = server.rss_kb()
        finally:
            server.stop()
    latencies = sorted(x for p in parts for x in p["latencies"])
    actions = sum(p["actions"] for p in parts)

    def quantile(q: float) -> float:
        return 1000 * latencies[min(len(latencies) - 1, int(q * len(latencies)))] if latencies else float("nan")

    return {
        "tables": tables, "pace_s": pace, "seconds": seconds, "clients": clients, "policy": policy,
        "tables_held": sum(p["held"] for p in parts), "games_ended": sum(p["games"] for p in parts),
        "actions": actions, "actions_per_s": actions / seconds,
        "p50_ms": quantile(0.50), "p99_ms": quantile(0.99),
        "mean_ms": 1000 * statistics.fmean(latencies) if latencies else float("nan"),
        "errors": sum(p["errors"] for p in parts), "dropped": sum(p["dropped"] for p in parts),
        "idle_kb_per_table": idle_kb, "server_rss_mb_end": rss_kb / 1024,
        "server_cpu_s": cpu, "server_cpu_ms_per_action": 1000 * cpu / actions if actions else None,
    }


def measure(quick: bool) -> list[dict[str, Any]]:
    """The figures for benchmarks/run.py: flat out, and people's pace (small sizes when quick)."""
    flat = run_load(8 if quick else 50, 0.0, 4 if quick else 20)
    paced = run_load(40 if quick else 1000, 2.0, 6 if quick else 30)
    return [
        {"name": f"serve flat out, {flat['tables']} 4-seat tables", "value": flat["actions_per_s"],
         "unit": "actions/s (wall, all 4 views pushed)", "baseline": "the goal", "baseline_value": GOAL_FLAT},
        {"name": f"serve at 1 action/2 s, {paced['tables']} tables: p99 send to 4 views", "value": paced["p99_ms"],
         "unit": "ms (wall)", "baseline": "the goal", "baseline_value": GOAL_P99_MS},
        {"name": "serve memory per idle table", "value": paced["idle_kb_per_table"], "unit": "KB (RSS)",
         "baseline": "the goal", "baseline_value": GOAL_IDLE_KB},
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=100, help="concurrent 4-seat tables")
    parser.add_argument("--pace", type=float, default=2.0, help="seconds between two actions of a table (0: flat out)")
    parser.add_argument("--seconds", type=float, default=30.0, help="how long to measure")
    parser.add_argument("--clients", type=int, default=1, help="client processes")
    parser.add_argument("--policy", choices=("greedy", "first"), default="greedy",
                        help="how the scripted seats choose: the greedy bot from their view, or the first action "
                        "offered (a play when there is one: cheap, so the clients load the machine less)")
    parser.add_argument("--out", type=Path, default=None, help="append the figures to this JSON file")
    args = parser.parse_args()
    figures = run_load(args.tables, args.pace, args.seconds, args.clients, policy=args.policy)
    figures["machine"] = f"{os.cpu_count()} cores"
    figures["when"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    print(json.dumps(figures, indent=2))
    if args.out is not None:
        runs = json.loads(args.out.read_text()) if args.out.exists() else []
        runs.append(figures)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(runs, indent=2) + "\n")


if __name__ == "__main__":
    main()
