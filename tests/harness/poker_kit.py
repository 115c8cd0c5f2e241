"""Shared checks of the poker harness tests: the poker journal read back and replayed as PHH, the public feed's poker audit, the poker kill run."""

from __future__ import annotations

import io
import signal
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from harness_kit import Chaos, PublicAudit

from engine.phh import parse_phhs, replay
from cli.demo import SimTable
from cli.phh import export_state
from firmware_host.service.journal import Journal
from sim.bots.dealer import BotDealer
from sim.bots.poker import POKER_MID_HAND, SIM_STAKES, PokerDealer, chips_conserved


class PokerAudit(PublicAudit):
    """The public-feed audit at a poker table: no restricted field, and no card dealt face down
    shown before its player shows it (a stud hand's up cards are public from the deal)."""

    @staticmethod
    def check(message: Mapping[str, Any]) -> str | None:
        if any(key in message for key in ("burns", "devices", "discards", "mucked")):
            return "a restricted field on the public feed"
        for spot in message.get("spots") or []:
            ups = list(spot.get("up") or [])
            for i, card in enumerate(spot.get("cards") or []):
                up = ups[i] if i < len(ups) else False
                if card != "??" and not up and not spot.get("shown"):
                    return f"seat {spot.get('seat')}'s down card {card} shown before the player showed"
        return None


def poker_ledger(state_dir: Path, dealer: PokerDealer, first_hand: int, hands: int) -> list[dict[str, Any]]:
    """Every hand the dealer played is journaled once and settled; its chips add up (nets and rake,
    each stack before plus its net); it holds exactly the cards that left the shoe for it, its draws'
    discards are the ones the discard reader read; each hand starts with the stacks the one before
    left (a broke player bought in again); and its PHH export replays to the stacks the table paid.
    Returns the hands' records."""
    journal = Journal.open(state_dir, readonly=True)
    try:
        rows = [r for r in journal.hands() if first_hand <= r.hand < first_hand + hands]
    finally:
        journal.close()
    assert [r.hand for r in rows] == list(range(first_hand, first_hand + hands)), [r.hand for r in rows]
    records = [dict(r.record) for r in rows]
    after: dict[int, int] | None = None
    for rec in records:
        hand = int(rec["hand"])
        assert rec["status"] == "settled", rec
        assert chips_conserved(rec), (rec["stacks"], rec["results"], rec["session"])
        dealt = [card for _, card in rec["deals"]]
        assert Counter(dealt) == Counter(dealer.log.draws.get(hand, [])), f"hand {hand}: {dealt}"
        discarded = [c for e in rec["hand_record"]["events"] if e[0] == "draw" for c in e[2]]
        assert sorted(discarded) == sorted(dealer.discards.get(hand, [])) == sorted(rec["discards"]), hand
        start = {int(s): int(c) for s, c in rec["stacks"].items()}
        if after is not None:
            for seat, chips in start.items():
                assert chips == after.get(seat) or (after.get(seat) == 0 and chips == SIM_STAKES.buy_in), \
                    f"hand {hand}: seat {seat} starts with {chips}, the hand before left {after.get(seat)}"
        after = {int(s): int(v["stack"]) for s, v in rec["session"]["seats"].items()}
    out = io.StringIO()
    assert export_state(str(state_dir), 0, None, True, out) == 0
    by_hand = {int(r["hand"]): r for r in records}
    replayed = 0
    for history in parse_phhs(out.getvalue()):
        assert not isinstance(history, Exception), history
        extra = dict(history.extra)
        rec = by_hand.get(int(extra.get("hand", -1)))
        if rec is None:
            continue
        nets = {x["seat"]: x["net"] for x in rec["results"]["net"]}
        assert list(replay(history)) == [int(rec["stacks"][str(s)]) + nets[s] for s in extra["seats"]], rec["hand"]
        replayed += 1
    assert replayed == len(records)
    return records


def _placed(state: Mapping[str, Any]) -> int:
    spots = state.get("spots") or []
    return (sum(len(s.get("cards") or []) for s in spots) + len(state.get("board") or [])
            + len(state.get("burns") or []) + len(state.get("mucked") or []))


def poker_continuation_problem(before: Mapping[str, Any], after: Mapping[str, Any]) -> str | None:
    """Why the poker table's state after a restart is not the one before carried at most one step
    further (None when it is): the same hand (or the next one once it was over), cards kept, the pot
    never smaller, at most one card or one player's action more."""
    if after.get("hand") != before.get("hand"):
        over = before.get("phase") in ("over", "settled")
        if over and after.get("hand") == int(before.get("hand") or 0) + 1:
            return None
        return f"hand {before.get('hand')} became {after.get('hand')}"
    for where in ("board", "burns"):
        if list(after.get(where) or [])[:len(before.get(where) or [])] != list(before.get(where) or []):
            return f"{where}: {before.get(where)} became {after.get(where)}"
    if int(after.get("total_pot") or 0) < int(before.get("total_pot") or 0) and after.get("phase") not in (
            "over", "settled"):
        return f"the pot went down from {before.get('total_pot')} to {after.get('total_pot')}"
    steps = _placed(after) - _placed(before)
    if steps < 0:
        return f"cards went missing: {_placed(before)} placed before, {_placed(after)} after"
    was = {s["seat"]: s for s in before.get("spots") or []}
    steps += sum(1 for s in after.get("spots") or [] if (was.get(s["seat"]) or {}).get("decision") != s.get("decision"))
    steps += before.get("phase") != after.get("phase") and after.get("phase") == "settled"
    if steps > 1:
        return f"{steps} steps apart"
    return None


class PokerChaos(Chaos):
    """The harness's chaos at a poker table: kills in a poker hand's phases, restarts checked as poker states."""

    mid_hand = POKER_MID_HAND

    def on_boot(self, dealer: BotDealer, last: Mapping[str, Any], snapshot: Mapping[str, Any]) -> None:
        self.restarts_checked += 1
        problem = poker_continuation_problem(last, snapshot)
        if problem is not None:
            self.problems.append(f"restart {self.restarts_checked}: {problem}\n  before {last}\n  after {snapshot}")


def poker_kill_run(table: SimTable, seed: int, kills: int, hands: int) -> tuple[PokerChaos, PokerAudit,
                                                                               list[dict[str, Any]]]:
    """Play `hands` poker hands while the controller is SIGKILLed `kills` times mid-hand and the
    public feed is audited; check every restart, every hand and the feed. Returns what happened."""
    chaos = PokerChaos(table, seed, kills)
    audit = PokerAudit(table.endpoints)
    audit.start()
    dealer = table.dealer(on_step=chaos.on_step, on_boot=chaos.on_boot)
    assert isinstance(dealer, PokerDealer)
    try:
        log = dealer.play(hands)
    finally:
        dealer.close()
        audit.close()
    assert chaos.kills == kills, f"only {chaos.kills} kills in {hands} hands"
    assert table.controller is not None
    assert table.controller.starts == kills + 1, table.controller.exits
    assert table.controller.exits.count(-signal.SIGKILL) == kills
    assert chaos.restarts_checked == kills
    assert not chaos.problems, "\n".join(chaos.problems)
    assert not log.faults, log.faults  # a restart is not a fault: the devices carried on
    assert audit.updates > hands * 10 and not audit.leaks, audit.leaks[:3]
    records = poker_ledger(table.state_dir, dealer, log.first_hand, hands)
    assert {int(r["hand"]) for r in records} >= chaos.killed_hands
    return chaos, audit, records
