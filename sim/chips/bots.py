"""The simulated smart table's chips (`croupier demo --chips`): bots bet real chips of the demo set, the bot dealer collects and pays from the tray, faults injected and accounted.

The emulated chip board (`croupier sim-chips`) runs beside the emulated shoe; the controller reads it
under `[chip_reader]` and values its chips with `[chips] set = deploy/chips-demo.csv`. The chips lie
physically on the board (its control port, `sim.chips.board.ChipBoardClient`):

- the players' chips off the table are their racks (`Rack`: every active chip of the set not in the
  tray's float); a bot places its stakes as chips in its circles, the fewest chips that make each
  stake, and the bot dealer deals once every circle reads, stable, what lies on it;
- at a Play decision the player places the Play in its Play circle (UTH the multiple of the Ante,
  3CP the Ante) before the decision is sent;
- at the showdown the bot dealer makes every circle its due (the full feed's `chips.circles`): a lost
  circle's chips go into the tray, a won circle is paid from the tray (its chips chosen from the
  tray's denominations), then the dealer confirms; once settled, the players take their chips back
  and the circles read empty before the next bets.

The tray's chips move besides the hands' play as a dealer's would, each movement a command the table
journals (the tray ledger's: `engine/tray.py`): a bot sits down with cash and buys in (`buy_in`, the
chips sold from the tray to its own rack; again whenever its rack cannot make a stake), a rack grown
heavy in the smallest chips is coloured up (`colour_up`: its small chips into the tray, bigger ones of
the same value out), and between hands a denomination the tray holds fewer of than its float is filled
from the cage, a tray grown past `TRAY_MOST` chips sends its excess to the cage and now and then
(`CREDIT_CHANCE`) the pit sends a few of its biggest chips there (`fill`, `credit`: signed off by the
bot supervisor, as it signs off the faults). The tray antenna reads every chip
moved; the table reconciles it with no help from here.

Faults injected, each hand with its own chance (`--faults mispay=P,...`, drawn from the seed and the hand):
`mispay` (the dealer pays one chip more than due), `past_post` (a chip added to an Ante after the
deal), `pinch` (a chip taken from an Ante after the deal), `foreign` (a retired, sample or void chip
placed with the bets) and `misread` (the board misses every chip of a spot's circles for two scans
fewer than the debounce's K, room for a natural miss on top: absorbed, no fault). The bot supervisor repairs what a supervisor
would (the past-posted chip back to its player, the pinched chip back in its circle, the foreign
chip taken away), waits until the readers show it, then clears with the sign-off; a mispay is
accepted as read. `chip_result` reads back from the journal what the table caught and the tray
ledger's own difference (`croupier tray --state DIR --json`: closing - opening - fills + credits +
chips sold - the hands' house net as paid), which must be 0 with nothing flagged.
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
from firmware_host.service.tray import TrayWatch
from protocol.messages import ChipCircle, FullFault, FullState
from sim.bots.dealer import BotDealer, DealerLog
from sim.bots.errors import BotError
from sim.chips.hands import BUY_IN_CHIPS, TRAY_FLOAT, ChipHands, Rack, by_value, make_change, seat_of, tray_float
from sim.restarter import end, read_json_line, spawn

DEMO_SET = Path(__file__).resolve().parents[2] / "deploy" / "chips-demo.csv"
"""The shipped demo chip set the simulated smart table plays with (`sim/demo_chips.py` makes it)."""

FAULT_KINDS = ("mispay", "past_post", "pinch", "foreign", "misread")
CAUGHT_AS: Mapping[str, str | None] = {"mispay": "mispay", "past_post": "chips_moved", "pinch": "chips_moved",
                                       "foreign": "foreign_chip", "misread": None}
"""The fault the table must stand for each injected kind (a misread: none, the debounce absorbs it)."""

TRAY_MOST = 800
"""Chips in the tray above which the dealer sends a credit to the cage between hands (an antenna's inventory holds
at most `drivers.chip_protocol.MAX_UIDS`, 1,024 chips: a tray that only grows would outgrow it)."""

CREDIT_CHANCE = 0.2
"""The chance, between two hands, that the pit sends chips from the tray to the cage (a `credit`, signed off) though
the tray is not full: `CREDIT_CHIPS` of the biggest value it holds more than half its float of (drawn from the seed
and the hand), so a shift meets every movement kind (buy-in, colour-up, fill, credit)."""

CREDIT_CHIPS = 5
"""The most chips such a credit sends (5 x EUR 500, or 5 x EUR 100, ...)."""

COLOUR_UP_AT = 30
"""Chips of the smallest value in a bot's rack above which the dealer colours up `COLOUR_UP_CHIPS` of them."""

COLOUR_UP_CHIPS = 20
"""How many of the smallest chips a colour-up changes for bigger ones (20 x 100 for 4 x 500)."""

SCAN_PERIOD_S = 0.1
"""The emulated board's seconds between two scans of every antenna by default (`croupier sim-chips --period`; the
demo's `--chip-scan`): ten inventories a second an antenna, as issue 24's bench reads."""

SETTLE_SCANS = 6
"""The demo reader's settle time in the board's scans (`[chip_reader] settle_ms`: `settle_ms(period)`). The tray's
first stable reading is the shift's opening inventory; at three scans a chip high in a column of the float,
confirmed a few scans late, once came after a stable reading without it (EUR 1 flagged before the first hand)."""


def settle_ms(period_s: float) -> int:
    """The reader's settle time, in ms, for a board scanning every `period_s` seconds: `SETTLE_SCANS` of its scans.

    >>> settle_ms(0.1), settle_ms(0.04)
    (600, 240)
    """
    return round(SETTLE_SCANS * period_s * 1000)


SETTLE_MS = settle_ms(SCAN_PERIOD_S)
"""The demo reader's settle time at the board's default pace (600 ms)."""

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


def scan_seconds(text: str) -> float:
    """`--chip-scan` for argparse: the board's seconds between scans, 0.02 to 1 (its error an argparse one)."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0.02 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"seconds between the board's scans from 0.02 to 1, not {text!r}")
    return value


def start_chip_board(run_dir: Path, game: str, seats: int, seed: int,
                     period_s: float = SCAN_PERIOD_S) -> tuple[subprocess.Popen[bytes], dict[str, Any]]:
    """Start the emulated chip reader board (`croupier sim-chips` on a free TCP port, scanning every `period_s`
    seconds, its log `run_dir/chips.log`): the process and its ready line (`port`, `control`). Raises RestarterError."""
    with open(run_dir / "chips.log", "ab") as err:
        proc = spawn([sys.executable, "-m", "cli", "sim-chips", "--tcp", "127.0.0.1:0", "--game", game,
                      "--spots", str(seats), "--seed", str(seed), "--period", str(period_s)], stderr=err)
    try:
        return proc, read_json_line(proc, 20.0, "sim-chips")
    except BaseException:
        end(proc)
        raise


def fill_tray(board: str, chip_set: ChipSet) -> None:
    """Lay the tray's float in the emulated board's tray at `board` (its control address), before the controller
    starts: its first reading of the tray, the shift's opening inventory, holds the whole float (laid while the
    table reads, a loaded machine's first stable reading once held a seventh of it)."""
    hands = ChipHands(board, chip_set, ())
    try:
        if not hands.lying().get("tray"):
            hands.lay_float()
    finally:
        hands.close()


def chip_refusal(chips: bool, faults: Mapping[str, float], game: str, dealer: str, kills: int) -> str | None:
    """What is wrong with `croupier demo`'s `--chips` and `--faults` beside its other options (None when nothing is)."""
    if faults and not chips:
        return "--faults injects chip faults: it needs --chips"
    if chips and (game not in HOUSE_GAMES or kills):
        return "--chips is for the house games (uth, 3cp), without --kill"
    if dealer == "web" and set(faults) - {"mispay"}:
        return "--chips --dealer web injects mispays only (--faults mispay=P): a person clears what the console holds"
    return None


def mispaid(circles: Sequence[ChipCircle], seed: int, hand: int) -> ChipCircle:
    """The circle an injected mispay pays a chip more: a won one when there is one, drawn from the seed and the hand."""
    won = [c for c in circles if int(c["due"]) > int(c["value"])] or circles
    return random.Random(f"{seed}:{hand}:mispay").choice(won)


def chip_sections(board_url: str, chip_set: str | Path = DEMO_SET, period_s: float = SCAN_PERIOD_S) -> str:
    """The controller's `[chip_reader]` and `[chips]` sections for the emulated board at `board_url`, which scans
    every `period_s` seconds (the settle time `SETTLE_SCANS` of its scans)."""
    return (f'\n[chip_reader]\nurl = "{board_url}"\nconfirm = {CONFIRM}\nsettle_ms = {settle_ms(period_s)}\n'
            f'\n[chips]\nset = "{Path(chip_set).resolve()}"\n')


def circle_uids(state: FullState) -> dict[str, list[str]]:
    """Each circle holding chips and their UIDs, as the full feed shows them (`chip_uids`; the tray's are `tray_uids`)."""
    return {str(c["antenna"]): list(c["uids"]) for c in state.get("chip_uids") or [] if c.get("uids")}


def reads_match(state: FullState, lying: Mapping[str, Sequence[str]]) -> bool:
    """The full feed shows every circle reading, stable, exactly the chips that lie on it (the tray aside)."""
    chips = state.get("chips")
    if chips is None or not chips["online"]:
        return False
    read = {name: sorted(uids) for name, uids in circle_uids(state).items()}
    lies = {name: sorted(uids) for name, uids in lying.items() if name != "tray" and uids}
    stable = all(c["stable"] for c in chips["circles"])
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
        self.hands = ChipHands(board, chip_set, self.players)  # the racks bought in, the cage, the board
        self.board, self.racks, self.cage = self.hands.board, self.hands.racks, self.hands.cage
        self.chip_set = chip_set
        self.faults = dict(faults or {})
        self.injected: Counter[str] = Counter()
        self.foreign = [c.uid for c in chip_set if c.status is not ChipStatus.ACTIVE]
        self.moved: Counter[str] = Counter()  # movements recorded: buy_in, colour_up, fill, credit
        self._plans: dict[int, list[str]] = {}  # hand -> the injections still to do in it
        self._placed: int | None = None  # the hand whose bets lie in the circles
        self._taken_back: int | None = None  # the hand before which the players took their chips back
        self._paid: int | None = None  # the hand whose circles are paid
        self._confirms: dict[int, int] = {}  # hand -> confirms asked
        self._repairs: list[tuple[str, str, str]] = []  # (what, antenna, uid) the supervisor puts right

    def chip_run(self) -> dict[str, int]:
        """The faults injected, by kind (those asked for, or met)."""
        asked = [k for k in FAULT_KINDS if k in self.faults or self.injected[k]]
        return {k: self.injected[k] for k in asked}

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
                           f"the table reads {circle_uids(self.state)}")

    def settle_tray(self) -> None:
        """Wait until the tray antenna reads, stable, what lies in the tray (the ledger checks the tray's stable
        readings: a hand's close or a movement must not meet one that lags the board). Raises BotError."""
        lying = sorted(self.lying().get("tray", []))

        def read(s: FullState) -> bool:
            reads = s.get("chip_reads")
            return reads is not None and reads["tray"]["stable"] and sorted(s.get("tray_uids") or []) == lying

        if not self.wait_for(read, SETTLE_TIMEOUT_S, "the tray"):
            raise BotError(f"the tray antenna never read the {len(lying)} chips in the tray")

    def play(self, hands: int) -> DealerLog:
        """Fill the tray with its float unless it holds chips (`fill_tray` laid it before the controller started), read
        it (the shift's opening inventory), deal `hands` hands, read the tray."""
        self.sync()
        if not self.lying().get("tray"):
            self.hands.lay_float()
        self.settle_tray()
        log = super().play(hands)
        self.settle_tray()
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
        """The players take their chips from every circle (each to its own rack); the circles read empty; the tray's
        movements between hands (colour-ups, a credit, fills) are made and recorded."""
        if self._taken_back == hand:
            return
        self.hands.take_back()
        self._taken_back = hand
        self.settle("every circle empty", fault_ok=False)
        self.settle_tray()  # the last hand is checked against the tray as it read once paid
        for seat in sorted(self.racks):
            self._colour_up(seat, hand)
        self._credit(hand)
        self._fill(hand)

    def _record(self, kind: str, hand: int, **args: Any) -> None:
        """Record a movement of chips at the tray (the command of its name; a fill or credit signed off)."""
        self.moved[kind] += 1
        self.request(kind, f"{hand}-{kind}-{self.moved[kind]}", **args)

    def _stake(self, seat: int, amount: int, hand: int) -> list[str]:
        """Chips making `amount` from the seat's rack; when it cannot make them, the bot buys in first."""
        return self.hands.stake(seat, amount, lambda short: self._buy_in(short, hand))

    def _buy_in(self, seat: int, hand: int) -> None:
        """The bot changes cash for `BUY_IN_CHIPS` at its seat: sold from the tray, recorded (`buy_in`)."""
        tray = self.hands.tray()
        chips = [uid for value, count in BUY_IN_CHIPS.items() for uid in tray.get(value, [])[:count]]
        self.hands.sell(seat, chips)
        self._record("buy_in", hand, seat=seat, amount=self.chip_set.value(chips))

    def _colour_up(self, seat: int, hand: int) -> None:
        """A rack with more than `COLOUR_UP_AT` chips of the smallest value: `COLOUR_UP_CHIPS` of them into the tray,
        the same value out of it in bigger chips (`colour_up`: the tray's value does not change)."""
        rack, small = self.racks[seat], min(TRAY_FLOAT)
        if len(rack.chips.get(small, [])) <= COLOUR_UP_AT:
            return
        given = rack.take_chips(small, COLOUR_UP_CHIPS)
        if self.hands.colour_up(seat, given):  # else the tray cannot change them now: the player keeps them
            self._record("colour_up", hand, seat=seat, amount=small * len(given))

    def _credit(self, hand: int) -> None:
        """A tray grown past `TRAY_MOST` chips: the chips above its float, denomination by denomination, go to the
        cage; else, by `CREDIT_CHANCE`, a few of its biggest chips (`CREDIT_CHIPS`) do (a `credit`, signed off)."""
        tray = self.lying().get("tray", [])
        held = by_value(self.chip_set, tray)
        sent: list[str] = []
        if len(tray) > TRAY_MOST:
            for value, uids in sorted(held.items()):
                sent += uids[TRAY_FLOAT.get(value, 0):]
        elif random.Random(f"{self.seed}:{hand}:credit").random() < CREDIT_CHANCE:
            for value in sorted(TRAY_FLOAT, reverse=True):
                spare = len(held.get(value, [])) - TRAY_FLOAT[value] // 2  # the tray keeps half its float of each
                if spare > 0:
                    sent = held[value][-min(spare, CREDIT_CHIPS):]
                    break
        if not sent:
            return
        self.hands.to_cage(sent)
        self._record("credit", hand, amount=self.chip_set.value(sent), slip=f"C{hand}")

    def _fill(self, hand: int) -> None:
        """A denomination the tray holds fewer than half its float of: every denomination short of its float topped
        up from the cage (a `fill`, signed off), so no hand finds the tray short of change."""
        tray = by_value(self.chip_set, self.lying().get("tray", []))
        if all(len(tray.get(value, [])) * 2 >= count for value, count in TRAY_FLOAT.items()):
            return
        chips: list[str] = []
        for value, count in TRAY_FLOAT.items():
            short = min(count - len(tray.get(value, [])), len(self.cage.chips.get(value, [])))
            if short > 0:  # what the cage holds (the players keep many of the set's chips in their racks)
                chips += self.cage.take_chips(value, short)
        if not chips:
            return
        self.hands.to_tray(chips)
        self._record("fill", hand, amount=self.chip_set.value(chips), slip=f"F{hand}")

    def _start_hand(self, st: FullState) -> None:
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
                    self.hands.place(seat, circle, self._stake(seat, amount, hand))
            if self._due(hand, "foreign"):
                antenna = f"spot{random.Random(f'{self.seed}:{hand}:foreign').choice(sorted(self.players))}.ante"
                uid = self.foreign[hand % len(self.foreign)]
                self.board.place(antenna, uid)
                self._repairs.append(("take", antenna, uid))
            self._placed = hand
        self.settle("the bets placed")
        if self.state.get("fault"):
            return  # resolved at the next step
        self.settle_tray()
        # the `deal` command, not the panel's `next`: after a settled hand no bet was typed, so no hand is open for
        # `next` (a button has no hand number; it deals only while betting is open)
        self.request("deal", f"{hand}-deal", hand=hand)

    def _decide(self, st: FullState) -> None:
        to_act = st["to_act"]
        assert to_act is not None  # step() decides only when a seat is to act
        hand, seat, street = int(st["hand"]), int(to_act), str(st["phase"])
        if self._inject_mid_hand(hand, seat):
            return  # the fault is resolved at the next step
        spot = next(s for s in st["spots"] if s["seat"] == seat)
        player = self.players[seat]
        game = self.game if st.get("game") is None else str(st["game"])
        decision, multiple = player.decide(game, street, spot["cards"], st.get("board") or [])
        if decision == "play":
            antenna = f"spot{seat}.play"
            if not self.lying().get(antenna):
                self.board.place(antenna, *self._stake(seat, int(spot["bets"]["ante"]) * (multiple or 1), hand))
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
            held = [value for value, uids in self.racks[seat].chips.items() if uids]
            uid = self.racks[seat].take_chips(min(held), 1)[0] if held else self._stake(seat, 100, hand)[0]
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

    def _confirm(self, st: FullState) -> None:
        hand = int(st["hand"])
        if self._paid != hand:
            self._pay(hand, st)
            self._paid = hand
        self.settle("the circles paid")
        if self.state.get("fault"):
            return
        self.settle_tray()
        # a confirm met by a mispay is answered once: the confirm after the sign-off is another request
        self._confirms[hand] = self._confirms.get(hand, 0) + 1
        if self._chance(hand, "confirm"):
            self._button("confirm", lambda s: s.get("phase") != "showdown" or s.get("hand") != hand or bool(s.get("fault")))
            return
        self.request("confirm", f"{hand}-confirm-{self._confirms[hand]}", hand=hand)

    def _pay(self, hand: int, st: FullState) -> None:
        """Make every circle its due: lost chips into the tray, wins paid from the tray; a mispay when planned."""
        chips = st.get("chips")
        circles = [c for c in (chips["circles"] if chips is not None else []) if "due" in c]
        more = mispaid(circles, self.seed, hand) if circles and self._due(hand, "mispay") else None
        self.hands.pay(circles, more)

    def _repair(self, fault: FullFault) -> Mapping[str, str] | None:
        """The supervisor puts right what was done to the chips (not a mispay: accepted as read); the readers show it."""
        if fault.get("kind") in ("chips_moved", "foreign_chip") and self._repairs:
            for what, antenna, uid in self._repairs:
                if what == "take":
                    self.board.remove(antenna, uid)
                    if uid not in self.foreign:
                        self.racks[seat_of(antenna)].give([uid])
                else:
                    self.board.place(antenna, uid)
            self._repairs.clear()
            self.settle("the chips put right", fault_ok=False)
        return None


def chip_result(state_dir: str | Path, first_hand: int, hands: int,
                injected: Mapping[str, int]) -> tuple[dict[str, Any], dict[str, int], int, int]:
    """`({"injected", "caught", "tray_difference"}, unexpected, flagged, closed)` read back from the journal for
    hands first_hand .. first_hand+hands-1: the faults the table stood (not those met while one stood: a
    supervisor's repair), each matched to an injected kind; what no injection explains (`unexpected`,
    kind -> count); the tray ledger's difference for the shift (as `croupier tray` replays it: closing -
    opening - fills + credits + chips sold - the hands' house net; None when the tray was never read),
    how many tray differences it flagged and how many of those hands closed. Raises JournalError."""
    journal = Journal.open(state_dir, readonly=True)
    try:
        rows = [r for r in journal.hands() if first_hand <= r.hand < first_hand + hands]
        ledger = TrayWatch.from_journal(journal, None).ledger
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
    unexpected = {kind: n for kind, n in stood.items() if n > 0}
    difference = ledger.reconciliation().difference if ledger is not None else None
    flagged = len(ledger.flags) if ledger is not None else 0
    return {"injected": dict(injected), "caught": caught, "tray_difference": difference}, unexpected, flagged, len(rows)


def chip_summary(state_dir: str | Path, first_hand: int, hands: int,
                 injected: Mapping[str, int]) -> tuple[dict[str, Any], bool]:
    """The demo line's `chips` (`chip_result`) and whether all is well: every injected fault caught, none
    that no injection explains, the tray ledger's difference zero with nothing flagged (each said on standard
    error; a demo ended before any hand closed has nothing to reconcile, and says so). Raises JournalError."""
    chips, unexpected, flagged, closed = chip_result(state_dir, first_hand, hands, injected)
    missed = {k: n - chips["caught"].get(k, 0) for k, n in injected.items()
              if CAUGHT_AS[k] is not None and n != chips["caught"].get(k, 0)}
    for what, counts in (("injected and not caught", missed), ("stood with no injection", unexpected)):
        if counts:
            print(f"croupier demo: chip faults {what}: {counts}", file=sys.stderr)
    difference = chips["tray_difference"]
    if difference is None and not closed and not flagged:  # ended before the tray's opening inventory was journaled
        print("croupier demo: no hand closed: the tray has nothing to reconcile", file=sys.stderr)
        return chips, not missed and not unexpected
    if difference is None:
        print(f"croupier demo: the tray was never read: the shift cannot be reconciled, {flagged} difference(s) "
              f"flagged (croupier tray --state {state_dir})", file=sys.stderr)
    elif flagged or difference != 0:
        print(f"croupier demo: the tray does not reconcile: it is {difference:+d} off (in cents), {flagged} "
              f"difference(s) flagged (croupier tray --state {state_dir})", file=sys.stderr)
    return chips, not missed and not unexpected and not flagged and difference == 0


__all__ = ["CAUGHT_AS", "ChipDealer", "DEMO_SET", "FAULT_KINDS", "Rack", "SCAN_PERIOD_S", "SETTLE_MS", "TRAY_FLOAT", "by_value", "chip_refusal", "chip_result", "chip_sections", "chip_summary", "faults_option",
           "fill_tray", "make_change", "mispaid", "parse_faults", "reads_match", "scan_seconds", "settle_ms", "start_chip_board", "tray_float"]
