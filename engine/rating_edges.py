"""The bet circles' exact house edges a rating session's theo is counted with, and the rounding it is shown with (`engine.ratings`' edges, kept apart)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType
from typing import Any

from engine.house_edge import profile_edges as tcp_profile_edges
from engine.paytables import APPROVED_BETS, Profile

CIRCLE_BETS: Mapping[str, Mapping[str, str | None]] = MappingProxyType({
    "3cp": MappingProxyType({"ante": "ante_play", "play": None, "pair_plus": "pair_plus", "bonus": "bonus"}),
    "uth": MappingProxyType({"ante": "ante_blind_play", "blind": None, "play": None, "trips": "trips"}),
})
"""Game -> bet circle -> the bet (`engine.paytables.APPROVED_BETS`) whose house edge the circle carries;
None: no edge of its own (0), the Ante's carries it (3CP's Ante and Play, UTH's Ante + Blind + Play are
per unit of Ante). The floor's theoretical win takes its edges from `bet_edges` too (`floor/stats.py`)."""

# --- the edges ---------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class BetEdges:
    """Each bet circle's exact house edge under one profile (its sha256), and where each came from
    (`approved`, `certificate`, `computed`, or `ante` for a circle the Ante's edge carries)."""

    game: str
    profile_sha256: str
    edges: Mapping[str, Fraction]
    sources: Mapping[str, str]

    def theo(self, bets: Mapping[str, int]) -> tuple[Fraction, tuple[str, ...]]:
        """`(theo, circles)`: the bets' theoretical win for the house, and the circles staked whose edge
        is unknown (theo then leaves them out: incomplete)."""
        total, missing = Fraction(0), []
        for circle, amount in bets.items():
            if not amount:
                continue
            edge = self.edges.get(circle)
            if edge is None:
                missing.append(circle)
            else:
                total += amount * edge
        return total, tuple(missing)


def bet_edges(game: str, profile: Profile, sha256: str,
              certified: Mapping[str, Fraction] | None = None) -> BetEdges:
    """The circles' edges of `game` under `profile` (whose text has `sha256`): its `[GAME.approved]`
    figures first, then `certified` (the profile's certificate's figures for the game: bet -> edge), then
    for 3CP the engine's exact count. Raises KeyError for a game with no rated circles."""
    circles = CIRCLE_BETS[game]
    rules = profile.uth if game == "uth" else profile.three_card_poker
    found: dict[str, tuple[Fraction, str]] = {}
    for bet in APPROVED_BETS[game]:
        if bet in rules.approved:
            found[bet] = (rules.approved[bet], "approved")
        elif certified is not None and bet in certified:
            found[bet] = (Fraction(certified[bet]), "certificate")
    if game == "3cp" and any(b not in found for b in APPROVED_BETS[game]):
        try:
            exact = tcp_profile_edges(profile)
        except ValueError:
            exact = None
        if exact is not None:
            computed = {"ante_play": exact.ante_play.house_edge, "pair_plus": exact.pair_plus.house_edge,
                        "bonus": exact.bonus}
            for bet, edge in computed.items():
                if bet not in found and edge is not None:
                    found[bet] = (edge, "computed")
    edges: dict[str, Fraction] = {}
    sources: dict[str, str] = {}
    for circle, carried in circles.items():
        if carried is None:
            edges[circle], sources[circle] = Fraction(0), "ante"
        elif carried in found:
            edges[circle], sources[circle] = found[carried]
    return BetEdges(game, sha256, MappingProxyType(edges), MappingProxyType(sources))


def half_even(amount: Fraction) -> int:
    """An exact amount rounded to the unit, a half to the even unit.

    >>> half_even(Fraction(5, 2)), half_even(Fraction(7, 2)), half_even(Fraction(-5, 2))
    (2, 4, -2)
    """
    return round(amount)


def bets_source(record: Mapping[str, Any], seat: int) -> str:
    """Whether a closed hand's bets at `seat` were read from the chips or tapped by the dealer: `chips` when
    the record's chips part (the smart table's, issue 24: `record["chips"]`, `source` "chips" and the seat
    among its `bets_read`) says they were read, else `taps`. The one place a rating tells them apart.

    >>> bets_source({"chips": {"source": "chips", "bets_read": {"3": {"ante": 500}}}}, 3), bets_source({}, 3)
    ('chips', 'taps')
    """
    chips = record.get("chips")
    if not isinstance(chips, Mapping) or chips.get("source") != "chips":
        return "taps"
    read = chips.get("bets_read")
    return "chips" if isinstance(read, Mapping) and (str(seat) in read or seat in read) else "taps"
