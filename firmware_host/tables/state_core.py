"""The table's state beneath its reducer: what the table is, reading it, and what every event's handler shares.

`TableCore` is the base of `firmware_host.tables.state.TableState`, which adds the reducer (each event's
handler) and the views: here the fields, the tower light, the step limit, the devices' resume points and
retransmits, the session's tally, and the helpers a handler stands a fault or closes a hand with.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from typing import Any, cast

from engine.errors import say
from engine.games import MAX_SPOTS
from protocol.messages import ButtonDraw, Device, Race, Tournament
from protocol.records import HandRecord
from firmware_host.tables.base import Fault, FaultKind, GameTable, Refused, fault_says
from firmware_host.tables.clock_call import ClockCalled
from firmware_host.tables.house.chips import TableChips
from firmware_host.tables.house.sign import HISTORY_HANDS
from firmware_host.tables.levels import at_level
from firmware_host.tables.players import Seated

LIGHT_READY, LIGHT_WAITING, LIGHT_FAULT = "ready", "waiting", "fault"  # green, amber, red

STEP_KINDS = frozenset({"bet", "decide", "correct", "act", "seat", "chop"})
"""The table-specific steps: each table takes those in its `STEPS` (`GameTable.step`)."""

COUNTED_KINDS = STEP_KINDS | {"deal", "card", "misread"}
"""The events a hand's step count counts (`TableState.hand_steps`): those that grow its record."""


class TableCore:
    """Everything the table is: the hand at the table, the standing fault, the devices and sensors
    (`firmware_host.tables.state.TableState` is the reducer over it).

    `seats` is the default number of seats an `open` gets when its body names none.
    """

    def __init__(self, seats: int = MAX_SPOTS) -> None:
        self.seats = seats
        self.table: GameTable | None = None
        self.hand = 1
        self.fault: Fault | None = None
        self.devices: dict[str, Device] = {}
        self.sensors: dict[str, bool] = {}
        self.events_applied = 0
        self.hand_steps = 0  # the hand's steps taken so far (COUNTED_KINDS): bounds its record
        self.last_record: HandRecord | None = None
        self.table_closed = False  # the pit closed the table (`close`): no table until the next `open`
        self.level: dict[str, Any] | None = None  # a tournament level's stakes, from the next hand (`levels.py`)
        self.tournament: Tournament | None = None  # that level's tournament and number, for the players' screen
        self.clock_call: ClockCalled | None = None  # the clock called on the seat to act (`clock_call.py`)
        self.hold: dict[str, Any] | None = None  # the pit's hold: no new hand from `from_hand` on (`hold.py`)
        self.race: Race | None = None  # the chip race being dealt, or run, till a hand begins (`chip_race_step.py`)
        self.draw: ButtonDraw | None = None  # the draw for the button, dealt or done, till a hand begins (`button_draw_step.py`)
        self.session = {"hands": 0, "voided": 0, "house_net": 0}  # since the table's first `open`, rebuilt on replay
        self.gaming_day: dict[str, str] | None = None  # the table's `[ratings]` setting, for the pit (`show_day`)
        self.gaming_day_of: object = None  # what it was made from (the controller's, compared by identity)
        # (a new map at each change, never changed in place: the views pass it as it is)
        self.seated = Seated()  # the player cards at the seats and the dealer signed in (`players.py`)
        self.history: deque[dict[str, Any]] = deque(maxlen=HISTORY_HANDS)  # the last hands, public form
        self.chips = TableChips()  # the chip set and what the chip readers show (tables/house/chips.py)
        self._closed: HandRecord | None = None

    # -- reading the state ------------------------------------------------------------------------

    @property
    def light(self) -> str:
        """The tower light: red while a fault stands, amber while the dealer is awaited, else green."""
        if self.fault is not None:
            return LIGHT_FAULT
        if self.table is not None and self.table.waiting_for_dealer:
            return LIGHT_WAITING
        return LIGHT_READY

    @property
    def phase(self) -> str:
        return self.table.phase if self.table is not None else "closed"

    def step_limit_fault(self, kind: str, limit: int) -> dict[str, Any] | None:
        """The body of the `step_limit` fault the hand has earned by the `kind` step just applied
        (`limit` steps taken, no fault standing), or None. The caller journals it as a `fault`
        event, so a replay stands it whatever the limit is then."""
        if kind not in COUNTED_KINDS or self.hand_steps < limit or self.fault is not None or self.table is None:
            return None
        return {"kind": FaultKind.STEP_LIMIT.value,
                "detail": f"hand {self.hand} took {self.hand_steps} steps (at most {limit} a hand)"}

    def device_resume(self, device: str) -> tuple[int, int] | None:
        """`(boot, seq)` of the last frame kept from `device`, to tell it where to continue."""
        info = self.devices.get(device)
        if not info or "boot" not in info:
            return None
        return int(info["boot"]), int(info.get("seq", 0))

    def is_retransmit(self, body: Mapping[str, Any]) -> bool:
        """A card event that repeats the last card kept from its device (same frame): nothing new."""
        info = self.devices.get(str(body.get("device", "shoe")), {})
        return "seq" in info and info.get("seq") == body["seq"] and info.get("last_card") == body["card"]

    def tally(self, status: str, record: Mapping[str, Any]) -> None:
        """Count one closed hand in the session: settled (with the house's net) or voided."""
        was = self.session
        if status == "settled":
            net = int((record.get("settlement") or {}).get("house_net", 0))
            self.session = {**was, "hands": was["hands"] + 1, "house_net": was["house_net"] + net}
        else:
            self.session = {**was, "voided": was["voided"] + 1}

    # -- helpers ----------------------------------------------------------------------------------

    def need_table(self) -> GameTable:
        """The table for the current hand: after a hand closed, a fresh one for the next (the caller
        keeps it once its step succeeded). Raises Refused when no table is open."""
        if self.table is None:
            raise Refused("no table is open: send open first", say=say("refusal.no_table"))
        if self.table.closed is not None:
            return at_level(self.table.successor(self.hand), self.level)
        return self.table

    def _need_no_fault(self) -> None:
        if self.fault is not None:
            raise Refused(f"the hand is stopped by a fault ({self.fault.kind}): a supervisor must clear it",
                          "fault", say("refusal.fault_stands"))

    def _set_fault(self, kind: FaultKind, detail: str, event_id: int, card: str | None = None,
                   seat: int | None = None, situation: str = "", more: Mapping[str, Any] | None = None,
                   uid: str | None = None, circles: tuple[tuple[int, str], ...] = ()) -> None:
        if self.table is not None:
            self.table = self.need_table()
        if self.fault is not None and (self.fault.kind.critical or not kind.critical):
            # the first fault stands; later ones are recorded with it (a critical one takes its place)
            if self.table is not None:
                self.table.note_fault(kind, kind.message, detail, event_id, self.table.phase, extra=True,
                                      said=fault_says(kind, card, seat, situation, more, uid)[1])
            return
        self.fault = Fault(kind, kind.message, detail, event_id, card, seat, situation, more, uid, circles)
        if self.table is not None:
            self.table.note_fault(kind, self.fault.message, detail, event_id, self.table.phase,
                                  said=self.fault.full()["say"])

    def _mid_hand(self) -> bool:
        return self.table is not None and self.table.mid_hand

    def _close(self, status: str, body: Mapping[str, Any]) -> None:
        """Finish the hand and keep its record for the caller. A settled hand stays on show until
        the next hand's first step; a voided one gives way to the next hand at once."""
        table = self.need_table()
        record = {**table.record(status, dict(body)), "devices": {k: dict(v) for k, v in self.devices.items()},
                  "sensors": dict(self.sensors)}
        if self.level is not None:  # journaled with the hand: recovery carries it on (`carry_level`)
            record["level"] = dict(self.level)
            if self.tournament is not None:
                record["tournament"] = dict(self.tournament)
        if self.chips.active and "bet" in table.STEPS:  # the bets read, the dues, what was paid, any override
            record["chips"] = self.chips.close_hand(self.chips.owed(table))
        shown = table.shown()
        if shown is not None:  # journaled with the hand: recovery puts it back in `history`
            record["last_hand"] = shown
            self.history.append(shown)
        self._closed = self.last_record = cast(HandRecord, record)  # a test holds them to their types
        self.tally(status, record)
        self.hand += 1
        self.hand_steps = 0
        self.fault = None
        if status == "voided":
            self.table = at_level(table.successor(self.hand), self.level)
