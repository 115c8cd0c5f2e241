"""The simulated smart table's chips (`croupier demo --chips`): bots bet real chips of the demo set, the bot dealer collects and pays from the tray, faults injected and accounted.

The emulated chip board (`croupier sim-chips`) runs beside the emulated shoe; the controller reads it
under `[chip_reader]` and values its chips with `[chips] set = deploy/chips-demo.csv`. The chips lie
physically on the board (its control port, `sim.chip_board.ChipBoardClient`):

- the players' chips off the table are their racks (`Rack`: every active chip of the set not in the
  tray's float); a bot places its stakes as chips in its circles, the fewest chips that make each
  stake, and the bot dealer deals once every circle reads, stable, what lies on it;
- at a Play decision the player places the Play in its Play circle (UTH the multiple of the Ante,
  3CP the Ante) before the decision is sent;
- at the showdown the bot dealer makes every circle its due (the full feed's `chips.circles`): a lost
  circle's chips go into the tray, a won circle is paid from the tray (its chips chosen from the
  tray's denominations), then the dealer confirms; once settled, the players take their chips back
  and the circles read empty before the next bets.

Faults injected, each hand with its own chance (`--faults mispay=P,...`, drawn from the seed and the hand):
`mispay` (the dealer pays one chip more than due), `past_post` (a chip added to an Ante after the
deal), `pinch` (a chip taken from an Ante after the deal), `foreign` (a retired, sample or void chip
placed with the bets) and `misread` (the board misses every chip of a spot's circles for two scans
fewer than the debounce's K, room for a natural miss on top: absorbed, no fault). The bot supervisor repairs what a supervisor
would (the past-posted chip back to its player, the pinched chip back in its circle, the foreign
chip taken away), waits until the readers show it, then clears with the sign-off; a mispay is
accepted as read. `chip_result` reads back from the journal what the table caught and the tray's
difference: the tray antenna's value change against the hands' house net as paid (the engine's
house net less what the readers showed paid beyond the dues); the tray ledger of issue 24 is not
used here (it was not on main when this was written).
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from drivers.chip_debounce import CONFIRM
from engine.chips import ChipSet, ChipStatus
from engine.games import HOUSE_GAMES
from firmware_host.service.journal import Journal
from sim.bots import BotDealer, BotError, DealerLog
from sim.chip_board import ChipBoardClient
from sim.restarter import end, read_json_line, spawn

DEMO_SET = Path(__file__).resolve().parents[1] / "deploy" / "chips-demo.csv"
"""The shipped demo chip set the simulated smart table plays with (`sim/demo_chips.py` makes it)."""

FAULT_KINDS = ("mispay", "past_post", "pinch", "foreign", "misread")
CAUGHT_AS: Mapping[str, str | None] = {"mispay": "mispay", "past_post": "chips_moved", "pinch": "chips_moved",
                                       "foreign": "foreign_chip", "misread": None}
"""The fault the table must stand for each injected kind (a misread: none, the debounce absorbs it)."""

TRAY_FLOAT = {100: 200, 500: 200, 2500: 100, 10000: 50, 50000: 10}
"""The tray's float at the start: chips of each value (cents), taken from the demo set's active chips."""

TRAY_MOST = 800
"""Chips in the tray above which the dealer sends a credit to the cage between hands (an antenna's inventory holds
at most `drivers.chip_protocol.MAX_UIDS`, 1,024 chips: a tray that only grows would outgrow it)."""

SETTLE_TIMEOUT_S = 20.0
"""How long the readers may take to show what lies on the board before the demo gives up (BotError)."""


def parse_faults(text: str) -> dict[str, float]:
    """`mispay=P,past_post=P,...` as kind -> chance per hand. Raises ValueError naming what is wrong.

    >>> parse_faults("mispay=0.1,foreign=1")
    {'mispay': 0.1, 'foreign': 1.0}
    """
    chances: dict[str, float] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        kind, eq, value = part.partition("=")
        if kind not in FAULT_KINDS:
            raise ValueError(f"--faults: no fault {kind!r} (faults: {', '.join(FAULT_KINDS)})")
        try:
            chance = float(value) if eq else -1.0
        except ValueError:
            chance = -1.0
        if not 0.0 <= chance <= 1.0:
            raise ValueError(f"--faults: {kind} needs a chance from 0 to 1 ({kind}=P), not {part!r}")
        chances[kind] = chance
    return chances


def faults_option(text: str) -> dict[str, float]:
    """`--faults` for argparse: `parse_faults`, its error an argparse one."""
    try:
        return parse_faults(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def start_chip_board(run_dir: Path, game: str, seats: int, seed: int) -> tuple[subprocess.Popen[bytes], dict[str, Any]]:
    """Start the emulated chip reader board (`croupier sim-chips` on a free TCP port, its log `run_dir/chips.log`):
    the process and its ready line (`port`, `control`). Raises RestarterError."""
    with open(run_dir / "chips.log", "ab") as err:
        proc = spawn([sys.executable, "-m", "cli", "sim-chips", "--tcp", "127.0.0.1:0", "--game", game,
                      "--spots", str(seats), "--seed", str(seed)], stderr=err)
    try:
        return proc, read_json_line(proc, 20.0, "sim-chips")
    except BaseException:
        end(proc)
        raise


def chip_refusal(chips: bool, faults: Mapping[str, float], game: str, dealer: str, kills: int) -> str | None:
    """What is wrong with `croupier demo`'s `--chips` and `--faults` beside its other options (None when nothing is)."""
    if faults and not chips:
        return "--faults injects chip faults: it needs --chips"
    if chips and (game not in HOUSE_GAMES or dealer != "bots" or kills):
        return "--chips is for the house games' bot dealer (uth, 3cp), without --kill"
    return None


def chip_sections(board_url: str, chip_set: str | Path = DEMO_SET) -> str:
    """The controller's `[chip_reader]` and `[chips]` sections for the emulated board at `board_url`."""
    return (f'\n[chip_reader]\nurl = "{board_url}"\nconfirm = {CONFIRM}\nsettle_ms = 300\n'
            f'\n[chips]\nset = "{Path(chip_set).resolve()}"\n')


def make_change(amount: int, chips: Mapping[int, Sequence[str]]) -> list[str]:
    """The fewest chips, greedily from the highest value, out of `chips` (value -> UIDs) that make `amount`.
    Raises BotError when they cannot make it.

    >>> make_change(1600, {500: ["A", "B", "C", "D"], 100: ["E", "F"]})
    ['A', 'B', 'C', 'E']
    """
    out: list[str] = []
    left = amount
    for value in sorted(chips, reverse=True):
        take = min(left // value, len(chips[value]))
        out += list(chips[value][:take])
        left -= take * value
    if left:
        raise BotError(f"no chips to make {amount} (short by {left})")
    return out


class Rack:
    """Chips off the table (the players' racks, or a pile): value -> UIDs."""

    def __init__(self, chip_set: ChipSet, uids: Sequence[str] = ()) -> None:
        self.set = chip_set
        self.chips: dict[int, list[str]] = {}
        self.give(uids)

    def give(self, uids: Sequence[str]) -> None:
        for uid in uids:
            chip = self.set.get(uid)
            self.chips.setdefault(chip.value if chip is not None else 0, []).append(uid)

    def take(self, amount: int) -> list[str]:
        """Chips making `amount`, taken off the rack. Raises BotError."""
        uids = make_change(amount, self.chips)
        for uid in uids:
            chip = self.set.get(uid)
            self.chips[chip.value if chip is not None else 0].remove(uid)
        return uids


def by_value(chip_set: ChipSet, uids: Sequence[str]) -> dict[int, list[str]]:
    """UIDs grouped by their chips' value."""
    out: dict[int, list[str]] = {}
    for uid in uids:
        chip = chip_set.get(uid)
        out.setdefault(chip.value if chip is not None else 0, []).append(uid)
    return out


def reads_match(state: Mapping[str, Any], lying: Mapping[str, Sequence[str]]) -> bool:
    """The full feed shows every circle reading, stable, exactly the chips that lie on it (the tray aside)."""
    chips, reads = state.get("chips") or {}, state.get("chip_reads") or {}
    if not chips.get("online"):
        return False
    read = {name: sorted(uids) for name, uids in (reads.get("uids") or {}).items() if name != "tray" and uids}
    lies = {name: sorted(uids) for name, uids in lying.items() if name != "tray" and uids}
    stable = all(c.get("stable") for c in chips.get("circles") or [])
    return stable and read == lies


class ChipDealer(BotDealer):
    """The bot dealer and players with chips on the emulated board (see the module docstring).

    `board` is the board's control address; `faults` kind -> chance per hand (`parse_faults`).
    `injected` counts what was injected. Raises what `BotDealer` raises, and BotError when the
    board refuses a move or the readers do not show the board in time.
    """

    def __init__(self, *args: Any, board: str, chip_set: ChipSet, faults: Mapping[str, float] | None = None,
                 **options: Any) -> None:
        super().__init__(*args, **options)
        self.fault_hook = lambda _dealer, fault: self._repair(fault)
        self.board = ChipBoardClient(board, timeout=10.0)
        self.chip_set = chip_set
        self.faults = dict(faults or {})
        self.injected: Counter[str] = Counter()
        self.tray_start: int | None = None
        self.credits = 0  # the value of the chips sent from the tray to the cage between hands
        self.fills = 0  # the value of the chips brought from the cage (or the racks) into the tray between hands
        self.tray_end: int | None = None
        self.foreign = [c.uid for c in chip_set if c.status is not ChipStatus.ACTIVE]
        active = by_value(chip_set, [c.uid for c in chip_set if c.status is ChipStatus.ACTIVE])
        float_ = [uid for value, count in TRAY_FLOAT.items() for uid in active.get(value, [])[:count]]
        kept = set(float_)
        self.rack = Rack(chip_set, [uid for uids in active.values() for uid in uids if uid not in kept])
        self.cage = Rack(chip_set)  # the chips credited from the tray
        self._float = float_
        self._plans: dict[int, list[str]] = {}  # hand -> the injections still to do in it
        self._placed: int | None = None  # the hand whose bets lie in the circles
        self._taken_back: int | None = None  # the hand before which the players took their chips back
        self._paid: int | None = None  # the hand whose circles are paid
        self._confirms: dict[int, int] = {}  # hand -> confirms asked
        self._repairs: list[tuple[str, str, str]] = []  # (what, antenna, uid) the supervisor puts right

    def chip_run(self) -> tuple[dict[str, int], int] | None:
        """`(injected, the tray's change as read plus the credits less the fills)` once the hands were played (None before)."""
        if self.tray_start is None or self.tray_end is None:
            return None
        asked = [k for k in FAULT_KINDS if k in self.faults or self.injected[k]]
        return {k: self.injected[k] for k in asked}, self.tray_end - self.tray_start + self.credits - self.fills

    def close(self) -> None:
        try:
            self.board.close()
        finally:
            super().close()

    # -- the table's chips ------------------------------------------------------------------------------

    def lying(self) -> dict[str, list[str]]:
        """Every antenna holding chips, as the board holds them."""
        return self.board.show()

    def settle(self, what: str, fault_ok: bool = True) -> None:
        """Wait until the readers show the board as it lies (or, with `fault_ok`, a fault stands). Raises BotError."""
        lying = self.lying()
        if not self.wait_for(lambda s: reads_match(s, lying) or (fault_ok and bool(s.get("fault"))),
                             SETTLE_TIMEOUT_S, what):
            raise BotError(f"the chip readers never showed {what}: the board holds {lying}, "
                           f"the table reads {(self.state.get('chip_reads') or {}).get('uids')}")

    def tray_value(self) -> int:
        """The tray antenna's value as read, once its reading holds what lies in the tray (up to the timeout)."""
        lying = sorted(self.lying().get("tray", []))

        def read(s: Mapping[str, Any]) -> bool:
            reads = s.get("chip_reads") or {}
            return bool((reads.get("tray") or {}).get("stable")) and sorted((reads.get("uids") or {}).get("tray", [])) == lying

        self.wait_for(read, SETTLE_TIMEOUT_S, "the tray")
        return int(((self.state.get("chip_reads") or {}).get("tray") or {}).get("value", 0))

    def play(self, hands: int) -> DealerLog:
        """Fill the tray with its float, read it, deal `hands` hands, read the tray again."""
        self.sync()
        if not self.lying().get("tray"):
            for start in range(0, len(self._float), 50):
                self.board.place("tray", *self._float[start:start + 50])
        self.tray_start = self.tray_value()
        log = super().play(hands)
        self.tray_end = self.tray_value()
        return log

    def _plan(self, hand: int) -> list[str]:
        if hand not in self._plans:
            rng = random.Random(f"{self.seed}:{hand}:chip-faults")
            self._plans[hand] = [k for k in FAULT_KINDS if rng.random() < self.faults.get(k, 0.0)]
        return self._plans[hand]

    def _due(self, hand: int, kind: str) -> bool:
        """`kind` is to be injected in `hand` and not yet done: now it is (counted)."""
        plan = self._plan(hand)
        if kind not in plan:
            return False
        plan.remove(kind)
        self.injected[kind] += 1
        return True

    # -- the hand's steps -------------------------------------------------------------------------------

    def _take_back(self, hand: int) -> None:
        """The players take their chips from every circle; the circles read empty."""
        if self._taken_back == hand:
            return
        for antenna in [a for a in self.lying() if a != "tray"]:
            self.rack.give(self.board.clear(antenna))
        self._taken_back = hand
        self._credit()
        self.settle("every circle empty", fault_ok=False)

    def _credit(self) -> None:
        """A tray grown past `TRAY_MOST` chips: the chips above its float, denomination by denomination, go to the cage
        (a credit, counted in `credits`; not journaled: the tray ledger's `credit` command was not on main); then `_fill`."""
        tray = self.lying().get("tray", [])
        if len(tray) <= TRAY_MOST:
            self._fill()
            return
        for value, uids in sorted(by_value(self.chip_set, tray).items()):
            extra = uids[TRAY_FLOAT.get(value, 0):]
            for start in range(0, len(extra), 50):
                self.board.remove("tray", *extra[start:start + 50])
            self.credits += value * len(extra)
            self.cage.give(extra)
        self._fill()

    def _fill(self) -> None:
        """A denomination the tray holds fewer of than its float: topped up from the cage (else the racks), a fill,
        counted in `fills` (not journaled either): a hand never finds the tray short of change."""
        tray = by_value(self.chip_set, self.lying().get("tray", []))
        for value, count in TRAY_FLOAT.items():
            short = count - len(tray.get(value, []))
            chips = [self._from_cage_or_rack(value) for _ in range(max(0, short))]
            for start in range(0, len(chips), 50):
                self.board.place("tray", *chips[start:start + 50])
            self.fills += value * len(chips)

    def _from_cage_or_rack(self, value: int) -> str:
        for pile in (self.cage, self.rack):
            if pile.chips.get(value):
                return pile.chips[value].pop()
        raise BotError(f"no chip of {value} left off the table for a fill")

    def _start_hand(self, st: Mapping[str, Any]) -> None:
        hand = self.next_hand(st)
        if st.get("game") != self.game and not (st.get("phase") == "bets" and st.get("spots")):
            super()._start_hand(st)  # the table is open for another game: reopen it
            return
        if self._shuffled != hand:
            self.shoe.request(f"shuffle {self.seed * 100003 + hand}")
            self._shuffled = hand
            self.log.draws.setdefault(hand, [])
        self._take_back(hand)
        if not self._seat_people(hand):
            return
        if self._placed != hand:
            for seat, player in sorted(self.players.items()):
                for circle, amount in player.bets(self.game, hand, self.limits).items():
                    self.board.place(f"spot{seat}.{circle}", *self.rack.take(amount))
            if self._due(hand, "foreign"):
                antenna = f"spot{random.Random(f'{self.seed}:{hand}:foreign').choice(sorted(self.players))}.ante"
                uid = self.foreign[hand % len(self.foreign)]
                self.board.place(antenna, uid)
                self._repairs.append(("take", antenna, uid))
            self._placed = hand
        self.settle("the bets placed")
        if self.state.get("fault"):
            return  # resolved at the next step
        # the `deal` command, not the panel's `next`: after a settled hand no bet was typed, so no hand is open for
        # `next` (a button has no hand number; it deals only while betting is open)
        self.request("deal", f"{hand}-deal", hand=hand)

    def _decide(self, st: Mapping[str, Any]) -> None:
        hand, seat, street = int(st["hand"]), int(st["to_act"]), str(st["phase"])
        if self._inject_mid_hand(hand, seat):
            return  # the fault is resolved at the next step
        spot = next(s for s in st["spots"] if s["seat"] == seat)
        player = self.players[seat]
        game = self.game if st.get("game") is None else str(st["game"])
        decision, multiple = player.decide(game, street, spot["cards"], st.get("board") or [])
        if decision == "play":
            antenna = f"spot{seat}.play"
            if not self.lying().get(antenna):
                self.board.place(antenna, *self.rack.take(int(spot["bets"]["ante"]) * (multiple or 1)))
            self.settle(f"seat {seat}'s Play placed")
            if self.state.get("fault"):
                return
        args: dict[str, Any] = {"seat": seat, "decision": decision}
        if multiple is not None:
            args["multiple"] = multiple
        self.request("decide", f"{hand}-{street}-{seat}", hand=hand, **args)

    def _inject_mid_hand(self, hand: int, seat: int) -> bool:
        """At a decision, once the cards are out: a misread (absorbed, the decision goes on), or a chip added to
        or taken from the seat's Ante (True: the table is to stand the chips_moved fault first)."""
        ante = f"spot{seat}.ante"
        if self._due(hand, "misread"):
            lying = self.lying()
            for antenna in [a for a in lying if a.startswith(f"spot{seat}.")]:
                for uid in lying[antenna]:
                    self.board.miss(antenna, uid, CONFIRM - 2)  # K - 1 with one natural miss on top would be K
        if self._due(hand, "past_post"):
            uid = self.rack.take(100)[0]
            self.board.place(ante, uid)
            self._repairs.append(("take", ante, uid))
        elif self._due(hand, "pinch"):
            uid = self.lying()[ante][-1]
            self.board.remove(ante, uid)
            self._repairs.append(("put", ante, uid))
        else:
            return False
        self.settle("the moved chip")
        return True

    def _confirm(self, st: Mapping[str, Any]) -> None:
        hand = int(st["hand"])
        if self._paid != hand:
            self._pay(hand, st)
            self._paid = hand
        self.settle("the circles paid")
        if self.state.get("fault"):
            return
        # a confirm met by a mispay is answered once: the confirm after the sign-off is another request
        self._confirms[hand] = self._confirms.get(hand, 0) + 1
        if self._chance(hand, "confirm"):
            self._button("confirm", lambda s: s.get("phase") != "showdown" or s.get("hand") != hand or bool(s.get("fault")))
            return
        self.request("confirm", f"{hand}-confirm-{self._confirms[hand]}", hand=hand)

    def _pay(self, hand: int, st: Mapping[str, Any]) -> None:
        """Make every circle its due: lost chips into the tray, wins paid from the tray; a mispay when planned."""
        circles = [c for c in (st.get("chips") or {}).get("circles") or [] if "due" in c]
        lying = self.lying()
        for c in circles:
            antenna, due = f"spot{c['seat']}.{c['circle']}", int(c["due"])
            there = lying.get(antenna, [])
            value = self.chip_set.value(there)
            if due == value:
                continue
            if due < value and there:
                self.board.move(antenna, "tray", *there)
                value = 0
            if due > value:
                tray = by_value(self.chip_set, self.lying().get("tray", []))
                self.board.move("tray", antenna, *make_change(due - value, tray))
        if circles and self._due(hand, "mispay"):  # one chip more than due, on a won circle when there is one
            won = [c for c in circles if int(c["due"]) > int(c["value"])] or circles
            c = random.Random(f"{self.seed}:{hand}:mispay").choice(won)
            self.board.move("tray", f"spot{c['seat']}.{c['circle']}", by_value(self.chip_set, self.lying()["tray"])[100][0])

    def _repair(self, fault: Mapping[str, Any]) -> Mapping[str, Any] | None:
        """The supervisor puts right what was done to the chips (not a mispay: accepted as read); the readers show it."""
        if fault.get("kind") in ("chips_moved", "foreign_chip") and self._repairs:
            for what, antenna, uid in self._repairs:
                if what == "take":
                    self.board.remove(antenna, uid)
                    if uid not in self.foreign:
                        self.rack.give([uid])
                else:
                    self.board.place(antenna, uid)
            self._repairs.clear()
            self.settle("the chips put right", fault_ok=False)
        return None


def chip_result(state_dir: str | Path, first_hand: int, hands: int, injected: Mapping[str, int],
                tray_change: int) -> tuple[dict[str, Any], dict[str, int]]:
    """`({"injected", "caught", "tray_difference"}, unexpected)` read back from the journal for hands
    first_hand .. first_hand+hands-1: the faults the table stood (not those met while one stood: a
    supervisor's repair), each matched to an injected kind; what no injection explains (`unexpected`,
    kind -> count); the tray's change less the hands' house net as paid. Raises JournalError."""
    journal = Journal.open(state_dir, readonly=True)
    try:
        rows = [r for r in journal.hands() if first_hand <= r.hand < first_hand + hands]
    finally:
        journal.close()
    stood: Counter[str] = Counter(str(f["kind"]) for r in rows for f in r.record.get("faults") or [] if not f.get("during"))
    caught: dict[str, int] = {}
    for kind in FAULT_KINDS:
        if kind not in injected:
            continue
        fault = CAUGHT_AS[kind]
        caught[kind] = min(stood[fault], injected[kind]) if fault is not None else 0
        if fault is not None:
            stood[fault] -= caught[kind]
    house_net = 0
    for r in rows:
        if r.status != "settled":
            continue
        chips = r.record.get("chips") or {}
        over = sum(int(v) - int((chips.get("dues") or {}).get(n, 0)) for n, v in (chips.get("paid") or {}).items())
        house_net += int((r.record.get("settlement") or {}).get("house_net", 0)) - over
    unexpected = {kind: n for kind, n in stood.items() if n > 0}
    return {"injected": dict(injected), "caught": caught, "tray_difference": tray_change - house_net}, unexpected


def chip_summary(state_dir: str | Path, first_hand: int, hands: int, injected: Mapping[str, int],
                 tray_change: int) -> tuple[dict[str, Any], bool]:
    """The demo line's `chips` (`chip_result`) and whether all is well: every injected fault caught, none
    that no injection explains (each said on standard error), the tray difference zero. Raises JournalError."""
    chips, unexpected = chip_result(state_dir, first_hand, hands, injected, tray_change)
    missed = {k: n - chips["caught"].get(k, 0) for k, n in injected.items()
              if CAUGHT_AS[k] is not None and n != chips["caught"].get(k, 0)}
    for what, counts in (("injected and not caught", missed), ("stood with no injection", unexpected)):
        if counts:
            print(f"croupier demo: chip faults {what}: {counts}", file=sys.stderr)
    return chips, not missed and not unexpected and chips["tray_difference"] == 0


__all__ = ["CAUGHT_AS", "ChipDealer", "DEMO_SET", "FAULT_KINDS", "Rack", "chip_refusal", "chip_result", "chip_sections", "chip_summary", "faults_option",
           "make_change", "parse_faults", "reads_match", "start_chip_board"]
