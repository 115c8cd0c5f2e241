"""The pit's adjustments of a past gaming day's rating sessions, made in the archive from /pit: the day's sessions listed, a step signed off by a supervisor's PIN checked here.

With `[web] floor_db` (whose user may then update `rating_sessions` and insert `rating_steps`), for a user signed in
with a role of `floor.web.rating.ROLES`:

- `GET /pit/rating/day.json?table=NAME&day=YYYY-MM-DD` -> `{"sessions": [...]}`: the table's closed sessions started
  on that gaming day (`floor.rating_past.day_sessions`: the card masked, `seat`, `start`, `end`, `hands`,
  `entered_hands`, `version`, `today`);
- `POST /pit/rating/past` `{"table", "id", "session": {"start", "seat", "version"}, "rating": {"hands"?,
  "average_bet"?, "start"?, "reason"?}, "auth": {"user", "pin"}}` -> `{"ok": true, "session": {...}}` (the card
  masked) or `{"ok": false, "code", "error", "say"}` in the page's words.

The supervisor's PIN is checked against this process's users file (`[web] users`) under the sign-in's rule (the
same locks on a name and an address, `pages.auth.Sessions.check`); one refusal whatever failed. The step is
applied by `floor.rating_past.adjust` (a row lock and the version the page saw: two screens, the second refused
`stale`), logged with who sent it and who signed it, the card masked; never a PIN.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from collections.abc import Callable
from datetime import date
from typing import Any, TypeVar

from aiohttp import web

from engine.ratings import mask_card
from floor.web.rating import MAX_BODY, RELAY, ROLES, _PAGE_ID, _refused
from pages import auth

log = logging.getLogger("croupier.pit.rating")

DSN: web.AppKey[str] = web.AppKey("rating_past_dsn", str)
CLOCK: web.AppKey[Callable[[], float]] = web.AppKey("rating_past_clock")
"""The sign-offs' clock (wall-clock seconds; a test's own)."""
ALERT: web.AppKey[Callable[[dict[str, Any]], None]] = web.AppKey("rating_past_alert")
"""Told of each step of the sign-offs' throttle (the pit's screens' alert: `PitHub.signoff_alert`)."""
WEB_KEY = "pit-web"
"""The account the floor's web process's sign-offs count against beside each pit boss: twenty failures together space
its PIN checks (a throttle, `protocol.signoff_holds`), holding no pit boss who is not held."""
VIA = "POST /pit/rating/past"
REFUSED = "sign-off refused: wrong user or PIN, or the user is not a supervisor"
_T = TypeVar("_T")
_REASON = re.compile(r"[^\x00-\x1f\x7f]{1,200}")


async def _in_archive(request: web.Request, work: Callable[[Any], _T]) -> _T:
    """`work(conn)` on a connection of its own to the archive, off the loop. Raises psycopg's errors."""
    import psycopg  # the `floor` extra, which `[web] floor_db` needs

    def run() -> _T:
        with psycopg.connect(request.app[DSN], connect_timeout=5) as conn:
            return work(conn)
    return await asyncio.to_thread(run)


def _table(request: web.Request, name: Any) -> str:
    if not isinstance(name, str) or name not in request.app[RELAY].tables:
        raise LookupError(name)
    return name


async def _day(request: web.Request) -> web.Response:
    """A table's closed sessions of one gaming day."""
    auth.require(request, ROLES)
    from floor.rating_past import day_sessions
    try:
        table = _table(request, request.query.get("table"))
        day = date.fromisoformat(request.query.get("day", "")).isoformat()
    except LookupError:
        return _refused("unknown_table", "no such table", "pit_rating.unknown_table")
    except ValueError:
        return _refused("malformed", "day: a date YYYY-MM-DD", "pit_rating.bad_day")
    try:
        lines = await _in_archive(request, lambda conn: day_sessions(conn, table, day))
    except Exception as exc:  # psycopg's errors: the archive down, its schema older
        log.warning("pit rating: the sessions of %s on %s cannot be read: %s", table, day, exc)
        return _refused("archive", f"the archive cannot be read: {exc}", "pit_rating.archive", 503)
    return web.json_response({"sessions": lines}, headers={"Cache-Control": "no-cache"})


def _parse(data: Any) -> tuple[str, dict[str, Any], dict[str, Any], dict[str, str]]:
    """(page id, session, rating, auth) of a page's step. Raises ValueError saying what is wrong."""
    if not isinstance(data, dict) or set(data) != {"table", "id", "session", "rating", "auth"}:
        raise ValueError("send {table, id, session, rating, auth}")
    page_id, session, rating, signoff = data["id"], data["session"], data["rating"], data["auth"]
    if not isinstance(page_id, str) or not _PAGE_ID.fullmatch(page_id):
        raise ValueError("id: 1 to 24 letters, digits, - or _")
    if not isinstance(session, dict) or set(session) != {"start", "seat", "version"} or \
            not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in session.values()):
        raise ValueError("session: {start, seat, version}")
    if not isinstance(rating, dict) or set(rating) - {"hands", "average_bet", "start", "reason"}:
        raise ValueError("rating: an object of hands, average_bet, start, reason")
    for name in ("hands", "average_bet"):
        if name in rating and (not isinstance(rating[name], int) or isinstance(rating[name], bool)
                               or not 0 <= rating[name] <= 10**9):
            raise ValueError(f"{name}: a whole number from 0")
    if ("hands" in rating) != ("average_bet" in rating):
        raise ValueError("the unrated play: hands and average_bet together")
    if "start" in rating and (not isinstance(rating["start"], (int, float)) or isinstance(rating["start"], bool)):
        raise ValueError("start: seconds since the epoch")
    if "reason" in rating and (not isinstance(rating["reason"], str) or not _REASON.fullmatch(rating["reason"])):
        raise ValueError("reason: at most 200 characters on one line")
    if not isinstance(signoff, dict) or set(signoff) != {"user", "pin"} or \
            not all(isinstance(v, str) for v in signoff.values()):
        raise ValueError("auth: a supervisor's user and pin")
    return page_id, session, rating, signoff


async def _past(request: web.Request) -> web.Response:
    """One step of a past day's session, signed off and applied in the archive (see the module docstring)."""
    from floor.rating_past import PastRefused, PastStep, adjust
    user = auth.require(request, ROLES)
    if (request.content_length or 0) > MAX_BODY:
        return _refused("malformed", f"a step is at most {MAX_BODY} bytes", "pit_rating.malformed", 413)
    try:
        data = json.loads(await request.content.read(MAX_BODY + 1))
        page_id, session, rating, signoff = _parse(data)
        table = _table(request, data["table"])
    except LookupError:
        return _refused("unknown_table", "no such table", "pit_rating.unknown_table")
    except ValueError as exc:  # a JSON error is a ValueError too
        return _refused("malformed", str(exc), "pit_rating.malformed")
    refused = await _signed_off(request, user.user, table, session, signoff)
    if refused is not None:
        return refused
    step = PastStep(table, float(session["start"]), int(session["seat"]), int(session["version"]),
                    rating.get("hands"), rating.get("average_bet"), rating.get("start"), rating.get("reason"))
    try:
        report = await _in_archive(request, lambda conn: adjust(conn, step, user.user, signoff["user"],
                                                                f"pit-web:{user.user}:{page_id}"))
    except PastRefused as exc:
        log.info("pit rating: %s: a past day's step at %s seat %d refused: %s", user.user, table, step.seat, exc)
        return _refused(exc.code, exc.error, f"refusal.{exc.code}", 409 if exc.code == "stale" else 400)
    except Exception as exc:  # psycopg's errors: the archive down, or this process may not write it
        log.warning("pit rating: a past day's step at %s cannot be written: %s", table, exc)
        return _refused("archive", f"the archive cannot be written: {exc}", "pit_rating.archive", 503)
    log.info("pit rating: %s adjusted %s's session of %s seat %d in the archive, signed off by %r", user.user,
             mask_card(str(report["player"])), table, step.seat, signoff["user"])
    return web.json_response({"ok": True, "session": {**report, "player": mask_card(str(report["player"]))}})


async def _signed_off(request: web.Request, by: str, table: str, session: dict[str, Any],
                      signoff: dict[str, str]) -> web.Response | None:
    """The supervisor's sign-off by the pit's gate (`floor.pit_signoff`: the table's rule, holds and audit writer, the
    process's users file), off the loop; its refusal in the page's words, or None: signed off."""
    from floor.pit_signoff import PitSignOff, refusal
    users = request.app[auth.SESSIONS].users_path
    ask = PitSignOff(users=str(users or ""), key=WEB_KEY, by=by, supervisor=signoff["user"], via=VIA, table=table,
                     session=float(session["start"]), seat=int(session["seat"]), address=request.remote or "",
                     relays="throttle", clock=request.app[CLOCK])
    found = await asyncio.to_thread(refusal, ask, signoff["pin"])
    if found is None:
        return None
    log.warning("pit rating: %s: a past day's step at %s: sign-off refused: %s", by, table, found["error"])
    if "throttled_s" in found and ALERT in request.app:
        request.app[ALERT]({"spacing_s": found["throttled_s"], "at": by, "address": request.remote or "",
                            "time": request.app[CLOCK]()})
    said = found["say"]
    if said["key"] == "refusal.sign_off_held":
        return _refused("held", found["error"], "pit_rating.held", 429, **said["args"])
    if said["key"] == "refusal.sign_off_throttled":
        return _refused("busy", found["error"], "pit_rating.throttled", 429, **said["args"])
    if said["key"] == "refusal.sign_off_refused":
        return _refused("forbidden", REFUSED, "refusal.sign_off_refused", 403)
    return _refused("forbidden", found["error"], "pit_rating.signoff_unusable", 503)


def add_routes(app: web.Application, dsn: str | None, alert: Callable[[dict[str, Any]], None] | None = None) -> None:
    """`/pit/rating/day.json` and `POST /pit/rating/past` with the archive at `dsn` (none: not served); `alert` told
    of each step of the sign-offs' throttle."""
    if dsn is None:
        return
    app[DSN] = dsn
    app[CLOCK] = time.time
    if alert is not None:
        app[ALERT] = alert
    app.router.add_get("/pit/rating/day.json", _day)
    app.router.add_post("/pit/rating/past", _past)
