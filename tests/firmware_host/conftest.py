"""Fixtures the service's tests share: a ZeroMQ context destroyed after each test."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import zmq


@pytest.fixture
def ctx() -> Iterator[zmq.Context[Any]]:
    c: zmq.Context[Any] = zmq.Context()
    yield c
    c.destroy(linger=0)
