"""The pit's rating sessions on the command channel, over real loopback sockets: opened, closed and adjusted only
under a supervisor's sign-off, journaled with what each replaced and who signed it, folded after a restart; a
dealer's console relays, a read-only key may not, a forged or replayed request changes nothing, wrong PINs hold."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, time, timezone
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
import zmq

from firmware_host.service.config import RatingsConfig
from pages.words import catalogs
from firmware_host.service.ratings import journal_ratings
from protocol.commands import Command, Malformed
from protocol.signoff import REFUSED
from tests.firmware_host.test_signoff import PIN, SUPERVISOR, Table


def rated(table: Table) -> list[dict[str, Any]]:
    return journal_ratings(table.c.journal, "uth-1").reports()


@pytest.fixture
def pit(tmp_path: Path, ctx: zmq.Context[Any]) -> Iterator[Table]:
    t = Table(tmp_path, ctx, local_role="pit", fault=False)
    yield t
    t.close()


def test_the_pit_opens_adjusts_and_closes_a_declined_players_session_each_step_signed_off(pit: Table) -> None:
    before = pit.events()
    refused = pit.client.request("rating", req_id="r1", seat=3, action="open")
    assert refused["code"] == "forbidden" and refused["say"]["key"] == "refusal.sign_off_needed", refused
    assert pit.events() == before and pit.audited("signoff_refused")[-1]["command"] == "rating"
    assert pit.client.request("rating", req_id="r2", seat=3, action="open", auth=SUPERVISOR)["ok"]
    reply = pit.client.request("rating", req_id="r3", seat=3, action="adjust", hands=20, average_bet=2500,
                               reason="played before the card was refused", auth=SUPERVISOR)
    assert reply["ok"], reply
    adjusted = pit.events()[-1]
    assert adjusted.kind == "rating" and adjusted.req == "r3"
    assert adjusted.body["signed_off"] == {"user": "ana", "caller_role": "pit"}
    assert adjusted.body["was"] == {"card": "declined", "source": "pit"}
    assert pit.client.request("rating", req_id="r4", seat=3, action="adjust", hands=20, average_bet=2000,
                              auth=SUPERVISOR)["ok"]
    assert pit.events()[-1].body["was"]["entered"] == {"hands": 20, "average_bet": 2500}
    assert pit.c.full_state()["players"]["3"] == {"card": "declined", "source": "pit", "away": False}
    assert pit.client.request("rating", req_id="r5", seat=3, action="close", auth=SUPERVISOR)["ok"]
    [s] = rated(pit)
    assert s["declined"] and s["end"] is not None and s["entered"]["average_bet"] == 2000
    assert [(a["action"], a["by"]) for a in s["adjustments"]] == [("open", "ana"), ("unrated_play", "ana"),
                                                                 ("unrated_play", "ana")]
    assert [d["command"] for d in pit.audited("signoff_granted")] == ["rating"] * 4
    assert PIN.encode() not in pit.disk_bytes()
    nobody = pit.client.request("rating", req_id="r6", seat=3, action="close", auth=SUPERVISOR)
    assert nobody["code"] == "illegal" and nobody["say"] == {"key": "refusal.no_rated_session", "args": {"seat": 3}}


def test_a_replayed_sign_off_is_applied_once_and_an_id_taken_again_is_refused(pit: Table) -> None:
    ask = {"seat": 2, "action": "open", "card": "60004321", "auth": SUPERVISOR}
    assert pit.client.request("rating", req_id="p-7", **ask)["ok"]
    after = pit.events()
    again = pit.client.request("rating", req_id="p-7", **ask)
    assert again["ok"] and again.get("duplicate") is True and pit.events() == after
    other = pit.client.request("rating", req_id="p-7", seat=2, action="close", auth=SUPERVISOR)
    assert other["code"] == "reused_id" and pit.events() == after
    with pytest.raises(Malformed, match="give the request an id"):  # the console's client always gives one
        Command.from_mapping({"cmd": "rating", "seat": 2, "action": "close", "auth": SUPERVISOR})
    taken = pit.client.request("rating", req_id="p-8", seat=2, action="open", auth=SUPERVISOR)
    assert taken["say"] == {"key": "refusal.seat_rated", "args": {"seat": 2}} and pit.events() == after


@pytest.mark.parametrize("forged", [
    {"signed_off": {"user": "ana", "caller_role": "pit"}},  # a sign-off written in, not signed
    {"was": {"card": None}},
    {"average_bet": -100, "hands": 3},
    {"average_bet": 100},  # hands and average bet come together
    {"card": "declined"},  # never a card number
    {"card": "6000 1234"},
    {"end": 1780000000},  # an open takes no end
    {"hands": 10**6, "average_bet": 1},
])
def test_a_forged_request_is_malformed_and_changes_nothing(pit: Table, forged: dict[str, Any]) -> None:
    before = pit.events()
    reply = pit.client.request("rating", req_id="f", seat=4, action="open", auth=SUPERVISOR, **forged)
    assert reply["ok"] is False and reply["code"] == "malformed", reply
    assert pit.events() == before and pit.audited("signoff_granted") == []  # refused before any PIN is looked at


def test_a_dealers_console_relays_a_supervisors_sign_off_and_a_read_only_key_may_not(tmp_path: Path,
                                                                                  ctx: zmq.Context[Any]) -> None:
    for part in ("d", "display", "surveillance"):
        (tmp_path / part).mkdir()
    dealer = Table(tmp_path / "d", ctx, fault=False)
    try:
        assert dealer.client.request("rating", req_id="d1", seat=1, action="open")["code"] == "forbidden"
        bo = dealer.client.request("rating", req_id="d2", seat=1, action="open", auth={"user": "bo", "pin": "1111"})
        assert bo["code"] == "forbidden" and REFUSED in bo["error"]  # a dealer's own PIN signs nothing off
        assert dealer.client.request("rating", req_id="d3", seat=1, action="open", auth=SUPERVISOR)["ok"]
        assert dealer.events()[-1].body["signed_off"] == {"user": "ana", "caller_role": "dealer"}
    finally:
        dealer.close()
    for role in ("display", "surveillance"):  # the players' screens, the cameras: never, PIN or not
        eye = Table(tmp_path / role, ctx, local_role=role, fault=False)
        try:
            before = eye.events()
            reply = eye.client.request("rating", req_id="e1", seat=1, action="open", auth=SUPERVISOR)
            assert reply["code"] == "forbidden" and f"the role {role!r} may not send it" in reply["error"], reply
            assert eye.events() == before and eye.audited("signoff_granted") == eye.audited("signoff_refused") == []
        finally:
            eye.close()


def test_a_flood_of_wrong_pins_holds_the_pits_sign_offs_and_rates_nothing(pit: Table) -> None:
    before = pit.events()
    for attempt in range(5):
        reply = pit.client.request("rating", req_id=f"w{attempt}", seat=1, action="open",
                                   auth={"user": "ana", "pin": f"40917{attempt}2286"})
        assert reply["code"] == "forbidden" and REFUSED in reply["error"], reply
    held = pit.client.request("rating", req_id="w9", seat=1, action="open", auth=SUPERVISOR)
    assert held["say"]["key"] == "refusal.sign_off_held" and pit.events() == before and rated(pit) == []
    assert pit.audited("signoff_held")[0]["failed"] == 5
    pit.now[0] += 301.0
    assert pit.client.request("rating", req_id="w10", seat=1, action="open", auth=SUPERVISOR)["ok"]


def test_a_restart_between_the_sign_off_and_the_fold_keeps_the_adjustment(tmp_path: Path, ctx: zmq.Context[Any]) -> None:
    first = Table(tmp_path, ctx, local_role="pit", fault=False)
    try:
        assert first.client.request("rating", req_id="a", seat=6, action="open", auth=SUPERVISOR)["ok"]
        assert first.client.request("rating", req_id="b", seat=6, action="adjust", hands=8, average_bet=5000,
                                    auth=SUPERVISOR)["ok"]
    finally:
        first.close()
    second = Table(tmp_path, ctx, local_role="pit", fault=False)  # the same state directory: the journal replays
    try:
        assert second.c.full_state()["players"]["6"]["card"] == "declined"
        again = second.client.request("rating", req_id="b", seat=6, action="adjust", hands=8, average_bet=5000,
                                      auth=SUPERVISOR)
        assert again.get("duplicate") is True  # the sign-off sent again after the restart: applied once
        assert second.client.request("rating", req_id="c", seat=6, action="adjust", hands=9, average_bet=5000,
                                     auth=SUPERVISOR)["ok"]
        assert second.events()[-1].body["was"]["entered"] == {"hands": 8, "average_bet": 5000}
        [s] = rated(second)
        assert s["entered"] == {**s["entered"], "hands": 9, "average_bet": 5000}
        assert [a["after"] for a in s["adjustments"][1:]] == [{"hands": 8, "average_bet": 5000},
                                                              {"hands": 9, "average_bet": 5000}]
        assert Fraction(s["entered"]["theo"]) == Fraction(s["theo"])  # no hand read: the theo is the entered play's
    finally:
        second.close()


def test_the_pit_adjusts_a_session_closed_at_a_seat_and_no_other(pit: Table) -> None:
    assert pit.client.request("player", seat=2, action="in", card="60001111", source="pit")["ok"]
    assert pit.client.request("player", seat=2, action="out")["ok"]
    [closed] = rated(pit)
    assert closed["end"] is not None
    start, before = closed["start"], pit.events()
    for n, ask in enumerate(({"session": start + 1.0, "seat": 2},  # no session started then
                             {"session": start, "seat": 3})):  # nor closed at that seat
        reply = pit.client.request("rating", req_id=f"x{n}", action="adjust", hands=5, average_bet=1000,
                                   auth=SUPERVISOR, **ask)
        assert reply["ok"] is False and reply["say"] == {"key": "refusal.no_closed_session",
                                                         "args": {"seat": ask["seat"]}}, reply
    assert pit.events() == before
    reply = pit.client.request("rating", req_id="k1", seat=2, action="adjust", session=start, hands=12,
                               average_bet=2500, reason="played before the card was shown", auth=SUPERVISOR)
    assert reply["ok"], reply
    event = pit.events()[-1]
    assert event.body["was"] == {"card": "60001111", "session": start, "end": closed["end"]}
    assert event.body["signed_off"] == {"user": "ana", "caller_role": "pit"}
    assert pit.client.request("rating", req_id="k2", seat=2, action="adjust", session=int(start), hands=10,
                              average_bet=2500, auth=SUPERVISOR)["ok"]  # its whole second names it too
    assert pit.events()[-1].body["was"]["entered"] == {"hands": 12, "average_bet": 2500}
    [s] = rated(pit)  # still the one session, closed, its end kept, the entered play folded in
    assert (s["start"], s["end"], s["open"]) == (start, closed["end"], False)
    assert s["entered"] is not None and (s["entered"]["hands"], s["entered"]["average_bet"]) == (10, 2500)
    assert [(a["action"], a["by"], a["after"]) for a in s["adjustments"]] == [
        ("unrated_play", "ana", {"hands": 12, "average_bet": 2500}),
        ("unrated_play", "ana", {"hands": 10, "average_bet": 2500})]
    assert "2" not in pit.c.full_state()["players"]  # nobody sits at the seat again


def test_the_pit_adjusts_any_closed_session_of_the_gaming_day_the_table_closed_since_and_none_of_another_day(
        pit: Table) -> None:
    now = [datetime(2026, 12, 3, 19, 0, tzinfo=timezone.utc).timestamp()]  # the table's clock, driven
    pit.c.clock = lambda: now[0]
    pit.c.ratings_day = RatingsConfig(day_starts=time(6), time_zone="Europe/Paris")  # the day starts 05:00 UTC
    assert pit.client.request("player", seat=2, action="in", card="60002222", source="pit")["ok"]
    now[0] += 3600
    assert pit.client.request("player", seat=2, action="out")["ok"]
    now[0] += 600
    assert pit.client.request("player", seat=2, action="in", card="60003333", source="pit")["ok"]
    now[0] += 600
    assert pit.client.request("close")["ok"]  # the evening's close ends the second session
    now[0] += 3600
    assert pit.client.request("open", game="uth")["ok"]  # opened again: a new opening of the same gaming day
    first, second = rated(pit)
    for n, session in enumerate((first, second)):
        now[0] += 60
        reply = pit.client.request("rating", req_id=f"y{n}", seat=2, action="adjust", session=session["start"],
                                   hands=6 + n, average_bet=1000, auth=SUPERVISOR)
        assert reply["ok"], reply
        assert pit.events()[-1].body["was"] == {"card": session["player"], "session": session["start"],
                                                "end": session["end"]}
    unknown = pit.client.request("rating", req_id="y2", seat=2, action="adjust", session=first["start"] + 5,
                                 hands=1, average_bet=100, auth=SUPERVISOR)
    assert unknown["say"] == {"key": "refusal.no_closed_session", "args": {"seat": 2}}, unknown
    after = rated(pit)
    assert [(s["player"], s["end"], s["entered"]["hands"] if s["entered"] else None) for s in after] == [
        ("60002222", first["end"], 6), ("60003333", second["end"], 7)]  # each kept its end, the play entered
    assert [a["by"] for s in after for a in s["adjustments"]] == ["ana", "ana"]
    now[0] = datetime(2026, 12, 4, 5, 30, tzinfo=timezone.utc).timestamp()  # 06:30 in Paris: the next gaming day
    before = pit.events()
    late = pit.client.request("rating", req_id="y3", seat=2, action="adjust", session=first["start"], hands=1,
                              average_bet=100, auth=SUPERVISOR)
    assert late["ok"] is False and late["say"] == {"key": "refusal.session_another_day", "args": {"seat": 2}}, late
    assert pit.events() == before  # nothing journaled
    assert say_in("en", late["say"]) and say_in("fr", late["say"])


def say_in(lang: str, said: dict[str, Any]) -> str:
    """A refusal in the pit's words (the catalog's, filled): never its key."""
    text = catalogs()[lang][said["key"]].format(**said["args"])
    assert said["key"] not in text and "{" not in text
    return text


@pytest.mark.parametrize("forged", [{"action": "open", "session": 1000.0}, {"action": "close", "session": 1000.0},
                                    {"action": "adjust", "session": "yesterday", "hands": 1, "average_bet": 1},
                                    {"action": "adjust", "session": True, "hands": 1, "average_bet": 1},
                                    {"action": "adjust", "session": 1000.0}])  # nothing entered
def test_a_closed_session_is_named_only_to_adjust_it_by_its_start(pit: Table, forged: dict[str, Any]) -> None:
    before = pit.events()
    reply = pit.client.request("rating", req_id="f", seat=4, auth=SUPERVISOR, **forged)
    assert reply["ok"] is False and reply["code"] == "malformed", reply
    assert pit.events() == before
