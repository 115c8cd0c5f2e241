"""The rating events' feed's memory kept in the archive: what it last sent of each session, its message number and the past days' adjustments it published, so that an archiver started again goes on as if it never stopped.

The feed (`floor/rating_feed.py`) sends `opened` for a session new to it and `updated` or `closed` as it
changes; what it sent of a session (its hands, breaks, break, end and adjustments) is kept in the session's
row (`rating_sessions.sent`, migration 0009) once sent, and its `seq` and the last adjustment made in the archive
it published (`rating_steps`, `floor/rating_past.py`) in `rating_feed` (one row a pit). The archiver started
again reads a session's memory when the fold first hands it that session: one it announced already gets
`updated` (or `closed`), never a second `opened`, and `seq` goes on from the last message. A crash between a
send and its memory's write sends that step once more at the next start (at least once, never lost).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, cast

import psycopg
from psycopg.types.json import Jsonb

from engine.ratings import SessionReport
from floor.archive import Archive

Conn = psycopg.Connection[tuple[Any, ...]]

Key = tuple[str, str, float]
"""A session's identity: (table, card, start)."""
Sent = tuple[int, int, bool, float | None, int]
"""What the feed sent of a session: its hands, breaks, whether on a break, its end and its adjustments (a count)."""


class FeedMemory(Archive):
    """The feed's memory in the archive at `dsn`, for pit `pit` (its own connection: the feed is used by the
    archiver's catch-up thread and its main thread, under the feed's lock). Its methods raise ArchiveError."""

    @property
    def _pit(self) -> str:
        return self.pit or ""

    def seq(self) -> tuple[int, int]:
        """The feed's last message number and the last archive step it published (0, 0: none yet)."""
        def read(conn: Conn) -> tuple[int, int]:
            with conn.transaction():  # each read its own transaction: never left idle in one, its locks held
                row = conn.execute("SELECT seq, step FROM rating_feed WHERE pit = %s", (self._pit,)).fetchone()
                if row is None:  # a feed new to the archive starts after the steps made before it
                    top = conn.execute("SELECT coalesce(max(id), 0) FROM rating_steps").fetchone()
                    return 0, int(top[0]) if top else 0
                return int(row[0]), int(row[1])
        return self._run(read)

    def recall(self, keys: Iterable[Key]) -> dict[Key, Sent]:
        """What was sent of these sessions (those never sent are left out)."""
        wanted = list(keys)

        def read(conn: Conn) -> dict[Key, Sent]:
            found: dict[Key, Sent] = {}
            with conn.transaction():
                rows = conn.execute(
                    "SELECT s.table_name, s.player, s.start, s.sent FROM rating_sessions s "
                    "JOIN unnest(%s::text[], %s::text[], %s::float8[]) AS k(t, p, st) "
                    "ON s.table_name = k.t AND s.player = k.p AND s.start = k.st WHERE s.sent IS NOT NULL",
                    ([k[0] for k in wanted], [k[1] for k in wanted], [k[2] for k in wanted])).fetchall()
            for table, player, start, sent in rows:
                hands, breaks, on_break, end, adjustments = sent
                found[(str(table), str(player), float(start))] = (
                    int(hands), int(breaks), bool(on_break), None if end is None else float(end), int(adjustments))
            return found
        return self._run(read) if wanted else {}

    def keep(self, sent: Mapping[Key, Sent], seq: int, step: int | None = None) -> None:
        """Remember what was just sent (and the last archive step published, when given), in one transaction."""
        def write(conn: Conn) -> None:
            with conn.transaction(), conn.cursor() as cur:
                cur.executemany("UPDATE rating_sessions SET sent = %s WHERE table_name = %s AND player = %s AND start = %s",
                                [(Jsonb(list(now)), *key) for key, now in sent.items()])
                cur.execute("INSERT INTO rating_feed (pit, seq, step) VALUES (%s, %s, coalesce(%s, 0)) ON CONFLICT (pit) "
                            "DO UPDATE SET seq = excluded.seq, step = coalesce(%s, rating_feed.step)",
                            (self._pit, seq, step, step))
        self._run(write)

    def steps(self, after: int) -> list[tuple[int, SessionReport | None]]:
        """The adjustments made in the archive after step `after` of this pit's tables, each with its session's
        report as it now is (a session purged since: left out), in their order."""
        def read(conn: Conn) -> list[tuple[int, SessionReport | None]]:
            with conn.transaction():
                rows = conn.execute(
                    "SELECT st.id, s.report FROM rating_steps st LEFT JOIN rating_sessions s ON s.table_name = "
                    "st.table_name AND s.player = st.player AND s.start = st.start WHERE st.id > %s "
                    "AND st.pit IS NOT DISTINCT FROM %s ORDER BY st.id", (after, self.pit)).fetchall()
            return [(int(row[0]), cast(SessionReport, dict(row[1])) if row[1] is not None else None) for row in rows]
        return self._run(read)
