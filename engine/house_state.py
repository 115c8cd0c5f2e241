"""The house round's state and what it shows: its fields, the rules each game gives, the record and the views.

`HouseRoundState` is the base of `engine.house.HouseRound`, which adds the steps (verify / can / do); the
games (`UltimateHoldemRound`, `ThreeCardPokerRound`) give the rules. Nothing here changes the round but
`_advance` and `_record`, which every step ends in.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any, ClassVar

from engine import redact
from engine.cards import Card, format_cards
from engine.errors import IllegalAction, LimitsError, NotAllowed
from engine.frozen import quick_new
from engine.house_values import RoundLine, RoundRecord, Settlement, SpotRecord, Stage, Step, TableLimits, Target
from engine.house_view import AUDIENCES, dealer_part, spot_part, with_card
from engine.paytables import Profile

_ASK = -1  # `HouseRoundState._to_act` when it is to be found again (no seat is -1)
_new_step = quick_new(Step)  # a step made without its class's call (`engine.frozen`)


class HouseRoundState(ABC):
    """The state of a house-banked round and its views; `engine.house.HouseRound` adds its steps.

    Phases run `bets`, `deal`, then the game's decision phases, `showdown`, `settled`.
    """


    game: ClassVar[str]
    PHASES: ClassVar[tuple[str, ...]]
    BETS: tuple[str, ...]  # bet circles a spot may post before the deal (each game's `__init__`: 3CP's by its rules)
    # every field `__init__` sets, each game's own after them: what a correction takes from the round replayed
    # (`HouseRound.correct`; a round compiled by mypyc keeps no `__dict__`; tests/engine/test_house_correct.py)
    FIELDS: ClassVar[tuple[str, ...]] = (
        "profile", "limits", "seats", "_phase", "_bets", "_cards", "_dealer", "_board", "_burns", "_deals", "_seen",
        "_decision", "_acted", "_dead", "_stages", "_stage", "_dealt_in_stage", "_settlement", "_steps", "_plain",
        "_standing", "_to_act", "_parts", "_parts_shown")

    def __init__(self, profile: Profile, limits: TableLimits | None = None, seats: int | None = None) -> None:
        """A round in phase `bets`. `seats`: spots at the table (default the profile's max_spots).

        Raises LimitsError when the limits break the profile's rules.
        """
        self.profile = profile
        self.limits = limits if limits is not None else TableLimits()
        max_spots = self._max_spots()
        if seats is not None and not 1 <= seats <= max_spots:
            raise LimitsError(f"seats: {seats} is not within 1..{max_spots}")
        self.seats = seats if seats is not None else max_spots
        self._phase = "bets"
        self._bets: dict[int, dict[str, int]] = {}
        self._cards: dict[int, list[Card]] = {}
        self._dealer: list[Card] = []
        self._board: list[Card] = []
        self._burns: list[Card] = []
        self._deals: list[tuple[Target, Card]] = []
        self._seen: set[int] = set()  # the indices of the cards dealt (an int's hash: no Python call)
        self._decision: dict[int, str] = {}
        self._acted: dict[int, str] = {}  # seat -> last street it acted on
        self._dead: set[int] = set()
        self._stages: tuple[Stage, ...] = ()
        self._stage = -1
        self._dealt_in_stage = 0
        self._settlement: Settlement | None = None
        self._steps: list[Step] = []
        self._plain: list[dict[str, Any]] = []  # each step's plain form (`Step.to_dict()`), made once
        self._standing: list[dict[str, Any]] | None = None  # `_standing_steps()`, till the next step
        self._to_act: int | None = _ASK  # `to_act()`, till the next step (asked several times a view at a decision)
        # the full view's parts (a spot's dict by its seat, "dealer", "board", "burns"), each kept till
        # a step changes it or the phase moves (`full_view`); never changed once made
        self._parts: dict[int | str, Any] = {}
        self._parts_shown = False  # whether they were made from the showdown on

    # -- the game's rules (subclasses) --

    @abstractmethod
    def _max_spots(self) -> int:
        """Each game's own rule."""

    @abstractmethod
    def _check_bets(self, seat: int, bets: Mapping[str, int]) -> dict[str, int]:
        """Each game's own rule."""

    @abstractmethod
    def _check_close(self) -> None:
        """Each game's own rule."""

    @abstractmethod
    def _plan(self, seats: Sequence[int]) -> tuple[Stage, ...]:
        """Each game's own rule."""

    @abstractmethod
    def _pending(self, street: str) -> list[int]:
        """Each game's own rule."""

    @abstractmethod
    def _check_decision(self, seat: int, action: str, multiple: int | None, street: str) -> int | None | NotAllowed:
        """Each game's own rule: the Play multiple the decision makes (None: no Play bet), or why not (never raised)."""

    @abstractmethod
    def _apply_decision(self, seat: int, action: str, multiple: int | None, street: str) -> None:
        """Each game's own rule."""

    @abstractmethod
    def _settle(self) -> Settlement:
        """Each game's own rule."""

    @abstractmethod
    def _round_data(self) -> RoundLine:
        """Each game's own rule: the round in `croupier settle`'s layout as far as it is dealt."""

    def _spot_bets(self, seat: int) -> dict[str, int]:
        return dict(self._bets[seat])

    @abstractmethod
    def _revealed(self, seat: int) -> bool:
        """Each game's own rule."""

    def _play_of(self, seat: int) -> tuple[str | None, int | None]:
        return None, None

    @abstractmethod
    def can_close_bets(self) -> bool:
        """The step's own rule (`engine.house.HouseRound`): whether the bets allow a deal now."""

    # -- reading the state --

    @property
    def phase(self) -> str:
        return self._phase

    @property
    def settlement(self) -> Settlement | None:
        """The settlement, from showdown on; None before."""
        return self._settlement

    @property
    def steps(self) -> tuple[Step, ...]:
        return tuple(self._steps)

    def steps_from(self, start: int) -> list[tuple[dict[str, Any], Step]]:
        """The steps from the `start`th on, each with its plain form (`Step.to_dict()`, made once when it was taken:
        read, never changed)."""
        return list(zip(self._plain[start:], self._steps[start:]))

    def spot_seats(self) -> tuple[int, ...]:
        """Seats with a bet, in dealing order (from the dealer's left)."""
        return tuple(sorted(self._bets))

    def next_target(self) -> Target | None:
        """Where the next card goes, or None when no card is expected now.

        In phase `bets` it is where the first card would go if the deal began now (a card dealt
        then closes the betting); None when the bets do not allow a deal.
        """
        if self._phase == "bets":
            if not self.can_close_bets():
                return None
            return self._plan(self.spot_seats())[0].targets[0]
        if self._stage < 0 or self._phase in ("showdown", "settled"):
            return None
        stage = self._stages[self._stage]
        if self._dealt_in_stage < len(stage.targets):
            return stage.targets[self._dealt_in_stage]
        return None

    def to_act(self) -> int | None:
        """The seat whose decision is awaited now, or None (found once a step: every step ends in `_record`,
        which forgets it)."""
        if self._to_act == _ASK:
            street = self._street_open()
            pending = self._pending(street) if street is not None else None
            self._to_act = pending[0] if pending else None
        return self._to_act

    def _street_open(self) -> str | None:
        if self._stage < 0 or self._phase in ("showdown", "settled"):
            return None
        stage = self._stages[self._stage]
        if stage.street is None or self._dealt_in_stage < len(stage.targets):
            return None
        return stage.street

    # -- the record and the views --

    def record(self) -> RoundRecord:
        """A frozen record of the round as it stands."""
        spots = []
        for seat in self.spot_seats():
            street, multiple = self._play_of(seat)
            spots.append(SpotRecord(seat, MappingProxyType(self._spot_bets(seat)),
                                    tuple(self._cards.get(seat, ())), self._decision.get(seat), street, multiple))
        data = self._round_data() if self._phase in ("showdown", "settled") else None
        return RoundRecord(self.game, self.profile.name, self._phase, tuple(spots), tuple(self._dealer),
                           tuple(self._board), tuple(self._burns), tuple(self._deals), tuple(self._steps),
                           self._settlement, MappingProxyType(data) if data is not None else None)

    def settle_input(self) -> RoundLine:
        """The round in `croupier settle`'s input form. Raises IllegalAction before the showdown."""
        if self._phase not in ("showdown", "settled"):
            raise IllegalAction(f"the round is not complete before the showdown (phase {self._phase})")
        return self._round_data()

    def as_dealt(self) -> RoundLine:
        """The round in `croupier settle`'s layout at any phase (each game's hand writes it): before the
        showdown (a hand voided midway) the cards dealt so far, which cannot be settled."""
        return self._round_data()

    def view(self, audience: str = "public") -> dict[str, Any]:
        """The round as plain values for the feed: `game`, `phase`, `board`, `dealer`, `spots`, `to_act`
        (the dealer's and the spots' parts: `engine.house_view`).

        `full`: every card, `burns`, and per hand `visible` (whether the rules have turned each
        card over for everyone: spot and dealer cards from the showdown on, a spot's only if they
        are shown there). `public`: that view through the one redaction (`engine.redact.public`):
        every card not visible is "??", burns never appear. Raises ValueError for an unknown audience.
        """
        if audience not in AUDIENCES:
            raise ValueError(f"audience must be one of {', '.join(AUDIENCES)}, not {audience!r}")
        full = self.full_view()
        return full if audience == "full" else redact.public(full)

    def views(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """`(view("public"), view("full"))`: the full view built once, the public one redacted from it."""
        full = self.full_view()
        return redact.public(full), full

    def _shown(self) -> bool:
        """Whether the hands' cards are turned over for everyone (from the showdown on: a spot's only where it is
        shown there, `_revealed`)."""
        return self._phase in ("showdown", "settled")

    def dealt_part(self, hand: dict[str, Any], card: str, seat: int | None = None) -> dict[str, Any]:
        """The dealer's hand (`seat` None) or spot `seat`'s as the last full view made it, with `card` just dealt to
        it, turned over as `full_view` would turn it (`house_view.with_card`): a table's view of a clean card made
        without a view of the round, by the same rule. Kept as the round's part, as `dealt_list`'s list."""
        shown = self._shown()
        made = with_card(hand, card, shown and (seat is None or self._revealed(seat)))
        if self._parts_shown is shown:
            self._parts["dealer" if seat is None else seat] = made
        return made

    def dealt_list(self, name: str, cards: list[str], card: str) -> list[str]:
        """The board's or the burns' texts (`name`) as the last full view made them, with `card` just dealt there.
        Kept, as `dealt_part`'s hand, as the round's part: the next `full_view` gives that very object (the
        redaction and the feed's changes take an unchanged part by identity), not one made again equal to it."""
        made = [*cards, card]
        if self._parts_shown is self._shown():
            self._parts[name] = made
        return made

    def full_view(self) -> dict[str, Any]:
        """`view("full")`, built once per step from the parts the steps changed: a spot's dict is made
        again when a step names its seat (bets, a card, a decision), the dealer's hand, the board or the
        burns when a card goes there (unless a table made it of that card: `dealt_part`, `dealt_list`), and
        every part at the showdown (it turns cards over and settles); else it is the very dict or list of the
        view before. A view's parts are never changed once made (the feed's changes and the redaction take an
        unchanged part by identity)."""
        shown = self._shown()
        if self._parts_shown != shown:
            self._parts, self._parts_shown = {}, shown
        parts = self._parts
        settlement = self._settlement if shown else None
        if "dealer" not in parts:
            parts["dealer"] = dealer_part(self._dealer, shown, settlement)
        if "board" not in parts:
            parts["board"] = format_cards(self._board)
        if "burns" not in parts:
            parts["burns"] = format_cards(self._burns)
        spots = []
        for seat in sorted(self._bets):
            spot = parts.get(seat)
            if spot is None:
                spot = parts[seat] = spot_part(seat, self._cards.get(seat, ()), self._spot_bets(seat),
                                               self._decision.get(seat), shown and self._revealed(seat), settlement)
            spots.append(spot)
        return {"game": self.game, "phase": self._phase, "board": parts["board"], "dealer": parts["dealer"],
                "spots": spots, "to_act": self.to_act(), "burns": parts["burns"]}

    # -- internals --

    def _advance(self) -> None:
        """Move through stages whose cards are all dealt and whose decisions are all taken."""
        self._to_act = _ASK  # the step's `_record` forgets it too: asked before it, it is asked again
        while True:
            stage = self._stages[self._stage]
            if self._dealt_in_stage < len(stage.targets):
                return
            if stage.street is not None and self._pending(stage.street):
                return
            if self._stage == len(self._stages) - 1:
                break
            self._stage += 1
            self._dealt_in_stage = 0
            self._phase = self._stages[self._stage].phase
        if self._phase == "showdown" and self._settlement is None:
            self._settlement = self._settle()

    def _record(self, do: str, args: dict[str, Any], **outcome: Any) -> Step:
        step = _new_step(do, MappingProxyType(args), MappingProxyType({**outcome, "phase": self._phase}))
        self._steps.append(step)
        self._plain.append(step.to_dict())
        self._standing = None
        self._to_act = _ASK
        if "seat" in args:  # a spot's bets or decision: its dict is made again
            self._parts.pop(args["seat"], None)
        return step
