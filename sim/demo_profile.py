"""The demo's paytable profiles: a builtin profile with its 3CP minimum of spots lowered to one, so one seat plays.

The minimum of spots with a bet a Three Card Poker hand needs (`[3cp] min_players`, five under the
French rules) stays a profile setting; the simulated table opens a profile of its own, written from
a builtin profile's text with that one setting and its name changed, so a demo of one or two seats
deals. Everything else is the builtin's, its `[GAME.approved]` edges included (`croupier math approve`
wrote them there: docs/math.md). `croupier demo --rated` rates with the builtin `standard` profile, the
one the published edges describe: UTH opens it as it ships; 3CP opens it with one spot enough.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

DEMO_MIN_SPOTS = 1

RATED_PROFILE = "standard"
"""The builtin profile `croupier demo --rated` plays (its approved edges are the published ones)."""


def write_demo_profile(path: Path, base: str = "default") -> Path:
    """Write the demo's profile to `path` (the builtin `base` profile's text, `name = "demo"` (`"BASE-demo"` for
    another base), `[3cp] min_players = 1`); return its path."""
    text = resources.files("engine").joinpath("profiles", f"{base}.toml").read_text(encoding="utf-8")
    lines = text.splitlines()
    out = []
    for line in lines:
        if line.startswith("name = "):
            line = 'name = "demo"' if base == "default" else f'name = "{base}-demo"'
        elif line.startswith("min_players = "):
            line = f"min_players = {DEMO_MIN_SPOTS}                    # the demo: one spot with a bet deals"
        out.append(line)
    assert out != lines, f"the {base} profile has no name or min_players line"
    path.write_text(f"# written by croupier demo: the {base} profile, one 3CP spot may play\n" + "\n".join(out) + "\n",
                    encoding="utf-8")
    return path


def rated_profile(game: str, run_dir: Path) -> str:
    """The profile `croupier demo --rated` opens the table with: `RATED_PROFILE` itself for UTH; for 3CP its text
    with one spot enough to deal (`write_demo_profile`, under `run_dir`), its path."""
    if game != "3cp":
        return RATED_PROFILE
    return str(write_demo_profile(run_dir / "rated-profile.toml", RATED_PROFILE))
