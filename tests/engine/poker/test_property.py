"""Random hands of every variant and structure: chips are conserved, no stack goes negative, the
dealer view always offers a legal way on, and refused actions change nothing."""

from __future__ import annotations

import random

import pytest

from engine.errors import IllegalAction
from engine.poker import VARIANTS, Hand, HandSettings, Rake, Stakes, Structure
from tests.engine.poker.helpers import play_random

HANDS_PER_CASE = 150


def stakes_for(code: str, structure: Structure, rng: random.Random) -> Stakes:
    stud = VARIANTS[code].bring_in is not None
    blinds = () if stud else (1, 2)
    ante = rng.choice([0, 0, 1])
    if stud:
        ante = rng.choice([1, 2])
    bring_in = 1 if stud else 0
    if structure is Structure.FIXED_LIMIT:
        return Stakes(structure, blinds, ante, bring_in, small_bet=2, big_bet=4,
                      raise_cap=rng.choice([3, 4, None]), uncapped_heads_up=rng.random() < 0.5)
    if structure is Structure.SPREAD_LIMIT:
        return Stakes(structure, blinds, ante, bring_in, small_bet=2, min_bet=2, max_bet=6)
    return Stakes(structure, blinds, ante, bring_in, small_bet=2 if stud else 0)


@pytest.mark.parametrize("structure", list(Structure), ids=lambda s: s.value)
@pytest.mark.parametrize("code", list(VARIANTS))
def test_random_hands_conserve_chips(code: str, structure: Structure) -> None:
    rng = random.Random(f"{code}-{structure.value}")
    variant = VARIANTS[code]
    for _ in range(HANDS_PER_CASE):
        n = rng.randint(2, min(variant.max_players, 8))
        seats = rng.sample(range(10), n)
        stacks = {s: rng.choice([rng.randint(1, 12), rng.randint(10, 120)]) for s in seats}
        rake = Rake(500, 3) if rng.random() < 0.3 else None
        settings = HandSettings(burns=rng.random() < 0.7, rake=rake)
        hand = Hand(variant, stakes_for(code, structure, rng), stacks, button=rng.choice(seats),
                    settings=settings)
        play_random(hand, rng)
        result = hand.result
        assert result is not None
        assert sum(result.final_stacks.values()) + result.rake == sum(stacks.values())
        assert sum(result.payoffs.values()) + result.rake == 0
        assert min(result.final_stacks.values()) >= 0
        assert sum(p.amount for p in result.pots) == sum(sum(p.winners.values()) for p in result.pots)


def test_refused_steps_change_nothing() -> None:
    rng = random.Random(5)
    for code in VARIANTS:
        hand = Hand(VARIANTS[code], stakes_for(code, Structure.NO_LIMIT, rng), [50, 60, 70])
        for _ in range(40):
            if hand.is_over:
                break
            snapshot = (hand.view(), len(hand.records))
            for attempt in (lambda: hand.check(seat=99), lambda: hand.bet_or_raise(10**9),
                            lambda: hand.deal("As") if hand.expected_card() is None else hand.fold(),
                            lambda: hand.show() if hand.phase.value != "showdown" else hand.draw()):
                try:
                    attempt()
                except IllegalAction:
                    pass
                else:
                    raise AssertionError("an illegal step was accepted")
                assert (hand.view(), len(hand.records)) == snapshot
            from tests.engine.poker.helpers import random_step
            deck = [c for c in __import__("engine.cards", fromlist=["DECK"]).DECK
                    if c not in set(hand.board) | {x for s in hand.seats for x in hand.cards(s)}
                    and c not in set(hand.burned) | set(hand.discarded)]
            rng.shuffle(deck)
            random_step(hand, rng, deck)
