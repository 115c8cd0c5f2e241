"""`croupier phh replay` and `croupier phh export` from the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.phh import parse_phh, parse_phhs, replay
from cli import main

DATA = Path(__file__).resolve().parents[1] / "data" / "phh" / "data"
HANDHQ = DATA / "handhq" / "PS-2009-07-01_2009-07-23_25NLH_OBFU" / "0.25" / "ps NLH handhq_1-OBFUSCATED.phhs"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str], str]:
    status = main(["phh", *argv])
    out, err = capsys.readouterr()
    return status, out.splitlines(), err


def test_replay_prints_one_line_per_hand(capsys: pytest.CaptureFixture[str]) -> None:
    status, lines, _ = run(capsys, "replay", str(DATA / "dwan-ivey-2009.phh"), str(DATA / "pluribus/102/0.phh"))
    assert status == 0
    assert [json.loads(line) for line in lines] == [
        {"file": str(DATA / "dwan-ivey-2009.phh"), "index": 0, "variant": "NT",
         "finishing_stacks": [572100, 1997500, 1109500]},
        {"file": str(DATA / "pluribus/102/0.phh"), "index": 0, "variant": "NT",
         "finishing_stacks": [10113, 9775, 10000, 10000, 10112, 10000]},
    ]


def test_a_phhs_goes_on_after_a_hand_it_cannot_follow(capsys: pytest.CaptureFixture[str]) -> None:
    status, lines, _ = run(capsys, "replay", str(HANDHQ))
    assert status == 1
    rows = [json.loads(line) for line in lines]
    assert [r["index"] for r in rows] == list(range(9))
    assert "error" not in rows[0] and rows[0]["finishing_stacks"] == [24.9, 55.6, 16.35, 23.9]
    assert '"finishing_stacks": [24.90, 55.60, 16.35, 23.90]' in lines[0]  # exact decimals, as the record writes
    assert rows[8]["error"].startswith("blinds_or_straddles[2] = -0.25: a posted blind out of position")
    assert all("error" not in r for r in rows[:8])


def test_errors_name_the_action(capsys: pytest.CaptureFixture[str]) -> None:
    status, lines, _ = run(capsys, "replay", str(DATA / "wsop/2023/43/5/85.phh"), str(DATA / "phua-xuan-2019.phh"))
    assert status == 1
    razz, short_deck = (json.loads(line) for line in lines)
    assert razz["error"] == "action 'p2 cbr 750000' (#19): seat 1 may raise to 1200000 only, not 750000"
    assert razz["variant"] == "FR"
    assert "short-deck hold'em" in short_deck["error"] and "is not one of our games" in short_deck["error"]


def test_check_compares_with_the_record(capsys: pytest.CaptureFixture[str]) -> None:
    status, lines, _ = run(capsys, "replay", "--check", str(DATA / "pluribus/102/0.phh"), str(DATA / "pluribus/100/0.phh"))
    assert status == 0
    half, whole = (json.loads(line) for line in lines)
    assert half["matches"] is False and half["recorded"][0] == 10112.5
    assert whole["matches"] is True


def test_unreadable_files_exit_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    bad = tmp_path / "bad.phh"
    bad.write_text("variant = = 'NT'")
    status, lines, _ = run(capsys, "replay", str(tmp_path / "missing.phh"), str(bad), str(DATA / "pluribus/100/0.phh"))
    assert status == 2
    rows = [json.loads(line) for line in lines]
    assert rows[0]["error"].startswith("cannot read the file") and rows[1]["error"].startswith("cannot read the file: not TOML")
    assert rows[2]["finishing_stacks"] == list(replay(parse_phh((DATA / "pluribus/100/0.phh").read_text())))


def test_the_whole_sample_replays_from_the_command_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    files = sorted(str(p) for p in DATA.rglob("*.phh*"))
    status, lines, _ = run(capsys, "replay", "--check", *files)
    rows = [json.loads(line) for line in lines]
    assert status == 1 and len(rows) == 1144
    errors = [r for r in rows if "error" in r]
    assert sorted(Path(r["file"]).name for r in errors) == [
        "00-01-07.phh", "85.phh", "phua-xuan-2019.phh", "ps NLH handhq_1-OBFUSCATED.phhs"]
    differ = {Path(r["file"]).relative_to(DATA).as_posix() for r in rows if r.get("matches") is False}
    assert differ == {"pluribus/102/0.phh", "pluribus/41b/204.phh"}  # the half-chip splits
    assert sum(1 for r in rows if r.get("matches") is True) == 1126


RECORD = {
    "variant": "holdem", "structure": "no-limit", "stakes": {"blinds": [1, 2]},
    "stacks": {"1": 200, "4": 350, "6": 120}, "button": 6, "burns": True,
    "events": [["deal", "3h"], ["deal", "As"], ["deal", "Kd"], ["deal", "2c"], ["deal", "Ah"], ["deal", "Qs"],
               ["deal", "7d"], ["raise", 6, 6], ["fold", 1], ["call", 4],
               ["deal", "4h"], ["deal", "Kc"], ["deal", "8d"], ["deal", "2s"], ["check", 4], ["bet", 6, 10],
               ["call", 4], ["deal", "5h"], ["deal", "9c"], ["check", 4], ["check", 6],
               ["deal", "6h"], ["deal", "Jd"], ["check", 4], ["check", 6], ["show", 4], ["show", 6]],
    "unit": "0.01", "fields": {"table": 3, "hand": 17, "players": ["Ann", "Bob", "Cid"]},
}


def test_export_writes_a_hand_of_our_table_as_phh(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(RECORD))
    status, lines, _ = run(capsys, "export", str(path))
    assert status == 0
    hand = parse_phh("\n".join(lines))
    assert hand.variant == "NT" and hand.players == ("Ann", "Bob", "Cid")
    assert [a.format() for a in hand.actions] == [
        "d dh p1 AsAh", "d dh p2 KdQs", "d dh p3 2c7d", "p3 cbr 0.06", "p1 f", "p2 cc",
        "d db Kc8d2s", "p2 cc", "p3 cbr 0.10", "p2 cc", "d db 9c", "p2 cc", "p3 cc", "d db Jd",
        "p2 cc", "p3 cc", "p2 sm KdQs", "p3 sm 2c7d"]
    assert dict(hand.extra) == {"hand": 17, "seats": [1, 4, 6], "table": 3}
    # Ann posted the small blind; Bob's pair of kings wins 0.33 from Cid's 0.16 and Ann's 0.01.
    assert hand.finishing_stacks == tuple(map(__import__("decimal").Decimal, ("1.99", "3.67", "1.04")))
    assert tuple(hand.amount(s) for s in replay(hand)) == hand.finishing_stacks


def test_export_of_a_chop_by_agreed_shares(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    record = dict(RECORD, events=RECORD["events"][:14] + [["chop", {"4": 10, "6": 3}]])  # type: ignore[index, operator]
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(record))
    status, lines, err = run(capsys, "export", str(path))
    assert status == 0, err
    hand = parse_phh("\n".join(lines))
    assert dict(hand.extra)["chopped"] is True
    assert hand.finishing_stacks == tuple(map(__import__("decimal").Decimal, ("1.99", "3.54", "1.17")))
    assert tuple(hand.amount(s) for s in replay(hand)) == hand.finishing_stacks


def test_export_many_as_phhs_and_refusals(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "hands.json"
    path.write_text(json.dumps([RECORD, RECORD]))
    status, lines, _ = run(capsys, "export", "--phhs", str(path))
    assert status == 0 and len(parse_phhs("\n".join(lines))) == 2
    bad = dict(RECORD, events=[["deal", "3h"], ["deal", "As"], ["fold", 4]])
    path.write_text(json.dumps(bad))
    status, lines, err = run(capsys, "export", str(path))
    assert status == 2 and lines == []
    assert "event #3 ['fold', 4]: not now: the shoe must deal a hole card to seat 4" in err


# --- export from the table's journal ------------------------------------------------------------------


def journal_with_hands(state: Path, chop: bool = False) -> None:
    """Play two hands at a poker table of the controller and journal them as the controller does."""
    from firmware_host.service.journal import Journal
    from firmware_host.tables.poker.table import PokerSetup

    setup = PokerSetup.from_body({"game": "holdem", "structure": "no-limit", "stakes": {"blinds": [1, 2]},
                                  "seats": 3, "stacks": {"1": 200, "2": 200, "3": 200}, "button": 3})
    journal = Journal.open(state)
    table = setup.new_table(1)
    cards = iter("3h As Kd 2c Ah Qs 7d 4h Kc 8d 2s 5h 9c 6h Jd".split())
    table.deal()
    for _ in range(7):
        table.take_card(next(cards))
    table.act(3, "raise", 6)
    table.act(1, "fold")
    table.act(2, "call")
    for _ in range(4):
        table.take_card(next(cards))
    if chop:
        table.chop()
    else:
        table.act(2, "check")
        table.act(3, "bet", 10)
        table.act(2, "call")
        for card in "5h 9c 6h Jd".split():
            table.take_card(card)
            if card in ("9c", "Jd"):
                table.act(2, "check")
                table.act(3, "check")
        table.act(2, "show")
        table.act(3, "show")
    event = journal.begin(1, "settle", {}, 0.0)
    journal.close_hand(1, "holdem", "settled", event, 0.0, table.record("settled", {}))
    journal.commit()
    journal.close()


def test_export_reads_the_poker_hands_of_the_journal(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    journal_with_hands(tmp_path)
    status, lines, err = run(capsys, "export", "--state", str(tmp_path))
    assert status == 0, err
    hand = parse_phh("\n".join(lines))
    assert hand.variant == "NT"
    assert dict(hand.extra)["seats"] == [1, 2, 3] and dict(hand.extra)["hand"] == 1
    assert [a.format() for a in hand.actions][:6] == [
        "d dh p1 AsAh", "d dh p2 KdQs", "d dh p3 2c7d", "p3 cbr 6", "p1 f", "p2 cc"]
    assert hand.finishing_stacks == (199, 217, 184)  # seat 2's kings beat seat 3's sevens
    assert replay(hand) == hand.finishing_stacks


def test_export_of_a_chopped_pot_keeps_the_table_result(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    journal_with_hands(tmp_path, chop=True)
    status, lines, err = run(capsys, "export", "--state", str(tmp_path), "--hand", "1")
    assert status == 0, err
    hand = parse_phh("\n".join(lines))
    # 13 chopped between seats 2 and 3, the odd chip to seat 2 (first left of the button, seat 3);
    # the record stops at the flop, where the chop ended the hand.
    assert hand.finishing_stacks == (199, 201, 200)
    assert dict(hand.extra)["chopped"] is True
    assert replay(hand) == (199, 201, 200)  # chopped where the record stops, as it says
    status, _, err = run(capsys, "export", "--state", str(tmp_path), "--hand", "7")
    assert status == 1 and "no settled poker hand 7" in err
    status, _, err = run(capsys, "export", "--state", str(tmp_path / "none"))
    assert status == 2 and "no journal" in err
