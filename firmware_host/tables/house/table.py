"""One hand at the table: the engine's round plus what the controller keeps beside it (faults, voids).

A thin adapter over `engine.house.HouseRound` (`UltimateHoldemRound`, `ThreeCardPokerRound`): the
engine owns the rules (legality, dealing order, settlement, public/full views); this module adds
the controller's bookkeeping (faults raised and cleared, cards ignored while a fault stood, the
discard reader's cards, why a hand was voided) and builds the hand's record for the journal and
`croupier history`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from engine.errors import CardError, DuplicateCard, IllegalAction
from engine.games import DECISIONS, HOUSE_GAMES, MAX_SPOTS, PLAY_MULTIPLES, THREE_CARD_POKER, UTH
from engine.house import HouseRound
from engine.house_values import spot_target
from engine.paytables import Profile, ProfileText
from engine.three_card_poker import ThreeCardPokerRound
from engine.ultimate_holdem import UltimateHoldemRound
from protocol import messages
from firmware_host.tables.base import CardFault, FaultBook, FaultKind, GameTable, ShownParts
from firmware_host.tables.house.opening import journaled_profile, open_body, spelt_out
from firmware_host.tables.house.sign import limits_sign, paytable_sign, shown_hand

ROUND_CLASSES: dict[str, type[HouseRound]] = {UTH.code: UltimateHoldemRound,
                                               THREE_CARD_POKER.code: ThreeCardPokerRound}


def round_class(game: str) -> type[HouseRound]:
    """The engine's round class for `game`. Raises ValueError for an unknown game."""
    if game not in ROUND_CLASSES:
        raise ValueError(f"unknown game {game!r} (games: {', '.join(ROUND_CLASSES)})")
    return ROUND_CLASSES[game]


@dataclass(frozen=True, slots=True)
class HouseSetup:
    """What `open` sets: the game, its paytable profile, the limits, the number of seats.

    `text` is the profile's TOML text as journaled (`firmware_host.tables.house.opening`): the tables
    the hands are played and settled under. A setup made with only a `profile` name or file reads
    it once, when made (the configuration's, a test's); one rebuilt from a journaled `open` never
    reads a file.
    """

    game: str
    profile: str = "default"  # a builtin's name or a profile file (read when made); then the profile's name
    limits: Mapping[str, int] = field(default_factory=dict)
    seats: int = MAX_SPOTS
    text: ProfileText | None = None
    rules: Profile | None = field(default=None, compare=False, repr=False)  # `text` parsed

    def __post_init__(self) -> None:
        """Read the profile when only its name or file is given; parse the text once. Raises
        ProfileError, ValueError (a journaled content that is not its sha256's)."""
        if self.text is None:
            body = open_body(self.game, self.profile, self.limits, self.seats)
            object.__setattr__(self, "text", journaled_profile(body))
        assert self.text is not None
        object.__setattr__(self, "profile", self.text.name)
        object.__setattr__(self, "limits", spelt_out(self.limits))
        if self.rules is None:
            object.__setattr__(self, "rules", self.text.parse())

    @classmethod
    def from_body(cls, body: Mapping[str, Any], default_seats: int = MAX_SPOTS) -> HouseSetup:
        """From an `open` event's body. Raises ValueError / ProfileError / LimitsError (refused open)."""
        extra = [k for k in ("structure", "stakes", "stacks", "button", "rake") if body.get(k)]
        if extra:
            raise ValueError(f"a {body.get('game')} table takes profile and limits, not {', '.join(extra)}")
        if int(body.get("seats") or 0) > MAX_SPOTS:
            raise ValueError(f"a {body.get('game')} table has at most {MAX_SPOTS} spots")
        profile = body.get("profile", "default")
        text = journaled_profile(body) if isinstance(profile, Mapping) else None  # else: journaled by name
        setup = cls(game=str(body["game"]), profile=str(profile) if text is None else text.name,
                    limits=dict(body.get("limits") or {}), seats=int(body.get("seats", default_seats)), text=text)
        setup.new_round()  # refuse now what the engine would refuse
        return setup

    def as_body(self) -> dict[str, Any]:
        """The `open` body: the profile's text and sha256, every limit spelt out."""
        assert self.text is not None
        return open_body(self.game, self.text, self.limits, self.seats)

    @property
    def profile_sha256(self) -> str:
        assert self.text is not None
        return self.text.sha256

    def new_table(self, hand: int) -> HouseTable:
        return HouseTable(self, hand)

    def new_round(self) -> Any:
        """A fresh engine round in phase `bets`. Raises ProfileError, LimitsError, ValueError."""
        from engine.house import TableLimits
        profile = self.rules
        assert profile is not None
        limits = TableLimits.parse(self.limits, source="open")
        max_spots = (profile.uth if self.game == "uth" else profile.three_card_poker).max_spots
        return round_class(self.game)(profile, limits, min(self.seats, max_spots))


class HouseTable(FaultBook):
    """The hand in progress at a house-banked game (or just finished, until the next one starts)."""

    STEPS: ClassVar[frozenset[str]] = frozenset({"bet", "decide", "correct"})

    def __init__(self, setup: HouseSetup, hand: int) -> None:
        self.setup = setup
        self.hand = hand
        self.round = setup.new_round()
        self.faults: list[messages.HandFault] = []
        self.ignored: list[messages.IgnoredCard] = []
        self.manual: list[messages.ManualCard] = []  # cards entered by hand
        self.discards: list[str] = []
        self.corrected: list[dict[str, Any]] = []  # decisions corrected (`correct`): the full feed and the record
        self.offered: dict[int, list[dict[str, Any]]] = {}  # seat -> the decisions open when it took its last
        self.closed: str | None = None  # "settled" or "voided" once closed
        assert setup.rules is not None
        # the limits sign and the paytables, made once a hand: every view passes them as they are
        self._signs = (limits_sign(setup.limits), paytable_sign(setup.game, setup.rules, setup.profile_sha256))
        self._sequence: list[dict[str, Any]] = []  # the full view's `sequence`, a step's entry made once
        self._multiples = chosen_multiples(setup.game)
        self._circles = list(self.round.BETS)  # the console's betting circles, the same list every view
        self._shown_parts = ShownParts()  # the view's copies of the lists above, kept while equal
        self._places: dict[str, int] | None = None  # a spot's place in the view's `spots` by its target (`card_parts`)

    def successor(self, hand: int) -> HouseTable:
        """The table for the next hand (a fresh round; nothing carries over at a house game)."""
        return HouseTable(self.setup, hand)

    def carry_from(self, record: Mapping[str, Any]) -> None:
        """Nothing carries over from one hand to the next at a house game."""

    def carried_seats(self) -> dict[str, Any]:
        """A house game has spots, not seated players with stacks: nothing to carry to a new game."""
        return {}

    # -- state --

    @property
    def phase(self) -> str:
        return str(self.round.phase)

    @property
    def confirmable(self) -> bool:
        """At the showdown: the dealer pays and confirms."""
        return self.closed is None and self.phase == "showdown"

    def next_target(self) -> str | None:
        """Where the next card goes (`spot 3`, `dealer`, `board`, `burn`), or None."""
        target = self.round.next_target()
        return None if target is None else str(target)

    @property
    def started(self) -> bool:
        """A hand is under way: a bet is posted or a card dealt, and it is not closed."""
        return self.closed is None and (bool(self.round.spot_seats()) or self.phase != "bets")

    @property
    def mid_hand(self) -> bool:
        """Between the deal and the showdown: where shoe and device faults stop the hand."""
        return self.closed is None and self.phase not in ("bets", "showdown", "settled")

    @property
    def between_hands(self) -> bool:
        """The `next` button closes the betting."""
        return self.closed is None and self.phase in ("bets", "waiting")

    @property
    def waiting_for_dealer(self) -> bool:
        """The tower light's amber: a decision or the payouts are awaited."""
        return self.closed is None and (self.round.to_act() is not None or self.round.phase == "showdown")

    def short_of_cards(self) -> bool:
        """Dealing, with cards still expected and no decision awaited: a showdown called now would
        be short of cards."""
        return (self.closed is None and self.phase not in ("bets", "showdown", "settled")
                and self.round.next_target() is not None and self.round.to_act() is None)

    def full_view(self) -> dict[str, Any]:
        """The round's full view (every card, each hand's `visible` flags) with the table's own fields."""
        full: dict[str, Any] = self.round.full_view()
        self._dealing_parts(full)
        full["seats"], full["circles"] = self.round.seats, self._circles  # the console's betting spots
        shown = self._shown_parts  # each the very list of the view before while equal
        full["discards"] = shown.same("discards", self.discards, list)
        full["ignored"] = shown.same("ignored", self.ignored, _copies)
        full["manual"] = shown.same("manual", self.manual, _copies)
        full["corrected"] = shown.same("corrected", self.corrected, _copies)
        full["limits"], full["paytable"] = self._signs
        return full

    def _dealing_parts(self, full: dict[str, Any]) -> None:
        """The full view's parts a card may change besides the round's own: where the next card goes, the
        decisions open, the hand's steps in their order (full feed only)."""
        target = self.round.next_target() if self.closed is None else None
        full["next"] = str(target) if target is not None and self.phase != "bets" else None
        full["legal"] = legal_decisions(self.round, self._multiples) if self.closed is None else None
        full["sequence"] = self._sequence_now()

    def card_parts(self, phase: str, last: Mapping[str, Any]) -> CardParts | None:
        """After one card dealt cleanly (not entered by hand, no fault) with the round in `phase` before it: the parts
        of the full view `last` (the view before it) the card changed, made where it landed, with no view of the
        round made (`CardParts`): the hand it went to (a spot's or the dealer's, the part of `last`
        with the card added as the round turns it over (`HouseRoundState.dealt_part`: the engine's rule); its `bets`
        the very dict), or the board or the burns grown by its text as the round wrote it (its step's `card`); the
        hand's `sequence` grown by that step; `next` when it moved; `to_act` and `legal` only where no card is due
        next (a decision is awaited only once the stage's cards are dealt: the card that makes one due). None when
        the card changed more (the showdown reached, where the hands turn over and settle): the view is then made
        whole. A card that moves the round to another phase between the deal and the showdown (`mid_hand`: the hand's
        first card, the one that makes the first decision due, the flop's last where no one is left to decide) puts
        `phase` in `sets` too (the caller makes the steps again). Every other part is one a card never changes (tests
        hold the views made so to the whole views after every card)."""
        round_ = self.round
        moved = round_.phase != phase
        if self.closed is not None or round_.settlement is not None or (moved and not self.mid_hand):
            return None
        made = round_.steps_from(len(self._sequence))  # the card's step alone
        if len(made) != 1:
            return None
        plain, step = made[0]
        target, card = step.outcome.get("target"), plain.get("card")
        if target is None or card is None:
            return None
        entry = {**plain, "to": target}
        self._sequence.append(entry)
        grown: dict[str, Any] = {"sequence": list(self._sequence)}
        sets: dict[str, Any] = {"phase": round_.phase} if moved else {}
        place, hand = -1, None
        key = _LANDED.get(target)
        if key == "dealer":
            hand = sets["dealer"] = round_.dealt_part(last["dealer"], card)
        elif key is not None:
            grown[key] = round_.dealt_list(key, last[key], card)
        else:
            if self._places is None:  # each spot's place in `spots` by its target's text, once a hand
                self._places = {spot_target(seat).text: i for i, seat in enumerate(round_.spot_seats())}
            place = self._places.get(target, -1)
            if place < 0:
                return None
            spot = last["spots"][place]
            hand = round_.dealt_part(spot, card, spot["seat"])
        upcoming = round_.next_target()
        if upcoming is None:  # the stage's cards dealt: a decision may be due now
            to_act = round_.to_act()
            if to_act != last["to_act"]:
                sets["to_act"] = to_act
            sets["legal"] = legal_decisions(round_, self._multiples)
        upcoming_text = upcoming.text if upcoming is not None else None  # `str(target)`, with no `__str__` call
        if upcoming_text != last["next"]:
            sets["next"] = upcoming_text
        return sets, grown, place, hand if place >= 0 else None

    def _sequence_now(self) -> list[dict[str, Any]]:
        """Every step of the hand in its order, its card's target as `to`: each step's entry made once (a
        round's steps only grow), in a new list each view (the view before keeps its own)."""
        for plain, step in self.round.steps_from(len(self._sequence)):  # a step's plain form made once, by the round
            target = step.outcome.get("target")
            self._sequence.append({**plain, "to": target} if target is not None else dict(plain))
        return list(self._sequence)

    def shown(self) -> dict[str, Any]:
        """This hand, once closed, as the players' screen lists it among the last hands (public form)."""
        return shown_hand(self.full_view(), self.hand, self.closed or "settled")

    # -- steps --

    def step(self, kind: str, body: Mapping[str, Any]) -> None:
        """`bet` (seat, bets), `decide` (seat, decision, multiple) or `correct` (seat, decision, multiple: the
        seat's last decision replaced, `HouseRound.correct`). Raises IllegalAction (state unchanged)."""
        if kind == "bet":
            self.round.post_bets(int(body["seat"]), dict(body["bets"]))
        elif kind == "decide":
            seat, decision = int(body["seat"]), str(body["decision"])
            if decision == "dead":
                self.round.declare_dead(seat)
            else:
                open_now = legal_decisions(self.round, self._multiples) or []
                self.round.decide(seat, decision, body.get("multiple"))
                self.offered[seat] = open_now  # what "Correct the last decision" may put in its place
        elif kind == "correct":
            self.round.correct(int(body["seat"]), str(body["decision"]), body.get("multiple"))
            self.corrected.append({k: body[k] for k in ("seat", "decision", "multiple", "was", "signed_off") if k in body})
        else:
            raise IllegalAction(f"a {self.setup.game} table takes {' and '.join(sorted(self.STEPS))}, not {kind}")

    def deal(self) -> None:
        """Close the betting. Raises IllegalAction."""
        self.round.close_bets()

    def deal_or_fault(self, card: str) -> CardFault | None:
        """Deal the card where the engine says; or, when it cannot be dealt, the fault it raises
        instead, `(kind, detail)`, with nothing changed (one check: `check_card` then `take_card`
        would check the card twice)."""
        try:
            self.round.deal(card)
        except (CardError, IllegalAction) as exc:
            return self._card_fault(card, exc)
        return None

    def _card_fault(self, card: str, exc: CardError | IllegalAction) -> CardFault:
        if isinstance(exc, DuplicateCard):
            return CardFault(FaultKind.DUPLICATE_CARD, str(exc), card)
        if isinstance(exc, CardError):  # not a card at all: its text is no card to name
            return CardFault(FaultKind.UNEXPECTED_CARD, str(exc))
        if self.phase in ("showdown", "settled"):
            return CardFault(FaultKind.CARD_COUNT, f"too many cards: {card} after the last card of the hand", card,
                             situation="too_many")
        if self.phase == "bets" and not self.round.spot_seats():
            return CardFault(FaultKind.NO_BET, f"{card} came out but no spot has a bet", card)
        if self.phase == "bets":
            return CardFault(FaultKind.NO_BET, f"{card} came out but the bets do not allow a deal: {exc}", card)
        seat = self.round.to_act()
        return CardFault(FaultKind.UNEXPECTED_CARD, str(exc), card, seat, "deciding" if seat is not None else "")

    def discard(self, card: str) -> None:
        self.discards.append(card)

    def settle(self) -> None:
        """The payouts are confirmed. Raises IllegalAction before the showdown."""
        self.round.settle()

    def record(self, status: str, body: Mapping[str, Any]) -> dict[str, Any]:
        """The hand as journaled when it closes and printed by `croupier history`."""
        self.closed = status
        rec = self.round.record()
        settlement = rec.settlement.to_dict() if (status == "settled" and rec.settlement is not None) else None
        return {
            "hand": self.hand,
            "game": self.setup.game,
            "profile": self.setup.profile,
            "profile_sha256": self.setup.profile_sha256,  # its text: in the `open` event before the hand
            "limits": dict(self.setup.limits),
            "status": status,
            "burns": [str(c) for c in rec.burns],
            "deals": [[str(t), str(c)] for t, c in rec.deals],
            "spots": [{"seat": s.seat, "bets": dict(s.bets), "cards": [str(c) for c in s.cards],
                       "decision": s.decision, "street": s.street, "multiple": s.multiple}
                      for s in rec.spots],
            "dealer": [str(c) for c in rec.dealer],
            "board": [str(c) for c in rec.board],
            "steps": [step.to_dict() for step in rec.steps],
            "round": self.round.as_dealt(),  # `croupier settle`'s layout, written by the engine alone
            "settlement": settlement,
            "faults": self.faults,
            "ignored": self.ignored,
            "manual": self.manual,
            "corrected": self.corrected,
            "discards": self.discards,
            "reason": body.get("reason"),
            "by": body.get("by"),
            "signed_off": body.get("signed_off"),
        }

CardParts = tuple[dict[str, Any], dict[str, list[Any]], int, dict[str, Any] | None]
"""The parts of the full view a clean card changed (`HouseTable.card_parts`), `(sets, grown, place, spot)`: `sets`,
those replaced whole (by key); `grown`, the lists grown by one at their end (by key: `sequence`, the board or the
burns); `spot`, the spot it went to and `place`, its place in `spots` (-1 and None: no spot). A plain tuple: made
at every clean card, with no class's `__new__` call."""


_LANDED = {"dealer": "dealer", "board": "board", "burn": "burns"}
"""The round's view's part a card goes to, by its target's text (`engine.house_values.Target`); a spot's is `spots`."""

CARD_GROWN = frozenset({"board", "burns", "sequence"})
"""Of the parts `HouseTable.card_parts` makes, the lists a card made new only by adding at their end (a card to the
board, a burn, the card's step): the feed's changes send their new places (`protocol.feed.named_changes`); `spots`
has one place new (the spot the card went to); any other part goes whole."""

_: type[GameTable] = HouseTable  # the house table implements the table state's interface (mypy checks it)


def _copies(entries: list[Any]) -> list[dict[str, Any]]:
    """A view's copy of a list of maps (each map copied: the table's own are its to change)."""
    return [dict(x) for x in entries]


def legal_decisions(round_: Any, multiples: bool) -> list[dict[str, Any]] | None:
    """The decisions open to the spot to act, as the engine allows them now (`{"decision": "play",
    "multiple": 4}`, `{"decision": "check"}`, ...; "dead" is not a player's choice), or None when no
    decision is awaited: what the dealer console shows as buttons. `multiples`: the game's Play bet
    is a multiple of the Ante chosen by the player (UTH). The engine's `open_decisions` answers by
    `verify_decide`'s own rule, raising and wording nothing."""
    choices = _CHOICES[multiples]
    open_now = round_.open_decisions(choices)
    return None if open_now is None else [dict(choices[c]) for c in open_now]


def decision_choices(multiples: bool) -> list[dict[str, Any]]:
    """Every decision a player may choose, as the console offers it (`{"decision": "play", "multiple": 4}`,
    `{"decision": "check"}`; "dead" is not a player's choice). `multiples`: the Play bet is a multiple of the Ante
    the player chooses (UTH: each multiple, the largest first); else one `play` (3CP)."""
    out: list[dict[str, Any]] = []
    for decision in DECISIONS:
        if decision == "dead":
            continue
        if decision == "play" and multiples:
            out += [{"decision": decision, "multiple": m} for m in sorted(PLAY_MULTIPLES, reverse=True)]
        else:
            out.append({"decision": decision})
    return out


_CHOICES: dict[bool, dict[tuple[str, int | None], dict[str, Any]]] = {
    m: {(c["decision"], c.get("multiple")): c for c in decision_choices(m)} for m in (False, True)}
"""`decision_choices` by `multiples`, each keyed by `(decision, multiple)` as the engine asks them (`open_decisions`);
the console's dicts copied into each view (a view's own)."""


def chosen_multiples(game: str) -> bool:
    """The game's player chooses how many times the Ante to Play (UTH: 4x or 3x, then 2x, then 1x);
    at 3CP the Play bet is always the Ante."""
    return any(m != 1 for ms in HOUSE_GAMES[game].play_multiples.values() for m in ms)
