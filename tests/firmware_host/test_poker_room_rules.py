"""A poker table's room rules on the controller: the tournament all-in reveal over the public feed,
missed blinds and the `post` / `wait` seat commands, the rules set at `open` and refused when unknown."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import zmq

from engine.phh import hand_from_record
from protocol.commands import Malformed
from protocol.feed import Feed, apply_changes, unpack
from tests.firmware_host.test_poker_table import Rig, rig  # noqa: F401 (the fixture)

REVEAL = {"game": "holdem", "structure": "no-limit", "stakes": {"blinds": [1, 2]}, "seats": 6,
          "stacks": {"1": 200, "3": 200, "5": 30}, "rules": {"all_in_reveal": True}}
# button 5 (the highest seat): small blind 1, big blind 3; burn, then seats 1 3 5 twice
HOLE = "2c As Kd Qh Ah Ks Qd"


@pytest.fixture
def fed(tmp_path: Path) -> Iterator[tuple[Rig, Any]]:
    """A poker table's controller publishing on a real ZeroMQ feed, and a subscriber to its public side."""
    ctx: zmq.Context[Any] = zmq.Context()
    feed = Feed(ctx, "room", public="inproc://room-pub", snapshot="inproc://room-snap", full="inproc://room-full",
                full_snapshot="inproc://room-fullsnap")
    sub = ctx.socket(zmq.SUB)
    sub.setsockopt(zmq.RCVHWM, 0)
    sub.setsockopt(zmq.SUBSCRIBE, b"")
    sub.connect("inproc://room-pub")
    shm = Path("/dev/shm")
    rig = Rig(Path(tempfile.mkdtemp(dir=shm, prefix="croupier-room-")) if shm.is_dir() else tmp_path, feed)
    yield rig, Rebuilt(sub)
    rig.c.journal.close()
    sub.close(0)
    feed.close()
    ctx.term()


class Rebuilt:
    """The public feed's subscriber and the state its changes rebuild (it hears every step from the first)."""

    def __init__(self, sub: Any) -> None:
        self.sub = sub
        self.state: dict[str, Any] = {}


def published(fed: Rebuilt) -> list[dict[str, Any]]:
    """The whole public state after each step published since the last call."""
    out = []
    while fed.sub.poll(0):
        message = unpack(fed.sub.recv())
        if message["kind"] == "changes":
            fed.state = apply_changes(fed.state, message)
            out.append(fed.state)
    return out


def cards_of(message: dict[str, Any], seat: int) -> list[str]:
    """The seat's cards on a published state (none before it is dealt in)."""
    return next((s["cards"] for s in message.get("spots") or () if s["seat"] == seat), [])


def test_the_all_in_reveal_shows_the_hands_on_the_public_feed_from_that_moment(fed: tuple[Rig, Any]) -> None:
    rig, sub = fed
    rig.ok("open", **REVEAL)
    rig.ok("deal")
    rig.shoe(HOLE)
    rig.act(5, "all_in")
    rig.act(1, "call")
    before = published(sub)
    assert before and all(set(cards_of(m, s)) <= {"??"} for m in before for s in (1, 3, 5))   # not before
    rig.act(3, "fold")            # nobody can bet any more: the hands still in are turned up
    now = published(sub)
    assert now and now[-1]["board"] == [] and now[-1]["next"] == "burn"     # before the flop
    assert cards_of(now[-1], 1) == ["As", "Ah"] and cards_of(now[-1], 5) == ["Qh", "Qd"]
    assert cards_of(now[-1], 3) == ["??", "??"]                             # the folded hand stays down
    rig.shoe("3d 7h 8c 9d")
    flop = published(sub)[-1]
    assert flop["board"] == ["7h", "8c", "9d"] and cards_of(flop, 5) == ["Qh", "Qd"]


def test_the_hands_turned_up_at_the_all_in_are_tabled_at_the_river_and_the_pots_pushed(rig: Rig) -> None:
    """The river dealt after the all-in reveal: the console asks nobody to show or muck; both hands are shown with
    their names, the pot decided, the hand waits for the dealer's confirm; a restart plays it again the same."""
    rig.ok("open", **REVEAL)
    rig.ok("deal")
    rig.shoe(HOLE)
    rig.act(5, "all_in")
    rig.act(1, "call")
    rig.act(3, "fold")
    rig.shoe("3d 7h 8c 9d 4s Jc 5h 2d")
    state = rig.state()
    assert state["phase"] == "over" and state["to_act"] is None and state["legal"] is None
    spots = {s["seat"]: s for s in state["spots"]}
    assert spots[1]["cards"] == ["As", "Ah"] and spots[5]["cards"] == ["Qh", "Qd"] and spots[3]["cards"] == ["??", "??"]
    assert spots[1]["hand_name"].startswith("Pair") and spots[5]["hand_name"].startswith("Pair")
    assert state["results"]["showdown"] and {x["seat"]: x["net"] for x in state["results"]["net"]} == {1: 32, 3: -2, 5: -30}
    rig.restart()
    assert rig.state()["results"] == state["results"] and rig.state()["phase"] == "over"
    rig.ok("confirm")
    record = rig.c.journal.hands()[0].record
    assert record["status"] == "settled" and record["hand_record"]["rules"]["all_in_reveal"] is True
    again = hand_from_record(record["hand_record"])  # the record alone plays the hand again, the rule with it
    assert again.result is not None and {s: again.result.final_stacks[s] for s in (1, 3, 5)} == {1: 232, 3: 198, 5: 0}


def test_a_cash_table_keeps_the_hands_down_in_the_same_hand(fed: tuple[Rig, Any]) -> None:
    rig, sub = fed
    rig.ok("open", **{**REVEAL, "rules": {}})
    rig.ok("deal")
    rig.shoe(HOLE)
    rig.act(5, "all_in")
    rig.act(1, "call")
    rig.act(3, "fold")
    rig.shoe("3d 7h 8c 9d")
    assert all(set(cards_of(m, s)) <= {"??"} for m in published(sub) for s in (1, 3, 5))


def fold_round(rig: Rig) -> None:
    """Deal the hand and fold to the last player; confirm."""
    rig.ok("deal")
    deck = iter(f"{r}{s}" for s in "cdhs" for r in "23456789TJQKA")
    while rig.state()["phase"] != "over":
        state = rig.state()
        if state["next"] is not None:
            rig.shoe(next(deck))
        else:
            rig.act(state["to_act"], "fold" if state["legal"]["fold"] else "check")
    rig.ok("confirm")


def test_missed_blinds_on_the_feed_and_the_post_and_wait_commands(fed: tuple[Rig, Any]) -> None:
    rig, _ = fed
    rig.ok("open", game="holdem", structure="no-limit", stakes={"blinds": [1, 2]}, seats=6,
           stacks={"1": 100, "2": 100, "3": 100, "4": 100})
    fold_round(rig)                                   # button 4, blinds 1 and 2
    rig.ok("seat", seat=3, action="sit_out")
    fold_round(rig)                                   # button 1, blinds 2 and 4: seat 3's big blind passes him
    assert rig.spot(3)["owes"] == "both" and not rig.spot(3)["waiting_for_big_blind"]
    rig.ok("seat", seat=3, action="wait")
    assert rig.spot(3)["waiting_for_big_blind"] and not rig.spot(3)["sitting_out"]
    rig.restart()                                     # the journal keeps who owes what
    assert rig.spot(3)["owes"] == "both" and rig.spot(3)["waiting_for_big_blind"]
    rig.ok("seat", seat=3, action="post")
    # the next hand (button 2, blinds 4 and 1) leaves him out, and the dealer is told why, before and after it
    assert rig.spot(3).get("waiting_for_button") is True and not rig.spot(3)["in_hand"]
    assert not any(rig.spot(s).get("waiting_for_button") for s in (1, 2, 4))
    fold_round(rig)                                   # button 2: seat 3 sits between it and the blinds
    assert rig.state()["phase"] == "settled" and rig.spot(3).get("waiting_for_button") is None  # dealt in next
    rig.ok("deal")                                    # button 4, blinds 1 and 2: he posts both
    spot = rig.spot(3)
    assert spot["in_hand"] and spot["bets"] == {"bet": 2, "in_pot": 3} and spot["owes"] is None
    assert rig.state()["total_pot"] == 6
    refused = rig.cmd("seat", seat=1, action="wait")
    assert refused["ok"] is False and "owes no blinds" in refused["error"]


def test_the_rules_are_set_at_open_and_unknown_ones_refused(fed: tuple[Rig, Any]) -> None:
    rig, _ = fed
    for rules, words in [({"button": "sideways"}, "rule button"), ({"straddle": True}, "unknown rule"),
                         ({"all_in_reveal": "yes"}, "rule all_in_reveal")]:
        with pytest.raises(Malformed, match=words):    # the command channel refuses it before the table
            rig.cmd("open", **{**REVEAL, "rules": rules})
    rig.ok("open", **{**REVEAL, "rules": {"button": "moving", "short_allin_rule": "simple"}})
    session = rig.c.state.need_table().session
    assert session.dead_button is False
    rig.ok("deal")
    assert rig.c.state.need_table().engine.settings.short_allin_rule == "simple"


def test_a_tournament_player_moved_in_owes_no_blind_and_a_reopened_table_moves_the_button_on(
        fed: tuple[Rig, Any]) -> None:
    rig, _ = fed
    rig.ok("open", game="holdem", structure="no-limit", stakes={"blinds": [1, 2]}, seats=6,
           stacks={"1": 100, "2": 100, "3": 100, "4": 100})
    fold_round(rig)                                   # button 4, blinds 1 and 2
    rig.ok("seat", seat=5, action="join", amount=100)      # a new player in a cash game owes a big blind
    rig.ok("seat", seat=6, action="move_in", amount=150)   # a player the director moved here owes none
    assert (rig.spot(5)["owes"], rig.spot(6)["owes"]) == ("big", None) and rig.spot(6)["stack"] == 150
    rig.ok("deal")                                    # button 1, blinds 2 and 3: seat 6 dealt in, posting nothing
    assert rig.spot(6)["in_hand"] and rig.spot(6)["bets"] == {"bet": 0, "in_pot": 0}
    refused = rig.cmd("seat", seat=6, action="move_in")
    assert refused["ok"] is False
    with pytest.raises(Malformed, match="keep_seats"):  # the seats carried over, or given: not both
        rig.cmd("open", game="holdem", structure="no-limit", keep_seats=True, last_button=2)
    deck = iter(f"{r}{s}" for s in "cdhs" for r in "23456789TJQKA")
    while rig.state()["phase"] != "over":
        state = rig.state()
        if state["next"] is not None:
            rig.shoe(next(deck))
        else:
            legal = state["legal"]
            rig.act(state["to_act"], "show" if legal["show"] else "fold" if legal["fold"] else "check")
    rig.ok("confirm")
    # a colour-up: the table opened again with the raced stacks; the button moves on from the last one
    rig.ok("open", game="holdem", structure="no-limit", stakes={"blinds": [1, 2]}, seats=6,
           stacks={"1": 25, "2": 25, "3": 25, "4": 25}, last_button=1)
    rig.ok("deal")
    assert rig.state()["button"] == 2


def test_a_busted_seat_owes_nothing_on_the_feed_until_it_rebuys_then_posts_what_it_missed(fed: tuple[Rig, Any]) -> None:
    """Found on the console: a busted seat (no chips, not dealt in) read "owes both blinds". docs/rules.md: a player who
    missed blinds while out of the hands posts both on returning; a seat without chips cannot return, so the feed
    says it owes nothing until it has chips again, then the blinds it missed (the rule kept: it posts both)."""
    rig, _ = fed
    rig.ok("open", game="holdem", structure="no-limit", stakes={"blinds": [1, 2]}, seats=6,
           stacks={"1": 100, "2": 100, "3": 2, "4": 100})
    rig.ok("deal")                                    # button 4, blinds 1 and 2; seat 3 first to act
    deck = iter("5c As Ad 2c 4d 7h 3c Ah 6d 5d 9s Tc Jh 5h 4h 5s 3s Kd".split())
    while rig.state()["phase"] != "over":
        state = rig.state()
        if state["next"] is not None:
            rig.shoe(next(deck))
        elif state["to_act"] == 3 and state["legal"]["all_in"]:
            rig.act(3, "all_in")                      # his last 2, against seat 2's aces
        else:
            legal = state["legal"]
            rig.act(state["to_act"], "show" if legal["show"] else "check" if legal["check"] else "fold")
    rig.ok("confirm")
    assert rig.spot(3)["stack"] == 0
    fold_round(rig)                                   # button 1, blinds 2 and 4: the big blind passes seat 3
    assert rig.c.state.need_table().session.players[3].owes == "both"  # the engine keeps what he missed
    busted = rig.spot(3)
    assert not busted["in_hand"] and busted["owes"] is None, busted  # ...but owes nothing while he has no chips
    rig.ok("seat", seat=3, action="rebuy", amount=100)
    assert rig.spot(3)["owes"] == "both"              # chips again: he owes what he missed, as a player sat out
    fold_round(rig)                                   # button 2, blinds 4 and 1: he sits between, left out
    assert rig.spot(3)["owes"] == "both"
    rig.ok("deal")                                    # button 4, blinds 1 and 2: he posts both
    spot = rig.spot(3)
    assert spot["in_hand"] and spot["bets"]["in_pot"] == 3 and spot["owes"] is None, spot
