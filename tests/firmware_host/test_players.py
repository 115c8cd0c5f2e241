"""Player cards at the seats: set and cleared by the dealer, the pit or a seat's reader, journaled, kept over a restart, never on the public feed; the ratings folded from the journal."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from drivers.readings import PlayerCardRead
from engine.paytables import read_profile
from protocol.commands import Malformed
from firmware_host.service.controller import Controller
from firmware_host.service.journal import Journal
from firmware_host.service.ratings import journal_ratings
from firmware_host.tables.house.table import HouseSetup
from tests.firmware_host.processes import croupier_here
from tests.firmware_host.rigs import JournalRig
from tests.firmware_host.test_history_request import play_hands

UTH = HouseSetup("uth", "default", {"minimum": 100}, 7)
CARD, OTHER = "6001234567890", "04A224B2C35E80"


class Rig(JournalRig):
    def controller_args(self) -> dict[str, Any]:
        return {"default_setup": UTH}


def public_text(c: Controller) -> str:
    return json.dumps(c.state.views()[0])


def test_a_card_set_at_a_seat_is_on_the_full_feed_only_and_survives_a_restart(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    rig.ok("player", seat=1, action="in", card=CARD)
    rig.ok("dealer", dealer="ana", action="in")
    rig.c.handle_reading(PlayerCardRead(3, OTHER, "player_cards"))  # a seat's reader
    public, full = rig.c.state.views()
    assert full["players"] == {"1": {"card": CARD, "source": "dealer", "away": False},
                               "3": {"card": OTHER, "source": "reader", "away": False}}
    assert full["dealer_signed_in"] == "ana"
    assert CARD not in json.dumps(public) and OTHER not in json.dumps(public) and "players" not in public
    play_hands(rig.c, 3)  # hands 1-3 settled (seats 1, 2, 3), hand 4 voided: the cards stay across hands
    rig.ok("player", seat=1, action="away")
    rig.ok("player", seat=2, action="in", card=CARD, source="pit")  # the player moves to seat 2
    rig.restart()
    full = rig.c.state.views()[1]
    assert full["players"] == {"2": {"card": CARD, "source": "pit", "away": False},
                               "3": {"card": OTHER, "source": "reader", "away": False}}
    assert full["dealer_signed_in"] == "ana" and CARD not in public_text(rig.c)
    rig.ok("player", seat=2, action="out")
    refused = rig.cmd("player", seat=2, action="away")
    assert not refused["ok"] and refused["say"] == {"key": "refusal.no_player_card", "args": {"seat": 2}}
    with pytest.raises(Malformed, match="a card is given with action in"):
        rig.cmd("player", seat=2, action="in")
    with pytest.raises(Malformed) as bad:
        rig.cmd("player", seat=2, action="in", card="6001 2345")
    assert "6001" not in str(bad.value)  # a card number is never repeated in a refusal


def test_the_sessions_are_folded_from_the_journal_after_a_restart(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    rig.ok("dealer", dealer="ana", action="in")
    rig.ok("player", seat=1, action="in", card=CARD)
    play_hands(rig.c, 3)  # seat 1 plays hand 1, seat 2 hand 2, seat 3 hand 3; hand 4 (seat 2) voided
    rig.restart()
    rig.ok("player", seat=2, action="in", card=OTHER)
    play_hands(rig.c, 2)  # hand 5 at seat 1, hand 6 at seat 2
    journal = rig.c.journal
    ratings = journal_ratings(journal, "uth-1")
    first, second = (r for r in ratings.reports() if r["kind"] == "session")
    assert first["player"] == CARD and [h["hand"] for h in first["hand_numbers"]] == [1, 5]
    assert first["bets"] == {"ante": 200, "blind": 200, "play": 800} and first["open"]
    assert second["player"] == OTHER and second["hand_numbers"] == [{"hand": 6, "seat": 2}]
    # the default profile files UTH's edges as approved (engine/profiles/default.toml): the Ante carries the line's
    edge = read_profile("default").parse().uth.approved["ante_blind_play"]
    assert first["theo_complete"] and Fraction(first["theo"]) == first["bets"]["ante"] * edge
    nets = {row.hand: row.record["settlement"]["spots"][0]["net"] for row in journal.hands() if row.status == "settled"}
    assert first["win"] == nets[1] + nets[5]
    assert ratings.unrated_report()["spot_hands"] == 2  # hands 2 and 3
    [ana] = ratings.dealer_reports()
    assert ana["hands"] == 5 and ana["voids"] == 1 and ana["average_seats"] == 1


def test_the_card_reader_going_offline_stops_no_hand_but_the_shoe_does(tmp_path: Path) -> None:
    from drivers.readings import DeviceOffline

    rig = Rig(tmp_path)
    rig.ok("bet", seat=1, bets={"ante": 100, "blind": 100})
    rig.ok("card", card="Ah")  # mid-hand
    rig.c.handle_reading(DeviceOffline("player_cards", "unplugged"))
    assert rig.c.state.fault is None and rig.c.state.devices["player_cards"]["online"] is False
    rig.c.handle_reading(DeviceOffline("shoe", "unplugged"))
    assert rig.c.state.fault is not None and rig.c.state.fault.kind == "device_offline"


def test_a_card_presented_again_ends_a_break_as_the_table_shows_it() -> None:
    from engine.ratings import Ratings
    from firmware_host.tables.players import Seated  # the table's own view of the same events

    events = [{"seat": 1, "action": "in", "card": "60001111"}, {"seat": 1, "action": "away"},
              {"seat": 1, "action": "in", "card": "60001111"}, {"seat": 2, "action": "away"},
              {"seat": 1, "action": "away"}, {"seat": 3, "action": "in", "card": "60001111"}]
    r, seated = Ratings("uth-1"), Seated()
    for ts, body in enumerate(events):
        r.event("player", body, float(ts * 10))
        try:
            seated.apply_player(body)
        except Exception:
            pass
    [s] = r.open_sessions()
    assert (s.seat, s.away_since, s.breaks, s.away_s) == (3, None, 2, 20.0)
    assert seated.full() == {"3": {"card": "60001111", "source": "dealer", "away": False}}


def test_a_certificate_gives_uth_its_edges_where_the_profile_carries_none(tmp_path: Path) -> None:
    import subprocess
    import sys
    from fractions import Fraction

    from engine.paytables import read_profile

    rig = Rig(tmp_path / "state")
    rig.ok("player", seat=1, action="in", card=CARD)
    play_hands(rig.c, 2)  # hand 1 at seat 1 (Ante 100, Blind 100, Play 400), hand 2 at seat 2
    rig.c.journal.close()
    default = read_profile("default")
    abp, trips = "50643648973/2317817502000", "401956319543/2317817502000"
    certs = tmp_path / "certs"
    certs.mkdir()
    (certs / "default.json").write_text(json.dumps({
        "format": "croupier-paytable-certificate/1", "profile": {"name": "default", "sha256": default.sha256},
        "sheets": {"uth": {"bets": {"ante_blind_play": {"house_edge": 0.0218, "house_edge_exact": abp},
                                    "trips": {"house_edge": 0.17, "house_edge_exact": trips}}}}}))
    (certs / "not-one.json").write_text("{}")
    (tmp_path / "table.toml").write_text('[table]\nname = "uth-7"\ngame = "uth"\n[ratings]\nreinvestment = 0.25\n')
    done = croupier_here("ratings", "--state", str(tmp_path / "state"), "--json",  # in this process: no start-up
                         "--config", str(tmp_path / "table.toml"), "--certificates", str(certs))
    assert done.returncode == 0, done.stderr
    session = json.loads(done.stdout.splitlines()[0])
    theo = 100 * Fraction(abp)
    assert (session["table"], session["theo"], session["theo_complete"]) == ("uth-7", str(theo), True)
    assert session["comp_cents"] == round(theo / 4) and session["profile_sha256"] == default.sha256
    text = croupier_here("ratings", "--state", str(tmp_path / "state"), "--certificates", str(certs))
    assert text.returncode == 0, text.stderr
    assert "••••7890" in text.stdout and CARD not in text.stdout  # the text masks the card


@pytest.mark.parametrize("when", ["before any hand", "mid-hand", "after a close"])
def test_the_seats_are_found_again_at_a_restart_whenever_it_comes(tmp_path: Path, when: str) -> None:
    rig = Rig(tmp_path)
    rig.ok("player", seat=2, action="in", card=CARD)
    if when == "mid-hand":
        play_hands(rig.c, 1)
        rig.ok("bet", seat=1, bets={"ante": 100, "blind": 100})
        rig.ok("player", seat=5, action="in", card=OTHER)  # during the hand
        rig.ok("card", card="Ah")
    if when == "after a close":
        rig.ok("close")
        rig.ok("open", game="uth", profile="default", limits={"minimum": 100})
        rig.ok("player", seat=5, action="in", card=OTHER)
    before = rig.c.state.views()[1]["players"]
    rig.restart()
    assert rig.c.state.views()[1]["players"] == before
    assert set(before) == ({"2"} if when == "before any hand" else {"5"} if when == "after a close" else {"2", "5"})


def test_a_card_swiped_after_a_hand_leaves_the_settled_hand_on_show_across_a_restart(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    play_hands(rig.c, 2)
    assert rig.c.state.phase == "settled"
    rig.c.handle_reading(PlayerCardRead(4, OTHER))
    rig.ok("dealer", dealer="bo", action="in")
    shown = rig.c.state.views()[0]
    rig.restart()
    assert rig.c.state.phase == "settled" and rig.c.state.views()[0]["spots"] == shown["spots"]


def test_a_smart_tables_hand_is_rated_with_its_bets_read_from_the_chips(tmp_path: Path) -> None:
    from tests.firmware_host import test_table_chips as smart

    rig = smart.Rig(tmp_path)
    rig.reader()
    rig.ok("player", seat=3, action="in", card=CARD)
    smart.to_showdown(rig)
    smart.pay(rig)
    rig.ok("confirm")
    [session] = journal_ratings(rig.c.journal, "uth-1").reports()
    assert session["bets_from"] == {"chips": 1} and session["hand_numbers"] == [{"hand": 1, "seat": 3}]
    assert session["bets"] == {"ante": 500, "blind": 500, "play": 2000, "trips": 100}
    assert session["win"] == 2000 + 300  # the Play won 1:1, the Trips 3:1 (Ante and Blind pushed)
    rig.c.journal.close()
