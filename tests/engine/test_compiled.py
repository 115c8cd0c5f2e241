"""The engine compiled by mypyc (`make compiled`, build/compiled) is the same engine: the same outcomes as the pure one."""

from __future__ import annotations

import importlib
import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
TREE = ROOT / "build" / "compiled"
BUILT = any((TREE / "engine").glob("_compiled__mypyc.*"))
# the sources the tree was compiled from are engine/'s as they are now (its __init__ aside: marked compiled)
CURRENT = BUILT and all(
    (TREE / p.relative_to(ROOT)).is_file() and (TREE / p.relative_to(ROOT)).read_bytes() == p.read_bytes()
    for p in (ROOT / "engine").rglob("*.py") if p != ROOT / "engine" / "__init__.py")
HANDS = 400   # the evaluators' fixed hands (seeded)
ROUNDS = 40   # the UTH and 3CP rounds (seeded)
CHOICES = (("play", 4), ("play", 3), ("play", 2), ("play", 1), ("play", None), ("check", None), ("fold", None))


def _phh() -> list[object]:
    """Every file of the PHH sample: its finishing stacks, or the error our engine refuses it with."""
    from engine.errors import EngineError
    from engine.phh import HandHistory, load_toml, replay
    out: list[object] = []
    for path in sorted((ROOT / "tests" / "data" / "phh" / "data").rglob("*.phh")):
        try:
            out.append([path.name, list(replay(HandHistory.from_fields(load_toml(path.read_text(encoding="utf-8")))))])
        except EngineError as exc:
            out.append([path.name, type(exc).__name__, str(exc)])
    return out


def _evaluators() -> list[str]:
    """The evaluators over fixed hands: high (7 cards), Omaha high and low, 8-or-better, the lows, badugi, 3 cards."""
    from engine import evaluate as ev
    from engine.cards import DECK
    rng = random.Random(23)
    out: list[str] = []
    for _ in range(HANDS):
        cards = rng.sample(DECK, 9)
        hole, board = cards[:4], cards[4:]
        out += [repr(ev.high(cards[:7])), repr(ev.omaha_high(hole, board)), repr(ev.omaha_low8(hole, board)),
                repr(ev.low8(cards[:7])), repr(ev.ace_five_low(cards[:5])), repr(ev.deuce_seven_low(cards[:5])),
                repr(ev.badugi(cards[:4])), repr(ev.three_card(cards[:3]))]
    return out


def _settlements() -> list[object]:
    """Seeded UTH and 3CP rounds (bets, the shoe's cards, a decision of those open) and their settlements."""
    from engine.cards import DECK
    from engine.house import TableLimits
    from engine.paytables import load_profile
    from engine.three_card_poker import ThreeCardPokerRound
    from engine.ultimate_holdem import UltimateHoldemRound
    rng = random.Random(17)
    profile = load_profile("default")
    out: list[object] = []
    for game in (UltimateHoldemRound, ThreeCardPokerRound):
        for _ in range(ROUNDS):
            round_ = game(profile, TableLimits(100, 2_000, 0, 0, 100))
            least = profile.three_card_poker.min_players if game is ThreeCardPokerRound else 1
            for seat in sorted(rng.sample(range(1, 8), rng.randint(least, 7))):
                ante = rng.choice((100, 200, 500))
                round_.post_bets(seat, {"ante": ante, "blind": ante} if game is UltimateHoldemRound else
                                 {"ante": ante, "pair_plus": 100})
            round_.close_bets()
            deck = list(DECK)
            rng.shuffle(deck)
            while round_.phase != "showdown":
                if round_.next_target() is not None:
                    round_.deal(deck.pop())
                else:
                    actor = round_.to_act()
                    assert actor is not None
                    action, multiple = rng.choice(round_.open_decisions(CHOICES) or [])
                    round_.decide(actor, action, multiple)
            out.append(round_.settlement.to_dict() if round_.settlement is not None else None)
    return out


def outcomes() -> dict[str, Any]:
    import engine
    modules = [importlib.import_module(f"engine.{name}") for name in ("poker.state", "phh.replay", "evaluate", "house")]
    return {"compiled": engine.COMPILED, "files": sorted({Path(m.__file__ or "").suffix for m in modules}),
            "phh": _phh(), "evaluators": _evaluators(), "settlements": _settlements()}


def _run(compiled: bool) -> dict[str, Any]:
    path = [str(TREE), str(ROOT)] if compiled else [str(ROOT)]
    env = dict(os.environ, PYTHONSAFEPATH="1", PYTHONPATH=os.pathsep.join(path))
    done = subprocess.run([sys.executable, "-m", "tests.engine.test_compiled"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


@pytest.mark.skipif(not BUILT, reason="no compiled engine in build/compiled (`make compiled`: mypyc, a C compiler "
                                      "and the Python headers)")
@pytest.mark.skipif(not CURRENT, reason="build/compiled was compiled from other sources than engine/'s: `make compiled`")
def test_the_compiled_engine_gives_the_pure_engines_outcomes() -> None:
    pure, compiled = _run(False), _run(True)
    assert (pure["compiled"], pure["files"]) == (False, [".py"])
    assert compiled["compiled"] is True and compiled["files"] != [".py"] and ".py" not in compiled["files"]
    assert len(pure["phh"]) >= 1_000 and sum(len(o) == 2 for o in pure["phh"]) >= 1_000
    for part in ("phh", "evaluators", "settlements"):
        assert compiled[part] == pure[part], part


if __name__ == "__main__":   # `_run`'s process: the outcomes of the engine this path imports
    print(json.dumps(outcomes()))
