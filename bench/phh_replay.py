"""PHH replay speed: the no-limit Hold'em hands of the PHH sample, our engine against pokerkit 0.7.7, two ways.

Both replay the same hands in the same run, the sides taking turns round by round, each side
keeping its fastest of `ROUNDS` rounds (the work is the same every round: what the shared machine
adds is only ever more time).

- **The engine alone**: both sides start from the same parsed fields (the file's TOML read by
  tomllib beforehand, decimals as Decimal, as both read them). pokerkit builds its `HandHistory`
  from the dict as its `loads` does and walks its states to the end; ours makes the record
  (`HandHistory.from_fields`) and plays it strictly through the one engine, `engine.poker.Hand`
  (`replay`), to the finishing stacks. Floor 8x (below it the rules' cost has regressed), aim 20x.
- **The whole file**: read from disk, parsed, replayed. pokerkit as its users do
  (`HandHistory.load`, then its states); ours as `croupier phh replay` does: the text read into
  fields by the optional fast reader (rtoml, the `fast` extra) when installed, by tomllib
  otherwise (`cli.phh.read_fields`), then the same record and replay. Reported with
  each reader, without an aim (the reader is most of it, and not ours).

Where `make compiled` has built engine/ compiled by mypyc (build/compiled: tools/compile_engine.py), the engine
alone is measured again with it, in a process of its own whose path puts the compiled tree first (pokerkit and
ours taking turns there too): that figure holds the aim of 20x, the pure engine's the floor of 8x (below it the
rules' cost has regressed). Without the compiled tree the pure engine's figure holds both, as before. The whole
file is read and replayed by the pure engine.

Below the floor the functions that take the most of our engine's time are listed (a profile).
"""

from __future__ import annotations

import cProfile
import json
import pstats
import subprocess
import sys
import time
import tomllib
import warnings
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import engine as engine_package
from bench import Figure
from bench._units import COMPILED_TREE, compiled_built, compiled_env
from engine.errors import EngineError
from engine.phh import HandHistory, load_toml, replay
from cli import phh as cli_phh

FLOOR = 8.0
AIM = 20.0
ROUNDS = 5
ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "phh" / "data"


def no_limit_holdem_files() -> list[Path]:
    """Every `.phh` file of the sample whose variant is NT (one hand each)."""
    files = []
    for path in sorted(DATA.rglob("*.phh")):
        text = path.read_text(encoding="utf-8")
        if "variant = 'NT'" in text or 'variant = "NT"' in text:
            files.append(path)
    return files


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


def _play(hand: HandHistory) -> None:
    try:
        replay(hand)
    except EngineError:
        pass  # a hand our engine refuses still costs its time


def _ours_from_fields(fields: list[dict[str, Any]]) -> Callable[[], object]:
    def step() -> None:
        for f in fields:
            try:
                hand = HandHistory.from_fields(f)
            except EngineError:
                continue
            _play(hand)
    return step


def _ours_from_file(files: list[Path], read: Callable[[str], dict[str, Any]]) -> Callable[[], object]:
    def step() -> None:
        for path in files:
            try:
                hand = HandHistory.from_fields(read(path.read_text(encoding="utf-8")))
            except EngineError:
                continue
            _play(hand)
    return step


def _pokerkit_from_fields(fields: list[dict[str, Any]]) -> Callable[[], object]:
    from pokerkit import HandHistory as PkHandHistory

    def step() -> None:
        for f in fields:
            try:  # what its `loads` does once tomllib has read the text
                for _state in PkHandHistory(**PkHandHistory._filter_non_fields(**f)):
                    pass
            except ValueError:
                pass
    return step


def _pokerkit_from_file(files: list[Path]) -> Callable[[], object]:
    from pokerkit import HandHistory as PkHandHistory

    def step() -> None:
        for path in files:
            try:
                with path.open("rb") as fp:
                    for _state in PkHandHistory.load(fp):
                        pass
            except ValueError:
                pass
    return step


def _profile(fields: list[dict[str, Any]], top: int = 8) -> None:
    profile = cProfile.Profile()
    profile.runcall(_ours_from_fields(fields))
    stats = pstats.Stats(profile)
    rows = sorted(stats.stats.items(), key=lambda kv: kv[1][2], reverse=True)  # type: ignore[attr-defined]
    total = max(v[3] for _, v in rows) or 1.0  # the whole replay, callees included
    print("   where our engine's time goes (own time, profiled):")
    for (filename, line, name), (_cc, _nc, tottime, cumtime, _callers) in rows[:top]:
        where = "/".join(Path(filename).parts[-2:]) if filename.startswith("/") else filename
        print(f"     {tottime / total:5.1%}  {name} ({where}:{line}), with callees {cumtime / total:5.1%}")


def engine_alone() -> dict[str, float]:
    """The engine alone, pokerkit's and ours taking turns in this process: each side's fastest round (s)."""
    files = no_limit_holdem_files()
    texts = [p.read_text(encoding="utf-8") for p in files]
    ours = [tomllib.loads(t, parse_float=Decimal) for t in texts]
    kit = [tomllib.loads(t, parse_float=Decimal) for t in texts]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _best({"pokerkit, fields": _pokerkit_from_fields(kit), "ours, fields": _ours_from_fields(ours)})


def _engine_alone_compiled() -> dict[str, float]:
    """`engine_alone` in a process whose path puts the compiled tree first (this module run as a script there)."""
    done = subprocess.run([sys.executable, "-m", "bench.phh_replay", "--compiled"], cwd=ROOT, env=compiled_env(),
                          capture_output=True, text=True, timeout=1800)
    if done.returncode != 0:
        raise RuntimeError(f"the compiled engine's run failed: {done.stderr.strip()[-2000:]}")
    best: dict[str, float] = json.loads(done.stdout)
    return best


def run() -> list[Figure]:
    files = no_limit_holdem_files()
    n = len(files)
    texts = [p.read_text(encoding="utf-8") for p in files]
    ours_fields = [tomllib.loads(t, parse_float=Decimal) for t in texts]
    kit_fields = [tomllib.loads(t, parse_float=Decimal) for t in texts]  # each side its own (neither shares a list)
    fast = cli_phh._fast_loads is not None
    replayed = 0
    for f in ours_fields:
        try:
            replay(HandHistory.from_fields(f))
            replayed += 1
        except EngineError:
            pass
    steps: dict[str, Callable[[], object]] = {
        "pokerkit, fields": _pokerkit_from_fields(kit_fields), "ours, fields": _ours_from_fields(ours_fields),
        "pokerkit, file": _pokerkit_from_file(files), "ours, file, tomllib": _ours_from_file(files, load_toml)}
    if fast:
        steps["ours, file, rtoml"] = _ours_from_file(files, cli_phh.read_fields)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pokerkit warns about fields it does not know
        best = _best(steps)
    us = 1e6 / n
    print(f"   {n} NT hands ({replayed} replayed by ours without error), every one through engine.poker.Hand; "
          f"us a hand, the fastest of {ROUNDS} rounds:")
    for name, seconds in best.items():
        print(f"     {name:22} {seconds * us:8.1f}")
    engine = best["pokerkit, fields"] / best["ours, fields"]
    if compiled_built():
        kit = _engine_alone_compiled()
        compiled = kit["pokerkit, fields"] / kit["ours, fields"]
        print(f"   the engine compiled by mypyc ({COMPILED_TREE.relative_to(ROOT)}), in a process of its own: ours "
              f"{kit['ours, fields'] * us:.1f}, pokerkit {kit['pokerkit, fields'] * us:.1f} us a hand")
        figures = [Figure(f"PHH replay, the engine alone compiled by mypyc (from parsed fields), {n} NT hands, "
                          "vs pokerkit 0.7.7", f"{compiled:.1f}x", f">= {AIM:g}x", compiled >= AIM),
                   Figure.at_least(f"PHH replay, the engine alone in pure Python (from parsed fields), {n} NT hands, "
                                   "vs pokerkit 0.7.7", engine, FLOOR)]
    else:
        print("   no compiled engine (`make compiled`): the pure engine's figure holds the aim")
        figures = [Figure(f"PHH replay, the engine alone in pure Python (from parsed fields), {n} NT hands, vs "
                          f"pokerkit 0.7.7", f"{engine:.1f}x",
                          f">= {AIM:g}x (floor {FLOOR:g}x: {'met' if engine >= FLOOR else 'NOT met'})", engine >= AIM)]
    if fast:
        figures.append(Figure.reported("PHH replay, the whole file read with rtoml (the `fast` extra), vs pokerkit 0.7.7",
                                       f"{best['pokerkit, file'] / best['ours, file, rtoml']:.1f}x"))
    figures.append(Figure.reported("PHH replay, the whole file read with tomllib, vs pokerkit 0.7.7",
                                   f"{best['pokerkit, file'] / best['ours, file, tomllib']:.1f}x"))
    if engine < FLOOR:
        _profile(ours_fields)
    return figures


if __name__ == "__main__" and sys.argv[1:] == ["--compiled"]:   # `_engine_alone_compiled`'s process
    if not engine_package.COMPILED:
        raise SystemExit(f"not the compiled engine: {engine_package.__file__}")
    print(json.dumps(engine_alone()))
