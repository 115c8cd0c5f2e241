"""The floor tests' throw-away PostgreSQL cluster: `sim.pgserver`'s (the rated demo runs its archive on one too)."""

from sim.pgserver import MISSING, PgServer, free_port, pg_bin

__all__ = ["MISSING", "PgServer", "free_port", "pg_bin"]
