"""A dealer's action at a poker seat played on the engine's hand: the journal's event, the dealer's words, the screens' record, the sequence line."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypedDict

from engine.errors import IllegalAction, say
from engine.games import POKER_ACTIONS
from engine.poker import Hand
from firmware_host.tables.poker.sign import act_record
from protocol.messages import Act

__all__ = ["Played", "SequenceLine", "play"]


class SequenceLine(TypedDict, total=False):
    """A line of the hand's own order on the full feed (`sequence`): a post (`seat`, `do` "post", `amount`), a card
    (`card`, `to`), or an action (`seat`, `do`, `all_in`; `amount`, `cards` and `dead` as it has them)."""

    seat: int
    do: str
    amount: int
    all_in: bool
    cards: int
    dead: bool
    card: str
    to: str


@dataclass(frozen=True, slots=True)
class Played:
    """What one action did: `event` in `engine.phh.hand_from_record`'s format, `said` the dealer's words for the
    history, `act` the seat's last action as the screens word it, `line` the hand's sequence line for the full feed."""

    event: list[Any]
    said: str
    act: Act
    line: SequenceLine


def play(hand: Hand, seat: int, action: str, amount: int | None = None, cards: Sequence[str] | None = None,
         dead: bool = False) -> Played:
    """Seat `seat`'s `action` played on `hand` (`dead`: a fold of a hand declared dead). Raises IllegalAction (with
    the engine's reason) / CardError, the hand unchanged."""
    if action not in POKER_ACTIONS:
        raise IllegalAction(f"unknown action {action!r} (known: {', '.join(POKER_ACTIONS)})")
    put, in_front = hand.contributed(seat), hand.bet(seat)  # before the action (a call that closes the round moves it)
    if action in ("bet", "raise", "complete"):
        if amount is None:
            raise IllegalAction(f"{action} needs an amount (the street total, 'to')",
                                say=say("refusal.poker_amount_needed", seat=seat))
        rng = hand.raise_range(seat) if hand.actor == seat else None
        if rng is not None and rng.kind != action:
            raise IllegalAction(f"seat {seat} may {rng.kind}, not {action}", say=say(
                "refusal.poker_raise_instead" if rng.kind == "raise" else "refusal.poker_bet_instead", seat=seat))
        raised = hand.bet_or_raise(amount, seat)
        event: list[Any] = [action, seat, amount]
        said = f"{action} to {amount}"
        act = act_record(raised.kind, amount, raised.all_in)
    elif action == "all_in":
        event, said, act = _all_in(hand, seat)
    elif action in ("draw", "stand_pat"):
        discards = list(cards or []) if action == "draw" else []
        if action == "stand_pat" and cards:
            raise IllegalAction("stand_pat takes no discards", say=say("refusal.poker_stand_pat_discards", seat=seat))
        hand.draw(discards, seat)
        event = ["draw", seat, discards]
        said = f"draws {len(discards)}" if discards else "stands pat"
        act = act_record("draw" if discards else "stand_pat", cards=len(discards))
    elif action == "show":
        hand.show(None, seat)
        event, said, act = ["show", seat], "shows", act_record("show")
    elif action == "muck":
        hand.muck(seat)
        event, said, act = ["muck", seat], "mucks", act_record("muck")
    elif action == "bring_in":
        brought = hand.post_bring_in(seat)
        event, said = ["bring_in", seat], f"brings in {brought.amount}"
        act = act_record("bring_in", brought.amount, brought.all_in)
    elif action == "fold":
        hand.fold(seat, dead)
        event, said, act = ["fold", seat], "folds: the clock ran out" if dead else "folds", act_record("fold", clock=dead)
    elif action == "check":
        hand.check(seat)
        event, said, act = ["check", seat], "checks", act_record("check")
    else:
        called = hand.call(seat)
        event, said = ["call", seat], f"calls {called.amount}" + (" (all in)" if called.all_in else "")
        act = act_record("call", in_front + called.amount, called.all_in)  # the bet it matched, as a raise's "to"
    done: SequenceLine = {"seat": seat, "do": "fold" if dead else event[0], "all_in": hand.all_in(seat)}
    if event[0] == "draw":
        done["cards"] = len(event[2])
    elif event[0] in ("bet", "raise", "complete"):
        done["amount"] = event[2]  # the street total: "raises to"
    elif event[0] in ("call", "bring_in"):
        done["amount"] = hand.contributed(seat) - put  # the chips added
    if dead:
        done["dead"] = True
    return Played(event, said, act, done)


def _all_in(hand: Hand, seat: int) -> tuple[list[Any], str, Act]:
    view = hand.view()
    legal = view.legal
    if hand.actor != seat:
        hand.fold(seat)  # raises the engine's out-of-turn reason
    if legal.all_in is None:
        raise IllegalAction(f"seat {seat} may not go all in now: {view.prompt}",
                            say=say("refusal.poker_no_all_in", seat=seat))
    to, in_front = legal.all_in, hand.bet(seat)
    if legal.bring_in is not None and hand.stack(seat) <= hand.stakes.bring_in:
        brought = hand.post_bring_in(seat)
        return ["bring_in", seat], f"brings in {brought.amount} (all in)", act_record("bring_in", brought.amount, True)
    if legal.call is not None and to <= hand.level:
        called = hand.call(seat)
        return ["call", seat], f"calls {called.amount} (all in)", act_record("call", in_front + called.amount, True)
    if legal.bet_or_raise is None:
        raise IllegalAction(f"seat {seat} may not go all in now: {view.prompt}",
                            say=say("refusal.poker_no_all_in", seat=seat))
    kind = legal.bet_or_raise.kind
    hand.bet_or_raise(to, seat)
    return [kind, seat, to], f"{kind} all in to {to}", act_record(kind, to, True)

