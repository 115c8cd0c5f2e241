"""The players at a table's seats: each seat's player card (from the seat's reader, the dealer or the pit) and the dealer signed in.

A `player` event (`{"seat", "action": "in" | "out" | "away" | "back", "card", "source"}`: the `player`
command of the dealer's console or the pit, or a seat's card reader's reading) sets or clears the card at a
seat, or marks its player away (a break) and back; a `dealer` event (`{"dealer", "action": "in" | "out"}`)
says who deals. The ratings themselves are folded from the journal (`engine.ratings`, `croupier ratings`);
the table keeps only who sits where, for the full feed (`players`: seat -> card, in full, and whether away;
`dealer_signed_in`). The public feed shows neither: the redaction passes named keys only
(`engine.redact.TABLE_KEYS`), and a property test holds every card number off it.

A restart finds them again: the journal's `player`, `dealer` and `close` events before the events
replayed (`seated_before`), then those (as a `hold` is found: `hold.py`). A table's `close` clears them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from engine.errors import say
from engine.ratings import DECLINED
from protocol.messages import SeatPlayer
from protocol.records import EnteredBefore, RatingWas
from firmware_host.tables.base import Refused


PLAYER_CARDS = "player_cards"
"""The seats' card reader's device name (`drivers.readings.PlayerCardRead.device`): its going offline stops no hand."""


class Seated:
    """Seat -> the player card there (`card`, `source`, `away`), and the dealer signed in."""

    def __init__(self) -> None:
        self.seats: dict[int, SeatPlayer] = {}
        self.dealer: str | None = None
        self.entered: dict[int, EnteredBefore] = {}  # seat -> what the pit entered for its session (`rating`)
        self._full: dict[str, SeatPlayer] | None = None  # the full view's map, made again only after a change

    def apply_player(self, body: Mapping[str, Any]) -> None:
        """A `player` event. Raises Refused (nothing changed) for a seat with no card to leave, break or come back."""
        seat, action = int(body["seat"]), str(body["action"])
        here = self.seats.get(seat)
        self._full = None
        if action == "in":
            card = str(body["card"])
            if here is not None and here["card"] != card:  # another player's session: what was entered ends
                self.entered.pop(seat, None)
            for other, sat in list(self.seats.items()):
                if sat["card"] == card and other != seat:  # the player moves seats
                    del self.seats[other]
                    if other in self.entered:
                        self.entered[seat] = self.entered.pop(other)
            self.seats[seat] = {"card": card, "source": str(body.get("source", "dealer")), "away": False}
            return
        if here is None:
            raise Refused(f"no player card at seat {seat}", say=say("refusal.no_player_card", seat=seat))
        if action == "out":
            del self.seats[seat]
            self.entered.pop(seat, None)
        else:
            here["away"] = action == "away"

    def apply_rating(self, body: Mapping[str, Any]) -> None:
        """The pit's signed-off `rating` event: `open` seats a card (or `DECLINED`: a player who declined the card)
        at a seat with none, `close` clears the seat, `adjust` keeps what was entered (`rating_was` reads it back).
        Raises Refused (nothing changed): a seat rated already to open, or none to close or adjust."""
        seat, action = int(body["seat"]), str(body["action"])
        here = self.seats.get(seat)
        if "session" in body:  # a session closed before (checked before the journal): nothing at the seat changes
            return
        if action == "open":
            if here is not None:
                raise Refused(f"a player is rated at seat {seat} already: close that session first",
                              say=say("refusal.seat_rated", seat=seat))
            card = body.get("card")
            if isinstance(card, str):
                self.apply_player({"seat": seat, "action": "in", "card": card, "source": "pit"})
            else:
                self._full = None
                self.seats[seat] = {"card": DECLINED, "source": "pit", "away": False}
            here = self.seats[seat]
        elif here is None:
            raise Refused(f"no player is rated at seat {seat}", say=say("refusal.no_rated_session", seat=seat))
        elif action == "close":
            self._full = None
            del self.seats[seat]
            self.entered.pop(seat, None)
            return
        entered: EnteredBefore = {**self.entered.get(seat, {})}
        if "hands" in body:
            entered["hands"] = body["hands"]
        if "average_bet" in body:
            entered["average_bet"] = body["average_bet"]
        if "start" in body:
            entered["start"] = body["start"]
        if entered:
            self.entered[seat] = entered

    def rating_was(self, seat: int) -> RatingWas:
        """What a `rating` step at `seat` replaces, journaled with it: the card there (None: nobody rated) and what
        the pit entered before (`entered`: hands, average_bet, start)."""
        here = self.seats.get(seat)
        if here is None:
            return {"card": None}
        was: RatingWas = {"card": here["card"], "source": here["source"]}
        if seat in self.entered:
            was["entered"] = {**self.entered[seat]}
        return was

    def apply_dealer(self, body: Mapping[str, Any]) -> None:
        """A `dealer` event: the dealer signed in now, or none after a sign-out of the one dealing."""
        if body.get("action") == "in":
            self.dealer = str(body["dealer"])
        elif body.get("dealer") == self.dealer:
            self.dealer = None

    def clear(self) -> None:
        """The table closed: nobody sits, nobody deals."""
        self._full = None
        self.seats.clear()
        self.entered.clear()
        self.dealer = None

    def replay(self, events: Iterable[tuple[str, Mapping[str, Any]]]) -> None:
        """The journal's `player`, `dealer` and `close` events in order (a restart); one that no longer applies is passed over."""
        for kind, body in events:
            if kind == "close":
                self.clear()
            elif kind == "dealer":
                self.apply_dealer(body)
            elif kind in ("player", "rating"):
                try:
                    (self.apply_player if kind == "player" else self.apply_rating)(body)
                except (Refused, KeyError, ValueError):
                    continue

    def full(self) -> dict[str, SeatPlayer]:
        """The full feed's `players`: seat (as text) -> `{"card", "source", "away"}`; the very map of the view
        before while nothing changed (never changed in place: the feed's changes compare it by identity first)."""
        if self._full is None:
            self._full = {str(seat): sat.copy() for seat, sat in sorted(self.seats.items())}
        return self._full
