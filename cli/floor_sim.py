"""`croupier floor-sim --tables N --speed K --duration S --pit-config FILE`: N simulated tables (real feeds, command channels answering `history`) at K times real time for S seconds, their pit configuration written.

The tables bind on loopback TCP (or ipc under `--ipc DIR`); the pit configuration lists them under
`[pit]` (`--pit-listen`, `--pit-snapshot`, `--db`, `--heartbeat-s`), ready for `croupier pit
--config FILE`. With `--pit-wait S` play starts once the pit shows every table online, and after
play the tables keep serving until the pit shows every closed hand archived (each at most S
seconds). `--restart TABLE@SECONDS` restarts a table mid-run. `--watch` follows the pit's floor feed
and adds `"floor"` (each update's lag after the table's publish, updates never seen, gaps) to the
last line. `--processes K` plays the tables in K processes of their own (`sim.floor_split`: a process
holds 20,000 file descriptors here, a table about eight), their counts merged into the one last line.
The last line is one JSON object: `{"tables": N, "hands": H, "messages": M, ...}`,
H the hands closed in all, M the messages sent on the tables' feeds. Bad arguments exit 2.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path
from typing import Any

import zmq

from cli.output import stdout_closed
from protocol.config import endpoint, heartbeat
from protocol.feed import FeedError
from protocol.many_sockets import many_sockets_context
from sim.bots.table import free_tcp_port
from sim.floor.tables import Endpoints, FloorSim, FloorTable
from sim.floor.split import Settings, ShareLost, SplitFloor, TableSeat
from sim.floor.watch import FloorView, all_archived, all_online, floor_snapshot
from sim.watch_process import WatchProcess

log = logging.getLogger("croupier.floor-sim")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--tables", type=int, required=True, metavar="N", help="simulated tables (1 to 20000)")
    parser.add_argument("--speed", type=float, default=1.0, metavar="K", help="times real time (default 1: ~80 hands an hour a table)")
    parser.add_argument("--duration", type=float, required=True, metavar="S", help="seconds of play")
    parser.add_argument("--pit-config", required=True, metavar="FILE", help="the pit configuration written")
    parser.add_argument("--pit-listen", default="tcp://127.0.0.1:6556", metavar="ENDPOINT", help="[pit] listen")
    parser.add_argument("--pit-snapshot", default="tcp://127.0.0.1:6557", metavar="ENDPOINT", help="[pit] snapshot")
    parser.add_argument("--db", metavar="DSN", help="[pit] db: the archive")
    parser.add_argument("--heartbeat-s", type=float, default=1.0, metavar="S", help="the tables' heartbeat")
    parser.add_argument("--ipc", metavar="DIR", help="bind the tables on ipc sockets in DIR instead of loopback TCP")
    parser.add_argument("--seed", type=int, default=1, help="the decks' and the tables' seed")
    parser.add_argument("--pool", type=int, default=16, metavar="H", help="hands the engine plays per game for the tables to deal")
    parser.add_argument("--pit-wait", type=float, default=0.0, metavar="S",
                        help="wait for the pit: every table online before play, every closed hand archived after")
    parser.add_argument("--restart", action="append", default=[], metavar="TABLE@SECONDS",
                        help="restart a table that many seconds into the run (repeatable)")
    parser.add_argument("--watch", action="store_true", help="follow the pit's floor feed: lags, gaps")
    parser.add_argument("--processes", type=int, default=1, metavar="K",
                        help="play the tables in K processes of their own (default 1: in this one)")
    parser.add_argument("--log-level", default="WARNING", choices=("DEBUG", "INFO", "WARNING", "ERROR"))


class Usage(ValueError):
    """A bad argument: said on stderr, exit 2."""


def _restarts(values: list[str]) -> list[tuple[float, str]]:
    out = []
    for value in values:
        name, _, at = value.rpartition("@")
        try:
            seconds = float(at)
        except ValueError:
            raise Usage(f"--restart: {value!r} is not TABLE@SECONDS") from None
        if not name or seconds < 0:
            raise Usage(f"--restart: {value!r} is not TABLE@SECONDS")
        out.append((seconds, name))
    return sorted(out)


def _check(args: argparse.Namespace) -> None:
    if not 1 <= args.tables <= 20000:
        raise Usage(f"--tables: {args.tables} is not between 1 and 20000")
    if not 0 < args.speed <= 10000:
        raise Usage(f"--speed: {args.speed} is not above 0 (and at most 10000)")
    if not 0 < args.duration <= 86400:
        raise Usage(f"--duration: {args.duration} is not a number of seconds above 0 (at most a day)")
    if not 1 <= args.processes <= min(64, args.tables):
        raise Usage(f"--processes: {args.processes} is not between 1 and {min(64, args.tables)} (at most one a table)")
    if not 1 <= args.pool <= 10000:
        raise Usage(f"--pool: {args.pool} is not between 1 and 10000")
    for name, check in (("heartbeat_s", heartbeat), ("pit_listen", endpoint), ("pit_snapshot", endpoint)):
        try:
            check(getattr(args, name))  # as the pit's configuration checks them
        except ValueError as exc:
            raise Usage(f"--{name.replace('_', '-')}: {exc}") from None
    if args.ipc is not None and not Path(args.ipc).is_dir():
        raise Usage(f"--ipc: no such directory {args.ipc!r}")
    if not Path(args.pit_config).resolve().parent.is_dir():
        raise Usage(f"--pit-config: no directory for {args.pit_config!r}")


def _endpoints(args: argparse.Namespace) -> Any:
    def make(i: int) -> Endpoints:
        if args.ipc is not None:
            root = Path(args.ipc).resolve()
            return Endpoints(f"ipc://{root}/t{i}-pub", f"ipc://{root}/t{i}-snap", f"ipc://{root}/t{i}-cmd")
        return Endpoints(*(f"tcp://127.0.0.1:{free_tcp_port()}" for _ in range(3)))
    return make


def pit_config(args: argparse.Namespace, tables: list[FloorTable] | list[TableSeat]) -> str:
    """The `[pit]` configuration listing the tables (the format `floor.config` reads)."""
    lines = ["# written by croupier floor-sim", "[pit]", f"listen = {json.dumps(args.pit_listen)}",
             f"snapshot = {json.dumps(args.pit_snapshot)}", f"heartbeat_s = {args.heartbeat_s}"]
    if args.db:
        lines.append(f"db = {json.dumps(args.db)}")
    for table in tables:
        lines += ["", "[[pit.tables]]", f"name = {json.dumps(table.name)}",
                  f"public = {json.dumps(table.endpoints.public)}", f"snapshot = {json.dumps(table.endpoints.snapshot)}",
                  f"commands = {json.dumps(table.endpoints.commands)}"]
    return "\n".join(lines) + "\n"


def main(args: argparse.Namespace) -> int:
    logging.basicConfig(level=args.log_level, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    try:
        _check(args)
        restarts = _restarts(args.restart)
    except Usage as exc:
        print(f"croupier floor-sim: {exc}", file=sys.stderr)
        return 2
    ctx = many_sockets_context(60000)
    try:
        try:
            sim = _floor(args, ctx)
        except (FeedError, ShareLost, zmq.ZMQError) as exc:
            print(f"croupier floor-sim: {exc}", file=sys.stderr)
            return 1
        try:
            return _play(args, ctx, sim, restarts)
        except ShareLost as exc:
            print(f"croupier floor-sim: {exc}", file=sys.stderr)
            return 1
        finally:
            sim.close()
    except BrokenPipeError:
        return stdout_closed()
    finally:
        ctx.destroy(linger=0)


def _floor(args: argparse.Namespace, ctx: zmq.Context[Any]) -> FloorSim | SplitFloor:
    """The tables, in this process or in `--processes` of their own. Raises FeedError, ShareLost, ZMQError."""
    if args.processes == 1:
        return FloorSim(ctx, args.tables, args.speed, _endpoints(args), seed=args.seed, pool=args.pool,
                        heartbeat_s=args.heartbeat_s)
    return SplitFloor(args.tables, args.processes, Settings(args.speed, args.seed, args.pool, args.heartbeat_s,
                                                            args.ipc, args.watch, args.log_level))


def _play(args: argparse.Namespace, ctx: zmq.Context[Any], sim: FloorSim | SplitFloor,
          restarts: list[tuple[float, str]]) -> int:
    names = [t.name for t in sim.tables]
    unknown = sorted({name for _, name in restarts} - set(names))
    if unknown:
        print(f"croupier floor-sim: --restart: no table {', '.join(unknown)} (the tables: {names[0]} ...)",
              file=sys.stderr)
        return 2
    sim.restarts = restarts
    Path(args.pit_config).write_text(pit_config(args, sim.tables), encoding="utf-8")
    sources = sim.notes if isinstance(sim, SplitFloor) else ()
    watch = WatchProcess(ctx, args.pit_listen, sources=sources) if args.watch else None
    try:
        return _watched(args, ctx, sim, restarts, watch, names)
    finally:
        if watch is not None:
            watch.stop()


def _watched(args: argparse.Namespace, ctx: zmq.Context[Any], sim: FloorSim | SplitFloor,
             restarts: list[tuple[float, str]], watch: WatchProcess | None, names: list[str]) -> int:
    if watch is not None and isinstance(sim, FloorSim):  # (a SplitFloor's children note on their own)
        for table in sim.tables:
            table.on_publish = watch.published
        sim.on_batch = watch.flush
    ready = True
    every = max(0.25, len(names) / 400)  # a floor snapshot of 1,000 tables takes the pit ~0.1 s of its loop
    if args.pit_wait > 0:
        # the watcher's count starts once its subscription reached the pit (it heard the floor feed):
        # before that the pit's XPUB sends to nobody, ZeroMQ's slow joiner, and those updates look lost
        online = FloorView(ctx, args.pit_snapshot, every)
        online.start()
        ready = sim.linger(lambda: (watch is None or watch.heard) and all_online(online.latest, names), args.pit_wait)
        online.stop()
        if not ready:
            log.warning("the pit at %s did not show every table online within %.0f s", args.pit_snapshot, args.pit_wait)
    if watch is not None:
        watch.counting = True
    sim.run(args.duration)
    if watch is not None:
        watch.counting = False
        watch.flush()
    archived = None
    if args.pit_wait > 0:
        last = sim.last_hands()
        hands_in = FloorView(ctx, args.pit_snapshot, every)
        hands_in.start()
        archived = sim.linger(lambda: all_archived(hands_in.latest, last), args.pit_wait)
        hands_in.stop()
    out: dict[str, Any] = {"tables": len(sim.tables), "hands": sim.hands(), "messages": sim.messages()}
    if args.pit_wait > 0:
        out.update(pit_ready=ready, archived=archived)
        if not archived:
            view = floor_snapshot(ctx, args.pit_snapshot, 10.0)
            behind = {n: [(view or {}).get(n, {}).get("archived"), hand] for n, hand in last.items()
                      if view is None or ((view.get(n) or {}).get("archived") or 0) < hand}
            out["not_archived"] = len(behind)  # tables whose closed hands the pit had not all archived
            log.warning("not archived (pit's last, the table's last): %s", dict(list(behind.items())[:10]))
    if restarts:
        out["restarted"] = sim.restarted
    if watch is not None:
        watch.finish(10.0)  # the floor feed's last messages (a busy pit lags): the watcher waits for them
        sim.linger(watch.done, 15.0)
        out["floor"] = watch.report()
    print(json.dumps(out), flush=True)
    return 0
