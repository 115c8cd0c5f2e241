"""The tournament's all-in showdown (docs/rules.md "Poker room"): once a player is all in and no more
betting is possible, every hand still in is turned face up before the rest of the board; the public
view shows them from that moment, not before; cash tables keep the normal showdown order."""

from __future__ import annotations

from typing import Any

from engine.cards import parse_cards
from engine.poker import VARIANTS, Hand, HandSettings, Stakes
from tests.engine.poker.helpers import deal_all

TOURNAMENT = HandSettings(burns=False, all_in_reveal=True)
CASH = HandSettings(burns=False)
# seats 1, 2, 3 (button 3: small blind 1, big blind 2); two hole cards each, then the board
DECK = "As Kd Qh Ah Ks Qd 2c 7d 9h 4s 5s"


def cards_seen(hand: Hand) -> dict[int, list[str]]:
    public: Any = hand.view().to_dict(public=True)
    return {s["seat"]: s["cards"] for s in public["seats"]}


def three_handed(settings: HandSettings, stacks: dict[int, int]) -> tuple[Hand, list[Any]]:
    hand = Hand(VARIANTS["holdem"], Stakes.no_limit(1, 2), stacks, button=3, settings=settings)
    deck = list(parse_cards(DECK))
    deal_all(hand, deck)
    return hand, deck


def test_hands_are_turned_up_once_a_player_is_all_in_and_the_betting_is_over() -> None:
    # Seat 3 (the button, 30 chips) goes all in before the flop; seat 1 calls; seat 2 folds:
    # nobody can bet any more. Both hands still in are face up from that moment, before the flop
    # is dealt; the folded hand stays hidden.
    hand, deck = three_handed(TOURNAMENT, {1: 200, 2: 200, 3: 30})
    hand.bet_or_raise(30, 3)
    hand.call(1)
    assert not hand.revealed and set(sum(cards_seen(hand).values(), [])) == {"??"}   # not before
    hand.fold(2)
    assert hand.revealed and hand.board == [] and hand.expected_card() is not None
    assert cards_seen(hand) == {1: ["As", "Ah"], 2: ["??", "??"], 3: ["Qh", "Qd"]}
    deal_all(hand, deck)
    assert hand.board and cards_seen(hand)[3] == ["Qh", "Qd"]


def test_no_reveal_while_two_players_with_chips_can_still_bet() -> None:
    # Seat 3 all in for 30, seats 1 and 2 call: they can still bet the side pot on the flop, so
    # nothing is turned up. Seat 1 bets, seat 2 folds: now it is over, and the hands still in show.
    hand, deck = three_handed(TOURNAMENT, {1: 200, 2: 200, 3: 30})
    hand.bet_or_raise(30, 3)
    hand.call(1), hand.call(2)
    deal_all(hand, deck)
    assert hand.street_name == "flop" and not hand.revealed
    assert set(sum(cards_seen(hand).values(), [])) == {"??"}
    hand.bet_or_raise(50, 1)
    hand.fold(2)
    assert hand.revealed and cards_seen(hand) == {1: ["As", "Ah"], 2: ["??", "??"], 3: ["Qh", "Qd"]}


def test_cash_tables_keep_the_cards_down_until_the_showdown() -> None:
    hand, deck = three_handed(CASH, {1: 200, 2: 200, 3: 30})
    hand.bet_or_raise(30, 3)
    hand.call(1)
    hand.fold(2)
    assert not hand.revealed and set(sum(cards_seen(hand).values(), [])) == {"??"}
    deal_all(hand, deck)
    assert set(sum(cards_seen(hand).values(), [])) == {"??"}     # the showdown asks each in turn
    assert hand.view().to_dict(public=False)["seats"][2]["cards"] == ["Qh", "Qd"]   # the dealer's copy


def test_the_hands_turned_up_at_the_all_in_are_tabled_at_the_showdown_none_asked_none_mucked() -> None:
    # Seat 3 all in, seat 1 calls, seat 2 folds: both hands face up before the flop. At the river nobody is asked to
    # show or muck: the tabled hands are shown at once, in showdown order (first left of the button: no betting on
    # the final round), and the pot goes to the best.
    hand, deck = three_handed(TOURNAMENT, {1: 200, 2: 200, 3: 30})
    hand.bet_or_raise(30, 3)
    hand.call(1)
    hand.fold(2)
    deal_all(hand, deck)
    assert hand.result is not None and hand.actor is None
    assert [(r.seat, [str(c) for c in r.cards]) for r in hand.records if type(r).__name__ == "Shown"] == [
        (1, ["As", "Ah"]), (3, ["Qh", "Qd"])]
    assert hand.result.showdown and hand.result.final_stacks[1] == 200 + 32 and hand.result.final_stacks[3] == 0


def test_a_cash_tables_all_in_showdown_asks_each_in_turn_from_the_left_of_the_button() -> None:
    # The same hand at a cash table: no betting on the final round, so the first player left of the button shows
    # first (docs/rules.md "Showdown order"; 000: nobody bet on the river), then the all-in button, who may muck.
    hand, deck = three_handed(CASH, {1: 200, 2: 200, 3: 30})
    hand.bet_or_raise(30, 3)
    hand.call(1)
    hand.fold(2)
    deal_all(hand, deck)
    assert hand.actor == 1 and hand.result is None
    hand.show(seat=1)
    assert hand.actor == 3 and hand.can_muck(3)
    hand.muck(3)
    assert hand.result is not None and hand.result.final_stacks[1] == 200 + 32
