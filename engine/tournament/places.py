"""Entries, eliminations, places and prizes: who finished where and what each place pays, to the cent.

Players out in the same hand (or, hand-for-hand, the same round across tables) finish in the
order of their stacks at the start of that hand, larger higher; equal stacks share the places they
cover and split those places' prizes (000 and the house's rule). Places are counted from the top
once the field is known: the last player left is 1st, the group out before him next, and so on, so
a player out during late registration is placed when registration closes.

>>> prizes(100000, (50, 30, 20))
(50000, 30000, 20000)
>>> prizes(1001, (50, 30, 20))          # the cents left by rounding down go to 1st, 2nd, ... one each
(501, 300, 200)
>>> split(500, ["Ann", "Bob", "Cy"])    # the odd cents go to the tied players in entry order
{'Ann': 167, 'Bob': 167, 'Cy': 166}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from engine.errors import TournamentError
from engine.tournament.config import TournamentFile

__all__ = ["Entry", "Finish", "Registration", "Standings", "HandForHand", "prizes", "split", "group_places",
           "at_the_bubble"]


def prizes(pool: int, shares: Sequence[int]) -> tuple[int, ...]:
    """Each paid place's prize: `shares` percent of `pool` rounded down, the cents left over one
    each to 1st, 2nd, ... in order; they add up to `pool` exactly."""
    paid = [pool * share // 100 for share in shares]
    left = pool - sum(paid)
    for k in range(left):
        paid[k % len(paid)] += 1
    return tuple(paid)


def split(amount: int, players: Sequence[str]) -> dict[str, int]:
    """`amount` shared equally by tied `players` (in entry order): the odd cents one each to the
    first of them. The parts add up to `amount`."""
    each, odd = divmod(amount, len(players))
    return {p: each + (1 if i < odd else 0) for i, p in enumerate(players)}


def group_places(out: Mapping[str, int], below: int) -> list[tuple[int, tuple[str, ...]]]:
    """The places of the players of one elimination (player -> stack at the start of the hand), when
    `below` players finished above them: [(first place covered, players sharing it)], best first.
    Insertion order of `out` is kept among equal stacks.

    >>> group_places({"Ann": 300, "Bob": 500, "Cy": 300}, 7)
    [(8, ('Bob',)), (9, ('Ann', 'Cy'))]
    """
    place = below + 1
    groups: list[tuple[int, tuple[str, ...]]] = []
    for stack in sorted(set(out.values()), reverse=True):
        tied = tuple(p for p, s in out.items() if s == stack)
        groups.append((place, tied))
        place += len(tied)
    return groups


@dataclass(frozen=True, slots=True)
class Entry:
    """One paid entry: `number` in order of entry (1, 2, ...), the player, his re-entry count (0: first)."""

    number: int
    player: str
    re_entry: int = 0

    @property
    def name(self) -> str:
        """The entry's name in standings: the player, with `#2`, `#3` for his re-entries."""
        return self.player if self.re_entry == 0 else f"{self.player} #{self.re_entry + 1}"


@dataclass(frozen=True, slots=True)
class Finish:
    """An entry's finish: `place` (the best place of a shared group), `shared` (how many share
    it: places `place` .. `place + shared - 1`), and the prize (0 out of the money)."""

    place: int
    player: str
    prize: int
    shared: int = 1


class Registration:
    """The entries: first entries, late registration until a level, re-entries when allowed.

    `enter(player, level)` takes an entry at level `level` of the clock (1-based; 0 before the start).
    """

    def __init__(self, tournament: TournamentFile) -> None:
        self.tournament = tournament
        self.entries: list[Entry] = []
        self.closed = False
        self._alive: dict[str, Entry] = {}

    def enter(self, player: str, level: int = 0) -> Entry:
        """Take an entry (buy-in and fee paid). Raises TournamentError when registration is closed
        or over for this level, the player is still in, or he has no re-entry left (`check`)."""
        before = self.check(player, level)
        entry = Entry(len(self.entries) + 1, player, before)
        self.entries.append(entry)
        self._alive[player] = entry
        return entry

    def check(self, player: str, level: int = 0) -> int:
        """Whether `enter(player, level)` would be taken, nothing changed: his entries before this one
        (his re-entry count). Raises TournamentError saying why not."""
        t = self.tournament
        if not player.strip():
            raise TournamentError("an entry needs the player's name")
        if self.closed or level > t.late_registration_until_level:
            raise TournamentError(f"registration is closed (late registration until level "
                                  f"{t.late_registration_until_level}; now level {level})")
        if player in self._alive:
            raise TournamentError(f"{player} is still in the tournament")
        before = sum(1 for e in self.entries if e.player == player)
        if before and before > t.re_entries:
            raise TournamentError(f"{player} has no re-entry left ({t.re_entries} allowed)")
        return before

    def out(self, player: str) -> Entry:
        """The player's entry is out of chips. Raises TournamentError for a player not in."""
        if player not in self._alive:
            raise TournamentError(f"{player} is not in the tournament")
        return self._alive.pop(player)

    def close(self) -> None:
        """Registration is over: the field is known (`entries`)."""
        self.closed = True

    @property
    def alive(self) -> tuple[Entry, ...]:
        return tuple(self._alive.values())

    @property
    def prize_pool(self) -> int:
        """The entries' buy-ins plus the house's added money (the fees are kept apart)."""
        return len(self.entries) * self.tournament.buy_in + self.tournament.added

    @property
    def fees(self) -> int:
        return len(self.entries) * self.tournament.fee


class Standings:
    """The eliminations in order, and from them the places and prizes once the field is known."""

    def __init__(self, registration: Registration) -> None:
        self.registration = registration
        self.groups: list[dict[str, int]] = []   # each elimination: entry name -> stack at the start of the hand

    def eliminate(self, out: Mapping[str, int]) -> None:
        """Players out in one hand (or one hand-for-hand round): player -> his stack at the start of
        that hand. Raises TournamentError for a player not in, or for the last player left."""
        if not out:
            return
        alive = {e.player for e in self.registration.alive}
        stray = [p for p in out if p not in alive]
        if stray:
            raise TournamentError(f"{stray[0]} is not in the tournament")
        if len(out) >= len(alive):
            raise TournamentError("a hand leaves at least one player in: the winner")
        group: dict[str, int] = {}
        for player, stack in out.items():
            group[self.registration.out(player).name] = stack
        self.groups.append(group)

    @property
    def left(self) -> int:
        return len(self.registration.alive)

    def places_paid(self) -> int:
        t = self.registration.tournament
        return len(t.shares_for(len(self.registration.entries)))

    def finishes(self) -> list[Finish]:
        """Every finish known, best place first: the winner (when one is left) and every group out.
        Raises TournamentError while registration is open (the places are not known yet)."""
        reg = self.registration
        if not reg.closed:
            raise TournamentError("the places are known once registration is closed")
        table = prizes(reg.prize_pool, reg.tournament.shares_for(len(reg.entries)))
        order = {e.name: e.number for e in reg.entries}
        above = len(reg.alive)
        done: list[Finish] = []
        if above == 1:
            done.append(Finish(1, reg.alive[0].name, table[0]))
        for group in reversed(self.groups):
            ranked = dict(sorted(group.items(), key=lambda kv: order[kv[0]]))
            for place, tied in group_places(ranked, above):
                amount = sum(table[p - 1] for p in range(place, place + len(tied)) if p <= len(table))
                for player, prize in split(amount, tied).items():
                    done.append(Finish(place, player, prize, len(tied)))
            above += len(group)
        return done


def at_the_bubble(players_left: int, places_paid: int) -> bool:
    """Hand-for-hand is due: the next player out is the last one out of the money."""
    return players_left == places_paid + 1


class HandForHand:
    """One hand-for-hand round: every table in it deals one hand and waits until all have finished
    theirs; the players out in the round are one elimination (they share places as in one hand)."""

    def __init__(self, tables: Sequence[str]) -> None:
        if not tables:
            raise TournamentError("a hand-for-hand round needs a table")
        self.tables = tuple(tables)
        self.done: dict[str, dict[str, int]] = {}

    def finished(self, table: str, out: Mapping[str, int]) -> None:
        """`table` finished its hand of the round; `out`: its players out, with their stacks at the start
        of the hand. Raises TournamentError for a table not in the round or one that already finished."""
        if table not in self.tables:
            raise TournamentError(f"{table} is not in this hand-for-hand round")
        if table in self.done:
            raise TournamentError(f"{table} has dealt its hand of this round: it waits for the others")
        self.done[table] = dict(out)

    def may_deal(self, table: str) -> bool:
        """Whether `table` may begin a hand: it has not dealt this round's."""
        return table in self.tables and table not in self.done

    @property
    def complete(self) -> bool:
        return len(self.done) == len(self.tables)

    def eliminated(self) -> dict[str, int]:
        """The round's players out, table by table. Raises TournamentError before every table finished."""
        if not self.complete:
            waiting = [t for t in self.tables if t not in self.done]
            raise TournamentError(f"the round is not over: waiting for {', '.join(waiting)}")
        return {p: s for t in self.tables for p, s in self.done[t].items()}
