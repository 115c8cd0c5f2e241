"""Replaying a PHH record through our engine (`engine.poker.Hand`), strictly: the finishing stacks."""

from __future__ import annotations

from decimal import Decimal
from collections.abc import Iterable
from typing import Any

from engine.errors import CardError, IllegalAction
from engine.phh.actions import PhhAction
from engine.phh.codes import PhhError, game_of
from engine.phh.record import HandHistory
from engine.poker import Hand, HandSettings, Phase, Stakes, Structure
from engine.poker.values import CardInput

__all__ = ["replay", "replay_hand", "stakes_of"]

_OVER = Phase.OVER            # read as globals: quicker than members of the Enum class
_SHOWDOWN = Phase.SHOWDOWN
# a hand history records no burns; short all-ins as pokerkit reads them (never reopening; the
# differential tests compare with it): the table's TDA and half-bet rules stay the live tables'
_REPLAY_SETTINGS = HandSettings(burns=False, short_allin_rule="simple", fixed_limit_half_bet_reopens=False)
_BETTING_KINDS = frozenset({"pb", "f", "cc", "cbr"})
# stakes are values: one shared instance for the record's fields that made them (a room plays few stakes);
# made, and so checked, the first time
_STAKES: dict[tuple[Any, ...] | None, Stakes] = {}


def stakes_of(hand: HandHistory) -> Stakes:
    """The engine's stakes for a record. Raises PhhError naming what our tables cannot deal
    (a negative blind: an online "post" out of position)."""
    return _stakes(hand, game_of(hand.variant)[1], dict(hand.extra))


def _stakes(hand: HandHistory, structure: Structure, extra: dict[str, Any]) -> Stakes:
    """stakes_of, `extra` the record's other fields as a dict (read once a replay)."""
    ours = extra.get("_blinds")   # our table's blinds, when some were missed (see _posted_out_of_turn)
    key = None if ours is not None else (   # the variant's code, not its structure: an Enum hashes in Python
        hand.variant, hand.blinds_or_straddles, hand.antes, hand.bring_in, hand.small_bet, hand.big_bet, hand.min_bet,
        hand.max_bet, hand.raise_cap, hand.uncapped_heads_up)
    stakes = _STAKES.get(key)
    if stakes is not None:   # the same fields made these stakes before (a room plays few)
        return stakes
    if isinstance(ours, list) and all(isinstance(b, int) and not isinstance(b, bool) and b >= 0 for b in ours):
        blinds = list(ours)
    else:
        blinds = list(hand.blinds_or_straddles)
        for i, b in enumerate(blinds if min(blinds) < 0 else ()):   # the first negative named (one a player)
            if b < 0:
                raise PhhError(f"blinds_or_straddles[{i}] = {hand.amount(b)}: a posted blind out of "
                               f"position (negative in PHH) is not dealt at our tables")
    while blinds and blinds[-1] == 0:
        blinds.pop()
    each = hand.antes
    antes: int | tuple[int, ...] = each[0] if each.count(each[0]) == len(each) else each   # one for everyone, or each his
    try:
        stakes = Stakes(structure, tuple(blinds), antes, hand.bring_in, hand.small_bet, hand.big_bet,
                        hand.min_bet, hand.max_bet, hand.raise_cap, hand.uncapped_heads_up)
    except IllegalAction as exc:
        raise PhhError(f"stakes: {exc}") from None
    if key is not None:
        if len(_STAKES) >= 4096:
            _STAKES.clear()
        _STAKES[key] = stakes
    return stakes


def _posted_out_of_turn(hand: HandHistory, extra: dict[str, Any]) -> tuple[bool, dict[int, str]]:
    """A hand of our table where missed blinds were posted: its dead small blind (user field
    `_no_small_blind`) and the live big blinds posted out of turn (negative `blinds_or_straddles`;
    a dead small blind posted is dead money, written with the antes). Others: none."""
    if not isinstance(extra.get("_blinds"), list):
        return False, {}
    owed = {i: "big" for i, b in enumerate(hand.blinds_or_straddles) if b < 0}
    return extra.get("_no_small_blind") is True, owed


def _settings(hand: HandHistory, extra: dict[str, Any]) -> HandSettings:
    """No burns; short all-ins as the record's user fields say (`_short_allin_rule`,
    `_fixed_limit_half_bet_reopens`: written by our tables' export), else as pokerkit reads them."""
    rule = extra.get("_short_allin_rule", "simple")
    half = extra.get("_fixed_limit_half_bet_reopens", False)
    if hand.rake is None and rule == "simple" and half is False:
        return _REPLAY_SETTINGS
    try:
        return HandSettings(burns=False, rake=hand.rake, short_allin_rule=str(rule),
                            fixed_limit_half_bet_reopens=half is True)
    except IllegalAction as exc:
        raise PhhError(f"_short_allin_rule: {exc}") from None


def replay(hand: HandHistory) -> tuple[int, ...]:
    """Play a record through our engine; the finishing stacks in units, in player order.

    Raises PhhError as replay_hand.
    """
    final = replay_hand(hand).stacks   # the hand is over: its players' stacks are the finishing stacks
    return tuple(map(final.__getitem__, range(len(hand.starting_stacks))))


def replay_hand(hand: HandHistory, complete: bool = True) -> Hand:
    """Play a record through our engine, strictly, and return the finished engine hand.

    Players p1..pN sit in seats 0..N-1 and pN has the button (the PHH order: small blind first;
    heads-up the button posts the small blind, as in our rules and the PHH's reversed blinds). The
    table burns no cards (hand histories record none). Every player action must be the one our
    engine waits for: an action the record lacks (a fold never written, a show at showdown) is an
    error, never supplied. The dealer's lines may come in the record's order rather than the
    shoe's, which our engine follows: hole cards of a street as one line per player (dealt round
    by round here), draw replacements after everyone's discards, the board of an all-in run-out
    after the hands were shown; those lines are taken when the engine asks for the card. A hand
    shown more than once (stud, shown before the last card and again after) counts its last show.
    A show of unknown cards (`sm ????`) is a muck: a hand nobody saw cannot win.

    A PHH record may stop before the hand's end: with `complete=False` the engine hand is
    returned as the record leaves it (waiting for the next card or action). A hand our table
    ended with a pot chopped by agreement is written with `chopped = true` (PHH has no chop): its
    record stops there and the pot is chopped as its `finishing_stacks` say (evenly without them).

    Raises PhhError naming the action (text and position) and the engine's reason; for a
    variant that is not ours (NS); when the record ends before the hand does (unless `complete`
    is false); or for dealt cards the hand never used.
    """
    variant, structure = game_of(hand.variant)   # raises for a code not ours
    extra = dict(hand.extra)
    stakes = _stakes(hand, structure, extra)
    try:
        no_small_blind, owed = _posted_out_of_turn(hand, extra)
        table = Hand(variant, stakes, hand.starting_stacks, None, _settings(hand, extra), no_small_blind, owed)  # pN the button
    except (IllegalAction, CardError) as exc:
        raise PhhError(f"cannot seat the hand: {exc}") from None
    replayed = _Replay(hand, table)
    replayed.play()
    if complete:
        replayed.finish(hand, extra)
    return table


class _Replay:
    """The record's actions fed to the engine hand in turn; dealer lines into card buffers."""

    __slots__ = ("table", "actions", "amounts", "count", "used", "holes", "board")

    def __init__(self, hand: HandHistory, table: Hand) -> None:
        self.table = table
        self.actions = hand.actions
        self.amounts = hand.amounts
        self.count = len(hand.actions)
        self.used = [False] * self.count
        self.holes: list[list[CardInput]] = []
        for _ in hand.starting_stacks:   # a plain loop: a comprehension is a call of its own
            self.holes.append([])
        self.board: list[CardInput] = []

    def fail(self, index: int, reason: object) -> PhhError:
        return PhhError(f"action {self.actions[index].text!r} (#{index + 1}): {reason}")

    def play(self) -> None:
        """Every action of the record, in order (dealer lines as the engine asks for the cards)."""
        table = self.table
        actions, amounts, used = self.actions, self.amounts, self.used
        for i, a in enumerate(actions):
            if used[i]:   # a dealer line read ahead, or a show read at showdown
                continue
            kind = a[1]   # a.kind and a.actor by place: a tuple's item is read quicker than a named field
            if table.actor == a[0] and (kind == "f" or kind == "cc" or kind == "cbr"):
                # the commonest step, in short (the full step below would do the same): the player
                # the engine waits for (while a card is expected, nobody is to act)
                try:
                    if kind == "f":
                        table.fold()
                    elif kind == "cc":
                        table.check_or_call()
                    else:
                        table.bet_or_raise(amounts[i])  # type: ignore[arg-type]
                except (IllegalAction, CardError) as exc:
                    raise self.fail(i, exc) from None
                # a round over: its cards are dealt at the record's next dealer line, or before the
                # next player's action (step), or at its end (finish)
            elif kind == "dh" or kind == "db":
                self.pump(self.buffer_deals(i))
            elif kind != "":
                used[i] = True   # (a betting action is never looked at again: not marked)
                self.step(i, a)

    def buffer_deals(self, i: int) -> int:
        """This dealer line and those right after it into the buffers (the engine takes the cards
        in its own dealing order); the index after them."""
        actions, used, count = self.actions, self.used, self.count
        j = i
        a = actions[i]
        kind = a[1]   # the action's kind, player and cards by place (see play)
        while True:
            (self.board if kind == "db" else self.holes[a[2]]).extend(  # type: ignore[index]
                a[3] or ())   # card texts: the engine reads them
            used[j] = True
            j += 1
            if j == count or used[j]:
                return j
            a = actions[j]
            kind = a[1]
            if kind != "dh" and kind != "db":
                return j

    def step(self, i: int, a: PhhAction) -> None:
        """A player's action other than the commonest steps (or out of turn)."""
        table = self.table
        kind = a.kind
        if table.expected_card() is not None:  # cards the record gives after this line
            self.pump(i + 1)
            expected = table.expected_card()
            if expected is not None:
                who = f" for p{expected.seat + 1}" if expected.seat is not None else ""
                raise self.fail(i, f"the shoe must first deal a {expected.kind} card{who}, and the record deals none")
        seat = a.actor
        assert seat is not None
        if table.phase is _OVER:
            if kind == "sm":
                return  # a winner showing when nobody is left to contest: nothing to settle
            raise self.fail(i, "the hand is already over")
        try:
            if kind == "sm":
                if table.phase is _SHOWDOWN:
                    # Our showdown order rules: each player's (last) show is read when asked.
                    self.used[i] = False
                    self.showdown(i)
                return   # else: shown before the run-out; the show that counts comes at showdown
            if table.actor != seat:
                raise self.fail(i, f"p{seat + 1} acts out of turn: " + _waiting(table))
            if kind == "cc":
                table.check_or_call()
            elif kind == "f":
                table.fold()
            elif kind == "cbr":
                to = self.amounts[i]
                assert to is not None
                table.bet_or_raise(to)
            elif kind == "pb":
                table.post_bring_in()
            elif kind == "sd":
                table.draw(a.cards or ())
            if table.expected_card() is not None:
                self.pump(i + 1)
        except (IllegalAction, CardError) as exc:
            raise self.fail(i, exc) from None

    def take_dealer_line(self, start: int, seat: int | None) -> bool:
        """Bring forward the next unread dealer line for `seat` (None: board) before any betting."""
        actions, used = self.actions, self.used
        for j in range(start, self.count):
            a = actions[j]
            if used[j]:
                continue
            if a.kind in _BETTING_KINDS:
                return False
            if seat is None and a.kind == "db" or a.kind == "dh" and a.player == seat:
                used[j] = True
                (self.board if seat is None else self.holes[seat]).extend(a.cards or ())
                return True
        return False

    def pump(self, start: int) -> None:
        """Deal every card the engine expects that the record has given, reading ahead if needed."""
        table = self.table
        while True:
            try:
                table.deal_from(self.holes, self.board)
            except (IllegalAction, CardError) as exc:
                slot = table.expected_card()
                assert slot is not None
                card = (self.board if slot.seat is None else self.holes[slot.seat])[0]
                raise PhhError(f"dealing {card or '??'} ({slot.kind} card"
                               + (f" of p{slot.seat + 1}" if slot.seat is not None else "")
                               + f", {slot.street}): {exc}") from None
            slot = table.expected_card()
            if slot is None or not self.take_dealer_line(start, slot.seat):
                return

    def last_show(self, start: int, seat: int) -> int | None:
        found = None
        for j in range(start, self.count):
            a = self.actions[j]
            if not self.used[j] and a.kind == "sm" and a.player == seat:
                found = j
        return found

    def showdown(self, start: int) -> None:
        """Ask each player in our showdown order for the record's show or muck (their last one)."""
        table, actions = self.table, self.actions
        while table.phase is _SHOWDOWN:
            seat = table.actor
            assert seat is not None
            j = self.last_show(start, seat)
            if j is None:
                raise PhhError(f"at showdown p{seat + 1} must show or muck, and the record does not say which")
            for k in range(start, self.count):
                if actions[k].kind == "sm" and actions[k].player == seat:
                    self.used[k] = True
            cards = actions[j].cards
            try:
                if cards is None or "??" in cards:
                    table.muck()
                else:
                    table.show(cards)
            except (IllegalAction, CardError) as exc:
                raise self.fail(j, exc) from None

    def finish(self, hand: HandHistory, extra: dict[str, Any]) -> None:
        """The end of a complete record: a chop where it stops, the hand over, every dealt card used."""
        table = self.table
        if table.expected_card() is not None:   # cards the record gave before the round they are for
            self.pump(self.count)
        if table.phase is not _OVER and extra.get("chopped") is True:
            _chop(table, hand)
        if table.phase is _SHOWDOWN:
            self.showdown(self.count)   # raises: the record does not say who shows
        if table.phase is not _OVER:
            raise PhhError(f"the record ends before the hand does: {_waiting(table)}")
        if self.board or any(self.holes):
            left = [f"p{s + 1}: {_texts(cards)}" for s, cards in enumerate(self.holes) if cards]
            if self.board:
                left.append(f"board: {_texts(self.board)}")
            raise PhhError(f"cards dealt that the hand never used ({', '.join(left)})")


def _chop(table: Hand, hand: HandHistory) -> None:
    """Chop the pot where the record stops, as its finishing stacks say (see replay_hand)."""
    shares: dict[int, int] | None = None
    if hand.finishing_stacks is not None:
        live = [s for s in table.seats if table.in_hand(s)]
        bets = sorted(((table.bet(s), s) for s in table.seats), reverse=True)
        uncalled = bets[0][0] - bets[1][0] if len(bets) > 1 else 0
        shares = {}
        for seat in live:
            final = Decimal(hand.finishing_stacks[seat]) / hand.unit
            shares[seat] = int(final) - table.stack(seat) - (uncalled if seat == bets[0][1] else 0)
    try:
        table.chop(shares)
    except IllegalAction as exc:
        raise PhhError(f"the pot chopped by agreement cannot end as the record says: {exc}") from None


def _texts(cards: Iterable[CardInput]) -> str:
    return "".join("??" if c is None else str(c) for c in cards)


def _waiting(table: Hand) -> str:
    slot = table.expected_card()
    if table.phase is _OVER:
        return "the hand is over"
    if slot is not None:
        return f"waiting for a {slot.kind} card" + (f" for p{slot.seat + 1}" if slot.seat is not None else "")
    assert table.actor is not None
    return f"p{table.actor + 1} to act ({table.phase.value})"
