"""`croupier floor-sim --processes K`: the floor's tables played in K processes of their own, the parent writing the one pit configuration and merging their counts.

One process here may hold 20,000 file descriptors, and a simulated table holds about eight: its PUB,
snapshot ROUTER and command ROUTER (a ZeroMQ mailbox and a listening socket each) and the pit's
connections to them. So 5,000 tables are played by several processes, each a `FloorSim` of its share
(tables `first` to `first + n - 1`, named and seeded as one process would name and seed them), started
with multiprocessing's "spawn" context. The parent speaks to each over a pipe:

    child -> parent   {"kind": "bound", "tables": [[name, public, snapshot, commands], ...], "notes": endpoint}
                      {"kind": "error", "error": "..."}                       (instead, when a bind failed)
    parent -> child   ["play", seconds, restarts]  ->  {"kind": "played", "last": {table: hands}, "restarted": [...]}
                      ["count"]                    ->  {"kind": "count", "hands": H, "messages": M}
                      ["stop"]

Between orders a child keeps its tables served (`FloorSim.linger`: heartbeats, snapshots, `history`).
With `--watch` each child notes its updates on a `NotesPub` of its own, which the watcher's SUB joins
(`sim.watch_process`); the child says hello on it until its first play. A child ends at `stop`, or
when the parent is gone (Linux's parent-death signal, and its parent's pid looked at between orders).
"""

from __future__ import annotations

import ctypes
import logging
import multiprocessing
import os
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import zmq

from protocol.feed import FeedError
from protocol.many_sockets import many_sockets_context
from sim.floor.tables import Endpoints, FloorSim
from sim.watch_process import NotesPub

log = logging.getLogger("croupier.floor-sim")

BIND_S = 300.0
"""How long the parent waits for a child to play its pools and bind its tables."""


class ShareLost(RuntimeError):
    """A child process of the floor ended, or did not answer in time."""


@dataclass
class TableSeat:
    """What the parent knows of a child's table: its name and where it is reached (the pit configuration's)."""

    name: str
    endpoints: Endpoints


@dataclass(frozen=True)
class Settings:
    """What every child plays by (`croupier floor-sim`'s arguments)."""

    speed: float
    seed: int = 1
    pool: int = 16
    heartbeat_s: float = 1.0
    ipc: str | None = None
    watch: bool = False
    log_level: str = "WARNING"


def shares(tables: int, processes: int) -> list[tuple[int, int]]:
    """(first, count) of each process's tables: as even as can be, in order.

    >>> shares(10, 3)
    [(0, 4), (4, 3), (7, 3)]
    """
    base, extra = divmod(tables, processes)
    out, first = [], 0
    for k in range(processes):
        count = base + (1 if k < extra else 0)
        out.append((first, count))
        first += count
    return out


class SplitFloor:
    """The parent's side, standing where a `FloorSim` does for `croupier floor-sim`: `tables`, `restarts`,
    `restarted`, `linger`, `run`, `hands`, `messages`, `last_hands`, `close`; `notes` the children's
    notes endpoints for the watcher."""

    def __init__(self, tables: int, processes: int, settings: Settings) -> None:
        """Start the children and wait until each has bound its tables. Raises FeedError (a child could
        not bind) or ShareLost (a child ended or did not answer)."""
        spawn = multiprocessing.get_context("spawn")
        self.restarts: list[tuple[float, str]] = []
        self.restarted: list[str] = []
        self._children: list[tuple[multiprocessing.process.BaseProcess, Connection]] = []
        self._last: dict[str, int] = {}
        self.tables: list[TableSeat] = []
        self.notes: tuple[str, ...] = ()
        for k, (first, count) in enumerate(shares(tables, processes)):
            ours, theirs = spawn.Pipe()
            child: multiprocessing.process.BaseProcess = spawn.Process(
                target=share_main, args=(k, first, count, settings, theirs), name=f"floor-share-{k + 1}", daemon=True)
            child.start()
            theirs.close()
            self._children.append((child, ours))
        try:
            for k, (child, conn) in enumerate(self._children):
                bound = self._answer(k, BIND_S)
                if bound.get("kind") == "error":
                    raise FeedError(str(bound.get("error")))
                self.tables += [TableSeat(str(n), Endpoints(str(p), str(s), str(c))) for n, p, s, c in bound["tables"]]
                if bound.get("notes"):
                    self.notes += (str(bound["notes"]),)
        except (FeedError, ShareLost):
            self.close()
            raise

    def _answer(self, k: int, timeout_s: float) -> dict[str, Any]:
        child, conn = self._children[k]
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if conn.poll(0.1):
                try:
                    answer: dict[str, Any] = conn.recv()
                except (EOFError, OSError):
                    break
                return answer
            if not child.is_alive():
                break
        raise ShareLost(f"floor-sim's process {k + 1} ended or did not answer (exit {child.exitcode})")

    def _ask(self, order: list[Any], timeout_s: float) -> list[dict[str, Any]]:
        for k, (_, conn) in enumerate(self._children):
            try:
                conn.send(order)
            except (BrokenPipeError, OSError):
                raise ShareLost(f"floor-sim's process {k + 1} is gone") from None
        return [self._answer(k, timeout_s) for k in range(len(self._children))]

    def linger(self, until: Callable[[], bool], timeout_s: float, every_s: float = 0.25) -> bool:
        """Wait (the children serve their tables meanwhile) until `until()` or the timeout. Raises ShareLost."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if until():
                return True
            for k, (child, _) in enumerate(self._children):
                if not child.is_alive():
                    raise ShareLost(f"floor-sim's process {k + 1} ended (exit {child.exitcode})")
            time.sleep(every_s)
        return until()

    def run(self, duration_s: float) -> None:
        """Every child plays `duration_s` seconds (restarts included). Raises ShareLost."""
        for played in self._ask(["play", duration_s, self.restarts], duration_s + 120.0):
            self._last.update(played["last"])
            self.restarted += played["restarted"]

    def last_hands(self) -> dict[str, int]:
        return {t.name: self._last.get(t.name, 0) for t in self.tables}

    def _count(self, key: str) -> int:
        return sum(int(c[key]) for c in self._ask(["count"], 60.0))

    def hands(self) -> int:
        return self._count("hands")

    def messages(self) -> int:
        return self._count("messages")

    def close(self) -> None:
        for child, conn in self._children:
            try:
                conn.send(["stop"])
            except (BrokenPipeError, OSError):
                pass
        for child, conn in self._children:
            child.join(10)
            if child.is_alive():
                child.terminate()
                child.join(5)
            conn.close()


def _endpoints(ipc: str | None) -> Callable[[int], Endpoints]:
    def make(i: int) -> Endpoints:
        if ipc is not None:  # the names one process would give them (`cli/floor_sim.py`)
            root = Path(ipc).resolve()
            return Endpoints(f"ipc://{root}/t{i}-pub", f"ipc://{root}/t{i}-snap", f"ipc://{root}/t{i}-cmd")
        # a port the kernel picks at the bind: no race with the other children picking theirs
        return Endpoints("tcp://127.0.0.1:*", "tcp://127.0.0.1:*", "tcp://127.0.0.1:*")
    return make


def _die_with_parent() -> None:
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGTERM))  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux: the parent's pid is looked at between orders
        pass


def share_main(k: int, first: int, count: int, settings: Settings, conn: Connection) -> None:
    """A child: its share of the tables bound, then served and played as the parent orders."""
    _die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a ^C at the terminal: the parent stops its children
    logging.basicConfig(level=settings.log_level, format=f"%(asctime)s %(name)s[{k + 1}] %(levelname)s %(message)s")
    ctx = many_sockets_context(60000)
    try:
        try:
            sim = FloorSim(ctx, count, settings.speed, _endpoints(settings.ipc), seed=settings.seed,
                           pool=settings.pool, heartbeat_s=settings.heartbeat_s, first=first)
        except (FeedError, zmq.ZMQError) as exc:
            conn.send({"kind": "error", "error": str(exc)})
            return
        notes = NotesPub(ctx, f"share-{k + 1}") if settings.watch else None
        try:
            _serve(sim, notes, conn)
        finally:
            sim.close()
            if notes is not None:
                notes.close()
    except (BrokenPipeError, EOFError):
        return
    finally:
        ctx.destroy(linger=0)
        conn.close()


def _serve(sim: FloorSim, notes: NotesPub | None, conn: Connection) -> None:
    if notes is not None:
        for table in sim.tables:
            table.on_publish = notes.published
        sim.on_batch = notes.flush
    conn.send({"kind": "bound", "tables": [[t.name, t.endpoints.public, t.endpoints.snapshot, t.endpoints.commands]
                                            for t in sim.tables], "notes": notes.endpoint if notes else None})
    parent, played = os.getppid(), False

    def order_waiting() -> bool:
        if notes is not None and not played:
            notes.hello()  # until the first play: the watcher counts a hello from every process
        return conn.poll(0) or os.getppid() != parent

    while True:
        sim.linger(order_waiting, 86400.0, every_s=0.05)
        if os.getppid() != parent:
            return
        if not conn.poll(0):
            continue
        order = conn.recv()
        if order[0] == "play":
            mine = {t.name for t in sim.tables}
            sim.restarts = [(at, name) for at, name in order[2] if name in mine]
            played = True
            if notes is not None:
                notes.counting = True
            sim.run(float(order[1]))
            if notes is not None:
                notes.counting = False
                notes.flush()
            conn.send({"kind": "played", "last": sim.last_hands(), "restarted": sim.restarted})
        elif order[0] == "count":
            conn.send({"kind": "count", "hands": sim.hands(), "messages": sim.messages()})
        else:
            return
