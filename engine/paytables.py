"""Paytable profiles of the house-banked games (UTH, Three Card Poker): TOML data parsed into frozen rules.

A profile is one TOML file. The builtin ones ship in `engine/profiles/` (`default`, `standard`,
`fr_literal`); a casino may load its own file. Its shape (every key is required unless marked
optional; an unknown key is refused):

    name = "default"                  # optional, defaults to the file's stem
    description = "..."               # optional

    [uth]                             # Ultimate Texas Hold'em
    max_spots = 7                     # spots at the table (1..engine.games.MAX_SPOTS)
    dealer_qualifier = "pair"         # a category key ("pair": a pair or better) or "Q-high"
    max_multiple = 30                 # optional: the table maximum Ante is at most this times the
                                      #   minimum (003: 10, 20 or 30); absent: no such rule
    preflop_multiples = [3, 4]        # legal Play multiples of the Ante on each street: some of
                                      #   those the game allows (engine.games.UTH.play_multiples)
    flop_multiples = [2]
    river_multiples = [1]
    trips_paid_on = "win"             # "win": paid only when the player beats the dealer (003);
                                      #   "hand": paid on the player's final hand whatever the dealer holds
    trips_on_fold = "lose"            # "lose" or "stands" (settled as if the spot had not folded)
    burns = []                        # burn a card before: any of "deal", "flop", "river", in that order

    [uth.blind]                       # Blind pays when the player beats the dealer; a hand not listed
    straight = [1, 1]                 #   pushes. Pays are odds [win, stake]: [3, 2] is 3:2; a bare
    flush = [3, 2]                    #   integer n means n:1.
    ...
    [uth.trips]                       # Trips: a hand not listed loses
    three_of_a_kind = [3, 1]
    ...

    [3cp]                             # Three Card Poker
    max_spots = 7
    min_players = 5                   # spots with a bet needed to deal (003)
    dealer_qualifier = "Q-high"
    burns = []                        # "deal": burn one card before the deal
    ante_bonus_on = "play"            # when the Ante Bonus is paid to a spot that played: "play"
                                      #   (whatever the dealer holds), "win" (the Ante wins) or
                                      #   "beat_qualified" (the player beats a qualified dealer)
    [3cp.ante_bonus]                  # odds paid on the Ante; a hand not listed gets nothing
    straight = [1, 1]
    ...
    [3cp.pair_plus]                   # Pair Plus, whatever the dealer holds; a hand not listed loses
    pair = [1, 1]
    ...
    [3cp.bonus]                       # optional: a separate "Bonus" stake paid by its table when the
                                      #   spot played (003 read literally); absent: no such bet
    [3cp.approved]                    # optional, in [uth] too: the house edges the regulator approved,
    pair_plus = 0.0231674             #   bet -> a number or an exact "512/22100" (`APPROVED_BETS`);
                                      #   `croupier math certify` refuses a profile whose computed
                                      #   figure differs by more than 1e-6 (docs/math.md)

Hand category keys are those of `engine.evaluate`: five-card `FIVE_CARD_CATEGORIES`, three-card
`THREE_CARD_CATEGORIES`. Pays are `Odds` `(win, stake)` tuples of integers: plain data that
`engine.house_edge` reads directly.

>>> p = load_profile("default")
>>> p.three_card_poker.pair_plus["straight"], p.uth.blind["flush"], p.uth.trips_paid_on
((6, 1), (3, 2), 'win')
"""

from __future__ import annotations

import hashlib
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from importlib import resources
from pathlib import Path
from types import MappingProxyType
from typing import Any, Protocol, TypeAlias

from engine import tomltext
from engine.cards import RANKS, Card
from engine.errors import ProfileError
from engine.games import MAX_SPOTS, UTH

Odds: TypeAlias = tuple[int, int]
"""A pay as odds `(win, stake)`: `(3, 2)` pays 3 for every 2 staked, on top of the stake returned."""

Paytable: TypeAlias = Mapping[str, Odds]
"""Hand category key -> odds; read-only."""

FIVE_CARD_CATEGORIES: tuple[str, ...] = (
    "high_card", "pair", "two_pair", "three_of_a_kind", "straight", "flush",
    "full_house", "four_of_a_kind", "straight_flush", "royal_flush",
)
"""Five-card (best of seven) categories of `engine.evaluate.high`, weakest first."""

THREE_CARD_CATEGORIES: tuple[str, ...] = (
    "high_card", "pair", "flush", "straight", "three_of_a_kind", "straight_flush",
)
"""Three-card categories of `engine.evaluate.three_card`, weakest first."""

TRIPS_PAID_ON = ("win", "hand")
TRIPS_ON_FOLD = ("lose", "stands")
ANTE_BONUS_ON = ("play", "win", "beat_qualified")
UTH_BURNS = ("deal", "flop", "river")
TCP_BURNS = ("deal",)

BUILTIN_PROFILES = ("default", "standard", "fr_literal")

APPROVED_BETS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "uth": ("ante_blind_play", "trips"),
    "3cp": ("ante_play", "pair_plus", "bonus"),
})
"""The bets whose house edge a profile's `[GAME.approved]` table may give: UTH's Ante + Blind + Play
under the optimal strategy (per unit of Ante) and Trips; 3CP's Ante and Play (per unit of Ante),
Pair Plus and the separate Bonus."""

Approved: TypeAlias = Mapping[str, Fraction]
"""Bet -> the approved house edge, exact (a TOML float is read as the decimal it is written as); read-only."""

_NO_APPROVED: Approved = MappingProxyType({})


class _Valued(Protocol):
    @property
    def category(self) -> str: ...


@dataclass(frozen=True, slots=True)
class Qualifier:
    """The weakest dealer hand that qualifies: a category, and for `high_card` the lowest top card.

    >>> q = Qualifier.parse("Q-high", THREE_CARD_CATEGORIES)
    >>> (q.category, q.top_rank, str(q))
    ('high_card', 12, 'Q-high')
    """

    category: str
    top_rank: int  # for category high_card: the top card must be at least this rank; else 0
    categories: tuple[str, ...]

    @classmethod
    def parse(cls, text: object, categories: tuple[str, ...]) -> Qualifier:
        """`"pair"` (any category key: that or better) or `"Q-high"` (a high card headed by Q or better).

        Raises ValueError saying what is accepted.
        """
        if isinstance(text, str):
            if text in categories:
                return cls(text, 0, categories)
            if text.endswith("-high") and len(text) == 6 and text[0].upper() in RANKS:
                return cls("high_card", RANKS.index(text[0].upper()) + 2, categories)
        raise ValueError(f"{text!r} is not a dealer qualifier (expected a hand category such as "
                         f"'pair', or a high card such as 'Q-high')")

    def qualifies(self, value: _Valued, cards: tuple[Card, ...]) -> bool:
        """Whether a dealer hand of this `value` (its category) made of `cards` qualifies."""
        have = self.categories.index(value.category)
        need = self.categories.index(self.category)
        if have != need:
            return have > need
        return self.category != "high_card" or max(c.rank for c in cards) >= self.top_rank

    def __str__(self) -> str:
        if self.category == "high_card" and self.top_rank:
            return RANKS[self.top_rank - 2] + "-high"
        return self.category


@dataclass(frozen=True, slots=True)
class UthRules:
    """Ultimate Texas Hold'em rules and tables of one profile."""

    max_spots: int
    dealer_qualifier: Qualifier
    max_multiple: int | None
    preflop_multiples: tuple[int, ...]
    flop_multiples: tuple[int, ...]
    river_multiples: tuple[int, ...]
    trips_paid_on: str
    trips_on_fold: str
    burns: tuple[str, ...]
    blind: Paytable
    trips: Paytable
    approved: Approved = field(default_factory=lambda: _NO_APPROVED)  # `[uth.approved]`: bet -> approved house edge

    def multiples(self, street: str) -> tuple[int, ...]:
        """Legal Play multiples on `street` (`preflop`, `flop`, `river`). Raises KeyError otherwise."""
        if street == "preflop":  # compared in turn, no map made a call: asked for every choice at every decision
            return self.preflop_multiples
        if street == "flop":
            return self.flop_multiples
        if street == "river":
            return self.river_multiples
        raise KeyError(street)


@dataclass(frozen=True, slots=True)
class ThreeCardPokerRules:
    """Three Card Poker rules and tables of one profile."""

    max_spots: int
    min_players: int
    dealer_qualifier: Qualifier
    burns: tuple[str, ...]
    ante_bonus_on: str
    ante_bonus: Paytable
    pair_plus: Paytable
    bonus: Paytable | None  # the separate "Bonus" stake of 003 read literally; None: not offered
    approved: Approved = field(default_factory=lambda: _NO_APPROVED)  # `[3cp.approved]`: bet -> approved house edge


@dataclass(frozen=True, slots=True)
class Profile:
    """One paytable profile: its name, where it came from, and the rules of each game."""

    name: str
    description: str
    source: str
    uth: UthRules
    three_card_poker: ThreeCardPokerRules


# --- parsing --------------------------------------------------------------------------------------

class _Reader:
    """Takes keys out of one TOML table, naming file, table and key in every refusal."""

    def __init__(self, source: str, where: str, data: Mapping[str, Any], known: tuple[str, ...]) -> None:
        self.source, self.where, self.data = source, where, data
        self.used: set[str] = set()
        for key in data:  # a misspelt key is named before the key it was meant to be goes missing
            if key not in known:
                raise self.fail(key, f"unknown key (known: {', '.join(known)})")

    def fail(self, key: str, reason: str) -> ProfileError:
        at = f"[{self.where}] {key}" if self.where else key
        return ProfileError(f"{self.source}: {at}: {reason}")

    def get(self, key: str, required: bool = True) -> Any:
        self.used.add(key)
        if key not in self.data:
            if required:
                raise self.fail(key, "missing")
            return None
        return self.data[key]

    def integer(self, key: str, low: int, high: int | None = None, required: bool = True) -> int | None:
        value = self.get(key, required)
        if value is None and not required:
            return None
        if not isinstance(value, int) or isinstance(value, bool):
            raise self.fail(key, f"must be an integer, not {value!r}")
        if value < low or (high is not None and value > high):
            span = f"between {low} and {high}" if high is not None else f"at least {low}"
            raise self.fail(key, f"must be {span}, not {value}")
        return value

    def choice(self, key: str, options: tuple[str, ...]) -> str:
        value = self.get(key)
        if value not in options:
            raise self.fail(key, f"must be one of {', '.join(map(repr, options))}, not {value!r}")
        return str(value)

    def string(self, key: str, default: str) -> str:
        value = self.get(key, required=False)
        if value is None:
            return default
        if not isinstance(value, str):
            raise self.fail(key, f"must be a string, not {value!r}")
        return value

    def multiples(self, key: str, allowed: tuple[int, ...]) -> tuple[int, ...]:
        value = self.get(key)
        if (not isinstance(value, list) or not value
                or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 1 for v in value)):
            raise self.fail(key, f"must be a non-empty list of positive integers, not {value!r}")
        if len(set(value)) != len(value):
            raise self.fail(key, f"lists a multiple twice: {value!r}")
        beyond = [v for v in value if v not in allowed]
        if beyond:
            raise self.fail(key, f"{', '.join(map(str, beyond))} is not a Play multiple of the game here "
                                 f"(allowed: {', '.join(map(str, allowed))})")
        return tuple(sorted(value, reverse=True))

    def burns(self, key: str, options: tuple[str, ...]) -> tuple[str, ...]:
        value = self.get(key)
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.fail(key, f"must be a list of strings, not {value!r}")
        for v in value:
            if v not in options:
                raise self.fail(key, f"{v!r} is not a burn point (expected any of {', '.join(map(repr, options))})")
        if len(set(value)) != len(value):
            raise self.fail(key, f"lists a burn point twice: {value!r}")
        return tuple(o for o in options if o in value)

    def qualifier(self, key: str, categories: tuple[str, ...]) -> Qualifier:
        try:
            return Qualifier.parse(self.get(key), categories)
        except ValueError as exc:
            raise self.fail(key, str(exc)) from None

    def table(self, key: str, categories: tuple[str, ...], required: bool = True) -> Paytable | None:
        value = self.get(key, required)
        if value is None and not required:
            return None
        where = f"{self.where}.{key}" if self.where else key
        if not isinstance(value, dict):
            raise ProfileError(f"{self.source}: [{where}]: must be a table of hand category = odds")
        pays: dict[str, Odds] = {}
        for category, raw in value.items():
            at = f"{self.source}: [{where}] {category}"
            if category not in categories:
                raise ProfileError(f"{at}: unknown hand category (expected one of {', '.join(categories)})")
            pays[category] = _odds(raw, at)
        return MappingProxyType({c: pays[c] for c in categories if c in pays})

    def approved(self, key: str, bets: tuple[str, ...]) -> Approved:
        """`[GAME.approved]`: bet -> house edge, a number or an exact fraction text; absent: none."""
        value = self.get(key, required=False)
        if value is None:
            return _NO_APPROVED
        where = f"{self.source}: [{self.where}.{key}]"
        if not isinstance(value, dict):
            raise ProfileError(f"{where}: must be a table of bet = approved house edge")
        out: dict[str, Fraction] = {}
        for bet, raw in value.items():
            if bet not in bets:
                raise ProfileError(f"{where} {bet}: unknown bet (the bets of [{self.where}] with a house edge: "
                                   f"{', '.join(bets)})")
            out[bet] = _edge(raw, f"{where} {bet}")
        return MappingProxyType(out)



def _edge(raw: object, at: str) -> Fraction:
    """An approved house edge: an int, a float (read as the decimal written) or a fraction text."""
    try:
        if isinstance(raw, bool) or not isinstance(raw, (int, float, str)):
            raise ValueError
        edge = Fraction(repr(raw) if isinstance(raw, float) else raw)
    except (ValueError, ZeroDivisionError):
        raise ProfileError(f"{at}: a house edge must be a number or a fraction such as \"512/22100\", "
                           f"not {raw!r}") from None
    if not -1 <= edge <= 1:
        raise ProfileError(f"{at}: a house edge is a fraction of the stake between -1 and 1, not {raw!r}")
    return edge


def _odds(raw: object, at: str) -> Odds:
    if isinstance(raw, int) and not isinstance(raw, bool):
        raw = [raw, 1]
    if (not isinstance(raw, list) or len(raw) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in raw)):
        raise ProfileError(f"{at}: a pay must be odds [win, stake] of integers (or one integer), not {raw!r}")
    win, stake = raw
    if win < 0:
        raise ProfileError(f"{at}: a pay cannot be negative: {raw!r}")
    if stake < 1:
        raise ProfileError(f"{at}: the stake side of the odds must be at least 1: {raw!r}")
    return (win, stake)


_UTH_KEYS = ("max_spots", "dealer_qualifier", "max_multiple", "preflop_multiples", "flop_multiples",
             "river_multiples", "trips_paid_on", "trips_on_fold", "burns", "blind", "trips", "approved")
_TCP_KEYS = ("max_spots", "min_players", "dealer_qualifier", "burns", "ante_bonus_on", "ante_bonus",
             "pair_plus", "bonus", "approved")


def _section(top: _Reader, key: str, known: tuple[str, ...]) -> _Reader:
    data = top.get(key)
    if not isinstance(data, dict):
        raise top.fail(key, "must be a table")
    return _Reader(top.source, key, data, known)


def parse_profile(text: str, source: str, name: str | None = None) -> Profile:
    """Parse a profile from its TOML `text`; `source` names the file in errors.

    Raises ProfileError naming the source, the key and the reason: bad TOML, an unknown or
    missing key or table, an unknown hand category, a negative or non-integer pay, a bad switch.
    """
    try:
        data = tomltext.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ProfileError(f"{source}: not valid TOML: {exc}") from None
    top = _Reader(source, "", data, ("name", "description", "uth", "3cp"))
    default_name = name if name is not None else Path(source).stem
    profile_name = top.string("name", default_name)
    description = top.string("description", "")

    u = _section(top, "uth", _UTH_KEYS)
    uth = UthRules(
        max_spots=_req(u.integer("max_spots", 1, MAX_SPOTS)),
        dealer_qualifier=u.qualifier("dealer_qualifier", FIVE_CARD_CATEGORIES),
        max_multiple=u.integer("max_multiple", 1, required=False),
        preflop_multiples=u.multiples("preflop_multiples", UTH.play_multiples["preflop"]),
        flop_multiples=u.multiples("flop_multiples", UTH.play_multiples["flop"]),
        river_multiples=u.multiples("river_multiples", UTH.play_multiples["river"]),
        trips_paid_on=u.choice("trips_paid_on", TRIPS_PAID_ON),
        trips_on_fold=u.choice("trips_on_fold", TRIPS_ON_FOLD),
        burns=u.burns("burns", UTH_BURNS),
        blind=_req(u.table("blind", FIVE_CARD_CATEGORIES)),
        trips=_req(u.table("trips", FIVE_CARD_CATEGORIES)),
        approved=u.approved("approved", APPROVED_BETS["uth"]),
    )

    t = _section(top, "3cp", _TCP_KEYS)
    tcp = ThreeCardPokerRules(
        max_spots=_req(t.integer("max_spots", 1, MAX_SPOTS)),
        min_players=_req(t.integer("min_players", 1, MAX_SPOTS)),
        dealer_qualifier=t.qualifier("dealer_qualifier", THREE_CARD_CATEGORIES),
        burns=t.burns("burns", TCP_BURNS),
        ante_bonus_on=t.choice("ante_bonus_on", ANTE_BONUS_ON),
        ante_bonus=_req(t.table("ante_bonus", THREE_CARD_CATEGORIES)),
        pair_plus=_req(t.table("pair_plus", THREE_CARD_CATEGORIES)),
        bonus=t.table("bonus", THREE_CARD_CATEGORIES, required=False),
        approved=t.approved("approved", APPROVED_BETS["3cp"]),
    )
    if "bonus" in tcp.approved and tcp.bonus is None:
        raise ProfileError(f"{source}: [3cp.approved] bonus: the profile has no Bonus bet ([3cp.bonus])")
    if tcp.min_players > tcp.max_spots:
        raise t.fail("min_players", f"{tcp.min_players} is more than max_spots {tcp.max_spots}")
    return Profile(profile_name, description, source, uth, tcp)


def _req(value: Any) -> Any:
    assert value is not None  # required readers raise before returning None
    return value


@dataclass(frozen=True, slots=True)
class ProfileText:
    """A profile as its TOML text: what a table's journal keeps, so that the hand is settled by the
    very tables it was opened with, whatever becomes of the file since.

    >>> text = read_profile("default")
    >>> (text.name, text.source, len(text.sha256), text.parse().uth.blind["flush"])
    ('default', 'profiles/default.toml', 64, (3, 2))
    """

    name: str  # the profile's name (its `name` key, the file's stem, or the builtin's name)
    source: str  # where it was read from: `profiles/default.toml` or the file's path as given
    text: str

    @property
    def sha256(self) -> str:
        """The hex SHA-256 of the text (UTF-8): names exactly these tables."""
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()

    def parse(self) -> Profile:
        """The frozen profile. Raises ProfileError (see `parse_profile`)."""
        return parse_profile(self.text, self.source, name=self.name)

    @classmethod
    def from_text(cls, text: str, source: str, name: str | None = None) -> ProfileText:
        """A profile's text checked by parsing it (its name from `name`, else its own `name` key or the
        source's stem). Raises ProfileError."""
        return cls(parse_profile(text, source, name).name, source, text)


def read_profile(name_or_path: str | Path) -> ProfileText:
    """The text of a builtin profile by name (`default`, `standard`, `fr_literal`) or of a profile
    TOML file, checked by parsing it.

    Raises ProfileError for an unknown name, an unreadable file, or a bad profile (see
    `parse_profile`).
    """
    return ProfileText.from_text(*_profile_text(name_or_path))


def load_profile(name_or_path: str | Path) -> Profile:
    """A builtin profile by name (`default`, `standard`, `fr_literal`) or a profile TOML file.

    Raises ProfileError for an unknown name, an unreadable file, or a bad profile (see
    `parse_profile`).
    """
    return parse_profile(*_profile_text(name_or_path))


def _profile_text(name_or_path: str | Path) -> tuple[str, str, str | None]:
    """`(text, source, name)` of a builtin profile or a profile file. Raises ProfileError."""
    text_name = str(name_or_path)
    if isinstance(name_or_path, str) and name_or_path in BUILTIN_PROFILES:
        resource = resources.files("engine").joinpath("profiles", f"{name_or_path}.toml")
        return resource.read_text(encoding="utf-8"), f"profiles/{name_or_path}.toml", name_or_path
    path = Path(name_or_path)
    try:
        exists = path.exists()
    except (OSError, ValueError):  # a name too long for a path, a NUL in it: no such file
        exists = False
    if not (path.suffix == ".toml" or exists):
        raise ProfileError(f"{text_name}: no such profile (builtin: {', '.join(BUILTIN_PROFILES)}; "
                           f"or give a .toml file)")
    try:
        return path.read_text(encoding="utf-8"), text_name, None
    except (OSError, UnicodeDecodeError, ValueError) as exc:  # ValueError: a NUL in the path
        raise ProfileError(f"{text_name}: cannot read the profile: {exc}") from None
