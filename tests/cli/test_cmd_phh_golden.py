"""`croupier phh replay` over the whole sample prints, byte for byte, what it printed before issue 8.

The golden files were written by `croupier phh replay [--check]` over every `.phh` and `.phhs` of
`tests/data/phh` (paths relative to `tests/data`, sorted) before the quick path was removed: the one
engine must give every line the same (results, decimals and error messages alike) and the same
exit status.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cli import main

ROOT = Path(__file__).resolve().parents[1] / "data"
GOLDEN = Path(__file__).resolve().parent / "golden"


def sample_files() -> list[str]:
    return sorted(str(p.relative_to(ROOT)) for p in (ROOT / "phh").rglob("*") if p.suffix in (".phh", ".phhs"))


@pytest.mark.parametrize("check, golden", [(False, "phh_replay.jsonl"), (True, "phh_replay_check.jsonl")])
def test_replay_prints_the_same_lines_as_before(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
                                                check: bool, golden: str) -> None:
    monkeypatch.chdir(ROOT)
    files = sample_files()
    assert len(files) == 1136
    status = main(["phh", "replay", *(["--check"] if check else []), *files])
    out, err = capsys.readouterr()
    assert err == ""
    assert status == 1   # some hands of the sample give error lines (tests/engine/test_phh.py)
    assert out == (GOLDEN / golden).read_text(encoding="utf-8")
