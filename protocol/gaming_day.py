"""The gaming day by a start time and a time zone: when the day holding a moment began, and a table's day against the floor's (the table's check and the pit's screens, one rule).

A table publishes its `[ratings]` setting on its public state (`gaming_day`: `{"starts": "HH:MM", "time_zone"}`);
the floor's is the archive's (`croupier stats gaming-day`), which the pit's figures carry. `differs` is what the pit's
screens show when the two settings differ: both days at that moment, by this module's `day_of`, the very rule the
table checks a rating step against (`firmware_host/service/ratings.py`, docs/ratings.md "One gaming day").

>>> differs({"starts": "08:00", "time_zone": "UTC"}, {"starts": "06:00", "time_zone": "UTC"}, 1764833400.0)
{'day': '2025-12-03', 'starts': '08:00 UTC', 'pit_day': '2025-12-04', 'pit_starts': '06:00 UTC'}
>>> differs({"starts": "06:00", "time_zone": "UTC"}, {"starts": "06:00", "time_zone": "UTC"}, 1764833400.0) is None
True
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError


def began(ts: float, starts: time, zone: str) -> float:
    """When the gaming day holding `ts` (seconds since the epoch) began: the last `starts` in `zone` at or before it
    (a day starting at 06:00 holds 05:30 in the day before). Raises ZoneInfoNotFoundError, ValueError."""
    local = datetime.fromtimestamp(ts, ZoneInfo(zone))
    start = datetime.combine(local.date(), starts, local.tzinfo)
    if start > local:
        start = datetime.combine(local.date() - timedelta(days=1), starts, local.tzinfo)
    return start.timestamp()


def day_of(ts: float, starts: time, zone: str) -> date:
    """The gaming day holding `ts`: the local date it began on."""
    return datetime.fromtimestamp(began(ts, starts, zone), ZoneInfo(zone)).date()


def setting(starts: time, zone: str) -> dict[str, str]:
    """A setting as a table publishes it: `{"starts": "HH:MM", "time_zone": zone}`."""
    return {"starts": f"{starts:%H:%M}", "time_zone": zone}


def _parsed(day: Any) -> tuple[time, str] | None:
    if not isinstance(day, Mapping) or not isinstance(day.get("starts"), str) or not isinstance(day.get("time_zone"), str):
        return None
    try:
        starts = time.fromisoformat(day["starts"])
        ZoneInfo(day["time_zone"])
    except (ValueError, ZoneInfoNotFoundError):
        return None
    return starts, day["time_zone"]


def differs(table: Any, floor: Any, now: float) -> dict[str, str] | None:
    """The table's gaming day against the floor's at `now` when their settings differ: `day` and `pit_day` (ISO
    dates: equal outside the hours between the two starts), `starts` and `pit_starts` ("08:00 UTC"); None when they
    agree, or either is unknown or malformed (the table's own log and refusals then say it)."""
    ours, theirs = _parsed(table), _parsed(floor)
    if ours is None or theirs is None or ours == theirs:
        return None
    return {"day": day_of(now, *ours).isoformat(), "starts": f"{ours[0]:%H:%M} {ours[1]}",
            "pit_day": day_of(now, *theirs).isoformat(), "pit_starts": f"{theirs[0]:%H:%M} {theirs[1]}"}
