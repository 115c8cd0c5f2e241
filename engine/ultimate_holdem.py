"""Ultimate Texas Hold'em: a round as data, its settlement by a profile's tables, and the round state machine.

docs/rules.md, "Ultimate Texas Hold'em": mandatory Ante and Blind (equal), optional Trips; two cards to
each spot and to the dealer, one at a time from the dealer's left; Play 4x or 3x the Ante before the
flop, 2x on the flop, 1x or fold at the river, once; the dealer qualifies with a pair or better (a
profile setting). `settle_uth` is the one settlement both `croupier settle` and the state machine use.

>>> from engine.paytables import load_profile
>>> hand = UthHand.parse({"game": "uth", "dealer": ["Qh", "Jc"], "board": ["2c", "7d", "9h", "4s", "3c"],
...     "spots": [{"seat": 1, "cards": ["As", "Kd"], "bets": {"ante": 1000, "blind": 1000, "trips": 500},
...                "play": {"street": "preflop", "multiple": 4}}]}, load_profile("default").uth)
>>> settle_uth(hand, load_profile("default").uth).to_dict()["spots"][0]["results"]
{'ante': 0, 'blind': 0, 'play': 4000, 'trips': -500}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, ClassVar

from engine.cards import Card, format_cards
from engine.errors import IllegalAction, NotAllowed, RoundFormatError, circle, decision, money, say, shown, times
from engine.evaluate import HandValue, high, named_ranks
from engine.kickers import deciding_kickers, kickers
from engine.games import UTH
from engine.house import (
    HouseRound,
    Settlement,
    Stage,
    TableLimits,
    check_all_distinct,
    expect_keys,
    parse_bets,
    parse_card_list,
    parse_seat,
    pay,
    spot_result,
)
from engine.house_values import BOARD, BURN, DEALER, spot_target, UthDealtSpot, UthRound
from engine.paytables import Odds, Profile, UthRules

GAME = UTH.code
UTH_BETS: tuple[str, ...] = UTH.bets
STREETS: tuple[str, ...] = UTH.streets
PHASES: tuple[str, ...] = ("bets", "deal", "preflop", "flop", "river", "showdown", "settled")


@dataclass(frozen=True, slots=True)
class UthPlay:
    """The Play bet: the street it was made on and its multiple of the Ante."""

    street: str
    multiple: int


@dataclass(frozen=True, slots=True)
class UthSpot:
    """One spot of a finished round: its two cards, its stakes (`ante`, `blind`, optional `trips`),
    its Play bet (None: folded at the river), and whether its hand was declared dead."""

    seat: int
    cards: tuple[Card, ...]
    bets: Mapping[str, int]
    play: UthPlay | None
    dead: bool = False


@dataclass(frozen=True, slots=True)
class UthHand:
    """A finished UTH round as data: what `croupier settle` reads (`parse`) and writes back (`to_dict`)."""

    dealer: tuple[Card, ...]
    board: tuple[Card, ...]
    spots: tuple[UthSpot, ...]

    @classmethod
    def parse(cls, obj: object, rules: UthRules) -> UthHand:
        """Read and check a round given as JSON values (the `croupier settle` input, see `engine.settle`): cards, counts, seats, stakes,
        Blind equal to Ante, legal Play multiples.

        Raises RoundFormatError (shape), CardError (bad, duplicate or miscounted cards) or
        IllegalAction (bad stake, Blind not equal to Ante, illegal Play).
        """
        data = expect_keys(obj, "round", ("game", "dealer", "board", "spots"))
        if data["game"] != GAME:
            raise RoundFormatError(f"round: game must be {shown(GAME)}, not {shown(data['game'])}")
        dealer = parse_card_list(data["dealer"], 2, "dealer")
        board = parse_card_list(data["board"], 5, "board")
        if not isinstance(data["spots"], list):
            raise RoundFormatError("spots: must be a list of spots")
        spots: list[UthSpot] = []
        for i, raw in enumerate(data["spots"]):
            s = expect_keys(raw, f"spots[{i}]", ("seat", "cards", "bets", "play"), ("dead",))
            seat = parse_seat(s["seat"], rules.max_spots, f"spots[{i}]")
            where = f"spot {seat}"
            if any(seat == other.seat for other in spots):
                raise RoundFormatError(f"{where}: seat {seat} appears twice")
            cards = parse_card_list(s["cards"], 2, f"{where}: cards")
            bets = parse_bets(s["bets"], where, UTH_BETS)
            check_uth_bets(bets, where)
            dead = s.get("dead", False)
            if not isinstance(dead, bool):
                raise RoundFormatError(f"{where}: dead must be true or false, not {shown(dead)}")
            spots.append(UthSpot(seat, cards, MappingProxyType(bets), _parse_play(s["play"], rules, where), dead))
        hand = cls(dealer, board, tuple(spots))
        check_all_distinct(hand.all_cards())
        return hand

    def all_cards(self) -> tuple[Card, ...]:
        return self.dealer + self.board + tuple(c for s in self.spots for c in s.cards)

    def check_limits(self, rules: UthRules, limits: TableLimits) -> None:
        """Raise IllegalAction when a stake is outside the table's limits (LimitsError when the
        limits break the profile's maximum multiple)."""
        effective = limits.with_max_multiple(rules.max_multiple)
        for spot in self.spots:
            check_uth_limits(spot.bets, effective, f"spot {spot.seat}")

    def to_dict(self) -> UthRound:
        spots: list[UthDealtSpot] = []
        for s in self.spots:
            spot: UthDealtSpot = {"seat": s.seat, "cards": format_cards(s.cards), "bets": dict(s.bets),
                                    "play": None if s.play is None else {"street": s.play.street,
                                                                         "multiple": s.play.multiple}}
            if s.dead:
                spot["dead"] = True
            spots.append(spot)
        return {"game": GAME, "dealer": format_cards(self.dealer), "board": format_cards(self.board),
                "spots": spots}


def _parse_play(value: object, rules: UthRules, where: str) -> UthPlay | None:
    if value is None:
        return None
    play = expect_keys(value, f"{where}: play", ("street", "multiple"))
    street, multiple = play["street"], play["multiple"]
    if street not in STREETS:
        raise IllegalAction(f"{where}: play street must be one of {', '.join(STREETS)}, not {shown(street)}")
    legal = rules.multiples(street)
    if not isinstance(multiple, int) or isinstance(multiple, bool) or multiple not in legal:
        raise IllegalAction(f"{where}: play {shown(multiple)}x is not legal {_on(street)} "
                            f"(legal: {' or '.join(f'{m}x' for m in legal)})")
    return UthPlay(street, multiple)


def _on(street: str) -> str:
    return "pre-flop" if street == "preflop" else f"on the {street}" if street == "flop" else "at the river"


def check_uth_bets(bets: Mapping[str, int], where: str, seat: int | None = None) -> None:
    """Ante and Blind are both required and equal. Raises IllegalAction."""
    for bet in ("ante", "blind"):
        if bet not in bets:
            raise IllegalAction(f"{where}: the {bet} is mandatory", say=say("refusal.bet_mandatory", seat=seat,
                                                                              bet=circle(bet)))
    if bets["blind"] != bets["ante"]:
        raise IllegalAction(f"{where}: the blind {bets['blind']} must equal the ante {bets['ante']}",
                            say=say("refusal.blind_equals_ante", seat=seat, blind=money(bets["blind"]),
                                    ante=money(bets["ante"])))


def check_uth_limits(bets: Mapping[str, int], limits: TableLimits, where: str, seat: int | None = None) -> None:
    """The Ante (and so the Blind) within the table limits, Trips within the side-bet limits.
    Raises IllegalAction."""
    try:
        limits.check_main("ante", bets["ante"], seat)
        if "trips" in bets:
            limits.check_side("trips", bets["trips"], seat)
    except IllegalAction as exc:
        raise IllegalAction(f"{where}: {exc}", say=exc.say) from None


def settle_uth(hand: UthHand, rules: UthRules, chip: int = 1) -> Settlement:
    """Settle every bet circle of a finished round by the profile's rules (docs/rules.md).

    Player beats dealer: Ante 1:1 (returned if the dealer does not qualify), Play 1:1, Blind by its
    table (a hand not in it pushes). Dealer beats player: Ante (returned if the dealer does not
    qualify), Blind and Play lose. Tie: all returned. Fold: Ante and Blind lose. Dead hand: every bet
    loses. Trips per `trips_paid_on` / `trips_on_fold`. Odds payouts round down to the `chip`.
    """
    dealer_cards = hand.dealer + hand.board
    dealer = high(dealer_cards)
    qualifies = rules.dealer_qualifier.qualifies(dealer, dealer_cards)
    results = []
    compared: list[HandValue] = []  # the hands that met the dealer's: a Play made, not dead
    for spot in hand.spots:
        value = high(spot.cards + hand.board)
        versus = (value.strength > dealer.strength) - (value.strength < dealer.strength)
        met = spot.play is not None and not spot.dead
        if met:
            compared.append(value)
        ante, blind, trips = spot.bets["ante"], spot.bets["blind"], spot.bets.get("trips")
        lines = {"blind": rules.blind.get(value.category), "trips": rules.trips.get(value.category)}  # its paytables'
        r: dict[str, int] = {}
        if spot.dead:
            r = {"ante": -ante, "blind": -blind}
            if spot.play is not None:
                r["play"] = -ante * spot.play.multiple
            if trips:
                r["trips"] = -trips
        elif spot.play is None:
            r = {"ante": -ante, "blind": -blind}
            if trips:
                r["trips"] = _trips(trips, lines["trips"], versus, rules, chip) if rules.trips_on_fold == "stands" \
                    else -trips
        else:
            play = ante * spot.play.multiple
            if versus > 0:
                blind_odds = lines["blind"]
                r = {"ante": ante if qualifies else 0,
                     "blind": pay(blind, blind_odds, chip) if blind_odds else 0, "play": play}
            elif versus == 0:
                r = {"ante": 0, "blind": 0, "play": 0}
            else:
                r = {"ante": -ante if qualifies else 0, "blind": -blind, "play": -play}
            if trips:
                r["trips"] = _trips(trips, lines["trips"], versus, rules, chip)
        results.append(spot_result(spot.seat, value.name, value.category, r, named_ranks(value),
                                   kickers(value, dealer) if met else (), lines))
    return Settlement.of(results, dealer.name, dealer.category, qualifies, named_ranks(dealer),
                         deciding_kickers(dealer, compared))


def _trips(stake: int, odds: Odds | None, versus: int, rules: UthRules, chip: int) -> int:
    """The Trips bet's net: `odds`, its paytable's line for the spot's hand (None: not on the paytable)."""
    if rules.trips_paid_on == "hand":
        return pay(stake, odds, chip) if odds else -stake
    # "win" (003): paid only when the player beats the dealer; returned on a tie; lost otherwise
    if versus > 0:
        return pay(stake, odds, chip) if odds else -stake
    return 0 if versus == 0 else -stake


class UltimateHoldemRound(HouseRound):
    """One round of Ultimate Texas Hold'em at one table. See `engine.house.HouseRound` for the steps.

    Phases: `bets`, `deal` (two cards to each spot and the dealer, one at a time from the dealer's
    left), `preflop` (decisions: `check`, or `play` 4 or 3), `flop` (three board cards, then
    `check` or `play` 2 by the spots that have not played), `river` (two board cards, then `play`
    1 or `fold`), `showdown` (the settlement is computed), `settled` (after `settle()`). Decisions
    go in seat order; a spot that has played is not asked again. Burns per the profile.
    """

    game: ClassVar[str] = GAME
    PHASES: ClassVar[tuple[str, ...]] = PHASES
    FIELDS: ClassVar[tuple[str, ...]] = (*HouseRound.FIELDS, "rules", "BETS", "_play")

    def __init__(self, profile: Profile, limits: TableLimits | None = None, seats: int | None = None) -> None:
        """Without `limits`, stakes are only checked to be positive integers. Raises LimitsError
        when `limits` break the profile's maximum multiple."""
        self.rules = profile.uth
        self.BETS = UTH_BETS
        super().__init__(profile, limits, seats)
        if limits is not None:
            self.limits = limits.with_max_multiple(self.rules.max_multiple)
        self._play: dict[int, UthPlay] = {}

    def _max_spots(self) -> int:
        return self.rules.max_spots

    def _check_bets(self, seat: int, bets: Mapping[str, int]) -> dict[str, int]:
        check_uth_bets(bets, f"spot {seat}", seat)
        check_uth_limits(bets, self.limits, f"spot {seat}", seat)
        return dict(bets)

    def _check_close(self) -> None:
        if not self._bets:
            raise IllegalAction("no spot has a bet", say=say("refusal.no_bets"))

    def _plan(self, seats: Sequence[int]) -> tuple[Stage, ...]:
        burns = self.rules.burns
        burn = (BURN,)
        one_round = tuple(map(spot_target, seats)) + (DEALER,)
        hole = (burn if "deal" in burns else ()) + one_round * 2
        flop = (burn if "flop" in burns else ()) + (BOARD,) * 3
        river = (burn if "river" in burns else ()) + (BOARD,) * 2
        return (Stage("deal", hole, None), Stage("preflop", (), "preflop"), Stage("flop", flop, "flop"),
                Stage("river", river, "river"), Stage("showdown", (), None))

    def _pending(self, street: str) -> list[int]:
        return [s for s in self.spot_seats()
                if s not in self._dead and s not in self._play and self._decision.get(s) != "fold"
                and self._acted.get(s) != street]

    def _check_decision(self, seat: int, action: str, multiple: int | None, street: str) -> int | None | NotAllowed:
        legal = self.rules.multiples(street)
        if action == "check":
            if street == "river":
                return _refused(seat, street, legal, "no check at the river", "refusal.no_check_at_river")
            if multiple is not None:
                return _refused(seat, street, None, "a check takes no multiple", "refusal.decision_no_multiple",
                                decision=decision("check"))
            return None
        if action == "fold":
            if street != "river":
                return _refused(seat, street, legal, "a spot folds only at the river; {on}",
                                "refusal.fold_only_at_river")
            if multiple is not None:
                return _refused(seat, street, None, "a fold takes no multiple", "refusal.decision_no_multiple",
                                decision=decision("fold"))
            return None
        if action == "play":
            if multiple is None:
                if len(legal) != 1:
                    return _refused(seat, street, legal, "say the multiple {on}", "refusal.multiple_needed")
                return legal[0]
            if multiple not in legal:
                return _refused(seat, street, legal, f"play {multiple}x is not legal {{on}}",
                                "refusal.multiple_not_legal", multiple=times(multiple))
            return multiple
        return NotAllowed(lambda: IllegalAction(
            f"spot {seat}: unknown decision {action!r} {_on(street)}: {_choices(legal, street)}",
            say=say("refusal.decision_not_legal", seat=seat, decision=str(action))))

    def _apply_decision(self, seat: int, action: str, multiple: int | None, street: str) -> None:
        if action == "play":
            assert multiple is not None
            self._play[seat] = UthPlay(street, multiple)

    def _spot_bets(self, seat: int) -> dict[str, int]:
        bets = dict(self._bets[seat])
        if seat in self._play:
            bets["play"] = bets["ante"] * self._play[seat].multiple
        return bets

    def _play_of(self, seat: int) -> tuple[str | None, int | None]:
        play = self._play.get(seat)
        return (play.street, play.multiple) if play else (None, None)

    def hand(self) -> UthHand:
        """The round as data. Raises IllegalAction before the showdown."""
        if self._phase not in ("showdown", "settled"):
            raise IllegalAction(f"the round is not complete before the showdown (phase {self._phase})")
        return self._as_dealt()

    def _as_dealt(self) -> UthHand:
        spots = tuple(UthSpot(s, tuple(self._cards.get(s, ())), MappingProxyType(dict(self._bets[s])),
                              self._play.get(s), s in self._dead) for s in self.spot_seats())
        return UthHand(tuple(self._dealer), tuple(self._board), spots)

    def _settle(self) -> Settlement:
        return settle_uth(self.hand(), self.rules, self.limits.chip)

    def _round_data(self) -> UthRound:
        return self._as_dealt().to_dict()

    def _revealed(self, seat: int) -> bool:
        # Spots still in the hand turn their cards over at the showdown; a folded spot only when
        # its standing Trips bet is paid (the dealer must see the hand to pay it).
        if seat in self._dead:
            return False
        if self._decision.get(seat) != "fold":
            return True
        return self._settlement is not None and self._settlement.spot(seat).results.get("trips", 0) > 0


def _refused(seat: int, street: str, legal: tuple[int, ...] | None, why: str, key: str, **words: Any) -> NotAllowed:
    """A decision refused: `spot N: why[: the choices open]` (`why` a template of `{on}`, the street, and `words`)
    and its words, both made only when raised (`verify_decide`; the dealer console asks the engine which choices
    are open at every step, `HouseRound.open_decisions`)."""
    return NotAllowed(lambda: IllegalAction(f"spot {seat}: {why.format(on=_on(street), **words)}"
                                            + (f": {_choices(legal, street)}" if legal is not None else ""),
                                            say=say(key, seat=seat, **words)))


def _choices(legal: tuple[int, ...], street: str) -> str:
    """The decisions open on `street`, for a refusal's words (made only when one is refused, `_refused`)."""
    return " or ".join(f"play {m}x" for m in legal) + (" or fold" if street == "river" else " or check")
