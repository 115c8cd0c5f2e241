"""Poker tables on the controller: hands dealt card by card and acted through dealer commands,
pots and stacks, faults, refusals, restarts, the public feed's hidden cards, PHH export."""

from __future__ import annotations

import io
import random
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from drivers.card_reader import CardRead
from engine.cards import DECK
from engine.phh import parse_phh, parse_phhs, replay
from cli.phh import export_state
from firmware_host.service.controller import Controller
from firmware_host.service.journal import Journal
from firmware_host.tables.poker.table import PokerSetup, PokerTable
from tests.firmware_host.processes import CARD_TEXTS, Published, strings_in
from tests.firmware_host.rigs import JournalRig

HOLDEM = {"game": "holdem", "structure": "no-limit", "stakes": {"blinds": [1, 2]}, "seats": 6,
          "stacks": {"1": 200, "3": 200, "5": 100, "6": 50}}
STUD = {"game": "stud", "structure": "fixed-limit",
        "stakes": {"antes": 1, "bring_in": 2, "small_bet": 5, "big_bet": 10}, "seats": 8,
        "stacks": {"2": 100, "4": 100, "7": 100}}
DRAW = {"game": "five_card_draw", "structure": "fixed-limit",
        "stakes": {"blinds": [1, 2], "small_bet": 2, "big_bet": 4}, "seats": 6,
        "stacks": {"1": 50, "2": 50, "3": 50}}


class Rig(JournalRig):
    """A poker table's controller on a real journal (a feed when given); shoe readings numbered."""

    def __init__(self, path: Path, feed: Any = None) -> None:
        self.feed = feed
        self.seq = 0
        super().__init__(path)

    def controller_args(self) -> dict[str, Any]:
        return {"feed": self.feed}

    def act(self, seat: int, action: str, amount: int | None = None, **more: Any) -> dict[str, Any]:
        args = {"seat": seat, "action": action, **more}
        if amount is not None:
            args["amount"] = amount
        return self.ok("act", **args)

    def shoe(self, cards: str, source: str = "shoe") -> None:
        """Cards read by the shoe (or the discard reader), as the card reader reports them."""
        for card in cards.split():
            self.seq = (self.seq + 1) % 256
            self.c.handle_reading(CardRead(card, source, self.seq))

    def state(self) -> dict[str, Any]:
        return self.c.public_state()

    def full(self) -> dict[str, Any]:
        return self.c.full_state()

    def spot(self, seat: int, full: bool = False) -> dict[str, Any]:
        return next(s for s in (self.full() if full else self.state())["spots"] if s["seat"] == seat)


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    r = Rig(tmp_path)
    yield r
    r.c.journal.close()


# -- one hand of each family, to the end ------------------------------------------------------------

HOLDEM_HOLE = "2c As Kd Qh 6c Ad Kc Qs 6d"   # burn, then s1 s3 s5 s6 twice (button 6)
HOLDEM_BOARD = "3d 7h 8c 9d 4s Jc 5h 2d"      # burn flop, burn turn, burn river


def holdem_preflop(r: Rig) -> None:
    r.ok("open", **HOLDEM)
    r.ok("deal")
    state = r.state()
    assert state["button"] == 6 and state["to_act"] is None and state["next"] == "burn"
    r.shoe(HOLDEM_HOLE)
    state = r.state()
    assert state["phase"] == "betting" and state["street"] == "preflop" and state["to_act"] == 5
    assert state["legal"]["call"] == 2 and state["legal"]["bet_or_raise"] == {
        "kind": "raise", "min_to": 4, "max_to": 100, "choices": None}
    assert all(set(s["cards"]) == {"??"} for s in state["spots"])
    r.act(5, "all_in")
    r.act(6, "fold")
    r.act(1, "raise", 200)


def test_holdem_hand_side_pot_showdown_and_the_next_button(rig: Rig) -> None:
    holdem_preflop(rig)
    rig.act(3, "call")
    state = rig.state()
    assert state["phase"] == "dealing" and state["street"] == "flop" and state["next"] == "burn"
    assert state["pots"] == [{"amount": 300, "eligible": [1, 3, 5]}, {"amount": 200, "eligible": [1, 3]}]
    rig.shoe(HOLDEM_BOARD)
    state = rig.state()
    assert state["board"] == ["7h", "8c", "9d", "Jc", "2d"]
    assert state["phase"] == "showdown" and state["to_act"] == 1
    assert "3d" not in repr(state) and "2c" not in repr(state)   # burns never on the public feed
    assert rig.full()["burns"] == ["2c", "3d", "4s", "5h"]
    rig.act(1, "show")
    assert rig.spot(1)["cards"] == ["As", "Ad"] and rig.spot(3)["cards"] == ["??", "??"]
    rig.act(3, "muck")
    rig.act(5, "show")
    state = rig.state()
    assert state["phase"] == "over" and state["to_act"] is None
    assert rig.spot(3)["cards"] == ["??", "??"]           # mucked: never shown
    assert rig.spot(5)["cards"] == ["Qh", "Qs"] and rig.spot(5)["hand_name"].startswith("Pair")
    res = state["results"]
    assert res["pots"] == [   # seat 3 mucked: no longer eligible
        {"amount": 300, "eligible": [1, 5], "winners": [{"seat": 1, "amount": 300, "half": "all"}]},
        {"amount": 200, "eligible": [1], "winners": [{"seat": 1, "amount": 200, "half": "all"}]}]
    assert {x["seat"]: x["net"] for x in res["net"]} == {1: 300, 3: -200, 5: -100, 6: 0}
    assert sum(x["net"] for x in res["net"]) == 0
    assert {s["seat"]: s["stack"] for s in state["spots"]} == {1: 500, 3: 0, 5: 0, 6: 50}
    rig.ok("confirm")
    rec = rig.c.journal.hands()[0].record
    assert rec["status"] == "settled" and rec["poker"] and rec["session"]["seats"]["1"]["stack"] == 500
    assert [d for d in rec["deals"][:3]] == [["burn", "2c"], ["seat 1", "As"], ["seat 3", "Kd"]]
    # the next hand: seats 3 and 5 are broke, the button moves on to seat 1 (heads-up: it posts the small blind)
    rig.ok("deal")
    state = rig.state()
    assert state["hand"] == 2 and state["button"] == 1
    assert {s["seat"]: (s["in_hand"], s["bets"].get("bet")) for s in state["spots"]} == {
        1: (True, 1), 3: (False, None), 5: (False, None), 6: (True, 2)}


def test_pots_before_the_flop_have_eligible_seats(rig: Rig) -> None:
    holdem_preflop(rig)
    rig.act(3, "call")
    pots = rig.state()["pots"]
    assert pots == [{"amount": 300, "eligible": [1, 3, 5]}, {"amount": 200, "eligible": [1, 3]}]


STUD_THIRD = "Tc Qs 7s Kc Qd 7d Ks 9h 3c Kd"   # burn, two down and one up to s2 s4 s7 (button 7)


def test_stud_hand_up_cards_public_bring_in_open_pair(rig: Rig) -> None:
    rig.ok("open", **STUD)
    rig.shoe(STUD_THIRD)  # the first card starts the hand
    state = rig.state()
    assert state["phase"] == "bring_in" and state["to_act"] == 4 and state["legal"]["bring_in"] == 2
    assert rig.spot(2)["cards"] == ["??", "??", "9h"] and rig.spot(4)["cards"] == ["??", "??", "3c"]
    assert rig.spot(2, full=True)["cards"] == ["Qs", "Qd", "9h"]
    rig.act(4, "bring_in")
    rig.act(7, "complete", 5)
    rig.act(2, "call")
    rig.act(4, "call")
    rig.shoe("Td 9c 5d 2h")
    assert rig.state()["to_act"] == 2   # the open pair of nines acts first, and may bet the big bet
    assert rig.state()["legal"]["bet_or_raise"]["choices"] == [5, 10]
    rig.act(2, "bet", 10)
    rig.act(4, "fold")
    rig.act(7, "call")
    rig.shoe("Th Jd 4s")
    rig.act(2, "check")
    rig.act(7, "check")
    rig.shoe("Ts 2s 8c")
    rig.act(2, "check")
    rig.act(7, "bet", 10)
    rig.act(2, "call")
    rig.shoe("6h Ah Kh")
    assert rig.spot(7)["cards"] == ["??", "??", "Kd", "2h", "4s", "8c", "??"]
    rig.act(2, "check")
    rig.act(7, "check")
    rig.act(2, "show")
    rig.act(7, "show")
    state = rig.state()
    assert state["phase"] == "over"
    assert {s["seat"]: s["stack"] for s in state["spots"]} == {2: 74, 4: 94, 7: 132}
    assert rig.spot(7)["hand_name"].startswith("Four")
    assert state["results"]["pots"] == [{"amount": 58, "eligible": [2, 7],
                                         "winners": [{"seat": 7, "amount": 58, "half": "all"}]}]
    rig.ok("confirm")
    assert rig.c.journal.hands()[0].record["burns"] == ["Tc", "Td", "Th", "Ts", "6h"]


def test_draw_hand_discards_replacements_and_the_discard_reader(rig: Rig) -> None:
    rig.ok("open", **DRAW)
    rig.ok("deal")
    rig.shoe("2c Ah Kh Qh Ad Kd Qd 7c Kc 3s 8d 5s 4s 9s 5h 6d")
    assert rig.state()["to_act"] == 3
    rig.act(3, "call")
    rig.act(1, "call")
    rig.act(2, "check")
    state = rig.state()
    assert state["phase"] == "drawing" and state["to_act"] == 1 and state["legal"]["draw"]
    refused = rig.cmd("act", seat=1, action="draw", cards=["Kh"])
    assert not refused["ok"] and "not in the hand" in refused["error"]
    rig.act(1, "draw", cards=["7c", "8d"])
    assert rig.state()["next"] == "burn"
    rig.shoe("7c 8d", source="discard")   # the discards go through the discard reader
    rig.shoe("3c Ac 9d")
    rig.act(2, "stand_pat")
    rig.act(3, "draw", cards=["3s"])
    rig.shoe("4d")
    assert rig.state()["street"] == "draw" and rig.state()["to_act"] == 1
    rig.act(1, "check")
    rig.act(2, "bet", 4)
    rig.act(3, "fold")
    rig.act(1, "call")
    assert rig.state()["to_act"] == 2   # the last aggressor shows first
    rig.act(2, "show")
    rig.act(1, "show")
    state = rig.state()
    assert {s["seat"]: s["stack"] for s in state["spots"]} == {1: 58, 2: 44, 3: 48}
    assert rig.spot(1)["cards"] == ["Ah", "Ad", "9s", "Ac", "9d"]
    assert rig.spot(3)["cards"] == ["??"] * 5
    assert rig.full()["discards"] == ["7c", "8d"]
    rig.ok("confirm")
    rec = rig.c.journal.hands()[0].record
    assert rec["discards"] == ["7c", "8d"] and ["seat 1 draw", "Ac"] in rec["deals"]


# -- faults and refusals ----------------------------------------------------------------------------

def test_card_out_of_turn_and_duplicate_card_are_faults(rig: Rig) -> None:
    rig.ok("open", **HOLDEM)
    rig.ok("deal")
    rig.shoe(HOLDEM_HOLE)
    rig.shoe("Jh")   # the shoe gives a card while seat 5 must act
    fault = rig.state()["fault"]
    assert fault["kind"] == "unexpected_card" and "detail" not in fault
    assert "Jh" in rig.full()["fault"]["detail"]
    refused = rig.cmd("act", seat=5, action="call")
    assert refused["code"] == "fault"
    restarted = rig.restart()
    assert restarted.fault is not None and restarted.fault.kind == "unexpected_card"
    rig.ok("clear", reason="card put back")
    rig.act(5, "call")
    rig.act(6, "fold")
    rig.act(1, "call")
    rig.act(3, "check")
    rig.shoe("3d 7h 8c")
    rig.shoe("As")   # already in seat 1's hand
    assert rig.state()["fault"]["kind"] == "duplicate_card"
    assert rig.state()["board"] == ["7h", "8c"]
    rig.ok("clear", reason="foreign card removed")
    rig.shoe("9d")
    assert rig.state()["board"] == ["7h", "8c", "9d"] and rig.state()["to_act"] == 1
    rec_faults = rig.c.table.faults  # type: ignore[union-attr]
    assert [f["kind"] for f in rec_faults] == ["unexpected_card", "duplicate_card"]


def test_confirm_before_the_end_and_a_card_after_it(rig: Rig) -> None:
    rig.ok("open", **HOLDEM)
    rig.ok("deal")
    rig.shoe("2c As Kd")
    rig.ok("confirm")   # the dealer calls it while cards are still expected: too few cards
    assert rig.state()["fault"]["kind"] == "card_count"
    rig.ok("clear", reason="miscounted", then="void")
    assert rig.c.journal.hands()[0].status == "voided"
    state = rig.state()
    assert state["hand"] == 2 and state["phase"] == "waiting"
    assert {s["seat"]: s["stack"] for s in state["spots"]} == {1: 200, 3: 200, 5: 100, 6: 50}


def test_illegal_actions_are_refused_with_the_reason_and_change_nothing(rig: Rig) -> None:
    holdem_preflop(rig)
    before_events = sum(1 for _ in rig.c.journal.events())
    before = (rig.state(), rig.full())
    cases = [
        ({"seat": 1, "action": "call"}, "out of turn"),
        ({"seat": 3, "action": "check"}, "faces a bet"),
        ({"seat": 3, "action": "raise", "amount": 250}, "not enough chips to raise"),
        ({"seat": 3, "action": "bet", "amount": 300}, "may not bet or raise"),
        ({"seat": 3, "action": "draw", "cards": ["As"]}, "not now"),
    ]
    for args, words in cases:
        reply = rig.cmd("act", **args)
        assert reply["ok"] is False and reply["code"] == "illegal" and words in reply["error"], reply
    for cmd, args, words in [("seat", {"seat": 2, "action": "join", "amount": 100}, "between hands"),
                             ("deal", {}, "already dealt"), ("bet", {"seat": 1, "bets": {"ante": 5}}, "not bet"),
                             ("open", {"game": "uth"}, "in progress")]:
        reply = rig.cmd(cmd, **args)
        assert reply["ok"] is False and words in reply["error"], reply
    assert (rig.state(), rig.full()) == before
    assert sum(1 for _ in rig.c.journal.events()) == before_events


def test_seats_between_hands_and_a_restart_keeps_the_stacks(rig: Rig) -> None:
    rig.ok("open", game="holdem", structure="pot-limit", stakes={"blinds": [1, 2]}, seats=6,
           stacks={"2": 100, "4": 100})
    rig.ok("seat", seat=5, action="join", amount=80)
    refused = rig.cmd("seat", seat=4, action="join", amount=80)
    assert "taken" in refused["error"]
    rig.ok("deal")
    assert rig.state()["button"] == 5
    rig.shoe("2c As Kd Qh Ad Kc Qs")
    rig.act(2, "fold") if rig.state()["to_act"] == 2 else None
    # pot limit: seat 2 (first after the big blind, heads to seat 2 only when three play)
    while rig.state()["phase"] == "betting":
        seat = rig.state()["to_act"]
        legal = rig.state()["legal"]
        rig.act(seat, "fold" if legal["fold"] else "check")
    assert rig.state()["phase"] == "over"
    rig.ok("confirm")
    stacks = {s["seat"]: s["stack"] for s in rig.state()["spots"]}
    assert sum(stacks.values()) == 280
    rig.restart()
    assert {s["seat"]: s["stack"] for s in rig.state()["spots"]} == stacks
    rig.ok("seat", seat=5, action="rebuy", amount=20)
    rig.ok("seat", seat=4, action="sit_out")
    rig.ok("seat", seat=2, action="leave")
    rig.restart()
    spots = {s["seat"]: s for s in rig.state()["spots"]}
    assert set(spots) == {4, 5} and spots[5]["stack"] == stacks[5] + 20 and spots[4]["sitting_out"]
    refused = rig.cmd("deal")
    assert refused["ok"] is False and "two players" in refused["error"]
    rig.ok("seat", seat=4, action="sit_in")
    rig.ok("deal")
    assert rig.state()["button"] == 4 and rig.state()["hand"] == 2


def test_chop_by_agreement(rig: Rig) -> None:
    holdem_preflop(rig)
    rig.act(3, "call")
    rig.shoe("3d 7h 8c 9d")
    rig.ok("chop")
    state = rig.state()
    assert state["phase"] == "over" and state["results"]["chopped"]
    # main pot 300 (seats 1, 3, 5) and side pot 200 (seats 1, 3), each split evenly
    assert {s["seat"]: s["stack"] for s in state["spots"]} == {1: 100 + 100, 3: 100 + 100, 5: 100, 6: 50}
    assert all(set(s["cards"]) <= {"??"} for s in state["spots"])
    assert state["results"]["pots"][0]["winners"] == [{"seat": 1, "amount": 100, "half": "chop"},
                                                      {"seat": 3, "amount": 100, "half": "chop"},
                                                      {"seat": 5, "amount": 100, "half": "chop"}]
    assert rig.cmd("act", seat=1, action="check")["error"] == "the hand is over"
    rig.ok("confirm")
    rig.ok("deal")
    assert {s["seat"]: s["stack"] for s in rig.state()["spots"] if not s["in_hand"]} == {}
    # a chop by shares while the hole cards are dealt: the blinds (seats 3 and 5) take theirs back
    rig.shoe("2c As Kd Qh Ad")
    refused = rig.cmd("chop", shares={"3": 2, "5": 2})
    assert refused["ok"] is False and "the pot to share is 2" in refused["error"]
    rig.ok("chop", shares={"3": 1, "5": 1})
    assert {s["seat"]: s["stack"] for s in rig.state()["spots"]} == {1: 200, 3: 200, 5: 100, 6: 50}
    rig.ok("confirm")
    assert [r.record["chopped"] for r in rig.c.journal.hands()] == [True, True]
    out = io.StringIO()
    assert export_state(str(rig.path), 0, 1, False, out) == 0
    history = parse_phh(out.getvalue())   # PHH has no chop: the table's stacks, marked
    assert dict(history.extra)["chopped"] is True and list(history.finishing_stacks or ()) == [200, 200, 100, 50]


# -- restarts -------------------------------------------------------------------------------------

def test_restart_at_every_step_rebuilds_the_same_state(rig: Rig) -> None:
    steps: list[Any] = [lambda: rig.ok("open", **HOLDEM), lambda: rig.ok("deal")]
    steps += [lambda card=card: rig.shoe(card) for card in HOLDEM_HOLE.split()]
    steps += [lambda: rig.act(5, "call"), lambda: rig.act(6, "fold"), lambda: rig.act(1, "raise", 10),
              lambda: rig.act(3, "call"), lambda: rig.act(5, "call")]
    steps += [lambda card=card: rig.shoe(card) for card in "3d 7h 8c 9d".split()]
    steps += [lambda: rig.act(1, "bet", 20), lambda: rig.act(3, "fold"), lambda: rig.act(5, "call")]
    steps += [lambda card=card: rig.shoe(card) for card in "4s Jc".split()]
    steps += [lambda: rig.act(1, "check"), lambda: rig.act(5, "check")]
    steps += [lambda card=card: rig.shoe(card) for card in "5h 2d".split()]
    steps += [lambda: rig.act(1, "check"), lambda: rig.act(5, "check"), lambda: rig.act(1, "show"),
              lambda: rig.act(5, "show"), lambda: rig.ok("confirm"), lambda: rig.ok("deal")]
    for step in steps:
        step()
        before = (rig.state(), rig.full())
        rig.restart()
        assert (rig.state(), rig.full()) == before  # a settled hand stays on show, as before the restart
    assert rig.state()["hand"] == 2 and rig.state()["button"] == 1


# -- the public feed never shows a hidden card -----------------------------------------------------

GAMES = [
    {"game": "holdem", "structure": "no-limit", "stakes": {"blinds": [1, 2]}},
    {"game": "omaha_hilo8", "structure": "pot-limit", "stakes": {"blinds": [1, 2]}},
    {"game": "stud", "structure": "fixed-limit", "stakes": {"antes": 1, "bring_in": 2, "small_bet": 5,
                                                            "big_bet": 10}},
    {"game": "razz", "structure": "fixed-limit", "stakes": {"antes": 1, "bring_in": 2, "small_bet": 5,
                                                            "big_bet": 10}},
    {"game": "deuce_seven_triple", "structure": "fixed-limit", "stakes": {"blinds": [1, 2], "small_bet": 2,
                                                                         "big_bet": 4}},
    {"game": "badugi", "structure": "fixed-limit", "stakes": {"blinds": [1, 2], "small_bet": 2, "big_bet": 4}},
    {"game": "omaha", "structure": "spread-limit", "stakes": {"blinds": [1, 2], "min_bet": 2, "max_bet": 10}},
    {"game": "stud_hilo8", "structure": "fixed-limit", "stakes": {"antes": 1, "bring_in": 2, "small_bet": 5,
                                                                 "big_bet": 10, "raise_cap": 4}},
    {"game": "deuce_seven_single", "structure": "no-limit", "stakes": {"blinds": [1, 2], "antes": 1}},
]
HANDS_PER_GAME = 25



def check_public(public: dict[str, Any], full: dict[str, Any], shown_by_hand: dict[int, set[str]],
                 checked_past: list[Any]) -> None:
    """Only the board, up cards and cards shown at showdown appear on the public state; the last
    hands (`history`) show only cards that hand showed on the public view (`shown_by_hand`, filled
    here; a past hand already checked, the same in `checked_past`, is not read again)."""
    assert not {"burns", "discards", "mucked", "ignored", "devices", "sensors"} & set(public)
    visible = set(full["board"])
    for pub, spot in zip(public["spots"], full["spots"], strict=True):
        assert pub["seat"] == spot["seat"] and len(pub["cards"]) == len(spot["cards"])
        for i, (p, f) in enumerate(zip(pub["cards"], spot["cards"])):
            if spot["up"][i] or spot.get("shown") or spot.get("revealed"):
                assert p == f
                visible.add(f)
            else:
                assert p == "??", f"seat {spot['seat']}'s down card {f} on the public view"
    shown_by_hand.setdefault(public["hand"], set()).update(visible)
    for text in strings_in({k: v for k, v in public.items() if k != "history"}):
        if text in CARD_TEXTS:
            assert text in visible, f"{text} leaked"
    for past in public.get("history") or []:
        if past in checked_past:
            continue
        shown = shown_by_hand.get(past["hand"], set())
        for text in strings_in(past):
            if text in CARD_TEXTS:
                assert text in shown, f"{text} of past hand {past['hand']} leaked"
        checked_past.append(past)
    if public.get("fault") is not None:
        assert "detail" not in public["fault"]


def play_random_hand(r: Rig, rng: random.Random, check: Any) -> None:
    deck = [str(c) for c in DECK]
    rng.shuffle(deck)
    r.ok("deal")
    check()
    while True:
        state, full = r.c.states()
        if state["phase"] == "over":
            break
        dealt = [c for spot in full["spots"] for c in spot["cards"]] + full["board"]
        if rng.random() < 0.02 and (dealt or state["next"] is None):  # out of turn, or a duplicate
            r.shoe(rng.choice(dealt) if state["next"] is not None else deck[0])
            check()
            assert r.state()["fault"] is not None
            r.ok("clear", reason="stray card")
            continue
        if state["next"] is not None:
            r.shoe(deck.pop())
        else:
            seat, legal = state["to_act"], state["legal"]
            spot = next(s for s in full["spots"] if s["seat"] == seat)
            if legal["draw"]:
                keep = rng.randint(0, len(spot["cards"]))
                r.act(seat, "draw", cards=spot["cards"][keep:]) if keep < len(spot["cards"]) else \
                    r.act(seat, "stand_pat")
            elif legal["show"]:
                r.act(seat, "muck" if legal["muck"] and rng.random() < 0.3 else "show")
            else:
                options = ["call", "check", "all_in", "bring_in"] + ["fold"] * 2
                rng.shuffle(options)
                rng_raise = legal["bet_or_raise"]
                if rng_raise is not None and rng.random() < 0.3:
                    choices = rng_raise["choices"] or [rng_raise["min_to"], rng_raise["max_to"]]
                    r.act(seat, rng_raise["kind"], rng.choice(choices))
                else:
                    for option in options:
                        ok = (option == "call" and legal["call"] is not None) or \
                            (option == "check" and legal["check"]) or (option == "fold" and legal["fold"]) or \
                            (option == "all_in" and legal["all_in"] is not None and rng.random() < 0.1) or \
                            (option == "bring_in" and legal["bring_in"] is not None)
                        if ok:
                            r.act(seat, option)
                            break
                    else:
                        raise AssertionError(f"no action taken: {legal}")
        check()
    before = {s["seat"]: s["stack"] for s in r.full()["spots"]}
    r.ok("confirm")
    assert sum(before.values()) == sum(s["stack"] for s in r.state()["spots"])


def play_random_games(rig: Rig, rng: random.Random, games: list[dict[str, Any]], hands: int, check: Any) -> None:
    """`hands` random hands of each game in turn, broke players bought in again; `check()` after each step."""
    for game in games:
        players = rng.randint(2, 6)
        stacks = {str(s): rng.choice([30, 100, 400]) for s in rng.sample(range(1, 7), players)}
        rig.ok("open", **game, seats=6, stacks=stacks)
        for _ in range(hands):
            broke = [s["seat"] for s in rig.state()["spots"] if s["stack"] == 0]
            if len(rig.state()["spots"]) - len(broke) < 2:
                for seat in broke:
                    rig.ok("seat", seat=seat, action="rebuy", amount=100)
            total = sum(s["stack"] for s in rig.state()["spots"])
            play_random_hand(rig, rng, check)
            assert sum(s["stack"] for s in rig.state()["spots"]) == total


def in_memory(tmp_path: Path) -> Path:
    """A journal's folder in /dev/shm where there is one (the journal syncs every event), else in tmp_path."""
    shm = Path("/dev/shm")
    return Path(tempfile.mkdtemp(dir=shm, prefix="croupier-poker-")) if shm.is_dir() else tmp_path / "state"


def test_no_public_message_carries_a_hidden_card_over_random_hands(tmp_path: Path) -> None:
    """Every pair of views the controller publishes (the reducer's public and full views of each
    step) over 25 random hands of each game; the hands exported from the journal replay to the
    stacks paid. The same through the real feed, over fewer hands: the next test."""
    published = Published()
    rig = Rig(in_memory(tmp_path), published)
    rng = random.Random(20261129)
    shown_by_hand: dict[int, set[str]] = {}
    checked_past: list[Any] = []
    seen = 0

    def check() -> None:
        nonlocal seen
        for public, full in published.views[seen:]:
            check_public(public, full, shown_by_hand, checked_past)
        seen = len(published.views)
        assert tuple(published.rebuilt) == rig.c.states()  # the feed's changes rebuild exactly what the table shows

    try:
        play_random_games(rig, rng, GAMES, HANDS_PER_GAME, check)
        check()  # what the last confirm published
        assert seen > 2000
        # every hand exported from the journal replays (strictly) to the stacks the table paid
        out = io.StringIO()
        assert export_state(str(rig.path), 0, None, True, out) == 0
        rows = [r for r in rig.c.journal.hands() if r.status == "settled"]
        histories = parse_phhs(out.getvalue())
        assert len(histories) == len(rows) == HANDS_PER_GAME * len(GAMES)
        for row, history in zip(rows, histories, strict=True):
            assert not isinstance(history, Exception), history
            finals = replay(history)
            nets = {x["seat"]: x["net"] for x in row.record["results"]["net"]}
            starts = {int(s): c for s, c in row.record["stacks"].items()}
            seats = dict(history.extra)["seats"]
            assert list(finals) == [starts[s] + nets[s] for s in seats]
            assert list(history.finishing_stacks or ()) == list(finals)
    finally:
        rig.c.journal.close()
        if rig.path.parent != tmp_path:
            shutil.rmtree(rig.path, ignore_errors=True)


def test_no_message_on_the_real_public_feed_carries_a_hidden_card(tmp_path: Path) -> None:
    """The one run through ZeroMQ: every message the feed publishes (public and full, in step) over a
    few random hands of a board game, a stud game and a draw game, and a late joiner's snapshots."""
    import zmq

    from protocol.feed import Feed, apply_changes, pack, unpack

    ctx: zmq.Context[Any] = zmq.Context()
    feed = Feed(ctx, "prop", public="inproc://pub", snapshot="inproc://snap", full="inproc://full",
                full_snapshot="inproc://fullsnap")
    subs = []
    for ep in ("inproc://pub", "inproc://full"):
        sub = ctx.socket(zmq.SUB)
        sub.setsockopt(zmq.RCVHWM, 0)
        sub.setsockopt(zmq.SUBSCRIBE, b"")
        sub.connect(ep)  # inproc: the subscription is in the XPUB's pipe before the first message goes
        subs.append(sub)
    rig = Rig(in_memory(tmp_path), feed)
    rng = random.Random(20261203)
    shown_by_hand: dict[int, set[str]] = {}
    checked_past: list[Any] = []
    seen = snapshots = 0

    states: list[dict[str, Any]] = [{}, {}]  # the public and the full state as their changes rebuild them

    def rebuilt(message: dict[str, Any], which: int) -> dict[str, Any]:
        """The whole state after a step (every value a public step sent is in it: checked whole)."""
        if message["kind"] != "changes":
            return message
        states[which] = apply_changes(states[which], message)
        return {**{k: message[k] for k in ("table", "boot", "seq", "kind")}, **states[which]}

    def check() -> None:
        """Every message published since the last check, and now and then a late joiner's snapshot."""
        nonlocal seen, snapshots
        while subs[0].poll(0):
            public, full = rebuilt(unpack(subs[0].recv()), 0), rebuilt(unpack(subs[1].recv()), 1)
            assert public["seq"] == full["seq"] and public["table"] == full["table"] == "prop"
            check_public(public, full, shown_by_hand, checked_past)
            seen += 1
        assert (states[0], states[1]) == rig.c.states()  # the changes rebuild exactly what the table shows
        if rng.random() < 0.05:
            client = ctx.socket(zmq.DEALER)
            client.connect("inproc://snap")
            client.send(pack({"want": "snapshot"}))
            feed.serve_snapshots(feed.snap)
            check_public(unpack(client.recv()), rig.full(), shown_by_hand, checked_past)
            snapshots += 1
            client.close(0)

    try:
        games = [g for g in GAMES if g["game"] in ("omaha_hilo8", "stud", "deuce_seven_triple")]
        play_random_games(rig, rng, games, 4, check)
        check()  # what the last confirm published
        assert seen > 150 and snapshots > 2 and seen == feed.seq
    finally:
        rig.c.journal.close()
        if rig.path.parent != tmp_path:
            shutil.rmtree(rig.path, ignore_errors=True)
        feed.close()
        for sub in subs:
            sub.close(0)
        ctx.destroy(linger=0)


def test_phh_export_of_one_hand_replays_to_the_table_stacks(rig: Rig, tmp_path: Path) -> None:
    rig.ok("open", **STUD)
    rig.shoe(STUD_THIRD)
    rig.act(4, "bring_in")
    rig.act(7, "fold")
    rig.act(2, "call")
    rig.shoe("Td 9c 5d")
    for _ in range(20):
        state = rig.state()
        if state["phase"] == "over":
            break
        if state["next"]:
            rig.shoe(next(c for c in "Th Jd 4s Ts 2s 8c 6h Ah Kh 5s 6s".split()
                          if c not in repr(rig.full())))
        elif state["legal"]["show"]:
            rig.act(state["to_act"], "show")
        else:
            rig.act(state["to_act"], "check" if state["legal"]["check"] else "call")
    rig.ok("confirm")
    out = io.StringIO()
    assert export_state(str(rig.path), 0, 1, False, out) == 0
    history = parse_phh(out.getvalue())
    assert history.variant == "F7S" and dict(history.extra)["seats"] == [2, 4, 7]
    rec = rig.c.journal.hands()[0].record
    finals = {x["seat"]: int(rec["stacks"][str(x["seat"])]) + x["net"] for x in rec["results"]["net"]}
    assert list(replay(history)) == [finals[2], finals[4], finals[7]]
    assert export_state(str(rig.path), 0, 7, False, io.StringIO()) == 1


def test_setup_refuses_what_the_engine_would(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="fixed limit needs"):
        PokerSetup.from_body({"game": "stud", "structure": "fixed-limit", "stakes": {"antes": 1}})
    with pytest.raises(ValueError, match="seat 9"):
        PokerSetup.from_body({"game": "holdem", "structure": "no-limit", "stakes": {"blinds": [1, 2]},
                              "seats": 6, "stacks": {"9": 100}})


def test_history_shows_poker_hands_and_the_hand_in_progress(rig: Rig) -> None:
    import json

    from cli.history import history

    holdem_preflop(rig)
    rig.act(3, "call")
    rig.shoe(HOLDEM_BOARD)
    rig.act(1, "show")
    rig.act(3, "muck")
    rig.act(5, "show")
    rig.ok("confirm")
    rig.ok("deal")
    rig.shoe("2s Ks Qs")   # burn, then from the small blind: heads-up the button, seat 1 (docs/rules.md)
    out = io.StringIO()
    history(rig.c.journal, out, 10, False)
    text = out.getvalue()
    assert "hand 1  holdem no-limit (blinds [1, 2])  SETTLED  button seat 6" in text
    assert "  seat 1: As Ad  stack 200  net +300  shows Pair of aces" in text
    assert "  seat 3: Kd Kc  stack 200  net -200\n" in text   # mucked: nothing shown
    assert "  burns: 2c 3d 4s 5h" in text and "    seat 5 raise all in to 100" in text
    assert "    seat 3 calls 198 (all in)" in text
    assert "  main pot 300 (seats 1, 5): seat 1 300" in text and "  side pot 1 200 (seats 1): seat 1 200" in text
    assert "hand 2 IN PROGRESS  holdem  phase dealing" in text and "  seat 6: Qs  stack 48  in pot 2" in text
    out = io.StringIO()
    history(rig.c.journal, out, 10, True)
    line = json.loads(out.getvalue().splitlines()[0])
    assert line["hand"] == 1 and line["status"] == "settled" and line["hand_record"]["variant"] == "holdem"
    assert line["hand_record"]["events"][:3] == [["deal", "2c"], ["deal", "As"], ["deal", "Kd"]]


def test_configuration_opens_a_poker_table(tmp_path: Path) -> None:
    from firmware_host.service.config import Config
    from protocol.config import ConfigError

    cfg = Config.parse('[table]\ngame = "razz"\nseats = 8\n[poker]\nstructure = "fixed-limit"\nantes = 1\n'
                       'bring_in = 2\nsmall_bet = 5\nbig_bet = 10\nseated = [1, 4, 8]\nbuy_in = 300\n', "t.toml")
    setup = PokerSetup.from_body(cfg.poker.as_body(cfg.table.game or "", cfg.table.seats))
    c = Controller(Journal.open(tmp_path), default_setup=setup)  # type: ignore[arg-type]
    c.recover()
    state = c.public_state()
    assert state["game"] == "razz" and state["phase"] == "waiting"
    assert [(s["seat"], s["stack"]) for s in state["spots"]] == [(1, 300), (4, 300), (8, 300)]
    c.journal.close()
    for text, words in [('[table]\ngame = "stud"\n[poker]\nstructure = "fixed-limit"\nantes = 1\n',
                         "[poker] structure: fixed limit needs a small bet"),
                        ('[table]\ngame = "holdem"\nseats = 6\n[poker]\nblinds = [1, 2]\nseated = [7]\nbuy_in = 5\n',
                         "[poker] seated: stacks: seat 7"),
                        ('[table]\ngame = "holdem"\n[poker]\nblind = [1, 2]\n', "[poker] unknown key 'blind'"),
                        ('[table]\ngame = "uth"\nseats = 9\n', "[table] seats")]:
        with pytest.raises(ConfigError, match=r"t\.toml: " + words.replace("[", r"\[").replace("]", r"\]")):
            Config.parse(text, "t.toml")


def test_buttons_void_and_house_commands_at_a_poker_table(rig: Rig) -> None:
    from drivers.buttons import ButtonPress   # the reading the dealer panel posts

    rig.ok("open", **HOLDEM)
    rig.c.handle_reading(ButtonPress("next"))
    assert rig.state()["phase"] == "dealing" and rig.state()["button"] == 6
    rig.shoe(HOLDEM_HOLE)
    rig.act(5, "raise", 10)
    rig.ok("void", reason="misdeal")
    state = rig.state()
    assert state["hand"] == 2 and state["phase"] == "waiting"
    assert {s["seat"]: s["stack"] for s in state["spots"]} == {1: 200, 3: 200, 5: 100, 6: 50}
    rig.ok("deal")
    assert rig.state()["button"] == 6   # a voided hand is dealt again with the same button
    refused = rig.cmd("decide", seat=1, decision="check")
    assert refused["ok"] is False and "act" in refused["error"]
    rig.shoe(HOLDEM_HOLE)
    for seat in (5, 6, 1):
        rig.act(seat, "fold")
    assert rig.state()["phase"] == "over" and rig.state()["results"]["showdown"] is False
    rig.c.handle_reading(ButtonPress("confirm"))
    assert [(h.hand, h.status) for h in rig.c.journal.hands()] == [(1, "voided"), (2, "settled")]
    assert {s["seat"]: s["stack"] for s in rig.state()["spots"]} == {1: 199, 3: 201, 5: 100, 6: 50}
    rig.ok("open", game="uth", limits={"minimum": 100})
    refused = rig.cmd("act", seat=1, action="fold")
    assert refused["ok"] is False and "bet, correct and decide" in refused["error"]
    assert rig.cmd("chop")["ok"] is False and rig.cmd("seat", seat=1, action="sit_out")["ok"] is False


def test_phh_export_from_the_command_line_replays_with_check(rig: Rig, tmp_path: Path) -> None:
    import json
    import subprocess
    import sys

    test_draw_hand_discards_replacements_and_the_discard_reader(rig)
    cli = [sys.executable, "-m", "cli", "phh"]
    exported = subprocess.run([*cli, "export", "--state", str(rig.path), "--last", "1"], capture_output=True,
                              text=True, timeout=60)
    assert exported.returncode == 0, exported.stderr
    assert 'variant = "F5CD"' in exported.stdout and "seats = [1, 2, 3]" in exported.stdout
    assert "p1 sd 7c8d" in exported.stdout
    path = tmp_path / "hand.phh"
    path.write_text(exported.stdout)
    replayed = subprocess.run([*cli, "replay", "--check", str(path)], capture_output=True, text=True, timeout=60)
    line = json.loads(replayed.stdout)
    assert replayed.returncode == 0 and line["matches"] is True and line["finishing_stacks"] == [58, 44, 48]
    missing = subprocess.run([*cli, "export", "--state", str(rig.path), "--hand", "9"], capture_output=True,
                             text=True, timeout=60)
    assert missing.returncode == 1 and "no settled poker hand 9" in missing.stderr


def test_watch_prints_a_poker_table(rig: Rig) -> None:
    from cli.watch import format_line, render_screen

    holdem_preflop(rig)
    message = {"table": "t", "boot": "b", "seq": 1, "kind": "update", **rig.state()}
    line = format_line(message)
    assert "game=holdem phase=betting" in line
    assert "seat1=[?? ??] bet=EUR 2.00,in_pot=EUR 2.00 stack=EUR " in line and "decision=raise to 200" in line
    assert "turn=[seat 3 to act]" in line  # the seat to act
    assert "seat 5  ?? ??" in render_screen(message) and "  turn    seat 3 to act" in render_screen(message)


def test_a_mixed_game_keeps_the_players_stacks_and_button(rig: Rig) -> None:
    holdem_preflop(rig)
    rig.act(3, "call")
    rig.shoe(HOLDEM_BOARD)
    for seat in (1, 3, 5):
        rig.act(seat, "show")
    rig.ok("confirm")
    rig.ok("seat", seat=6, action="sit_out")
    from protocol.commands import Malformed
    with pytest.raises(Malformed, match="keep_seats"):
        rig.cmd("open", game="razz", structure="fixed-limit", keep_seats=True, stacks={"1": 5})
    rig.ok("open", game="razz", structure="fixed-limit", keep_seats=True,
           stakes={"antes": 1, "bring_in": 2, "small_bet": 5, "big_bet": 10})
    rig.ok("seat", seat=2, action="join", amount=100)
    rig.restart()
    spots = {s["seat"]: (s["stack"], s["sitting_out"]) for s in rig.state()["spots"]}
    assert rig.state()["game"] == "razz" and spots == {1: (500, False), 2: (100, False), 6: (50, True)}
    rig.ok("deal")
    assert rig.state()["button"] == 1 and [s["seat"] for s in rig.state()["spots"] if s["in_hand"]] == [1, 2]
    assert rig.cmd("open", game="holdem", structure="no-limit", keep_seats=True,
                   stakes={"blinds": [1, 2]})["ok"] is False


def test_the_house_rake_as_a_table_setting(rig: Rig) -> None:
    """`rake` in the open (or `[poker] rake_bp / rake_cap` in the configuration): taken from the main
    pot first, at most the cap, none when the hand ends before the flop (no flop, no drop)."""
    from firmware_host.service.config import Config
    from protocol.config import ConfigError

    raked = {**HOLDEM, "rake": {"rate_bp": 500, "cap": 10}}
    rig.ok("open", **raked)
    rig.ok("deal")
    rig.shoe(HOLDEM_HOLE)
    rig.act(5, "all_in")
    rig.act(6, "fold")
    rig.act(1, "raise", 200)
    rig.act(3, "call")
    rig.shoe(HOLDEM_BOARD)
    rig.act(1, "show")
    rig.act(3, "muck")
    rig.act(5, "show")
    res = rig.state()["results"]
    assert res["rake"] == 10  # 5 % of 500 is 25: the cap, 10
    assert [p["amount"] for p in res["pots"]] == [290, 200]  # the rake comes out of the main pot
    nets = {x["seat"]: x["net"] for x in res["net"]}
    assert nets == {1: 290, 3: -200, 5: -100, 6: 0} and sum(nets.values()) + res["rake"] == 0
    rig.ok("confirm")
    rec = rig.c.journal.hands()[-1].record
    assert rec["results"]["rake"] == 10
    # exported as PHH, the rake rides in user fields and the record replays to the stacks paid
    out = io.StringIO()
    assert export_state(str(rig.path), 0, 1, False, out) == 0
    text = out.getvalue()
    assert "_rake_bp = 500\n" in text and "_rake_cap = 10\n" in text and "_rake_no_flop_no_drop = true\n" in text
    history = parse_phh(text)
    finals = {x["seat"]: int(rec["stacks"][str(x["seat"])]) + x["net"] for x in rec["results"]["net"]}
    seats = dict(history.extra)["seats"]
    assert list(replay(history)) == [finals[s] for s in seats] == list(history.finishing_stacks or ())
    assert parse_phh(history.dumps()) == history
    # the next hand ends before the flop: no flop, no drop
    rig.ok("deal")
    rig.shoe("2s Ks Qs 3h 4h")
    state = rig.state()
    rig.act(state["to_act"], "fold")
    res = rig.state()["results"]
    assert res["rake"] == 0 and sum(x["net"] for x in res["net"]) == 0
    rig.ok("confirm")
    shown = rig.state()
    assert shown["hand"] == 2 and shown["phase"] == "settled" and shown["results"]["rake"] == 0
    assert rig.restart().public_state() == shown and rig.c.hand == 3  # the rake survives the journal's replay
    # refused: a rake nobody could apply, a rake at a house game
    from protocol.commands import Malformed
    with pytest.raises(Malformed, match="open: rake: 20000 out of range"):
        rig.cmd("open", **{**HOLDEM, "rake": {"rate_bp": 20000, "cap": 10}})
    with pytest.raises(Malformed, match="open: rake: unknown key 'rate'"):
        rig.cmd("open", **{**HOLDEM, "rake": {"rate": 500, "cap": 10}})
    with pytest.raises(ValueError, match="rake: unknown key"):
        PokerSetup.from_body({**HOLDEM, "rake": {"rate_bp": 500, "cap": 10, "drop": 1}})
    house = rig.cmd("open", game="uth", limits={"minimum": 100}, rake={"rate_bp": 500, "cap": 10})
    assert house["ok"] is False and "not rake" in house["error"]
    cfg = Config.parse('[table]\ngame = "holdem"\n[poker]\nblinds = [1, 2]\nrake_bp = 500\nrake_cap = 300\n'
                       "no_flop_no_drop = false\n", "t.toml")
    assert cfg.poker.as_body("holdem", 9)["rake"] == {"rate_bp": 500, "cap": 300, "no_flop_no_drop": False}
    with pytest.raises(ConfigError, match=r"t\.toml: \[poker\] rake_cap: a rake of 500"):
        Config.parse('[table]\ngame = "holdem"\n[poker]\nblinds = [1, 2]\nrake_bp = 500\n', "t.toml")
    with pytest.raises(ConfigError, match=r"t\.toml: \[poker\] rake_bp: must be between 0 and 10000"):
        Config.parse('[table]\ngame = "holdem"\n[poker]\nblinds = [1, 2]\nrake_bp = 10001\nrake_cap = 5\n', "t.toml")


def test_the_tables_seats_are_the_engines_session_journaled_and_restored(rig: Rig) -> None:
    """One seat model: the poker table keeps its players in `engine.poker.Session` (seats numbered as
    the table numbers them); a closed hand journals `Session.to_dict()`, and a restart takes it back.
    A voided hand is dealt again with the same button, before and after a restart."""
    from engine.poker import Session
    rig.ok("open", **HOLDEM)
    table = rig.c.state.table
    assert isinstance(table, PokerTable) and isinstance(table.session, Session)
    assert sorted(table.session.players) == [1, 3, 5, 6] and table.session.size == 6
    rig.ok("deal")
    assert rig.state()["button"] == 6
    rig.shoe(HOLDEM_HOLE)
    rig.act(5, "call")
    rig.ok("void", reason="misdeal")
    rec = rig.c.journal.hands()[0].record
    assert rec["status"] == "voided" and rec["session"] == {
        "seats": {"1": {"stack": 200, "out": False}, "3": {"stack": 200, "out": False},
                  "5": {"stack": 100, "out": False}, "6": {"stack": 50, "out": False}}, "button": None}
    rig.ok("seat", seat=2, action="join", amount=80)
    rig.ok("seat", seat=3, action="sit_out")
    before = rig.c.state.table.session.to_dict()  # type: ignore[union-attr]
    rig.restart()
    assert rig.c.state.table.session.to_dict() == before  # type: ignore[union-attr]
    rig.ok("deal")
    assert rig.state()["button"] == 6  # the voided hand's button again
    assert [s["seat"] for s in rig.state()["spots"] if s["in_hand"]] == [1, 2, 5, 6]


def test_a_seats_act_is_of_this_street_only_and_clears_when_the_bets_go_to_the_middle(rig: Rig) -> None:
    """`act` is what the seat did on this street (the dealer's and the players' screens word it): the pre-flop's
    "calls 2" is gone once the flop is dealt, a fold and an all-in stay as the seat's status, the river's last
    act stays through the showdown until the seat shows; `decision` keeps the hand's last action (the logs')."""
    rig.ok("open", **HOLDEM)
    rig.ok("deal")
    rig.shoe(HOLDEM_HOLE)
    rig.act(5, "call")
    assert rig.spot(5)["act"] == {"action": "call", "amount": 2}
    for seat, action in ((6, "call"), (1, "call")):
        rig.act(seat, action)
    rig.act(3, "check")  # closes the pre-flop round: the bets go to the middle, the flop is expected
    state = rig.state()
    assert state["street"] == "flop" and state["phase"] == "dealing"
    assert [s["act"] for s in state["spots"]] == [None] * 4
    assert rig.spot(5)["decision"] == "calls 2"
    rig.shoe("3d 7h 8c 9d")
    rig.act(1, "bet", 4)
    rig.act(3, "call")
    rig.act(5, "fold")
    spots = {s["seat"]: s for s in rig.state()["spots"]}
    assert spots[1]["act"] == {"action": "bet", "amount": 4} and spots[3]["act"] == {"action": "call", "amount": 4}
    assert spots[5]["act"] == {"action": "fold"} and spots[6]["act"] is None and rig.state()["to_act"] == 6
    rig.restart()  # the journal played again: the same acts on the same street
    assert {s["seat"]: s["act"] for s in rig.state()["spots"]} == {s: spots[s]["act"] for s in spots}
    rig.act(6, "call")
    rig.shoe("4s Jc")  # the turn: the flop's acts clear, seat 5's fold stays as `folded`
    spots = {s["seat"]: s for s in rig.state()["spots"]}
    assert [spots[s]["act"] for s in (1, 3, 5, 6)] == [None] * 4 and spots[5]["folded"]
    for seat in (1, 3, 6):
        rig.act(seat, "check")
    rig.shoe("5h 2d")
    rig.act(1, "bet", 10)
    for seat in (3, 6):
        rig.act(seat, "call")
    state = rig.state()
    assert state["phase"] == "showdown" and state["to_act"] == 1  # the river's bettor shows first
    assert {s["seat"]: s["act"] for s in state["spots"]}[6] == {"action": "call", "amount": 10}
    rig.act(1, "show")
    assert rig.spot(1)["act"] == {"action": "show"} and rig.spot(3)["act"] == {"action": "call", "amount": 10}


def test_the_public_state_carries_each_seats_blinds_actions_and_shown_hand_as_data_and_the_last_hands(rig: Rig) -> None:
    """What the players' screen words itself (poker_sign.py): posted blinds, the last action as a record, the
    shown hand's category; the closed hand in `history` with its winners, its down cards still "??"."""
    holdem_preflop(rig)                 # blinds 1/2 by seats 1 and 3; 5 all in, 6 folds, 1 raises to 200
    state = rig.state()
    spots = {s["seat"]: s for s in state["spots"]}
    assert spots[1]["posted"] == {"small_blind": 1} and spots[3]["posted"] == {"big_blind": 2}
    assert spots[5]["act"] == {"action": "raise", "amount": 100, "all_in": True}
    assert spots[6]["act"] == {"action": "fold"} and spots[1]["act"] == {"action": "raise", "amount": 200, "all_in": True}
    assert spots[3]["act"] is None and spots[1]["drew"] == []
    rig.act(3, "call")
    rig.shoe(HOLDEM_BOARD)
    for seat in (1, 3, 5):
        rig.act(seat, "show")
    rig.ok("confirm")
    state = rig.state()
    shown = {s["seat"]: s["hand_values"] for s in state["spots"] if "hand_values" in s}
    assert set(shown) == {1, 3, 5} and all(v[0]["category"] and v[0]["ranks"] is None for v in shown.values())
    (past,) = state["history"]
    assert past["hand"] == 1 and past["poker"] and not past["voided"] and len(past["board"]) == 5
    assert [w["seat"] for pot in past["pots"] for w in pot["winners"]] == [
        w["seat"] for pot in state["results"]["pots"] for w in pot["winners"]]
    by_seat = {s["seat"]: s for s in past["spots"]}
    assert by_seat[6]["cards"] == ["??", "??"] and by_seat[6]["folded"]  # a folded hand stays down
    assert {s: v["net"] for s, v in by_seat.items()} == {x["seat"]: x["net"] for x in state["results"]["net"]}
    rig.restart()
    assert rig.state()["history"] == [past]   # journaled with the hand: a restart lists it again


def test_a_shown_hand_names_its_ranks_and_a_hi_lo_hand_without_a_low_says_so() -> None:
    """The poker screens' words as data (tables/poker/sign.py): a high hand with the ranks its name cites; a stud
    hi-lo hand whose low does not qualify carries `no_low` for its low (docs/rules.md: the high then takes the pot), one
    with a low its ranks."""
    from engine.cards import parse_cards
    from engine.poker.records import Shown
    from firmware_host.tables.poker.sign import seat_records

    no_low = Shown(1, tuple(parse_cards("Kh Kd 9s 9c 2d 3h Th")), (), ("high", "low8"))
    low = Shown(2, tuple(parse_cards("Ah 2c 4d 5s 8h Kd Kc")), (), ("high", "low8"))
    _, _, shown = seat_records([no_low, low])
    assert shown[1] == [{"category": "two_pair", "ranks": None, "named": ["K", "9"]},
                        {"category": "no_low", "ranks": None}]
    assert shown[2] == [{"category": "pair", "ranks": None, "named": ["K"]}, {"category": "low", "ranks": "8-5-4-2-A"}]
