"""`croupier pit migrate`: the archive's schema made from an empty database by a real PostgreSQL, and a second run that does nothing."""

from __future__ import annotations

import json
import subprocess
import sys

import psycopg

from floor.migrate import migrations
from tests.floor.pgserver import PgServer


def pit(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cli", "pit", *args], capture_output=True, text=True)


def tables(dsn: str) -> set[str]:
    with psycopg.connect(dsn) as conn:
        rows = conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'").fetchall()
    return {r[0] for r in rows}


def test_migrate_from_empty_then_again_applies_nothing_and_says_so(db: str) -> None:
    assert tables(db) == set()
    first = pit("migrate", "--db", db, "--json")
    assert first.returncode == 0, first.stderr
    shipped = migrations()
    assert shipped[0].version == 1 and shipped[0].name == "hands"
    assert json.loads(first.stdout) == {"applied": [{"version": m.version, "name": m.name} for m in shipped],
                                        "version": shipped[-1].version}
    assert tables(db) >= {"schema_version", "hands", "faults", "voids", "sign_offs"}
    with psycopg.connect(db) as conn:
        versions = conn.execute("SELECT version, name FROM schema_version ORDER BY version").fetchall()
        columns = {r[0] for r in conn.execute("SELECT column_name FROM information_schema.columns "
                                              "WHERE table_name = 'hands'").fetchall()}
    assert versions == [(m.version, m.name) for m in shipped]
    assert columns >= {"table_name", "hand", "game", "opened_at", "closed_at", "profile_name", "profile_sha256",
                       "limits", "voided", "handle", "house_net", "signed_off", "record"}
    second = pit("migrate", "--db", db, "--json")
    assert second.returncode == 0 and json.loads(second.stdout) == {"applied": [], "version": shipped[-1].version}
    text = pit("migrate", "--db", db)
    assert text.returncode == 0 and text.stdout.startswith("nothing to apply"), text.stdout
    with psycopg.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM schema_version").fetchone() == (len(shipped),)


def test_migrate_text_names_each_file_applied(db: str) -> None:
    done = pit("migrate", "--db", db)
    assert done.returncode == 0, done.stderr
    assert "applied 0001_hands.sql" in done.stdout


def test_a_server_that_is_not_there_is_a_clear_error_not_a_traceback(pg: PgServer) -> None:
    from tests.floor.pgserver import free_port
    gone = pit("migrate", "--db", f"host=127.0.0.1 port={free_port()} user=postgres dbname=x connect_timeout=2")
    assert gone.returncode == 1
    assert gone.stderr.startswith("croupier pit migrate: cannot reach the archive's server")
    assert "Traceback" not in gone.stderr


def test_a_migration_that_fails_is_rolled_back_whole(db: str) -> None:
    with psycopg.connect(db, autocommit=True) as conn:
        conn.execute("CREATE TABLE faults (x integer)")  # in the way of 0001's own faults table
    failed = pit("migrate", "--db", db)
    assert failed.returncode == 1 and "migration 0001_hands.sql failed" in failed.stderr, failed.stderr
    assert "Traceback" not in failed.stderr
    assert tables(db) == {"schema_version", "faults"}  # hands, made before faults in the file, rolled back
    with psycopg.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM schema_version").fetchone() == (0,)
