"""A sign-off adds only what the sending key's role may relay (`access.RELAYS`), and a PIN is checked only where a
sign-off counts (issue: a supervisor's `auth` in a `void` from a read-only surveillance key voided the hand; `state`
requests carrying `auth` ran the memory-hard hash on the controller's loop)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import zmq

from tests.firmware_host.test_signoff import SUPERVISOR, Table


@pytest.fixture
def eye(tmp_path: Path, ctx: zmq.Context[Any]) -> Iterator[Table]:
    t = Table(tmp_path, ctx, local_role="surveillance")
    yield t
    t.close()


def test_a_supervisors_sign_off_never_lets_a_read_only_key_change_the_table(eye: Table) -> None:
    before = eye.events()
    for cmd, args in (("void", {"reason": "x"}), ("clear", {"reason": "x"}), ("bet", {"seat": 1, "bets": {"ante": 100}}),
                      ("card", {"card": "As"}), ("correct", {"seat": 1, "decision": "fold"})):
        reply = eye.client.request(cmd, auth=SUPERVISOR, **args)
        assert reply["ok"] is False and reply["code"] == "forbidden", (cmd, reply)
        assert "the role 'surveillance' may not send it" in reply["error"], reply
    assert eye.events() == before and eye.c.fault is not None  # nothing journaled, the fault stands
    assert eye.audited("signoff_granted") == [] and eye.audited("signoff_refused") == []  # no PIN looked at
    assert len(eye.audited("forbidden")) == 5
    for attempt in range(6):  # wrong PINs from a key that may not send the command count toward no hold
        eye.client.request("void", reason="x", auth={"user": "ana", "pin": f"1{attempt}"})
    assert eye.audited("signoff_held") == []
    assert eye.client.request("state", auth=SUPERVISOR)["ok"] is True  # what it may send, it still may


def test_an_auth_where_no_sign_off_counts_is_never_checked(tmp_path: Path, ctx: zmq.Context[Any]) -> None:
    table = Table(tmp_path, ctx, fault=False)
    try:
        for attempt in range(6):
            reply = table.client.request("state", auth={"user": "ana", "pin": f"9{attempt}"})
            assert reply["ok"] is True, reply
        assert table.audited("signoff_held") == [] and table.audited("signoff_refused") == []
        assert table.client.request("bet", seat=1, bets={"ante": 100, "blind": 100},
                                    auth={"user": "nobody", "pin": "0"})["ok"] is True
        # where it counts, it is checked: the dealer relays a void with the supervisor's PIN
        assert table.client.request("void", reason="player left", auth=SUPERVISOR)["ok"] is True
    finally:
        table.close()
