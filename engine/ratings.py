"""Player ratings and dealer figures, pure: rating sessions folded from a table's journaled events and closed hands, theo exact.

A **rating session** is one player (a player card's number) at one table, from the card's `in` to its
`out` (or the table's `close`, or another card at that seat): the seats it sat at, the hands it played
(settled ones: a voided hand is counted apart, never rated), each bet circle's sum, the player's win
or loss (the player's side: a loss is negative), the time played (a break, `away` to `back`, pauses
the clock and its hands are not rated), and its **theo**:

    theo = sum over the session's hands of each circle's bet x that circle's exact house edge

under the hand's own profile (its sha256 is recorded with the session). The edges per circle are
`CIRCLE_BETS`: a bet raised later carries no edge of its own, the Ante carries the whole line's per
Ante (UTH's Ante + Blind + Play under the optimal strategy, 3CP's Ante and Play). Each edge comes from,
in this order, the profile's own `[GAME.approved]` figures, the profile's certificate (`croupier math
certify`: the caller reads it and passes its figures in), or, for Three Card Poker, the engine's own
exact count (`engine.house_edge`). A circle played with no edge known leaves the session's theo
`complete = False` and names the circle: never a guessed edge. Theo is kept as a `Fraction` of the
table's smallest unit and shown rounded half-even (`round` on a Fraction); the comp is theo x the
configuration's reinvestment rate.

Time comes in with each event (the journal's `ts`, seconds): nothing here reads a clock.

>>> r = Ratings("uth-1")
>>> r.event("player", {"seat": 2, "action": "in", "card": "6001234567", "source": "dealer"}, 100.0)
>>> [s.player for s in r.open_sessions()]
['6001234567']
>>> mask_card("6001234567")
'••••4567'
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from types import MappingProxyType
from typing import Any, Literal

from engine.errors import PlayerCardError, ProfileError, say
from engine.paytables import parse_profile
from engine.rating_edges import CIRCLE_BETS as CIRCLE_BETS, BetEdges as BetEdges, bet_edges as bet_edges
from engine.rating_edges import bets_source as bets_source
from engine.rating_edges import half_even as half_even
from engine.rating_reports import Adjustment as Adjustment, DealerReport as DealerReport, EnteredPlay as EnteredPlay
from engine.rating_reports import HandAt as HandAt, RatingReport as RatingReport, SeatSince as SeatSince
from engine.rating_reports import SessionReport as SessionReport, UnratedReport as UnratedReport

PLAYER_ACTIONS = ("in", "out", "away", "back")
"""A `player` event's actions: a card sits down at a seat (or moves there), leaves, takes a break, comes back."""

CARD_SOURCES = ("reader", "dealer", "pit")
"""Who named the player: the seat's card reader, the dealer (typed or scanned at the console), the pit."""

RATING_ACTIONS = ("open", "close", "adjust")
"""A `rating` event's actions, each a supervisor's sign-off (the pit's, or at the console): open a session at a
seat (with a card, or `declined` for a player who declined the card), close it (its `end` entered), adjust it
(the unrated play entered: `hands` at an `average_bet` on the Ante; its `start` entered): the one open at the
seat, or with `session` (its start) one closed at that seat since the table's last close (`closed_session`)."""

DECLINED = "declined"
"""The player of a session the pit opened for a player who declined the card (never a card number: `check_card`)."""

DEALER_ACTIONS = ("in", "out")
"""A `dealer` event's actions: a dealer signs in at the table (relieving the one before), or out."""

CHIP_ALERTS = MappingProxyType({"mispay": "mispays", "chips_moved": "moved_chips", "foreign_chip": "foreign_chips"})
"""A smart table's chip notes (a hand record's `chips.notes`, by `kind`) -> the figure that counts them; a
hand record's tray flags (`tray.flags`) count as `tray_differences`. The archive's view of them per table
and shift (floor/migrations/0007_chip_alerts.sql) counts the same notes and flags."""


def chip_alerts(record: Mapping[str, Any]) -> dict[str, int]:
    """A closed hand's chip alerts by figure: its mispays, moved chips, foreign chips (each note its
    reader made) and the tray's differences flagged since the hand before closed (none without chips).

    >>> chip_alerts({"chips": {"notes": [{"kind": "mispay"}, {"kind": "chips_moved"}, {"kind": "mispay"}]},
    ...              "tray": {"flags": [{"value": -500}]}})
    {'mispays': 2, 'moved_chips': 1, 'foreign_chips': 0, 'tray_differences': 1}
    """
    out = dict.fromkeys((*CHIP_ALERTS.values(), "tray_differences"), 0)
    chips, tray = record.get("chips"), record.get("tray")
    for note in (chips.get("notes") or ()) if isinstance(chips, Mapping) else ():
        figure = CHIP_ALERTS.get(str(note.get("kind"))) if isinstance(note, Mapping) else None
        if figure is not None:
            out[figure] += 1
    if isinstance(tray, Mapping):
        out["tray_differences"] = len(tray.get("flags") or ())
    return out


MAX_CARD_CHARS = 40
"""The longest player card number taken (a magnetic stripe's track 2 holds at most 37 digits)."""


def mask_card(card: str) -> str:
    """A card number as the pit sees it: its last four characters behind four dots.

    >>> mask_card("12")
    '••••12'
    """
    return card if card == DECLINED else "••••" + card[-4:]


def check_session_start(start: object) -> float:
    """A rating session named by its start (seconds since the epoch, as its report says it, or its whole second).
    Raises ValueError."""
    if isinstance(start, bool) or not isinstance(start, (int, float)) or not 1 <= start < 2**53:
        raise ValueError("a session is named by its start: seconds since the epoch, as its report gives it")
    return float(start)


def check_card(card: object) -> str:
    """A player card number as typed, scanned or read: letters and digits, 4 to `MAX_CARD_CHARS`.
    Raises PlayerCardError (a ValueError) saying what is expected, in a person's words too (the number itself is
    not repeated: it is private)."""
    if not isinstance(card, str) or not 4 <= len(card) <= MAX_CARD_CHARS or not card.isascii() or not card.isalnum():
        raise PlayerCardError(f"a player card number is 4 to {MAX_CARD_CHARS} letters or digits",
                              say=say("refusal.player_card_number", most=MAX_CARD_CHARS))
    if card.lower() == DECLINED:
        raise PlayerCardError(f"{DECLINED!r} is not a card number: a session for a player who declined the card is "
                              "opened by the pit", say=say("refusal.player_card_declined"))
    return card


# --- the sessions -----------------------------------------------------------------------------------

@dataclass(slots=True)
class Session:
    """One player's rating session at one table, as the fold builds it (amounts in the smallest unit)."""

    player: str
    table: str
    source: str
    start: float
    seats: list[tuple[float, int]]  # (since, seat): the first, then each move
    end: float | None = None
    profile_sha256: str | None = None
    hands: list[tuple[int, int]] = field(default_factory=list)  # (hand number, seat)
    bets: dict[str, int] = field(default_factory=dict)
    win: int = 0
    theo: Fraction = Fraction(0)
    missing: set[str] = field(default_factory=set)  # circles staked with no known edge
    voided: int = 0
    away_since: float | None = None
    away_s: float = 0.0
    breaks: int = 0
    bets_from: dict[str, int] = field(default_factory=dict)  # `taps` / `chips` -> hands
    rated_start: float | None = None  # the start the pit entered (`start` stays the session's identity)
    entered: tuple[int, int] | None = None  # the unrated play the pit entered: (hands, average bet on the Ante)
    entered_theo: Fraction = Fraction(0)
    adjustments: list[Adjustment] = field(default_factory=list)  # each sign-off: what, before, after, who

    @property
    def seat(self) -> int:
        return self.seats[-1][1]

    @classmethod
    def from_report(cls, report: SessionReport) -> Session:
        """A closed session back from its report (`report` of a closed session gives the same report again)."""
        entered = report["entered"]
        entered_theo = Fraction(entered["theo"]) if entered is not None else Fraction(0)
        end = report["end"] if report["end"] is not None else report["start"]
        rated = report["start"] if report["rated_start"] is None else report["rated_start"]
        return cls(report["player"], report["table"], report["source"], report["start"],
                   [(s["since"], s["seat"]) for s in report["seats"]], report["end"], report["profile_sha256"],
                   [(h["hand"], h["seat"]) for h in report["hand_numbers"]], dict(report["bets"]), report["win"],
                   Fraction(report["theo"]) - entered_theo, set(report["theo_missing"]), report["voided"],
                   None, max(0.0, end - rated - report["played_s"]), report["breaks"], dict(report["bets_from"]),
                   report["rated_start"], None if entered is None else (entered["hands"], entered["average_bet"]),
                   entered_theo, [a.copy() for a in report["adjustments"]])

    def played_s(self, now: float) -> float:
        """Seconds at the table, breaks left out, up to the session's end or `now`."""
        until = self.end if self.end is not None else now
        away = self.away_s + (until - self.away_since if self.away_since is not None else 0.0)
        return max(0.0, until - _rated_start(self) - away)

    def report(self, now: float, reinvestment: Fraction = Fraction(0)) -> SessionReport:
        """The session as `croupier ratings --json` prints it (docs/ratings.md)."""
        played = self.played_s(now)
        n = len(self.hands)
        theo = self.theo + self.entered_theo
        entered: EnteredPlay | None = None if self.entered is None else {
            "hands": self.entered[0], "average_bet": self.entered[1], "theo": str(self.entered_theo),
            "theo_cents": half_even(self.entered_theo)}
        return {
            "kind": "session", "player": self.player, "table": self.table, "source": self.source,
            "start": self.start, "end": self.end, "open": self.end is None, "on_break": self.away_since is not None,
            "played_s": round(played, 3),
            "seats": [{"since": since, "seat": seat} for since, seat in self.seats],
            "hand_numbers": [{"hand": hand, "seat": seat} for hand, seat in self.hands],
            "hands": n, "voided": self.voided, "breaks": self.breaks,
            "hands_per_hour": round(n * 3600 / played, 2) if played > 0 else None,
            "bets": dict(self.bets), "bets_total": sum(self.bets.values()),
            "average_bets": {c: half_even(Fraction(v, n)) for c, v in self.bets.items()} if n else {},
            "average_bet": half_even(Fraction(sum(self.bets.values()), n)) if n else None,
            "bets_from": dict(self.bets_from),
            "win": self.win, "theo": str(theo), "theo_cents": half_even(theo),
            "theo_complete": not self.missing, "theo_missing": sorted(self.missing),
            "comp_cents": half_even(theo * reinvestment),
            "profile_sha256": self.profile_sha256,
            "declined": self.player == DECLINED, "rated_start": self.rated_start, "entered": entered,
            "adjustments": [a.copy() for a in self.adjustments],
        }


@dataclass(slots=True)
class Unrated:
    """The play at the table with no card at the seat (or on a break): counted as such."""

    spot_hands: int = 0
    bets: dict[str, int] = field(default_factory=dict)
    win: int = 0


@dataclass(slots=True)
class DealerShift:
    """One dealer's figures at one table, summed over the dealer's turns there."""

    dealer: str
    table: str
    turns: int = 0
    time_s: float = 0.0
    since: float | None = None  # at the table now, since then
    first_in: float | None = None  # the first sign-in folded
    hands: int = 0
    seats_filled: int = 0  # spots with a bet, summed over the settled hands
    voids: int = 0
    corrections: int = 0
    faults: int = 0
    alerts: dict[str, int] = field(default_factory=lambda: chip_alerts({}))  # caught at the dealer's hands

    def report(self, now: float) -> DealerReport:
        time_s = self.time_s + (now - self.since if self.since is not None else 0.0)
        return {"kind": "dealer", "dealer": self.dealer, "table": self.table, "turns": self.turns,
                "time_s": round(time_s, 3), "on_table": self.since is not None, "hands": self.hands,
                "hands_per_hour": round(self.hands * 3600 / time_s, 2) if time_s > 0 else None,
                "average_seats": round(self.seats_filled / self.hands, 2) if self.hands else None,
                "seats_filled": self.seats_filled, "first_in": self.first_in,
                "voids": self.voids, "corrections": self.corrections, "faults": self.faults,
                "mispays": self.alerts["mispays"], "moved_chips": self.alerts["moved_chips"],
                "foreign_chips": self.alerts["foreign_chips"], "tray_differences": self.alerts["tray_differences"]}


class Ratings:
    """The fold of one table's journal into rating sessions and dealer figures.

    Feed it, in the journal's order, every event (`event(kind, body, ts)`: it reads `open`, `close`,
    `player`, `rating` and `dealer`, and passes over the rest) and every closed hand's record at its closing
    event (`hand(record, ts)`). `certified`: profile sha256 -> game -> bet -> edge, from the
    certificates the caller read.
    """

    def __init__(self, table: str, certified: Mapping[str, Mapping[str, Mapping[str, Fraction]]] | None = None,
                 reinvestment: Fraction = Fraction(0)) -> None:
        self.table = table
        self.certified = certified or {}
        self.reinvestment = reinvestment
        self.closed: list[Session] = []
        self.at_seat: dict[int, Session] = {}
        self.unrated = Unrated()
        self.edges: dict[str, BetEdges] = {}  # `game:sha256` -> edges
        self.dealers: dict[str, DealerShift] = {}
        self.dealer: DealerShift | None = None
        self.last_edges: BetEdges | None = None  # the table's paytables as last opened or played
        self.now = 0.0

    # -- events ---------------------------------------------------------------------------------------

    def event(self, kind: str, body: Mapping[str, Any], ts: float) -> None:
        """One journaled event. Raises nothing on an event it does not rate (a journal is what it is)."""
        self.now = max(self.now, ts)
        if kind == "open":
            self._on_open(body)
        elif kind == "close":
            for seat in list(self.at_seat):
                self._end(seat, ts)
            self._dealer_off(ts)
        elif kind == "player":
            self._on_player(body, ts)
        elif kind == "rating":
            self._on_rating(body, ts)
        elif kind == "dealer":
            self._on_dealer(body, ts)

    def _on_open(self, body: Mapping[str, Any]) -> None:
        terms, game = body.get("profile"), body.get("game")
        if not isinstance(terms, Mapping) or game not in CIRCLE_BETS:
            return
        sha, content = str(terms.get("sha256")), terms.get("content")
        key = f"{game}:{sha}"
        if key in self.edges:
            self.last_edges = self.edges[key]
        if key in self.edges or not isinstance(content, str):
            return
        try:
            profile = parse_profile(content, str(terms.get("source", "journal")), name=str(terms.get("name")))
        except ProfileError:
            return
        self.edges[key] = self.last_edges = bet_edges(str(game), profile, sha,
                                                      self.certified.get(sha, {}).get(str(game)))

    def _on_player(self, body: Mapping[str, Any], ts: float) -> None:
        seat, action, card = body.get("seat"), body.get("action"), body.get("card")
        if not isinstance(seat, int) or action not in PLAYER_ACTIONS:
            return
        here = self.at_seat.get(seat)
        if action == "in" and isinstance(card, str):
            if here is not None and here.player != card:
                self._end(seat, ts)
            session = next((s for s in self.at_seat.values() if s.player == card), None)
            if session is None:
                self.at_seat[seat] = Session(card, self.table, str(body.get("source", "dealer")), ts, [(ts, seat)])
                return
            if session.seat != seat:  # the same card at another seat of this table: a seat change
                del self.at_seat[session.seat]
                session.seats.append((ts, seat))
                self.at_seat[seat] = session
            _back(session, ts)  # a card presented again ends a break (the table's view says so too)
        elif here is None:
            return
        elif action == "out":
            self._end(seat, ts)
        elif action == "away" and here.away_since is None:
            here.away_since, here.breaks = ts, here.breaks + 1
        elif action == "back":
            _back(here, ts)

    def _on_rating(self, body: Mapping[str, Any], ts: float) -> None:
        """The pit's signed-off `rating` event: a session opened, closed or adjusted, the adjustment kept with
        what it replaced and who signed it (`Session.adjustments`)."""
        seat, action = body.get("seat"), body.get("action")
        if not isinstance(seat, int) or action not in RATING_ACTIONS:
            return
        by = _signer(body)
        if action == "open":
            card = body.get("card")
            if isinstance(card, str):
                self._on_player({"seat": seat, "action": "in", "card": card, "source": "pit"}, ts)
            else:  # a player who declined the card: a session of its own, never found by a card
                if seat in self.at_seat:
                    self._end(seat, ts)
                self.at_seat[seat] = Session(DECLINED, self.table, "pit", ts, [(ts, seat)])
            here = self.at_seat.get(seat)
            if here is not None:
                here.adjustments.append({"at": ts, "by": by, "action": "open", "before": None,
                                         "after": {"player": here.player}})
                self._adjust(here, body, ts, by)
            return
        started = body.get("session")
        if action == "adjust" and isinstance(started, (int, float)) and not isinstance(started, bool):
            was = body.get("was")
            card = was.get("card") if isinstance(was, Mapping) else None
            closed = self.closed_session(seat, started, card if isinstance(card, str) else None)
            if closed is not None:  # a session closed before (the table took it only on its gaming day)
                self._adjust(closed, body, ts, by, self._played_edges(closed))
            return
        here = self.at_seat.get(seat)
        if here is None:
            return
        self._adjust(here, body, ts, by)
        if action == "close":
            end = body.get("end")
            self._end(seat, ts)
            if isinstance(end, (int, float)) and not isinstance(end, bool):
                here.adjustments.append({"at": ts, "by": by, "action": "close", "before": {"end": ts},
                                         "after": {"end": max(min(float(end), ts), _rated_start(here))}})
                here.end = here.adjustments[-1]["after"]["end"]

    def _adjust(self, here: Session, body: Mapping[str, Any], ts: float, by: str | None,
                edges: BetEdges | None | Literal["last"] = "last") -> None:
        """The entered figures of a `rating` event applied to session `here`: `start` (never after the event,
        nor after a closed session's end), `hands` at `average_bet` (the unrated play: its theo is the Ante's
        edge under `edges`, by default the table's paytables as last opened or played, or left out, the theo
        incomplete, when none is known)."""
        played = self.last_edges if edges == "last" else edges
        start, hands, average = body.get("start"), body.get("hands"), body.get("average_bet")
        if isinstance(start, (int, float)) and not isinstance(start, bool):
            before = _rated_start(here)
            here.rated_start = min(float(start), ts, here.end if here.end is not None else ts)
            here.adjustments.append({"at": ts, "by": by, "action": "start", "before": {"start": before},
                                     "after": {"start": here.rated_start}})
        if isinstance(hands, int) and isinstance(average, int) and hands >= 0 and average >= 0:
            before_entered = None if here.entered is None else {"hands": here.entered[0], "average_bet": here.entered[1]}
            here.entered = (hands, average)
            edge = None if played is None else played.edges.get("ante")
            here.entered_theo = Fraction(0) if edge is None else hands * average * edge
            if edge is None and hands and average:
                here.missing.add("ante")
            here.adjustments.append({"at": ts, "by": by, "action": "unrated_play", "before": before_entered,
                                     "after": {"hands": hands, "average_bet": average}})

    def _end(self, seat: int, ts: float) -> None:
        session = self.at_seat.pop(seat)
        _back(session, ts)
        session.end = ts
        self.closed.append(session)

    def _on_dealer(self, body: Mapping[str, Any], ts: float) -> None:
        name, action = body.get("dealer"), body.get("action")
        if not isinstance(name, str) or action not in DEALER_ACTIONS:
            return
        if action == "out":
            if self.dealer is not None and self.dealer.dealer == name:
                self._dealer_off(ts)
            return
        if self.dealer is not None and self.dealer.dealer == name:
            return
        self._dealer_off(ts)
        shift = self.dealers.setdefault(name, DealerShift(name, self.table))
        shift.turns += 1
        shift.since = ts
        shift.first_in = ts if shift.first_in is None else shift.first_in
        self.dealer = shift

    def _dealer_off(self, ts: float) -> None:
        if self.dealer is not None and self.dealer.since is not None:
            self.dealer.time_s += ts - self.dealer.since
            self.dealer.since = None
        self.dealer = None

    # -- hands ----------------------------------------------------------------------------------------

    def hand(self, record: Mapping[str, Any], ts: float) -> None:
        """A closed house hand's record (`protocol.records.HouseHandRecord`), at its closing event's `ts`.
        A poker hand is not rated (it has no house edge) and counts only for its dealer."""
        self.now = max(self.now, ts)
        voided = record.get("status") != "settled"
        spots = [s for s in record.get("spots") or () if any(s.get("bets", {}).values())]
        self._dealer_hand(record, voided, len(spots))
        if record.get("poker"):
            return
        nets = {s["seat"]: s["net"] for s in (record.get("settlement") or {}).get("spots", ())}
        sha = record.get("profile_sha256")
        edges = self.edges.get(f"{record.get('game')}:{sha}")
        self.last_edges = edges or self.last_edges
        for spot in spots:
            seat, bets = spot["seat"], {c: int(v) for c, v in spot["bets"].items()}
            session = self.at_seat.get(seat)
            if session is not None and session.away_since is None and session.profile_sha256 not in (None, sha):
                self._end(seat, ts)  # the table was opened on other paytables: a session has one profile
                self.at_seat[seat] = session = Session(session.player, self.table, session.source, ts, [(ts, seat)])
            if session is None or session.away_since is not None:
                if not voided:
                    self.unrated.spot_hands += 1
                    _add(self.unrated.bets, bets)
                    self.unrated.win += int(nets.get(seat, 0))
                continue
            if voided:
                session.voided += 1
                continue
            session.profile_sha256 = sha
            session.hands.append((int(record["hand"]), seat))
            _add(session.bets, bets)
            session.win += int(nets.get(seat, 0))
            source = bets_source(record, seat)
            session.bets_from[source] = session.bets_from.get(source, 0) + 1
            if edges is None:
                session.missing.update(c for c, v in bets.items() if v)
            else:
                theo, missing = edges.theo(bets)
                session.theo += theo
                session.missing.update(missing)

    def _dealer_hand(self, record: Mapping[str, Any], voided: bool, seats: int) -> None:
        shift = self.dealer
        if shift is None:
            return
        shift.faults += len(record.get("faults") or ())
        shift.corrections += len(record.get("corrected") or ())
        for figure, count in chip_alerts(record).items():
            shift.alerts[figure] += count
        if voided:
            shift.voids += 1
        else:
            shift.hands += 1
            shift.seats_filled += seats

    # -- reading ----------------------------------------------------------------------------------------

    def open_sessions(self) -> list[Session]:
        """The sessions still at the table, by seat."""
        return [self.at_seat[s] for s in sorted(self.at_seat)]

    def sessions(self) -> list[Session]:
        """Every session, closed ones first in the order they closed, then the open ones by seat."""
        return [*self.closed, *self.open_sessions()]

    def reports(self, now: float | None = None) -> list[SessionReport]:
        """Every session's report (an open one up to `now`, by default the last time fed)."""
        at = self.now if now is None else now
        return [s.report(at, self.reinvestment) for s in self.sessions()]

    def unrated_report(self) -> UnratedReport:
        n = self.unrated.spot_hands
        return {"kind": "unrated", "table": self.table, "spot_hands": n, "bets": dict(self.unrated.bets),
                "average_bet": half_even(Fraction(sum(self.unrated.bets.values()), n)) if n else None,
                "win": self.unrated.win}

    def dealer_reports(self, now: float | None = None) -> list[DealerReport]:
        at = self.now if now is None else now
        return [self.dealers[name].report(at) for name in sorted(self.dealers)]

    def closed_session(self, seat: int, started: float, card: str | None = None) -> Session | None:
        """The session closed at `seat` (its last seat) whose start falls in the same whole second as `started`
        (the reports' `start` exactly, else that second: the last such), of `card` when given, or None: what a `rating`
        `adjust` with `session` adjusts (the table takes it only for a session of its gaming day:
        `service/ratings.py`)."""
        at_seat = [s for s in reversed(self.closed) if s.seat == seat and card in (None, s.player)]
        return next((s for s in at_seat if s.start == started), None) or \
            next((s for s in at_seat if int(s.start) == int(started)), None)  # its exact start first

    def _played_edges(self, session: Session) -> BetEdges | None:
        """The edges of the paytables a closed session played on (its unrated play was dealt on them too), else the
        table's as last opened or played (a session that played no hand)."""
        sha = session.profile_sha256
        return next((e for e in self.edges.values() if sha is not None and e.profile_sha256 == sha), self.last_edges)

    def adjust_stored(self, report: SessionReport, body: Mapping[str, Any], ts: float) -> SessionReport | None:
        """A `rating` `adjust` of a closed session this fold does not hold (one ended before the fold's start: the
        archive folds each opening of a table once and keeps its sessions) applied to the session's stored
        `report`, as `event` applies it to a session it holds: the new report, or None when the report carries
        this step already (an adjustment at `ts`: the fold replayed from its mark changes nothing)."""
        if any(a.get("at") == ts for a in report["adjustments"]):
            return None
        session = Session.from_report(report)
        self._adjust(session, body, ts, _signer(body), self._played_edges(session))
        adjusted = session.report(self.now, self.reinvestment)
        if adjusted["rated_start"] == report["rated_start"]:  # its time played as the full fold worked it out (the
            adjusted["played_s"], adjusted["hands_per_hour"] = report["played_s"], report["hands_per_hour"]  # report's
        return adjusted  # played_s is rounded to the millisecond: only a new start works it out again from there)

    def seat_cards(self) -> dict[int, str]:
        """Seat -> the card of the session open there."""
        return {seat: s.player for seat, s in sorted(self.at_seat.items())}


def _signer(body: Mapping[str, Any]) -> str | None:
    """The supervisor who signed a `rating` event off (its `signed_off` user), or None."""
    signed = body.get("signed_off")
    user = signed.get("user") if isinstance(signed, Mapping) else None
    return user if isinstance(user, str) else None


def _rated_start(session: Session) -> float:
    """When the session's rated time starts: the pit's entered start, else its opening."""
    return session.start if session.rated_start is None else session.rated_start


def _back(session: Session, ts: float) -> None:
    """A break ends at `ts` (nothing when none was taken)."""
    if session.away_since is not None:
        session.away_s += ts - session.away_since
        session.away_since = None


def _add(into: dict[str, int], bets: Mapping[str, int]) -> None:
    for circle, amount in bets.items():
        into[circle] = into.get(circle, 0) + amount


def fold(table: str, entries: Iterable[tuple[str, Mapping[str, Any], float]],
         certified: Mapping[str, Mapping[str, Mapping[str, Fraction]]] | None = None,
         reinvestment: Fraction = Fraction(0)) -> Ratings:
    """Ratings folded from `(kind, body, ts)` entries in the journal's order, a closed hand given as kind
    `hand` with its record as body."""
    ratings = Ratings(table, certified, reinvestment)
    for kind, body, ts in entries:
        if kind == "hand":
            ratings.hand(body, ts)
        else:
            ratings.event(kind, body, ts)
    return ratings
