"""Three Card Poker: a round as data, its settlement by a profile's tables, and the round state machine.

docs/rules.md, "Three Card Poker": an Ante (and optionally Pair Plus, or Pair Plus alone); three
cards to each spot and to the dealer, one at a time from the dealer's left; each spot with an Ante
plays (Play equal to the Ante) or folds; the dealer qualifies with queen-high or better (a profile
setting). `settle_3cp` is the one settlement both `croupier settle` and the state machine use.

>>> from engine.paytables import load_profile
>>> hand = ThreeCardHand.parse({"game": "3cp", "dealer": ["Ks", "7d", "2c"], "spots": [{"seat": 1,
...     "cards": ["Qh", "Qd", "5s"], "bets": {"ante": 500, "pair_plus": 500}, "play": True}]},
...     load_profile("default").three_card_poker)
>>> settle_3cp(hand, load_profile("default").three_card_poker).to_dict()["spots"][0]
{'seat': 1, 'hand': 'Pair of queens', 'category': 'pair', 'results': {'ante': 500, 'play': 500, 'pair_plus': 500}, 'net': 1500}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, ClassVar

from engine.cards import Card, format_cards
from engine.errors import IllegalAction, NotAllowed, RoundFormatError, circle, decision, say, shown
from engine.evaluate import HandValue, named_ranks, three_card
from engine.kickers import deciding_kickers, kickers
from engine.games import THREE_CARD_POKER
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
from engine.house_values import BURN, DEALER, spot_target, TcpDealtSpot, TcpRound
from engine.paytables import Profile, ThreeCardPokerRules

GAME = THREE_CARD_POKER.code
PHASES: tuple[str, ...] = ("bets", "deal", "decide", "showdown", "settled")
SIDE_BETS: tuple[str, ...] = THREE_CARD_POKER.bets[1:]


def tcp_bets(rules: ThreeCardPokerRules) -> tuple[str, ...]:
    """The bet circles a spot may use under `rules`: `ante`, `pair_plus`, and `bonus` where offered."""
    return ("ante", "pair_plus") + (("bonus",) if rules.bonus is not None else ())


@dataclass(frozen=True, slots=True)
class ThreeCardSpot:
    """One spot of a finished round: its three cards, its stakes (`ante`, `pair_plus`, `bonus`),
    its decision (True: played, False: folded, None: Pair Plus alone), and whether it is dead."""

    seat: int
    cards: tuple[Card, ...]
    bets: Mapping[str, int]
    play: bool | None
    dead: bool = False


@dataclass(frozen=True, slots=True)
class ThreeCardHand:
    """A finished 3CP round as data: what `croupier settle` reads (`parse`) and writes back (`to_dict`)."""

    dealer: tuple[Card, ...]
    spots: tuple[ThreeCardSpot, ...]

    @classmethod
    def parse(cls, obj: object, rules: ThreeCardPokerRules) -> ThreeCardHand:
        """Read and check a round given as JSON values (the `croupier settle` input, see `engine.settle`): cards, counts, seats, stakes,
        a decision exactly where there is an Ante.

        Raises RoundFormatError (shape), CardError (bad, duplicate or miscounted cards) or
        IllegalAction (bad stake, missing or unexpected decision).
        """
        data = expect_keys(obj, "round", ("game", "dealer", "spots"))
        if data["game"] != GAME:
            raise RoundFormatError(f"round: game must be {shown(GAME)}, not {shown(data['game'])}")
        dealer = parse_card_list(data["dealer"], 3, "dealer")
        if not isinstance(data["spots"], list):
            raise RoundFormatError("spots: must be a list of spots")
        spots: list[ThreeCardSpot] = []
        for i, raw in enumerate(data["spots"]):
            s = expect_keys(raw, f"spots[{i}]", ("seat", "cards", "bets"), ("play", "dead"))
            seat = parse_seat(s["seat"], rules.max_spots, f"spots[{i}]")
            where = f"spot {seat}"
            if any(seat == other.seat for other in spots):
                raise RoundFormatError(f"{where}: seat {seat} appears twice")
            cards = parse_card_list(s["cards"], 3, f"{where}: cards")
            bets = parse_bets(s["bets"], where, tcp_bets(rules))
            check_tcp_bets(bets, where)
            dead = s.get("dead", False)
            if not isinstance(dead, bool):
                raise RoundFormatError(f"{where}: dead must be true or false, not {shown(dead)}")
            play = s.get("play")
            if "ante" in bets:
                if not isinstance(play, bool) and not (dead and play is None):
                    raise IllegalAction(f"{where}: play must be true (played) or false (folded), not {shown(play)}")
            elif play is not None:
                raise IllegalAction(f"{where}: Pair Plus alone takes no decision, but play is {shown(play)}")
            spots.append(ThreeCardSpot(seat, cards, MappingProxyType(bets), play, dead))
        hand = cls(dealer, tuple(spots))
        check_all_distinct(hand.all_cards())
        return hand

    def all_cards(self) -> tuple[Card, ...]:
        return self.dealer + tuple(c for s in self.spots for c in s.cards)

    def check_limits(self, limits: TableLimits) -> None:
        """Raise IllegalAction when a stake is outside the table's limits."""
        for spot in self.spots:
            check_tcp_limits(spot.bets, limits, f"spot {spot.seat}")

    def to_dict(self) -> TcpRound:
        spots: list[TcpDealtSpot] = []
        for s in self.spots:
            spot: TcpDealtSpot = {"seat": s.seat, "cards": format_cards(s.cards), "bets": dict(s.bets)}
            if "ante" in s.bets or s.play is not None:
                spot["play"] = s.play
            if s.dead:
                spot["dead"] = True
            spots.append(spot)
        return {"game": GAME, "dealer": format_cards(self.dealer), "spots": spots}


def check_tcp_bets(bets: Mapping[str, int], where: str, seat: int | None = None) -> None:
    """An Ante or a Pair Plus (or both); the Bonus needs an Ante. Raises IllegalAction."""
    if "ante" not in bets and "pair_plus" not in bets:
        raise IllegalAction(f"{where}: a spot bets an ante, a pair plus, or both",
                            say=say("refusal.ante_or_pair_plus", seat=seat))
    if "bonus" in bets and "ante" not in bets:
        raise IllegalAction(f"{where}: the bonus is bet only with an ante",
                            say=say("refusal.needs_ante", seat=seat, bet=circle("bonus")))


def check_tcp_limits(bets: Mapping[str, int], limits: TableLimits, where: str, seat: int | None = None) -> None:
    """The Ante within the table limits, Pair Plus and Bonus within the side-bet limits.
    Raises IllegalAction."""
    try:
        if "ante" in bets:
            limits.check_main("ante", bets["ante"], seat)
        for bet in SIDE_BETS:
            if bet in bets:
                limits.check_side(bet, bets[bet], seat)
    except IllegalAction as exc:
        raise IllegalAction(f"{where}: {exc}", say=exc.say) from None


def settle_3cp(hand: ThreeCardHand, rules: ThreeCardPokerRules, chip: int = 1) -> Settlement:
    """Settle every bet circle of a finished round by the profile's rules (docs/rules.md).

    Played: dealer not qualified, Ante 1:1 and Play returned; qualified, the better hand wins Ante
    and Play 1:1, a tie returns both. The Ante Bonus (reported as `ante_bonus`, only when it pays)
    on the Ante per `ante_bonus_on`. Folded or dead: Ante, Pair Plus and Bonus lose (a dead hand's
    Play too). Pair Plus by its table whatever the dealer holds; the Bonus by its table when the
    spot played. Odds payouts round down to the `chip`.
    """
    dealer = three_card(hand.dealer)
    qualifies = rules.dealer_qualifier.qualifies(dealer, hand.dealer)
    results = []
    compared: list[HandValue] = []  # the hands that met the dealer's
    for spot in hand.spots:
        value = three_card(spot.cards)
        versus = (value.strength > dealer.strength) - (value.strength < dealer.strength)
        ante = spot.bets.get("ante")
        played = bool(ante) and spot.play is True and not spot.dead
        lines = {"ante_bonus": rules.ante_bonus.get(value.category), "pair_plus": rules.pair_plus.get(value.category),
                 "bonus": rules.bonus.get(value.category) if rules.bonus is not None else None}  # its paytables' lines
        r: dict[str, int] = {}
        if ante:
            if not played:
                r["ante"] = -ante
                if spot.dead and spot.play:
                    r["play"] = -ante
            else:
                if not qualifies:
                    r["ante"], play = ante, 0
                elif versus > 0:
                    r["ante"], play = ante, ante
                elif versus == 0:
                    r["ante"], play = 0, 0
                else:
                    r["ante"], play = -ante, -ante
                ante_won = not qualifies or versus > 0
                due = {"play": True, "win": ante_won, "beat_qualified": qualifies and versus > 0}[rules.ante_bonus_on]
                odds = lines["ante_bonus"]
                if due and odds and pay(ante, odds, chip):
                    r["ante_bonus"] = pay(ante, odds, chip)
                r["play"] = play
        lost = spot.dead or (bool(ante) and not played)
        pair_plus = spot.bets.get("pair_plus")
        if pair_plus:
            odds = lines["pair_plus"]
            r["pair_plus"] = pay(pair_plus, odds, chip) if odds and not lost else -pair_plus
        bonus = spot.bets.get("bonus")
        if bonus:
            odds = lines["bonus"]
            r["bonus"] = pay(bonus, odds, chip) if odds and played else -bonus
        met = played and qualifies  # its hand met the dealer's: a Play made against a qualified dealer
        if met:
            compared.append(value)
        results.append(spot_result(spot.seat, value.name, value.category, r, named_ranks(value),
                                   kickers(value, dealer) if met else (), lines))
    return Settlement.of(results, dealer.name, dealer.category, qualifies, named_ranks(dealer),
                         deciding_kickers(dealer, compared))


class ThreeCardPokerRound(HouseRound):
    """One round of Three Card Poker at one table. See `engine.house.HouseRound` for the steps.

    Phases: `bets` (at least the profile's `min_players` spots with a bet to deal), `deal` (three
    cards to each spot and the dealer, one at a time from the dealer's left), `decide` (each spot
    with an Ante, in seat order: `play` or `fold`; Pair Plus alone takes no decision), `showdown`
    (the settlement is computed), `settled` (after `settle()`). A dead hand (`declare_dead`) loses
    every bet.
    """

    game: ClassVar[str] = GAME
    PHASES: ClassVar[tuple[str, ...]] = PHASES
    FIELDS: ClassVar[tuple[str, ...]] = (*HouseRound.FIELDS, "rules", "BETS", "_played")

    def __init__(self, profile: Profile, limits: TableLimits | None = None, seats: int | None = None) -> None:
        self.rules = profile.three_card_poker
        super().__init__(profile, limits, seats)
        self.BETS = tcp_bets(self.rules)
        self._played: dict[int, bool] = {}

    def _max_spots(self) -> int:
        return self.rules.max_spots

    def _check_bets(self, seat: int, bets: Mapping[str, int]) -> dict[str, int]:
        check_tcp_bets(bets, f"spot {seat}", seat)
        check_tcp_limits(bets, self.limits, f"spot {seat}", seat)
        return dict(bets)

    def _check_close(self) -> None:
        need = self.rules.min_players
        if len(self._bets) < need:
            raise IllegalAction(f"{need} spots with a bet are needed to deal, {len(self._bets)} have one",
                                say=say("refusal.spots_needed", need=need, have=len(self._bets)))

    def _plan(self, seats: Sequence[int]) -> tuple[Stage, ...]:
        one_round = tuple(map(spot_target, seats)) + (DEALER,)
        hole = ((BURN,) if "deal" in self.rules.burns else ()) + one_round * 3
        return (Stage("deal", hole, None), Stage("decide", (), "decide"), Stage("showdown", (), None))

    def _pending(self, street: str) -> list[int]:
        return [s for s in self.spot_seats()
                if "ante" in self._bets[s] and s not in self._dead and s not in self._played]

    def _check_decision(self, seat: int, action: str, multiple: int | None, street: str) -> int | None | NotAllowed:
        if action not in THREE_CARD_POKER.decisions:
            return NotAllowed(lambda: IllegalAction(
                f"spot {seat}: unknown decision {action!r}: {' or '.join(THREE_CARD_POKER.decisions)}",
                say=say("refusal.decision_not_legal", seat=seat, decision=str(action))))
        if ((multiple is not None and multiple not in THREE_CARD_POKER.play_multiples[street])
                or (action == "fold" and multiple is not None)):
            return NotAllowed(lambda: IllegalAction(
                f"spot {seat}: the Play bet equals the Ante; no multiple {multiple!r}",
                say=say("refusal.decision_no_multiple", seat=seat, decision=decision(action))))
        return THREE_CARD_POKER.play_multiples[street][0] if action == "play" else None

    def _apply_decision(self, seat: int, action: str, multiple: int | None, street: str) -> None:
        self._played[seat] = action == "play"

    def _spot_bets(self, seat: int) -> dict[str, int]:
        bets = dict(self._bets[seat])
        if self._played.get(seat):
            bets["play"] = bets["ante"]
        return bets

    def hand(self) -> ThreeCardHand:
        """The round as data. Raises IllegalAction before the showdown."""
        if self._phase not in ("showdown", "settled"):
            raise IllegalAction(f"the round is not complete before the showdown (phase {self._phase})")
        return self._as_dealt()

    def _as_dealt(self) -> ThreeCardHand:
        spots = tuple(ThreeCardSpot(s, tuple(self._cards.get(s, ())), MappingProxyType(dict(self._bets[s])),
                                    self._played.get(s) if "ante" in self._bets[s] else None, s in self._dead)
                      for s in self.spot_seats())
        return ThreeCardHand(tuple(self._dealer), spots)

    def _settle(self) -> Settlement:
        return settle_3cp(self.hand(), self.rules, self.limits.chip)

    def _round_data(self) -> TcpRound:
        return self._as_dealt().to_dict()

    def _revealed(self, seat: int) -> bool:
        # The dealer turns over the hands that played against a qualified dealer; when it does not
        # qualify the cards stay down, except a hand paid on its own cards (Ante Bonus, Pair Plus,
        # Bonus), which the dealer must see to pay (003). Folded and dead hands stay down.
        if seat in self._dead or self._decision.get(seat) == "fold" or self._settlement is None:
            return False
        if self._played.get(seat) and self._settlement.dealer_qualifies:
            return True
        results = self._settlement.spot(seat).results
        return any(results.get(bet, 0) > 0 for bet in ("ante_bonus", "pair_plus", "bonus"))
