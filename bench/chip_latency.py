"""Smart table: a stable chip change in a circle to its value on the public feed, against a card's publish in the same run; the controller's CPU with chips against without.

One UTH table of 7 spots (`croupier run` in its own process) reads the emulated shoe (this process,
its line paced at 115,200 baud, as in `bench/controller_latency.py`) and the emulated chip board
(this process, on a TCP port unpaced: the board's USB CDC line, docs/protocol.md; 7 spots x 4
circles and the tray, each antenna's INVENTORY every 100 ms). The bot dealer and players of
`croupier demo --chips` (`sim.chips.bots.ChipDealer`) play real chips of the demo set, each stake
stacked of the smallest chips that make it in at most 20 (`TallRack`), so the circles hold up to
20 chips (a UTH Play of 4x a 20-chip Ante, 80 units, is made of larger chips); the players buy in,
colour up and the tray is filled and credited (signed off by the bot supervisor) as the chip dealer
does, and the tray's float is laid before the controller starts, as the demo's. The tray's scans miss
chips as a real tray's do, at the demo's rate (`sim.chips.board.MISS_RATE`, within each column of 20:
~27 of the float's 560 a scan), so its INVENTORY differs scan to scan and takes the link's changed path
every scan: a miss is work (the read compared, the debounce's runs counted), not only other counts. The
circles' scans miss nothing (`TRAY_MISSES` says why).

(a) Latency. t0: the last byte of the INVENTORY frame after which the controller's debounce
(`drivers.chip_debounce.AntennaDebounce`, the same K and settle time, fed the same frames here)
takes a circle's change; t1: the public update showing the circle's new value, received by a SUB
socket in a listening process (`bench.controller_latency.Listener`). A change whose value is the
value before (chips swapped for the same value) is not counted; a change overtaken by the next
before the feed showed it is counted as overtaken, not timed. The card's figure is the same run's
CARD frame to its public update (`bench.controller_latency.latencies`), each card dealt as a dealer
deals it, `CARD_GAP_S` after the table took the one before (`ByHand`; at both tables). Aim: the chip
p99 at most 1.25x the card's.

(b) CPU. The same table without `[chip_reader]` and `[chips]`, its bets typed by the bot dealer of
`croupier demo` (`sim.bots.dealer.BotDealer`, the same players, seed and hands, dealing `ByHand`), is the peer. Both deal
their hands at one pace: the chip table begins a hand every `PACE_S` seconds or, when one outlasts that, as soon as it
ended (its waits for the readers to settle are the pace a smart table goes at), and the card table begins each of its
hands at the very time the chip table began the same one, and ends when it ended; the controller's CPU time over
the wall time of the hands is compared. Aim:
at most 1.5x; the chips' cost is mostly time-bound (an inventory of every antenna ten times a
second whatever the hand does) and the card table is idle between its hands, so the ratio rises as
the pace slows: the figure holds for this pace, the absolute share of a core is printed beside it.
"""

from __future__ import annotations

import os
import pickle
import shutil
import statistics
import subprocess
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import msgpack
import zmq

from bench import Figure
from bench._chip_trace import card_matches, legs, summary
from bench._units import Scheduling, controller_env, engine_form
from bench.controller_latency import BAUD, PROFILE, Listener, Meter, TimedShoe, _wait, instrument_preexec, latencies
from cli.demo import croupier_argv
from drivers.chip_debounce import CONFIRM, AntennaDebounce
from drivers.chip_protocol import Decoder, Inventory, decode_message
from drivers.errors import FrameError
from engine.chips import ChipSet
from engine.games import MAX_SPOTS
from protocol.commands import CommandClient
from sim.bots.dealer import BotDealer
from sim.bots.players import BotPlayer, seat_players
from sim.bots.table import SimLimits, TableEndpoints, make_supervisor, write_config
from sim.chips.board import MISS_RATE, ChipBoardFirmware, ChipBoardServer, layout
from sim.chips.bots import SETTLE_MS, ChipDealer, Rack, chip_sections, fill_tray, make_change
from sim.demo_chips import demo_chip_set
from sim.restarter import end, read_json_line, spawn
from sim.shoe import ShoeFirmware

SEATS = MAX_SPOTS
HANDS = 12
PACE_S = 8.0
"""A chip hand begun every this many seconds, or when the one before ended (the bot dealer's hands take 9-13 s: it
waits for the readers to settle, ~0.9 s, some 9 times a hand, at the bets, each Play, the payouts and the circles
emptied, and the cards take 2.1 s); the card table's hands begun at the very times the chip table's were, so both
go at one pace (`_pace`)."""
TALLEST = 20
"""The most chips a stake is stacked of (`TallRack`)."""
TRAY_MISSES = frozenset({"tray"})
"""The antennas whose scans miss chips (`ChipBoardFirmware.missed_on`): the tray's, at the demo's rate. A circle's
20-chip stack missed at that rate would stand phantom `chips_moved` faults the bench has no supervisor for (a Play
circle's chips go out after 4 misses running; the tray's after 12)."""
AIM_P99_RATIO = 1.25  # a chip change's p99 to the public feed over a card's, same run
AIM_CPU_RATIO = 1.5  # the controller's CPU with chips over the same table without, same pace
QUIET_S = 0.05
"""A card that came this long or longer after the card before is timed apart too: a chip change comes after a
scan or more of quiet (100 ms), the bench's cards mostly in streams ~1 ms apart, and a step after quiet is slower
(an idle core woken, its caches cold, a lone fsync): a real shoe deals a card every second or two."""
CARD_GAP_S = 0.1
"""The dealer's hand between two cards: each card drawn this long after the table took the one before (a scan of the
board's: a chip change comes after at least a scan of quiet), so the card that is (a)'s peer comes as a dealer
deals it, not in a stream a millisecond after the last step (decided on 2026-12-05: docs/benchmarks.md)."""
TRACE = os.environ.get("CROUPIER_BENCH_TRACE", "")
"""With CROUPIER_BENCH_TRACE=PREFIX, each controller runs under `bench._chip_trace`, its stamps written to PREFIX.*,
and each round prints the legs of its chip changes' and cards' times (the stamps' own cost in the figures)."""


class TallRack(Rack):
    """A player's rack that stacks each stake of the smallest chips making it in at most `TALLEST`
    (fewest chips when no one value does): tall stacks, the reader's hard case."""

    def take(self, amount: int) -> list[str]:
        for value in sorted(self.chips):
            count, left = divmod(amount, value) if value else (0, amount)
            if value and not left and count <= TALLEST and len(self.chips[value]) >= count:
                uids, self.chips[value] = self.chips[value][:count], self.chips[value][count:]
                return uids
        uids = make_change(amount, self.chips)
        for uid in uids:
            chip = self.set.get(uid)
            self.chips[chip.value if chip is not None else 0].remove(uid)
        return uids


class ByHand(BotDealer):
    """A bot dealer who deals as a person does: each card `CARD_GAP_S` after the table took the one before."""

    def _draw(self, st: Any) -> None:
        time.sleep(CARD_GAP_S)  # the dealer's hand reaching for the shoe: the pace, not a wait for a condition
        super()._draw(st)


class TallDealer(ByHand, ChipDealer):
    """`ChipDealer` whose players stack their stakes tall (`TallRack`); what they buy in with, colour up and
    the tray's fills and credits are the chip dealer's own."""

    def __init__(self, *args: Any, **options: Any) -> None:
        super().__init__(*args, **options)
        self.racks = {seat: TallRack(self.chip_set) for seat in self.racks}


class TimedBoard(ChipBoardServer):
    """The emulated board, noting when each circle's change is taken by a debounce like the controller's:
    `changes` holds `(antenna, value, time, scan)` in the order taken."""

    def __init__(self, firmware: ChipBoardFirmware, chip_set: ChipSet, settle_s: float) -> None:
        super().__init__(firmware, link="tcp")
        self.chip_set = chip_set
        self.names = dict(firmware.antennas)
        self.debounce = {name: AntennaDebounce(name, CONFIRM, settle_s) for name in self.names.values()}
        self.changes: list[tuple[str, int, float, int]] = []
        self._watch = Decoder()

    def serve(self) -> None:
        setup = instrument_preexec()  # as the shoe's (bench.controller_latency.TimedShoe)
        if setup is not None:
            setup()
        super().serve()

    def _emit(self, data: bytes) -> None:
        if self._client is None:
            super()._emit(data)
            return  # nobody reads it
        taken: list[tuple[str, int, int]] = []  # worked out before the bytes leave: t0 is their leaving, and this
        before_sent = time.perf_counter()  # process's work on them must not fall on the controller's cores after it
        for frame in self._watch.feed(data):
            try:
                message = decode_message(frame)
            except FrameError:
                continue
            if not isinstance(message, Inventory) or message.antenna not in self.names:
                continue
            name = self.names[message.antenna]
            before = self.debounce[name].chips
            read = self.debounce[name].inventory(message.uids, before_sent, scan=message.scan)
            if read is not None and not read.stable and name != "tray" and before is not None:
                value = self.chip_set.value(read.uids)
                if value != self.chip_set.value(before):
                    taken.append((name, value, message.scan))
        super()._emit(data)
        now = time.perf_counter()
        self.changes.extend((name, value, now, scan) for name, value, scan in taken)


def chip_latencies(board: TimedBoard, listener: Listener) -> tuple[list[float], list[float], int]:
    """Seconds from each circle's change taken (`TimedBoard.changes`) to the public update showing its
    new value; the same for the changes alone in their scan (no other circle changed with them); how
    many changes the next overtook before the feed showed them."""
    matched, overtaken = chip_matches(board, listener)
    return [t1 - t0 for t0, t1, _, _ in matched], [t1 - t0 for t0, t1, _, alone in matched if alone], overtaken


def chip_matches(board: TimedBoard, listener: Listener) -> tuple[list[tuple[float, float, int, bool]], int]:
    """`(t0, t1, feed seq, alone in its scan)` of each change timed (`chip_latencies`), and how many were overtaken."""
    pending: dict[str, list[tuple[int, float]]] = {}
    per_scan = Counter(scan for _, _, _, scan in board.changes)
    alone_at = {t for _, _, t, scan in board.changes if per_scan[scan] == 1}
    for name, value, t, _ in board.changes:
        pending.setdefault(name, []).append((value, t))
    shown: dict[str, int] = {}
    out: list[tuple[float, float, int, bool]] = []
    overtaken = 0
    for frame in listener.public_msgs:
        message = msgpack.unpackb(frame, raw=False)
        chips = (message.get("set") or {}).get("chips") if message.get("kind") == "changes" else message.get("chips")
        got = listener.public_at.get((message["boot"], message["seq"]))
        if not chips or got is None:
            continue
        now_shown = {f"spot{c['seat']}.{c['circle']}": int(c["value"]) for c in chips.get("circles") or []}
        for name in set(shown) | set(now_shown):
            value = now_shown.get(name, 0)
            if shown.get(name, 0) == value:
                continue
            waiting = pending.get(name, [])
            i = next((k for k, (v, t) in enumerate(waiting) if v == value and t <= got), None)
            if i is not None:
                out.append((waiting[i][1], got, message["seq"], waiting[i][1] in alone_at))
                overtaken += i
                del waiting[:i + 1]
        shown = now_shown
    return out, overtaken


def _pace(dealer: BotDealer, hands: int, pace_s: float, schedule: Sequence[float] = ()) -> tuple[float, int, list[float]]:
    """Play `hands` hands, one begun every `pace_s` seconds (a hand that outlasts its slot is followed
    at once by the next, and the slots after it move on), or each when `schedule` says (seconds from the first
    hand's start: each hand's start, then the end: another table's, so both go at one pace); the wall time, how many
    hands were late (begun after their time) and the schedule kept (each hand's start and the end)."""
    started = time.perf_counter()
    due, late, kept = 0.0, 0, []
    for n in range(hands + 1):
        due = schedule[n] if schedule else due
        now = time.perf_counter() - started
        if now > due:
            late, due = late + (n > 0), now
        else:
            time.sleep(due - now)
        kept.append(due)
        if n < hands:
            dealer.play(1)
            due += pace_s
    return time.perf_counter() - started, late, kept


def measure(chips: bool, hands: int = HANDS, pace_s: float = PACE_S, schedule: Sequence[float] = ()) -> dict[str, Any]:
    """One table for `hands` paced hands (as `schedule` says when given: `_pace`), with the chip reader (`chips`) or
    its bets typed; its figures."""
    run_dir = Path(tempfile.mkdtemp(prefix="crp-chipbench-"))
    ctx: zmq.Context[Any] = zmq.Context()
    chip_set = demo_chip_set()
    shoe = TimedShoe(ShoeFirmware(seed=1, boot=int.from_bytes(os.urandom(4), "big"), heartbeat_s=0.5),
                     link="tcp", baud=BAUD).start()
    board = TimedBoard(ChipBoardFirmware(seed=1, antennas=layout("uth", SEATS), miss_rate=MISS_RATE,
                                         missed_on=TRAY_MISSES, boot=int.from_bytes(os.urandom(4), "big")),
                       chip_set, SETTLE_MS / 1000).start() if chips else None
    proc: subprocess.Popen[bytes] | None = None
    listener: Listener | None = None
    dealer: BotDealer | None = None
    trace = ""
    try:
        if board is not None:  # the tray's float laid before the controller starts: its opening inventory, as the demo's
            fill_tray("%s:%d" % board.control_address, chip_set)
        eps = TableEndpoints.tcp()
        extra = chip_sections(board.port_url) if board else ""  # settle_ms: the demo's (SETTLE_MS)
        users = run_dir / "users.json"  # the bot supervisor signs off the tray's fills and credits (`ChipDealer`)
        supervisor = make_supervisor(users) if board else None
        cfg = write_config(run_dir / "bench.toml", endpoints=eps, shoe_url=shoe.port_url, game="uth", table="bench",
                           seats=SEATS, heartbeat_s=1.0, extra=extra, users=users.resolve() if board else "")
        with open(run_dir / "controller.log", "ab") as err:
            argv = croupier_argv("run", "--config", str(cfg), "--state", str(run_dir / "state"), "--log-level", "WARNING")
            if PROFILE:  # as in bench/controller_latency.py: for finding where the time goes, never for the aims
                argv[1:1] = ["-m", "cProfile", "-o", f"{PROFILE}.{'chips' if chips else 'cards'}.{time.monotonic_ns()}"]
            elif TRACE:  # each leg of a reading's path stamped (bench._chip_trace), never for the aims
                trace = f"{TRACE}.{'chips' if chips else 'cards'}.{time.monotonic_ns()}"
                argv[1:1] = ["-m", "bench._chip_trace", trace]
            proc = spawn(argv, stderr=err, env=controller_env(),
                         setup=Scheduling.controller().preexec)  # as its unit deploys it, its engine as the Pi's
        read_json_line(proc, 30.0, "controller")
        listener = Listener(eps.public, eps.full)
        probe = CommandClient(ctx, eps.commands, timeout_s=10.0, name="bench")
        _wait(probe, lambda s: s["phase"] in ("bets", "settled"))
        probe.close()
        players: Sequence[BotPlayer] = seat_players(SEATS, 1)
        options: dict[str, Any] = {"game": "uth", "seed": 1, "limits": SimLimits(), "buttons": 0.0}
        host, port = shoe.control_address
        dealer = (TallDealer(eps, f"{host}:{port}", players, board="%s:%d" % board.control_address, chip_set=chip_set,
                             supervisor=supervisor, **options) if board else ByHand(eps, f"{host}:{port}", players, **options))
        time.sleep(0.3)  # the subscriptions reach the PUB sockets
        dealer.play(1)  # warm-up (with chips: the tray's float placed and read)
        listener.forget()
        shoe.card_sent.clear()
        if board is not None:
            board.changes.clear()
        meter = Meter(proc.pid)
        meter.start()
        wall, late, kept = _pace(dealer, hands, pace_s, schedule)
        meter.stop()
        cpu_s = meter.cpu_s
        listener.finish()
        cards = sorted(latencies(shoe, listener))
        timed, alone, overtaken = chip_latencies(board, listener) if board else ([], [], 0)
        cards_timed = card_matches(shoe.card_sent, listener.full_msgs, listener.public_at)
        traced = (trace, chip_matches(board, listener)[0] if board else [], cards_timed) if trace else None
        timed.sort()
        alone.sort()
        return {"cpu_share": cpu_s / wall, "wall_s": wall, "cards": cards, "chips": timed, "alone": alone,
                "overtaken": overtaken, "traced": traced, "cards_after_quiet": sorted(t1 - t0 for t0, t1, _ in after_quiet(cards_timed)),
                "changes": len(board.changes) if board else 0, "late": late, "schedule": kept,
                "moved": dict(dealer.moved) if isinstance(dealer, ChipDealer) else {}}
    finally:
        if dealer is not None:
            dealer.close()
        if listener is not None:
            listener.kill()
        if proc is not None:
            end(proc)
        if board is not None:
            board.close()
        shoe.close()
        ctx.destroy(linger=0)
        shutil.rmtree(run_dir, ignore_errors=True)


def after_quiet(cards: Sequence[tuple[float, float, int]], quiet_s: float = QUIET_S) -> list[tuple[float, float, int]]:
    """The cards timed whose frame came `quiet_s` or more after the card before (the first of each stream)."""
    ordered = sorted(cards)
    return [card for before, card in zip([None, *ordered], ordered) if before is None or card[0] - before[0] >= quiet_s]


def _print_legs(path: str, chips: Sequence[tuple[float, float, int, bool]], cards: Sequence[tuple[float, float, int]]) -> None:
    """Each timed change's and card's legs (`bench._chip_trace`), from the stamps the controller wrote at its exit."""
    stamps = pickle.loads(Path(path).read_bytes())
    print(f"   legs, chip changes alone in their scan: {summary(legs(stamps, [m[:3] for m in chips if m[3]], 'chips'))}")
    print(f"   legs, chip changes with others: {summary(legs(stamps, [m[:3] for m in chips if not m[3]], 'chips'))}")
    quiet = after_quiet(cards)
    print(f"   legs, cards after {1000 * QUIET_S:.0f} ms of quiet: {summary(legs(stamps, quiet, 'shoe'))}")
    print(f"   legs, cards in a stream: {summary(legs(stamps, [c for c in cards if c not in quiet], 'shoe'))}", flush=True)


def _p(values: Sequence[float], q: float) -> float:
    return 1000 * values[min(len(values) - 1, int(q * len(values)))]


def _quiet_cards(values: Sequence[float]) -> str:
    """The cards timed after quiet (`after_quiet`), in words."""
    if not values:
        return f"none after {1000 * QUIET_S:.0f} ms of quiet"
    return (f"{len(values)} after {1000 * QUIET_S:.0f} ms of quiet: p50 {1000 * statistics.median(values):.2f} ms, "
            f"p99 {_p(values, 0.99):.2f} ms")


def _alone(values: Sequence[float]) -> str:
    """The changes alone in their scan, in words."""
    if not values:
        return "none alone in its scan"
    return f"{len(values)} alone in their scan: p50 {1000 * statistics.median(values):.2f} ms, p99 {_p(values, 0.99):.2f} ms"


def run(rounds: int = 3, hands: int = HANDS) -> list[Figure]:
    """`rounds` of a chip table and its card-only peer, taking turns; judged on the median of the rounds' ratios."""
    p99_ratios, cpu_ratios = [], []
    print(f"   the controller at {Scheduling.controller()}; it runs {engine_form()}", flush=True)
    print(f"   the instruments at {Scheduling.instruments()}", flush=True)
    for n in range(rounds):
        smart = measure(True, hands)
        if smart["traced"]:
            _print_legs(*smart["traced"])
        plain = measure(False, hands, schedule=smart["schedule"])  # its hands begun when the chip table's were
        if not smart["chips"] or not smart["cards"]:
            raise RuntimeError("no chip change or no card was matched to its public update")
        chip_p99, card_p99 = _p(smart["chips"], 0.99), _p(smart["cards"], 0.99)
        p99_ratios.append(chip_p99 / card_p99)
        cpu_ratios.append(smart["cpu_share"] / plain["cpu_share"])
        print(f"   round {n + 1}: {hands} hands, one begun every {PACE_S:g} s or when the one before ended ({smart['late']} "
              f"late with chips: a hand every {smart['wall_s'] / hands:.1f} s; the card table's begun at the same times, "
              f"{plain['late']} late); chip change -> public value: {len(smart['chips'])} timed "
              f"({smart['overtaken']} overtaken), p50 {1000 * statistics.median(smart['chips']):.2f} ms, p99 "
              f"{chip_p99:.2f} ms, max {1000 * smart['chips'][-1]:.2f} ms ({_alone(smart['alone'])}); CARD -> update, same run: "
              f"{len(smart['cards'])} timed, p50 {1000 * statistics.median(smart['cards']):.2f} ms, p99 {card_p99:.2f} ms "
              f"({p99_ratios[-1]:.2f}x; {_quiet_cards(smart['cards_after_quiet'])}); controller CPU {100 * smart['cpu_share']:.1f}% of one core with chips, "
              f"{100 * plain['cpu_share']:.1f}% without ({cpu_ratios[-1]:.2f}x; the card table's own CARD p99 "
              f"{_p(plain['cards'], 0.99):.2f} ms); the tray's movements {smart['moved'] or 'none'}; load average "
              f"{os.getloadavg()[0]:.1f}")
    p99_ratio, cpu_ratio = statistics.median(p99_ratios), statistics.median(cpu_ratios)
    print(f"   median of {rounds}: chip p99 {p99_ratio:.2f}x the card's (aim <= {AIM_P99_RATIO}x), CPU with chips "
          f"{cpu_ratio:.2f}x without (aim <= {AIM_CPU_RATIO}x); load average {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} cores")
    return [Figure.at_most("smart table: stable chip change to public value p99 vs a card's, same run", p99_ratio,
                           AIM_P99_RATIO),
            Figure.at_most(f"smart table: controller CPU, 7 spots x 4 circles x up to {TALLEST} chips at 10 scans/s, "
                           f"vs no chips, both at the chip table's pace (a hand every {PACE_S:g} s or more)", cpu_ratio,
                           AIM_CPU_RATIO)]
