"""The smart table dealt by a person at `/dealer` (`croupier demo --chips --dealer web`): the bot players' chips and the dealer's hands on the emulated chip board.

At a smart table the bets are read, not typed: nothing a person taps at the console puts a chip in a
circle. `ChipsAtConsole` follows the full feed and does, with the shared moves of `sim/chips/hands.py`,
what the hands at the table do while the person at the console deals, confirms and settles:

- **the players' bets**: once the betting is open and every circle reads empty, each bot places its
  stake (`BotPlayer.bets`) as chips in its circles; the person taps Deal once the readers show them;
- **the players' decisions**: at a bot's turn, a Play goes into its Play circle as chips (UTH the
  multiple of the Ante, 3CP the Ante); with `decide` the bot then sends its decision after `wait_s` unless
  the console made it first (`croupier demo --players-by bots`), else the person taps it (`--players-by web`);
- **the dealer's hands at the payout**: `hands_s` after the table waits on payout verification, every
  circle is made its due (lost chips into the tray, wins paid from it); with the chance `mispay` a won
  circle gets a chip more, which the person sees held at Confirm and clears with a supervisor's PIN;
- **the players take their chips** `hands_s` after the hand is settled, and the next bets follow;
- **the reader unplugged for one hand** (`offline_at`, `croupier demo --chip-offline-at HAND`): once the hand before
  it is taken back, the board is unplugged (its `lost` fault) and no bot places or decides anything: the person taps
  that hand's bets and decisions at the console (the taps audited as typed); once it is settled the dealer's hands
  settle it by eye (each seat's net paid from the tray or taken into it), and the board is plugged back;
- **the tray's movements**: each buy-in, colour-up, fill and credit the console's Tray dialog records
  (read from the journal) moves its chips: a buy-in's out of the tray to the seat's player, a
  colour-up's small chips in and bigger ones out, a fill's in from the cage, a credit's out to it.

A bot short of chips for its stake fetches more from the cashier (the cage), as a player does, not from the
tray (a buy-in at the table is the person's to record). Nothing here deals a card (`sim.dealing.ShoeHand`
does), confirms, clears or signs off: those are the person's.
"""

from __future__ import annotations

import logging
import os
import random
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import zmq

from engine.chips import ChipSet
from firmware_host.service.journal import Journal, JournalError
from firmware_host.service.tray import MOVEMENTS
from protocol.commands import CommandClient
from protocol.messages import ChipCircle, FullState
from sim.bots.errors import BotError
from sim.bots.players import BotPlayer
from sim.bots.table import SimLimits, TableEndpoints
from sim.chips.bots import circle_uids, mispaid
from sim.chips.hands import BUY_IN_CHIPS, ChipHands, make_change
from sim.following import FollowingThread
from sim.yielding import BETWEEN_HANDS, next_hand

log = logging.getLogger("croupier.chip_console")

HANDS_S = 1.5
"""How long the dealer's hands wait before paying (and the players before taking their chips): the console shows
the dues against the reads first."""

JOURNAL_EVERY_S = 0.5
"""How often the journal is looked at for the movements the console recorded."""


def circles_of(state: FullState) -> list[ChipCircle]:
    """The feed's `chips.circles` (none at a table without chips)."""
    chips = state.get("chips")
    return chips["circles"] if chips is not None else []


def circles_with_dues(state: FullState) -> list[ChipCircle]:
    """The circles the table checks at the payout (the feed's `chips.circles` holding a `due`)."""
    return [c for c in circles_of(state) if c.get("due") is not None]


def circles_read_empty(state: FullState) -> bool:
    """Every betting circle reads no chip (the tray aside)."""
    return not circle_uids(state)


class ChipsAtConsole(FollowingThread):
    """The players' and the dealer's hands at a smart table dealt from the console (see the module docstring).

    `board` is the emulated board's control address, `state_dir` the controller's journal directory; `mispay` the
    chance a hand's payout is a chip over. `injected` counts the mispays made. `stop()` ends it.
    """

    def __init__(self, endpoints: TableEndpoints, board: str, chip_set: ChipSet, players: Sequence[BotPlayer], *,
                 game: str, state_dir: str | Path, limits: SimLimits = SimLimits(), decide: bool = True,
                 wait_s: float = 8.0, hands_s: float = HANDS_S, mispay: float = 0.0, seed: int = 0,
                 offline_at: int | None = None, key: str | None = None, server_key: str | None = None,
                 feed_key: str | None = None) -> None:
        super().__init__("chips-at-console", endpoints, key, server_key, feed_key)
        self.board, self.chip_set, self.game, self.limits = board, chip_set, game, limits
        self.players = {p.seat: p for p in players}
        self.state_dir = Path(state_dir)
        self.decide, self.wait_s, self.hands_s = decide, wait_s, hands_s
        self.mispay, self.seed, self.offline_at = mispay, seed, offline_at
        self._offline_nets: dict[int, int] = {}  # the offline hand's nets by seat, once seen settled
        self.injected: Counter[str] = Counter()
        self.run_id = os.urandom(4).hex()
        self.hands: ChipHands | None = None
        self._commands: CommandClient | None = None
        self._journal: Journal | None = None
        self._seen_event = -1  # the last journal event looked at (-1: none yet; the journal's end at the start)
        self._journal_at = 0.0
        self._since: dict[tuple[int, str], float] = {}  # (hand, step) -> when the step was first seen due
        self._steps: set[tuple[int, str]] = set()  # (hand, step) done: bets placed, taken back, paid, a Play, a decision

    def open(self, ctx: zmq.Context[Any]) -> list[Any]:
        self.hands = ChipHands(self.board, self.chip_set, self.players)
        things: list[Any] = [self.hands]
        if self.decide:
            self._commands = CommandClient(ctx, self.endpoints.commands, timeout_s=2.0, name=f"chips-{self.run_id}",
                                           key=self.key, server_key=self.server_key)
            things.append(self._commands)
        return things

    def run(self) -> None:
        try:
            super().run()
        finally:
            if self._journal is not None:
                self._journal.close()

    def chip_run(self) -> dict[str, int]:
        """The faults injected, by kind (`mispay` whenever it was asked for)."""
        return {"mispay": self.injected["mispay"]} if self.mispay or self.injected else {}

    def on_state(self, state: FullState) -> None:
        now = time.monotonic()
        try:
            if now - self._journal_at >= JOURNAL_EVERY_S:
                self._journal_at = now
                self._movements()
            if state and self.offline_at is not None and (self.offline_at, "unplugged") in self._steps:
                self._plug_back(state)
            chips = state.get("chips")
            if not state or chips is None or not chips["online"]:
                return
            phase = state.get("phase")
            if phase in BETWEEN_HANDS or phase == "closed":
                self._between_hands(state, now)
            elif phase == "showdown":
                self._payout(state, now)
            elif state.get("to_act") is not None and not state.get("fault"):
                self._turn(state, now)
        except BotError as exc:  # the board cannot do it now (the tray short of change): a person's hands would wait
            log.warning("chips at the console: %s", exc)

    def _due(self, hand: int, step: str, now: float, after_s: float) -> bool:
        """The step is to be done now: not done yet and first seen due `after_s` ago or more."""
        if (hand, step) in self._steps:
            return False
        return now - self._since.setdefault((hand, step), now) >= after_s

    # -- the hand's steps -----------------------------------------------------------------------------

    def _between_hands(self, state: FullState, now: float) -> None:
        """After a settled hand the players take their chips; once every circle reads empty, the next bets go down."""
        assert self.hands is not None
        hand = next_hand(state)
        lying = [a for a in self.hands.lying() if a != "tray"]
        if lying and (hand, "bets") not in self._steps:  # the last hand's chips: taken back a moment after it settled
            if state.get("fault") or not self._due(hand, "take_back", now, self.hands_s):
                return
            self.hands.take_back()
            return
        if lying or not circles_read_empty(state) or state.get("fault") or (hand, "bets") in self._steps:
            return
        self._steps.add((hand, "bets"))
        if hand == self.offline_at:  # the reader unplugged for this hand: its bets are the person's taps
            self.hands.board.fault("lost")
            self._steps.add((hand, "unplugged"))
            log.warning("chips at the console: the chip reader unplugged for hand %d: tap its bets and decisions", hand)
            return
        for seat, player in sorted(self.players.items()):
            for circle, amount in player.bets(self.game, hand, self.limits).items():
                self.hands.place(seat, circle, self.hands.stake(seat, amount, self._to_cashier))

    def _turn(self, state: FullState, now: float) -> None:
        """A bot's turn: its Play's chips in its Play circle; with `decide`, its decision `wait_s` after its turn came."""
        assert self.hands is not None
        to_act = state["to_act"]
        assert to_act is not None  # a turn is a seat's to act
        hand, seat, street = int(state["hand"]), int(to_act), str(state["phase"])
        player = self.players.get(seat)
        spot = next((s for s in state.get("spots") or [] if s.get("seat") == seat), None)
        if player is None or spot is None:
            return
        game = str(state.get("game") or self.game)
        decision, multiple = player.decide(game, street, spot.get("cards") or [], state.get("board") or [])
        step = f"{street}-{seat}"
        if decision == "play" and (hand, f"play-{step}") not in self._steps:
            self._steps.add((hand, f"play-{step}"))
            if not self.hands.lying().get(f"spot{seat}.play"):
                stake = int((spot.get("bets") or {}).get("ante", 0)) * (multiple or 1)
                self.hands.place(seat, "play", self.hands.stake(seat, stake, self._to_cashier))
        if not self.decide or not self._due(hand, f"decide-{step}", now, self.wait_s):
            return
        played = next((c for c in circles_of(state) if c["seat"] == seat and c["circle"] == "play"), None)
        if decision == "play" and not (played and played.get("stable")):
            return  # the readers have not settled on the Play's chips yet
        self._steps.add((hand, f"decide-{step}"))
        args: dict[str, Any] = {"hand": hand, "seat": seat, "decision": decision}
        if multiple is not None:
            args["multiple"] = multiple
        self._send("decide", f"{hand}-{step}", args)

    def _payout(self, state: FullState, now: float) -> None:
        """The dealer's hands make every circle its due, `hands_s` after the payout is awaited; a mispay as drawn."""
        assert self.hands is not None
        circles = circles_with_dues(state)
        if not circles:
            return
        hand = int(state["hand"])
        if not self._due(hand, "pay", now, self.hands_s):
            return
        self._steps.add((hand, "pay"))
        more = None
        if random.Random(f"{self.seed}:{hand}:mispay").random() < self.mispay:
            more = mispaid(circles, self.seed, hand)
            self.injected["mispay"] += 1
        self.hands.pay(circles, more)

    def _plug_back(self, state: FullState) -> None:
        """The hand dealt with the reader unplugged: once settled, each seat's net paid from the tray or taken into it
        (the dealer's hands by eye), then the board plugged back; its readings resume (a voided hand: nothing paid)."""
        assert self.hands is not None and self.offline_at is not None
        hand = self.offline_at
        if (hand, "back") in self._steps:
            return
        if state.get("phase") == "settled" and state.get("hand") == hand:
            self._offline_nets = {int(s["seat"]): int(s.get("net") or 0) for s in state.get("spots") or []}
        if next_hand(state) <= hand or state.get("phase") not in (*BETWEEN_HANDS, "closed"):
            return
        self._steps.add((hand, "back"))
        for seat, net in sorted(self._offline_nets.items()):
            if net > 0 and seat in self.hands.racks:
                self.hands.sell(seat, make_change(net, self.hands.tray()))
            elif net < 0 and seat in self.hands.racks:
                self.hands.to_tray(self.hands.stake(seat, -net, self._to_cashier))
        self.hands.board.wake()
        log.warning("chips at the console: the chip reader plugged back after hand %d", hand)

    def _to_cashier(self, seat: int) -> None:
        """A bot short of chips fetches a buy-in's worth from the cashier (the cage), never from the tray."""
        assert self.hands is not None
        chips = [uid for value, count in BUY_IN_CHIPS.items() for uid in self.hands.cage.take_chips(value, count)]
        self.hands.racks[seat].give(chips)

    # -- the tray's movements ---------------------------------------------------------------------------

    def _movements(self) -> None:
        """Move the chips of each movement the journal recorded since the last look (none of those before the start)."""
        try:
            if self._journal is None:
                self._journal = Journal.open(self.state_dir, readonly=True)
            if self._seen_event < 0:
                last = max((e.id for e in self._journal.events(0)), default=0)
                self._seen_event = last
                return
            for event in list(self._journal.events(self._seen_event)):
                self._seen_event = event.id
                if event.kind in MOVEMENTS:
                    self._move(event.kind, event.body)
        except JournalError as exc:
            log.warning("chips at the console: the journal: %s", exc)

    def _move(self, kind: str, body: Mapping[str, Any]) -> None:
        """The chips of one recorded movement, moved as the dealer's hands would (logged when they cannot be)."""
        assert self.hands is not None
        amount, seat = int(body.get("amount", 0)), body.get("seat")
        try:
            if kind == "buy_in" and seat in self.hands.racks:
                self.hands.sell(int(seat), make_change(amount, self.hands.tray()))
            elif kind == "colour_up" and seat in self.hands.racks:
                given = self.hands.racks[int(seat)].take_small(amount)
                if not self.hands.colour_up(int(seat), given):
                    log.warning("chips at the console: the tray cannot colour up %s at seat %s", amount, seat)
            elif kind == "fill":
                self.hands.to_tray(self.hands.cage.take(amount))
            elif kind == "credit":
                self.hands.to_cage(make_change(amount, self.hands.tray()))
        except BotError as exc:
            log.warning("chips at the console: %s of %s: %s", kind, amount, exc)

    def _send(self, cmd: str, key: str, args: Mapping[str, Any]) -> None:
        assert self._commands is not None
        try:
            reply = self._commands.request(cmd, req_id=f"{self.run_id}-{key}", retries=3, **args)
        except TimeoutError:
            log.warning("chips at the console: no answer to %s %s", cmd, dict(args))
            return
        if not reply.get("ok"):  # the console got there first, or a fault stands
            log.info("chips at the console: %s %s refused: %s", cmd, dict(args), reply.get("error"))


__all__ = ["ChipsAtConsole", "HANDS_S", "circles_read_empty", "circles_with_dues"]
