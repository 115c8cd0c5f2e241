"""Every refusal a dealer meets from the console says what happened in the catalog's words (`say`), money as money."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pages.words import catalogs
from protocol.access import Caller
from protocol.commands import Command, Malformed
from protocol.config import SecurityConfig
from firmware_host.service.refusals import english
from protocol.users import User, Users
from firmware_host.tables.base import FAULT_SAYS
from firmware_host.tables.house.table import HouseSetup
from tests.firmware_host.rigs import JournalRig

ROOT = Path(__file__).resolve().parents[2]
FIELD = re.compile(r"\{([a-z_][a-z0-9_]*)\}")
UTH = HouseSetup("uth", "default", {"minimum": 500, "maximum": 10000, "side_minimum": 100, "side_maximum": 2500,
                                    "chip": 100}, 6)


class Rig(JournalRig):
    def __init__(self, path: Path, setup: HouseSetup = UTH) -> None:
        self.setup = setup
        Users({"ana": User.with_pin("ana", "supervisor", "2468"),
               "bo": User.with_pin("bo", "dealer", "1111")}).save(path / "users.json")
        super().__init__(path)

    def controller_args(self) -> dict[str, Any]:
        return {"default_setup": self.setup, "security": SecurityConfig(users=str(self.path / "users.json"))}

    def refused(self, cmd: str, key: str, caller: Caller | None = None, **args: Any) -> dict[str, Any]:
        """The refusal of `cmd`: its `say` has `key` and every field the catalogs' sentence names."""
        reply = self.c.handle_command(Command.from_mapping({"cmd": cmd, **args}), caller)
        assert reply["ok"] is False, reply
        return said(reply, key)


def said(reply: dict[str, Any], key: str) -> dict[str, Any]:
    say = reply["say"]
    assert say["key"] == key, reply
    for lang, words in catalogs().items():
        assert set(FIELD.findall(words[key])) <= set(say["args"]), (lang, key, say)
    return say


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    r = Rig(tmp_path)
    yield r
    r.c.journal.close()


def test_bets_out_of_the_limits_say_the_seat_the_circle_and_the_money(rig: Rig) -> None:
    say = rig.refused("bet", "refusal.below_minimum", seat=3, bets={"ante": 100, "blind": 100})
    assert say["args"] == {"seat": 3, "bet": {"word": "circle.ante"}, "amount": {"money": 100},
                           "minimum": {"money": 500}}
    assert english(say) == "Seat 3: the Ante EUR 1.00 is below the table minimum EUR 5.00"
    reply = rig.c.handle_command(Command.from_mapping({"cmd": "bet", "seat": 3, "bets": {"ante": 100, "blind": 100}}))
    assert reply["error"] == "Seat 3: the Ante EUR 1.00 is below the table minimum EUR 5.00"  # money, not cents
    rig.refused("bet", "refusal.above_maximum", seat=1, bets={"ante": 20000, "blind": 20000})
    rig.refused("bet", "refusal.below_side_minimum", seat=1, bets={"ante": 500, "blind": 500, "trips": 50})
    say = rig.refused("bet", "refusal.above_side_maximum", seat=1, bets={"ante": 500, "blind": 500, "trips": 5000})
    assert say["args"]["bet"] == {"word": "circle.trips"}
    rig.refused("bet", "refusal.not_chip_multiple", seat=1, bets={"ante": 550, "blind": 550})
    rig.refused("bet", "refusal.blind_equals_ante", seat=1, bets={"ante": 500, "blind": 600})
    rig.refused("bet", "refusal.bet_mandatory", seat=2, bets={"ante": 500})
    rig.refused("bet", "refusal.unknown_bet", seat=2, bets={"ante": 500, "blind": 500, "pair_plus": 100})
    rig.refused("bet", "refusal.no_such_seat", seat=7, bets={"ante": 500, "blind": 500})


def test_the_deal_and_decisions_out_of_turn_or_not_legal(rig: Rig) -> None:
    rig.refused("deal", "refusal.no_bets")
    rig.ok("bet", seat=1, bets={"ante": 500, "blind": 500})
    rig.ok("bet", seat=3, bets={"ante": 500, "blind": 500})
    rig.refused("decide", "refusal.no_decision_now", seat=1, decision="check")
    rig.refused("confirm", "refusal.nothing_to_confirm")
    for card in "As Kd Qh Ac Tc 9d".split():
        rig.ok("card", card=card)
    say = rig.refused("decide", "refusal.not_to_act", seat=3, decision="check")
    assert say["args"] == {"seat": 3, "to_act": 1}
    rig.refused("decide", "refusal.fold_only_at_river", seat=1, decision="fold")
    rig.refused("decide", "refusal.multiple_not_legal", seat=1, decision="play", multiple=2)
    rig.refused("decide", "refusal.multiple_needed", seat=1, decision="play")
    rig.refused("decide", "refusal.decision_no_multiple", seat=1, decision="check", multiple=4)
    rig.refused("decide", "refusal.no_spot", seat=2, decision="check")
    rig.refused("bet", "refusal.bets_closed", seat=2, bets={"ante": 500, "blind": 500})
    rig.refused("deal", "refusal.already_dealing")
    rig.refused("decide", "refusal.not_current_hand", seat=1, decision="check", hand=7)


def test_cards_typed_by_hand_not_a_card_duplicate_and_while_a_fault_stands(rig: Rig) -> None:
    with pytest.raises(Malformed) as raised:
        Command.from_mapping({"cmd": "card", "card": "1x"})
    assert raised.value.say == {"key": "refusal.not_a_card", "args": {"text": "1x"}}
    assert Command.from_mapping({"cmd": "card", "card": "10h"}).args == {"card": "Th"}  # journaled as "Th"
    rig.ok("bet", seat=1, bets={"ante": 500, "blind": 500})
    for card in "As Kd Qh Ac".split():
        rig.ok("card", card=card)
    rig.ok("card", card="As")  # read twice: a fault (a card entered by hand is dealt as the shoe's)
    say = rig.refused("card", "refusal.card_while_fault", card="10h")
    assert say["args"] == {"card": {"card": "Th"}}
    rig.refused("decide", "refusal.fault_stands", seat=1, decision="check")
    rig.refused("confirm", "refusal.fault_stands")


def test_a_player_card_number_that_is_not_one_says_what_one_is_never_the_english_check() -> None:
    """Typed wrong at the console's Player cards: the dealer reads what a number is in the page's language, not
    the argument checker's English (`player: card: ...`), and the number typed is not repeated."""
    for typed, key in (("abc!", "refusal.player_card_number"), ("12", "refusal.player_card_number"),
                       ("Declined", "refusal.player_card_declined")):
        with pytest.raises(Malformed) as raised:
            Command.from_mapping({"cmd": "player", "seat": 2, "action": "in", "card": typed})
        say = raised.value.say
        assert say is not None and say["key"] == key, say
        for lang, words in catalogs().items():
            assert set(FIELD.findall(words[key])) <= set(say["args"]), (lang, key, say)
            assert typed not in words[key].format(**say["args"])


def test_a_reason_or_a_slip_left_empty_or_too_long_says_so_in_the_dealers_words() -> None:
    """The sign-off dialog's reason emptied, a fill's slip left blank: what to type, never `must be a non-empty
    string`."""
    for request, key in (({"cmd": "void", "reason": "  "}, "refusal.reason_needed"),
                         ({"cmd": "clear", "reason": "", "then": "continue"}, "refusal.reason_needed"),
                         ({"cmd": "fill", "amount": 100, "slip": ""}, "refusal.slip_needed"),
                         ({"cmd": "void", "reason": "x" * 501}, "refusal.text_too_long")):
        with pytest.raises(Malformed) as raised:
            Command.from_mapping(request)
        say = raised.value.say
        assert say is not None and say["key"] == key, (request, say)
        for lang, words in catalogs().items():
            assert set(FIELD.findall(words[key])) <= set(say["args"]), (lang, key, say)


def test_void_clear_and_the_sign_off(rig: Rig) -> None:
    dealer = Caller("dealer")
    rig.refused("void", "refusal.nothing_to_void", reason="mistake")
    rig.refused("clear", "refusal.no_fault_to_clear", reason="nothing")
    rig.refused("void", "refusal.sign_off_needed", dealer, reason="mistake")
    rig.refused("void", "refusal.sign_off_refused", dealer, reason="mistake", auth={"user": "ana", "pin": "0000"})
    rig.refused("void", "refusal.sign_off_refused", dealer, reason="x", auth={"user": "bo", "pin": "1111"})
    rig.refused("open", "refusal.forbidden", dealer, game="uth")
    assert rig.c.handle_command(Command.from_mapping({"cmd": "void", "reason": "x"}), dealer)["say"]["key"] \
        == "refusal.sign_off_needed"


def test_a_refusal_without_words_of_its_own_says_refusal_other_with_the_english() -> None:
    from protocol.commands import error_reply
    reply = error_reply("r1", "illegal", "something new")
    assert reply["say"] == {"key": "refusal.other", "args": {"why": "something new"}}
    assert error_reply(None, "malformed", "bad")["say"]["key"] == "refusal.malformed"


def test_three_card_poker_bets_and_the_minimum_of_spots(tmp_path: Path) -> None:
    rig = Rig(tmp_path, HouseSetup("3cp", "default", {"minimum": 500, "side_minimum": 100, "chip": 100}, 7))
    rig.refused("bet", "refusal.unknown_bet", seat=1, bets={"pair_plus": 100, "bonus": 100})
    rig.ok("bet", seat=1, bets={"ante": 500})
    say = rig.refused("deal", "refusal.spots_needed")  # the default profile needs 5 spots
    assert say["args"] == {"need": 5, "have": 1}
    rig.c.journal.close()


def test_poker_acts_out_of_turn_and_below_the_minimum_raise(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    rig.ok("open", game="holdem", structure="no-limit", stakes={"blinds": [100, 200]}, seats=6,
           stacks={"1": 10000, "2": 10000, "3": 10000})
    rig.refused("act", "refusal.poker_no_hand", seat=1, action="check")
    rig.ok("deal")
    deck = iter("As Kd Qh Ac Tc 9d 8h 7s".split())
    rig.refused("act", "refusal.poker_deal_first", seat=1, action="fold")
    while rig.c.public_state()["to_act"] is None:
        rig.ok("card", card=next(deck))
    state = rig.c.public_state()
    actor = state["to_act"]
    other = next(s["seat"] for s in state["spots"] if s["seat"] != actor)
    say = rig.refused("act", "refusal.not_to_act", seat=other, action="fold")
    assert say["args"] == {"seat": other, "to_act": actor}
    say = rig.refused("act", "refusal.poker_below_min_raise", seat=actor, action="raise", amount=300)
    assert say["args"]["minimum"] == {"money": 400} and say["args"]["amount"] == {"money": 300}
    rig.refused("act", "refusal.poker_amount_needed", seat=actor, action="raise")
    rig.refused("act", "refusal.poker_faces_bet", seat=actor, action="check")
    rig.c.journal.close()


def _keys_in_the_code() -> set[str]:
    keys: set[str] = set()
    for package in ("engine", "protocol", "firmware_host", "floor"):
        for path in (ROOT / package).rglob("*.py"):
            keys.update(re.findall(r"\"((?:refusal|fault)\.[a-z_]+)\"", path.read_text(encoding="utf-8")))
    return keys


def test_every_key_the_code_can_send_is_in_every_catalog() -> None:
    keys = _keys_in_the_code() | FAULT_SAYS
    assert len(keys) > 80
    for lang, words in catalogs().items():
        missing = sorted(k for k in keys if k not in words)
        assert missing == [], (lang, missing)
        assert words["refusal.other"] and "{why}" in words["refusal.other"]


def test_a_card_typed_10h_is_dealt_and_journaled_as_th(rig: Rig) -> None:
    rig.ok("bet", seat=1, bets={"ante": 500, "blind": 500})
    rig.ok("card", card="10h")
    assert rig.c.full_state()["spots"][0]["cards"] == ["Th"]
    assert [e.body["card"] for e in rig.c.journal.events() if e.kind == "card"] == ["Th"]
