"""The optional fast TOML reader (rtoml, the `fast` extra) against tomllib, the oracle, over the whole PHH sample."""

from __future__ import annotations

import tomllib
from decimal import Decimal
from pathlib import Path

import pytest
import rtoml  # the dev extra installs it, so that this oracle test always runs in `make test`

from engine.phh import PhhSyntaxError
from cli import phh as cli_phh

SAMPLE = sorted((Path(__file__).resolve().parents[1] / "data" / "phh" / "data").rglob("*.phh*"))


def test_the_sample_is_all_there() -> None:
    assert len(SAMPLE) == 1136  # tests/data/phh/README.md: 1,136 files


def test_the_fast_reader_is_the_one_the_cli_uses() -> None:
    assert cli_phh._fast_loads is rtoml.loads


@pytest.mark.parametrize("path", SAMPLE, ids=lambda p: str(p.relative_to(p.parents[2])))
def test_both_readers_give_equal_fields_for_every_file_of_the_sample(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    oracle = tomllib.loads(text, parse_float=Decimal)
    assert cli_phh.read_fields(text) == oracle
    if not cli_phh._holds_float(rtoml.loads(text)):  # the fields rtoml gives are the ones taken: equal as read
        assert rtoml.loads(text) == tomllib.loads(text)


def test_the_fast_reader_takes_most_of_the_sample() -> None:
    """Floats are left to tomllib (exact decimals); every other file is rtoml's: the fast path is the common one."""
    fast = [p for p in SAMPLE if not cli_phh._holds_float(rtoml.loads(p.read_text(encoding="utf-8")))]
    assert len(fast) >= 0.99 * len(SAMPLE)


@pytest.mark.parametrize("text, wanted", [
    ("a = 0.1\nb = [1, 2.50]", {"a": Decimal("0.1"), "b": [1, Decimal("2.50")]}),  # exact, as tomllib reads them
    ("a = [[{x = 1.0}]]", {"a": [[{"x": Decimal("1.0")}]]}),
    ("a = " + "[" * 200 + "]" * 200, tomllib.loads("a = " + "[" * 200 + "]" * 200)),  # deeper than rtoml goes
    ("a = 99999999999999999999", {"a": 99999999999999999999}),  # beyond rtoml's 64-bit integers
])
def test_what_rtoml_cannot_read_exactly_is_read_by_tomllib(text: str, wanted: dict[str, object]) -> None:
    assert cli_phh.read_fields(text) == wanted


@pytest.mark.parametrize("text", ["a = ", "a = 1\na = 2", "a = " + "[" * 5000 + "]" * 5000])
def test_bad_text_is_refused_in_tomllibs_words(text: str) -> None:
    try:
        tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError) as exc:
        reason = str(exc) if isinstance(exc, tomllib.TOMLDecodeError) else "nested too deep"
    with pytest.raises(PhhSyntaxError, match="not TOML") as refused:
        cli_phh.read_fields(text)
    assert reason in str(refused.value)


def test_without_the_fast_extra_tomllib_reads_everything(monkeypatch: pytest.MonkeyPatch) -> None:
    """rtoml is optional at run time: without it every text is tomllib's, the same fields."""
    monkeypatch.setattr(cli_phh, "_fast_loads", None)
    text = SAMPLE[0].read_text(encoding="utf-8")
    assert cli_phh.read_fields(text) == tomllib.loads(text, parse_float=Decimal)
    with pytest.raises(PhhSyntaxError, match="not TOML"):
        cli_phh.read_fields("a = ")
