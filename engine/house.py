"""What the house-banked games share: table limits, where a card goes, settlements, and the round machine.

`HouseRound` is the state machine both games build on (`UltimateHoldemRound`,
`ThreeCardPokerRound`). Every step is verify / can / do: `verify_x(...)` raises IllegalAction (or
CardError) saying why the step is refused, `can_x(...)` answers True/False, `x(...)` does it and
returns a frozen `Step`. A refused step changes nothing. All arguments are plain values (ints,
strings, mappings of str to int), so a round is rebuilt exactly by replaying its steps
(`Step.to_dict()` / `HouseRound.apply()` / `HouseRound.replay()`).

The round's state, the rules each game gives, its record and its views are in `engine.house_state`
(`HouseRoundState`, its base); table limits, payouts, where a card goes, settlements and rounds as data
are in `engine.house_values` (re-exported here).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any, TypeVar

from engine.cards import Card
from engine.errors import CardError, DuplicateCard, IllegalAction, NotAllowed, say
from engine.errors import card as card_word
from engine.games import DEAD
from engine.house_state import HouseRoundState
from engine.house_view import AUDIENCES
from engine.paytables import Profile
from engine.house_values import (  # re-exported: the house games' values
    STAKE_CEILING,
    RoundRecord,
    Settlement,
    SpotRecord,
    SpotResult,
    Stage,
    Step,
    TableLimits,
    Target,
    check_all_distinct,
    check_stake,
    last_decision_at as _last_decision_at,
    standing_steps,
    expect_keys,
    parse_bets,
    parse_card_list,
    parse_seat,
    pay,
    spot_result,
)

_Choice = TypeVar("_Choice", bound=tuple[str, object])  # `(decision, multiple)`: a multiple refused unless an int


# --- the round machine ------------------------------------------------------------------------------

class HouseRound(HouseRoundState):
    """The shared state machine of a house-banked round: its steps, each verify / can / do. Subclasses give the
    game's rules (`HouseRoundState`'s abstract methods)."""

    # -- bets --

    def verify_post_bets(self, seat: int, bets: Mapping[str, object]) -> dict[str, int]:
        """Check a spot's bets (an empty mapping takes the spot's bets down); return them as posted.

        Raises IllegalAction: not the betting phase, no such seat, unknown bet, stake not a
        positive integer, or against the rules and limits of the game.
        """
        if self._phase != "bets":
            raise IllegalAction(f"bets are closed (phase {self._phase})", say=say("refusal.bets_closed", seat=seat))
        if not isinstance(seat, int) or isinstance(seat, bool) or not 1 <= seat <= self.seats:
            raise IllegalAction(f"no seat {seat!r} at this table (seats 1..{self.seats})",
                                say=say("refusal.no_such_seat", seat=str(seat), seats=self.seats))
        if not isinstance(bets, Mapping):
            raise IllegalAction(f"spot {seat}: bets must be a mapping of bet circle -> stake, not {bets!r}")
        if not bets:
            return {}
        checked: dict[str, int] = {}
        for bet, amount in bets.items():
            if bet not in self.BETS:
                raise IllegalAction(f"spot {seat}: unknown bet {bet!r} (bets here: {', '.join(self.BETS)})",
                                    say=say("refusal.unknown_bet", seat=seat, bet=str(bet)))
            checked[bet] = check_stake(f"spot {seat}: {bet}", amount, seat, bet)
        return self._check_bets(seat, checked)

    def can_post_bets(self, seat: int, bets: Mapping[str, int]) -> bool:
        return _can(self.verify_post_bets, seat, bets)

    def post_bets(self, seat: int, bets: Mapping[str, int]) -> Step:
        """Post or change the bets of the spot at `seat` (see `verify_post_bets`)."""
        checked = self.verify_post_bets(seat, bets)
        if checked:
            self._bets[seat] = checked
        else:
            self._bets.pop(seat, None)
        return self._record("post_bets", {"seat": seat, "bets": MappingProxyType(dict(checked))})

    def verify_close_bets(self) -> None:
        """Raises IllegalAction: not the betting phase, or the bets do not allow a deal."""
        if self._phase != "bets":
            raise IllegalAction(f"bets are already closed (phase {self._phase})", say=say("refusal.already_dealing"))
        self._check_close()

    def can_close_bets(self) -> bool:
        return _can(self.verify_close_bets)

    def close_bets(self) -> Step:
        """No more bets: the deal begins (phase `deal`)."""
        self.verify_close_bets()
        self._close()
        return self._record("close_bets", {})

    def _close(self) -> None:
        self._stages = self._plan(self.spot_seats())
        self._cards = {seat: [] for seat in self._bets}
        self._stage = 0
        self._dealt_in_stage = 0
        self._phase = self._stages[0].phase

    # -- cards --

    def verify_deal(self, card: Card | str) -> tuple[Card, Target]:
        """Check the next card from the shoe; return it with where it goes.

        Raises CardError (not a card, or already dealt in this round) or IllegalAction (no card is
        expected now, e.g. while decisions are awaited or after the last card).
        """
        parsed = card if isinstance(card, Card) else Card.parse(card)
        if self._phase == "bets":
            self._check_close_for_card()
            target = self._plan(self.spot_seats())[0].targets[0]
        else:
            target_or_none = self.next_target()
            if target_or_none is None:
                seat = self.to_act()
                why = f"waiting for the decision of spot {seat}" if seat is not None else f"phase {self._phase}"
                said = (say("refusal.card_while_deciding", card=card_word(parsed), seat=seat) if seat is not None
                        else say("refusal.card_not_expected", card=card_word(parsed)))
                raise IllegalAction(f"no card is expected now ({why}): {parsed}", say=said)
            target = target_or_none
        if parsed.index in self._seen:
            raise DuplicateCard(f"duplicate card: {parsed} was already dealt in this round",
                                say=say("refusal.duplicate_card", card=card_word(parsed)))
        return parsed, target

    def _check_close_for_card(self) -> None:
        try:
            self.verify_close_bets()
        except IllegalAction as exc:
            raise IllegalAction(f"no card is expected now: {exc}", say=exc.say) from None

    def can_deal(self, card: Card | str) -> bool:
        return _can(self.verify_deal, card)

    def deal(self, card: Card | str) -> Step:
        """Take the next card out of the shoe to where `next_target()` says (see `verify_deal`)."""
        parsed, target = self.verify_deal(card)
        if self._phase == "bets":
            self._close()
        self._seen.add(parsed.index)
        self._deals.append((target, parsed))
        part: int | str  # the full view's part the card changes (`full_view`)
        if target.kind == "spot":
            assert target.seat is not None
            self._cards[target.seat].append(parsed)
            part = target.seat
        elif target.kind == "dealer":
            self._dealer.append(parsed)
            part = "dealer"
        elif target.kind == "board":
            self._board.append(parsed)
            part = "board"
        else:
            self._burns.append(parsed)
            part = "burns"
        self._parts.pop(part, None)
        self._dealt_in_stage += 1
        if self._dealt_in_stage >= len(self._stages[self._stage].targets):  # else `_advance` has nothing to move
            self._advance()  # (`_record` forgets the seat to act, as it would)
        return self._record("deal", {"card": parsed.text}, target=target.text)

    # -- decisions --

    def verify_decide(self, seat: int, action: str, multiple: object = None) -> int | None:
        """Check a spot's decision; return the Play multiple it makes (None when no Play bet). `multiple` is
        `object`: what is not an int is refused here in words (compiled by mypyc, an annotation is checked on entry).

        Raises IllegalAction: no decision is awaited, it is another spot's turn, or the action
        (or multiple) is not legal now.
        """
        made = self._decision_rule(seat, action, multiple)
        if isinstance(made, NotAllowed):
            raise made.error()
        return made

    def can_decide(self, seat: int, action: str, multiple: object = None) -> bool:
        return not isinstance(self._decision_rule(seat, action, multiple), NotAllowed)

    def open_decisions(self, choices: Iterable[_Choice]) -> list[_Choice] | None:
        """Of `choices` (`(decision, multiple)`), those the spot to act may take now, by the very rule
        `verify_decide` refuses by, nothing raised or worded; None when no decision is awaited."""
        seat = self.to_act()
        if seat is None:
            return None
        street = self._street_open()
        assert street is not None
        return [c for c in choices if not isinstance(self._choice_rule(seat, c[0], c[1], street), NotAllowed)]

    def _decision_rule(self, seat: int, action: str, multiple: object) -> int | None | NotAllowed:
        """`verify_decide`'s rule: the multiple made, or why not (a decision awaited, this spot's turn, then the
        choice)."""
        street = self._street_open()
        if street is None:
            phase = self._phase
            return NotAllowed(lambda: IllegalAction(f"no decision is awaited now (phase {phase})",
                                                    say=say("refusal.no_decision_now")))
        if not isinstance(seat, int) or isinstance(seat, bool) or seat not in self._bets:
            return NotAllowed(lambda: IllegalAction(f"no spot with a bet at seat {seat!r}",
                                                    say=say("refusal.no_spot", seat=str(seat))))
        pending = self._pending(street)
        if seat not in pending:
            return NotAllowed(lambda: IllegalAction(f"spot {seat} has no decision to make now"
                                                    + (f" (spot {pending[0]} is to act)" if pending else ""),
                                                    say=say("refusal.no_decision_for_seat", seat=seat)))
        if seat != pending[0]:
            return NotAllowed(lambda: IllegalAction(f"spot {seat} is not to act: spot {pending[0]} acts first",
                                                    say=say("refusal.not_to_act", seat=seat, to_act=pending[0])))
        return self._choice_rule(seat, action, multiple, street)

    def _choice_rule(self, seat: int, action: str, multiple: object, street: str) -> int | None | NotAllowed:
        """Whether the spot to act on `street` may take `action` (`multiple`): an integer multiple, then the game's
        rule."""
        if multiple is None or (isinstance(multiple, int) and not isinstance(multiple, bool)):
            return self._check_decision(seat, action, multiple, street)
        return NotAllowed(lambda: IllegalAction(f"spot {seat}: the multiple must be an integer, not {multiple!r}"))

    def decide(self, seat: int, action: str, multiple: object = None) -> Step:
        """Take the decision of the spot to act (see `verify_decide`)."""
        made = self.verify_decide(seat, action, multiple)
        street = self._street_open()
        assert street is not None
        self._apply_decision(seat, action, made, street)
        self._acted[seat] = street
        self._decision[seat] = action
        self._advance()
        args: dict[str, Any] = {"seat": seat, "action": action}
        if multiple is not None:
            args["multiple"] = multiple
        return self._record("decide", args)

    def verify_declare_dead(self, seat: int) -> None:
        """Check that the spot's hand can be declared dead (it loses every bet).

        Raises IllegalAction: before the deal or from showdown on, no such spot, already dead or folded.
        """
        if self._phase in ("bets", "showdown", "settled"):
            raise IllegalAction(f"a hand can be declared dead only between the deal and the showdown "
                                f"(phase {self._phase})", say=say("refusal.dead_not_now", seat=seat))
        if not isinstance(seat, int) or isinstance(seat, bool) or seat not in self._bets:
            raise IllegalAction(f"no spot with a bet at seat {seat!r}", say=say("refusal.no_spot", seat=str(seat)))
        if seat in self._dead:
            raise IllegalAction(f"spot {seat}: the hand is already dead", say=say("refusal.already_dead", seat=seat))
        if self._decision.get(seat) == "fold":
            raise IllegalAction(f"spot {seat}: the hand is already folded", say=say("refusal.already_folded", seat=seat))

    def can_declare_dead(self, seat: int) -> bool:
        return _can(self.verify_declare_dead, seat)

    def declare_dead(self, seat: int) -> Step:
        """The spot's hand is dead (its player looked before the deal was over, or talked): every
        bet of the spot loses. Its cards are still dealt, so the dealing order does not change."""
        self.verify_declare_dead(seat)
        self._dead.add(seat)
        self._decision[seat] = DEAD
        self._advance()
        return self._record("declare_dead", {"seat": seat})

    # -- corrections --

    def last_decision(self, seat: int) -> dict[str, Any] | None:
        """The seat's last decision as it stands (`{"do": "decide", "seat", "action"[, "multiple"]}` or
        a `declare_dead`), or None when it has taken none this hand."""
        steps = self._standing_steps()
        at = _last_decision_at(steps, seat)
        return None if at is None else dict(steps[at])

    def correctable_seats(self) -> tuple[int, ...]:
        """The seats whose last decision may still be corrected (taken, not a dead hand's, no card dealt since,
        the payouts not confirmed), the seat decided or corrected last, last: a correction is mostly about it."""
        if self._phase == "settled":
            return ()
        latest: dict[int, str] = {}  # the steps since the last card, newest first (a card mostly ends it at once)
        for step in reversed(self._steps):
            if step.do == "deal":
                break
            if step.do in ("decide", "correct", "declare_dead"):
                latest.setdefault(int(step.args["seat"]), step.do)
        return tuple(reversed([seat for seat, do in latest.items() if do != "declare_dead"]))

    def verify_correct(self, seat: int, action: str, multiple: int | None = None) -> HouseRound:
        """Check that the seat's last decision can be replaced by `action` (`multiple`): it took one,
        not a dead hand's, no card has been dealt since, the hand is not settled, the new decision
        differs and was legal where the old one was taken (the decisions after it still standing).
        Returns the round as it would stand. Raises IllegalAction saying which."""
        if self._phase == "settled":
            raise IllegalAction("the hand is settled: nothing can be corrected", say=say("refusal.correct_settled"))
        steps = self._standing_steps()
        at = _last_decision_at(steps, seat) if isinstance(seat, int) and not isinstance(seat, bool) else None
        if at is None:
            raise IllegalAction(f"spot {seat!r} has no decision to correct",
                                say=say("refusal.correct_no_decision", seat=str(seat)))
        if steps[at]["do"] != "decide":
            raise IllegalAction(f"spot {seat}: the hand was declared dead: a dead hand is not corrected",
                                say=say("refusal.correct_dead", seat=seat))
        if any(step["do"] == "deal" for step in steps[at + 1:]):
            raise IllegalAction(f"spot {seat}: a card has been dealt since its decision: it can no longer be corrected",
                                say=say("refusal.correct_card_since", seat=seat))
        new = {"do": "decide", "seat": seat, "action": action, **({"multiple": multiple} if multiple is not None else {})}
        try:
            fresh = type(self).replay(self.profile, [*steps[:at], new, *steps[at + 1:]], self.limits, self.seats)
        except (IllegalAction, CardError) as exc:
            raise IllegalAction(f"spot {seat}: the decision cannot be corrected to {action}: {exc}", say=exc.say) from None
        if fresh.record().spots == self.record().spots:
            raise IllegalAction(f"spot {seat} already has this decision: nothing to correct",
                                say=say("refusal.correct_same", seat=seat))
        return fresh

    def can_correct(self, seat: int, action: str, multiple: int | None = None) -> bool:
        return _can(self.verify_correct, seat, action, multiple)

    def correct(self, seat: int, action: str, multiple: int | None = None) -> Step:
        """Replace the seat's last decision (see `verify_correct`): the round is as if it had been taken
        so; the step is recorded as a `correct`, after the steps as they were (a replay does both)."""
        fresh = self.verify_correct(seat, action, multiple)
        history, plain = self._steps, self._plain
        for name in self.FIELDS:
            setattr(self, name, getattr(fresh, name))
        self._steps, self._plain, self._parts = history, plain, {}  # every part made again
        args: dict[str, Any] = {"seat": seat, "action": action}
        if multiple is not None:
            args["multiple"] = multiple
        return self._record("correct", args)

    def _standing_steps(self) -> list[dict[str, Any]]:
        """The steps as they stand (`standing_steps`), made once a step: read here, never changed."""
        if self._standing is None:
            self._standing = standing_steps(self._plain)
        return self._standing

    # -- showdown --

    def verify_settle(self) -> Settlement:
        """Raises IllegalAction unless the round is at its showdown."""
        if self._phase != "showdown" or self._settlement is None:
            raise IllegalAction(f"nothing to settle before the showdown (phase {self._phase})",
                                say=say("refusal.nothing_to_confirm"))
        return self._settlement

    def can_settle(self) -> bool:
        return _can(self.verify_settle)

    def settle(self) -> Step:
        """The payouts are confirmed: phase `settled`. The settlement is `self.settlement`."""
        self.verify_settle()
        self._phase = "settled"
        return self._record("settle", {})

    # -- replay --

    def apply(self, step: Mapping[str, Any]) -> Step:
        """Do a step given in its plain form (`Step.to_dict()`). Raises what the step raises, and
        IllegalAction for a step that is not one."""
        if not isinstance(step, Mapping):
            raise IllegalAction(f"not a step: {step!r}")
        do = step.get("do")
        args = {k: v for k, v in step.items() if k != "do"}
        methods = {"post_bets": self.post_bets, "close_bets": self.close_bets, "deal": self.deal,
                   "decide": self.decide, "declare_dead": self.declare_dead, "correct": self.correct,
                   "settle": self.settle}
        if do not in methods:
            raise IllegalAction(f"not a step: {do!r} (steps: {', '.join(methods)})")
        try:
            result: Step = methods[do](**args)  # type: ignore[operator]
        except TypeError as exc:
            raise IllegalAction(f"step {do!r}: bad arguments {args!r}: {exc}") from None
        return result

    @classmethod
    def replay(cls, profile: Profile, steps: Iterable[Mapping[str, Any]], limits: TableLimits | None = None,
               seats: int | None = None) -> HouseRound:
        """A new round with `steps` applied in order. Raises what a step raises."""
        round_ = cls(profile, limits, seats)
        for step in steps:
            round_.apply(step)
        return round_


def _can(verify: Any, *args: Any) -> bool:
    try:
        verify(*args)
    except (IllegalAction, CardError):
        return False
    return True


__all__ = [
    "AUDIENCES", "HouseRound", "RoundRecord", "Settlement", "SpotRecord", "SpotResult", "Stage", "Step",
    "STAKE_CEILING", "TableLimits", "Target", "check_stake", "pay", "spot_result",
    "check_all_distinct", "expect_keys", "parse_bets", "parse_card_list", "parse_seat",
]
