"""Calling the clock on a poker player: the floor's timer on the seat to act; when it runs out his hand is dead (000).

A player may ask the floor to put a player who is taking too long on the clock (000: "demander
l'horloge"; docs/rules.md: 60 seconds, a setting). The `clock` request (`seat`: the seat to act, by
default whoever is to act; `seconds`: by default `CLOCK_CALL_S`) needs a supervisor's sign-off, the
floor's, whoever relays it (the dealer's console or the pit). It is journaled as a `clock` event
carrying the moment it was called (`at`, the controller's wall clock, written into the body before
it is journaled), so the table state stays a pure reducer: a replay finds the same clock, running
to the same second.

The clock stands while that seat is to act in that hand; it ends when he acts (or the hand ends).
When it runs out the controller journals his fold (`act`, `action` "fold", `clock` true: a dead
hand is folded even when he could check, `engine.poker.Hand.fold(dead=True)`). `ClockWatch` is the
controller's timer for it, served from its loop like a device with no descriptor.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, NotRequired, Protocol, TypedDict, cast

from engine.errors import say
from engine.games import CLOCK_SECONDS
from protocol.messages import Clock
from protocol.signed import SignedOff
from firmware_host.tables.base import GameTable, Refused
from firmware_host.tables.poker.table import PokerTable

log = logging.getLogger("croupier.clock")

CLOCK_CALL_S = 60
"""Seconds a player on the clock has, when the request names none (000: 60 to 90)."""

IDLE_CHECK_S = 1.0
"""How often `ClockWatch` looks for a clock called while none was running."""


class ClockCalled(TypedDict):
    """A clock running on the seat to act in `hand`: called at `at` for `seconds` (wall-clock), who signed it off."""

    seat: int
    hand: int
    seconds: int
    at: float
    ends_at: float
    signed_off: NotRequired[SignedOff]


def take_clock(table: GameTable | None, body: Mapping[str, Any]) -> ClockCalled:
    """The clock a `clock` event starts: `{"seat", "hand", "seconds", "at", "ends_at"}` (and who
    signed it off). Raises Refused when no poker hand is in its betting, or the seat is not the one to act."""
    if not isinstance(table, PokerTable):
        game = "no table is open" if table is None else f"a {table.setup.game} table has no players to act"
        raise Refused(f"clock: {game}: the clock is called on a poker player")
    hand = table.engine
    actor = hand.actor if hand is not None and table.closed is None else None
    if actor is None:
        raise Refused("clock: nobody is to act: the clock is called on the player to act",
                      say=say("refusal.clock_nobody_to_act"))
    seat = int(body.get("seat", actor))
    if seat != actor:
        raise Refused(f"clock: seat {seat} is not to act (seat {actor} is)",
                      say=say("refusal.not_to_act", seat=seat, to_act=actor))
    seconds = int(body.get("seconds", CLOCK_CALL_S))
    at = float(body["at"])
    clock: ClockCalled = {"seat": seat, "hand": table.hand, "seconds": seconds, "at": at, "ends_at": at + seconds}
    if "signed_off" in body:
        clock["signed_off"] = cast(SignedOff, dict(body["signed_off"]))
    return clock


def still_running(clock: ClockCalled | None, table: GameTable | None) -> bool:
    """The clock's seat is still to act in its hand (else the clock has ended: he acted, or the hand did)."""
    if clock is None or not isinstance(table, PokerTable) or table.closed is not None or table.hand != clock["hand"]:
        return False
    return table.engine is not None and table.engine.actor == clock["seat"]


def shown(clock: ClockCalled | None) -> Clock | None:
    """The clock as the views show it (the screens count down to `ends_at`, wall-clock seconds)."""
    if clock is None:
        return None
    return {"seat": clock["seat"], "seconds": clock["seconds"], "ends_at": clock["ends_at"]}


class _Table(Protocol):
    """What `ClockWatch` needs of the controller."""

    @property
    def clock_call(self) -> Mapping[str, Any] | None: ...

    def clock(self) -> float: ...

    def submit_own(self, kind: str, body: dict[str, Any]) -> int: ...


class ClockWatch:
    """The controller's timer for a clock called: at its end, the seat's fold (his hand dead).
    Served from the controller's loop (`Controller.add_pollable`): no descriptor, `pump()` says when next."""

    def __init__(self, table: _Table) -> None:
        self.table = table

    def fileno(self) -> int | None:
        return None

    def pump(self) -> float:
        """Fold the seat whose clock ran out; return the seconds until there is something to do."""
        clock = self.table.clock_call
        if clock is None:
            return IDLE_CHECK_S
        left = float(clock["ends_at"]) - self.table.clock()
        if left > 0:
            return min(left, IDLE_CHECK_S)  # looked at again each second: a wall clock set forward is followed
        seat = int(clock["seat"])
        try:
            self.table.submit_own("act", {"seat": seat, "action": "fold", "clock": True})
            log.info("seat %d: the clock ran out: his hand is dead (folded)", seat)
        except Exception as exc:  # refused (e.g. a fault stands): tried again shortly, never fatal
            log.warning("seat %d: the clock ran out but the fold was refused: %s", seat, exc)
            return IDLE_CHECK_S
        return IDLE_CHECK_S
