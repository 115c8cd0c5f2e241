"""The one redaction: the public view of a table derived from its full view, hiding what the rules hide.

Every view of a table (house game or poker), and a poker hand's own view, is built once, in full.
Each hand in it (a spot, a poker seat, the dealer) lists its `cards` with `visible`, a flag per card
saying whether the rules have turned it face up for everyone (a stud up card, a hand shown down, the
dealer's hand at the showdown). `public(full)` is the only way to the public view (`public(full,
POKER_HAND)` for a poker hand's own view, `engine.poker.DealerView.to_dict`: its `Shape` names its
keys); no other module decides which cards the public sees:

- a card not `visible` becomes `??`; a hand with a card not visible shows no `hand_name` (nor
  `hand_category`, nor `hand_ranks`);
- only the keys named below reach the public (default deny): burns, mucked and discarded cards,
  cards ignored while a fault stood, devices, sensors, a fault's `detail` never do, nor any key
  added to the full view later until it is named here;
- nothing is shared with the full view (each map and list its own), but for `limits`, `paytable`
  and `history` (the last hands), which pass as they are, the same objects: the limits sign and the
  paytables are public, and each past hand was made by this redaction of its own view when it
  closed (settled hands are shown down; a hand whose cards stayed down has no hand name there);
  so do a smart table's circle values, the dealer's steps, the decisions open and the corrections
  (`chips`, `steps`, `legal`, `corrections`: `PASSED_KEYS`), public by nature and made for their view.
  The tables make these once (a hand's signs, a closed hand's public form) and never change them,
  so the card-by-card views do not copy them anew (they are most of a house table's view).

>>> full = {"phase": "preflop", "spots": [{"seat": 1, "cards": ["As", "Kd"], "visible": [False, False],
...         "bets": {"ante": 5}}], "burns": ["2c"], "fault": None}
>>> public(full)
{'phase': 'preflop', 'spots': [{'seat': 1, 'cards': ['??', '??'], 'bets': {'ante': 5}}], 'fault': None}
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from engine.cards import HIDDEN

__all__ = ["TABLE_KEYS", "HAND_KEYS", "FAULT_KEYS", "PASSED_KEYS", "PUBLIC_SAY", "Shape", "TABLE", "POKER_HAND",
           "Redactor", "public", "public_fault", "public_hand", "hidden_cards"]

TABLE_KEYS = frozenset({
    "game", "phase", "hand", "board", "dealer", "spots", "to_act", "next", "fault",
    # a poker table's
    "structure", "stakes", "street", "button", "expected", "legal", "prompt", "level", "pots", "total_pot",
    "results", "clock", "hold",
    # the tournament level a director set, for the players' screen (firmware_host/tables/levels.py)
    "tournament",
    # a tournament table's chip race, its cards dealt face up (firmware_host/tables/chip_race_step.py)
    "race",
    # the draw for a tournament table's button, its cards dealt face up (firmware_host/tables/button_draw_step.py)
    "button_draw",
    # a house table's spots and bet circles (the dealer console takes bets on them)
    "seats", "circles",
    # the table's money: amounts are in the smallest unit of `currency`, which has `decimals`
    "currency", "decimals",
    # the table's session since it opened (settled hands, voided hands, the house's net): for the pit
    "session",
    # what the players' screen shows beside the hand: the limits sign and the profile's paytables
    # (public by nature), and the last hands, already in public form (each taken from this
    # redaction of its own last view when it closed: firmware_host/tables/house/sign.py)
    "limits", "paytable", "history",
    # which dealer steps the table allows now (firmware_host/tables/steps.py): the console's buttons; the
    # decisions "Correct the last decision" may put in place (decisions are taken in the open)
    "steps", "corrections",
    # a smart table's circles as read (values only; the UIDs are the full view's `chip_uids` and `tray_uids`)
    "chips",
    # a smart table's tray differences this shift, for the pit (how many, their sum, the latest; never the
    # tray's chips, which are the full view's `tray`): firmware_host/service/tray.py `tray_alert`
    "tray_alert",
    # a relaying key's sign-offs slowed down, for the pit and surveillance (since, spacing, key kind; never a name
    # or a PIN): firmware_host/service/signoff_alert.py
    "signoff_alert",
    # the table's `[ratings]` gaming day setting (a start time and a zone), which the pit compares with the floor's
    "gaming_day",
})
"""The table's keys the public sees (anything else stays on the full view)."""

HAND_KEYS = frozenset({
    "seat", "cards", "bets", "decision", "hand_name", "results", "net", "qualifies", "pays",
    # a house hand's category (engine.evaluate's keys), the ranks its name cites and the kickers that decided
    # against the dealer's hand named alike (engine.kickers), for a screen's own words; hidden with its name
    "hand_category", "hand_ranks", "hand_kickers",
    # a poker seat's
    "stack", "sitting_out", "in_hand", "up", "folded", "all_in", "mucked", "shown",
    # the missed blinds a poker seat owes, a seat left out until the button passes, and the hands turned up at
    # a tournament's all-in showdown
    "owes", "waiting_for_big_blind", "waiting_for_button", "revealed",
    # a poker seat's forced bets, draws, last action and shown hand as data, for the players'
    # screen's words (firmware_host/tables/poker/sign.py; `hand_values` only once the hand is shown)
    "posted", "drew", "act", "hand_values",
})
"""The keys of a spot, a poker seat or the dealer's hand the public sees."""

POKER_HAND_KEYS = frozenset({
    "variant", "street", "phase", "button", "actor", "expected_card", "level", "legal", "pots", "total_pot",
    "board", "seats", "prompt",
})
"""The keys of a poker hand's own view (`engine.poker.DealerView.to_dict`) the public sees: all of them."""

POKER_SEAT_KEYS = frozenset({
    "seat", "stack", "bet", "contributed", "folded", "all_in", "mucked", "shown", "revealed", "cards", "up",
})
"""The keys of a seat in a poker hand's own view the public sees (its cards through the `visible` flags)."""

PASSED_KEYS = frozenset({"limits", "paytable", "history", "chips",  # chips: a smart table's circle values, no UID
                         # the dealer steps, the decisions open and the corrections: made anew for each view that
                         # changes them (tables/steps.py, house/table.py `legal_decisions`, a poker hand's view's own)
                         "steps", "legal", "corrections"})
"""The table's keys passed to the public view as they are (public by nature, never changed once made)."""

FAULT_KEYS = frozenset({"kind", "message", "event", "circles"})
"""A standing fault's keys the public sees (its `detail` may name cards)."""

PUBLIC_SAY = "public_say"
"""A fault's words for the public (never naming a card): the public fault's `say`. The full fault's
own `say` may name the card and stays on the full feed."""


def public_fault(fault: Mapping[str, Any]) -> dict[str, Any]:
    """The public form of a standing fault: its FAULT_KEYS, and as `say` its `public_say`.

    >>> public_fault({"kind": "duplicate_card", "detail": "7s twice", "event": 3, "say": {"key": "k_card"},
    ...               "public_say": {"key": "k", "args": {}}})
    {'kind': 'duplicate_card', 'event': 3, 'say': {'key': 'k', 'args': {}}}
    """
    out = {k: v for k, v in fault.items() if k in FAULT_KEYS}
    if fault.get(PUBLIC_SAY) is not None:
        out["say"] = _copy(fault[PUBLIC_SAY])
    return out


@dataclass(frozen=True, slots=True)
class Shape:
    """What a kind of view holds: the keys the public sees, which of them hold a list of hands or
    one hand, the keys of a hand the public sees, and the keys passed as they are."""

    keys: frozenset[str]
    hand_lists: frozenset[str]
    hands: frozenset[str]
    hand_keys: frozenset[str]
    passed: frozenset[str] = frozenset()
    deep: frozenset[str] = field(init=False, compare=False, repr=False)  # hand lists and hands: a plain value's
    # public form is itself (`_part`) but under these keys, which a view never holds plain (redacted, they raise)

    def __post_init__(self) -> None:
        object.__setattr__(self, "deep", self.hand_lists | self.hands)


TABLE = Shape(TABLE_KEYS, frozenset({"spots"}), frozenset({"dealer"}), HAND_KEYS, PASSED_KEYS)
"""A table's view (house game or poker), as the feed sends it."""

POKER_HAND = Shape(POKER_HAND_KEYS, frozenset({"seats"}), frozenset(), POKER_SEAT_KEYS)
"""A poker hand's own view (`engine.poker.DealerView.to_dict`), its hands under `seats`."""


def public(full: Mapping[str, Any], shape: Shape = TABLE) -> dict[str, Any]:
    """The public view of a full view of `shape` (a table's by default). Raises ValueError for a
    hand whose `visible` flags do not match its cards (a view that cannot be redacted is never published)."""
    out: dict[str, Any] = {}
    keys, deep = shape.keys, shape.deep
    for key, value in full.items():  # a loop, not a comprehension: no call for it (a card's few parts go through here)
        if key in keys:
            out[key] = value if type(value) not in _NESTED and key not in deep else _part(key, value, shape, _NONE,
                                                                                       _NONE)
    return out


def public_hand(hand: Mapping[str, Any], shape: Shape = TABLE) -> dict[str, Any]:
    """The public form of one hand of `shape` (a spot of a table's `spots`, its `dealer`): what `public` makes of it
    in its place. Raises ValueError as `public` does."""
    return _hand(hand, shape.hand_keys)


class Redactor:
    """`public`, step after step: it keeps the last full view it redacted and the public view it made,
    and redacts only the parts of the next full view that are not the very objects they were in the
    last one (and drops the keys gone); every other public part is the one made then, the public view
    a copy of the last one with the new parts put in (no walk over the parts that did not move: a card
    moves 4 of a house table's ~30). A hand of a list that is the very hand it was keeps its public form
    too. Only for full views whose parts are never changed once made (a house round's kept parts,
    `engine.house.HouseRound.full_view`; the table state's session, last hands and steps,
    `firmware_host.tables.state`; every other part is made anew at each view), the very rule the feed's
    changes rely on (`protocol.feed.diff`). The public view it gives is the one `public` gives (tests hold
    them equal at every step of random hands)."""

    __slots__ = ("shape", "_full", "_public", "_since", "_moved")

    def __init__(self, shape: Shape = TABLE) -> None:
        self.shape = shape
        self._full: Mapping[str, Any] = _NONE
        self._public: Mapping[str, Any] = _NONE
        self._since: Mapping[str, Any] = _NONE  # the full view before the last one, and the keys that moved from it
        self._moved: list[str] = []

    def public(self, full: Mapping[str, Any]) -> dict[str, Any]:
        """`public(full, self.shape)`, redacting only the parts that moved since the last view. Raises
        ValueError as `public` does (nothing kept then: the next view is redacted whole)."""
        last_full, last_public = self._full, self._public
        self._full = self._public = self._since = _NONE
        if last_full is _NONE:
            out = public(full, self.shape)
        else:
            self._moved = [key for key, value in full.items() if last_full.get(key, _NONE) is not value]
            out = _moved(full, self.shape, last_full, last_public, self._moved)
        self._full, self._public, self._since = full, out, last_full
        return out

    def public_moved(self, full: Mapping[str, Any], moved: list[str]) -> dict[str, Any]:
        """`public(full, self.shape)` for a full view made from the last one this redactor took (`last`), a copy
        of it whose parts are those very objects but for the keys of `moved` (the step that made it named them:
        `firmware_host/tables/views.py`): only those redacted anew, with no walk to find them. Raises ValueError
        as `public` does (nothing kept then)."""
        last_full, last_public = self._full, self._public
        self._full = self._public = self._since = _NONE
        out = public(full, self.shape) if last_full is _NONE else _moved(full, self.shape, last_full, last_public, moved)
        self._moved = moved
        self._full, self._public, self._since = full, out, last_full
        return out

    def public_card(self, full: Mapping[str, Any], moved: list[str], places: Mapping[str, list[int]]) -> dict[str, Any]:
        """`public_moved` for a full view made from the last one (which this redactor took) by a step that named, of
        each list of hands among `moved`, the places whose hand is new (`places`: the list as long as it was, its other
        hands the very ones they were; a card to one spot): those hands alone redacted anew, no walk over the list.
        Raises ValueError as `public` does (nothing kept then)."""
        last_full, last_public = self._full, self._public
        self._full = self._public = self._since = _NONE
        if last_full is _NONE or len(full) != len(last_full):
            out = public(full, self.shape) if last_full is _NONE else _moved(full, self.shape, last_full, last_public,
                                                                              moved)
        else:  # the same keys: none gone, none new
            out = dict(last_public)
            shape = self.shape
            for key in moved:
                if key not in shape.keys:
                    continue
                named = places.get(key)
                if named is not None and key in shape.hand_lists and key in last_public:
                    made, hands = list(last_public[key]), full[key]
                    for i in named:
                        made[i] = _hand(hands[i], shape.hand_keys)
                    out[key] = made
                else:
                    out[key] = _part(key, full[key], shape, last_full, last_public)
        self._moved = moved
        self._full, self._public, self._since = full, out, last_full
        return out

    def took(self, full: Mapping[str, Any], public: Mapping[str, Any], since: Mapping[str, Any],
             moved: list[str]) -> None:
        """Keep `full` and `public` as the last views, made elsewhere from `since` and its public view by putting in
        the parts of `moved` (full ones, and their public forms as this redaction makes them: a clean card's,
        `firmware_host/tables/views.py`), its other parts the very ones: the next view is redacted against them."""
        self._full, self._public, self._since, self._moved = full, public, since, moved

    def last(self) -> tuple[Mapping[str, Any], Mapping[str, Any]] | None:
        """The last full view this redactor took and the public view it made of it, or None before the first."""
        return None if self._full is _NONE else (self._full, self._public)

    def moved(self, full: Mapping[str, Any]) -> tuple[Mapping[str, Any], list[str]] | None:
        """For the full view this redactor took last (`full`, the very map): the full view before it and the
        keys of `full` whose value is not the very object it was there (as `public` found them: the feed's
        changes look for nothing else, `protocol.feed.Feed.publish`); None for any other view, or a first one."""
        return (self._since, self._moved) if full is self._full and self._since is not _NONE else None


def _moved(full: Mapping[str, Any], shape: Shape, last_full: Mapping[str, Any],
           last_public: Mapping[str, Any], moved: list[str]) -> dict[str, Any]:
    """The last public view with the parts of `full` that `moved` redacted anew (`_part`) and the keys gone dropped."""
    out = dict(last_public)
    added = len(set(moved).difference(last_full))  # the moved keys new to this view
    if len(full) - added != len(last_full):  # a key of the last view is gone
        for key in last_full:
            if key not in full:
                out.pop(key, None)
    keys, deep = shape.keys, shape.deep
    for key in moved:
        if key in keys:
            value = full[key]
            out[key] = value if type(value) not in _NESTED and key not in deep else _part(key, value, shape, last_full,
                                                                                       last_public)
    return out


def _part(key: str, value: Any, shape: Shape, last_full: Mapping[str, Any], last_public: Mapping[str, Any]) -> Any:
    """The public form of the full view's part `key` (one of the shape's keys), made anew: of a list of hands, a
    hand that is the very hand of the last view's list keeps the public form made of it then."""
    was = last_full.get(key, _NONE)
    if key in shape.hand_lists:
        if type(was) is list and key in last_public:  # each hand of the last view's list kept as its public form
            made = last_public[key]
            return [made[i] if i < len(was) and was[i] is hand else _hand(hand, shape.hand_keys)
                    for i, hand in enumerate(value)]
        return [_hand(hand, shape.hand_keys) for hand in value]
    if key in shape.hands:
        return _hand(value, shape.hand_keys)
    if key == "fault":
        return None if value is None else public_fault(value)
    if key in shape.passed:
        return value
    return value if type(value) not in _NESTED else _copy(value)


def hidden_cards(full: Mapping[str, Any], shape: Shape = TABLE) -> set[str]:
    """Every card text the full view of `shape` holds that the public must not see: the cards not
    `visible` of every hand, burns, mucked and discarded cards (what a leak test looks for in public messages)."""
    hidden: set[str] = set()
    hands = [*(h for key in shape.hand_lists for h in full.get(key, ())),
             *(full[key] for key in shape.hands if full.get(key))]
    for hand in hands:
        for card, seen in zip(hand.get("cards", ()), hand.get("visible", ())):
            if not seen and card != HIDDEN:
                hidden.add(card)
    for key in ("burns", "mucked", "discards"):
        hidden.update(c for c in full.get(key, ()) if c != HIDDEN)
    return hidden


def _hand(hand: Mapping[str, Any], hand_keys: frozenset[str]) -> dict[str, Any]:
    cards = hand.get("cards", ())
    visible = hand.get("visible", ())
    if len(visible) != len(cards):
        raise ValueError(f"a hand's visible flags ({len(visible)}) do not match its cards ({len(cards)})")
    shown = all(visible)
    out: dict[str, Any] = {}
    for key, value in hand.items():  # each key where the full view has it
        if key not in hand_keys:
            continue
        kind = type(value)
        if key == "cards" and not shown:  # all face down (most hands): no comprehension
            value = [HIDDEN] * len(cards) if not any(visible) else [card if seen else HIDDEN
                                                                    for card, seen in zip(cards, visible)]
        elif kind is list:  # a hand's lists and maps copied here, in line (called at every card): a comprehension
            value = value.copy()  # (a call) only where one holds a list or map
            for item in value:
                if type(item) in _NESTED:
                    value = [v if type(v) not in _NESTED else _copy(v) for v in value]
                    break
        elif kind is dict:
            value = value.copy()
            for item in value.values():
                if type(item) in _NESTED:
                    value = {k: (v if type(v) not in _NESTED else _copy(v)) for k, v in value.items()}
                    break
        out[key] = value
    if not shown:
        if "hand_name" in out:
            out["hand_name"] = None
        if "hand_category" in out:
            out["hand_category"] = None
        if "hand_ranks" in out:
            out["hand_ranks"] = None
        if "hand_kickers" in out:
            out["hand_kickers"] = None
    return out


def _copy(value: Any) -> Any:
    """A copy of plain view data (maps, lists, scalars), so the public view shares nothing."""
    kind = type(value)
    if kind is dict:
        return {k: (v if type(v) not in _NESTED else _copy(v)) for k, v in value.items()}
    if kind is list:
        return [v if type(v) not in _NESTED else _copy(v) for v in value]
    return value


_NESTED = (dict, list)

_NONE: Mapping[str, Any] = MappingProxyType({})  # no view before
