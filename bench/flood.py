"""Request flood: the card-to-publish latency quiet and under a loopback client's request flood; the feed's longest silence.

One controller (`croupier run`, its own process) and the emulated shoe at 115,200 baud, as in
`bench.controller_latency` (the same timing: a CARD frame's last byte on the line to its public
update received by a listening process). First `HANDS` UTH hands quiet; then the same number while
a flooding process (`flood`) sends `bet` requests on the one seat no bot plays (`{}`: journaled in
the betting, refused after it) as fast as its socket takes them, up to `MAX_OUTSTANDING` unanswered,
and records when each public feed message arrives; after the hands the table idles `IDLE_S` under
the flood so that only heartbeats are due. The flood stops by itself at `MAX_REQUESTS` or
`MAX_FLOOD_S`. Aims (`docs/security.md`, Limits): p99 under the flood within 2x of the quiet p99,
and no silence of the feed (between any two messages, heartbeats included) longer than 2 heartbeats.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgpack
import zmq

from bench import Figure
from bench import controller_latency as lat
from bench._units import Scheduling, controller_env
from cli.demo import croupier_argv
from engine.games import MAX_SPOTS
from protocol.commands import CommandClient
from protocol.feed import FeedClient
from protocol.users import User, Users
from sim.bots.table import TableEndpoints, write_config
from sim.restarter import end, read_json_line, spawn
from sim.shoe import ShoeFirmware, SimShoeClient

HANDS = 25
SEATS = MAX_SPOTS  # the table's spots; the bots play all but the last, which the flood bets on
HEARTBEAT_S = 0.5
IDLE_S = 2.5
MAX_OUTSTANDING = 64
MAX_REQUESTS = 2_000_000
MAX_FLOOD_S = 120.0
AIM_P99_RATIO = 2.0
AIM_GAP_HEARTBEATS = 2.0


SIGN_OFF_PIN = "80264913"
"""The PIN of the supervisor `ana` when a flood sends sign-offs (`bench.signoff_flood`)."""
FLOODS: dict[str, Callable[[int], dict[str, object]]] = {
    "bet": lambda seat: {"cmd": "bet", "seat": seat, "bets": {}},
    "right": lambda seat: {"cmd": "clear", "reason": "flood", "auth": {"user": "ana", "pin": SIGN_OFF_PIN}},
    "wrong": lambda seat: {"cmd": "clear", "reason": "flood", "auth": {"user": "ana", "pin": "1111"}},
}
"""What a flood sends: `bet` on the seat no bot plays; a supervisor's sign-off on a `clear` (no fault stands:
refused once the sign-off is checked) with her right PIN, or a wrong one."""


def flood(commands: str, public: str, seat: int, max_requests: int, max_s: float, kind: str = "bet") -> None:
    """The flooding process: `kind` requests (`FLOODS`) as fast as the channel answers, and the public feed's
    arrival times. Prints `ready` once connected; on `stop` (standard input), at `max_requests` or
    after `max_s`, one JSON line: requests sent and answered, how many `busy`, `ok` and otherwise,
    and the longest silence of the feed while it ran (seconds). It runs at the lowest priority (nice 19): the
    attacker is a machine on the floor network, whose own CPU is not the table's; on the bench's one machine
    it still takes every cycle the table leaves."""
    os.nice(19)
    ctx: zmq.Context[Any] = zmq.Context()
    dealer, feed = ctx.socket(zmq.DEALER), ctx.socket(zmq.SUB)
    for sock in (dealer, feed):
        sock.setsockopt(zmq.LINGER, 0)
    feed.setsockopt(zmq.SUBSCRIBE, b"")
    dealer.connect(commands)
    feed.connect(public)
    stdin = sys.stdin.buffer
    poller = zmq.Poller()
    poller.register(dealer, zmq.POLLIN)
    poller.register(feed, zmq.POLLIN)
    poller.register(stdin.fileno(), zmq.POLLIN)
    time.sleep(0.3)  # the subscription reaches the PUB socket
    print("ready", flush=True)
    counts = {"sent": 0, "answered": 0, "busy": 0, "ok": 0, "other": 0, "heartbeats": 0}
    started = last_message = time.perf_counter()
    gap = 0.0
    while counts["sent"] < max_requests and time.perf_counter() - started < max_s:
        while counts["sent"] - counts["answered"] < MAX_OUTSTANDING and counts["sent"] < max_requests:
            dealer.send(msgpack.packb({"id": f"flood-{counts['sent']}", **FLOODS[kind](seat)}))
            counts["sent"] += 1
        ready = dict(poller.poll(100))
        now = time.perf_counter()
        while feed in ready:
            try:
                head = msgpack.unpackb(feed.recv(zmq.NOBLOCK), raw=False)
            except zmq.Again:
                break
            gap, last_message = max(gap, now - last_message), now
            counts["heartbeats"] += head.get("kind") == "heartbeat"
        while dealer in ready:
            try:
                reply = msgpack.unpackb(dealer.recv(zmq.NOBLOCK), raw=False)
            except zmq.Again:
                break
            counts["answered"] += 1
            code = "ok" if reply.get("ok") else reply.get("code")
            counts[code if code in ("ok", "busy") else "other"] += 1
        if stdin.fileno() in ready:
            stdin.readline()
            break
    gap = max(gap, time.perf_counter() - last_message)
    print(json.dumps({**counts, "max_gap_s": gap, "flood_s": time.perf_counter() - started}), flush=True)
    ctx.destroy(linger=0)


class Flood:
    """The flooding process (`flood`) and its figures."""

    def __init__(self, commands: str, public: str, kind: str = "bet") -> None:
        root = str(Path(__file__).resolve().parents[1])
        env = {**os.environ, "PYTHONPATH": root + os.pathsep + os.environ.get("PYTHONPATH", "")}
        self.proc = subprocess.Popen(
            [sys.executable, "-c", "import sys; from bench.flood import flood; "
             "flood(sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]), sys.argv[6])",
             commands, public, str(SEATS), str(MAX_REQUESTS), str(MAX_FLOOD_S), kind],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, cwd=root)
        assert self.proc.stdout is not None
        if self.proc.stdout.readline() != b"ready\n":
            raise RuntimeError("the flood did not start")

    def stop(self) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        with contextlib.suppress(BrokenPipeError):  # it may have stopped by itself
            self.proc.stdin.write(b"stop\n")
            self.proc.stdin.flush()
        figures: dict[str, Any] = json.loads(self.proc.stdout.readline())
        self.proc.wait(10)
        return figures

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def _figures(lats: list[float]) -> dict[str, float]:
    lats = sorted(lats)
    if not lats:
        raise RuntimeError("no card update was matched to its frame")
    return {"n": len(lats), "p50_ms": 1000 * statistics.median(lats),
            "p99_ms": 1000 * lats[min(len(lats) - 1, int(0.99 * len(lats)))], "max_ms": 1000 * lats[-1]}


def measure(hands: int = HANDS, floods: tuple[str, ...] = ("bet",)) -> dict[str, Any]:
    """Quiet, then under each flood (`FLOODS`), on one controller: the figures of each (`quiet`, then
    each flood's by its kind, and `flooder.KIND`, the flooding client's). A sign-off flood's table has
    a users file with the supervisor `ana`."""
    run_dir = Path(tempfile.mkdtemp(prefix="crp-flood-"))
    ctx: zmq.Context[Any] = zmq.Context()
    shoe = lat.TimedShoe(ShoeFirmware(seed=1, boot=int.from_bytes(os.urandom(4), "big"), heartbeat_s=0.5),
                         link="tcp", baud=lat.BAUD).start()
    proc: subprocess.Popen[bytes] | None = None
    listener: lat.Listener | None = None
    flooder: Flood | None = None
    played_seats = lat.SEATS
    lat.SEATS = SEATS - 1  # the bots of `lat.play` sit at every spot but the flood's
    try:
        eps = TableEndpoints.tcp()
        users: str | Path = ""
        if any(kind != "bet" for kind in floods):
            users = run_dir / "users.json"
            Users({"ana": User.with_pin("ana", "supervisor", SIGN_OFF_PIN)}).save(users)
        cfg = write_config(run_dir / "flood.toml", endpoints=eps, shoe_url=shoe.port_url, game="uth",
                           table="flood", seats=SEATS, heartbeat_s=HEARTBEAT_S, users=users)
        with open(run_dir / "controller.log", "ab") as err:
            proc = spawn(croupier_argv("run", "--config", str(cfg), "--state", str(run_dir / "state"),
                                       "--log-level", "WARNING"), stderr=err, env=controller_env(),
                         setup=Scheduling.controller().preexec)  # as its unit deploys it, its engine as the Pi's
        read_json_line(proc, 30.0, "controller")
        dealer = CommandClient(ctx, eps.commands, timeout_s=30.0, name="bench")
        control = SimShoeClient(shoe.control_address)
        feed = FeedClient(ctx, eps.public, eps.snapshot, timeout_s=10.0)  # each stretch's end seen on it
        lat._wait(dealer, lambda s: s["phase"] in ("bets", "settled"))
        out: dict[str, Any] = {}
        for phase in ("quiet", *floods):
            listener = lat.Listener(eps.public, eps.full)
            time.sleep(0.3)  # the listener's subscriptions reach the PUB sockets
            lat.play(dealer, control, 1, feed=feed)  # warm-up (and the flood's first burst, under it)
            if phase != "quiet":
                flooder = Flood(eps.commands, eps.public, phase)
            listener.forget()
            shoe.card_sent.clear()
            lat.play(dealer, control, hands, feed=feed)
            if flooder is not None:
                time.sleep(IDLE_S)  # the table idle under the flood: only heartbeats are due
                out[f"flooder.{phase}"] = flooder.stop()
                flooder = None
            listener.finish()
            out[phase] = _figures(lat.latencies(shoe, listener))
            listener = None
        dealer.close()
        control.close()
        return out
    finally:
        lat.SEATS = played_seats
        for child in (listener, flooder):
            if child is not None:
                child.kill()
        if proc is not None:
            end(proc)
        shoe.close()
        ctx.destroy(linger=0)
        shutil.rmtree(run_dir, ignore_errors=True)


def run(hands: int = HANDS) -> list[Figure]:
    f = measure(hands)
    quiet, loud, fl = f["quiet"], f["bet"], f["flooder.bet"]
    ratio = loud["p99_ms"] / quiet["p99_ms"]
    gap_beats = fl["max_gap_s"] / HEARTBEAT_S
    print(f"   the controller at {Scheduling.controller()}; the instruments at {Scheduling.instruments()}", flush=True)
    print(f"   quiet: {quiet['n']} cards, CARD last byte -> public update p50 {quiet['p50_ms']:.2f} ms, "
          f"p99 {quiet['p99_ms']:.2f} ms, max {quiet['max_ms']:.2f} ms")
    print(f"   flood: {loud['n']} cards, p50 {loud['p50_ms']:.2f} ms, p99 {loud['p99_ms']:.2f} ms, "
          f"max {loud['max_ms']:.2f} ms; the flooding client sent {fl['sent']} requests in {fl['flood_s']:.1f} s "
          f"({fl['sent'] / fl['flood_s']:.0f}/s): {fl['ok']} taken, {fl['busy']} busy, {fl['other']} refused")
    print(f"   p99 under the flood {ratio:.2f}x the quiet p99 (aim <= {AIM_P99_RATIO}x); longest silence of the "
          f"feed {1000 * fl['max_gap_s']:.0f} ms = {gap_beats:.2f} heartbeats of {HEARTBEAT_S} s "
          f"(aim <= {AIM_GAP_HEARTBEATS}; {fl['heartbeats']} heartbeats seen); load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    return [Figure.at_most("card-to-publish p99 under a client's request flood vs quiet", ratio, AIM_P99_RATIO),
            Figure.at_most("the feed's longest silence under the request flood", gap_beats, AIM_GAP_HEARTBEATS,
                           unit=" heartbeats")]
