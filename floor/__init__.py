"""The floor: every table's closed hands archived in PostgreSQL (and, beside it, the pit's live view of its tables)."""
