"""The dealer's `correct` over the real command channel: signed off, journaled, audited, on the full feed, replayed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import zmq

from engine.settle import settle_round
from engine.paytables import load_profile
from firmware_host.tables.house.table import HouseSetup
from tests.firmware_host.rigs import JournalRig
from tests.firmware_host.test_signoff import SUPERVISOR, Table

UTH = HouseSetup("uth", "default", {"minimum": 100}, 7)


def _to_preflop(ok: Any) -> None:
    ok("bet", seat=1, bets={"ante": 100, "blind": 100})
    ok("bet", seat=3, bets={"ante": 100, "blind": 100})
    for card in "As Kd Qh Ac Tc 9d".split():
        ok("card", card=card, auth=SUPERVISOR)


def test_correct_needs_a_sign_off_and_is_journaled_audited_and_on_the_full_feed(tmp_path: Path,
                                                                                 ctx: zmq.Context[Any]) -> None:
    t = Table(tmp_path, ctx, fault=False)
    try:
        def ok(cmd: str, **args: Any) -> dict[str, Any]:
            reply = t.client.request(cmd, **args)
            assert reply["ok"], reply
            return reply
        _to_preflop(ok)
        ok("decide", seat=1, decision="play", multiple=3)
        assert t.c.public_state()["steps"]["correct"] is True
        unsigned = t.client.request("correct", seat=1, decision="play", multiple=4)
        assert unsigned["code"] == "forbidden" and unsigned["say"]["key"] == "refusal.sign_off_needed"
        same = t.client.request("correct", seat=1, decision="play", multiple=3, auth=SUPERVISOR)
        assert same["ok"] is False and same["say"] == {"key": "refusal.correct_same", "args": {"seat": 1}}
        ok("correct", seat=1, decision="play", multiple=4, auth=SUPERVISOR)
        full = t.c.full_state()
        assert full["spots"][0]["bets"]["play"] == 400 and full["to_act"] == 3
        assert full["corrected"] == [{"seat": 1, "decision": "play", "multiple": 4,
                                      "was": {"do": "decide", "seat": 1, "action": "play", "multiple": 3},
                                      "signed_off": {"user": "ana", "caller_role": "dealer"}}]
        assert "corrected" not in t.c.public_state()
        event = [e for e in t.events() if e.kind == "correct"][-1]
        assert event.body["signed_off"]["user"] == "ana" and "auth" not in event.body
        audited = t.audited("decision_corrected")
        assert audited and audited[-1]["by"] == "ana" and audited[-1]["multiple"] == 4
        ok("decide", seat=3, decision="check")
        ok("card", card="2c", auth=SUPERVISOR)
        late = t.client.request("correct", seat=3, decision="play", multiple=4, auth=SUPERVISOR)
        assert late["ok"] is False and late["say"]["key"] == "refusal.correct_card_since"
    finally:
        t.close()


class Rig(JournalRig):
    def controller_args(self) -> dict[str, Any]:
        return {"default_setup": UTH}


def test_a_correction_survives_a_restart_and_the_hand_settles_with_it(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    _to_preflop(lambda cmd, auth=None, **args: rig.ok(cmd, **args))
    rig.ok("decide", seat=1, decision="check")
    rig.ok("correct", seat=1, decision="play", multiple=4)  # the controller's own process: no sign-off asked
    rig.restart()  # killed mid-hand: the journal replays the correction
    assert rig.c.full_state()["spots"][0]["decision"] == "play" and rig.c.full_state()["to_act"] == 3
    rig.ok("decide", seat=3, decision="check")
    for card in "2c 7d 9h".split():
        rig.ok("card", card=card)
    rig.ok("decide", seat=3, decision="check")
    for card in "4s 3c".split():
        rig.ok("card", card=card)
    rig.restart()
    rig.ok("decide", seat=3, decision="fold")
    rig.ok("confirm")
    record = rig.c.journal.hands()[-1].record
    assert record["spots"][0]["multiple"] == 4 and record["corrected"][0]["was"]["action"] == "check"
    again = settle_round(record["round"], load_profile("default")).to_dict()
    assert again == record["settlement"]  # croupier settle agrees: the corrected Play is paid
    assert record["settlement"]["house_net"] == -sum(s["net"] for s in record["settlement"]["spots"])
    rig.c.journal.close()
