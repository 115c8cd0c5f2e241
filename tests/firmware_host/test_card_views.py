"""A card's views made from the parts it changed (`tables/views.py`) against the whole views, over many random hands."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from drivers.card_reader import CardRead, Misread
from engine.cards import DECK
from engine.house_state import HouseRoundState
from protocol.commands import Command
from firmware_host.service.controller import Controller
from firmware_host.service.journal import Journal
from firmware_host.tables import state as table_state
from firmware_host.tables.house.table import HouseSetup
from tests.firmware_host.processes import MADE_FROM_A_CARD, Published

CHOICES = [("fold", None), ("check", None), ("play", 1), ("play", 2), ("play", 3), ("play", 4), ("play", None)]


class _Hands:
    """A house table's controller in process, its feed the test feed (each step's changes held to the whole
    states' diff, `Published`), restarted on its journal now and then (a new controller, the state replayed)."""

    def __init__(self, path: Path, rng: random.Random) -> None:
        self.path, self.rng, self.seq = path, rng, 0
        self.published = self.feed()
        self.c = self._start()

    def feed(self) -> Published:
        """The test feed the controller publishes to."""
        return Published()

    def _start(self) -> Controller:
        c = Controller(Journal.open(self.path), table="cards", feed=self.published,  # type: ignore[arg-type]
                       default_setup=HouseSetup("uth", "standard", {"minimum": 100}, 7))
        c.recover()
        return c

    def restart(self) -> None:
        self.c.journal.close()
        self.c = self._start()

    def do(self, cmd: str, **args: Any) -> dict[str, Any]:
        return dict(self.c.handle_command(Command.from_mapping({"cmd": cmd, **args})))

    def card(self, card: str) -> None:
        self.seq = (self.seq + 1) % 256
        self.c.handle_reading(CardRead(card, "shoe", self.seq))

    def hand(self) -> str:
        """One random hand: bets, cards (a misread, a card twice, a restart among them), decisions; its end."""
        rng, c = self.rng, self.c
        game = c.table.setup.game if c.table is not None else "uth"
        for seat in rng.sample(range(1, 8), rng.randint(5 if game == "3cp" else 1, 7)):
            bets = ({"ante": 100, "blind": 100} if game == "uth" else {"ante": 100}) | (
                {"trips" if game == "uth" else "pair_plus": 100} if rng.random() < 0.5 else {})
            assert self.do("bet", seat=seat, bets=bets)["ok"]
        deck = [str(card) for card in DECK]
        rng.shuffle(deck)
        dealt: list[str] = []
        while True:
            c = self.c
            if c.fault is not None:
                assert self.do("clear", reason="checked", then=rng.choice(["continue", "continue", "void"]))["ok"]
                if c.table is not None and not c.table.started:
                    return "voided"
                continue
            rnd = c.state.need_table().round  # type: ignore[attr-defined]
            if rnd.phase == "showdown":
                return "settled" if self.do("confirm")["ok"] else "refused"
            r = rng.random()
            if r < 0.02:
                self.restart()
            elif r < 0.03 and dealt:
                self.card(rng.choice(dealt))  # a card twice: a fault
            elif r < 0.04:
                self.seq = (self.seq + 1) % 256
                c.handle_reading(Misread("shoe", self.seq))
            elif r < 0.045:
                assert self.do("void", reason="random void")["ok"]
                return "voided"
            elif rnd.next_target() is not None:
                card = deck.pop()
                self.card(card)
                (dealt.append if c.fault is None else deck.append)(card)
            else:
                seat = rnd.to_act()
                rng.shuffle(CHOICES)
                action, multiple = next((a, m) for a, m in CHOICES if rnd.can_decide(seat, a, m))
                assert self.do("decide", seat=seat, decision=action, **({"multiple": multiple} if multiple else {}))["ok"]


def test_a_cards_views_are_the_whole_views_after_every_step(tmp_path: Path) -> None:
    """80 random hands (UTH, then 3CP): at every step the views equal the whole views (`conftest.py`), the feed's
    changes (made from a clean card's named parts, else the whole states' diff: `Published`) rebuild the very
    states shown after every step and at each hand's end, and no public change made from named parts holds a
    hidden card."""
    hands = _Hands(tmp_path / "state", random.Random(20261204))
    made = MADE_FROM_A_CARD[0]
    ends = []
    for n in range(80):
        if n == 40:
            assert hands.do("open", game="3cp", profile="default", limits={"minimum": 100})["ok"]
        ends.append(hands.hand())
        assert tuple(hands.published.rebuilt) == hands.c.states(), f"hand {n}: the changes do not rebuild the state"
    assert ends.count("voided") >= 3 and ends.count("settled") >= 60, ends
    assert MADE_FROM_A_CARD[0] - made > 80 * 8  # most cards' views made from their parts alone
    assert hands.published.named > 80 * 8  # and their changes from the parts they named, rebuilding both states
    faults = {f["kind"] for row in hands.c.journal.hands() for f in row.record["faults"]}
    assert {"duplicate_card", "misread"} <= faults
    hands.c.journal.close()


def test_a_clean_card_makes_no_view_of_the_round_and_keeps_every_part_it_did_not_change(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A clean card's views (`card_views`) make no view of the round (the hand it went to grown from the last view's
    part) and keep every part the card did not change as the very object of the views before, the other spots and
    the spot's own `bets` among them; their changes put the one spot at its place, public and full, with its cards
    hidden on the public feed."""
    hands = _Hands(tmp_path / "state", random.Random(7))
    for seat in range(1, 8):
        assert hands.do("bet", seat=seat, bets={"ante": 100, "blind": 100})["ok"]
    inside, rounds = [False], []
    made_by, full_view = table_state.card_views, HouseRoundState.full_view

    def card_views(*args: Any) -> Any:
        inside[0] = True
        try:
            return made_by(*args)
        finally:
            inside[0] = False

    def round_view(self: HouseRoundState) -> dict[str, Any]:
        rounds.append(inside[0])
        return full_view(self)

    monkeypatch.setattr(table_state, "card_views", card_views)
    monkeypatch.setattr(HouseRoundState, "full_view", round_view)
    deck = [str(card) for card in DECK]
    random.Random(7).shuffle(deck)
    hands.card(deck.pop())  # the hand's first card (it moves the phase: `test_a_card_that_moves_the_phase...`)
    for _ in range(6):  # spots 2 to 7's first cards
        before_public, before_full = hands.published.views[-1]
        made, named = MADE_FROM_A_CARD[0], hands.published.named
        hands.card(deck.pop())
        assert MADE_FROM_A_CARD[0] == made + 1 and hands.published.named == named + 1 and True not in rounds
        public, full = hands.published.views[-1]
        assert {key for key in full if full[key] is not before_full[key]} == {"spots", "next", "sequence", "devices"}
        assert {key for key in public if public[key] is not before_public[key]} == {"spots", "next"}
        new = [i for i, spot in enumerate(full["spots"]) if spot is not before_full["spots"][i]]
        assert len(new) == 1 and full["spots"][new[0]]["bets"] is before_full["spots"][new[0]]["bets"]
        assert [i for i, spot in enumerate(public["spots"]) if spot is not before_public["spots"][i]] == new
        assert public["spots"][new[0]]["cards"] == ["??"]
    hands.c.journal.close()


def test_a_card_that_moves_the_phase_short_of_the_showdown_is_made_from_its_parts(tmp_path: Path) -> None:
    """The cards that move a UTH hand to another phase between the deal and the showdown (the hand's first, the last
    hole card that makes the first decision due, the flop's last where every spot has played) make their views from
    their parts, `phase` among them (the steps made again where they moved: the first card's); the river's card,
    which reaches the showdown (the hands turned over and settled), makes them whole. The conftest holds every view
    to the whole one."""
    hands = _Hands(tmp_path / "state", random.Random(11))
    for seat in range(1, 8):
        assert hands.do("bet", seat=seat, bets={"ante": 100, "blind": 100})["ok"]
    deck = [str(card) for card in DECK]
    random.Random(11).shuffle(deck)
    moves: list[tuple[str, bool, set[str]]] = []
    while (round_ := hands.c.state.need_table().round).phase != "showdown":
        if round_.next_target() is None:
            seat = round_.to_act()
            multiple = 4 if round_.phase == "preflop" else None
            assert hands.do("decide", seat=seat, decision="play", multiple=multiple)["ok"]
            continue
        phase, made = round_.phase, MADE_FROM_A_CARD[0]
        hands.card(deck.pop())
        if hands.c.state.need_table().round.phase != phase:
            public, full = hands.published.views[-1]
            before = hands.published.views[-2][1]
            moves.append((full["phase"], MADE_FROM_A_CARD[0] == made + 1,
                          {key for key in full if full[key] is not before[key]}))
    assert [(phase, made) for phase, made, _ in moves] == [
        ("deal", True), ("preflop", True), ("river", True), ("showdown", False)], moves
    assert {"phase", "steps", "spots"} <= moves[0][2] and "steps" not in moves[1][2] and "phase" in moves[2][2]
    hands.c.journal.close()
