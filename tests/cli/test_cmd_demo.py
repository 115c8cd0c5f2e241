"""`croupier demo` end to end: its processes play, it prints one JSON summary line and exits 0."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from firmware_host.service.journal import Journal


def demo(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cli", "demo", *args], capture_output=True, text=True,
                          timeout=120, check=False)


def test_demo_plays_and_prints_one_summary_line(tmp_path: Path) -> None:
    done = demo("--hands", "3", "--seed", "4", "--state", str(tmp_path / "j"))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    summary = json.loads(lines[-1])
    assert summary["hands"] == 3 and summary["settled"] == 3 and summary["voided"] == 0 and summary["faults"] == 0
    assert isinstance(summary["house_net"], int)
    # not a terminal: the live view printed plain lines of the public feed, hole cards hidden
    assert lines[0].startswith("pages: http://")  # `--web` by default: the pages' address first
    view = [line for line in lines[1:-1] if " update " in line]
    # a controller slow to start (a busy machine) is said as such, OFFLINE then ONLINE: the rest is the feed
    live = [line for line in lines[1:-1] if not line.startswith(("OFFLINE: ", "ONLINE: "))]
    assert view and all(line.startswith("seq=") for line in live)
    assert any("[?? ??]" in line for line in view)
    assert (tmp_path / "j" / "journal.sqlite3").exists()


def test_demo_3cp_deals_one_spot_under_its_own_profile(tmp_path: Path) -> None:
    refused = demo("--game", "3cp", "--seats", "8")
    assert refused.returncode == 2 and "3cp" in refused.stderr
    done = demo("--game", "3cp", "--seats", "1", "--hands", "2", "--quiet", "--state", str(tmp_path / "j"))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {**json.loads(done.stdout), "hands": 2, "settled": 2, "voided": 0, "faults": 0}
    journal = Journal.open(tmp_path / "j", readonly=True)
    rows = journal.hands()
    journal.close()
    assert {len(r.record["spots"]) for r in rows} == {1} and {r.record["profile"] for r in rows} == {"demo"}


def test_the_demo_profile_is_the_default_but_for_the_3cp_minimum(tmp_path: Path) -> None:
    from engine.paytables import load_profile
    from sim.demo_profile import write_demo_profile
    demo_profile = load_profile(str(write_demo_profile(tmp_path / "demo.toml")))
    default = load_profile("default")
    assert demo_profile.three_card_poker.min_players == 1 and default.three_card_poker.min_players == 5
    assert demo_profile.three_card_poker.pair_plus == default.three_card_poker.pair_plus
    assert demo_profile.uth == default.uth


def test_demo_plays_poker_with_the_structure_asked(tmp_path: Path) -> None:
    done = demo("--game", "deuce_seven_triple", "--structure", "pot-limit", "--seats", "4", "--hands", "2", "--quiet",
                "--state", str(tmp_path / "j"))
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary == {"hands": 2, "settled": 2, "voided": 0, "faults": 0, "rake": summary["rake"],
                       "chips_conserved": True}
    assert summary["rake"] > 0  # the simulated table's rake: 5 % of each pot that saw a draw
    journal = Journal.open(tmp_path / "j", readonly=True)
    rows = journal.hands()
    journal.close()
    assert {(r.game, r.record["structure"]) for r in rows} == {("deuce_seven_triple", "pot-limit")}
    assert any(r.record["discards"] for r in rows)  # the draws' discards passed the discard reader
    assert {len(r.record["stacks"]) for r in rows} == {4}


def test_demo_refuses_poker_options_that_do_not_fit() -> None:
    for args, said in ((("--game", "uth", "--structure", "no-limit"), "--structure is for the poker games"),
                       (("--game", "badugi", "--seats", "7"), "--seats 7 is not possible for badugi (2..6)"),
                       (("--game", "holdem", "--dealer", "web", "--web", "off"), "--dealer web needs the pages"),
                       (("--game", "omaha", "--structure", "table-stakes"), "invalid choice")):
        refused = demo(*args)
        assert refused.returncode == 2 and said in refused.stderr, (args, refused.stderr)
        assert "Traceback" not in refused.stderr


def test_demo_refuses_to_deal_a_tournament_from_the_console() -> None:
    """Found asking the demo for a tournament table dealt by hand (`--tournament --dealer web`): it ran the bot dealers'
    tournament and served no console, the option taken without a word."""
    for extra in (("--dealer", "web"), ("--players-by", "web")):
        refused = demo("--tournament", "--players", "4", "--tables", "1", "--web", "127.0.0.1:0", *extra)
        assert refused.returncode == 2 and "not a tournament" in refused.stderr, (extra, refused.stderr)
        assert "Traceback" not in refused.stderr
