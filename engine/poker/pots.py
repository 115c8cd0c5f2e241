"""Main and side pots from what each player put in, and splitting a pot between tied hands.

Each all-in caps what that player can win from each opponent (docs/rules.md). A pot is a layer of
contributions; its eligible seats are the players still in the hand who reached that layer.

000's example, stacks 300/200/100 all in: main 300, side 200, and the 100 nobody called goes
back to its owner (`uncalled`):

>>> pots, uncalled = build_pots({1: 300, 2: 200, 3: 100}, live={1, 2, 3})
>>> [(p.amount, sorted(p.eligible)) for p in pots], uncalled
([(300, [1, 2, 3]), (200, [1, 2])], {1: 100})

Odd chips between tied hands go one each to the winners in order clockwise from the button:

>>> split(101, [4, 1], order=[1, 2, 3, 4])
{1: 51, 4: 50}
>>> split_hi_lo(101)
(51, 50)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from engine.poker.values import quick_init

__all__ = ["Pot", "build_pots", "final_pots", "with_dead_money", "split", "split_hi_lo"]


@quick_init
@dataclass(frozen=True, slots=True)
class Pot:
    """One pot: `amount` and the seats that can win it (`eligible`, frozen). Index 0 is the main pot."""

    amount: int
    eligible: frozenset[int]

    def to_dict(self) -> dict[str, object]:
        return {"amount": self.amount, "eligible": sorted(self.eligible)}


def build_pots(contributions: Mapping[int, int], live: Iterable[int]) -> tuple[list[Pot], dict[int, int]]:
    """Layer `contributions` (seat -> chips put in this hand) into pots.

    `live`: seats still in contention (not folded, not mucked). Returns the pots, main first,
    and the uncalled chips per seat (a top layer only its owner reached). A layer no live
    player reached (every contributor folded) joins the pot below it, or the next one up when
    it is the lowest.
    """
    live_set = set(live)
    levels = sorted({c for c in contributions.values() if c > 0})
    pots: list[Pot] = []
    uncalled: dict[int, int] = {}
    orphan = 0
    previous = 0
    for level in levels:
        contributors = [s for s, c in contributions.items() if c >= level]
        amount = (level - previous) * len(contributors)
        eligible = frozenset(s for s in contributors if s in live_set)
        if len(contributors) == 1 and contributors[0] in live_set:
            seat = contributors[0]
            uncalled[seat] = uncalled.get(seat, 0) + amount
        elif not eligible:
            if pots:
                pots[-1] = Pot(pots[-1].amount + amount, pots[-1].eligible)
            else:
                orphan += amount
        elif pots and pots[-1].eligible == eligible:
            pots[-1] = Pot(pots[-1].amount + amount + orphan, eligible)
            orphan = 0
        else:
            pots.append(Pot(amount + orphan, eligible))
            orphan = 0
        previous = level
    if orphan:
        # every contributor folded or mucked: cannot happen in a hand played to its end
        if pots:
            pots[-1] = Pot(pots[-1].amount + orphan, pots[-1].eligible)
        else:
            pots.append(Pot(orphan, frozenset()))
    return pots, uncalled


def final_pots(contributions: Mapping[int, int], live: Iterable[int]) -> list[Pot]:
    """The pots as the hand ends: `contributions` (seat -> chips put in this hand), `live` the seats
    still in contention. One player left takes one pot of everything. Otherwise `build_pots`, and
    what only one player reached is added to the main pot: uncalled bets went back when their
    betting round closed, so it is ante money (a big-blind ante), dead money of the main pot.

    >>> [(p.amount, sorted(p.eligible)) for p in final_pots({1: 2, 2: 2, 3: 3}, [1, 2])]
    [(7, [1, 2])]
    """
    live = list(live)
    if len(live) == 1:
        return [Pot(sum(contributions.values()), frozenset(live))]
    pots, uncalled = build_pots(contributions, live)
    return with_dead_money(pots, uncalled, live)


def with_dead_money(pots: list[Pot], uncalled: Mapping[int, int], live: Iterable[int]) -> list[Pot]:
    """`pots` with the chips only one live player reached in a closed betting round (`uncalled`
    of `build_pots` over what was collected: antes, a dead small blind) added to the main pot,
    which every live player may win; with no pot yet, a main pot of them. The one rule for the
    pots shown during a hand (`Hand.pots`) and those paid at its end (`final_pots`).

    >>> [(p.amount, sorted(p.eligible)) for p in with_dead_money([], {4: 5}, [1, 3, 4])]
    [(5, [1, 3, 4])]
    """
    for amount in uncalled.values():
        if pots:
            pots[0] = Pot(pots[0].amount + amount, pots[0].eligible)
        else:
            pots.append(Pot(amount, frozenset(live)))
    return pots


def split(amount: int, winners: Iterable[int], order: Sequence[int]) -> dict[int, int]:
    """Share `amount` equally among `winners`; odd chips one each in `order`.

    `order` is the seats clockwise starting left of the button: the first winner in it gets the
    first odd chip, the second the next, and so on.
    """
    wanted = set(winners)
    chosen = [s for s in order if s in wanted]
    if not chosen:
        raise ValueError("a pot needs at least one winner")
    share, odd = divmod(amount, len(chosen))
    return {s: share + (1 if i < odd else 0) for i, s in enumerate(chosen)}


def split_hi_lo(amount: int) -> tuple[int, int]:
    """The high half and the low half; an odd chip goes to the high (000)."""
    low = amount // 2
    return amount - low, low
