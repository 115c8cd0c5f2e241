"""Bot players that yield to the dealer console: they bet and decide only for the spots a person leaves alone.

At a table worked from `/dealer` (`croupier demo --dealer web`) the bot players still play, by
one rule (`Yielding`, pure: states and the time in, commands out):

- **Bets.** When the betting for a hand opens (the first state seen with the table between hands),
  each bot waits `wait_s`; then it bets its seat's stake (`BotPlayer.bets`) once, and only on a
  spot that has no bet by then. A spot the console bet on is the console's for the hand.
- **Decisions.** A spot is the bot's only while its bets are the ones the bot posted (the console
  changing them takes it over). When such a spot is to act, the bot waits `wait_s` from the moment
  its turn came; if the turn is still its own then, it decides (`BotPlayer.decide`). A decision the
  console made in that time stands: the turn has moved on and the bot does nothing.
- Nothing while a fault stands, and the waits start again once it is cleared (the console has
  its full `wait_s` after a clear); never `deal`, `confirm`, `void` or `clear`: those are the console's.

`YieldingPlayers` is the thread that follows the full feed (the bots need their own cards) and
sends what `Yielding` says over the command channel, each request under its own id, re-sent under
it when unanswered. A request the controller refuses (the console got there first) is logged and
left.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import zmq

from protocol.commands import CommandClient
from protocol.messages import FullSpot, FullState, TableFields
from sim.bots.players import BotPlayer
from sim.bots.table import SimLimits, TableEndpoints
from sim.following import FollowingThread

log = logging.getLogger("croupier.yielding")

BETWEEN_HANDS = ("bets", "settled")


@dataclass(frozen=True, slots=True)
class Request:
    """One command for the channel: its key (unique per run: the request's id), the command, its arguments."""

    key: str
    cmd: str
    args: Mapping[str, Any]


def next_hand(state: TableFields) -> int:
    """The number of the hand being bet or played (a settled hand on show is finished)."""
    return int(state.get("hand") or 1) + (1 if state.get("phase") == "settled" else 0)


class Yielding:
    """The bot players' rule at a console's table (see the module docstring): `requests(state, now)`."""

    def __init__(self, players: Sequence[BotPlayer], *, game: str, limits: SimLimits, wait_s: float) -> None:
        self.players = {p.seat: p for p in players}
        self.game = game
        self.limits = limits
        self.wait_s = wait_s
        self.opened: dict[int, float] = {}                       # hand -> when its betting was first seen open
        self.posted: dict[tuple[int, int], dict[str, int]] = {}  # (hand, seat) -> the bot's own bets
        self.turns: dict[tuple[int, str, int], float] = {}      # (hand, street, seat) -> when the turn came
        self.sent: set[str] = set()

    def owns(self, hand: int, spot: FullSpot) -> bool:
        """The spot is the bot's: its bets (the Play aside) are exactly those the bot posted this hand."""
        mine = self.posted.get((hand, int(spot["seat"])))
        return mine is not None and {k: v for k, v in (spot.get("bets") or {}).items() if k != "play"} == mine

    def requests(self, state: FullState, now: float) -> list[Request]:
        """What the bots send now, given the table's full state: bets, a decision, or nothing."""
        if not state:
            return []
        if state.get("fault"):  # nothing while it stands; every wait starts again once it is cleared
            self.opened.clear()
            self.turns.clear()
            return []
        phase = state.get("phase")
        if phase in BETWEEN_HANDS:
            return self._bets(state, now)
        seat = state.get("to_act")
        if seat is None or phase == "showdown":
            return []
        hand, street = int(state["hand"]), str(phase)
        since = self.turns.setdefault((hand, street, int(seat)), now)
        spot = next((s for s in state.get("spots") or [] if s.get("seat") == seat), None)
        key = f"{hand}-{street}-{seat}"
        if spot is None or now - since < self.wait_s or key in self.sent or not self.owns(hand, spot):
            return []
        player = self.players.get(int(seat))
        if player is None:
            return []
        decision, multiple = player.decide(str(state.get("game") or self.game), street, spot.get("cards") or [],
                                           state.get("board") or [])
        self.sent.add(key)
        args: dict[str, Any] = {"hand": hand, "seat": int(seat), "decision": decision}
        if multiple is not None:
            args["multiple"] = multiple
        return [Request(key, "decide", args)]

    def _bets(self, state: FullState, now: float) -> list[Request]:
        hand = next_hand(state)
        if now - self.opened.setdefault(hand, now) < self.wait_s:
            return []
        bet = {int(s["seat"]): s.get("bets") for s in state.get("spots") or []} if state.get("phase") == "bets" else {}
        out: list[Request] = []
        for seat, player in sorted(self.players.items()):
            key = f"{hand}-bet-{seat}"
            if bet.get(seat) or key in self.sent:
                continue  # the console's spot, or already posted
            stake = player.bets(self.game, hand, self.limits)
            self.sent.add(key)
            self.posted[(hand, seat)] = stake
            out.append(Request(key, "bet", {"hand": hand, "seat": seat, "bets": stake}))
        return out


class YieldingPlayers(FollowingThread):
    """A thread playing the `Yielding` bots at the table; `stop()` ends it."""

    def __init__(self, endpoints: TableEndpoints, players: Sequence[BotPlayer], *, game: str,
                 limits: SimLimits = SimLimits(), wait_s: float = 8.0, key: str | None = None,
                 server_key: str | None = None, feed_key: str | None = None) -> None:
        super().__init__("yielding-players", endpoints, key, server_key, feed_key)
        self.rule = Yielding(players, game=game, limits=limits, wait_s=wait_s)
        self.run_id = os.urandom(4).hex()
        self.refused: list[dict[str, Any]] = []  # the requests the controller refused, with its reply
        self._commands: CommandClient | None = None

    def open(self, ctx: zmq.Context[Any]) -> list[Any]:
        self._commands = CommandClient(ctx, self.endpoints.commands, timeout_s=1.0, name=f"players-{self.run_id}",
                                       key=self.key, server_key=self.server_key)
        return [self._commands]

    def on_state(self, state: FullState) -> None:
        assert self._commands is not None
        try:
            for request in self.rule.requests(state, time.monotonic()):
                self._send(self._commands, request)
        except Exception:  # a state the bots cannot read: they sit this one out, the table goes on
            log.exception("bot players: cannot act on seq %s", self.feed.seq if self.feed else None)

    def _send(self, commands: CommandClient, request: Request) -> None:
        try:
            reply = commands.request(request.cmd, req_id=f"{self.run_id}-{request.key}", retries=3, **request.args)
        except TimeoutError:
            log.warning("bot players: no answer to %s %s", request.cmd, dict(request.args))
            return
        if not reply.get("ok"):
            log.info("bot players: %s %s refused: %s", request.cmd, dict(request.args), reply.get("error"))
            self.refused.append({"cmd": request.cmd, **request.args, "reply": reply})
