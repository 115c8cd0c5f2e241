"""PHH replay speed: the no-limit Hold'em hands of the PHH sample, our engine against pokerkit 0.7.7.

Both replay the same hands in the same run, from the same file texts already in memory (reading
the disk is not timed): pokerkit as its users do (`HandHistory.loads`, then walking its states to
the end), ours exactly as `croupier phh replay` does for a `.phh` file: the text read by the
standard library's `tomllib` (`parse_phh`), then played strictly through the one engine,
`engine.poker.Hand` (`replay`), to the finishing stacks. Each side runs a few rounds and keeps its
fastest, the sides taking turns round by round. The floor is ours 8 times as fast as pokerkit
(the bench fails below it), the aim 20 times. Both sides read the text with tomllib, so tomllib's own time is timed apart too: it is
the price of one reader, and it bounds the ratio (pokerkit's time over tomllib's). More figures
say where our time goes (reading the fields into a record, playing it); below the floor the
functions that take the most time are listed (a profile).
"""

from __future__ import annotations

import cProfile
import pstats
import time
import tomllib
import warnings
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path

from engine.errors import EngineError
from engine.phh import HandHistory, parse_phh, replay

FLOOR = 8.0
AIM = 20.0
ROUNDS = 5
DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "phh" / "data"


def no_limit_holdem_texts() -> list[str]:
    """The text of every `.phh` file of the sample whose variant is NT (one hand each)."""
    texts = []
    for path in sorted(DATA.rglob("*.phh")):
        text = path.read_text(encoding="utf-8")
        if "variant = 'NT'" in text or 'variant = "NT"' in text:
            texts.append(text)
    return texts


def _best(steps: dict[str, Callable[[], object]], rounds: int = ROUNDS) -> dict[str, float]:
    """The fastest of `rounds` runs of each step, the steps taking turns round by round (so that
    the shared machine's load falls on all of them alike)."""
    best = dict.fromkeys(steps, float("inf"))
    for _ in range(rounds):
        for name, step in steps.items():
            started = time.perf_counter()
            step()
            best[name] = min(best[name], time.perf_counter() - started)
    return best


def _ours(texts: list[str]) -> Callable[[], object]:
    """What `croupier phh replay` does for each `.phh` text: tomllib, the record, the one engine."""
    def step() -> None:
        for text in texts:
            try:
                replay(parse_phh(text))
            except EngineError:
                pass  # a hand our engine refuses still costs its time
    return step


def _toml(texts: list[str]) -> Callable[[], object]:
    def step() -> None:
        for text in texts:
            tomllib.loads(text, parse_float=Decimal)
    return step


def _records(fields: list[dict[str, object]]) -> Callable[[], object]:
    def step() -> None:
        for f in fields:
            HandHistory.from_fields(f)
    return step


def _plays(hands: list[HandHistory]) -> Callable[[], object]:
    def step() -> None:
        for hand in hands:
            try:
                replay(hand)
            except EngineError:
                pass
    return step


def _pokerkit(texts: list[str]) -> Callable[[], object]:
    from pokerkit import HandHistory as PkHandHistory

    def step() -> None:
        for text in texts:
            try:
                for _state in PkHandHistory.loads(text):
                    pass
            except ValueError:
                pass
    return step


def _profile(texts: list[str], top: int = 8) -> None:
    profile = cProfile.Profile()
    profile.runcall(_ours(texts))
    stats = pstats.Stats(profile)
    rows = sorted(stats.stats.items(), key=lambda kv: kv[1][2], reverse=True)  # type: ignore[attr-defined]
    total = max(v[3] for _, v in rows) or 1.0  # the whole replay, callees included
    print("   where our time goes (own time, profiled):")
    for (filename, line, name), (_cc, _nc, tottime, cumtime, _callers) in rows[:top]:
        where = "/".join(Path(filename).parts[-2:]) if filename.startswith("/") else filename
        print(f"     {tottime / total:5.1%}  {name} ({where}:{line}), with callees {cumtime / total:5.1%}")


def run() -> bool:
    texts = no_limit_holdem_texts()
    n = len(texts)
    fields = [tomllib.loads(t, parse_float=Decimal) for t in texts]
    hands = [HandHistory.from_fields(f) for f in fields]
    ours_ok = 0
    for hand in hands:
        try:
            replay(hand)
            ours_ok += 1
        except EngineError:
            pass
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pokerkit warns about fields it does not know
        best = _best({"pokerkit": _pokerkit(texts), "ours": _ours(texts), "toml": _toml(texts),
                      "record": _records(fields), "play": _plays(hands)})
    pokerkit_s, ours_s, toml_s, record_s, play_s = (best[k] for k in ("pokerkit", "ours", "toml", "record", "play"))
    ratio = pokerkit_s / ours_s
    us = 1e6 / n
    print(f"   {n} NT hands ({ours_ok} replayed by ours without error), every one through engine.poker.Hand")
    print(f"   pokerkit 0.7.7: {pokerkit_s * 1e3:8.1f} ms  {pokerkit_s * us:7.1f} us/hand")
    print(f"   ours          : {ours_s * 1e3:8.1f} ms  {ours_s * us:7.1f} us/hand")
    print(f"   ours, each part alone: tomllib {toml_s * us:.1f} us, fields to a record {record_s * us:.1f} us,"
          f" playing {play_s * us:.1f} us a hand")
    print(f"   tomllib alone bounds the ratio at {pokerkit_s / toml_s:.1f}x (both sides read with it)")
    print(f"   ratio {ratio:.1f}x (floor {FLOOR:.0f}x: {'met' if ratio >= FLOOR else 'NOT met'};"
          f" aim {AIM:.0f}x: {'met' if ratio >= AIM else 'not met'})")
    if ratio < FLOOR:
        _profile(texts)
    return ratio >= FLOOR
