"""Test helpers: deal a stacked or shuffled deck into a hand, play random legal actions."""

from __future__ import annotations

import random

from engine.cards import DECK, Card, parse_cards
from engine.poker import Hand, Phase


def deal_all(hand: Hand, deck: list[Card]) -> None:
    """Deal from `deck` (popping from the front) while the hand expects cards."""
    while hand.expected_card() is not None:
        hand.deal(deck.pop(0))


def stacked(text: str) -> list[Card]:
    return list(parse_cards(text))


def random_step(hand: Hand, rng: random.Random, deck: list[Card]) -> None:
    """One random legal step: a card, a draw, a betting action, or a showdown choice."""
    if hand.expected_card() is not None:
        assert hand.actor is None   # nobody is to act while a card is expected (Hand.actor: the PHH replay relies on it)
        if not deck:  # stub exhausted (triple draw): reshuffle the burns and discards
            live = set(hand.board) | {c for s in hand.seats for c in hand.cards(s)}
            deck.extend(c for c in set(hand.burned) | set(hand.discarded) if c is not None and c not in live)
            deck.sort()
            rng.shuffle(deck)
        hand.deal(deck.pop(0))
        return
    seat = hand.actor
    assert seat is not None
    if hand.phase is Phase.DRAWING:
        cards = [c for c in hand.cards(seat) if c is not None]
        k = rng.randint(0, len(cards))
        hand.draw(rng.sample(cards, k))
        return
    if hand.phase is Phase.SHOWDOWN:
        if hand.can_muck() and rng.random() < 0.3:
            hand.muck()
        else:
            hand.show()
        return
    if rng.random() < 0.005:
        hand.chop()          # the players still in agree to share
        return
    view = hand.view()
    legal = view.legal
    options: list[str] = []
    if legal.bring_in is not None:
        options.append("bring_in")
    if legal.fold:
        options.append("fold")
    if legal.check:
        options += ["check", "check"]
    if legal.call is not None:
        options += ["call", "call"]
    if legal.bet_or_raise is not None:
        options.append("raise")
    choice = rng.choice(options)
    if choice == "bring_in":
        hand.post_bring_in()
    elif choice == "fold":
        hand.fold()
    elif choice == "check":
        hand.check()
    elif choice == "call":
        hand.call()
    else:
        r = legal.bet_or_raise
        assert r is not None
        if r.choices is not None:
            hand.bet_or_raise(rng.choice(r.choices))
        else:
            hand.bet_or_raise(rng.choice([r.min_to, r.max_to, rng.randint(r.min_to, r.max_to)]))


def play_random(hand: Hand, rng: random.Random, limit: int = 2000) -> None:
    deck = list(DECK)
    rng.shuffle(deck)
    for _ in range(limit):
        if hand.is_over:
            return
        random_step(hand, rng, deck)
    raise AssertionError("hand did not finish")
