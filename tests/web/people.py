"""The browser tests' users: `person(name, role, pin)`, its PIN hashed once a run rather than at each table a test starts."""

from __future__ import annotations

import functools

from protocol.users import User


@functools.cache
def person(name: str, role: str, pin: str) -> User:
    """`User.with_pin(name, role, pin)`, made once a process and kept (a User is frozen): its scrypt hash costs
    0.14 s of CPU, and a console's users file was hashed again for each test's table (three users a table)."""
    return User.with_pin(name, role, pin)
