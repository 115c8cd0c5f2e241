"""The pit's catch-up and archive in a process of their own, so that their work never holds the poller thread's interpreter lock.

In one process the catch-up worker's `history` pages and the archive's writes take the GIL from the
poller thread: each time the poller lets go of it (every send, every poll) it can wait a whole switch
interval (5 ms) to get it back, and the floor feed's latency tail is made of those waits. So with an
archive (`[pit] db`), and without one (its `CountingSink`), `croupier pit` runs `CatchUp` in a child,
`python -m floor.archiver`, and speaks to it over one PAIR socket on ipc, polled by
the poller with the tables' sockets:

    pit -> child   {"tables": [[name, public, snapshot, commands, server_key], ...]}   (at start and reload)
                   {"want": name}                                                       (a hand closed)
                   {"stop": true}
    child -> pit   {"ready": true} | {"error": "..."}                                  (once, at start)
                   {"archived": {table: last hand archived, ...}, "failures": N}       (what changed, every REPORT_S)

The child ends when asked, when its parent is gone (Linux's parent-death signal, and its parent's pid
checked every turn), and a child that died is started again by `check()` with every table caught up.
"""

from __future__ import annotations

import ctypes
import json
import logging
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from typing import Any

import msgpack
import zmq

from floor.catchup import CatchUp, CatchUpError, CountingSink, archive_sink
from floor.config import PitConfig, PitTable
from floor.curve import FloorZap
from floor.rating_feed import RatingFeed
from protocol.keys import load_secret

log = logging.getLogger("croupier.pit")

PURGE_S = 3600.0
"""How often the child deletes the archive's player data past `[pit] player_days` (and once at its start)."""

REPORT_S = 0.05
"""How often the child says which tables' archived hands moved on (the floor snapshot's `archived`)."""
STEPS_S = 1.0
"""How often the archiver looks for adjustments made in the archive to a past day's session (the feed's `updated`)."""

START_S = 30.0
"""How long the pit waits for its child to say it is ready."""

_pack = msgpack.Packer(use_bin_type=True).pack


def _unpack(frame: bytes) -> dict[str, Any]:
    value = msgpack.unpackb(frame, raw=False)
    if not isinstance(value, dict):
        raise ValueError("not a map")
    return value


class ArchiverProcess:
    """The pit's side: what `Pit` asks of `CatchUp` (`set_tables`, `want`, `archived`, `start`, `stop`),
    with the work done in the child. Its `socket` is the poller thread's: `take()` when it is readable."""

    def __init__(self, ctx: zmq.Context[Any], cfg: PitConfig, timeout_s: float, log_level: str = "WARNING") -> None:
        """Start the child and wait until its archive is open. Raises CatchUpError (the child's own, or no answer)."""
        self.archived: dict[str, int] = {}
        self.failures = 0
        self.restarts = 0
        self._dir = tempfile.mkdtemp(prefix="croupier-pit-")
        self.endpoint = f"ipc://{self._dir}/archiver"
        self.timeout_s = timeout_s
        self._args: dict[str, Any] = {"endpoint": self.endpoint, "dsn": cfg.db, "pit": cfg.name, "key": cfg.key,
                      "timeout_s": timeout_s, "parent": os.getpid(), "log_level": log_level,
                      "player_days": cfg.player_days, "ratings": cfg.ratings, "clients": cfg.clients,
                      "roles": list(cfg.roles)}
        self._tables: dict[str, PitTable] = {}
        self._stopping = False
        self.socket: zmq.Socket[Any] = ctx.socket(zmq.PAIR)
        for option in (zmq.LINGER, zmq.SNDHWM, zmq.RCVHWM):
            self.socket.setsockopt(option, 0)  # unbounded: `want` never blocks the poller, whatever the child does
        self.socket.bind(self.endpoint)
        self._proc: subprocess.Popen[bytes] | None = None
        try:
            self._spawn()
        except CatchUpError:
            self.close()
            raise

    def _spawn(self) -> None:
        self._proc = subprocess.Popen([sys.executable, "-m", "floor.archiver", json.dumps(self._args)],
                                      stdin=subprocess.DEVNULL)
        if not self.socket.poll(int(START_S * 1000)):
            self._end_child()
            raise CatchUpError(f"the archiver process did not start within {START_S:.0f} s")
        reply = _unpack(self.socket.recv())
        if "error" in reply:
            self._end_child()
            raise CatchUpError(str(reply["error"]))
        if self._tables:
            self._send({"tables": [_row(t) for t in self._tables.values()]})

    def start(self) -> None:
        """Nothing to do: the child runs from the constructor (the same call as `CatchUp.start`)."""

    def set_tables(self, tables: dict[str, PitTable]) -> None:
        self._tables = dict(tables)
        for name in list(self.archived):
            if name not in tables:
                del self.archived[name]
        self._send({"tables": [_row(t) for t in self._tables.values()]})

    def want(self, name: str) -> None:
        self._send({"want": name})

    def _send(self, message: dict[str, Any]) -> None:
        try:
            self.socket.send(_pack(message), zmq.NOBLOCK)
        except zmq.Again:  # the child is gone (no peer): `check` starts it again with every table wanted
            log.warning("the archiver process is not there: %s waits for it", next(iter(message)))

    def take(self) -> None:
        """Read what the child said (the poller saw the socket readable)."""
        while True:
            try:
                frame = self.socket.recv(zmq.NOBLOCK)
            except zmq.Again:
                return
            try:
                report = _unpack(frame)
            except ValueError:
                continue
            archived = report.get("archived")
            if isinstance(archived, dict):
                self.archived.update((str(k), int(v)) for k, v in archived.items() if k in self._tables)
            self.failures = int(report.get("failures") or self.failures)

    def check(self) -> bool:
        """Start the child again if it died (every table caught up then). Returns whether it was running."""
        if self._stopping or self._proc is None or self._proc.poll() is None:
            return True
        log.error("the archiver process ended (exit %s): started again", self._proc.returncode)
        self.restarts += 1
        try:
            self._spawn()
        except CatchUpError as exc:
            log.error("the archiver process cannot start again: %s (tried again later)", exc)
            return False
        for name in self._tables:
            self.want(name)
        return False

    def stop(self) -> bool:
        """Ask the child to end and wait for it (a request in flight: its timeout). Returns whether it ended."""
        self._stopping = True
        self._send({"stop": True})
        ended = True
        if self._proc is not None:
            try:
                self._proc.wait(self.timeout_s * 2 + 5)
            except subprocess.TimeoutExpired:
                ended = False
        self._end_child()
        self.close()
        return ended

    def _end_child(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait(10)

    def close(self) -> None:
        self.socket.close(0)
        shutil.rmtree(self._dir, ignore_errors=True)


def _row(table: PitTable) -> list[Any]:
    return [table.name, table.public, table.snapshot, table.commands, table.server_key]


def _die_with_parent() -> None:
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGTERM))  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux: the parent's pid is checked every turn
        pass


def serve(args: dict[str, Any]) -> int:
    """The child: `CatchUp` over the archive, told what to do on the PAIR socket."""
    _die_with_parent()
    stopping = False

    def on_term(signum: int, frame: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a ^C at the pit's terminal: the pit stops its child itself
    ctx: zmq.Context[Any] = zmq.Context()
    pair: zmq.Socket[Any] = ctx.socket(zmq.PAIR)
    for option in (zmq.LINGER, zmq.SNDHWM, zmq.RCVHWM):
        pair.setsockopt(option, 0)
    pair.connect(str(args["endpoint"]))
    try:
        sink = archive_sink(str(args["dsn"]), args.get("pit")) if args.get("dsn") else CountingSink()
    except CatchUpError as exc:
        pair.send(_pack({"error": str(exc)}))
        pair.close()
        ctx.term()
        return 1
    key: str | None = args.get("key")
    worker = CatchUp(ctx, sink, lambda t: (key, t.server_key) if t.server_key is not None else (None, None),
                     timeout_s=float(args["timeout_s"]))
    try:
        feed, zap = open_rating_feed(ctx, args)
    except (zmq.ZMQError, ValueError, OSError) as exc:
        pair.send(_pack({"error": f"[pit] ratings: {exc}"}))
        pair.close()
        ctx.term()
        return 1
    if feed is not None:
        worker.on_rated = feed.sessions
    poller = zmq.Poller()
    poller.register(pair, zmq.POLLIN)
    if zap is not None:
        poller.register(zap.socket, zmq.POLLIN)
    pair.send(_pack({"ready": True}))
    worker.start()
    sent: dict[str, int] = {}
    failures, steps_due = 0, time.monotonic()
    parent = int(args["parent"])
    retention = _Retention(str(args["dsn"]), args.get("pit"), int(args.get("player_days") or 0)) \
        if args.get("dsn") else None
    while not stopping and os.getppid() == parent:
        if retention is not None:
            retention.turn()
        ready = dict(poller.poll(int(REPORT_S * 1000)))
        if zap is not None:
            zap.turn()
            if zap.socket in ready:
                zap.serve()
        if pair in ready:
            stopping = _orders(pair, worker)
        if feed is not None and time.monotonic() >= steps_due:  # a past day's session adjusted in the archive
            steps_due = time.monotonic() + STEPS_S
            try:
                feed.archive_steps()
            except Exception as exc:  # ArchiveError (the archive down): looked for again at the next turn due
                log.warning("the rating steps made in the archive cannot be read: %s", exc)
        archived = dict(worker.archived)  # written by the worker thread: a copy, taken at once
        changed = {name: hand for name, hand in archived.items() if sent.get(name) != hand}
        if changed or worker.failures != failures:
            pair.send(_pack({"archived": changed, "failures": worker.failures}))
            sent.update(changed)
            failures = worker.failures
    ended = worker.stop()
    if retention is not None:
        retention.close()
    for held in (feed, zap):
        if held is not None:
            held.close()
    if feed is not None and feed.memory is not None:
        feed.memory.close()
    pair.close(0)
    if ended:
        ctx.term()
    return 0


def open_rating_feed(ctx: zmq.Context[Any], args: dict[str, Any]) -> tuple[RatingFeed | None, FloorZap | None]:
    """The rating events' PUB at `[pit] ratings` (none when not set), a CURVE server with its ZAP handler
    when the pit has its key and clients and the endpoint is TCP. Raises zmq.ZMQError, ValueError (a key file)."""
    endpoint, key, clients = str(args.get("ratings") or ""), args.get("key"), args.get("clients")
    if not endpoint or not args.get("dsn"):
        return None, None
    from floor.rating_memory import FeedMemory  # the `floor` extra: there, as the sink opened it
    memory = FeedMemory(str(args["dsn"]), args.get("pit"))  # what was sent, kept over a restart
    if key is None or clients is None or not endpoint.startswith("tcp://"):
        return RatingFeed(ctx, endpoint, None, memory), None
    zap = FloorZap(ctx, str(clients), tuple(args.get("roles") or ()))  # bound first: no CURVE socket without it
    try:
        feed = RatingFeed(ctx, endpoint, load_secret(str(key)), memory)
    except Exception:
        zap.close()
        raise
    zap.pub_sockets = ("ratings",)

    def cut(domain: str) -> None:  # a revoked client's connection cut at once (floor/rating_feed.py)
        try:
            feed.reopen(domain)
        except zmq.ZMQError as exc:  # the port taken meanwhile: the feed's next sends fail, each logged
            log.error("the rating events' socket %s could not be bound again: %s", endpoint, exc)

    zap.on_cut = cut
    return feed, zap


class _Retention:
    """The purge of the archive's player data past `[pit] player_days` (none when 0), at the child's start and
    every `PURGE_S`, on a connection of its own (the worker thread has the sink's)."""

    def __init__(self, dsn: str, pit: str | None, days: int) -> None:
        self.days = days
        self.due = time.monotonic()
        self.archive: Any = None
        if days > 0:
            from floor.archive import Archive  # the `floor` extra: there, as the sink opened it
            self.archive = Archive(dsn, pit=pit)

    def turn(self) -> None:
        if self.archive is None or time.monotonic() < self.due:
            return
        self.due = time.monotonic() + PURGE_S
        try:
            gone = self.archive.purge_players(self.days)
        except Exception as exc:  # the archive down (ArchiveError): tried again at the next turn due
            log.warning("the purge of player data past %d days: %s", self.days, exc)
            return
        if gone:
            log.info("the player data past %d days purged: %d rows", self.days, gone)

    def close(self) -> None:
        if self.archive is not None:
            self.archive.close()


def _orders(pair: zmq.Socket[Any], worker: CatchUp) -> bool:
    """Carry out what the pit sent. Returns whether it asked to stop."""
    while True:
        try:
            order = _unpack(pair.recv(zmq.NOBLOCK))
        except zmq.Again:
            return False
        except ValueError:
            continue
        if "want" in order:
            worker.want(str(order["want"]))
        elif "tables" in order:
            worker.set_tables({str(row[0]): PitTable(str(row[0]), str(row[1]), str(row[2]), str(row[3]), row[4])
                               for row in order["tables"]})
        elif order.get("stop"):
            return True


def main() -> int:
    args = json.loads(sys.argv[1])
    logging.basicConfig(level=str(args.get("log_level") or "WARNING"), stream=sys.stderr,
                        format="%(asctime)s pit-archive %(levelname)s %(message)s")
    started = time.monotonic()
    code = serve(args)
    log.info("the archiver process ends after %.0f s", time.monotonic() - started)
    return code


if __name__ == "__main__":
    sys.exit(main())
