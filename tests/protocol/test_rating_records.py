"""The rating records (`engine.ratings`' reports, the casino system's rating events) against docs/ratings.md, which lists their fields, and real reports of a folded table against the JSON Schema made from them."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from engine.ratings import DealerReport, Ratings, SessionReport, UnratedReport
from floor.rating_feed import RatingEvent
from protocol.schema import json_schema
from tests.engine.test_ratings import open_body, record
from tests.protocol.schema_check import problems
from tests.protocol.test_messages import fields, keys, table

DOC = (Path(__file__).resolve().parents[2] / "docs" / "ratings.md").read_text(encoding="utf-8")


def section(title: str) -> str:
    match = re.search(rf"^#+ {re.escape(title)}\n(.*?)(?=^#+ |\Z)", DOC, re.M | re.S)
    assert match is not None, f"docs/ratings.md has no section {title!r}"
    return match.group(1)


def test_the_session_table_lists_every_field_of_a_session() -> None:
    rows = table(section("A rating session"))
    # `kind` is the line's (docs/ratings.md, `croupier ratings`); `started`, `ended` what the command adds
    assert set(rows) == keys(SessionReport) - {"kind", "started", "ended"}
    assert "`started`, `ended`" in rows["start"]


def test_the_rating_event_lists_its_fields_and_the_sessions() -> None:
    rows = table(section("The feed to the casino's management system"))
    assert set(rows) == keys(RatingEvent)
    assert fields(rows["session"]) == keys(SessionReport) - {"kind", "started", "ended"}


def test_the_dealer_figures_are_the_documented_ones() -> None:
    text = section("Dealer figures")
    named = set(re.findall(r"`([a-z_]+)`", text))
    assert keys(DealerReport) - {"kind", "dealer", "table", "from_event"} <= named


def folded() -> Ratings:
    """A UTH table's opening: a rated player who moves and takes a break, unrated play, two dealers, a smart
    table's hand with its chips' alerts, a voided hand, the close."""
    r = Ratings("uth-1")
    r.event("open", open_body("uth"), 0.0)
    r.event("dealer", {"dealer": "ana", "action": "in"}, 0.0)
    r.event("player", {"seat": 1, "action": "in", "card": "60001111", "source": "reader"}, 10.0)
    caught = record(1, "uth", {1: {"ante": 1000, "blind": 1000, "play": 4000}, 2: {"ante": 500, "blind": 500}},
                    {1: 6500, 2: -1000})
    caught["chips"] = {"source": "chips", "bets_read": {"1": {"ante": 1000, "blind": 1000}},
                       "notes": [{"kind": "mispay", "circles": []}]}
    r.hand(caught, 70.0)
    r.event("player", {"seat": 1, "action": "away"}, 140.0)
    r.hand(record(2, "uth", {1: {"ante": 1000, "blind": 1000}}, {}, status="voided"), 150.0)
    r.event("dealer", {"dealer": "bo", "action": "in"}, 600.0)
    r.event("player", {"seat": 4, "action": "in", "card": "60001111", "source": "dealer"}, 750.0)
    r.hand(record(3, "uth", {4: {"ante": 2000, "blind": 2000}}, {4: -4000}), 800.0)
    r.event("player", {"seat": 2, "action": "in", "card": "60002222", "source": "pit"}, 900.0)
    return r


def test_real_reports_hold_to_their_types_and_the_schema_sees_a_stray_key() -> None:
    r = folded()
    reports: list[tuple[Any, Any]] = [(SessionReport, s) for s in r.reports()]
    reports += [(UnratedReport, r.unrated_report()), *((DealerReport, d) for d in r.dealer_reports())]
    r.event("close", {}, 3600.0)
    reports += [(SessionReport, s) for s in r.reports()] + [(DealerReport, d) for d in r.dealer_reports()]
    assert {s["open"] for typed, s in reports if typed is SessionReport} == {True, False}
    assert any(d.get("mispays") for typed, d in reports if typed is DealerReport)
    for typed, report in reports:
        assert problems(json_schema(typed), report) == [], report
    session = r.reports()[0]
    event: RatingEvent = {"seq": 1, "event": "closed", "session": session}
    assert problems(json_schema(RatingEvent), event) == []
    assert problems(json_schema(SessionReport), {**session, "pit": "A"}) == ["$: 'pit' is not a declared key"]
    assert problems(json_schema(RatingEvent), {**event, "event": "gone"}) == [
        "$.event: 'gone' is not one of ['opened', 'updated', 'closed']"]
