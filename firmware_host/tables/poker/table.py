"""A poker table on the controller: seats and stacks between hands, one engine hand at a time.

The dealer-assist twin of `firmware_host.tables.house.table` for the poker games of `engine.poker.VARIANTS`
(hold'em, Omaha, stud, razz, the draw games). The engine owns the rules (who acts, the legal
amounts, pots, showdown, odd chips); this module adds what a table keeps beside one hand:

- the **session**: the engine's `engine.poker.Session` (who sits where with how many chips, who
  sits out, where the button was), numbered by the table's seats. Seat changes (`join`, `rebuy`,
  `leave`) happen between hands only; `sit_out` / `sit_in` at any time, taking effect at the next
  hand, and `post` / `wait` for a player owing missed blinds. `deal` starts the next hand: the
  button and blinds placed by the table's `rules` (the dead button by default, docs/poker.md
  "Seats, blinds and short all-ins"; a voided hand is dealt again with the same button). The seating after a hand is journaled with
  the hand's record (`Session.to_dict`) and taken back at a restart (`carry_from`).
- the cards from the shoe in the order the engine expects them (`expected_card`: burns, hole
  cards down and up, board, draw replacements); a card the engine does not expect is a fault;
- the dealer's actions per seat (`act`), a pot chopped by agreement (`chop`);
- faults, cards ignored while a fault stood, the discard reader's cards;
- the hand's record for the journal: besides the history fields it holds `hand_record`, the
  hand in `engine.phh.hand_from_record`'s format, which `croupier phh export` turns into PHH.

Every step is deterministic in its arguments (no clock, no randomness), so the controller rebuilds
a hand exactly by replaying its journaled events. A refused step raises (IllegalAction, CardError
or ValueError) and changes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypedDict

from engine.errors import CardError, DuplicateCard, IllegalAction, say
from engine.games import POKER_SEATS, STAKES_KEYS, STRUCTURES
from engine.poker import VARIANTS, Hand, HandSettings, Session, Stakes, Structure
from engine.poker.state import Rake
from engine.poker.values import table_rules
from protocol import messages
from firmware_host.tables.base import CardFault, FaultBook, FaultKind, GameTable, SetupError
from firmware_host.tables.poker.actions import SequenceLine, play
from firmware_host.tables.poker.record import (
    card_text, empty_seat, final_stacks, hand_results, hand_rules, owing, shown_names,
)
from firmware_host.tables.poker.sign import seat_records, shown_hand


def _stakes(structure: str, raw: Mapping[str, Any]) -> Stakes:
    """Build the engine's Stakes. Raises ValueError / IllegalAction naming what is wrong."""
    unknown = set(raw) - set(STAKES_KEYS)
    if unknown:
        raise ValueError(f"unknown stakes field(s) {', '.join(sorted(unknown))} (known: {', '.join(STAKES_KEYS)})")
    if structure not in STRUCTURES:
        raise ValueError(f"structure must be one of {', '.join(STRUCTURES)}, not {structure!r}")
    args: dict[str, Any] = dict(raw)
    if "blinds" in args:
        args["blinds"] = tuple(args["blinds"])
    if isinstance(args.get("antes"), (list, tuple)):
        args["antes"] = tuple(args["antes"])
    return Stakes(Structure(structure), **args)


class Chop(TypedDict):
    """A pot chopped by agreement: seat -> the chips it took, and whether evenly (no shares given)."""

    shares: dict[str, int]
    equal: bool


@dataclass(frozen=True, slots=True)
class PokerSetup:
    """What `open` sets at a poker table: the game, the betting structure and stakes, the number of
    seats, the players seated at the start (`stacks`: seat -> chips) and the first button.

    `stakes` holds `engine.poker.Stakes` fields: `blinds` ([small, big, straddles...]), `antes` (one
    amount or one per place in blind order), `bring_in`, `small_bet`, `big_bet`, `min_bet`,
    `max_bet`, `raise_cap`, `uncapped_heads_up`. `rake` (empty: none) holds `engine.poker.Rake`'s
    fields: `rate_bp` (basis points of the pot), `cap`, `no_flop_no_drop` (default true). `rules`
    (`engine.games.POKER_RULES`; empty: every default) holds the room's rules: `button` `"dead"`
    or `"moving"`, `short_allin_rule` `"tda"` or `"simple"`, `fixed_limit_half_bet_reopens`, and
    `all_in_reveal` (a tournament table: hands turned up at an all-in showdown).
    """

    game: str
    structure: str
    stakes: Mapping[str, Any] = field(default_factory=dict)
    seats: int = 9
    stacks: Mapping[int, int] = field(default_factory=dict)
    button: int | None = None
    sitting_out: tuple[int, ...] = ()
    last_button: int | None = None   # carried over from the game before (keep_seats): the button moves on
    rake: Mapping[str, Any] = field(default_factory=dict)
    rules: Mapping[str, Any] = field(default_factory=dict)

    @property
    def profile(self) -> None:  # the house games' paytable profile; none at a poker table
        return None

    @property
    def variant(self) -> Any:
        return VARIANTS[self.game]

    def engine_stakes(self) -> Stakes:
        return _stakes(self.structure, self.stakes)

    def engine_rake(self) -> Rake | None:
        """The house's rake, or None. Raises ValueError (IllegalAction) for a bad one."""
        if not self.rake:
            return None
        unknown = set(self.rake) - {"rate_bp", "cap", "no_flop_no_drop"}
        if unknown:
            raise ValueError(f"rake: unknown key(s) {', '.join(sorted(unknown))} (rate_bp, cap, no_flop_no_drop)")
        rate, cap, nfnd = self.rake.get("rate_bp"), self.rake.get("cap"), self.rake.get("no_flop_no_drop", True)
        for name, value in (("rate_bp", rate), ("cap", cap)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise ValueError(f"rake: {name} must be an integer, not {value!r}")
        if not isinstance(nfnd, bool):
            raise ValueError(f"rake: no_flop_no_drop must be true or false, not {nfnd!r}")
        assert isinstance(rate, int) and isinstance(cap, int)
        return Rake(rate, cap, nfnd)

    @classmethod
    def from_body(cls, body: Mapping[str, Any], default_seats: int = 9) -> PokerSetup:
        """From an `open` event's body. Raises ValueError / IllegalAction (a refused open)."""
        game = str(body["game"])
        if game not in VARIANTS:
            raise ValueError(f"unknown poker game {game!r} (games: {', '.join(VARIANTS)})")
        for key in ("profile", "limits"):
            if body.get(key):
                raise ValueError(f"a poker table takes structure and stakes, not {key}")
        if "structure" not in body:
            raise ValueError("a poker table needs a betting structure (structure)")
        low, high = POKER_SEATS
        seats = int(body.get("seats") or min(max(default_seats, low), VARIANTS[game].max_players))
        if not low <= seats <= high:
            raise ValueError(f"seats must be {low}..{high}, not {seats}")
        stacks: dict[int, int] = {}
        for seat, chips in dict(body.get("stacks") or {}).items():
            s = int(seat)
            if not 1 <= s <= seats:
                raise SetupError("stacks", f"stacks: seat {s} is not a seat of this table (1..{seats})")
            if isinstance(chips, bool) or not isinstance(chips, int) or chips <= 0:
                raise SetupError("stacks", f"stacks: seat {s}: a buy-in must be a positive integer, not {chips!r}")
            stacks[s] = chips
        button = body.get("button")
        if button is not None and not 1 <= int(button) <= seats:
            raise SetupError("button", f"button: seat {button} is not a seat of this table (1..{seats})")
        out = tuple(sorted(int(s) for s in body.get("sitting_out") or ()))
        if set(out) - set(stacks):
            raise SetupError("sitting_out", f"sitting_out: seat(s) {sorted(set(out) - set(stacks))} have no stack")
        setup = cls(game=game, structure=str(body["structure"]), stakes=dict(body.get("stakes") or {}),
                    seats=seats, stacks=stacks, button=None if button is None else int(button), sitting_out=out,
                    last_button=None if body.get("last_button") is None else int(body["last_button"]),
                    rake=dict(body.get("rake") or {}), rules=dict(body.get("rules") or {}))
        setup.engine_stakes()  # refuse now what the engine would refuse
        setup.engine_rake()
        table_rules(setup.rules)
        return setup

    def as_body(self) -> dict[str, Any]:
        body: dict[str, Any] = {"game": self.game, "structure": self.structure, "stakes": dict(self.stakes),
                                "seats": self.seats, "stacks": {str(s): c for s, c in self.stacks.items()}}
        if self.button is not None:
            body["button"] = self.button
        if self.sitting_out:
            body["sitting_out"] = list(self.sitting_out)
        if self.last_button is not None:
            body["last_button"] = self.last_button
        if self.rake:
            body["rake"] = dict(self.rake)
        if self.rules:
            body["rules"] = dict(self.rules)
        return body

    def new_table(self, hand: int) -> PokerTable:
        return PokerTable(self, hand)

    def new_session(self) -> Session:
        """The engine's session of this table, with the players `open` seats (`stacks`, who sits
        out, the button carried over from the game before)."""
        rules = table_rules(self.rules)
        settings = HandSettings(burns=True, burn_before_hole=True, rake=self.engine_rake(),
                                short_allin_rule=rules["short_allin_rule"],
                                fixed_limit_half_bet_reopens=rules["fixed_limit_half_bet_reopens"],
                                all_in_reveal=rules["all_in_reveal"])
        session = Session(self.variant, self.engine_stakes(), self.seats, settings, first_button=self.button,
                          dead_button=rules["button"] == "dead")
        session.restore({"seats": {str(s): {"stack": c, "out": s in self.sitting_out} for s, c in self.stacks.items()},
                         "button": self.last_button})
        return session


class PokerTable(FaultBook):
    """The session at a poker table and the hand in progress (or just finished, until the next step).

    A `GameTable` (firmware_host.tables.base); its own steps are `act`, `seat` and `chop`.
    """

    STEPS: ClassVar[frozenset[str]] = frozenset({"act", "seat", "chop"})

    def __init__(self, setup: PokerSetup, hand: int, seating: Mapping[str, Any] | None = None) -> None:
        """The table for hand number `hand`: the players `setup` seats, or the `seating` a closed
        hand left (`Session.to_dict`)."""
        self.setup = setup
        self.hand = hand
        self.session: Session = setup.new_session()
        if seating is not None:
            self.session.restore(seating)
        self.engine: Hand | None = None  # the session's hand, kept once the hand is closed
        self.events: list[list[Any]] = []       # in hand_from_record's format
        self.actions: list[str] = []            # the dealer's words, for history
        self.deals: list[list[str]] = []        # [target, card] in dealt order (burns included)
        self.sequence: list[SequenceLine] = []  # the hand's own order, for the full feed: posts, cards, actions
        self.last_action: dict[int, str] = {}
        self.last_act: dict[int, messages.Act] = {}  # the same as records, for the screens' words (poker_sign.py)
        self.act_street: dict[int, int] = {}  # the street of each seat's last act (street_act)
        self.chopped: Chop | None = None
        self.faults: list[messages.HandFault] = []
        self.ignored: list[messages.IgnoredCard] = []
        self.manual: list[messages.ManualCard] = []  # cards entered by hand
        self.discards: list[str] = []
        self.closed: str | None = None

    # -- the session ------------------------------------------------------------------------------

    def successor(self, hand: int) -> PokerTable:
        """The table for the next hand, with the seating this one left (a closed hand's session
        took its end in `record`: stacks after it, or as before it when voided). This table is
        unchanged: the successor's session is its own, from the seating's plain values."""
        return PokerTable(self.setup, hand, self.session.to_dict())

    def shown(self) -> dict[str, Any] | None:
        """This hand, once closed, as the players' screen lists it among the last hands (public
        form, `poker_sign.shown_hand`); None when no hand was dealt."""
        if self.engine is None:
            return None
        return shown_hand(self.full_view(), self.hand, self.closed or "settled")

    def carried_seats(self) -> dict[str, Any]:
        """`open` fields that carry this session over to a new game: stacks (the broke leave),
        who sits out, and the last button (the next hand's button moves on from it)."""
        players = sorted(self.session.players.items())
        return {"stacks": {str(s): p.stack for s, p in players if p.stack > 0},
                "sitting_out": [s for s, p in players if p.sitting_out and p.stack > 0],
                "last_button": self.session.button}

    def carry_from(self, record: Mapping[str, Any]) -> None:
        """The seats and stacks a closed hand's record left (its `session`). Raises IllegalAction."""
        if record.get("session") is not None:
            self.session.restore(record["session"])

    def seat_change(self, seat: int, action: str, amount: int | None = None) -> None:
        """Join (with a buy-in), rebuy (add chips), leave, sit out, sit in: the session's
        `seat_change`. Raises IllegalAction (nothing changed)."""
        self.session.seat_change(seat, action, amount)

    # -- state ------------------------------------------------------------------------------------

    @property
    def over(self) -> bool:
        return self.engine is not None and self.engine.is_over

    @property
    def phase(self) -> str:
        if self.closed is not None:
            return self.closed
        if self.engine is None:
            return "waiting"
        if self.over:
            return "over"
        return self.engine.phase.value

    @property
    def started(self) -> bool:
        return self.closed is None and self.engine is not None

    @property
    def mid_hand(self) -> bool:
        return self.started and not self.over

    @property
    def confirmable(self) -> bool:
        """The hand is over: the dealer pushes the pots and confirms."""
        return self.closed is None and self.over

    @property
    def between_hands(self) -> bool:
        """The `next` button deals the next hand."""
        return self.engine is None or self.closed is not None

    @property
    def waiting_for_dealer(self) -> bool:
        return self.started and (self.over or self.engine.actor is not None)  # type: ignore[union-attr]

    def next_target(self) -> str | None:
        """Where the next card goes: `burn`, `board`, `seat N` (hole card or draw), or None."""
        if self.engine is None or self.closed is not None or self.over:
            return None
        slot = self.engine.expected_card()
        if slot is None:
            return None
        return f"seat {slot.seat}" if slot.seat is not None else slot.kind

    def street_act(self, seat: int) -> messages.Act | None:
        """The seat's `act` on this street only: cleared when the street's bets go to the middle (a fold, an
        all-in stay as `folded`, `all_in`); the one rule for /dealer and /table (docs/feed.md)."""
        same = self.engine is not None and self.act_street.get(seat) == self.engine.street
        return self.last_act.get(seat) if same else None

    def short_of_cards(self) -> bool:
        return self.mid_hand and self.next_target() is not None

    def final_stacks(self) -> dict[int, int]:
        assert self.engine is not None
        return final_stacks(self.engine)

    # -- cards ------------------------------------------------------------------------------------

    def deal_or_fault(self, card: str) -> CardFault | None:
        """Deal the card where the engine expects it (the first card starts the hand); or, when it
        cannot be dealt, the fault it raises instead, with nothing changed."""
        if self.closed is not None or self.over:
            return CardFault(FaultKind.CARD_COUNT, f"too many cards: {card} after the last card of the hand", card,
                             situation="too_many")
        hand = self.engine
        if hand is None:
            try:
                hand = self.session.next_hand()
            except IllegalAction as exc:
                return CardFault(FaultKind.NO_BET, f"{card} came out but no hand can start: {exc}", card)
        try:
            hand.verify_deal(card)
        except DuplicateCard as exc:
            return CardFault(FaultKind.DUPLICATE_CARD, str(exc), card)
        except CardError as exc:
            return CardFault(FaultKind.UNEXPECTED_CARD, str(exc))
        except IllegalAction as exc:
            seat = hand.actor if self.engine is not None else None
            return CardFault(FaultKind.UNEXPECTED_CARD, f"{card} came out of turn: {exc}", card, seat,
                             "deciding" if seat is not None else "")
        if self.engine is None:
            self._start()  # the hand just checked (deterministic)
        self.take_card(card)
        return None

    def take_card(self, card: str) -> None:
        """Deal the card where the engine expects it; the first card starts the hand.
        Raises CardError / IllegalAction (check_card first)."""
        if self.engine is None:
            self.deal()
        assert self.engine is not None
        slot = self.engine.expected_card()
        dealt = self.engine.deal(card)
        self.events.append(["deal", card_text(dealt.card)])
        assert slot is not None
        if slot.kind == "burn" or slot.seat is None:
            target = slot.kind
        else:
            target = f"seat {slot.seat}" + (" up" if slot.up else "") + (" draw" if slot.kind == "draw" else "")
        self.deals.append([target, card_text(dealt.card)])
        self.sequence.append({"card": card_text(dealt.card), "to": target})

    def discard(self, card: str) -> None:
        self.discards.append(card)

    # -- the dealer's steps -----------------------------------------------------------------------

    def deal(self) -> None:
        """Start the next hand: blinds, antes posted; the shoe may deal. Raises IllegalAction."""
        if self.engine is not None:
            if self.over and self.closed is None:
                raise IllegalAction(f"hand {self.hand} is over: confirm the payouts first",
                                    say=say("refusal.poker_confirm_first", hand=self.hand))
            raise IllegalAction("the hand is already dealt" if self.closed is None else "this hand is closed",
                                say=say("refusal.poker_already_dealt"))
        self._start()

    def _start(self) -> None:
        """The session's next hand, its blinds and antes the first lines of its sequence."""
        hand = self.engine = self.session.start_hand()
        self.sequence = [{"seat": s, "do": "post", "amount": hand.contributed(s)}
                         for s in hand.order if hand.contributed(s) > 0]

    def step(self, kind: str, body: Mapping[str, Any]) -> None:
        """`act` (seat, action, amount, cards), `seat` (seat, action, amount) or `chop` (shares).
        Raises IllegalAction / CardError / ValueError (state unchanged)."""
        if kind == "act":  # `clock`: the clock called on him ran out, his hand is dead (tables/clock_call.py)
            self.act(int(body["seat"]), str(body["action"]), body.get("amount"), body.get("cards"), bool(body.get("clock")))
        elif kind == "seat":
            self.seat_change(int(body["seat"]), str(body["action"]), body.get("amount"))
        elif kind == "chop":
            shares = body.get("shares")
            self.chop(None if shares is None else {int(s): int(c) for s, c in dict(shares).items()})
        else:
            raise IllegalAction(f"a poker table takes act (fold, check, call, bet, raise...), seat and chop, "
                                f"not {kind}")

    def act(self, seat: int, action: str, amount: int | None = None, cards: Sequence[str] | None = None,
            dead: bool = False) -> None:
        """One seat's action (`dead`: a fold of a hand declared dead). Raises IllegalAction (with the engine's reason) / CardError."""
        hand = self.engine
        if hand is None or self.closed is not None:
            raise IllegalAction("no hand in progress: deal first", say=say("refusal.poker_no_hand"))
        street = hand.street  # before the action: the one that closes a round moves the hand to the next street
        played = play(hand, seat, action, amount, cards, dead)
        self.events.append(played.event)
        self.last_action[seat] = played.said
        self.last_act[seat] = played.act
        self.act_street[seat] = street
        self.actions.append(f"seat {seat} {played.said}")
        self.sequence.append(played.line)

    def chop(self, shares: Mapping[int, int] | None = None) -> None:
        """The players still in the hand agree to share the pot: by `shares` (seat -> chips, adding
        up to the pot less an uncalled bet), or with none every pot evenly between its players
        still in (odd chips clockwise from the button). The hand is over. Raises IllegalAction
        (no hand in progress, fewer than two players still in, shares that do not add up)."""
        hand = self.engine
        if hand is None or self.closed is not None or self.over:
            raise IllegalAction("no hand in progress to chop", say=say("refusal.poker_no_hand"))
        live = [s for s in hand.order if hand.in_hand(s)]
        if len(live) < 2:
            raise IllegalAction("a chop needs two players still in the hand", say=say("refusal.poker_chop_needs_two"))
        record = hand.chop(None if shares is None else {int(s): c for s, c in shares.items()})
        self.chopped = {"shares": {str(s): c for s, c in record.shares.items()},
                        "equal": shares is None}
        self.actions.append("pot chopped by agreement: " + ", ".join(
            f"seat {s} {c}" for s, c in record.shares.items()))

    def settle(self) -> None:
        """The dealer has pushed the pots. Raises IllegalAction before the hand is over."""
        if not self.confirmable:
            raise IllegalAction(f"nothing to confirm: the hand is in phase {self.phase}",
                                say=say("refusal.nothing_to_confirm"))

    # -- views ------------------------------------------------------------------------------------

    def results(self) -> messages.PokerResults | None:
        """The settled hand (`record.hand_results`); None before the end."""
        return None if self.engine is None else hand_results(self.engine, self.chopped is not None)

    def left_out(self) -> frozenset[int]:
        """Between hands, the seats sitting in with chips (not waiting for the big blind) that the next hand's
        seating does not deal in: they sit between the button and the blinds (none with fewer than two players)."""
        try:
            dealt = set(self.session.plan().dealt)
        except IllegalAction:
            return frozenset()
        return frozenset(s for s, p in self.session.players.items()
                         if p.stack > 0 and not p.sitting_out and not p.waiting and s not in dealt)

    def full_view(self) -> dict[str, Any]:
        """The table in full for the feed: every card, burns, mucked cards, and per seat `visible`
        (a card dealt face up or shown down); the public view is redacted from it."""
        base: dict[str, Any] = {
            "game": self.setup.game, "structure": self.setup.structure, "stakes": dict(self.setup.stakes),
            "seats": self.setup.seats, "phase": self.phase, "dealer": {"cards": [], "visible": []}, "board": [], "street": None,
            "button": self.session.button, "to_act": None, "next": None, "expected": None, "legal": None,
            "prompt": None, "level": 0, "pots": [], "total_pot": 0, "results": None,
        }
        hand = self.engine
        spots: list[dict[str, Any]] = []
        players = self.session.players
        if hand is None:
            base["spots"] = [empty_seat(s, v, self.left_out()) for s, v in sorted(players.items())]
            base.update(burns=[], discards=list(self.discards), ignored=[dict(x) for x in self.ignored],
                        manual=[dict(x) for x in self.manual])
            return base
        dv: dict[str, Any] = hand.view().to_dict(public=False)
        live = self.closed is None and not self.over
        shown = shown_names(hand)
        finals = self.final_stacks() if self.over else None
        base.update(board=dv["board"], street=dv["street"], button=dv["button"],
                    pots=dv["pots"], total_pot=dv["total_pot"], level=dv["level"])
        if live:
            base.update(to_act=dv["actor"], next=self.next_target(), expected=dv["expected_card"],
                        legal=dv["legal"] if dv["actor"] is not None else None, prompt=dv["prompt"])
        results = self.results()
        base["results"] = results
        nets = {x["seat"]: x["net"] for x in results["net"]} if results else {}
        forced, draws, values = seat_records(hand.records)
        for sv in dv["seats"]:
            s = sv["seat"]
            spot = {"seat": s, "stack": sv["stack"] if finals is None else finals[s],
                    "sitting_out": players[s].sitting_out if s in players else False, "in_hand": True,
                    "cards": sv["cards"], "visible": sv["visible"],
                    "up": sv["up"], "revealed": sv["revealed"], **owing(players.get(s)),
                    "bets": {"bet": sv["bet"], "in_pot": sv["contributed"]},
                    "decision": self.last_action.get(s), "folded": sv["folded"], "all_in": sv["all_in"],
                    "mucked": sv["mucked"], "shown": sv["shown"],
                    "act": self.street_act(s), "posted": forced.get(s, {}), "drew": draws.get(s, [])}
            if s in shown:
                spot["hand_name"] = " / ".join(shown[s])
                spot["hand_values"] = values.get(s, [])
            if results is not None:
                spot["net"] = nets.get(s, 0)
            spots.append(spot)
        left_out = self.left_out() if self.closed is not None else frozenset()  # the session has the hand's end
        spots.extend(empty_seat(s, v, left_out) for s, v in sorted(players.items()) if s not in hand.seats)
        spots.sort(key=lambda x: x["seat"])
        base["spots"] = spots
        base.update(burns=[card_text(c) for c in hand.burned], discards=list(self.discards),
                    mucked=[card_text(c) for c in hand.discarded], ignored=[dict(x) for x in self.ignored],
                        manual=[dict(x) for x in self.manual], sequence=[dict(x) for x in self.sequence])
        return base

    # -- the record -------------------------------------------------------------------------------

    def hand_record(self) -> dict[str, Any] | None:
        """The hand in `engine.phh.hand_from_record`'s format (None when no hand was dealt)."""
        if self.engine is None:
            return None
        return {"variant": self.setup.game, "structure": self.setup.structure, "stakes": dict(self.setup.stakes),
                "stacks": {str(s): c for s, c in self.engine.starting_stacks.items()},
                "button": self.engine.button, "burns": True, "events": [list(e) for e in self.events],
                "rules": hand_rules(self.engine),
                "fields": {"hand": self.hand}, **({"rake": dict(self.setup.rake)} if self.setup.rake else {})}

    def record(self, status: str, body: Mapping[str, Any]) -> dict[str, Any]:
        """The hand as journaled when it closes and shown by `croupier history` / `phh export`."""
        self.closed = status
        results = self.results() if status == "settled" else None
        if self.session.hand is not None:  # the session takes the hand's end: stacks after it, or as before
            if status == "settled":
                self.session.end_hand()
            else:
                self.session.void_hand()
        session = self.session.to_dict()
        hand = self.engine
        return {
            "hand": self.hand,
            "game": self.setup.game,
            "poker": True,
            "structure": self.setup.structure,
            "stakes": dict(self.setup.stakes),
            "status": status,
            "button": None if hand is None else hand.button,
            "stacks": {} if hand is None else {str(s): c for s, c in hand.starting_stacks.items()},
            "burns": [] if hand is None else [card_text(c) for c in hand.burned],
            "deals": [list(d) for d in self.deals],
            "board": [] if hand is None else [card_text(c) for c in hand.board],
            "cards": {} if hand is None else {str(s): [card_text(c) for c in hand.cards(s)] for s in hand.seats},
            "actions": list(self.actions),
            "shown": {} if hand is None else {str(s): names for s, names in shown_names(hand).items()},
            "results": results,
            "chopped": self.chopped is not None,
            "hand_record": self.hand_record(),
            "session": session,
            "faults": self.faults,
            "ignored": self.ignored,
            "manual": self.manual,
            "discards": self.discards,
            "reason": body.get("reason"),
            "by": body.get("by"),
            "signed_off": body.get("signed_off"),
        }


_: type[GameTable] = PokerTable  # the poker table implements the table state's interface (mypy checks it)
