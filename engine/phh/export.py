"""Hands dealt at our table written as PHH records: from an engine hand, or from the table's JSON hand record."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

from engine.cards import Card
from engine.errors import CardError, IllegalAction
from engine.phh.actions import PhhAction
from engine.phh.codes import PhhError, stakes_fields, variant_code
from engine.phh.record import HandHistory, Number
from engine.poker import (
    VARIANTS, Awarded, BetOrRaised, BroughtIn, Called, Checked, Chopped, Dealt, Drew, Folded, Hand,
    HandSettings, Mucked, Posted, Rake, Raked, Record, Returned, Shown, Stakes, Structure,
)

__all__ = ["to_phh", "hand_from_record", "record_to_phh"]


def _card_text(card: Card | None) -> str:
    return "??" if card is None else str(card)


class _Lines:
    """The action lines of a hand's records, deals grouped as PHH writes them."""

    __slots__ = ("position", "scale", "texts", "amounts", "hole", "board", "draws", "street")

    def __init__(self, order: list[int], scale: Decimal) -> None:
        self.position = {seat: i for i, seat in enumerate(order)}
        self.scale = scale
        self.texts: list[str] = []
        self.amounts: list[int | None] = []
        self.hole: dict[int, list[str]] = {}
        self.board: list[str] = []
        self.draws: list[str] = []
        self.street: str | None = None

    def emit(self, text: str, amount: int | None = None) -> None:
        self.texts.append(text)
        self.amounts.append(amount)

    def flush_deals(self) -> None:
        for seat, cards in self.hole.items():
            self.emit(f"d dh p{self.position[seat] + 1} {''.join(cards)}")
        self.hole.clear()
        if self.board:
            self.emit(f"d db {''.join(self.board)}")
            self.board.clear()

    def flush_draw_deals(self) -> None:
        for line in self.draws:
            self.emit(line)
        self.draws.clear()

    def dealt(self, record: Dealt) -> None:
        if record.street != self.street:
            self.flush_deals()
            self.street = record.street
        if record.kind == "burn":
            return
        if record.kind == "board":
            self.board.append(_card_text(record.card))
        elif record.kind == "hole":
            assert record.seat is not None
            self.hole.setdefault(record.seat, []).append(_card_text(record.card))
        else:  # a draw replacement: written after the draw round's discards, as PHH tools expect
            assert record.seat is not None
            line = f"d dh p{self.position[record.seat] + 1} "
            if self.draws and self.draws[-1].startswith(line):
                self.draws[-1] += _card_text(record.card)
            else:
                self.draws.append(line + _card_text(record.card))

    def money(self, units: int) -> str:
        if self.scale == 1:
            return str(units)
        return str((units * self.scale).quantize(self.scale))

    def add(self, record: Record) -> None:
        if isinstance(record, Dealt):
            self.dealt(record)
            return
        if isinstance(record, (Posted, Returned, Raked, Awarded, Chopped)) or getattr(record, "seat", None) is None:
            return  # forced bets, uncalled bets, chops and the settlement follow from the actions
        self.flush_deals()
        if not isinstance(record, Drew):
            self.flush_draw_deals()
        p = f"p{self.position[record.seat] + 1}"
        if isinstance(record, Folded):
            self.emit(f"{p} f")
        elif isinstance(record, (Checked, Called)):
            self.emit(f"{p} cc")
        elif isinstance(record, BroughtIn):
            self.emit(f"{p} pb")
        elif isinstance(record, BetOrRaised):
            self.emit(f"{p} cbr {self.money(record.to)}", record.to)
        elif isinstance(record, Drew):
            self.emit(f"{p} sd {''.join(_card_text(c) for c in record.discards)}".rstrip())
        elif isinstance(record, Shown):
            self.emit(f"{p} sm {''.join(str(c) for c in record.cards)}")
        elif isinstance(record, Mucked):
            self.emit(f"{p} sm")


def to_phh(hand: Hand, *, unit: Decimal | int = 1, fields: Mapping[str, Any] | None = None) -> HandHistory:
    """The PHH record of a hand dealt at our table (finished or not).

    Players are written from the button's left round to the button (p1..pN), so seat numbers
    become positions; give `fields` `seats` (table seat numbers) and `players` in that order
    to keep them. `unit` is the value of one of our units in the currency the record should be
    written in (`Decimal("0.01")`: cents written as dollars). Other `fields` (`event`, `table`,
    `hand`, `time`...) are written as given. A finished hand carries its `finishing_stacks`.
    Burnt cards are not written (PHH has no burns); an unknown card is `??`.

    The record replays through `replay` to the same stacks. Raises PhhError for a variant that
    has no code.
    """
    code = variant_code(hand.variant, hand.stakes.structure)
    order = list(hand.order)
    scale = Decimal(unit)
    lines = _Lines(order, scale)
    for record in hand.records:
        lines.add(record)
    lines.flush_deals()
    lines.flush_draw_deals()
    extra = dict(fields or {})
    settings = hand.settings
    if settings.short_allin_rule != "simple" or settings.fixed_limit_half_bet_reopens:
        # our table's short all-in rules, as user fields (PHH's own reading is the simple one)
        extra.setdefault("_short_allin_rule", settings.short_allin_rule)
        extra.setdefault("_fixed_limit_half_bet_reopens", settings.fixed_limit_half_bet_reopens)
    if any(isinstance(r, Chopped) for r in hand.records):
        extra.setdefault("chopped", True)  # PHH has no chop: the record stops where it happened
    finishing = None
    if hand.result is not None:
        finishing = tuple(_as_number(hand.result.final_stacks[s], scale) for s in order)
    players = extra.pop("players", None)
    antes, blinds, bring_in, small_bet, big_bet, min_bet, max_bet = _stakes_fields_of(code, hand.stakes, len(order))
    if hand.no_small_blind or hand.owed:   # the forced bets as posted: a dead small blind is dead money
        antes, blinds = _posted_by_position(hand, order)
        extra.setdefault("_blinds", list(hand.stakes.blinds))   # the table's, for our replay
        if hand.no_small_blind:
            extra.setdefault("_no_small_blind", True)
    return HandHistory(
        code, antes, blinds, bring_in, small_bet, big_bet, min_bet, max_bet,
        starting_stacks=tuple(hand.starting_stacks[s] for s in order),
        actions=tuple(PhhAction.parse(t) for t in lines.texts),
        amounts=tuple(lines.amounts),
        unit=scale,
        ante_trimming_status=False,
        raise_cap=hand.stakes.raise_cap,
        uncapped_heads_up=hand.stakes.uncapped_heads_up,
        players=None if players is None else tuple(players),
        finishing_stacks=finishing,
        winnings=None,
        extra=tuple(sorted(extra.items())),
        rake=hand.settings.rake,
    )


def _stakes_fields_of(code: str, stakes: Stakes, n: int) -> tuple[Any, ...]:
    """antes, blinds_or_straddles, bring_in, small_bet, big_bet, min_bet, max_bet of a record
    (0 for the stakes the variant code does not use)."""
    needs = stakes_fields(code)
    blinds = list(stakes.blinds[:n]) + [0] * (n - min(n, len(stakes.blinds)))
    return (
        tuple(stakes.ante_for(place) for place in range(n)),
        tuple(blinds) if "blinds_or_straddles" in needs else (0,) * n,
        stakes.bring_in if "bring_in" in needs else 0,
        stakes.small_bet if "small_bet" in needs else 0,
        stakes.big_bet if "big_bet" in needs else 0,
        stakes.minimum_bet if "min_bet" in needs else 0,
        stakes.max_bet if "max_bet" in needs else 0,
    )


def _posted_by_position(hand: Hand, order: list[int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """antes and blinds_or_straddles as the hand posted them, by position: a dead small blind (a
    missed blind posted on coming back) is dead money, written with the antes; a big blind posted
    out of turn is negative (PHH's blind posted out of position), the blinds in turn positive."""
    position = {seat: i for i, seat in enumerate(order)}
    antes, blinds = [0] * len(order), [0] * len(order)
    for record in hand.records:
        if isinstance(record, Posted):
            if record.kind in ("ante", "dead_small_blind"):
                antes[position[record.seat]] += record.amount
            else:
                blinds[position[record.seat]] += -record.amount if record.seat in hand.owed else record.amount
    return tuple(antes), tuple(blinds)


def _as_number(units: int, scale: Decimal) -> Number:
    return units if scale == 1 else (units * scale).quantize(scale)


_EVENT_ARITY = {"deal": 1, "fold": 1, "check": 1, "call": 1, "bet": 2, "raise": 2, "complete": 2,
                "bring_in": 1, "draw": 2, "show": 1, "muck": 1, "chop": 0}
_STAKES_ALLOWED = frozenset({"blinds", "antes", "bring_in", "small_bet", "big_bet", "min_bet", "max_bet",
                             "raise_cap", "uncapped_heads_up"})


def _record_rake(record: Mapping[str, Any]) -> Rake | None:
    """A hand record's house rake (`rake`: rate_bp, cap, no_flop_no_drop), or None. Raises
    IllegalAction, KeyError or TypeError for a malformed one (the caller names the record)."""
    raw = record.get("rake")
    if not raw:
        return None
    return Rake(int(raw["rate_bp"]), int(raw["cap"]), bool(raw.get("no_flop_no_drop", True)))


def hand_from_record(record: Mapping[str, Any]) -> Hand:
    """Play a JSON hand record of our table through the engine; the engine hand.

    The record (what the controller keeps of a poker hand, and `croupier phh export` reads)::

        {"variant": "holdem", "structure": "no-limit",
         "stakes": {"blinds": [1, 2], "antes": 0, "min_bet": 2},
         "stacks": {"1": 200, "4": 350, "6": 120}, "button": 6, "burns": true,
         "events": [["deal", "As"], ["deal", "??"], ..., ["raise", 1, 20], ["call", 4],
                    ["draw", 3, ["As", "Kd"]], ["show", 1], ["show", 4, ["Ah", "Qd"]], ["muck", 6]],
         "unit": "0.01", "fields": {"event": "...", "table": 3, "hand": 1234}}

    `variant` is a code of `engine.poker.VARIANTS`, `structure` one of `fixed-limit`,
    `spread-limit`, `pot-limit`, `no-limit`; `stakes` takes the fields of `engine.poker.Stakes`
    (`blinds`, `antes` one amount or one per place in blind order, `bring_in`, `small_bet`,
    `big_bet`, `min_bet`, `max_bet`, `raise_cap`, `uncapped_heads_up`); `stacks` maps seat
    numbers to chips; `button` defaults to the highest seat; `burns` (default true) says whether
    the events deal the burnt cards. `rules` (the table's, when the hand was dealt):
    `short_allin_rule`, `fixed_limit_half_bet_reopens`, `no_small_blind` (a dead small blind),
    `owed` (seat -> the missed blinds posted: "small", "big", "both"), `all_in_reveal` (a
    tournament's: the hands turned up at the all-in are tabled at the showdown); a record without `rules`
    is read with short all-ins never reopening (the rule before tables had one). Events: `deal` the next card the engine expects (burns
    included), `bet`/`raise`/`complete` to a street total, `draw` with the discards (empty: stand
    pat), `show` with the cards when some were dealt unknown (`??`), `chop` with the agreed
    shares (`{"seat": chips}`; none: evenly).

    Raises PhhError naming the field, or the event (its position) and the engine's reason.
    """
    table = _seated(record)
    for number, event in enumerate(record.get("events") or [], 1):
        if not isinstance(event, list) or not event or event[0] not in _EVENT_ARITY:
            raise PhhError(f"hand record: event #{number} {event!r} is not one of {sorted(_EVENT_ARITY)}")
        name, args = event[0], event[1:]
        if not _EVENT_ARITY[name] <= len(args) <= _EVENT_ARITY[name] + (1 if name in ("show", "chop") else 0):
            raise PhhError(f"hand record: event #{number} {event!r}: wrong number of arguments")
        try:
            _play_event(table, name, args)
        except (IllegalAction, CardError) as exc:
            raise PhhError(f"hand record: event #{number} {event!r}: {exc}") from None
    return table


def _seated(record: Mapping[str, Any]) -> Hand:
    """The engine hand a record starts (stakes, stacks, button, settings). Raises PhhError."""
    try:
        variant = VARIANTS[record["variant"]]
        structure = Structure(record["structure"])
    except (KeyError, ValueError, TypeError) as exc:
        raise PhhError(f"hand record: variant or structure missing or unknown ({exc})") from None
    raw = dict(record.get("stakes") or {})
    unknown = set(raw) - _STAKES_ALLOWED
    if unknown:
        raise PhhError(f"hand record: unknown stakes field(s) {sorted(unknown)}")
    if "blinds" in raw:
        raw["blinds"] = tuple(raw["blinds"])
    if isinstance(raw.get("antes"), list):
        raw["antes"] = tuple(raw["antes"])
    try:
        stakes = Stakes(structure, **raw)
        stacks = {int(seat): chips for seat, chips in record["stacks"].items()}
        button = record.get("button")
        # a record without rules was dealt before the table had them: short all-ins never reopened
        rules = dict(record.get("rules") or {"short_allin_rule": "simple", "fixed_limit_half_bet_reopens": False})
        settings = HandSettings(burns=bool(record.get("burns", True)), rake=_record_rake(record),
                                short_allin_rule=str(rules.get("short_allin_rule", "tda")),
                                fixed_limit_half_bet_reopens=bool(rules.get("fixed_limit_half_bet_reopens", True)),
                                all_in_reveal=bool(rules.get("all_in_reveal", False)))
        owed = {int(seat): str(kind) for seat, kind in dict(rules.get("owed") or {}).items()}
        return Hand(variant, stakes, stacks, button=None if button is None else int(button), settings=settings,
                    no_small_blind=bool(rules.get("no_small_blind", False)), owed=owed)
    except (KeyError, TypeError, AttributeError) as exc:
        raise PhhError(f"hand record: stacks missing or malformed ({exc})") from None
    except (IllegalAction, CardError) as exc:
        raise PhhError(f"hand record: {exc}") from None


def _play_event(table: Hand, name: str, args: list[Any]) -> None:
    """One event of a hand record (see hand_from_record). Raises as the engine's step."""
    if name == "deal":
        table.deal(args[0])
    elif name == "fold":
        table.fold(args[0])
    elif name == "check":
        table.check(args[0])
    elif name == "call":
        table.call(args[0])
    elif name in ("bet", "raise", "complete"):
        table.bet_or_raise(args[1], args[0])
    elif name == "bring_in":
        table.post_bring_in(args[0])
    elif name == "draw":
        table.draw(args[1], args[0])
    elif name == "show":
        table.show(args[1] if len(args) > 1 else None, args[0])
    elif name == "chop":
        table.chop({int(s): c for s, c in args[0].items()} if args else None)
    else:
        table.muck(args[0])


def record_to_phh(record: Mapping[str, Any]) -> HandHistory:
    """The PHH record of a JSON hand record of our table (see `hand_from_record`): its table seat
    numbers as `seats`, its `fields` as given. Raises PhhError as hand_from_record and to_phh."""
    table = hand_from_record(record)
    try:
        unit = Decimal(str(record.get("unit", 1)))
    except InvalidOperation:
        raise PhhError(f"hand record: unit {record.get('unit')!r} is not a number") from None
    fields = dict(record.get("fields") or {})
    fields.setdefault("seats", list(table.order))
    return to_phh(table, unit=unit, fields=fields)
