"""Harness fixtures: simulated tables whose processes (controller, emulated shoe) are always ended."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from cli.demo import SimTable


@pytest.fixture
def sim_table(tmp_path: Path) -> Iterator[Callable[..., SimTable]]:
    """`sim_table(game=..., seed=..., **options)`: a started SimTable (journal under tmp_path)."""
    tables: list[SimTable] = []

    def make(**options: Any) -> SimTable:
        table = SimTable(tmp_path / f"state{len(tables)}", **options)
        tables.append(table)
        table.start()
        return table

    yield make
    for table in tables:
        table.stop()
