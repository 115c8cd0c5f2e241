"""The table's state as a pure reducer: one journaled event in, the state changed (or refused, unchanged).

`TableState.apply(kind, body, event_id)` is the only way the table changes. It is deterministic in
the event bodies alone (no sockets, no clocks, no journal), so the live controller loop, journal
recovery, `croupier history`, the settled hand re-shown after a restart and the tests all build
the same state from the same events. What an event did beyond the state (a hand closed) comes back
as an `Applied`, for the caller to journal.

A fault stops the hand: cards that arrive while a fault stands are recorded but not dealt; only
`clear` (a supervisor, with a reason) lifts it, then the hand continues or is voided.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar, cast

from drivers.errors import DeviceError
from drivers.readings import FaultKind as DeviceFaultKind
from drivers.readings import OfflineKind, Sensor
from engine import redact
from engine.games import MAX_SPOTS
from engine.errors import EngineError, say
from engine.money import Money
from protocol import gaming_day
from protocol.audit import signer_of
from protocol.feed import Named, named_changes
from protocol.messages import Device, FullState, PublicState, Tournament
from protocol.records import ChipScanBody, ChipSetBody, HandRecord
from firmware_host.tables.base import FaultKind, GameSetup, Refused, ShownParts
from firmware_host.tables.button_draw_step import drawing, refuse_while_drawing, start_draw, take_draw_card
from firmware_host.tables.chip_race_step import racing, refuse_while_racing, start_race, take_race_card
from firmware_host.tables.clock_call import still_running, take_clock
from firmware_host.tables.house.chips import ChipFault
from firmware_host.tables.hold import refuse_if_held, take_hold
from firmware_host.tables.levels import at_level, take_level, tournament_level
from firmware_host.tables.players import PLAYER_CARDS
from firmware_host.tables.poker.table import PokerTable
from firmware_host.tables.registry import open_setup
from firmware_host.tables.state_core import COUNTED_KINDS, STEP_KINDS, TableCore
from firmware_host.tables.tray_steps import MOVEMENT_KINDS, take_movement
from firmware_host.tables.views import CardStep, ChipStep, card_views, chip_views, full_view
from firmware_host.tables.house.table import CARD_GROWN, HouseTable

if TYPE_CHECKING:
    from firmware_host.service.config import RatingsConfig

log = logging.getLogger("croupier.table")


@dataclass(frozen=True, slots=True)
class Applied:
    """What one event did besides changing the state: the record of the hand it closed, if any."""

    closed: HandRecord | None = None


class TableState(TableCore):
    """The table's state as a pure reducer (`apply`) over what the table is (`TableCore`), and its views.

    `seats` is the default number of seats an `open` gets when its body names none.
    """

    def __init__(self, seats: int = MAX_SPOTS) -> None:
        super().__init__(seats)
        self._redactor = redact.Redactor()  # the last whole views: an unchanged part's public form is kept (`views`)
        self._last: tuple[Mapping[str, Any], Mapping[str, Any]] | None = None  # the last views given (`views`)
        self._shown: tuple[Any, list[dict[str, Any]]] = (None, [])  # the last hands as the views gave them
        self.steps_shown: dict[str, bool] = {}  # the `steps` the views gave last (`tables/views.py`)
        self.shown_parts = ShownParts()  # the views' devices, sensors and corrections
        self._views_at: tuple[int, Money] | None = None  # the events applied and the money at the last views
        self._card: CardStep | ChipStep | None = None  # the last event, when a clean card or chip scan (`tables/views.py`)
        self._named: tuple[Named, Mapping[str, Any], Mapping[str, Any], tuple[int, int]] | None = None  # (`named`)
        self._handlers: dict[str, Callable[[Mapping[str, Any], int], None]] = {
            "open": self._on_open, "deal": self._on_deal, "card": self._on_card, "misread": self._on_misread,
            "sensor": self._on_sensor, "device": self._on_device, "device_fault": self._on_device_fault,
            "fault": self._on_fault, "refused": self._on_refused, "button": self._on_button,
            "confirm": self._on_confirm, "void": self._on_void, "clear": self._on_clear,
            "close": self._on_close, "level": self._on_level, "clock": self._on_clock,
            "hold": self._on_hold, "race": self._on_race, "button-draw": self._on_button_draw,
            "chip_scan": self._on_chip_scan, "chips": self._on_chips, "chip_set": self._on_chip_set,
            "player": lambda body, _: self.seated.apply_player(body),
            "rating": lambda body, _: self.seated.apply_rating(body),
            "dealer": lambda body, _: self.seated.apply_dealer(body),
        }
        self._handlers.update({kind: self._on_movement(kind) for kind in MOVEMENT_KINDS})  # the tray's

    # -- the reducer ------------------------------------------------------------------------------

    def apply(self, kind: str, body: Mapping[str, Any], event_id: int) -> Applied:
        """Apply one event. Raises Refused / EngineError / ValueError (state unchanged) when refused."""
        self._closed = None
        self._card = None
        self.chips.audit.clear()  # the audit entries of this event alone (`Controller._apply` takes them)
        steps = self.race is not None or self.draw is not None  # a face-up step (race, button draw) open or shown
        if steps:
            refuse_while_racing(self.race, kind)
            refuse_while_drawing(self.draw, kind)
        if kind in STEP_KINDS:
            self._on_step(kind, body)
        else:
            handler = self._handlers.get(kind)
            if handler is None:
                raise Refused(f"unknown event kind {kind!r}")
            handler(body, event_id)
        if self.clock_call is not None and not still_running(self.clock_call, self.table):
            self.clock_call = None  # he acted, or the hand ended
        if steps and self.table is not None and self.table.started:  # a race run, a button drawn: shown till a hand begins
            if self.race is not None and self.race["done"]:
                self.race = None
            if self.draw is not None and self.draw["done"]:
                self.draw = None
        self.events_applied += 1
        if kind in ("open", "close") or self._closed is not None:  # where a replay may start: readings whole next
            self.chips.replay_point()
        if kind in COUNTED_KINDS and self._closed is None:
            self.hand_steps += 1
        closed, self._closed = self._closed, None
        return Applied(closed) if closed is not None else _NOTHING

    # -- reading the state ------------------------------------------------------------------------

    def views(self, money: Money = Money()) -> tuple[PublicState, FullState]:
        """`(public, full)`: the table as the public feed and as the restricted feed show it, with the
        table's currency (`currency`, `decimals`: the configuration's `[table] currency`). Their types
        are the feed's messages (`protocol/messages.py`); the tables build them as plain maps, which a
        test holds to those types' JSON Schema at every step of played hands. After one clean card or chip
        scan since the last views, only the parts it changed are made and redacted, and both feeds' changes with them
        (`named`, `tables/views.py`); else whole."""
        last = self._last if self._views_at == (self.events_applied - 1, money) else None
        card = self._card if self._card is not None and self._card.event == self.events_applied else None
        made = card_views(self, card, last) if type(card) is CardStep else self._chip_views(card, last)
        full: Any  # the feed's messages' types (`FullState`, `PublicState`), built as plain maps: no `cast` call a view
        public: Any
        if made is not None:
            full, public, named = made
            self._named = (named, public, full, (len(public), len(full)))
            if type(card) is CardStep and last is not None:  # the redactor's memory kept current: the next whole view
                self._redactor.took(full, public, last[0], [*named.full["set"], *named.full["items"]])  # diffs against it
        else:
            self._named = None
            full = full_view(self, money)
            public = self._redactor.public(full)
        self._last = (full, public)
        self._views_at = (self.events_applied, money)
        return public, full

    def _chip_views(self, step: CardStep | ChipStep | None, last: tuple[Mapping[str, Any], Mapping[str, Any]] | None,
                    ) -> tuple[dict[str, Any], dict[str, Any], Named] | None:
        """After a chip scan, the views made from the chips' parts (`chip_views`) and their changes, when the last views
        are the redactor's own (its public parts are redacted against them: a card's views are not), else None."""
        known = self._redactor.last()
        if not isinstance(step, ChipStep) or last is None or known is None or known[0] is not last[0]:
            return None
        made = chip_views(self, step, known)
        if made is None:
            return None
        full, moved, places = made
        public = self._redactor.public_card(full, moved, places)  # the public parts the same places of as the full
        return full, public, Named(known[1], known[0], named_changes(known[1], public, moved, CARD_GROWN, places),
                                   named_changes(known[0], full, moved, CARD_GROWN, places))

    def named(self, public: Mapping[str, Any], full: Mapping[str, Any], also: tuple[str, ...] = ()) -> Named | None:
        """The changes to the last views `public` and `full` (the very maps, nothing added since but the caller's own
        keys `also`, whose changes are joined to them: `Named.joined`) made where a clean card landed (`tables/views.py`
        `card_views`) or from the parts a chip scan named (`protocol.feed.named_changes`: the public ones from the
        redacted parts), or None."""
        made = self._named
        if made is None or made[1] is not public or made[2] is not full:
            return None  # other views
        return made[0] if made[3] == (len(public), len(full)) else made[0].joined(public, full, also, made[3])

    def views_with_day(self, money: Money, day: RatingsConfig) -> tuple[PublicState, FullState]:
        """`views`, the table's `[ratings]` gaming day on them (`gaming_day`: the pit compares it with the floor's,
        `protocol.gaming_day`), made again only when `day` is another object than the last."""
        if self.gaming_day_of is not day:
            self.gaming_day_of, self.gaming_day = day, gaming_day.setting(day.day_starts, day.time_zone)
            self._views_at = None  # made whole: a card's parts made from the last views would carry the old day
        return self.views(money)

    def full_view(self, money: Money = Money()) -> dict[str, Any]:
        """The full view made whole, every part by its maker (what `views` gives, the tests' oracle)."""
        return full_view(self, money)

    def moved(self, full: Mapping[str, Any], also: tuple[str, ...] = ()) -> tuple[Mapping[str, Any], list[str]] | None:
        """The last `views`' full view's moved keys, with the full view they moved from (`Redactor.moved`:
        None for any other view), and the keys of `also` it holds (put in it since: the caller's own)."""
        known = self._redactor.moved(full)
        return None if known is None else (known[0], [*known[1], *(key for key in also if key in full)])

    def history_shown(self) -> list[dict[str, Any]]:
        """The last hands as a list, made again only when a hand joined them (each made once, in public
        form, when its hand closed; the views' lists are never changed)."""
        newest = (len(self.history), self.history[-1]) if self.history else None
        if self._shown[0] != newest:  # a tuple of a count and the very hand: `!=` compares the hand by identity first
            self._shown = (newest, list(self.history))
        return self._shown[1]

    # -- the dealer's steps -----------------------------------------------------------------------

    def _on_open(self, body: Mapping[str, Any], event_id: int) -> None:
        if self.table is not None and self.table.started:
            raise Refused("a hand is in progress: confirm or void it before opening the table again",
                          say=say("refusal.hand_in_progress"))
        self._need_no_fault()
        setup: GameSetup = open_setup(body, self.seats)
        self.table = setup.new_table(self.hand)
        self.table_closed = False
        self.level = self.tournament = None
        self.race = self.draw = None
        self.session = {"hands": 0, "voided": 0, "house_net": 0}  # a new session from each open

    def _on_close(self, body: Mapping[str, Any], event_id: int) -> None:
        """The pit closes the table between hands: no game is open until the next `open`."""
        if self.table is None:
            raise Refused("no table is open to close", say=say("refusal.no_table"))
        if self.table.started:
            raise Refused("a hand is in progress: confirm or void it before closing the table",
                          say=say("refusal.hand_in_progress"))
        self._need_no_fault()
        self.table = None
        self.table_closed = True
        self.seated.clear()

    def _on_level(self, body: Mapping[str, Any], event_id: int) -> None:
        self.level = take_level(self.table, body)
        self.tournament = tournament_level(body)
        if self.table is not None and self.table.closed is None and not self.table.started:
            self.table = at_level(self.table, self.level)

    def _on_hold(self, body: Mapping[str, Any], event_id: int) -> None:
        self.hold = take_hold(body)

    def _on_race(self, body: Mapping[str, Any], event_id: int) -> None:
        self._need_no_fault()
        self.race, self.table = start_race(self.need_table(), body)

    def _on_button_draw(self, body: Mapping[str, Any], event_id: int) -> None:
        self._need_no_fault()
        self.draw = start_draw(self.need_table(), body)

    def _on_movement(self, kind: str) -> Callable[[Mapping[str, Any], int], None]:
        """The handler of a buy-in, colour-up, fill or credit: checked here (`tables/tray_steps.py`),
        reconciled by the tray's ledger (`service/tray.py`)."""
        return lambda body, event_id: take_movement(self.table, kind, body)

    def _on_clock(self, body: Mapping[str, Any], event_id: int) -> None:
        self._need_no_fault()
        self.clock_call = take_clock(self.table, body)

    def carry_level(self, record: Mapping[str, Any]) -> None:
        """The tournament level a closed hand's record says was in force (recovery: `levels.py`)."""
        if record.get("level") is not None:
            self.level = dict(record["level"])
            tournament = record.get("tournament")
            self.tournament = cast(Tournament, dict(tournament)) if tournament is not None else None
            if self.table is not None and self.table.closed is None and not self.table.started:
                self.table = at_level(self.table, self.level)

    def _on_step(self, kind: str, body: Mapping[str, Any]) -> None:
        self._need_no_fault()
        if kind == "bet":  # a house table's first bet begins its hand
            refuse_if_held(self.hold, self.table, self.hand)
        table = self.need_table()
        if kind not in table.STEPS:
            raise Refused(f"a {table.setup.game} table takes {_listed(sorted(table.STEPS))}, not {kind}",
                          say=say("refusal.not_at_this_table", command=kind))
        if kind == "decide":  # a Play read from the Play circle (the reader online)
            body = self.chips.play_multiple(table, body)
        table.step(kind, body)
        self.table = table
        if kind == "decide":
            self.chips.decided(table, int(body["seat"]), str(body["decision"]))

    def _on_deal(self, body: Mapping[str, Any], event_id: int) -> None:
        self._need_no_fault()
        refuse_if_held(self.hold, self.table, self.hand)
        table = self.need_table()
        if "bet" in table.STEPS:  # a house table: the stable circles become the bets (the reader online)
            self.chips.bets_at_deal(table, self.devices)
        try:
            table.deal()
        except BaseException:
            self.chips.undo_deal(table)
            raise
        self.table = table
        self.chips.dealt(table)

    def _on_confirm(self, body: Mapping[str, Any], event_id: int) -> None:
        self._need_no_fault()
        table = self.need_table()
        if not table.confirmable:
            if table is self.table and table.short_of_cards():
                # the dealer called the showdown but the shoe gave fewer cards than the hand needs
                self._set_fault(FaultKind.CARD_COUNT, "too few cards at showdown: the hand still expects "
                                f"a card for {table.next_target()}", event_id)
                return
            raise Refused(f"nothing to confirm: the hand is in phase {table.phase}", say=say("refusal.nothing_to_confirm"))
        if self.chips.online(self.devices):  # the hand closes only when every circle reads its due
            mispaid = self.chips.payout_fault(table)
            if mispaid is not None:
                self._chip_fault(mispaid, event_id)
                return
        else:
            self.chips.unverified(table)
        table.settle()
        self._close("settled", dict(body))

    def _on_void(self, body: Mapping[str, Any], event_id: int) -> None:
        if self.fault is not None and self.fault.kind.critical:  # only a clear lifts it (then="void")
            raise Refused(f"the table is locked by a fault ({self.fault.kind}): a supervisor must clear it", "fault",
                          say("refusal.table_locked"))
        table = self.need_table()
        if not table.started or table is not self.table:
            raise Refused("no hand in progress to void", say=say("refusal.nothing_to_void"))
        self._close("voided", dict(body))

    def _on_clear(self, body: Mapping[str, Any], event_id: int) -> None:
        if self.fault is None:
            raise Refused("there is no fault to clear", say=say("refusal.no_fault_to_clear"))
        # who cleared it: the supervisor who signed it off (a journal of before sign-offs: its free-text `by`)
        signer = signer_of(body)
        cleared = {"reason": body["reason"], "then": body.get("then", "continue"), "event": event_id}
        if "signed_off" in body:
            cleared["signed_off"] = dict(body["signed_off"])
        if "by" in body:
            cleared["by"] = body["by"]
        if self.table is not None:
            self.table.note_clear(cleared)
        self.chips.cleared(self.fault.kind, self.table, cleared)
        self.fault = None
        if cleared["then"] == "void" and self.table is not None and self.table.started:
            said = f"fault cleared by {signer}" if signer else "fault cleared"
            voided: dict[str, Any] = {"reason": f"{said}: {body['reason']}"}
            if "signed_off" in body:
                voided["signed_off"] = dict(body["signed_off"])
            self._close("voided", voided)

    def _on_fault(self, body: Mapping[str, Any], event_id: int) -> None:
        try:
            kind = FaultKind(str(body["kind"]))
        except ValueError:
            raise Refused(f"unknown fault kind {body['kind']!r}") from None
        self._set_fault(kind, str(body.get("detail", "")), event_id)

    # -- the devices' readings --------------------------------------------------------------------

    def _on_chip_set(self, body: Mapping[str, Any], event_id: int) -> None:
        """The chip set the table values chips with (journaled at start: the journal alone values them)."""
        self.chips.take_set(cast(ChipSetBody, body))  # the journal's chip_set bodies hold to it (tests/protocol)

    def _on_chip_scan(self, body: Mapping[str, Any], event_id: int) -> None:
        """A chip reader's antennas read together: circles' or the tray's chips now (`tables/house/chips.py`), one
        step; each fault they raise stood in their order, as readings taken one by one would."""
        table = self.table if self.table is not None and self.table.closed is None else None
        problems = self.chips.take_scan(cast(ChipScanBody, body), table)  # an antenna no circle here: refused, nothing changed
        info = self.devices.setdefault(str(body.get("device", "chips")), {})
        info.setdefault("online", True)  # a reader that reports is there (until it says it is offline)
        for problem in problems:
            self._chip_fault(problem, event_id)
        if not problems:  # its views: only the chips' parts (`tables/views.py`)
            self._card = ChipStep(self.events_applied + 1)

    def _on_chips(self, body: Mapping[str, Any], event_id: int) -> None:
        """One antenna's reading as its own event (journals written before `chip_scan`): a scan of one."""
        read = {k: v for k, v in body.items() if k != "device"}
        self._on_chip_scan({"device": body.get("device", "chips"), "reads": [read]}, event_id)

    def _chip_fault(self, problem: ChipFault, event_id: int) -> None:
        self._set_fault(problem.kind, problem.detail, event_id, situation=problem.situation, more=problem.args,
                        uid=problem.uid, circles=problem.circles)

    def _on_card(self, body: Mapping[str, Any], event_id: int) -> None:
        card = str(body["card"])
        device = str(body.get("device", "shoe"))
        info = self.devices.setdefault(device, {})
        if body.get("source") != "manual":
            info["seq"] = int(body.get("seq", 0))
            info["last_card"] = card
        if self.table is None:
            self._set_fault(FaultKind.UNEXPECTED_CARD, f"card {card} with no table open", event_id, card,
                            situation="no_table")
            return
        if body.get("source") == "discard":
            self.table.discard(card)
            return
        if (self.race is not None or self.draw is not None) and (racing(self.race) or drawing(self.draw)):  # face up
            # a race or draw card (`face_up_step.py`); neither asked while none is shown (their calls, at every card)
            self._face_up_card(card, body)
            return
        if self.fault is None and self.hold is not None:
            refuse_if_held(self.hold, self.table, self.hand)
        table = self.table if self.table.closed is None else self.need_table()  # after a hand closed: the next one's
        self.table = table
        if self.fault is not None:
            table.note_ignored(card, self.fault.kind)
            return
        phase = table.phase  # read once (a property of a property); the bets read below leave it as it is
        first = "bet" in table.STEPS and phase == "bets"  # the first card closes the betting: bets read now
        if first:
            try:
                self.chips.bets_at_deal(table, self.devices)
            except (Refused, EngineError) as exc:  # a circle moving, a read bet the limits refuse: the card waits
                self._set_fault(FaultKind.NO_BET, f"{card} came out but the bets cannot be read: {exc}", event_id, card)
                return
        problem = table.deal_or_fault(card)
        if first:
            self.chips.undo_deal(table) if problem is not None else self.chips.dealt(table)
        if problem is not None:
            self._set_fault(problem.kind, problem.detail, event_id, problem.card, problem.seat, problem.situation)
        elif body.get("source") == "manual":  # entered by hand: said so in the record and on the full feed
            table.note_manual(card, event_id, body.get("signed_off"))
        elif isinstance(table, HouseTable):  # its views: only the parts a card changes (`tables/views.py`)
            self._card = CardStep(self.events_applied + 1, table, phase, device)

    def _face_up_card(self, card: str, body: Mapping[str, Any]) -> None:
        table = self.need_table()
        if self.fault is not None:  # recorded, not dealt (as a hand's card while a fault stands)
            table.note_ignored(card, self.fault.kind)
            self.table = table
            return
        manual = body.get("source") == "manual"
        if racing(self.race):
            assert self.race is not None
            self.race, self.table = take_race_card(self.race, table, card, manual)
        else:
            assert self.draw is not None
            self.draw, self.table = take_draw_card(self.draw, table, card, manual)

    def _on_misread(self, body: Mapping[str, Any], event_id: int) -> None:
        if "seq" in body:
            self.devices.setdefault(str(body.get("device", "shoe")), {})["seq"] = int(body["seq"])
        if body.get("source") == "discard" and not self._mid_hand():
            return
        self._set_fault(FaultKind.MISREAD, f"misread on the {body.get('source')} reader", event_id)

    def _on_sensor(self, body: Mapping[str, Any], event_id: int) -> None:
        active = bool(body["active"])
        try:
            sensor: Sensor | None = Sensor.parse(str(body["name"]))
        except DeviceError:
            sensor = None  # a name no sensor has (an old journal's): its state is kept, it stops nothing
        self.sensors[str(sensor or body["name"])] = active
        if "seq" in body:
            self.devices.setdefault(str(body.get("device", "shoe")), {})["seq"] = int(body["seq"])
        if not self._mid_hand():
            return
        match sensor, active:
            case Sensor.EMPTY, True:
                self._set_fault(FaultKind.SHOE_EMPTY, "the shoe reports empty", event_id)
            case Sensor.LID_OPEN, True:
                self._set_fault(FaultKind.LID_OPEN, "the shoe's lid is open", event_id)
            case Sensor.SHOE_PRESENT, False:
                self._set_fault(FaultKind.SHOE_EMPTY, "the shoe was taken off the table", event_id)

    def _on_device(self, body: Mapping[str, Any], event_id: int) -> None:
        device = str(body["device"])
        info = self.devices.setdefault(device, {})
        if body.get("online"):
            if info.get("boot") != body.get("boot"):
                info.pop("seq", None)
                info.pop("last_card", None)
            info.update(cast(Device, {k: body[k] for k in ("model", "serial", "firmware", "boot") if k in body}))
            info["online"] = True
            return
        info["online"] = False
        reason = str(body.get("reason", ""))
        if self._mid_hand() and device != PLAYER_CARDS:  # a rating device never stops a hand
            kind = _journaled_kind(body, OfflineKind, OfflineKind.DEVICE_OFFLINE)
            # the words name the device ("The chip reader went offline"): which cable the dealer checks
            self._set_fault(FaultKind(kind), f"{device}: {reason}", event_id, situation=device)

    def _on_device_fault(self, body: Mapping[str, Any], event_id: int) -> None:
        reason = str(body.get("reason", ""))
        kind = _journaled_kind(body, DeviceFaultKind, DeviceFaultKind.DEVICE_FAULT)
        self._set_fault(FaultKind(kind), f"{body.get('device')}: {reason}", event_id)

    def _on_refused(self, body: Mapping[str, Any], event_id: int) -> None:
        """A device reading that could not be applied: journaled as it came, and a fault."""
        self._set_fault(FaultKind.REFUSED_READING,
                        f"{body.get('kind')} reading refused: {body.get('error')}", event_id)

    def _on_button(self, body: Mapping[str, Any], event_id: int) -> None:
        """A dealer button: the step of the command it stands for (`BUTTON_STEPS`), through the very
        handler the command goes through, with the same rules (faults, races, holds). A step the
        table refuses is recorded only: a button has no one to answer."""
        name = str(body["name"])
        step = BUTTON_STEPS.get(name)
        if step is None or self.table is None:
            return  # a button with no step, or pressed while no table is open: recorded only
        kind, step_body = step
        try:
            refuse_while_racing(self.race, kind)
            refuse_while_drawing(self.draw, kind)
            self._handlers[kind](step_body, event_id)
        except (Refused, EngineError) as exc:
            log.info("button %s did nothing: %s", name, exc)


BUTTON_STEPS: dict[str, tuple[str, Mapping[str, Any]]] = {
    "next": ("deal", {}),
    "confirm": ("confirm", {"by": "button"}),
    "void": ("void", {"reason": "void button held", "by": "button"}),
}
"""Each dealer button's step: the command it stands for and the body that command is applied with."""


_NOTHING = Applied()

_Kind = TypeVar("_Kind", OfflineKind, DeviceFaultKind)


def _journaled_kind(body: Mapping[str, Any], kinds: type[_Kind], before_kinds: _Kind) -> _Kind:
    """The kind a device's offline or fault reading carried, as journaled (`kind`). A body from a
    journal written before readings carried their kind gets `before_kinds`, the generic kind (any
    fault stops the hand alike; its words are never read). Raises Refused for a value that is no such kind."""
    kind = body.get("kind")
    if kind is None:
        return before_kinds
    try:
        return kinds(kind)
    except ValueError:
        raise Refused(f"not a device {kinds.__name__} value: {kind!r} (values: {', '.join(kinds)})") from None




def _listed(words: list[str]) -> str:
    """`a`, `a and b`, `a, b and c`."""
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"
