"""A card's views made from the parts it changed (`tables/views.py`) against the whole views, over many random hands."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from drivers.card_reader import CardRead, Misread
from engine.cards import DECK
from protocol.commands import Command
from firmware_host.service.controller import Controller
from firmware_host.service.journal import Journal
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
