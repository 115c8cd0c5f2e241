"""The bot dealer of the simulated house table: it deals, posts the bot players' bets and decisions, and clears faults through the real devices.

The bot dealer works the table the way a dealer does, from another process than the controller:

- bets and decisions go over the dealer command channel (`protocol.commands`), each request
  with an id, re-sent with the same id when the controller does not answer (it was restarted), so
  nothing is applied twice;
- cards come out of the emulated shoe (`croupier sim-shoe`'s control port: `draw`), one at a time,
  and reach the controller over the serial link like any shoe's;
- the deal and the payouts are started with the dealer's buttons (`next`, `confirm`) on the
  simulated GPIO panel, or with the `deal` / `confirm` commands (chosen per hand by the seed);
- it follows the table on the restricted full feed (clone pattern: snapshot, then updates; a new
  `boot` means the controller restarted and a fresh snapshot is taken), as a dealer sees the cards.

The bot players (`sim.bots.players`) are seeded strategies: a stake per hand and a decision from their own cards and the
board. When a fault stops the hand, the dealer acts as the floor supervisor: an optional hook
repairs the cause (closes the lid, wakes the shoe), then `clear` with a reason; a card that came out
but was not taken (misread, lost frame) is keyed in by hand, a foreign or stray card is set aside.
"""

from __future__ import annotations

import logging
import os
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypedDict, cast

import zmq

from drivers.errors import DeviceError
from drivers.gpio_sim import LineClient
from firmware_host.service.command_desk import SIGNED_OFF_WAIT_S
from protocol.commands import CommandClient
from protocol.feed import FeedClient
from protocol.messages import FullFault, FullState
from sim import rated
from sim.bots.errors import BotError
from sim.bots.players import BotPlayer
from sim.bots.table import SimLimits, TableEndpoints
from sim.shoe import SimShoeClient

log = logging.getLogger("croupier.bots")

STRAY_FAULTS = frozenset({"duplicate_card", "unexpected_card", "no_bet", "card_count"})
"""Faults raised by a card that is not part of the hand: the dealer sets that card aside."""


SIGNED_OFF = frozenset({"clear", "void", "chop", "card", "open", "fill", "credit"})
"""The bot dealer's commands that carry the bot supervisor's sign-off (`supervisor`)."""
# How long a signed-off command's answer may take: the desk's SIGNED_OFF_WAIT_S (a bot re-sending each second
# never heard the answer: it went to the socket the bot had just closed, and a loaded machine's harness ran out of
# time). Each time it is not heard the wait doubles: on a loaded machine the hashing thread (nice 10) may take
# longer than this for one hash, and a re-sent request is hashed again, behind the one before (the 200-hand chip
# run died at its 93rd hand re-sending a clear the table had applied at once, each answer going to the socket just
# closed).


class FaultMet(TypedDict):
    """A fault the bot dealer met: the hand, the fault's kind, message and event."""

    hand: int
    kind: str
    message: str
    event: int


@dataclass
class DealerLog:
    """What the bot dealer did, for checks: every card out of the shoe per hand, and what became of it."""

    first_hand: int = 0
    hands: int = 0
    draws: dict[int, list[str]] = field(default_factory=dict)       # every card that left the shoe
    strays: dict[int, list[str]] = field(default_factory=dict)      # set aside (foreign, stray)
    keyed: dict[int, list[str]] = field(default_factory=dict)       # entered by hand after a fault
    faults: list[FaultMet] = field(default_factory=list)            # each fault met: hand, kind, message
    boots: list[str] = field(default_factory=list)                  # controller boots seen
    buttons: int = 0
    commands: int = 0
    resends: int = 0
    chips: dict[str, int] | None = None                             # a smart table's chip faults injected, by kind


def cards_placed(state: FullState) -> list[str]:
    """Every card the controller placed in the hand (spots, dealer, board, burns)."""
    cards: list[str] = []
    for spot in state.get("spots") or []:
        cards += spot.get("cards") or []
    cards += (state.get("dealer") or {}).get("cards") or []
    cards += state.get("board") or []
    cards += state.get("burns") or []
    return cards


FaultHook = Callable[["BotDealer", FullFault], "Mapping[str, str] | None"]
StepHook = Callable[["BotDealer", FullState], None]
BootHook = Callable[["BotDealer", FullState, FullState], None]


class BotDealer:
    """Deals hands at the simulated table. See the module docstring.

    `players` are seated by their `seat`. `buttons` is the share of hands whose deal and payouts
    are started with the panel's buttons rather than commands. `fault_hook(dealer, fault)` runs
    before a fault is cleared (to repair its cause) and may return options for `clear` (`then`);
    `on_step(dealer, state)` runs before each step; `on_boot(dealer, last, snapshot)` when the
    controller was restarted: the last state seen before and the first snapshot after. With `key`
    (the bot's secret certificate file) and `server_key` (the table's public one) its feed and
    command sockets are CURVE clients; it follows the full feed with `feed_key` (default `key`), a
    key whose role may (`croupier demo --secure` gives it a surveillance key: a dealer's may not).
    Raises ValueError for bad key files.
    """

    def __init__(self, endpoints: TableEndpoints, shoe_control: str, players: Sequence[BotPlayer], *,
                 game: str = "uth", seed: int = 0, limits: SimLimits = SimLimits(), buttons: float = 0.5,
                 request_timeout_s: float = 1.0, progress_timeout_s: float = 30.0,
                 fault_hook: FaultHook | None = None, on_step: StepHook | None = None,
                 on_boot: BootHook | None = None, ctx: zmq.Context[Any] | None = None,
                 key: str | None = None, server_key: str | None = None, feed_key: str | None = None,
                 supervisor: Mapping[str, str] | None = None) -> None:
        self.endpoints = endpoints
        self.key, self.server_key = key, server_key  # CURVE: this bot's secret certificate, the table's public one
        self.supervisor = dict(supervisor) if supervisor is not None else None  # auth {user, pin} for sign-offs
        self.players = {p.seat: p for p in players}
        self.game = game
        self.seed = seed
        self.limits = limits
        self.buttons = buttons
        self.request_timeout_s = request_timeout_s
        self.progress_timeout_s = progress_timeout_s
        self.fault_hook = fault_hook
        self.on_step = on_step
        self.on_boot = on_boot
        self.run_id = os.urandom(4).hex()
        self.log = DealerLog()
        self._own_ctx = ctx is None
        self.ctx: zmq.Context[Any] = ctx if ctx is not None else zmq.Context()
        self.commands = self._command_client()
        self.shoe = SimShoeClient(shoe_control)
        self.feed = FeedClient(self.ctx, endpoints.full, endpoints.full_snapshot, timeout_s=request_timeout_s,
                               key=feed_key if feed_key is not None else key, server_key=server_key)
        self._panel: LineClient | None = None
        self._shuffled: int | None = None
        self.state: FullState = cast(FullState, {})  # the full feed's, once a snapshot came
        self.boot: str | None = None
        self._last_progress = time.monotonic()
        self._last_key: Any = None

    def _command_client(self) -> CommandClient:
        return CommandClient(self.ctx, self.endpoints.commands, timeout_s=self.request_timeout_s,
                             name=f"bot-{self.run_id}", key=self.key, server_key=self.server_key)

    def close(self) -> None:
        for thing in (self.commands, self.shoe, self.feed, self._panel):
            if thing is None:
                continue
            try:
                thing.close()
            except Exception:  # closing must go on for the others
                log.debug("closing %r", thing, exc_info=True)
        if self._own_ctx:
            self.ctx.destroy(linger=0)

    # -- following the table ------------------------------------------------------------------------

    def sync(self) -> FullState:
        """Take a fresh snapshot of the full state (waits while the controller is down). Raises BotError."""
        deadline = time.monotonic() + self.progress_timeout_s
        while True:
            try:
                self.feed.fetch_snapshot()
                break
            except TimeoutError:
                if time.monotonic() > deadline:
                    raise BotError("no snapshot from the controller") from None
        self._take_state()
        return self.state

    def _take_state(self) -> None:
        last = self.state
        if self.feed.state is not None:
            self.state = cast(FullState, dict(self.feed.state))
        if self.feed.boot != self.boot and self.feed.boot is not None:
            restarted = self.boot is not None
            self.boot = self.feed.boot
            self.log.boots.append(self.boot)
            if restarted and self.on_boot is not None:
                self.on_boot(self, last, self.state)

    def pump(self, timeout_s: float = 0.5) -> bool:
        """Take the next feed message (waiting up to `timeout_s`); True if one came."""
        try:
            message = self.feed.receive(int(timeout_s * 1000))
        except TimeoutError:
            self.feed.state = None  # the controller is down: snapshot again when it is back
            return False
        self._take_state()
        return message is not None

    def wait_for(self, done: Callable[[FullState], bool], timeout_s: float, what: str) -> bool:
        """Follow the feed until `done(state)`; False when `timeout_s` ran out."""
        deadline = time.monotonic() + timeout_s
        while not done(self.state):
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            self.pump(min(left, 0.5))
        return True

    def request(self, cmd: str, key: str, **args: Any) -> dict[str, Any]:
        """Send one command with the id `run-key`, re-sent (same id) until the controller answers.

        Then wait until the feed shows its effect. Returns the reply. Raises BotError when refused
        (other than by a standing fault) or when no answer comes within the progress timeout.
        """
        req_id = f"{self.run_id}-{key}"
        boot = self.boot
        deadline = time.monotonic() + self.progress_timeout_s
        self.log.commands += 1
        tries = 0
        while True:
            try:
                auth = self.supervisor if cmd in SIGNED_OFF else None
                wait_ms = self.commands.timeout_ms
                if auth is not None:
                    self.commands.timeout_ms = max(wait_ms, int(SIGNED_OFF_WAIT_S * 1000 * 2 ** min(tries, 3)))
                tries += 1
                try:
                    reply = self.commands.request(cmd, req_id=req_id, auth=auth, **args)
                finally:
                    self.commands.timeout_ms = wait_ms
                if reply.get("code") == "busy" and time.monotonic() < deadline:
                    self.log.resends += 1  # still busy past the client's own wait (a loaded machine): again
                    continue
                break
            except TimeoutError:
                self.log.resends += 1
                self.feed.state = None  # it was probably restarted: snapshot again
                if time.monotonic() > deadline:
                    raise BotError(f"no answer to {cmd} ({req_id})") from None
                self.commands.close()
                self.commands = self._command_client()
        if not reply.get("ok"):
            if reply.get("code") == "fault":
                self.sync()
                return reply
            raise BotError(f"{cmd} {args} refused: {reply.get('code')}: {reply.get('error')}")
        seq, reply_boot = int(reply.get("seq", 0)), reply.get("boot")
        if self.feed.state is None:
            self.sync()
        # The reply leaves after the update: wait until the feed shows it (same boot, seq reached).
        def shown(_: FullState) -> bool:
            if reply_boot is not None:
                return self.boot == reply_boot and self.feed.seq >= seq
            return self.boot != boot or self.feed.seq >= seq

        if not self.wait_for(shown, self.progress_timeout_s, f"the effect of {cmd}"):
            raise BotError(f"the feed never showed the effect of {cmd} ({req_id})")
        return reply

    def press(self, button: str) -> bool:
        """Press a dealer button on the GPIO panel. False when the panel is not there (restart)."""
        try:
            if self._panel is None:
                self._panel = LineClient(self.endpoints.panel, timeout=self.request_timeout_s)
            self._panel.request(f"press {button}")
            self.log.buttons += 1
            return True
        except (OSError, DeviceError):
            if self._panel is not None:
                try:
                    self._panel.close()
                except OSError:
                    pass
            self._panel = None
            return False

    # -- playing --------------------------------------------------------------------------------

    def next_hand(self, state: FullState | None = None) -> int:
        """The number of the hand being prepared or played (a settled hand on show is finished)."""
        st = self.state if state is None else state
        return int(st.get("hand") or 1) + (1 if st.get("phase") == "settled" else 0)

    def play(self, hands: int) -> DealerLog:
        """Deal `hands` hands to the end (settled or voided). Raises BotError when the table stalls."""
        self.sync()
        self.log.first_hand = start = self.next_hand()
        while self.next_hand() - start < hands:
            self.step()
        self.log.hands = self.next_hand() - start
        return self.log

    def step(self) -> None:
        """Do the one thing the table waits for now."""
        if self.on_step is not None:
            self.on_step(self, self.state)
        st = self.state
        key = (self.boot, st.get("hand"), st.get("phase"), len(cards_placed(st)), st.get("to_act"), bool(st.get("fault")),
               tuple(s.get("seat") for s in st.get("spots") or []))
        now = time.monotonic()
        if key != self._last_key:
            self._last_key, self._last_progress = key, now
        elif now - self._last_progress > self.progress_timeout_s:
            raise BotError(f"the table made no progress for {self.progress_timeout_s} s: {st}")
        phase = st.get("phase")
        if st.get("fault"):
            self._resolve_fault(st)
        elif phase in ("bets", "settled", "closed"):
            self._start_hand(st)
        elif phase == "showdown":
            self._confirm(st)
        elif st.get("to_act") is not None:
            self._decide(st)
        elif st.get("next") is not None:
            self._draw(st)
        else:
            self.pump(0.5)

    def _chance(self, hand: int, what: str) -> bool:
        return random.Random(f"{self.seed}:{hand}:{what}").random() < self.buttons

    def _start_hand(self, st: FullState) -> None:
        hand = self.next_hand(st)
        if st.get("game") != self.game and not (st.get("phase") == "bets" and st.get("spots")):
            # The table is open for another game (a journal kept from an earlier session): reopen it.
            limits = {k: getattr(self.limits, k) for k in ("minimum", "maximum", "side_minimum", "side_maximum", "chip")}
            self.request("open", f"{hand}-open", game=self.game, limits=limits)
            return
        if self._shuffled != hand:
            self.shoe.request(f"shuffle {self.seed * 100003 + hand}")
            self._shuffled = hand
            self.log.draws.setdefault(hand, [])
        if not self._seat_people(hand):
            return  # a fault: resolved at the next step
        st = self.state
        posted = {s["seat"]: s.get("bets") for s in st.get("spots") or []} if st.get("phase") == "bets" else {}
        for seat, player in sorted(self.players.items()):
            want = player.bets(self.game, hand, self.limits)
            if posted.get(seat) != want:
                reply = self.request("bet", f"{hand}-bet-{seat}", hand=hand, seat=seat, bets=want)
                if not reply.get("ok"):
                    return  # a fault: resolved at the next step
        if self._chance(hand, "deal"):
            self._button("next", lambda s: s.get("phase") != "bets" or bool(s.get("fault")))
            return
        self.request("deal", f"{hand}-deal", hand=hand)

    def _seat_people(self, hand: int) -> bool:
        """With carded bots (`croupier demo --rated`): the bot dealer on duty signed in, each card at its seat as
        `sim/rated.py` says (against the full feed's `players`). False when a request met a fault."""
        if not any(p.card for p in self.players.values()):
            return True
        if self.state.get("dealer_signed_in") != (dealer := rated.dealer_on_duty(hand)):
            if not self.request("dealer", f"{hand}-dealer", dealer=dealer, action="in").get("ok"):
                return False
        for seat, player in sorted(self.players.items()):
            card, away = rated.at_seat(player.card, self.seed, seat, hand) if player.card else (None, False)
            for step in rated.seat_steps(card, away, (self.state.get("players") or {}).get(str(seat))):
                if not self.request("player", f"{hand}-player-{seat}-{step['action']}", seat=seat, **step).get("ok"):
                    return False
        return True

    def _button(self, name: str, done: Callable[[FullState], bool]) -> None:
        """Press a button and follow the feed until `done`. A press has no answer: when the effect
        does not show (the controller may have died with the press), take a fresh snapshot and let
        the next step look again, pressing again if need be (`next` acts only while betting,
        `confirm` only at the showdown, so a second press never does a step twice)."""
        boot = self.boot
        if not self.press(name) or not self.wait_for(lambda s: done(s) or self.boot != boot, 2.0, f"button {name}"):
            self.sync()

    def _confirm(self, st: FullState) -> None:
        hand = int(st["hand"])
        if self._chance(hand, "confirm"):
            self._button("confirm", lambda s: s.get("phase") != "showdown" or s.get("hand") != hand or bool(s.get("fault")))
            return
        self.request("confirm", f"{hand}-confirm", hand=hand)

    def _decide(self, st: FullState) -> None:
        to_act = st["to_act"]
        assert to_act is not None  # step() decides only when a seat is to act
        hand, seat, street = int(st["hand"]), int(to_act), str(st["phase"])
        spot = next(s for s in st["spots"] if s["seat"] == seat)
        player = self.players.get(seat) or BotPlayer(seat, self.seed)
        decision, multiple = player.decide(self.game if st.get("game") is None else str(st["game"]), street,
                                           spot["cards"], st.get("board") or [])
        args: dict[str, Any] = {"seat": seat, "decision": decision}
        if multiple is not None:
            args["multiple"] = multiple
        self.request("decide", f"{hand}-{street}-{seat}", hand=hand, **args)

    def _draw(self, st: FullState) -> None:
        """One card out of the shoe; wait until the controller took it (or a fault stopped the hand)."""
        hand = int(st["hand"])
        before = len(cards_placed(st))
        reply = self.shoe.request("draw")
        card = reply.split()[-1].split(":")[-1]  # `misread:Td`: it came out, unread
        self.log.draws.setdefault(hand, []).append(card)
        if not self.wait_for(lambda s: len(cards_placed(s)) > before or s.get("hand") != hand or bool(s.get("fault")),
                             self.progress_timeout_s, f"card {card}"):
            raise BotError(f"card {card} left the shoe but the controller never took it")

    def _resolve_fault(self, st: FullState) -> None:
        """Act as the floor supervisor: repair, clear, key in a card that was not read."""
        assert st["fault"] is not None  # step() resolves only a standing fault
        fault = st["fault"].copy()
        hand = int(st["hand"])
        self.log.faults.append({"hand": hand, "kind": fault["kind"], "message": fault["message"],
                                "event": fault["event"]})
        options = dict(self.fault_hook(self, fault) or {}) if self.fault_hook is not None else {}
        drawn = self.log.draws.get(hand, [])
        if fault.get("kind") in STRAY_FAULTS and drawn:
            self.log.strays.setdefault(hand, []).append(drawn[-1])
        reply = self.request("clear", f"{hand}-clear-{fault.get('event')}", reason=f"bot supervisor: {fault.get('kind')}",
                             then=str(options.get("then", "continue")))
        if not reply.get("ok"):
            raise BotError(f"clear refused: {reply}")
        if self.state.get("hand") != hand:
            return  # voided: the next hand begins
        for card in self.missing(hand):
            self.request("card", f"{hand}-key-{card}", hand=hand, card=card)
            self.log.keyed.setdefault(hand, []).append(card)

    def placed(self) -> list[str]:
        """The cards the table's state holds now (a poker table adds its mucked cards)."""
        return list(cards_placed(self.state))

    def missing(self, hand: int) -> list[str]:
        """Cards of `hand` that left the shoe, were not set aside and are not on the table."""
        placed = self.placed() if self.state.get("hand") == hand else []
        out: list[str] = []
        strays = list(self.log.strays.get(hand, []))
        for card in self.log.draws.get(hand, []):
            if card in placed:
                placed.remove(card)
            elif card in strays:
                strays.remove(card)
            else:
                out.append(card)
        return out
