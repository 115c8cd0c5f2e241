"""The archive's schema migrations: the versioned SQL files of `migrations/`, each applied once in its own transaction."""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources

import psycopg

from floor.archive import ArchiveError, connect

_NAME = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")
_LOCK = 0x63726F75  # pg_advisory_xact_lock key: two `pit migrate` runs at once apply each file once

SCHEMA_VERSION = """CREATE TABLE IF NOT EXISTS schema_version (
    version    integer     PRIMARY KEY,
    name       text        NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
)"""


@dataclass(frozen=True, slots=True)
class Migration:
    """One versioned SQL file: `0001_hands.sql` is version 1, named `hands`."""

    version: int
    name: str
    sql: str


def migrations() -> list[Migration]:
    """The migrations shipped in the package, in version order. Raises ArchiveError for a misnamed or repeated file."""
    found: dict[int, Migration] = {}
    for entry in resources.files("floor").joinpath("migrations").iterdir():
        if not entry.name.endswith(".sql"):
            continue
        match = _NAME.match(entry.name)
        if match is None:
            raise ArchiveError(f"migrations: {entry.name} is not named NNNN_name.sql")
        version = int(match.group(1))
        if version in found:
            raise ArchiveError(f"migrations: version {version} twice ({found[version].name}, {match.group(2)})")
        found[version] = Migration(version, match.group(2), entry.read_text(encoding="utf-8"))
    return [found[v] for v in sorted(found)]


def applied(conn: psycopg.Connection[tuple[object, ...]]) -> set[int]:
    """The versions already applied (the schema_version table made if missing)."""
    with conn.transaction():
        conn.execute(SCHEMA_VERSION)
        return {int(str(row[0])) for row in conn.execute("SELECT version FROM schema_version")}


def migrate(dsn: str) -> list[Migration]:
    """Apply the migrations not applied yet, each in its own transaction; return those applied now
    (none on a second run). Raises ArchiveError when the server cannot be reached or a file fails
    (that file's changes are rolled back; those before it stay applied)."""
    done: list[Migration] = []
    with connect(dsn) as conn:
        current = migrations()
        try:
            have = applied(conn)
            for m in current:
                if m.version in have:
                    continue
                with conn.transaction():
                    conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK,))
                    if conn.execute("SELECT 1 FROM schema_version WHERE version = %s", (m.version,)).fetchone():
                        continue  # another run applied it meanwhile
                    try:
                        conn.execute(m.sql.encode("utf-8"))
                    except psycopg.errors.Error as exc:
                        if isinstance(exc, psycopg.OperationalError):
                            raise
                        raise ArchiveError(f"migration {m.version:04d}_{m.name}.sql failed: {exc}") from exc
                    conn.execute("INSERT INTO schema_version (version, name) VALUES (%s, %s)", (m.version, m.name))
                done.append(m)
        except psycopg.OperationalError as exc:
            raise ArchiveError(f"the archive's server: {exc}".strip()) from exc
    return done
