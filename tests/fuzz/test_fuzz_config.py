"""Fuzzing the configuration parser: any text, and the shipped configurations mutated line by line and byte by byte."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import strategies as st

from firmware_host.display.config import DisplayConfig
from firmware_host.service.config import Config
from floor.web.config import WebConfig
from floor.config import PitConfig
from floor.director.config import DirectorConfig
from protocol.config import ConfigError
from tests.fuzz.fuzzing import ops, quick_and_soak
from tests.fuzz.targets import DEPLOY_CONFIGS, ROOT, SOURCE, check_config, mutate

# TOML values of every kind, and some that stretch a parser: huge integers, deep arrays, odd floats
toml_values = st.one_of(
    st.integers().map(str), st.integers(0, 6000).map(lambda n: "9" * n),
    st.floats(allow_nan=True, allow_infinity=True).map(repr).map(lambda t: t.replace("inf", "inf")),
    st.sampled_from(["inf", "-inf", "nan", "1e400", "0x10", "0o7", "0b1", "1_000", "true", "false", '""', "[]",
                     "{}", "1979-05-27T07:32:00Z", "07:32:00", "1979-05-27", "'''a'''", '"\\u0000"', "[1, [2]]",
                     '{a = 1}', '"/dev/null"', '"default"', '"tcp://0.0.0.0:1"', '"ipc:///tmp/x"']),
    st.text(max_size=30).map(lambda t: json.dumps(t)),
    st.integers(1, 3000).map(lambda n: "[" * n + "]" * n),
    st.integers(1, 3000).map(lambda n: "{a=" * n + "1" + "}" * n),
)


def replace_values(text: str, picks: list[tuple[int, str]]) -> str:
    """The shipped configuration with the values of some `key = value` lines replaced."""
    lines = text.splitlines()
    keyed = [i for i, line in enumerate(lines) if "=" in line and not line.lstrip().startswith("#")]
    for at, value in picks:
        if keyed:
            i = keyed[at % len(keyed)]
            lines[i] = lines[i].split("=", 1)[0] + "= " + value
    return "\n".join(lines) + "\n"


def shuffle_lines(text: str, moves: list[tuple[int, int, int]]) -> str:
    """Lines dropped, doubled or swapped."""
    lines = text.splitlines()
    for what, a, b in moves:
        if not lines:
            break
        a, b = a % len(lines), b % len(lines)
        if what % 3 == 0:
            del lines[a]
        elif what % 3 == 1:
            lines.insert(b, lines[a])
        else:
            lines[a], lines[b] = lines[b], lines[a]
    return "\n".join(lines)


deploy = st.sampled_from(sorted(DEPLOY_CONFIGS.values()))
any_text = st.text(max_size=300)
tomlish_text = st.lists(st.sampled_from(["[table]", "[poker]", "[feed]", "[security]", "[rights]", "[access]",
                                         "[[table]]", "name", "game", "seats", "=", " ", "\n", '"', "'", "[", "]",
                                         "{", "}", ",", ".", "#", "1", "uth", "holdem", "true"]),
                        max_size=60).map("".join)
new_values = st.builds(replace_values, deploy, st.lists(st.tuples(st.integers(0, 200), toml_values),
                                                        min_size=1, max_size=4))
moved_lines = st.builds(shuffle_lines, deploy, st.lists(st.tuples(st.integers(0, 2), st.integers(0, 500),
                                                                  st.integers(0, 500)), min_size=1, max_size=4))
mutated_bytes = st.builds(lambda t, o: mutate(t.encode(), o).decode("utf-8", "replace"), deploy, ops)


def config_or_named_error(text: str) -> None:
    check_config(text)


test_any_text, test_any_text_soak = quick_and_soak(any_text | tomlish_text)(config_or_named_error)
test_new_values, test_new_values_soak = quick_and_soak(new_values)(config_or_named_error)
test_moved_lines, test_moved_lines_soak = quick_and_soak(moved_lines)(config_or_named_error)
test_mutated_bytes, test_mutated_bytes_soak = quick_and_soak(mutated_bytes)(config_or_named_error)


@pytest.mark.parametrize("name", sorted(DEPLOY_CONFIGS))
def test_the_shipped_configurations_parse(name: str) -> None:
    """The seeds are valid, so the mutations probe past the first refusal."""
    assert isinstance(check_config(DEPLOY_CONFIGS[name]), Config)


def test_a_refusal_must_name_the_file() -> None:
    assert check_config("[nope]\n") is None
    with pytest.raises(AssertionError):
        assert str(ValueError("no file named")).startswith(f"{SOURCE}: ")


OTHER_KINDS: dict[str, Callable[[str, str], Any]] = {
    "display.toml": DisplayConfig.parse, "pit.toml": PitConfig.parse, "pit-web.toml": WebConfig.parse,
    "director.toml": lambda text, source: DirectorConfig.parse(text, source, base=ROOT / "deploy"),
}
"""The other files the one checker reads (protocol/config.py), each with its shipped example in deploy/."""
SHIPPED = {name: (ROOT / "deploy" / name).read_text(encoding="utf-8") for name in OTHER_KINDS}


def other_kind_or_named_error(case: tuple[str, str]) -> None:
    """A display's, a pit's or a director's file gives its configuration or a ConfigError naming the file."""
    name, text = case
    try:
        OTHER_KINDS[name](text, SOURCE)
    except ConfigError as exc:
        assert str(exc).startswith(f"{SOURCE}: ") and len(str(exc)) > len(SOURCE) + 2, str(exc)


other_values = st.sampled_from(sorted(OTHER_KINDS)).flatmap(lambda name: st.tuples(st.just(name), st.builds(
    replace_values, st.just(SHIPPED[name]), st.lists(st.tuples(st.integers(0, 200), toml_values), min_size=1,
                                                     max_size=4))))
other_lines = st.sampled_from(sorted(OTHER_KINDS)).flatmap(lambda name: st.tuples(st.just(name), st.builds(
    shuffle_lines, st.just(SHIPPED[name]), st.lists(st.tuples(st.integers(0, 2), st.integers(0, 500),
                                                              st.integers(0, 500)), min_size=1, max_size=4))))
test_other_kinds_new_values, test_other_kinds_new_values_soak = \
    quick_and_soak(other_values)(other_kind_or_named_error)
test_other_kinds_moved_lines, test_other_kinds_moved_lines_soak = \
    quick_and_soak(other_lines)(other_kind_or_named_error)
