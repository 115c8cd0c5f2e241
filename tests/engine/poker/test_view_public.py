"""A poker hand's public view is its full view through the one redaction: over random hands of every
variant, at every step, no face-down card reaches it and a card is `??` exactly where the rules keep it down."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import redact
from engine.cards import DECK, HIDDEN
from engine.poker import VARIANTS, Hand, HandSettings, Structure
from tests.engine.poker.helpers import random_step
from tests.engine.poker.test_property import stakes_for

CARD_TEXTS = {str(c) for c in DECK}


def strings(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set().union(set(), *(strings(k) | strings(v) for k, v in value.items()))
    if isinstance(value, list):
        return set().union(set(), *(strings(v) for v in value))
    return {value} if isinstance(value, str) else set()


def check_public(hand: Hand) -> None:
    view = hand.view()
    full: Any = view.to_dict(public=False)
    public: Any = view.to_dict(public=True)
    assert public == redact.public(full, redact.POKER_HAND)
    # what the rules keep down, read from the hand itself (not from the view's flags)
    down = {c for s in view.seats if not (s.shown or s.revealed) for c, up in zip(s.cards, s.up) if not up} - {HIDDEN}
    assert not strings(public) & down, f"face-down cards reached the public: {strings(public) & down}"
    assert redact.hidden_cards(full, redact.POKER_HAND) == down
    for seat, shown in zip(view.seats, public["seats"]):
        assert "visible" not in shown
        face_up = seat.shown or seat.revealed
        assert shown["cards"] == [c if (up or face_up) else HIDDEN for c, up in zip(seat.cards, seat.up)]
    # everything else passes as it is
    assert {k: v for k, v in public.items() if k != "seats"} == {k: v for k, v in full.items() if k != "seats"}


@settings(max_examples=60, deadline=None)
@given(code=st.sampled_from(sorted(VARIANTS)), structure=st.sampled_from(list(Structure)),
       reveal=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_the_public_view_is_the_full_view_redacted(code: str, structure: Structure, reveal: bool, seed: int) -> None:
    rng = random.Random(seed)
    variant = VARIANTS[code]
    n = rng.randint(2, min(variant.max_players, 8))
    seats = rng.sample(range(1, 11), n)
    stacks = {s: rng.choice([rng.randint(1, 12), rng.randint(10, 120)]) for s in seats}
    hand = Hand(variant, stakes_for(code, structure, rng), stacks, button=rng.choice(seats),
                settings=HandSettings(burns=rng.random() < 0.7, all_in_reveal=reveal))
    deck = list(DECK)
    rng.shuffle(deck)
    check_public(hand)
    for _ in range(2000):
        if hand.is_over:
            break
        random_step(hand, rng, deck)
        check_public(hand)
    assert hand.is_over
