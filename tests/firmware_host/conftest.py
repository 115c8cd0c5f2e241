"""The table state's views held to the whole views at every step of every test here (`tables/views.py`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from engine import redact
from engine.house_state import HouseRoundState
from engine.money import Money
from firmware_host.tables import state as table_state
from firmware_host.tables.button_draw_step import drawing
from firmware_host.tables.chip_race_step import racing
from firmware_host.tables.house.chips import TableChips
from firmware_host.tables.state import TableState
from firmware_host.tables.steps import corrections_of, steps_of
from tests.firmware_host.processes import MADE_FROM_A_CARD


@pytest.fixture(autouse=True)
def views_as_whole(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every view the table state gives, whole or made from a card's parts, equals the full view made whole
    (every part by its maker) and its public view the one redaction of it, and its steps and corrections those
    `steps_of` and `corrections_of` make anew (a card's are the last ones with `correct` made again, `card_steps`),
    and its chips' parts those a `TableChips` of the same readings makes with none of its parts kept, wherever a test
    here applies events."""
    views, card_views = TableState.views, table_state.card_views

    def counted(*args: Any) -> Any:
        made = card_views(*args)
        MADE_FROM_A_CARD[0] += made is not None
        return made

    def checked(self: TableState, money: Money = Money()) -> Any:
        public, full = views(self, money)
        whole = _made_afresh(self, money)
        assert full == whole, {k: (full.get(k), whole.get(k)) for k in {*full, *whole} if full.get(k) != whole.get(k)}
        assert public == redact.public(whole)
        fresh = steps_of(self.table, self.fault, self.hold, self.hand, racing(self.race) or drawing(self.draw),
                         self.chips.bets_to_read(self.devices))  # made anew, not through the views' kept steps
        assert full["steps"] == fresh and full["corrections"] == corrections_of(self.table, fresh)
        if self.chips.active:  # the chips' parts as a reader of the same readings with nothing kept makes them
            afresh = TableChips()
            afresh.__dict__.update({k: v for k, v in vars(self.chips).items() if not k.startswith("_")})
            assert (full["chips"], full["chip_reads"]) == afresh.views(self.table, self.devices)
            assert (full["chip_uids"], full["tray_uids"]) == afresh.uids_views(self.table)
        return public, full

    monkeypatch.setattr(table_state, "card_views", counted)
    monkeypatch.setattr(TableState, "views", checked)
    yield


def _made_afresh(state: TableState, money: Money) -> dict[str, Any]:
    """The state's full view made whole with a house round's parts made anew (`HouseRoundState.full_view` keeps them,
    and a clean card's views put theirs in: `dealt_part`), the round's kept ones left as they were."""
    round_ = getattr(state.table, "round", None)
    if not isinstance(round_, HouseRoundState):
        return state.full_view(money)
    kept = round_._parts, round_._parts_shown
    round_._parts = {}
    try:
        return state.full_view(money)
    finally:
        round_._parts, round_._parts_shown = kept
