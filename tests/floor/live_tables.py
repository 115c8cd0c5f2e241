"""Real poker tables for the director's tests: a controller per table serving in a thread on its real ipc
sockets (command channel, public feed and snapshot), its journal on disk, dealt by a small bot through its
command channel and its shoe's readings (the controller's inbox, as a shoe's reader thread posts them)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import zmq

from drivers.card_reader import CardRead
from protocol.access import DEFAULT_RIGHTS
from protocol.commands import CommandClient
from protocol.config import RightsConfig, SecurityConfig
from firmware_host.service.controller import Controller
from protocol.feed import Feed
from firmware_host.service.journal import Journal
from firmware_host.tables.registry import open_setup
from tests.firmware_host.processes import wait_for

FIRST_LEVEL = {"game": "holdem", "structure": "no-limit", "stakes": {"blinds": [25, 50]}}
"""Each table's configured game (its `[poker]`): a no-limit hold'em table, as the director opens it."""

RIGHTS = RightsConfig(pit=(*DEFAULT_RIGHTS["pit"], "deal", "act", "confirm"))
"""Local clients act as the pit (the director's role); the test's dealer bot, local too, also deals."""

BURNS, BOARD = ["Jh", "8d", "5c", "6d"], ["Qs", "7h", "9c", "4s", "2d"]
HOLE = [("2c", "3h"), ("As", "Ad"), ("Kc", "Kd"), ("Tc", "Td"), ("8c", "8h"), ("6c", "6h")]
"""The cards a hand is dealt: the shortest stack 2-3, the others aces, kings, tens...; a board that makes none
better: of any two players all in, the one with the higher pair wins, and the shortest always loses."""


class LiveTable:
    """One poker table's controller serving on real sockets (see the module docstring)."""

    def __init__(self, ctx: zmq.Context[Any], tmp: Path, name: str, seats: int, shoe: bool = False) -> None:
        self.ctx, self.name, self.seats = ctx, name, seats
        self.shoe = shoe   # the director has its shoe draw the button (the test deals the cards), else draws it
        self.dir = tmp / name
        self.commands = f"ipc://{tmp}/{name}-cmd"
        self.public, self.snapshot = f"ipc://{tmp}/{name}-pub", f"ipc://{tmp}/{name}-snap"
        self.seq = 0
        self.start()

    def start(self) -> None:
        self.feed = Feed(self.ctx, self.name, public=self.public, snapshot=self.snapshot, heartbeat_s=0.2)
        self.c = Controller(Journal.open(self.dir), table=self.name, seats=self.seats, feed=self.feed,
                            default_setup=open_setup(FIRST_LEVEL, self.seats),
                            security=SecurityConfig(local_role="pit"), rights=RIGHTS)
        self.c.recover()
        self.thread = threading.Thread(target=self.c.run, args=(self.ctx, self.commands), daemon=True)
        self.thread.start()
        self.client = CommandClient(self.ctx, self.commands, timeout_s=5.0, name=f"dealer-{self.name}")

    def stop(self) -> None:
        self.client.close()
        self.c.stop()
        self.thread.join(timeout=10)
        self.c.journal.close()
        self.feed.close()

    def link(self) -> str:
        """The table's `[[director.tables]]` entry."""
        return (f'[[director.tables]]\nname = "{self.name}"\ncommands = "{self.commands}"\n'
                f'public = "{self.public}"\nsnapshot = "{self.snapshot}"\nshoe = {str(self.shoe).lower()}\n')

    def cmd(self, cmd: str, **args: Any) -> dict[str, Any]:
        return self.client.request(cmd, **args)

    def ok(self, cmd: str, **args: Any) -> dict[str, Any]:
        reply = self.cmd(cmd, **args)
        assert reply["ok"], (self.name, cmd, reply)
        return reply

    def state(self) -> dict[str, Any]:
        state: dict[str, Any] = self.ok("state")["state"]
        return state

    def seated(self) -> dict[int, int]:
        """Seat -> stack of every player at the table."""
        return {int(s["seat"]): int(s["stack"]) for s in self.state().get("spots") or []}

    def card(self, card: str) -> None:
        self.seq = self.seq % 255 + 1
        self.c.inbox.post(CardRead(card, "shoe", self.seq))

    def events(self, kind: str) -> list[Any]:
        """The table's journaled events of `kind` (read from its journal file)."""
        journal = Journal.open(self.dir, readonly=True)
        try:
            return [e for e in journal.events() if e.kind == kind]
        finally:
            journal.close()

    def play(self, bust: bool = False) -> dict[str, Any]:
        """Deal one hand to the end: with `bust`, the first to act goes all in, the next calls, the others
        fold (the shortest stack is dealt 2-3, so he loses all he puts in); without, every player folds
        to the big blind. Returns the settled state."""
        self.ok("deal")
        return self.finish(bust)

    def finish(self, bust: bool = False) -> dict[str, Any]:
        """Play the hand just dealt to the end (as `play`). Returns the settled state."""
        st = self.state()
        dealt = st["hand"]
        total = {int(s["seat"]): int(s["stack"]) + int((s.get("bets") or {}).get("in_pot") or 0)
                 for s in st.get("spots") or [] if s.get("in_hand")}
        hole = {seat: list(HOLE[k]) for k, seat in enumerate(sorted(total, key=lambda x: (total[x], x)))}
        burns, board = iter(BURNS), iter(BOARD)
        actions = 0
        for _ in range(500):
            st = self.state()
            if st["phase"] == "settled":
                assert st["hand"] == dealt, st
                return st
            assert not st.get("fault"), st["fault"]
            legal = st.get("legal") or {}
            target = st.get("next")
            if st.get("to_act") is not None:
                if legal.get("show"):
                    action = "show"
                elif bust and actions == 0 and legal.get("all_in") is not None:
                    action = "all_in"
                elif bust and actions == 1 and legal.get("call") is not None:
                    action = "call"
                else:
                    action = "check" if legal.get("check") else "fold"
                self.ok("act", seat=st["to_act"], action=action)
                actions += 1
            elif st["phase"] == "over":
                self.ok("confirm")
            elif target is not None:
                card = next(burns) if target == "burn" else next(board) if target == "board" else \
                    hole[int(str(target).split()[1])].pop(0)
                self.card(card)
                wait_for(lambda: progress(self.state()) != progress(st), f"{self.name}: the card taken", 10)
            else:
                raise AssertionError(f"{self.name}: the hand waits for nothing the bot knows: {st}")
        raise AssertionError(f"{self.name}: the hand did not end")


def progress(st: dict[str, Any]) -> tuple[Any, ...]:
    """What a card taken changes in a public state: the card awaited, who acts, the cards on show."""
    return (st.get("next"), st.get("to_act"), st.get("phase"), len(st.get("board") or []),
            sum(len(s.get("cards") or []) for s in st.get("spots") or []), bool(st.get("fault")))
