"""The table state's views: the whole full view, and after one clean card or chip scan the last views with only its parts made anew.

`TableState.views` gives the feed's two views at every step. Made whole (`full_view`, then the one redaction,
`engine.redact.Redactor`), a view walks every key of the table (~33) and the redaction and the feed's changes
look among all of them for the few that moved. After a card dealt cleanly at a house table (`TableState` says so,
`CardStep`; the hand's first card, and one that moves the round to another phase short of the showdown, among them:
their `phase`, and the first card's steps made again) the views and both feeds' changes are made where the card landed
(`card_views`): the table's `HouseTable.card_parts` gives the parts it changed (the hand it went to grown face
down, or the board or burns grown by its text; the hand's `sequence`; `next`; `to_act` and `legal` only at the card
that makes a decision due), with the shoe's `devices` entry and the steps' `correct` (`tables/steps.py`
`card_steps`, only where a correction was open); the one redaction (`engine.redact.public`) gives the public form of
those parts alone (of the spots, the one the card went to), and the changes are those parts at their places (a
spot's place, a list's new end): no whole view, no walk over the keys. After a chip scan that raised no fault at a
house table (`ChipStep`), `chip_views` copies the last full view and makes again the chips' parts (each circle's
value for all; its UIDs, the tray's and the counts for the full feed), the readers' device and the steps, and the
redactor redacts the moved keys; the tray's keys the controller puts in after the redaction are left for it to put
in again, and their changes joined to the named ones (`protocol.feed.Named.joined`). Anything else (a fault, a
the showdown reached, a card at a chip table, another event between two views) makes the views whole.
Tests hold the views made so to the whole views, and their public one to `redact.public` of it, at every view of
every in-process test of tests/firmware_host (its conftest.py) and after every step of random hands
(`test_card_views.py`, the changes applied to the views before and held to the views after) and chip hands with
faults (`test_chip_views.py`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from engine import redact
from engine.frozen import quick_init
from engine.money import Money
from protocol.feed import Named, item_at
from protocol.messages import ButtonDraw, Device, Race, Tournament
from firmware_host.tables.base import Fault, GameTable, ShownParts
from firmware_host.tables.button_draw_step import drawing
from firmware_host.tables.chip_race_step import racing
from firmware_host.tables.clock_call import ClockCalled, shown as clock_shown
from firmware_host.tables.house.chips import TableChips
from firmware_host.tables.house.table import HouseTable
from firmware_host.tables.players import Seated
from firmware_host.tables.poker.table import PokerTable
from firmware_host.tables.steps import card_steps, chip_steps, corrections_of, steps_of


class TableState(Protocol):
    """What the views read (and `steps_shown`, write) of `firmware_host.tables.state.TableState`, which imports
    this module: named here as a Protocol, not imported (no cycle), so mypy checks every read below against it."""

    table: GameTable | None
    hand: int
    fault: Fault | None
    devices: dict[str, Device]
    sensors: dict[str, bool]
    session: dict[str, int]
    gaming_day: dict[str, str] | None
    tournament: Tournament | None
    clock_call: ClockCalled | None
    hold: dict[str, Any] | None
    race: Race | None
    draw: ButtonDraw | None
    seated: Seated
    chips: TableChips
    steps_shown: dict[str, bool]
    shown_parts: ShownParts

    def history_shown(self) -> list[dict[str, Any]]:
        """The last hands, in public form (the very list while no hand joined them)."""

_TRAY_KEYS = ("tray", "tray_alert", "signoff_alert")
"""The keys the controller puts in a view after its redaction (`Controller.states`): a view holding them is made whole."""


@quick_init  # made at every clean card: no `object.__setattr__` call a field
@dataclass(frozen=True, slots=True)
class CardStep:
    """The event applied last was a card dealt cleanly at a house table in `phase` before it (`TableState._on_card`):
    `event` is the state's count of events applied once it was, `table` the table it went to, `device` the reader
    (its entry in `devices` is the one the card changed)."""

    event: int
    table: HouseTable
    phase: str
    device: str


@dataclass(frozen=True, slots=True)
class ChipStep:
    """The event applied last was a chip scan that raised no fault (`TableState._on_chip_scan`): `event` is the
    state's count of events applied once it was. It changed the chips' parts of the views, the readers' entry in
    `devices` and the steps that read the circles (`deal`), nothing else (the table, its hand and its fault as were)."""

    event: int


def full_view(state: TableState, money: Money) -> dict[str, Any]:
    """The state's whole full view: every part made (or handed out again while equal) by its maker."""
    table = state.table
    full = closed_view() if table is None else table.full_view()
    full["hand"] = state.hand if table is None else table.hand
    full["fault"] = state.fault.full() if state.fault else None
    shown = state.shown_parts  # each the very map of the view before while equal
    full["devices"] = shown.same("devices", state.devices, _device_copies)
    full["sensors"] = shown.same("sensors", state.sensors, dict)
    full["currency"], full["decimals"] = money.currency, money.decimals
    full["session"] = state.session
    full["gaming_day"] = state.gaming_day  # `[ratings]`: the pit compares it with the floor's (protocol/gaming_day.py)
    full["history"] = state.history_shown()
    if isinstance(table, PokerTable):  # the clock called on a player, or None
        full["clock"] = clock_shown(state.clock_call)
        full["tournament"] = dict(state.tournament) if state.tournament is not None else None
    full["hold"] = dict(state.hold) if state.hold is not None else None
    full["players"] = state.seated.full()  # the full feed's alone: the redaction passes named keys only
    full["dealer_signed_in"] = state.seated.dealer
    _steps_parts(state, full)
    if state.chips.active:  # a smart table (a chip set): circle values for all, UIDs on the full feed
        full["chips"], full["chip_reads"] = state.chips.views(table, state.devices)
        full["chip_uids"], full["tray_uids"] = state.chips.uids_views(table)
    if isinstance(table, PokerTable):
        full["race"] = state.race  # copied by the redaction; the table makes a new one at every change
        full["button_draw"] = state.draw
    return full


def card_views(state: TableState, card: CardStep | None, last: tuple[Mapping[str, Any], Mapping[str, Any]] | None,
               ) -> tuple[dict[str, Any], dict[str, Any], Named] | None:
    """After `card`, the one event applied since the views `last` (`(full, public)`, as the state's views gave them
    and left as they were): the full and public views made from `last`'s with the parts the card changed put in, and
    both feeds' changes from them (`Named`), all made where the card landed: the table's `HouseTable.card_parts`
    (the hand, board or burns it went to, `sequence`, `next`, a decision due), the card's reader in `devices`, the
    steps only where a correction was open (a card closes it); the public parts are those of them the one redaction
    (`engine.redact.public`) gives, the spot's alone redacted of the spots. None: the views must be made whole (no
    such card, a chip table, the table's `card_parts` said so)."""
    if card is None or last is None or card.table is not state.table or state.fault is not None:
        return None
    last_full, last_public = last
    if state.chips.active or any(map(last_full.__contains__, _TRAY_KEYS)):  # the tray's keys: in the full one if any
        return None
    made = card.table.card_parts(card.phase, last_full)
    if made is None:
        return None
    sets, grown, place, spot = made
    devices, info = last_full["devices"], state.devices[card.device]
    if info != devices.get(card.device):  # its `seq` and `last_card`: the reader's entry alone copied
        sets["devices"] = state.shown_parts.put("devices", {**devices, card.device: dict(info)})
    steps, whole = last_full["steps"], card.phase == "bets"  # the hand's first card closes the betting: every step
    if whole or steps["correct"]:  # made again (`steps_of`); else `correct` alone (`card_steps`), false unless it was
        parts: dict[str, Any] = {}
        _steps_parts(state, parts, None if whole else card_steps(steps, card.table))
        sets.update((key, parts[key]) for key in ("steps", "corrections") if parts[key] is not last_full[key])
    shown = redact.public({**sets, **grown})
    full, public = {**last_full, **sets, **grown}, {**last_public, **shown}
    full_items: dict[str, Any] = {}
    public_items: dict[str, Any] = {}
    for key, part in grown.items():  # `sequence`, and the board or the burns: grown by one at their end
        full_items[key] = item_at(part, len(part) - 1)
        if key in shown:  # the board: on the public feed too
            part = shown.pop(key)
            public_items[key] = item_at(part, len(part) - 1)
    if spot is not None:  # the spots: new lists (the views before keep theirs), the card's spot in its place
        full["spots"] = spots = list(last_full["spots"])
        public["spots"] = shown_spots = list(last_public["spots"])
        spots[place], shown_spots[place] = spot, redact.public_hand(spot)
        full_items["spots"], public_items["spots"] = item_at(spots, place), item_at(shown_spots, place)
    return full, public, Named(last_public, last_full, {"set": shown, "del": [], "items": public_items},
                               {"set": sets, "del": [], "items": full_items})


def chip_views(state: TableState, step: ChipStep, last: tuple[Mapping[str, Any], Mapping[str, Any]] | None,
               ) -> tuple[dict[str, Any], list[str], dict[str, list[int]]] | None:
    """After `step`, the one event applied since the views `last` (`(full, public)`, as `card_views` takes them): the
    full view made from `last`'s with the chips' parts made again by their makers (`TableChips.views`, `uids_views`:
    each circle's entry, and its place in `chip_uids`, made anew only when it was read since), the devices and the
    steps (`deal` alone, `chip_steps`: the rest and the corrections are the table's, which a scan leaves as it was);
    the keys whose part is new; the places of `chip_uids` that are new. The controller's own keys (the tray's) are
    left out, for it to put in again (`TableState.named` joins their changes). None: the views must be made whole."""
    if last is None or not isinstance(state.table, HouseTable):
        return None
    last_full, last_public = last
    full = dict(last_full)
    for key in _TRAY_KEYS:
        full.pop(key, None)
    chips, table = state.chips, state.table
    full["chips"], full["chip_reads"] = chips.views(table, state.devices)
    full["chip_uids"], full["tray_uids"] = chips.uids_views(table)
    full["devices"] = state.shown_parts.same("devices", state.devices, _device_copies)
    full["steps"] = state.steps_shown = chip_steps(last_full["steps"], table, state.fault, state.hold, state.hand,
                                                   chips.bets_to_read(state.devices))
    moved = [key for key in _CHIP_KEYS if full[key] is not last_full.get(key)]
    places = {}
    was, now = last_full.get("chip_uids"), full["chip_uids"]
    if "chip_uids" in moved and type(was) is list and len(was) == len(now):
        places["chip_uids"] = [i for i, entry in enumerate(now) if entry is not was[i]]
    return full, moved, places


_CHIP_KEYS = ("chips", "chip_reads", "chip_uids", "tray_uids", "devices", "steps")
"""The keys of the views a chip scan may change (`chip_views`)."""


def _steps_parts(state: TableState, full: dict[str, Any], steps: dict[str, bool] | None = None) -> None:
    """The dealer steps the table allows now (`steps`, when the caller made them: a card's, `card_steps`) and the
    corrections open (`tables/steps.py`), each the very map or list of the view before while equal."""
    table = state.table
    if steps is None:
        steps = steps_of(table, state.fault, state.hold, state.hand, racing(state.race) or drawing(state.draw),
                         state.chips.bets_to_read(state.devices))
    if steps != state.steps_shown:  # else the very map of the view before (its parts are never changed)
        state.steps_shown = steps
    full["steps"] = state.steps_shown
    full["corrections"] = state.shown_parts.same("corrections", corrections_of(table, full["steps"]), _made)


def _device_copies(devices: Mapping[str, Any]) -> dict[str, Any]:
    """The views' copy of the devices (each device's map copied: the state's own are its to change)."""
    return {name: dict(info) for name, info in devices.items()}


def _made(part: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A part made for this view alone (`corrections_of`): kept as it is."""
    return part


def closed_view() -> dict[str, Any]:
    """The view of a table with no game open."""
    return {"game": None, "phase": "closed", "board": [], "dealer": {"cards": [], "visible": []}, "spots": [],
            "to_act": None, "next": None}
