"""The demo's paytable profile: the engine's `default` with its 3CP minimum of spots lowered to one, so one seat plays.

The minimum of spots with a bet a Three Card Poker hand needs (`[3cp] min_players`, five under the
French rules) stays a profile setting; the simulated table opens a profile of its own, written from
the `default` profile's text with that one setting changed, so a demo of one or two seats deals.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

DEMO_MIN_SPOTS = 1


RATED_APPROVED = '\n[uth.approved]\nante_blind_play = "50643648973/2317817502000"\ntrips = "233985/6689228"\n'
"""The standard profile's UTH edges as `croupier math uth` computed them (docs/math.md), filed as approved."""


def write_rated_profile(path: Path) -> Path:
    """Write the rated demo's profile to `path`: the `standard` profile (the one the published edges describe),
    `name = "rated-demo"`, `[3cp] min_players = 1`, and its UTH edges as `[uth.approved]` (the table rates
    UTH only with approved or certified edges: docs/ratings.md); return its path."""
    text = resources.files("engine").joinpath("profiles", "standard.toml").read_text(encoding="utf-8")
    text = text.replace('name = "standard"', 'name = "rated-demo"', 1).replace(
        "min_players = 5", f"min_players = {DEMO_MIN_SPOTS}", 1)
    assert 'name = "rated-demo"' in text and f"min_players = {DEMO_MIN_SPOTS}" in text
    path.write_text("# written by croupier demo --rated: the standard profile, one 3CP spot may play, UTH's edges "
                    "approved\n" + text + RATED_APPROVED, encoding="utf-8")
    return path


def write_demo_profile(path: Path) -> Path:
    """Write the demo's profile to `path` (the `default` profile's text, `name = "demo"`, `[3cp]
    min_players = 1`); return its path."""
    text = resources.files("engine").joinpath("profiles", "default.toml").read_text(encoding="utf-8")
    lines = text.splitlines()
    out = []
    for line in lines:
        if line.startswith("name = "):
            line = 'name = "demo"'
        elif line.startswith("min_players = "):
            line = f"min_players = {DEMO_MIN_SPOTS}                    # the demo: one spot with a bet deals"
        out.append(line)
    assert out != lines, "the default profile has no name or min_players line"
    path.write_text("# written by croupier demo: the default profile, one 3CP spot may play\n" + "\n".join(out) + "\n",
                    encoding="utf-8")
    return path
