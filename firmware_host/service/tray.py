"""The tray watched all shift: the journal's events turned into the tray ledger's facts, live on the controller and replayed from the journal alike.

The controller hands every event it applies to `TrayWatch.seen` (with the record of a hand it
closed); `TrayWatch.from_journal` feeds the same function every event of the current shift, so a
restart, or `croupier tray` reading the journal, finds the very trail the table kept live. The facts
(`engine.tray`):

- a reading of the `tray` antenna (`TRAY_ANTENNA`) in a `chip_scan` (or an older journal's `chips` event): the
  tray's inventory (stable ones count);
- a hand's cards start at its first `deal`, `next` button or card after its close (betting closed);
- a hand's close: its settlement's house net as the tray paid it (`house_net_paid`: less a mispay a supervisor
  accepted as read; a voided hand: 0);
- `buy_in`, `colour_up`, `fill`, `credit`: a recorded movement of that kind and amount;
- `close` (the pit closes the table): the shift's closing inventory; the next `open` starts a new shift;
- `chip_set` (the set the table values chips with, journaled at its start): the tray's chips valued by it
  from then on (the watch starts with the one journaled last before the shift, or the one it is given).

The shift is the table's, from its first event after the pit closed it to its next `close`; the
opening inventory is its first stable tray reading.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Mapping
from typing import Any

from drivers.chip_debounce import TRAY
from engine.chips import ChipSet, ChipSetError
from engine.money import Money
from engine.tray import Flag, HandLine, Interval, Moment, Movement, MovementKind, TrayLedger
from protocol.messages import TrayAlert, TrayFlag, TrayMovementShown, TrayReconciliation, TrayStack, TrayTrailLine
from protocol.records import HandTray, TrayMovement
from firmware_host.service.journal import Journal
from firmware_host.tables.base import FaultKind
from firmware_host.tables.house.chips import TableChips, uids_after

log = logging.getLogger("croupier.tray")

TRAY_ANTENNA = TRAY
"""The chip reader's antenna under the dealer's chip tray (`drivers.readings.ChipsRead.antenna`): the debounce's name for it."""

_CHIP_KINDS = frozenset({"chip_scan", "chips"})
"""The events that hold chip readings (`reads_of`): a `chip_scan`, or a `chips` of one in an older journal."""

MOVEMENTS = frozenset(MovementKind)
"""The event kinds that record a movement of chips at the tray (the commands of the same names)."""

SHOWN_FLAGS = 20
"""The most recent flags the full feed carries (`croupier tray` lists every one)."""

SHOWN_TRAIL = 12
"""The most recent lines of the tray's trail the full feed carries (`croupier tray` lists every one)."""


class TrayWatch:
    """The current shift's tray ledger, fed the journal's events in order; inactive without a chip set."""

    def __init__(self, chips: ChipSet | None) -> None:
        self.chips = chips
        self.ledger = TrayLedger(chips) if chips is not None else None
        self._dealing = False  # the hand's cards have started since the last close
        self._before: Interval | None = None  # the time between hands that ended at this hand's cards
        self.closed_entry: HandTray | None = None  # what the hand the last event closed carries of the tray
        self.tray_uids: tuple[str, ...] = ()  # the tray's chips as last read stable (its inventory by denomination)
        self.tray_read: frozenset[str] | None = None  # the tray's chips as last read this shift, stable or not
        self._sorted: tuple[str, ...] = ()  # `tray_read` sorted
        self._found: list[Flag] = []  # the flags raised since the last hand closed (its record carries them)
        self._shown: TrayReconciliation | None = None  # `shown()` as made since the ledger last changed

    @classmethod
    def from_journal(cls, journal: Journal, chips: ChipSet | None) -> TrayWatch:
        """The watch of the journal's current shift (the last one, when the table stands closed), every event
        of it seen again. Raises JournalError when the journal cannot be read."""
        close = journal.last_of("close")
        last_open = journal.open_before(2**62)
        if close is not None and (last_open is None or last_open.id < close.id):  # closed: the shift that ended there
            close = journal.last_of("close", before=close.id)
        start = close.id if close is not None else 0
        if chips is None:  # the set journaled last before the shift (one journaled during it is seen below)
            journaled = journal.last_of("chip_set", before=start + 1)
            chips = chip_set_of(journaled.body) if journaled is not None else None
        watch = cls(chips)
        events = journal.events(since=start)
        first = next(events, None)
        if first is None:
            return watch
        closes: dict[int, Mapping[str, Any]] = {}  # the shift's closed hands by the event that closed each
        for c in journal.lines_after(first.hand - 1, 2**31):
            line = c.line if c.line is not None else (c.row.record if c.row is not None else None)
            if line is not None:
                closes[c.closed_event] = line
        for event in itertools.chain([first], events):
            watch.seen(event.kind, event.body, event.id, event.hand, closes.get(event.id))
        return watch

    def seen(self, kind: str, body: Mapping[str, Any], event: int, hand: int,
             closed: Mapping[str, Any] | None = None) -> tuple[Flag, ...]:
        """One applied event (journaled as `event` during `hand`) and the record of the hand it closed, if
        any. Returns the flags it raised (a tray difference found)."""
        if kind == "chip_set":  # the tray's chips valued by this set from now on
            self._shown = None
            self.chips = chip_set_of(body) or self.chips
            if self.ledger is None and self.chips is not None:
                self.ledger = TrayLedger(self.chips)
            elif self.ledger is not None and self.chips is not None:
                self.ledger.chips = self.chips
        ledger = self.ledger
        if ledger is None:
            return ()
        if kind == "open" and ledger.closing is not None:  # the table opened again after the pit closed it
            ledger = self.ledger = TrayLedger(ledger.chips)
            self._dealing = False
            self._shown = None
            self.tray_read = None
        before = len(ledger.flags)
        at = Moment(event, hand)
        # Each branch that changes the ledger makes `shown()` made again; a circle's chips, a card of the hand
        # dealing, a decision leave it as it was (the events a hand is most made of)
        if kind in _CHIP_KINDS and (read := _tray_read(kind, body)) is not None:
            self._shown = None
            try:
                uids = uids_after(read, self.tray_read)  # all of them, or the change since the last this shift
            except ValueError as exc:  # a journal that is not ours: the reading is not the tray's count
                log.error("event %d: %s", event, exc)
                return ()
            if uids is not self.tray_read:
                self.tray_read, self._sorted = uids, tuple(sorted(uids))
            ledger.read(self._sorted, bool(read.get("stable")), at)
            if read.get("stable"):
                self.tray_uids = self._sorted
        elif kind in MOVEMENTS:
            self._shown = None
            seat = body.get("seat")
            ledger.movement(Movement(MovementKind(kind), int(body["amount"]), at,
                                     int(seat) if seat is not None else None, str(body.get("slip", ""))))
        elif kind == "close":
            self._shown = None
            ledger.close(at)
            self.tray_read = None  # the next shift's first tray reading is journaled whole (`chips_before`)
        elif not self._dealing and _cards_start(kind, body):
            self._shown = None
            self._dealing = True
            ledger.cards(at)
            self._before = ledger.last_interval
        self.closed_entry = None
        if closed is not None:
            self._shown = None
            entry = self._entry()
            net = house_net_paid(closed) if closed.get("status") == "settled" else 0
            ledger.hand_closed(int(closed.get("hand", hand)), net, at)
            self._dealing = False
            found, self._found = [*self._found, *ledger.flags[before:]], []
            if found:  # the differences flagged since the hand before closed, this one's too: the floor counts them
                entry = entry or {"movements": [], "tray_change": None, "difference": None}
                entry["flags"] = [flag_shown(f) for f in found]
            self.closed_entry = entry
            return ledger.flags[before:]
        self._found.extend(ledger.flags[before:])
        return ledger.flags[before:]

    def chips_before(self, chips: TableChips, antenna: str) -> frozenset[str] | None:
        """What a chip reading of `antenna` is journaled against (`events.reading_event`): the table's reading
        of it (`TableChips.journaled_against`), for the tray only when this watch holds the same (a tray reading
        this shift: `from_journal` replays the shift alone, so the shift's first is journaled whole); None: whole."""
        before = chips.journaled_against(antenna)
        if antenna == TRAY_ANTENNA and (self.ledger is None or before != self.tray_read):
            return None
        return before

    def _entry(self) -> HandTray | None:
        """The movements recorded between the last hand and this one, with what the tray read of each (the
        floor's drop, fills and credits: `floor/stats.py`); None when there were none."""
        before, self._before = self._before, None
        if before is None or not before.movements:
            return None
        moves: list[TrayMovement] = []
        for move, read in zip(before.movements, before.read_values()):
            line: TrayMovement = {"kind": str(move.kind), "amount": move.value, "read": read, "event": move.at.event}
            if move.seat is not None:
                line["seat"] = move.seat
            if move.slip:
                line["slip"] = move.slip
            moves.append(line)
        return {"movements": moves, "tray_change": before.change, "difference": before.difference}

    def shown(self) -> TrayReconciliation | None:
        """The tray as the full feed shows it (None without a chip set): what it reads, what it should, the
        shift's line so far and the latest flags."""
        ledger = self.ledger
        if ledger is None:
            return None
        if self._shown is not None:
            return self._shown  # the ledger unchanged since it was made (never changed in place: the feed keeps it)
        line = ledger.reconciliation()
        self._shown = {"reads": ledger.tray, "settled": ledger.settled, "expected": ledger.expected(),
                "opening": line.opening, "closing": ledger.closing, "fills": line.fills, "credits": line.credits,
                "chips_sold": line.chips_sold, "house_net": line.house_net, "difference": line.difference,
                "flags": [flag_shown(f) for f in ledger.flags[-SHOWN_FLAGS:]], "flagged": len(ledger.flags),
                "inventory": self.inventory(), "trail": trail(ledger)[-SHOWN_TRAIL:]}
        return self._shown

    def inventory(self) -> list[TrayStack]:
        """The tray's chips as last read stable, by denomination, the highest first (a chip the set does not know: 0)."""
        counts: dict[int, int] = {}
        for uid in self.tray_uids:
            chip = self.chips.get(uid) if self.chips is not None else None
            value = chip.value if chip is not None else 0
            counts[value] = counts.get(value, 0) + 1
        return [{"value": value, "count": count} for value, count in sorted(counts.items(), reverse=True)]


def movement_shown(move: Movement) -> TrayMovementShown:
    """A movement as the trail shows it (the full feed, `croupier tray --json`)."""
    out: TrayMovementShown = {"kind": str(move.kind), "amount": move.value, "event": move.at.event}
    if move.seat is not None:
        out["seat"] = move.seat
    if move.slip:
        out["slip"] = move.slip
    return out


def hand_shown(line: HandLine) -> TrayTrailLine:
    """A hand's line of the trail."""
    return {"event": line.at.event, "hand": line.hand, "house_net": line.house_net,
            "movements": [movement_shown(m) for m in line.movements], "tray_change": line.change,
            "difference": line.difference}


def interval_shown(line: Interval) -> TrayTrailLine:
    """The line of the time between two hands."""
    return {"event": line.at.event, "after_hand": line.after_hand, "movements": [movement_shown(m) for m in line.movements],
            "tray_change": line.change, "difference": line.difference}


def trail(ledger: TrayLedger) -> list[TrayTrailLine]:
    """The hands and the time between them in their order (by the event that ended each), as `croupier tray` prints them."""
    lines = [hand_shown(h) for h in ledger.hands] + [interval_shown(i) for i in ledger.intervals]
    return sorted(lines, key=lambda line: line["event"])


def house_net_paid(record: Mapping[str, Any]) -> int:
    """A settled hand's house net as the tray paid it: the settlement's, less what a supervisor accepted paid
    beyond the dues (a mispay accepted as read, `chips.override.accepted`: the tray gave those chips too).

    >>> house_net_paid({"settlement": {"house_net": 500},
    ...                 "chips": {"override": {"accepted": {"spot3.play": {"due": 3000, "reads": 3100}}}}})
    400
    """
    net = int((record.get("settlement") or {}).get("house_net", 0))
    override = (record.get("chips") or {}).get("override") or {}
    return net - sum(int(c["reads"]) - int(c["due"]) for c in (override.get("accepted") or {}).values())


def _tray_read(kind: str, body: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The tray's reading among those a `chip_scan` or `chips` event holds (as `reads_of` gives them), or None."""
    if kind == "chips":
        return body if body.get("antenna") == TRAY_ANTENNA else None
    reads: list[Mapping[str, Any]] = body.get("reads") or []
    for read in reads:
        if read.get("antenna") == TRAY_ANTENNA:
            return read
    return None


def chip_set_of(body: Mapping[str, Any]) -> ChipSet | None:
    """The chip set a `chip_set` event journals (`{"name", "sha256", "text"}`), None when it holds none that reads."""
    try:
        return ChipSet.from_csv(str(body["text"]), where=str(body.get("name", "chip set")))
    except (KeyError, ChipSetError):
        return None


def alert(flags: tuple[Flag, ...], money: Money, stops: bool) -> dict[str, str] | None:
    """Flags the controller found live: logged; the body of the `tray_difference` fault to journal when the
    table stops on one (`[table] tray_difference_stops`), else None (the full feed alone shows them)."""
    for flag in flags:
        log.warning("tray: %s", flag.words(money))
    if not flags or not stops:
        return None
    return {"kind": FaultKind.TRAY_DIFFERENCE.value, "detail": "; ".join(f.words(money) for f in flags)}


def tray_alert(shown: TrayReconciliation) -> TrayAlert:
    """What every feed (the pit's too) carries of the shift's tray differences once one is flagged, whether or
    not the table stops on it: how many, their sum and the latest. Never what the tray holds.

    >>> tray_alert({"flags": [{"value": -500, "hand": 6, "between": False, "event": 90}], "flagged": 1,
    ...             "difference": -500})  # doctest: +NORMALIZE_WHITESPACE
    {'flagged': 1, 'difference': -500, 'last': {'value': -500, 'hand': 6, 'between': False, 'event': 90}}
    """
    return {"flagged": shown["flagged"], "difference": shown["difference"],
            "last": shown["flags"][-1] if shown["flags"] else None}


def flag_shown(flag: Flag) -> TrayFlag:
    """A flag as the full feed and `croupier tray --json` give it."""
    return {"value": flag.value, "hand": flag.hand, "between": flag.between, "event": flag.at.event}


def _cards_start(kind: str, body: Mapping[str, Any]) -> bool:
    """Whether the event starts a hand's cards: a deal, the dealer's `next` button, a card (not a discard)."""
    return (kind == "deal" or (kind == "button" and body.get("name") == "next")
            or (kind == "card" and body.get("source") != "discard"))
