"""The one redaction: whatever a full view holds, the public view derived from it shows no card the full view hides."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import redact
from engine.cards import DECK

CARDS = [str(c) for c in DECK]


@st.composite
def full_views(draw: st.DrawFn) -> dict[str, Any]:
    deck = draw(st.permutations(CARDS))
    taken = iter(deck)

    def hand() -> dict[str, Any]:
        n = draw(st.integers(0, 7))
        cards = [next(taken) for _ in range(n)]
        out: dict[str, Any] = {"seat": draw(st.integers(1, 10)), "cards": cards,
                               "visible": draw(st.lists(st.booleans(), min_size=n, max_size=n)),
                               "hand_name": draw(st.sampled_from([None, "Pair of aces", "Flush"]))}
        if draw(st.booleans()):  # a key nobody named: it must stay on the full view
            out["secret"] = next(taken)
        return out

    full: dict[str, Any] = {"game": "holdem", "phase": "dealing", "board": [next(taken) for _ in range(draw(st.integers(0, 5)))],
                            "dealer": hand(), "spots": [hand() for _ in range(draw(st.integers(0, 5)))],
                            "burns": [next(taken) for _ in range(draw(st.integers(0, 3)))],
                            "mucked": [next(taken) for _ in range(draw(st.integers(0, 2)))],
                            "discards": [next(taken) for _ in range(draw(st.integers(0, 2)))],
                            "fault": draw(st.sampled_from([None, {"kind": "misread", "message": "m", "event": 3,
                                                                  "detail": next(taken)}]))}
    if draw(st.booleans()):
        full["future_field"] = {"cards": [next(taken)]}
    # the player cards at the seats and the dealer signed in: the full feed's alone (firmware_host/tables/players.py)
    full["players"] = {str(seat): {"card": card, "source": "reader", "away": draw(st.booleans())}
                       for seat, card in draw(st.dictionaries(st.integers(1, 7), PLAYER_CARDS, max_size=7)).items()}
    full["dealer_signed_in"] = draw(st.sampled_from([None, "ana"]))
    return full


PLAYER_CARDS = st.text("0123456789ABCDEF", min_size=8, max_size=19)


def strings(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set().union(set(), *(strings(k) | strings(v) for k, v in value.items()))
    if isinstance(value, list):
        return set().union(set(), *(strings(v) for v in value))
    return {value} if isinstance(value, str) else set()


@settings(max_examples=300, deadline=None)
@given(full_views())
def test_the_public_view_shows_no_hidden_card(full: dict[str, Any]) -> None:
    """300 random full views in `make test`; 2,000 in `make soak` (below)."""
    _shows_no_hidden_card(full)


@pytest.mark.soak
@settings(max_examples=2000, deadline=None)
@given(full_views())
def test_the_public_view_shows_no_hidden_card_over_2000_views(full: dict[str, Any]) -> None:
    _shows_no_hidden_card(full)


def _shows_no_hidden_card(full: dict[str, Any]) -> None:
    public = redact.public(full)
    seen = strings(public)
    hidden = redact.hidden_cards(full)
    assert not seen & hidden
    # nothing but the board and the visible cards of each hand: no unnamed key, no fault detail
    visible = set(full["board"]) | {c for h in [full["dealer"], *full["spots"]]
                                    for c, v in zip(h["cards"], h["visible"]) if v}
    assert seen & set(CARDS) <= visible
    for p, f in zip(public["spots"], full["spots"], strict=True):
        assert p["cards"] == [c if v else "??" for c, v in zip(f["cards"], f["visible"])]
        assert p["hand_name"] == (f["hand_name"] if all(f["visible"]) else None)
        assert p["cards"] is not f["cards"]
    assert public["board"] == full["board"] and public["board"] is not full["board"]
    for sat in full["players"].values():  # a player card's number is never public, nor a part of it
        assert not any(sat["card"][-4:] in text for text in seen)
    assert "players" not in public and "dealer_signed_in" not in public


def test_a_hand_whose_flags_do_not_match_its_cards_is_not_redacted() -> None:
    with pytest.raises(ValueError, match="visible flags"):
        redact.public({"spots": [{"seat": 1, "cards": ["As", "Kd"], "visible": [True]}]})
    with pytest.raises(ValueError, match="visible flags"):  # no flags at all: never shown by default
        redact.public({"dealer": {"cards": ["As"]}})


def test_a_view_holding_an_enum_is_redacted_and_copied_whole() -> None:
    from enum import StrEnum

    class Phase(StrEnum):
        PREFLOP = "preflop"

    full = {"phase": Phase.PREFLOP, "board": ["As"], "spots": [{"seat": 1, "cards": ["Kd"], "visible": [True],
                                                               "bets": {"ante": 5}}]}
    public = redact.public(full)
    assert public == {"phase": "preflop", "board": ["As"], "spots": [{"seat": 1, "cards": ["Kd"], "bets": {"ante": 5}}]}
    assert public["board"] is not full["board"]
    assert public["spots"][0]["cards"] is not full["spots"][0]["cards"]
    assert public["spots"][0]["bets"] is not full["spots"][0]["bets"]


def test_nothing_of_the_public_view_is_shared_with_the_full_view() -> None:
    full = {"board": ["As"], "results": {"pots": [{"amount": 5, "winners": [1]}]},
            "spots": [{"seat": 1, "cards": ["Kd", "Qd"], "visible": [True, False], "bets": {"ante": 5},
                       "results": {"ante": 5}}]}
    public = redact.public(full)
    full["board"].append("2c")
    full["results"]["pots"][0]["winners"].append(2)
    full["spots"][0]["bets"]["ante"] = 7
    full["spots"][0]["results"]["ante"] = 0
    assert public == {"board": ["As"], "results": {"pots": [{"amount": 5, "winners": [1]}]},
                      "spots": [{"seat": 1, "cards": ["Kd", "??"], "bets": {"ante": 5}, "results": {"ante": 5}}]}


@settings(max_examples=300, deadline=None)
@given(full_views(), full_views(), st.lists(st.booleans(), min_size=8, max_size=8))
def test_the_redactor_keeps_the_public_form_of_unchanged_parts_alone(first: dict[str, Any], other: dict[str, Any],
                                                                    keep: list[bool]) -> None:
    """Step after step a `Redactor` gives what `public` gives: a part of the full view that is the very
    object of the view before (a hand, a list) keeps its public form of then; a part made anew is
    redacted anew, whatever the view before showed of the same seat."""
    redactor = redact.Redactor()
    before = redactor.public(first)
    assert before == redact.public(first)
    second = {key: first[key] if key in first and (keep[i % len(keep)] or key not in other) else other[key]
              for i, key in enumerate(dict.fromkeys([*first, *other]))}
    second["spots"] = [hand if keep[i % len(keep)] else {**hand, "cards": list(hand["cards"])}
                       for i, hand in enumerate(second.get("spots", []))]
    after = redactor.public(second)
    assert after == redact.public(second)
    spots_before = before.get("spots", [])
    for i, hand in enumerate(second["spots"]):
        if i < len(first.get("spots", [])) and first["spots"][i] is hand:
            assert after["spots"][i] is spots_before[i]
        elif i < len(spots_before):
            assert after["spots"][i] is not spots_before[i]
    assert (after["dealer"] is before["dealer"]) == (second["dealer"] is first["dealer"])
