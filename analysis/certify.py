"""Paytable certificates: a profile's sha256 with every figure of its PAR sheets, checked against what was approved.

A certificate (JSON, `protocol.certificates.FORMAT`):

    {"format": "croupier-paytable-certificate/1",
     "profile": {"name": ..., "source": ..., "sha256": ...},       # the hash the `open` journals
     "software": {"version": ..., "code_sha256": ...},
     "date": "2026-12-01T19:30:00Z",                               # UTC
     "figures": {"3cp": {"ante_play": 0.0337..., "pair_plus": ...}, "uth": {...}},   # house edges
     "approved": {"3cp": {"pair_plus": {"approved": ..., "computed": ..., "difference": ...}}},
     "sheets": {"3cp": <the PAR sheet as `croupier math par --format json`>,
                "uth": <its sheet> | {"available": false, "reason": "UTH figures not available in this build"}}}

A profile's `[GAME.approved]` figures (`engine.paytables.APPROVED_BETS`) are each held to the
computed house edge: more than `TOLERANCE` apart and no certificate is made (`NotApproved`, naming
the bet). A game whose figures this build cannot compute is recorded as not available; a figure
approved for it cannot be checked, and no certificate is made (`CannotCertify`).
"""

from __future__ import annotations

import datetime
from fractions import Fraction
from typing import Any

from engine.paytables import APPROVED_BETS, ProfileText
from analysis.figures import FiguresUnavailable
from analysis.par import ParSheet, par_sheet, sheet_json
from protocol.audit import AuditError, code_hash, software_version
from protocol.certificates import FORMAT

TOLERANCE = Fraction(1, 10**6)
"""How far a computed house edge may be from the approved one (a fraction of the stake: 1e-6)."""

GAMES = ("3cp", "uth")


class CannotCertify(ValueError):
    """A certificate cannot be made: a figure approved for a game this build cannot compute."""


class NotApproved(ValueError):
    """A computed house edge differs from the approved one by more than `TOLERANCE`."""

    def __init__(self, game: str, bet: str, computed: Fraction, approved: Fraction) -> None:
        super().__init__(f"{game} {bet}: computed house edge {float(computed):.8f} differs from the approved "
                         f"{float(approved):.8f} by {float(abs(computed - approved)):.2e} (more than 1e-6)")
        self.game, self.bet, self.computed, self.approved = game, bet, computed, approved


def _utc(now: datetime.datetime | None) -> str:
    moment = now if now is not None else datetime.datetime.now(datetime.timezone.utc)
    return moment.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def approval(game: str, sheet: ParSheet, approved: dict[str, Fraction]) -> dict[str, dict[str, Any]]:
    """Each approved figure of `game` beside the computed one. Raises NotApproved (the first approved
    bet that is too far off), CannotCertify (a bet the sheet has not)."""
    out: dict[str, dict[str, Any]] = {}
    for bet, edge in approved.items():
        try:
            computed = sheet.bet(bet).house_edge
        except KeyError:
            raise CannotCertify(f"{game} {bet}: approved, but the {game} figures give no such bet") from None
        if abs(computed - edge) > TOLERANCE:
            raise NotApproved(game, bet, computed, edge)
        out[bet] = {"approved": float(edge), "computed": float(computed), "difference": float(computed - edge)}
    return out


def approved_figures(text: ProfileText, games: tuple[str, ...] = GAMES, *,
                     progress: bool = False) -> dict[str, dict[str, Fraction]]:
    """Game -> bet -> the exact house edge computed for each bet the profile may file as approved
    (`engine.paytables.APPROVED_BETS`, those its games have): what `croupier math approve` prints. Raises
    FiguresUnavailable (a game this build cannot compute), ProfileError, ValueError (a figure not exact)."""
    profile = text.parse()
    out: dict[str, dict[str, Fraction]] = {}
    for game in games:
        sheet = par_sheet(game, profile, text, progress=progress)
        keys = {b.key for b in sheet.bets}
        out[game] = {}
        for bet in (b for b in APPROVED_BETS[game] if b in keys):
            figures = sheet.bet(bet)
            if not figures.exact:
                raise ValueError(f"{game} {bet}: the house edge computed is not exact: it cannot be filed")
            out[game][bet] = figures.house_edge
    return out


def approved_toml(figures: dict[str, dict[str, Fraction]]) -> str:
    """`approved_figures` as a profile's `[GAME.approved]` tables, each edge an exact fraction's text.

    >>> print(approved_toml({"3cp": {"pair_plus": Fraction(128, 5525)}}), end="")
    [3cp.approved]
    pair_plus = "128/5525"
    """
    blocks = [f"[{game}.approved]\n" + "".join(f'{bet} = "{edge.numerator}/{edge.denominator}"\n'
                                                for bet, edge in bets.items())
              for game, bets in figures.items() if bets]
    return "\n".join(blocks)


def certificate(text: ProfileText, *, now: datetime.datetime | None = None, progress: bool = False) -> dict[str, Any]:
    """The certificate of a profile's text. Raises NotApproved, CannotCertify, ProfileError and
    ValueError (a table the games' math cannot use)."""
    profile = text.parse()
    approved = {"uth": dict(profile.uth.approved), "3cp": dict(profile.three_card_poker.approved)}
    figures: dict[str, dict[str, Any]] = {}
    checked: dict[str, dict[str, Any]] = {}
    sheets: dict[str, Any] = {}
    for game in GAMES:
        try:
            sheet = par_sheet(game, profile, text, progress=progress)
        except FiguresUnavailable as exc:
            if approved[game]:
                raise CannotCertify(f"{game} {', '.join(approved[game])}: approved, but {exc}") from None
            sheets[game] = {"available": False, "reason": str(exc)}
            continue
        checked[game] = approval(game, sheet, approved[game])
        figures[game] = {b.key: float(b.house_edge) for b in sheet.bets}
        figures[game].update({c.key: float(c.house_edge) for c in sheet.combinations if "+" in c.key})
        sheets[game] = sheet_json(sheet)
    try:
        code: str | None = code_hash()
    except (AuditError, OSError):
        code = None
    return {"format": FORMAT,
            "profile": {"name": text.name, "source": text.source, "sha256": text.sha256},
            "software": {"version": software_version(), "code_sha256": code},
            "date": _utc(now), "figures": figures, "approved": checked, "sheets": sheets}
