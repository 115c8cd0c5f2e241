"""Rating sessions and dealer figures folded from journaled events: theo against an independent count, the published edges, breaks, moves, voids."""

from __future__ import annotations

import re
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from hypothesis import given, settings, strategies as st

from engine.paytables import read_profile
from engine.ratings import CIRCLE_BETS, Ratings, bet_edges, check_card, fold, half_even, mask_card

import pytest

UTH_APPROVED = '\n[uth.approved]\nante_blind_play = "50643648973/2317817502000"\ntrips = "233985/6689228"\n'
"""`croupier math uth`'s exact figures for the standard profile (docs/math.md), as a casino files them."""

STANDARD = read_profile("standard")
BARE = STANDARD.from_text(re.sub(r"\n\[(?:uth|3cp)\.approved\]\n(?:[^\[\n].*\n?)*", "\n", STANDARD.text), "bare.toml")
"""The standard paytables without the approved tables the builtin profile files (tests/analysis/test_builtin_approved.py)."""
RATED_TEXT = BARE.text + UTH_APPROVED
RATED = STANDARD.from_text(RATED_TEXT, "rated.toml")

PUBLISHED = {"uth": {"ante": Fraction("0.021850"), "trips": Fraction("0.034979")},
             "3cp": {"ante": Fraction("0.033730"), "pair_plus": Fraction("0.023167")}}
"""The issue's published figures (standard profiles), rounded to four places of a percent."""


def open_body(game: str, text: Any = RATED) -> dict[str, Any]:
    return {"game": game, "profile": {"name": text.name, "content": text.text, "sha256": text.sha256,
                                      "source": text.source}}


def record(hand: int, game: str, spots: Mapping[int, Mapping[str, int]], nets: Mapping[int, int],
           status: str = "settled", sha: str = RATED.sha256, **more: Any) -> dict[str, Any]:
    return {"hand": hand, "game": game, "status": status, "profile_sha256": sha,
            "spots": [{"seat": seat, "bets": dict(bets)} for seat, bets in spots.items()],
            "settlement": {"spots": [{"seat": s, "net": n} for s, n in nets.items()]} if status == "settled" else None,
            "faults": [], "corrected": [], **more}


def test_the_published_edges_are_the_standard_profiles_and_pair_plus_2_3167_is_1_4_6_30_40() -> None:
    uth = bet_edges("uth", RATED.parse(), RATED.sha256)
    assert f"{float(uth.edges['ante']) * 100:.4f}" == "2.1850" and f"{float(uth.edges['trips']) * 100:.4f}" == "3.4979"
    assert uth.sources["ante"] == "approved" and uth.edges["blind"] == uth.edges["play"] == 0
    tcp = bet_edges("3cp", BARE.parse(), BARE.sha256)
    assert tcp.edges["ante"] == Fraction(686689, 20358520) and tcp.sources["ante"] == "computed"
    assert tcp.edges["pair_plus"] == Fraction(512, 22100)  # 2.3167%: the standard profile's 1-4-6-30-40
    default = read_profile("default")
    assert bet_edges("3cp", default.parse(), default.sha256).edges["pair_plus"] == Fraction(1608, 22100)  # 7.28%
    # without approved figures or a certificate, UTH's Ante and Trips have no edge at the table
    bare = bet_edges("uth", BARE.parse(), BARE.sha256)
    assert "ante" not in bare.edges and "trips" not in bare.edges
    certified = bet_edges("uth", BARE.parse(), BARE.sha256, {"trips": Fraction(233985, 6689228)})
    assert certified.sources["trips"] == "certificate" and "ante" not in certified.edges


def test_a_session_rates_its_hands_exactly_and_counts_voids_breaks_and_moves_apart() -> None:
    r = Ratings("uth-1", reinvestment=Fraction(3, 10))
    r.event("open", open_body("uth"), 0.0)
    r.event("player", {"seat": 1, "action": "in", "card": "60001111", "source": "reader"}, 10.0)
    r.hand(record(1, "uth", {1: {"ante": 1000, "blind": 1000, "play": 4000, "trips": 500}, 2: {"ante": 500, "blind": 500}},
                  {1: 6500, 2: -1000}), 70.0)
    r.hand(record(2, "uth", {1: {"ante": 1000, "blind": 1000}}, {}, status="voided"), 130.0)
    r.event("player", {"seat": 1, "action": "away"}, 140.0)
    r.hand(record(3, "uth", {1: {"ante": 1000, "blind": 1000}}, {1: -2000}), 200.0)  # on a break: unrated
    assert r.reports()[0]["on_break"] and r.reports()[0]["open"]
    r.event("player", {"seat": 1, "action": "back"}, 740.0)
    assert not r.reports()[0]["on_break"]
    r.event("player", {"seat": 4, "action": "in", "card": "60001111", "source": "dealer"}, 750.0)  # moves to seat 4
    r.hand(record(4, "uth", {4: {"ante": 2000, "blind": 2000, "play": 2000}}, {4: -6000}), 800.0)
    r.event("player", {"seat": 4, "action": "out"}, 3610.0)
    [s] = r.reports()
    assert s["hand_numbers"] == [{"hand": 1, "seat": 1}, {"hand": 4, "seat": 4}]
    assert [x["seat"] for x in s["seats"]] == [1, 4] and s["voided"] == 1 and s["breaks"] == 1
    assert s["bets"] == {"ante": 3000, "blind": 3000, "play": 6000, "trips": 500} and s["win"] == 500
    theo = 3000 * Fraction(50643648973, 2317817502000) + 500 * Fraction(233985, 6689228)
    assert s["theo"] == str(theo) and s["theo_cents"] == round(theo) and s["theo_complete"]
    assert s["comp_cents"] == half_even(theo * Fraction(3, 10))
    assert s["played_s"] == 3600 - 600 and s["hands_per_hour"] == 2.4  # two hands in 50 minutes
    assert s["profile_sha256"] == RATED.sha256
    unrated = r.unrated_report()
    assert unrated["spot_hands"] == 2 and unrated["bets"] == {"ante": 1500, "blind": 1500} and unrated["win"] == -3000


def test_a_circle_without_an_edge_leaves_theo_incomplete_and_named() -> None:
    r = Ratings("uth-2")
    r.event("open", open_body("uth", BARE), 0.0)
    r.event("player", {"seat": 3, "action": "in", "card": "ABCD1234"}, 1.0)
    r.hand(record(1, "uth", {3: {"ante": 1000, "blind": 1000, "trips": 500}}, {3: 0}, sha=BARE.sha256), 2.0)
    [s] = r.reports()
    assert not s["theo_complete"] and s["theo_missing"] == ["ante", "trips"] and s["theo"] == "0"


def test_a_card_at_a_seat_taken_ends_the_session_before_and_a_table_close_ends_them_all() -> None:
    r = Ratings("3cp-1")
    r.event("open", open_body("3cp", STANDARD), 0.0)
    r.event("player", {"seat": 2, "action": "in", "card": "11112222"}, 1.0)
    r.event("player", {"seat": 2, "action": "in", "card": "33334444"}, 5.0)
    r.event("player", {"seat": 3, "action": "in", "card": "55556666"}, 6.0)
    r.event("close", {}, 9.0)
    assert [(s.player, s.start, s.end) for s in r.sessions()] == [
        ("11112222", 1.0, 5.0), ("33334444", 5.0, 9.0), ("55556666", 6.0, 9.0)]


def test_dealer_figures_follow_the_sign_ins() -> None:
    r = Ratings("uth-1")
    r.event("open", open_body("uth"), 0.0)
    r.event("dealer", {"dealer": "ana", "action": "in"}, 0.0)
    r.hand(record(1, "uth", {1: {"ante": 100, "blind": 100}, 2: {"ante": 100, "blind": 100}}, {1: 0, 2: 0},
                  corrected=[{"seat": 1}], faults=[{"kind": "misread"}]), 60.0)
    r.hand(record(2, "uth", {1: {"ante": 100, "blind": 100}}, {}, status="voided"), 120.0)
    r.event("dealer", {"dealer": "bo", "action": "in"}, 1200.0)  # a rotation: bo relieves ana
    r.hand(record(3, "uth", {1: {"ante": 100, "blind": 100}}, {1: 0}), 1300.0)
    r.event("dealer", {"dealer": "ana", "action": "in"}, 2400.0)
    r.event("close", {}, 3000.0)
    ana, bo = r.dealer_reports()
    assert (ana["turns"], ana["time_s"], ana["hands"], ana["voids"], ana["corrections"], ana["faults"]) == (2, 1800, 1, 1, 1, 1)
    assert ana["average_seats"] == 2 and ana["hands_per_hour"] == 2.0
    assert (bo["turns"], bo["time_s"], bo["hands"], bo["average_seats"], bo["on_table"]) == (1, 1200, 1, 1, False)


def test_the_chips_each_dealers_hands_caught_count_for_that_dealer() -> None:
    """A smart table's notes (mispays, moved and foreign chips) and tray flags in a hand's record count for the
    dealer who dealt it; a record without chips counts none."""
    r = Ratings("uth-1")
    r.event("open", open_body("uth"), 0.0)
    r.event("dealer", {"dealer": "ana", "action": "in"}, 0.0)
    caught = record(1, "uth", {1: {"ante": 100, "blind": 100}}, {1: 0}, faults=[{"kind": "mispay"}, {"kind": "chips_moved"}])
    caught["chips"] = {"notes": [{"kind": "mispay", "circles": []}, {"kind": "chips_moved", "antenna": "s1.ante"},
                                 {"kind": "mispay", "circles": []}, {"kind": "foreign_chip", "uid": "E0"}]}
    caught["tray"] = {"movements": [], "tray_change": None, "difference": None,
                      "flags": [{"value": -500, "hand": 1, "between": False, "event": 9}]}
    r.hand(caught, 60.0)
    r.event("dealer", {"dealer": "bo", "action": "in"}, 600.0)
    r.hand(record(2, "uth", {1: {"ante": 100, "blind": 100}}, {1: 0}), 700.0)
    ana, bo = r.dealer_reports()
    assert {k: ana[k] for k in ("mispays", "moved_chips", "foreign_chips", "tray_differences", "faults")} == {
        "mispays": 2, "moved_chips": 1, "foreign_chips": 1, "tray_differences": 1, "faults": 2}
    assert (bo["mispays"], bo["moved_chips"], bo["foreign_chips"], bo["tray_differences"]) == (0, 0, 0, 0)


def test_a_card_number_is_checked_without_being_repeated_and_masked_to_its_last_four() -> None:
    assert mask_card("6001234567") == "••••4567" and check_card("6001234567") == "6001234567"
    for bad in ("12", "6001 2345", "x" * 41, 6001234567, "60012345é"):
        with pytest.raises(ValueError) as err:
            check_card(bad)
        assert "6001" not in str(err.value)


# -- the property: theo equals an independent count from the hand records ----------------------------

SEATS = (1, 2, 3)
CARDS = ("70000001", "70000002", "70000003", "70000004")
steps = st.lists(st.one_of(
    st.tuples(st.just("player"), st.sampled_from(SEATS), st.sampled_from(("in", "out", "away", "back")),
              st.sampled_from(CARDS)),
    st.tuples(st.just("hand"), st.dictionaries(st.sampled_from(SEATS), st.tuples(
        st.integers(0, 50).map(lambda n: n * 100), st.integers(0, 4), st.integers(0, 20).map(lambda n: n * 100)),
        min_size=1), st.booleans(), st.integers(-5000, 5000)),
), max_size=40)


@settings(max_examples=150, deadline=None)
@given(steps)
def test_theo_equals_an_independent_count_from_the_hand_records(script: list[tuple[Any, ...]]) -> None:
    entries: list[tuple[str, Mapping[str, Any], float]] = [("open", open_body("uth"), 0.0)]
    records: dict[int, dict[str, Any]] = {}
    for i, step in enumerate(script, start=1):
        if step[0] == "player":
            _, seat, action, card = step
            entries.append(("player", {"seat": seat, "action": action, "card": card}, float(i)))
        else:
            _, spots, voided, net = step
            bets = {seat: {"ante": a, "blind": a, "play": a * m, "trips": t} for seat, (a, m, t) in spots.items()}
            rec = record(i, "uth", bets, {seat: net for seat in bets}, status="voided" if voided else "settled")
            records[i] = rec
            entries.append(("hand", rec, float(i)))
    ratings = fold("uth-1", entries)
    edges = {"ante": Fraction(50643648973, 2317817502000), "trips": Fraction(233985, 6689228)}
    rated: set[tuple[int, int]] = set()
    for s in ratings.reports():
        theo = Fraction(0)
        for counted in s["hand_numbers"]:
            hand, seat = counted["hand"], counted["seat"]
            rec = records[hand]
            assert rec["status"] == "settled" and (hand, seat) not in rated
            rated.add((hand, seat))
            staked_here: dict[str, int] = next(x["bets"] for x in rec["spots"] if x["seat"] == seat)
            theo += sum(staked_here[c] * e for c, e in edges.items())
        assert Fraction(s["theo"]) == theo and s["theo_cents"] == round(theo)
        assert abs(s["theo_cents"] - float(theo)) <= 0.5
    # every settled spot with a bet is either rated once or counted unrated
    staked = [(h, x["seat"]) for h, rec in records.items() if rec["status"] == "settled"
              for x in rec["spots"] if any(x["bets"].values())]
    assert len(rated) + ratings.unrated_report()["spot_hands"] == len(staked) and rated <= set(staked)
    # the published figures give each session's theo within one cent (ends of four-place percentages)
    for s in ratings.reports():
        published = sum(Fraction(s["bets"].get(c, 0)) * e for c, e in PUBLISHED["uth"].items())
        assert abs(published - Fraction(s["theo"])) < 1


def test_circle_bets_name_only_the_games_circles() -> None:
    from engine.games import HOUSE_GAMES
    for game, circles in CIRCLE_BETS.items():  # the bets posted before the deal, and the Play made later
        assert set(circles) == {*HOUSE_GAMES[game].bets, "play"}


def test_a_hand_whose_bets_were_read_from_the_chips_is_counted_so() -> None:
    r = Ratings("uth-1")
    r.event("open", open_body("uth"), 0.0)
    r.event("player", {"seat": 1, "action": "in", "card": "60001111"}, 1.0)
    r.hand(record(1, "uth", {1: {"ante": 500, "blind": 500}}, {1: 0}), 2.0)
    read = {"source": "chips", "bets_read": {"1": {"ante": 500, "blind": 500}}}
    r.hand(record(2, "uth", {1: {"ante": 500, "blind": 500}}, {1: 0}, chips=read), 3.0)
    r.hand(record(3, "uth", {1: {"ante": 500, "blind": 500}}, {1: 0}, chips={"source": None, "bets_read": {}}), 4.0)
    [s] = r.reports()
    assert s["bets_from"] == {"taps": 2, "chips": 1}  # the reader offline at hand 3: the taps



SIGNED = {"user": "sam", "caller_role": "pit", "caller_key": "pit-1"}


def test_the_pit_opens_a_declined_players_session_and_enters_his_unrated_play_its_theo_exact() -> None:
    ante = Fraction(50643648973, 2317817502000)  # UTH's Ante + Blind + Play edge a unit of Ante, as approved
    r = Ratings("uth-1", reinvestment=Fraction(1, 5))
    r.event("open", open_body("uth"), 0.0)
    r.event("rating", {"seat": 3, "action": "open", "signed_off": SIGNED}, 100.0)
    r.event("rating", {"seat": 5, "action": "open", "signed_off": SIGNED}, 110.0)  # another declined player
    r.hand(record(1, "uth", {3: {"ante": 1000, "blind": 1000, "play": 2000}, 5: {"ante": 500, "blind": 500}},
                  {3: 4000, 5: -1000}), 160.0)
    # the forty minutes before the pit came: 30 hands at an Ante of 25.00, and the start put back
    r.event("rating", {"seat": 3, "action": "adjust", "hands": 30, "average_bet": 2500, "start": -2300,
                       "signed_off": SIGNED}, 200.0)
    r.event("rating", {"seat": 3, "action": "adjust", "hands": 30, "average_bet": 2000, "signed_off": SIGNED}, 210.0)
    r.event("rating", {"seat": 3, "action": "close", "end": 3000, "signed_off": SIGNED}, 3700.0)
    three, five = r.sessions()
    assert (three.player, three.source, five.player) == ("declined", "pit", "declined") and five.end is None
    s = three.report(r.now, r.reinvestment)
    entered = 30 * 2000 * ante  # the second entry replaced the first
    theo = 1000 * ante + entered
    assert s["declined"] and s["hands"] == 1 and s["bets"] == {"ante": 1000, "blind": 1000, "play": 2000}
    assert s["entered"] == {"hands": 30, "average_bet": 2000, "theo": str(entered), "theo_cents": round(entered)}
    assert s["theo"] == str(theo) and s["theo_cents"] == half_even(theo) == 1333 and s["theo_complete"]
    assert s["comp_cents"] == half_even(theo / 5)
    assert (s["start"], s["rated_start"], s["end"], s["played_s"]) == (100.0, -2300.0, 3000.0, 5300.0)
    assert [(a["action"], a["before"], a["after"], a["by"]) for a in s["adjustments"]] == [
        ("open", None, {"player": "declined"}, "sam"),
        ("start", {"start": 100.0}, {"start": -2300.0}, "sam"),
        ("unrated_play", None, {"hands": 30, "average_bet": 2500}, "sam"),
        ("unrated_play", {"hands": 30, "average_bet": 2500}, {"hands": 30, "average_bet": 2000}, "sam"),
        ("close", {"end": 3700.0}, {"end": 3000.0}, "sam")]
    assert mask_card("declined") == "declined"


def test_a_pit_opened_card_session_is_the_cards_and_an_entered_start_or_end_is_held_to_the_session() -> None:
    r = Ratings("3cp-1")
    r.event("open", open_body("3cp", STANDARD), 0.0)
    r.event("rating", {"seat": 2, "action": "open", "card": "60002222", "start": 900}, 500.0)  # no later than now
    r.event("player", {"seat": 4, "action": "in", "card": "60002222", "source": "reader"}, 600.0)  # moves seats
    r.event("rating", {"seat": 4, "action": "close", "end": 10}, 700.0)  # not before the start
    [s] = r.reports()
    assert (s["player"], s["source"], s["rated_start"], s["end"], s["played_s"]) == ("60002222", "pit", 500.0, 500.0, 0)
    r.event("rating", {"seat": 4, "action": "adjust", "hands": 5, "average_bet": 100}, 800.0)  # no session there
    r.event("rating", {"seat": 1, "action": "adjust", "hands": 5, "average_bet": 100}, 800.0)
    assert r.reports() == [s] and not r.open_sessions()


def test_a_closed_session_named_by_its_start_and_seat_takes_the_unrated_play_and_keeps_its_end() -> None:
    ante = Fraction(686689, 20358520)  # 3CP's Ante-and-Play edge a unit of Ante, as the standard profile files it
    r = Ratings("3cp-1")
    r.event("open", open_body("3cp", STANDARD), 0.0)
    r.event("player", {"seat": 2, "action": "in", "card": "60001111"}, 100.25)
    r.hand(record(1, "3cp", {2: {"ante": 1000, "play": 1000}}, {2: 2000}, sha=STANDARD.sha256), 150.0)
    r.event("player", {"seat": 2, "action": "out"}, 200.0)
    r.event("player", {"seat": 2, "action": "in", "card": "60003333"}, 300.0)  # the next player at that seat
    assert r.closed_session(2, 100.25) is r.closed_session(2, 100) is r.sessions()[0]  # its start, or that second
    assert r.closed_session(2, 101) is None and r.closed_session(3, 100.25) is None
    r.event("rating", {"seat": 2, "action": "adjust", "session": 100.25, "hands": 20, "average_bet": 500,
                       "start": 999, "signed_off": SIGNED}, 400.0)
    r.event("rating", {"seat": 2, "action": "adjust", "session": 77.0, "hands": 9, "average_bet": 9}, 410.0)  # none
    left, here = r.reports()
    assert (left["player"], left["start"], left["end"], left["open"]) == ("60001111", 100.25, 200.0, False)
    assert left["rated_start"] == 200.0  # an entered start never after the session's end
    assert left["theo"] == str(1000 * ante + 20 * 500 * ante) and left["entered"]["hands"] == 20
    assert [(a["action"], a["by"]) for a in left["adjustments"]] == [("start", "sam"), ("unrated_play", "sam")]
    assert (here["player"], here["entered"], here["adjustments"]) == ("60003333", None, [])  # the seat's open one untouched


def test_unrated_play_entered_before_any_paytables_are_known_leaves_the_theo_incomplete() -> None:
    r = Ratings("uth-1")
    r.event("rating", {"seat": 1, "action": "open"}, 10.0)
    r.event("rating", {"seat": 1, "action": "adjust", "hands": 10, "average_bet": 1000}, 20.0)
    [s] = r.reports()
    assert s["entered"]["theo"] == "0" and not s["theo_complete"] and s["theo_missing"] == ["ante"]


def test_declined_is_never_taken_as_a_card_number() -> None:
    with pytest.raises(ValueError, match="declined"):
        check_card("Declined")


def test_a_session_of_an_earlier_opening_takes_the_play_at_its_own_paytables_and_its_stored_report_the_same() -> None:
    """The table closed and opened again on other paytables: a session of the evening is adjusted at the Ante's edge
    it played on; the archive's fold, which holds only the current opening, applies the step to the stored report
    and gets the very report the whole fold gets, once however often the step is read."""
    ante = Fraction(686689, 20358520)  # the standard profile's 3CP Ante-and-Play edge
    evening = [("open", open_body("3cp", STANDARD), 0.0),
               ("player", {"seat": 2, "action": "in", "card": "60001111"}, 100.0),
               ("player", {"seat": 2, "action": "away"}, 120.0), ("player", {"seat": 2, "action": "back"}, 133.3333),
               ("hand", record(1, "3cp", {2: {"ante": 1000, "play": 1000}}, {2: 2000}, sha=STANDARD.sha256), 150.0),
               ("player", {"seat": 2, "action": "out"}, 200.0),
               ("player", {"seat": 2, "action": "in", "card": "60002222"}, 200.5),  # the next player at that seat
               ("close", {}, 400.0)]
    night = [("open", open_body("3cp", BARE), 500.0)]  # other paytables: no approved 3CP figures
    step = ("rating", {"seat": 2, "action": "adjust", "session": 100.0, "hands": 20, "average_bet": 500,
                       "was": {"card": "60001111", "session": 100.0}, "signed_off": SIGNED}, 600.0)
    whole = fold("3cp-1", [*evening, *night, step])
    left, after = whole.reports()
    assert (left["player"], left["entered"], after["entered"]) == ("60001111", {
        "hands": 20, "average_bet": 500, "theo": str(20 * 500 * ante), "theo_cents": half_even(20 * 500 * ante)}, None)
    assert left["theo"] == str(1000 * ante + 20 * 500 * ante) and left["theo_complete"]
    stored = fold("3cp-1", evening).reports()[0]  # the archive's row, folded with its opening
    current = fold("3cp-1", night)
    current.edges.update(whole.edges)  # the archive makes the session's paytables known from its hand's line
    assert current.adjust_stored(stored, step[1], step[2]) == left
    assert current.adjust_stored(left, step[1], step[2]) is None  # the step there already: nothing changes
    assert whole.closed_session(2, 200) is whole.sessions()[1] and whole.closed_session(2, 100.0) is whole.sessions()[0]
