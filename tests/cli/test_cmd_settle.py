"""`croupier settle`: JSON Lines in, one result line each; bad lines reported and skipped; exit status."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

from cli.settle import run

UTH = {"game": "uth", "dealer": ["Qh", "Jc"], "board": ["2c", "7d", "9h", "4s", "3c"],
       "spots": [{"seat": 1, "cards": ["As", "Kd"], "bets": {"ante": 1000, "blind": 1000, "trips": 500},
                  "play": {"street": "preflop", "multiple": 4}}]}
TCP = {"game": "3cp", "dealer": ["Ks", "7d", "2c"],
       "spots": [{"seat": 1, "cards": ["Qh", "Qd", "5s"], "bets": {"ante": 500, "pair_plus": 500}, "play": True},
                 {"seat": 2, "cards": ["9s", "9d", "4c"], "bets": {"pair_plus": 100}}]}


def settle(text: str, profile: str = "default", table: str | None = None) -> tuple[int, list[dict[str, object]], str]:
    out, err = io.StringIO(), io.StringIO()
    status = run(profile, table, io.StringIO(text), out, err)
    return status, [json.loads(line) for line in out.getvalue().splitlines()], err.getvalue()


def test_settles_each_line() -> None:
    status, lines, _ = settle(json.dumps(UTH) + "\n" + json.dumps(TCP) + "\n")
    assert status == 0
    assert lines[0]["spots"][0]["results"] == {"ante": 0, "blind": 0, "play": 4000, "trips": -500}  # type: ignore[index]
    assert lines[0]["house_net"] == -3500
    assert lines[0]["dealer"] == {"hand": "High card, queen", "category": "high_card", "qualifies": False}
    assert [s["results"] for s in lines[1]["spots"]] == [  # type: ignore[attr-defined]
        {"ante": 500, "play": 500, "pair_plus": 500}, {"pair_plus": 100}]
    assert lines[1]["house_net"] == -1600


def test_bad_lines_are_reported_and_the_rest_settled() -> None:
    dup = json.loads(json.dumps(TCP))
    dup["spots"][1]["cards"] = ["Qh", "9d", "4c"]
    illegal = json.loads(json.dumps(UTH))
    illegal["spots"][0]["play"] = {"street": "river", "multiple": 2}
    text = "\n".join(["{not json", json.dumps(UTH), json.dumps(dup), "", json.dumps(illegal),
                      json.dumps({"game": "uth"}), json.dumps(TCP)]) + "\n"
    status, lines, _ = settle(text)
    assert status == 1
    assert len(lines) == 6  # the blank line 4 is skipped, but counted
    assert lines[0]["line"] == 1 and "not JSON" in str(lines[0]["error"])
    assert lines[1]["house_net"] == -3500
    assert lines[2] == {"line": 3, "error": "duplicate card: Qh appears twice in the round"}
    assert lines[3]["line"] == 5 and "play 2x is not legal at the river" in str(lines[3]["error"])
    assert lines[4]["line"] == 6 and '"dealer" is missing' in str(lines[4]["error"])
    assert lines[5]["house_net"] == -1600


def test_profiles_and_table_file(tmp_path: Path) -> None:
    flush = {"game": "3cp", "dealer": ["Ks", "7d", "2c"],
             "spots": [{"seat": 3, "cards": ["2h", "8h", "Jh"], "bets": {"pair_plus": 100}}]}
    assert settle(json.dumps(flush), "default")[1][0]["house_net"] == -300
    assert settle(json.dumps(flush), "standard")[1][0]["house_net"] == -400
    profile = tmp_path / "casino.toml"
    text = (Path(__file__).parents[2] / "engine" / "profiles" / "standard.toml").read_text()
    profile.write_text(text.replace("flush = [4, 1]", "flush = [5, 1]"))
    assert settle(json.dumps(flush), str(profile))[1][0]["house_net"] == -500

    table = tmp_path / "table.toml"
    table.write_text("[limits]\nminimum = 100\nmaximum = 2000\nside_minimum = 100\nside_maximum = 200\n")
    status, lines, _ = settle(json.dumps(UTH) + "\n" + json.dumps(flush) + "\n", table=str(table))
    assert status == 1
    assert lines[0] == {"line": 1, "error": "spot 1: trips 500 is above the side-bet maximum 200"}
    assert lines[1]["house_net"] == -300


def test_unusable_profile_or_table(tmp_path: Path) -> None:
    status, lines, err = settle(json.dumps(UTH), "casino_royale")
    assert (status, lines) == (2, []) and "no such profile" in err
    table = tmp_path / "table.toml"
    table.write_text("[limits]\nminimum = 100\nmaximum = 5000\n")  # beyond 30 x the minimum
    status, lines, err = settle(json.dumps(UTH), "default", str(table))
    assert (status, lines) == (2, []) and "more than 30 times the minimum" in err
    status, _, err = settle(json.dumps(UTH), "default", str(tmp_path / "missing.toml"))
    assert status == 2 and "cannot read the table file" in err


def test_the_croupier_command() -> None:
    proc = subprocess.run([sys.executable, "-m", "cli", "settle", "--profile", "standard"],
                          input=json.dumps(UTH) + "\n" + "[]\n", capture_output=True, text=True, timeout=60,
                          cwd=Path(__file__).parents[2])
    assert proc.returncode == 1
    first, second = (json.loads(line) for line in proc.stdout.splitlines())
    assert first["spots"][0]["results"]["trips"] == -500
    assert second == {"line": 2, "error": "round: must be an object, not an array"}


# -- strict input, through the real command (bytes on stdin, as a dealer's file or pipe gives them) -----


def croupier_settle(data: bytes, *args: str) -> tuple[int, list[dict[str, object]]]:
    proc = subprocess.run([sys.executable, "-m", "cli", "settle", *args], input=data,
                          capture_output=True, timeout=60, cwd=Path(__file__).parents[2])
    assert b"Traceback" not in proc.stderr, proc.stderr
    return proc.returncode, [json.loads(line) for line in proc.stdout.decode("utf-8").splitlines()]


def test_cards_in_any_other_case_are_refused_as_the_error_text_says() -> None:
    lower = json.loads(json.dumps(TCP))
    lower["dealer"] = ["ks", "7d", "2c"]
    upper = json.loads(json.dumps(TCP))
    upper["spots"][0]["cards"] = ["QH", "Qd", "5s"]
    status, lines = croupier_settle(f"{json.dumps(lower)}\n{json.dumps(upper)}\n{json.dumps(TCP)}\n".encode())
    assert status == 1
    assert lines[0] == {"line": 1, "error": 'dealer: not a card: "ks" (expected rank of 23456789TJQKA and '
                                            'suit of cdhs, e.g. "As")'}
    assert lines[1]["line"] == 2 and str(lines[1]["error"]).startswith('spot 1: cards: not a card: "QH"')
    assert lines[2]["house_net"] == -1600  # the good line after them is still settled


def test_a_key_given_twice_is_refused_naming_it() -> None:
    text = json.dumps(TCP).replace('"ante": 500', '"ante": 500, "ante": 100')
    again = json.dumps(TCP).replace('"game": "3cp"', '"game": "3cp", "game": "uth"')
    status, lines = croupier_settle(f"{text}\n{again}\n".encode())
    assert status == 1
    assert lines == [{"line": 1, "error": 'duplicate key "ante"'}, {"line": 2, "error": 'duplicate key "game"'}]


def test_stakes_are_bounded_without_a_table_file() -> None:
    from engine.house import STAKE_CEILING
    huge = json.dumps(TCP).replace('"ante": 500', '"ante": ' + "1" + "0" * 36)
    top = json.dumps(TCP).replace('"ante": 500', f'"ante": {STAKE_CEILING}')
    over = json.dumps(TCP).replace('"pair_plus": 100', f'"pair_plus": {STAKE_CEILING + 1}')
    status, lines = croupier_settle(f"{huge}\n{top}\n{over}\n".encode())
    assert status == 1
    assert lines[0] == {"line": 1, "error": f"spot 1: ante: {10**36} is above the engine's ceiling on any "
                                            f"stake, {STAKE_CEILING}"}
    assert lines[1]["house_net"] == -(2 * STAKE_CEILING + 500 + 100)  # the ceiling itself is a stake
    assert lines[2]["line"] == 3 and "spot 2: pair_plus" in str(lines[2]["error"])


def test_errors_spell_values_as_json() -> None:
    true_ante = json.dumps(TCP).replace('"ante": 500', '"ante": true')
    null_dealer = json.dumps({**TCP, "dealer": ["Ks", None, "2c"]})
    escaped = '{"game": "K\\udcc3"}'  # a lone surrogate written as a JSON escape
    status, lines = croupier_settle(f"{true_ante}\n{null_dealer}\n{escaped}\n".encode())
    assert status == 1
    assert lines[0] == {"line": 1, "error": "spot 1: ante: a stake must be a positive integer, not true"}
    assert lines[1] == {"line": 2, "error": 'dealer: must be a list of cards such as ["As", "Kd"], '
                                            'not ["Ks", null, "2c"]'}
    assert lines[2] == {"line": 3, "error": 'round: game must be one of "uth", "3cp", not "K\\udcc3"'}


def test_bytes_that_are_not_utf8_are_named_by_position() -> None:
    bad = b'{"game": "3cp", "dealer": ["K\xc3", "7d", "2c"], "spots": []}\n'
    status, lines = croupier_settle(bad + json.dumps(TCP).encode() + b"\n")
    assert status == 1
    assert lines[0] == {"line": 1, "error": "not valid UTF-8 at byte 30 (0xc3)"}
    assert lines[1]["house_net"] == -1600


def _record(chip: int = 5) -> dict[str, object]:
    """A finished hand as `croupier history --json` prints it: a 3:2 Blind of 15 at a table with a chip of 5."""
    from engine.paytables import read_profile
    text = read_profile("default")
    flush = {"game": "uth", "dealer": ["Qh", "Jc"], "board": ["2h", "7h", "9h", "4s", "3c"],
             "spots": [{"seat": 1, "cards": ["Ah", "Kh"], "bets": {"ante": 15, "blind": 15},
                        "play": {"street": "preflop", "multiple": 4}}]}
    return {"hand": 7, "status": "settled", "burns": [], "round": flush, "settlement": None,
            "profile": {"name": text.name, "sha256": text.sha256, "content": text.text},
            "limits": {"minimum": 5, "maximum": 150, "side_minimum": 0, "side_maximum": 0, "chip": chip},
            "faults": [], "reason": None}


def test_a_history_record_is_settled_under_its_own_profile_and_limits() -> None:
    record = _record()
    bare = settle(json.dumps(record["round"]))[1][0]
    assert bare["spots"][0]["results"]["blind"] == 22  # type: ignore[index]  # 3:2 of 15, to the unit
    status, lines, _ = settle(json.dumps(record) + "\n", profile="standard")  # --profile is not the record's
    assert status == 0
    assert lines[0]["spots"][0]["results"] == {"ante": 0, "blind": 20, "play": 60}  # type: ignore[index]
    assert lines[0]["house_net"] == -80


def test_a_record_with_a_profile_it_does_not_carry_or_a_wrong_digest_is_refused() -> None:
    no_content = _record()
    no_content["profile"] = {"name": "default", "sha256": None, "content": None}
    forged = _record()
    forged["profile"]["content"] = forged["profile"]["content"].replace("flush = [3, 2]", "flush = [5, 1]")  # type: ignore[index]
    no_limits = _record()
    del no_limits["limits"]
    status, lines, _ = settle("\n".join(json.dumps(r) for r in (no_content, forged, no_limits, _record())))
    assert status == 1
    assert "does not carry its profile's content" in str(lines[0]["error"])
    assert "is not that of its content" in str(lines[1]["error"])
    assert "limits: missing" in str(lines[2]["error"])
    assert lines[3]["house_net"] == -80
