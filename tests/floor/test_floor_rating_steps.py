"""The pit's signed-off rating steps in the archive, in a real PostgreSQL: a declined player's session opened, its
unrated play entered and adjusted, a card's start entered, the table played on by the demo, archived from its
`history` pages and rated as `croupier ratings --state` rates the journal, to the cent, with every adjustment."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

from firmware_host.service.controller import Controller
from firmware_host.service.journal import Journal
from floor.migrate import migrate
from protocol.access import Caller
from protocol.commands import Command
from protocol.config import SecurityConfig
from protocol.users import User, Users
from tests.floor.test_floor_ratings import archive, croupier, lines

PIN = "6620417395"


def signed_steps(state: Path, users: Path) -> None:
    """The pit's steps at the table, between two demos, each signed off by the supervisor."""
    c = Controller(Journal.open(state), security=SecurityConfig(users=str(users), local_role="pit"))
    c.recover()
    free = next(seat for seat in range(1, 8) if str(seat) not in c.full_state()["players"])
    carded = next(iter(c.full_state()["players"]), None)
    steps: list[dict[str, Any]] = [
        {"seat": free, "action": "open"},
        {"seat": free, "action": "adjust", "hands": 25, "average_bet": 1500},
        {"seat": free, "action": "adjust", "hands": 25, "average_bet": 1200, "reason": "the pit counted again"}]
    if carded is not None:
        steps.append({"seat": int(carded), "action": "adjust", "start": 1})
    for n, step in enumerate(steps):
        reply = c.handle_command(Command.from_mapping({"cmd": "rating", "id": f"pit-{n}", **step,
                                                      "auth": {"user": "sue", "pin": PIN}}), Caller("pit", "pit-1"))
        assert reply["ok"], reply
    c.journal.close()


def test_the_pits_adjustments_are_archived_and_rated_as_the_journal_rates_them(tmp_path: Path, db: str) -> None:
    users = tmp_path / "users.json"
    Users({"sue": User.with_pin("sue", "supervisor", PIN)}).save(users)
    state, table = tmp_path / "sim-3cp-1", "sim-3cp-1"
    for n in range(2):
        if n:
            signed_steps(state, users)
        done = croupier("demo", "--game", "3cp", "--hands", "30", "--rated", "0.5", "--quiet", "--seed", "9",
                        "--state", str(state))
        assert done.returncode == 0, done.stderr
    migrate(db)
    archive(db, state, table)
    archived = sorted(lines("--db", db), key=lambda s: (s["start"], s["player"]))
    journal = sorted((s for s in lines("--state", str(state), "--table", table) if s["kind"] == "session"),
                     key=lambda s: (s["start"], s["player"]))
    assert len(archived) == len(journal) >= 3
    for got, want in zip(archived, journal):
        assert {k: v for k, v in got.items() if k not in ("played_s", "hands_per_hour")} == \
            {k: v for k, v in want.items() if k not in ("played_s", "hands_per_hour")}
    [declined] = [s for s in archived if s["declined"]]
    assert [(a["action"], a["by"], a["after"]) for a in declined["adjustments"]] == [
        ("open", "sue", {"player": "declined"}), ("unrated_play", "sue", {"hands": 25, "average_bet": 1500}),
        ("unrated_play", "sue", {"hands": 25, "average_bet": 1200})]
    assert declined["adjustments"][2]["before"] == {"hands": 25, "average_bet": 1500}
    ante = Fraction(686689, 20358520)  # 3CP's Ante-and-Play edge a unit of Ante, the standard count
    assert Fraction(declined["entered"]["theo"]) == 25 * 1200 * ante
    assert declined["theo_cents"] == round(Fraction(declined["theo"])) and declined["theo_complete"]
    assert any(a["action"] == "start" for s in archived for a in s["adjustments"])
