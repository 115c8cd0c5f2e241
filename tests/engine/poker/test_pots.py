"""Side pots, hi-lo splits and odd chips: the worked examples of 000 and 001, and docs/rules.md's odd-chip rules."""

from __future__ import annotations

from engine.poker import VARIANTS, Hand, HandSettings, Phase, Stakes, Structure, build_pots, split, split_hi_lo
from tests.engine.poker.helpers import deal_all, stacked

NO_BURNS = HandSettings(burns=False)


def test_build_pots_000_and_001():
    a, b, c = 1, 2, 3  # seats are ints (the compiled engine checks that they are)
    pots, uncalled = build_pots({a: 300, b: 200, c: 100}, live=[a, b, c])
    assert [(p.amount, sorted(p.eligible)) for p in pots] == [(300, [a, b, c]), (200, [a, b])]
    assert uncalled == {a: 100}
    myc, don, joey, will = 1, 2, 3, 4
    pots, uncalled = build_pots({myc: 200, don: 200, joey: 100, will: 50}, live=[myc, don, joey, will])
    assert [p.amount for p in pots] == [200, 150, 200] and uncalled == {}
    assert [len(p.eligible) for p in pots] == [4, 3, 2]


def test_folded_chips_stay_in_the_pots():
    pots, uncalled = build_pots({1: 100, 2: 50, 3: 100}, live=[2, 3])
    assert [(p.amount, sorted(p.eligible)) for p in pots] == [(150, [2, 3]), (100, [3])]
    assert uncalled == {}


def test_odd_chips_one_each_clockwise_from_the_button():
    order = [5, 6, 1, 2, 3]            # button on seat 4
    assert split(10, [1, 3, 6], order) == {6: 4, 1: 3, 3: 3}
    assert split(11, [1, 3, 6], order) == {6: 4, 1: 4, 3: 3}
    assert split_hi_lo(7) == (4, 3) and split_hi_lo(8) == (4, 4)


def test_side_pots_001_four_stacks_in_a_hand():
    # Myc 300 (seat 0), Don 200 (seat 1), Joey 100 (seat 2), Will 50 (seat 3); no blinds
    stakes = Stakes(Structure.NO_LIMIT, min_bet=10)
    hand = Hand(VARIANTS["holdem"], stakes, [300, 200, 100, 50], button=3, settings=NO_BURNS)
    # hole cards: Will best, then Joey, then Don, then Myc
    deal_all(hand, stacked("2c 7d 5h As 3c 8d 5d Ad"))
    hand.bet_or_raise(200, seat=0)
    hand.call(1)
    hand.call(2)
    hand.call(3)
    assert [(p.amount, sorted(p.eligible)) for p in hand.pots()] == [(200, [0, 1, 2, 3]), (150, [0, 1, 2]), (200, [0, 1])]
    deal_all(hand, stacked("Ks Qd 9c 4h Jh"))     # Will: AA; Joey: 55; Don 77/88? Don: 7d 8d
    assert hand.phase is Phase.SHOWDOWN
    hand.showdown()
    result = hand.result
    assert [p.amount for p in result.pots] == [200, 150, 200]
    assert result.pots[0].winners == {3: 200}
    assert result.final_stacks == {0: 100, 1: 200, 2: 150, 3: 200}
    assert sum(result.payoffs.values()) == 0


def run_out(hand: Hand, board: str) -> None:
    """Deal `board` street by street, everyone checking, up to the showdown."""
    cards = stacked(board)
    for _ in range(200):
        if hand.phase is not Phase.BETTING and hand.expected_card() is None:
            return
        if hand.expected_card() is not None:
            hand.deal(cards.pop(0))
        else:
            hand.check()
    raise AssertionError("no showdown")


def omaha_hilo(holes: list[str], board: str, stacks: list[int] | None = None) -> Hand:
    n = len(holes)
    hand = Hand(VARIANTS["omaha_hilo8"], Stakes.fixed_limit(100, 200, blinds=()), stacks or [1000] * n,
                button=n - 1, settings=NO_BURNS)
    cards = [stacked(h) for h in holes]
    deck = [cards[p][r] for r in range(4) for p in range(n)]
    deal_all(hand, deck)
    hand.bet_or_raise(100)
    for _ in range(n - 1):
        hand.call()
    run_out(hand, board)
    hand.showdown()
    return hand


def test_omaha_hilo_000_first_example_high_and_low_to_different_hands():
    hand = omaha_hilo(["Ah 2s Kh Ks", "As 3s Qh Qd"], "4h 5c 7h Qs Ad")
    assert hand.result.pots[0].winners == {1: 100, 0: 100}


def test_omaha_hilo_000_second_example_scoop():
    hand = omaha_hilo(["Ah 2s Qd Ks", "6h 7h Td Jd"], "Kh 3d 4d 8s 2d")
    assert hand.result.pots[0].winners == {1: 200}


def test_quartering_example_1_best_high_and_tied_low_gets_three_quarters():
    hand = omaha_hilo(["Ah 4h Kd 9s", "Ad 4c Jh Jd"], "2c 3d 7h Kc Ks", stacks=[1000, 1000])
    assert hand.result.pots[0].winners == {0: 150, 1: 50}


def test_quartering_example_2_high_half_and_two_quarters():
    hand = omaha_hilo(["Kd Qd Qh Js", "Ah 4c 9s 9c", "Ad 4d Ts Tc"], "2c 3d 7h Kc Ks")
    assert hand.result.pots[0].winners == {0: 150, 1: 75, 2: 75}


def test_no_qualifying_low_high_takes_all():
    hand = omaha_hilo(["Kd Qd Qh Js", "Ah 4c 9s 9c"], "Tc Jd 7h Kc Ks")
    assert hand.result.pots[0].winners == {0: 200}


def test_odd_chip_goes_to_the_high_half():
    # an odd pot: a folded blind leaves one dead chip
    hand = Hand(VARIANTS["omaha_hilo8"], Stakes.pot_limit(1, 2), [100, 100, 100], button=2, settings=NO_BURNS)
    holes = [stacked("Kd Qd Qh Js"), stacked("Qs Qc 8c 8d"), stacked("Ah 4c 9s 9c")]
    deal_all(hand, [holes[p][r] for r in range(4) for p in range(3)])
    hand.call(2)
    hand.fold(0)
    hand.check(1)
    run_out(hand, "2c 3d 7h Kc Ks")
    hand.showdown()
    # pot 5 (the folded small blind is dead): seat 1 high with kings and queens, seat 2 the low
    winners = hand.result.pots[0].winners
    assert sum(winners.values()) == 5
    assert winners == {1: 3, 2: 2}


def test_odd_chip_between_tied_hands_to_first_winner_left_of_button():
    hand = Hand(VARIANTS["holdem"], Stakes.no_limit(1, 2), [100, 100, 100], button=2, settings=NO_BURNS)
    deal_all(hand, stacked("2c 3c 4c 2d 3d 4d"))
    hand.call(2)
    hand.fold(0)
    hand.check(1)
    run_out(hand, "Ts Js Qd Kh Ac")
    hand.showdown()
    assert hand.result.pots[0].winners == {1: 3, 2: 2}


def test_showdown_order_last_aggressor_first_else_left_of_button():
    def river(bet: bool) -> Hand:
        hand = Hand(VARIANTS["holdem"], Stakes.no_limit(1, 2), [100, 100, 100], button=0, settings=NO_BURNS)
        deal_all(hand, stacked("2c 3c 4c 2d 3d 4d"))
        hand.call(0)
        hand.call(1)
        hand.check(2)
        cards = stacked("Ts Js Qd Kh 8c")
        while cards:
            if hand.expected_card() is not None:
                hand.deal(cards.pop(0))
            else:
                hand.check()
        if bet:
            hand.check(1)
            hand.bet_or_raise(10, seat=2)
            hand.call(0)
            hand.call(1)
        while hand.phase is Phase.BETTING:
            hand.check()
        return hand

    assert river(bet=False).actor == 1
    hand = river(bet=True)
    assert hand.actor == 2
    hand.show()
    assert hand.actor == 0
    assert hand.can_muck()
    hand.muck()
    assert hand.actor == 1
    hand.muck()
    assert hand.is_over and hand.result.final_stacks[2] == 100 + 24


def test_last_contender_cannot_muck_and_wins_without_showing():
    hand = Hand(VARIANTS["holdem"], Stakes.no_limit(1, 2), [100, 100], button=1, settings=NO_BURNS)
    deal_all(hand, stacked("2c 3c 4c 2d"))
    hand.call()
    hand.check()
    run_out(hand, "Ts Js Qd Kh 8c")
    first = hand.actor
    hand.muck()
    assert hand.is_over and hand.result.final_stacks[first] == 98
