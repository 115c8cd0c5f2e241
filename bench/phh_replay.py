"""PHH replay speed: the no-limit Hold'em hands of the PHH sample, our engine against pokerkit 0.7.7.

Both replay the same hands in the same run, from the same file texts already in memory (reading
the disk is not timed): pokerkit as its users do (`HandHistory.loads`, then walking its states to
the end), ours as `croupier phh replay` does: the quick path (`quick_replay`, engine/phh_quick.py)
and, for a record it does not take, the full engine (`parse_phh`, then `replay`).
Each side runs a few rounds and keeps its fastest (ours forgets what it remembered from earlier
rounds first: a fair first reading); the aim is ours at least 20 times as fast.
More figures say where our time goes: how many hands the quick path took, its reading (text to
plain fields and action texts) and playing, and the full engine alone on every hand (what
`croupier phh replay` did before the quick path, and still does for the records it does not
take). When the aim is missed, the functions that take the most time are listed (a profile).
"""

from __future__ import annotations

import cProfile
import pstats
import time
import warnings
from collections.abc import Callable
from pathlib import Path

from engine.errors import EngineError
from engine.phh import HandHistory, clear_caches, parse_phh, quick_replay, replay
from engine.phh_quick import quick_play, quick_read

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


def _best(step: Callable[[], object], rounds: int = ROUNDS) -> float:
    best = float("inf")
    for _ in range(rounds):
        clear_caches()  # every round reads the records afresh, as the first one does
        started = time.perf_counter()
        step()
        best = min(best, time.perf_counter() - started)
    return best


def _replays(hand: HandHistory) -> bool:
    try:
        replay(hand)
        return True
    except EngineError:
        return False


def _ours(texts: list[str]) -> Callable[[], object]:
    def step() -> None:
        for text in texts:
            if quick_replay(text) is not None:
                continue
            try:
                replay(parse_phh(text))
            except EngineError:
                pass  # a hand our engine refuses still costs its time
    return step


def _ours_full(texts: list[str]) -> Callable[[], object]:
    def step() -> None:
        for text in texts:
            try:
                replay(parse_phh(text))
            except EngineError:
                pass
    return step


def _ours_play(hands: list[HandHistory]) -> Callable[[], object]:
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
    hands = [parse_phh(t) for t in texts]
    n = len(texts)
    ours_ok = sum(1 for h in hands if _replays(h))
    quick = [t for t in texts if quick_replay(t) is not None]
    others = [h for t, h in zip(texts, hands) if quick_replay(t) is None]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pokerkit warns about fields it does not know
        pokerkit_s = _best(_pokerkit(texts))
    ours_s = _best(_ours(texts))
    reads = [quick_read(t) for t in quick]
    read_s = _best(lambda: [quick_read(t) for t in quick])
    play_s = _best(lambda: [quick_play(r) for r in reads if r is not None])
    full_s = _best(_ours_full(texts))
    full_play_s = _best(_ours_play(hands))
    ratio = pokerkit_s / ours_s
    print(f"   {n} NT hands ({ours_ok} replayed by ours without error); the quick path took {len(quick)},"
          f" the full engine {len(others)}")
    print(f"   pokerkit 0.7.7: {pokerkit_s * 1e3:8.1f} ms  {pokerkit_s / n * 1e6:7.1f} us/hand")
    print(f"   ours          : {ours_s * 1e3:8.1f} ms  {ours_s / n * 1e6:7.1f} us/hand")
    if quick:
        print(f"   quick path: reading {read_s / len(quick) * 1e6:.1f} us, playing {play_s / len(quick) * 1e6:.1f} us"
              f" a hand")
    print(f"   full engine alone, every hand: {full_s / n * 1e6:.1f} us/hand (playing {full_play_s / n * 1e6:.1f})"
          f", {pokerkit_s / full_s:.1f}x")
    print(f"   ratio {ratio:.1f}x (aim >= {AIM:.0f}x)")
    if ratio < AIM:
        _profile(texts)
    return ratio >= AIM
