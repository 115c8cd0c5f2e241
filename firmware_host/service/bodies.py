"""What a dealer command is journaled as: its checked arguments spelt out so that its event replays alone."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from datetime import time
from typing import Any

from engine.errors import say
from protocol.records import RatingWas
from firmware_host.service.journal import Journal
from firmware_host.service.config import RatingsConfig
from firmware_host.service.ratings import closed_session, gaming_day_began
from firmware_host.tables.base import Refused
from firmware_host.tables.hold import hold_body
from firmware_host.tables.state import TableState

log = logging.getLogger("croupier.ratings")


def journaled_body(kind: str, args: Mapping[str, Any], state: TableState, clock: Callable[[], float],
                   journal: Journal | None = None, day: RatingsConfig = RatingsConfig()) -> dict[str, Any]:
    """The event body of command `kind` with checked `args`, at the table `state` as it stands (`journal`: the
    table's, where a closed rating session of the gaming day `day` sets is looked up). Raises Refused (a card
    typed by hand while a fault stands: the supervisor clears it first; a closed rating session the table does
    not know, or of another gaming day), JournalError."""
    body = dict(args)
    if kind == "card":
        if state.fault is not None:  # refused before the journal: the reducer records a shoe's card then
            raise Refused(f"the hand is stopped by a fault ({state.fault.kind}): a supervisor clears it before "
                          "a card is entered by hand", "fault", say("refusal.card_while_fault", card={"card": body["card"]}))
        return {"card": body["card"], "source": "manual", "seq": 0, "device": "dealer"}
    if kind == "clock":
        body["at"] = clock()  # journaled: the clock runs from here, on replay too (`tables/clock_call.py`)
    elif kind == "player" and body["action"] == "in":  # who named the player, spelt out
        body.setdefault("source", "dealer")
    elif kind == "rating" and "session" in body:  # a closed session adjusted: what it replaces, for the audit
        floor = floor_day(body, day)
        began = gaming_day_began(clock(), floor or day)
        body["was"] = closed_was(journal, int(body["seat"]), float(body["session"]), began,
                                 None if floor is None else (floor, day))
    elif kind == "rating":  # what it replaces, for the record and the audit (`tables/players.py`)
        body["was"] = state.seated.rating_was(int(body["seat"]))
    elif kind == "hold":  # journaled with the hand it holds from spelt out (`tables/hold.py`)
        body = hold_body(state.table, state.hand, body)
    elif kind == "correct" and state.table is not None:  # what it replaces, for the record and the audit
        was = getattr(getattr(state.table, "round", None), "last_decision", lambda seat: None)(body["seat"])
        if was is not None:
            body["was"] = was
    if kind == "open" and body.pop("keep_seats", False):
        body = keep_seats(state, body)  # journaled with the seats spelt out: replays alone
    return body


def keep_seats(state: TableState, body: dict[str, Any]) -> dict[str, Any]:
    """An `open` that keeps the poker table's players (a mixed game's next game, new stakes):
    the body with their stacks, who sits out and the last button (the next moves on). Raises Refused."""
    table = state.table
    if table is None:
        raise Refused("keep_seats: no table is open", say=say("refusal.no_table"))
    if table.started:
        raise Refused("a hand is in progress: confirm or void it before opening the table again",
                      say=say("refusal.hand_in_progress"))
    carried = state.need_table().carried_seats()
    if not carried:
        raise Refused(f"keep_seats: a {table.setup.game} table has no players to keep")
    return {**body, **carried}


def day_text(day: RatingsConfig) -> str:
    """A gaming day's start as the refusals say it: "06:00 Europe/Paris"."""
    return f"{day.day_starts:%H:%M} {day.time_zone}"


def floor_day(body: Mapping[str, Any], own: RatingsConfig) -> RatingsConfig | None:
    """The floor's gaming day a `rating` step carries (the pit sends the archive's: one gaming day per casino, the
    floor's), or None: the table's own `[ratings]` then. A table configured otherwise is logged loudly at each such
    step, both settings named (docs/ratings.md, "One gaming day")."""
    if "day_starts" not in body:
        return None
    floor = RatingsConfig(own.reinvestment, time.fromisoformat(str(body["day_starts"])), str(body["time_zone"]))
    if (floor.day_starts, floor.time_zone) != (own.day_starts, own.time_zone):
        log.warning("the floor's gaming day starts at %s (croupier stats gaming-day), this table's [ratings] at %s: "
                    "the floor's is followed; set day_starts and time_zone to the floor's", day_text(floor),
                    day_text(own))
    return floor


def closed_was(journal: Journal | None, seat: int, started: float, since: float,
               days: tuple[RatingsConfig, RatingsConfig] | None = None) -> RatingWas:
    """What a `rating` `adjust` of the session closed at `seat` that started at `started` replaces: its card, its
    start and what was entered for it before. Raises Refused when the session started before `since` (the gaming
    day's start: a day gone is the archive's; `days`: the floor's day that set it and the table's own, both named
    when they differ) or the table knows no such session, JournalError."""
    if int(started) < int(since):
        if days is not None and days[0] != days[1]:
            floor, own = (day_text(d) for d in days)
            raise Refused(f"a rating session that started before the gaming day began is another day's: the floor's "
                          f"gaming day starts at {floor} (croupier stats gaming-day), which the table follows; this "
                          f"table's [ratings] says {own}: set it to the floor's. A day gone is adjusted in the archive",
                          say=say("refusal.session_another_floor_day", seat=seat, floor=floor, table=own))
        raise Refused(f"a rating session that started before the gaming day began is another day's: the pit adjusts "
                      f"sessions of this gaming day", say=say("refusal.session_another_day", seat=seat))
    session = closed_session(journal, seat, started, since) if journal is not None else None
    if session is None:
        raise Refused(f"no rating session that started then closed at seat {seat} this gaming day",
                      say=say("refusal.no_closed_session", seat=seat))
    was: RatingWas = {"card": session.player, "session": session.start, "end": session.end}
    if session.entered is not None:
        was["entered"] = {"hands": session.entered[0], "average_bet": session.entered[1]}
    if session.rated_start is not None:
        was["start"] = session.rated_start
    return was
