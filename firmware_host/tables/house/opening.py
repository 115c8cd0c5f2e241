"""What a house table's `open` journals: the paytable profile's text and sha256, and the limits spelt out.

An `open` event carries everything the hand is played and settled under, so that a replay never
reads a file again (a profile file edited or moved since is not used for the hand in progress):

    {"game": "uth", "seats": 7,
     "profile": {"name": "default", "source": "profiles/default.toml", "sha256": "9c1e...", "content": "..."},
     "limits": {"minimum": 100, "maximum": 3000, "side_minimum": 0, "side_maximum": 0, "chip": 1}}

`open_body` builds it when the table is opened (from the dealer's `open` or the configuration): the
only place a profile file is read. `profile_of` rebuilds the profile from a journaled body with no
file I/O. A body journaled before the profile's text was (`"profile": "default"`, limits as given)
is still read: its profile by name, as it was then.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.games import MAX_SPOTS
from engine.house import TableLimits
from engine.paytables import Profile, ProfileText, read_profile


class MissingLimits(ValueError):
    """An `open` with no limits, and no configured limits to take instead."""


def profile_terms(text: ProfileText) -> dict[str, str]:
    """The journaled form of a profile: name, source, sha256 and content (its TOML text)."""
    return {"name": text.name, "source": text.source, "sha256": text.sha256, "content": text.text}


def spelt_out(limits: Mapping[str, Any]) -> dict[str, int]:
    """Every limit key with its value (absent keys: the engine's defaults). Raises LimitsError."""
    parsed = TableLimits.parse(limits, source="open")
    return {key: int(getattr(parsed, key)) for key in TableLimits.KEYS}


def open_body(game: str, profile: str | ProfileText = "default", limits: Mapping[str, Any] | None = None,
              seats: int = MAX_SPOTS, default_limits: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The `open` body of a house table: `profile` a builtin name or a profile file (read now) or a
    text already read; `limits` the open's, else `default_limits` (the configuration's).

    Raises ProfileError (unknown name, unreadable or bad file), LimitsError, MissingLimits.
    """
    text = profile if isinstance(profile, ProfileText) else read_profile(profile)
    if limits is None:
        if default_limits is None:
            raise MissingLimits("open: no limits given and none configured: give the table's limits "
                                f"({', '.join(TableLimits.KEYS)})")
        limits = default_limits
    return {"game": game, "profile": profile_terms(text), "limits": spelt_out(limits), "seats": seats}


def journaled_profile(body: Mapping[str, Any]) -> ProfileText:
    """The profile text a journaled `open` body carries, checked against its sha256 (a body journaled
    before the text was: read by name, as it was then). Raises ProfileError, ValueError (a content
    that is not the one its sha256 names)."""
    terms = body.get("profile", "default")
    if not isinstance(terms, Mapping):  # journaled before the profile's text was
        return read_profile(str(terms))
    text = ProfileText(str(terms["name"]), str(terms.get("source", terms["name"])), str(terms["content"]))
    if text.sha256 != terms.get("sha256"):
        raise ValueError(f"open: profile {text.name}: the journaled content is not the one of sha256 "
                         f"{terms.get('sha256')} (it hashes to {text.sha256})")
    return text


def profile_of(body: Mapping[str, Any]) -> Profile:
    """The profile a journaled `open` body names (see `journaled_profile`), parsed."""
    return journaled_profile(body).parse()


def describe_profile(body: Mapping[str, Any]) -> str:
    """`default (sha256 9c1e2f3a4b5c)`, for the log."""
    terms = body.get("profile", "default")
    if not isinstance(terms, Mapping):
        return str(terms)
    return f"{terms.get('source') or terms.get('name')} (sha256 {str(terms.get('sha256'))[:12]})"


def changes(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
    """What differs between two `open` bodies, each as `key old -> new` (`limits.maximum 5000 ->
    10000`, `profile default (sha256 ...) -> house.toml (sha256 ...)`); empty when the same table."""
    out = []
    for key in ("game", "seats"):
        if before.get(key) != after.get(key):
            out.append(f"{key} {before.get(key)} -> {after.get(key)}")
    old, new = before.get("profile"), after.get("profile")
    old_sha = old.get("sha256") if isinstance(old, Mapping) else old
    new_sha = new.get("sha256") if isinstance(new, Mapping) else new
    if old_sha != new_sha:
        out.append(f"profile {describe_profile(before)} -> {describe_profile(after)}")
    old_limits, new_limits = _limits_of(before), _limits_of(after)
    for key in TableLimits.KEYS:
        if old_limits.get(key) != new_limits.get(key):
            out.append(f"limits.{key} {old_limits.get(key)} -> {new_limits.get(key)}")
    return out


def _limits_of(body: Mapping[str, Any]) -> dict[str, Any]:
    try:
        return spelt_out(body.get("limits") or {})
    except ValueError:  # as journaled: compared as it stands
        return dict(body.get("limits") or {})
