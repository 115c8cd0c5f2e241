"""The pit view's hub: the latest summary of every table the floor's web process follows and its fan-out to the pit screens.

Each table's `Hub` (`bridge.py`) tells the `PitHub` of every kept feed message. The pit keeps one
summary per table (name, game, limits, phase, hand, fault, the session's counters, the hands of
the last hour) and sends the pit screens (`/ws/pit`) JSON texts:

    {"kind": "hello", "source", "links", "tables": [{"name", "heartbeat_s"}, ...]}   first, once
    {"kind": "table", "name", "game", "phase", "hand", ..., "online"?}    a table's latest summary
    {"kind": "heartbeat", "name"}                                          the table is alive
    {"kind": "removed", "name"}                                            the pit aggregator dropped it
    {"kind": "pit", "online"}                                              whether the pit aggregator answers
    {"kind": "figures", "source", ...}                                     the pit's figures (`figures.py`)
    {"kind": "dealers", "day", "dealers": [...]}     each dealer's figures, to a screen of DEALER_FIGURE_ROLES only
    {"kind": "rated", "source", "tables"}                                  the rated players (`figures.py`)
    {"kind": "signoff_alert", "spacing_s", "at", "address", "time", "since", "table"?}  the web process's sign-offs
        throttled (its latest step, `floor.web.rating_past`, or a table's gate's, `table`, `floor.web.rating`; `since`:
        that throttle's first), to a screen of DEALER_FIGURE_ROLES only
    {"kind": "table_signoff_alert", "name", "alert"}  a table's own gate slowing a relaying key's sign-offs (its
        state's `signoff_alert`: since, spacing_s, kind, until; null once it ended), to DEALER_FIGURE_ROLES only

A table's summary carries its `tray_alert` (the shift's tray differences) and, for a chip fault (a mispay,
moved or foreign chips, a tray difference), the public fault's words (`say`: the circle and the amounts).
It carries the table's `[ratings]` gaming day setting (`gaming_day`) and, when that differs from the floor's (the
latest archive figures' `starts` and `time_zone`), `day_differs`: both days now and both starts
(`protocol.gaming_day.differs`, the table's own rule), checked again at each table update and each reading of the
figures, for the page to say plainly (docs/ratings.md, "One gaming day").

On joining, a screen gets `hello`, every table's latest summary and the figures. Each screen's queue
holds at least `QUEUE_MESSAGES` and twice the tables; when a slow screen's queue is full its backlog
is dropped for the same: `hello` again and the latest summary of every table.

"Hands this hour" is counted here from the session's settled hands (`session.hands`, which the
controller keeps from its journal): the pit remembers when it saw the count change, so a pit
started less than an hour ago counts from its start (`hour.since`, shown on the page).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, TypedDict

from pages.bridge import QUEUE_MESSAGES
from pages.config import TableFeed
from protocol import gaming_day
from protocol.signoff_holds import THROTTLE_FORGET_S

HOUR_S = 3600.0
SUMMARY_KEYS = ("game", "phase", "hand", "seq", "boot", "limits", "session", "currency", "decimals", "tray_alert",
                "gaming_day")
CHIP_FAULTS = frozenset({"mispay", "chips_moved", "foreign_chip", "tray_difference"})
"""A smart table's faults the pit shows as chip alerts (the circle and the amounts in the public fault's words)."""
DEALER_FIGURE_ROLES = ("pit", "supervisor", "surveillance")
"""The roles whose pit screens get the dealers' figures (`dealers`): never a dealer's, never a wall screen's."""


class PitScreen:
    """One connected pit screen: its bounded queue of JSON texts to send."""

    def __init__(self, size: int, dealers: bool = False) -> None:
        self.queue: asyncio.Queue[str] = asyncio.Queue()  # bounded by `size`, here (the resync may exceed it)
        self.size = size  # raised by the hub as tables are added (a pit aggregator's reload)
        self.resyncs = 0
        self.dealers = dealers  # signed in with one of DEALER_FIGURE_ROLES: sent the dealers' figures

    async def next(self) -> str:
        """The next text to send (waits for one)."""
        return await self.queue.get()

    def offer(self, text: str, latest: Iterable[str]) -> None:
        """Queue `text`; when the queue is full, replace the backlog by every table's latest summary."""
        if self.queue.qsize() < self.size:
            self.queue.put_nowait(text)
            return
        while not self.queue.empty():
            self.queue.get_nowait()
        self.resyncs += 1
        for summary in latest:
            self.queue.put_nowait(summary)


class Hour(TypedDict):
    """A table's settled hands in the last hour (`hour` in the pit's line): since when, and whether a full hour."""

    hands: int
    since: float
    full: bool


class HourCount:
    """The settled hands of one table in the last hour, from the times its session count was seen to change."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self.clock = clock
        self.seen: deque[tuple[float, int]] = deque()  # (when, session hands), oldest first

    def see(self, hands: int) -> Hour:
        now = self.clock()
        if not self.seen or self.seen[-1][1] != hands:
            self.seen.append((now, hands))
        while len(self.seen) > 1 and self.seen[1][0] <= now - HOUR_S:
            self.seen.popleft()  # the newest sample an hour old or more is the baseline
        since, base = self.seen[0]
        return {"hands": max(0, hands - base), "since": since if since > now - HOUR_S else now - HOUR_S,
                "full": since <= now - HOUR_S}


def summary(name: str, message: Mapping[str, Any], hour: HourCount) -> dict[str, Any]:
    """The pit's line for one table from its latest public state."""
    out: dict[str, Any] = {"kind": "table", "name": name, "table": message.get("table")}
    for key in SUMMARY_KEYS:
        if key in message:
            out[key] = message[key]
    fault = message.get("fault")
    out["fault"] = None
    if isinstance(fault, Mapping):
        # the public fault's words (the pit's language; a chip fault's: the circle and the amounts)
        out["fault"] = {"kind": fault.get("kind"), "message": fault.get("message"), "say": fault.get("say")}
        if fault.get("kind") in CHIP_FAULTS:  # shown as a chip alert too (`pit-chips.js`)
            out["fault"].update(chip=True, event=fault.get("event"))
    session = message.get("session")
    hands = int(session.get("hands", 0)) if isinstance(session, Mapping) else 0
    out["hour"] = hour.see(hands)
    return out


class PitHub:
    """The latest summary of every table and the connected pit screens; used from the asyncio loop only.

    Fed by each table's own follower (`publish`, `[[web.tables]]`), or by a pit
    aggregator's floor feed (`source="pit"`, `pit_feed.py`): then the tables are the pit's, added
    and removed as it says, each summary carrying the pit's `online`, and nothing is timed here."""

    def __init__(self, tables: Iterable[TableFeed], clock: Callable[[], float] = time.time, *,
                 source: str = "tables", links: Iterable[str] = ()) -> None:
        feeds = list(tables)
        self.clock = clock
        self.source = source
        self.heartbeats: dict[str, float | None] = {t.name: t.heartbeat_s for t in feeds}
        self.links = list(links)  # the floor serves no table's page: none unless a caller names them
        self.latest: dict[str, str] = {}
        self.states: dict[str, dict[str, Any]] = {}  # the summaries behind `latest`
        self.hours = {t.name: HourCount(clock) for t in feeds}
        self.size = max(QUEUE_MESSAGES, 2 * len(feeds) + 2)  # every summary, the figures and the hello
        self.figures: str | None = None  # the latest `figures` message (`figures.py`)
        self.dealers: str | None = None  # the latest `dealers` message: the dealers' figures of the day
        self.rated: str | None = None  # the latest `rated` message: the players rated at each table
        self.alert: str | None = None  # the latest `signoff_alert`: the web process's sign-offs throttled
        self._alert_times: dict[str, tuple[float, float]] = {}  # when each throttle was first and last alerted
        self.table_alerts: dict[str, str] = {}  # each table's `table_signoff_alert` standing now (its gate's throttle)
        self.pit_state: str | None = None  # the latest `pit` message: whether the pit aggregator answers
        self.floor_day: dict[str, Any] | None = None  # the archive's gaming day setting, from the latest figures
        self.screens: set[PitScreen] = set()

    @property
    def names(self) -> list[str]:
        return list(self.heartbeats)

    @property
    def hello(self) -> str:
        """The first message to a screen: the source, the tables known, which of them a tile links to (`links`)."""
        return json.dumps({"kind": "hello", "source": self.source, "links": self.links,
                           "tables": [{"name": n, "heartbeat_s": h} for n, h in self.heartbeats.items()]})

    def join(self, dealers: bool = False) -> PitScreen:
        """A new screen, sent everything current; `dealers`: it may see the dealers' figures (its role's right)."""
        screen = PitScreen(self.size, dealers)
        for text in self._current(screen):
            screen.offer(text, ())
        self.screens.add(screen)
        return screen

    def leave(self, screen: PitScreen) -> None:
        self.screens.discard(screen)

    def listener(self, name: str) -> Callable[[dict[str, Any]], None]:
        """What the table `name`'s Hub calls with each kept message."""
        return lambda message: self.publish(name, message)

    def publish(self, name: str, message: Mapping[str, Any]) -> None:
        kind = message.get("kind")
        if kind in ("snapshot", "update"):
            if name not in self.heartbeats:  # a table the pit aggregator added
                self.heartbeats[name] = None
                self.size = max(self.size, 2 * len(self.heartbeats) + 2)
                for screen in self.screens:
                    screen.size = max(screen.size, self.size)
            line = summary(name, message, self.hours.setdefault(name, HourCount(self.clock)))
            if "online" in message:
                line["online"] = bool(message["online"])
            self._keep(name, line)
            self._table_alert(name, message.get("signoff_alert"))
        elif kind == "heartbeat":
            self._send(json.dumps({"kind": "heartbeat", "name": name}))

    def set_online(self, name: str, online: bool) -> None:
        """The pit aggregator says whether the table is online: its summary sent again with it."""
        line = self.states.get(name)
        if line is None or line.get("online") == online:
            return
        self._keep(name, {**line, "online": online})

    def remove(self, name: str) -> None:
        """A table the pit aggregator no longer follows: its tile goes."""
        if name not in self.heartbeats:
            return
        del self.heartbeats[name]
        self.latest.pop(name, None)
        self.states.pop(name, None)
        self.hours.pop(name, None)
        self.table_alerts.pop(name, None)
        self._send(json.dumps({"kind": "removed", "name": name}))

    def pit_answers(self, online: bool) -> None:
        """Whether the pit aggregator answers (its snapshot taken; or silent, its tables all offline)."""
        text = json.dumps({"kind": "pit", "online": online})
        if text != self.pit_state:
            self.pit_state = text
            self._send(text)

    def show_figures(self, message: Mapping[str, Any]) -> None:
        """The pit's figures (`figures.py`): kept for screens joining later, sent to every screen; their
        `dealers` (each dealer's figures) only to the screens that may see them, as a `dealers` message."""
        day = {"starts": message.get("starts"), "time_zone": message.get("time_zone")}
        self.floor_day = day if message.get("source") == "archive" and "error" not in message else None
        for name, line in list(self.states.items()):  # each table's day against the floor's, as it is now
            if self._day_checked(line) != line:
                self._keep(name, self._day_checked(line))
        figures = {k: v for k, v in message.items() if k != "dealers"}
        self.figures = json.dumps({**figures, "kind": "figures"}, default=str)
        self._send(self.figures)
        if "dealers" in message:
            self.dealers = json.dumps({"kind": "dealers", "day": message.get("day"), "dealers": message["dealers"]},
                                      default=str)
            for screen in [s for s in self.screens if s.dealers]:
                screen.offer(self.dealers, self._resync(screen))

    def signoff_alert(self, alert: Mapping[str, Any]) -> None:
        """The web process's sign-offs throttled after many failures (`protocol.signoff_holds`): kept, the latest, for
        the screens joining later, and sent to the floor's screens (never a wall screen's)."""
        at, whose = float(alert.get("time") or 0.0), str(alert.get("table") or "")  # "": this process's own gate
        times = self._alert_times.get(whose)
        if times is None or at - times[1] > THROTTLE_FORGET_S:  # a throttle begun again
            times = (at, at)
        self._alert_times[whose] = (times[0], at)
        self.alert = json.dumps({**alert, "since": times[0], "kind": "signoff_alert"}, default=str)
        for screen in [s for s in self.screens if s.dealers]:
            screen.offer(self.alert, self._resync(screen))

    def _table_alert(self, name: str, alert: Any) -> None:
        """A table's state's `signoff_alert` (its own gate slowing a relaying key's sign-offs: the display's dealer
        consoles, `firmware_host/service/signoff_alert.py`): sent to the floor's screens (never a wall screen's) when it
        begins, changes or ends, kept while it stands for the screens joining later."""
        shown = alert if isinstance(alert, Mapping) else None
        text = json.dumps({"kind": "table_signoff_alert", "name": name, "alert": shown}, default=str)
        if text == self.table_alerts.get(name) or (shown is None and name not in self.table_alerts):
            return
        if shown is None:
            del self.table_alerts[name]
        else:
            self.table_alerts[name] = text
        for screen in [s for s in self.screens if s.dealers]:
            screen.offer(text, self._resync(screen))

    def show_rated(self, message: Mapping[str, Any]) -> None:
        """The rated players at the pit's tables (`figures.py`): kept for screens joining later, sent to every screen."""
        self.rated = json.dumps({**message, "kind": "rated"}, default=str)
        self._send(self.rated)

    def _day_checked(self, line: dict[str, Any]) -> dict[str, Any]:
        """The summary with `day_differs` (`protocol.gaming_day.differs`: the table's `[ratings]` gaming day against
        the floor's, now) when they differ, without it when they agree or either is unknown."""
        differs = gaming_day.differs(line.get("gaming_day"), self.floor_day, self.clock())
        out = {k: v for k, v in line.items() if k != "day_differs"}
        return out if differs is None else {**out, "day_differs": differs}

    def _keep(self, name: str, line: dict[str, Any]) -> None:
        line = self._day_checked(line)
        text = json.dumps(line, default=str)
        self.states[name], self.latest[name] = line, text
        self._send(text)

    def _current(self, screen: PitScreen) -> list[str]:
        """What a screen joining, or one whose backlog was dropped, is sent: the hello (the tables known now,
        so a page drops the tiles of tables gone meanwhile), every table's summary, the figures, the rated players
        (and the dealers' figures to a screen that may see them)."""
        floor_only = (self.dealers, self.alert, *self.table_alerts.values()) if screen.dealers else ()
        kept = [text for text in (self.pit_state, self.figures, self.rated, *floor_only) if text is not None]
        return [self.hello, *self.latest.values(), *kept]

    def _resync(self, screen: PitScreen) -> Iterator[str]:
        """`_current()`, worked out only when a slow screen's backlog is dropped (never on the hot path)."""
        yield from self._current(screen)

    def _send(self, text: str) -> None:
        for screen in list(self.screens):
            screen.offer(text, self._resync(screen))
