"""Seats across the tables: the random draw, the button by high card, breaking tables and balancing them.

A layout is table name -> seat -> player. The engine draws nothing itself: the caller passes a
`Draw` (anything with `shuffle`, as `random.Random(seed)`), so a seating is replayed from its seed.
The button moves one occupied seat clockwise a hand (the tournament's moving button), so the
player due to post the big blind next and the seat that posts it soonest follow from the seats
and the last hand's button.

>>> from engine.cards import Card
>>> button_by_high_card({1: "Kd", 4: "Ks", 6: "7c"})   # the king of spades beats the king of diamonds
4
>>> next_big_blind({1, 3, 5, 8}, last_button=3)         # button 5, small blind 8, big blind 1
1
>>> worst_seat({1, 3, 5, 8}, free=(2, 6, 9), last_button=3)   # seat 9 posts the big blind next hand
9
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, MutableSequence, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from engine.cards import Card
from engine.errors import TournamentError

__all__ = ["Draw", "Layout", "Move", "draw_seats", "button_by_high_card", "next_big_blind", "worst_seat",
           "tables_needed", "break_table", "balance", "apply_moves"]

Layout = dict[str, dict[int, str]]


class Draw(Protocol):
    """A random draw the caller owns (`random.Random(seed)` is one)."""

    def shuffle(self, x: MutableSequence[Any], /) -> None: ...


@dataclass(frozen=True, slots=True)
class Move:
    """A player moved from one seat to another (a table broken, or tables balanced)."""

    player: str
    from_table: str
    from_seat: int
    to_table: str
    to_seat: int


def tables_needed(players: int, seats_per_table: int) -> int:
    """How many tables of `seats_per_table` the players fit on (19 players of 9: 3)."""
    return max(1, -(-players // seats_per_table))


def draw_seats(players: Sequence[str], tables: Sequence[str], seats_per_table: int, draw: Draw) -> Layout:
    """Seat `players` at random on as few of `tables` as hold them (the first ones: give the tables
    that break last first), as evenly as can be (the first tables take the one player more). Each
    table's seats are drawn from `draw`, then the players' order. Raises TournamentError when they
    do not fit or a name is given twice."""
    if len(set(players)) != len(players):
        raise TournamentError("a player is seated once")
    n = tables_needed(len(players), seats_per_table)
    if n > len(tables):
        raise TournamentError(f"{len(players)} players do not fit on {len(tables)} tables of {seats_per_table}")
    base, extra = divmod(len(players), n)
    cards: list[tuple[str, int]] = []
    for i, table in enumerate(tables[:n]):
        seats = list(range(1, seats_per_table + 1))
        draw.shuffle(seats)
        cards.extend((table, s) for s in sorted(seats[:base + (1 if i < extra else 0)]))
    order = list(players)
    draw.shuffle(order)
    layout: Layout = {t: {} for t in tables[:n]}
    for player, (table, seat) in zip(order, cards):
        layout[table][seat] = player
    return {t: dict(sorted(seats.items())) for t, seats in layout.items()}


def button_by_high_card(cards: Mapping[int, Card | str]) -> int:
    """The seat dealt the highest card face up takes the button; between equal ranks the suit decides
    (clubs < diamonds < hearts < spades). Raises TournamentError for no cards or a card dealt twice,
    CardError for bad card text."""
    dealt = {seat: c if isinstance(c, Card) else Card.parse(c) for seat, c in cards.items()}
    if not dealt:
        raise TournamentError("deal one card to each seat for the button")
    if len(set(dealt.values())) != len(dealt):
        raise TournamentError("a card was dealt twice for the button")
    return max(dealt, key=lambda seat: dealt[seat])


def _clockwise_after(seats: Collection[int], seat: int) -> list[int]:
    ordered = sorted(seats)
    return [s for s in ordered if s > seat] + [s for s in ordered if s <= seat]


def next_big_blind(occupied: Collection[int], last_button: int) -> int:
    """The seat that posts the big blind in the next hand (the button moves on one occupied seat;
    heads-up the button posts the small blind). Raises TournamentError with fewer than two players."""
    if len(occupied) < 2:
        raise TournamentError("a hand needs two players")
    order = _clockwise_after(occupied, last_button)   # order[0] is the next button
    return order[1] if len(order) == 2 else order[2]


def _hands_to_big_blind(occupied: Collection[int], seat: int, last_button: int) -> int:
    button = last_button
    for hands in range(len(occupied)):
        if next_big_blind(occupied, button) == seat:
            return hands
        button = _clockwise_after(occupied, button)[0]
    return len(occupied)  # pragma: no cover (every seat posts the big blind within a round)


def worst_seat(occupied: Collection[int], free: Collection[int], last_button: int) -> int:
    """The free seat that posts the big blind soonest (the worst position: a player moved there never
    skips a big blind); between equal seats, the lowest. Raises TournamentError with no free seat."""
    if not free:
        raise TournamentError("no free seat")
    return min(sorted(free), key=lambda f: _hands_to_big_blind(set(occupied) | {f}, f, last_button))


def apply_moves(layout: Layout, moves: Sequence[Move]) -> Layout:
    """The layout after `moves` (a new one; a table left empty is gone). Raises TournamentError for a
    move from a seat that player is not in or to a taken seat."""
    after = {t: dict(seats) for t, seats in layout.items()}
    for m in moves:
        if after.get(m.from_table, {}).get(m.from_seat) != m.player:
            raise TournamentError(f"{m.player} is not in seat {m.from_seat} of {m.from_table}")
        if m.to_seat in after.setdefault(m.to_table, {}):
            raise TournamentError(f"seat {m.to_seat} of {m.to_table} is taken")
        del after[m.from_table][m.from_seat]
        after[m.to_table][m.to_seat] = m.player
    return {t: dict(sorted(s.items())) for t, s in after.items() if s}


def break_table(layout: Layout, table: str, seats_per_table: int, draw: Draw) -> list[Move]:
    """Break `table`: its players, in an order drawn, each to a free seat drawn at the table with the
    fewest players then (between equals, the first in `layout`). Raises TournamentError when the
    table is not in play or its players do not fit elsewhere."""
    if table not in layout:
        raise TournamentError(f"{table} is not in play")
    others = {t: dict(s) for t, s in layout.items() if t != table}
    free = sum(seats_per_table - len(s) for s in others.values())
    if len(layout[table]) > free:
        raise TournamentError(f"{table}'s {len(layout[table])} players do not fit in {free} free seats")
    players = [(seat, p) for seat, p in sorted(layout[table].items())]
    draw.shuffle(players)
    moves: list[Move] = []
    for seat, player in players:
        target = min(others, key=lambda t: len(others[t]))
        seats = [s for s in range(1, seats_per_table + 1) if s not in others[target]]
        draw.shuffle(seats)
        others[target][seats[0]] = player
        moves.append(Move(player, table, seat, target, seats[0]))
    return moves


def balance(layout: Layout, buttons: Mapping[str, int], seats_per_table: int) -> list[Move]:
    """Keep the tables within one player of each other: while they are not, the player due to post the
    big blind next at the fullest table moves to the worst seat of the shortest (`buttons`: each
    table's last button). Between equal tables the fullest is the first in `layout`, the shortest the
    last. Raises TournamentError when a table has no button yet."""
    now = {t: dict(s) for t, s in layout.items()}
    moves: list[Move] = []
    while now and max(map(len, now.values())) - min(map(len, now.values())) > 1:
        full = max(now, key=lambda t: len(now[t]))
        short = min(reversed(list(now)), key=lambda t: len(now[t]))
        if full not in buttons or short not in buttons:
            raise TournamentError(f"balancing needs the last button of {full} and {short}")
        mover = next_big_blind(now[full], buttons[full])
        free = [s for s in range(1, seats_per_table + 1) if s not in now[short]]
        seat = worst_seat(now[short], free, buttons[short])
        move = Move(now[full][mover], full, mover, short, seat)
        moves.append(move)
        del now[full][mover]
        now[short][seat] = move.player
    return moves
