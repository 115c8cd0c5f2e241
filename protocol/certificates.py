"""Tables that open only on a certified paytable: the certificates directory, and the `open` it refuses.

With `[table] require_certificate = true`, a house table opens only on a profile for which the
directory `[table] certificates` holds a certificate (`croupier math certify`) naming the sha256 of
its very text, the hash the `open` journals (`tables.house_open.profile_terms`). Any other `open` is
refused `uncertified`, nothing is journaled, and the audit log gets an `open_refused` entry with the
profile, its sha256 and the reason. The configuration's own profile is held to the same rule when
the configuration is read (`croupier run` does not start on it).

A certificate is a JSON file of the directory (`*.json`, at most `MAX_CERTIFICATE_BYTES`) whose
`format` is `FORMAT` and whose `profile.sha256` is the profile's. The check reads the directory at
each `open` (a table is opened a few times a day); it does not compute the figures again (that takes
minutes for UTH): it trusts the directory as it trusts `[security] profiles`, and the certificate
says which figures were certified, by which software and when (`docs/math.md`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from protocol.audit import AuditLog
from protocol.refusal import Refused

FORMAT = "croupier-paytable-certificate/1"
"""The `format` of a certificate file."""

MAX_CERTIFICATE_BYTES = 4 * 1024 * 1024
"""The longest certificate file read (one with both games' PAR sheets is under 100 KiB)."""

REFUSAL_CODE = "uncertified"
"""The reply code of an `open` refused for want of a certificate."""


def read_certificate(path: Path) -> dict[str, Any] | None:
    """A certificate file's content, or None when it is no certificate (not JSON, another format,
    too long, unreadable)."""
    try:
        if path.stat().st_size > MAX_CERTIFICATE_BYTES:
            return None
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("profile"), dict):
        return None
    return data


def certificate_for(directory: str, sha256: str) -> tuple[Path | None, list[tuple[Path, dict[str, Any]]]]:
    """The certificate of the profile text of `sha256` in `directory` (None when there is none), and
    every certificate read. Raises OSError when the directory cannot be listed."""
    found: Path | None = None
    seen: list[tuple[Path, dict[str, Any]]] = []
    for path in sorted(Path(directory).iterdir()):
        if path.suffix != ".json" or not path.is_file():
            continue
        data = read_certificate(path)
        if data is None:
            continue
        seen.append((path, data))
        if found is None and data["profile"].get("sha256") == sha256:
            found = path
    return found, seen


@dataclass(frozen=True)
class Certificates:
    """`[table] require_certificate` and `[table] certificates`: whether an `open` needs a certificate
    and where they are."""

    required: bool = False
    directory: str = ""

    def refusal(self, name: str, sha256: str) -> str | None:
        """Why a table may not open on the profile `name` of `sha256`, or None when it may."""
        if not self.required:
            return None
        try:
            found, seen = certificate_for(self.directory, sha256)
        except OSError as exc:
            return f"profile {name}: the certificates directory {self.directory} cannot be read: {exc.strerror or exc}"
        if found is not None:
            return None
        same_name = [(p, c) for p, c in seen if c["profile"].get("name") == name]
        if same_name:
            path, cert = same_name[0]
            return (f"profile {name} (sha256 {sha256[:16]}) is not the one certified: the certificate {path.name} "
                    f"is of sha256 {str(cert['profile'].get('sha256'))[:16]} (the profile changed since it was "
                    f"certified, or it is another profile of that name)")
        return (f"profile {name} (sha256 {sha256[:16]}) has no certificate in {self.directory} "
                f"(certify it with `croupier math certify`)")

    def check(self, body: Mapping[str, Any], audit: AuditLog | None) -> None:
        """Refuse a house table's journaled `open` body (`tables.house_open.open_body`) whose profile
        has no certificate: the audit log's `open_refused` entry written, then Refused raised with
        code `uncertified`."""
        if not self.required:
            return
        terms = body.get("profile")
        name = str(terms.get("name")) if isinstance(terms, Mapping) else str(terms)
        sha = str(terms.get("sha256")) if isinstance(terms, Mapping) else ""
        reason = self.refusal(name, sha)
        if reason is None:
            return
        if audit is not None:
            audit.write("open_refused", {"game": body.get("game"), "profile": name, "sha256": sha,
                                         "code": REFUSAL_CODE, "reason": reason})
        raise Refused(f"open: {reason}", code=REFUSAL_CODE)


def directory_problem(directory: str) -> str | None:
    """What is wrong with a certificates directory named in the configuration, or None."""
    if not directory:
        return "require_certificate needs the directory of the certificates ([table] certificates)"
    if not os.path.isdir(directory) or not os.access(directory, os.R_OK | os.X_OK):
        return f"{directory}: not a readable directory"
    return None


def certified_figures(directory: str | Path) -> dict[str, dict[str, dict[str, Fraction]]]:
    """Profile sha256 -> game -> bet -> the house edge its certificate in `directory` gives (exact where the
    sheet has `house_edge_exact`); a certificate that is none, or a game without a sheet, gives nothing.
    Raises OSError when the directory cannot be listed."""
    out: dict[str, dict[str, dict[str, Fraction]]] = {}
    for path in sorted(Path(directory).iterdir()):
        cert = read_certificate(path) if path.suffix == ".json" and path.is_file() else None
        if cert is None:
            continue
        games: dict[str, dict[str, Fraction]] = {}
        for game, sheet in (cert.get("sheets") or {}).items():
            bets = sheet.get("bets") if isinstance(sheet, dict) else None
            figures: dict[str, Fraction] = {}
            for bet, figure in (bets or {}).items():
                try:
                    figures[str(bet)] = Fraction(str(figure.get("house_edge_exact", figure["house_edge"])))
                except (AttributeError, KeyError, TypeError, ValueError, ZeroDivisionError):
                    continue
            if figures:
                games[str(game)] = figures
        out[str(cert["profile"].get("sha256"))] = games
    return out
