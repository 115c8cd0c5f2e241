"""`croupier phh replay` takes the quick path where it can, and prints what the full engine would."""

from __future__ import annotations

from pathlib import Path

import pytest

import firmware_host.cli.phh
from engine.phh_quick import QuickReplay
from firmware_host.cli import main

DATA = Path(__file__).resolve().parents[1] / "data" / "phh" / "data"


def sample_files() -> list[str]:
    """Every .phh of a few directories of the sample (quick, full and refused records), and the .phhs."""
    files = sorted(DATA.glob("*.phh")) + sorted((DATA / "pluribus").glob("10*/*.phh"))
    files += sorted((DATA / "wsop").rglob("*.phh")) + sorted(DATA.rglob("*.phhs"))
    return [str(f) for f in files]


def replay_lines(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str]]:
    status = main(["phh", "replay", *argv])
    out, _ = capsys.readouterr()
    return status, out.splitlines()


@pytest.mark.parametrize("check", [False, True])
def test_the_quick_path_prints_the_full_engines_lines(capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch, check: bool) -> None:
    files = sample_files()
    flags = ["--check"] if check else []
    taken: list[QuickReplay] = []
    quick = firmware_host.cli.phh.quick_replay

    def counted(text: str) -> QuickReplay | None:
        result = quick(text)
        if result is not None:
            taken.append(result)
        return result

    monkeypatch.setattr(firmware_host.cli.phh, "quick_replay", counted)
    status, lines = replay_lines(capsys, *flags, *files)
    assert len(taken) > 100     # most of these records took the quick path
    monkeypatch.setattr(firmware_host.cli.phh, "quick_replay", lambda text: None)
    full_status, full_lines = replay_lines(capsys, *flags, *files)
    assert (status, lines) == (full_status, full_lines)   # byte for byte, errors included
    assert status == 1 and any('"error"' in line for line in lines)
