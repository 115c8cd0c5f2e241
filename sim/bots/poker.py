"""Bot players and a bot dealer for a simulated poker table: seeded legal actions through the command channel, cards from the emulated shoe.

`PokerDealer` works a poker table as `sim.bots.dealer.BotDealer` works a house table (its
requests with ids re-sent until answered, the full feed followed across restarts, faults cleared as
the floor): between hands it rebuys the players who went broke and `deal`s; it draws a card from
the shoe whenever the table expects one; for the seat to act it sends one action chosen at random
among the legal ones the controller publishes (`legal`: fold, check, call, bet or raise with its
range or fixed-limit choices, all in, bring-in, draw, show, muck), seeded by the table's seed and
the state it answers, so a re-sent request is the same request; a draw names its discards, which
then pass the emulated shoe's discard reader; an `over` hand is confirmed.

`poker_section` writes the `[poker]` configuration of such a table (the stakes of `SIM_STAKES` for
the variant and structure), `poker_summary` the demo's result line read back from the journal.
"""

from __future__ import annotations

import hashlib
import json
import random
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from engine.games import STRUCTURES
from engine.poker import VARIANTS
from firmware_host.service.journal import HandRow, Journal
from protocol.messages import BetOrRaise, FullSpot, FullState, PokerLegal, Stakes
from sim.bots.dealer import BotDealer, cards_placed
from sim.bots.errors import BotError

DEFAULT_STRUCTURE = {"holdem": "no-limit", "omaha": "pot-limit", "omaha_hilo8": "pot-limit"}
"""A variant's usual structure in the demo (the others: fixed limit)."""

POKER_MID_HAND = ("dealing", "drawing", "bring_in", "betting", "showdown")
"""The phases of a poker hand dealt and not over (the engine's `Phase` values before `over`)."""

DECK = 52
SPARE_CARDS = 6
"""Cards a bot leaves in the shoe when it draws: the burns still to come and one more, so the
shoe never runs empty mid-hand (an empty shoe is a fault)."""


@dataclass(frozen=True, slots=True)
class SimStakes:
    """The simulated poker table's stakes and buy-in, in the smallest unit."""

    blinds: tuple[int, int] = (5, 10)
    antes: int = 2          # stud games: an ante from every player...
    bring_in: int = 5       # ...and the bring-in
    small_bet: int = 10     # fixed limit
    big_bet: int = 20
    min_bet: int = 10       # spread limit (and the minimum bet of pot / no limit in stud)
    max_bet: int = 50
    buy_in: int = 1000
    rake_bp: int = 500      # 5 % of each pot...
    rake_cap: int = 30      # ...at most 30 a hand

    def stakes(self, game: str, structure: str) -> Stakes:
        """The stakes of `game` under `structure` (`engine.poker.Stakes` fields). Raises ValueError."""
        if game not in VARIANTS:
            raise ValueError(f"unknown poker game {game!r} (games: {', '.join(VARIANTS)})")
        if structure not in STRUCTURES:
            raise ValueError(f"structure must be one of {', '.join(STRUCTURES)}, not {structure!r}")
        stud = VARIANTS[game].bring_in is not None
        out: Stakes = {"antes": self.antes, "bring_in": self.bring_in} if stud else {"blinds": list(self.blinds)}
        if structure == "fixed-limit":
            out["small_bet"], out["big_bet"] = self.small_bet, self.big_bet
        elif structure == "spread-limit":
            out["min_bet"], out["max_bet"] = self.min_bet, self.max_bet
        elif stud:
            out["min_bet"] = self.min_bet
        return out

    def open_body(self, game: str, structure: str, seats: int) -> dict[str, Any]:
        """The `open` request of a table of `seats` players, each with the buy-in, and the rake."""
        return {"game": game, "structure": structure, "stakes": self.stakes(game, structure), "seats": seats,
                "stacks": {str(s): self.buy_in for s in range(1, seats + 1)},
                "rake": {"rate_bp": self.rake_bp, "cap": self.rake_cap, "no_flop_no_drop": True}}


SIM_STAKES = SimStakes()


def poker_section(game: str, structure: str, seats: int, stakes: SimStakes = SIM_STAKES) -> str:
    """The `[poker]` section of the simulated table's configuration: every seat taken. Raises ValueError."""
    lines = ["", "[poker]", f'structure = "{structure}"']
    for key, value in stakes.stakes(game, structure).items():
        lines.append(f"{key} = {json.dumps(value)}")
    lines += [f"seated = {list(range(1, seats + 1))}", f"buy_in = {stakes.buy_in}",
              f"rake_bp = {stakes.rake_bp}", f"rake_cap = {stakes.rake_cap}", ""]
    return "\n".join(lines)


# -- the players ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Choice:
    """One action for the command channel's `act`."""

    action: str
    amount: int | None = None
    cards: tuple[str, ...] | None = None

    def args(self) -> dict[str, Any]:
        out: dict[str, Any] = {"action": self.action}
        if self.amount is not None:
            out["amount"] = self.amount
        if self.cards is not None:
            out["cards"] = list(self.cards)
        return out


def _amount(rng: random.Random, raise_range: BetOrRaise) -> int:
    """A bet or raise total in the range (or one of the fixed-limit choices), small ones likelier."""
    choices = raise_range.get("choices")
    if choices:
        return int(rng.choice(choices))
    low, high = int(raise_range["min_to"]), int(raise_range["max_to"])
    return min(high, low + int((high - low) * rng.random() ** 3))


def choose(rng: random.Random, legal: PokerLegal, cards: Sequence[str], draw_cap: int = 5) -> Choice:
    """A random legal action from the table's `legal` (as published): mostly check or call, some bets
    and raises, a few folds and all-ins; at a draw up to `draw_cap` of `cards` discarded."""
    if legal.get("draw"):
        count = rng.randint(0, max(0, min(draw_cap, len(cards))))
        return Choice("draw", cards=tuple(rng.sample(list(cards), count))) if count else Choice("stand_pat")
    if legal.get("show") or legal.get("muck"):
        return Choice("muck") if legal.get("muck") and rng.random() < 0.2 else Choice("show")
    raising = legal.get("bet_or_raise")
    if legal.get("bring_in") is not None:
        if raising is not None and rng.random() < 0.3:
            return Choice(str(raising["kind"]), _amount(rng, raising))
        return Choice("bring_in")
    roll = rng.random()
    if roll < 0.03 and legal.get("all_in") is not None:
        return Choice("all_in")
    if roll < 0.3 and raising is not None:
        return Choice(str(raising["kind"]), _amount(rng, raising))
    if roll < 0.4 and legal.get("fold") and not legal.get("check"):
        return Choice("fold")
    if legal.get("check"):
        return Choice("check")
    if legal.get("call") is not None:
        return Choice("call")
    return Choice("fold")


def legal_of(st: FullState) -> PokerLegal:
    """What the poker seat to act may do, as published ({} when nothing is: every choice then folds)."""
    legal = st.get("legal")
    return legal if isinstance(legal, dict) else cast(PokerLegal, {})


def state_key(st: FullState) -> str:
    """A short digest of the state a bot answers: the same state gives the same request (and id)."""
    spots = [(s.get("seat"), s.get("stack"), (s.get("bets") or {}).get("in_pot"), s.get("decision"),
              len(s.get("cards") or []), s.get("folded"), s.get("shown"), s.get("mucked"))
             for s in st.get("spots") or []]
    text = json.dumps([st.get("hand"), st.get("phase"), st.get("street"), st.get("to_act"), st.get("level"),
                       st.get("total_pot"), spots], sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


# -- the dealer -----------------------------------------------------------------------------------


class PokerDealer(BotDealer):
    """Deals and acts at a simulated poker table (see the module docstring). `structure` and `seats`
    are those of the table it (re)opens when the table is open for another game; `stakes` the
    stakes and buy-in. `discards` holds, per hand, every discard sent through the discard reader."""

    def __init__(self, *args: Any, structure: str = "no-limit", seats: int = 6, stakes: SimStakes = SIM_STAKES,
                 **options: Any) -> None:
        options.setdefault("buttons", 0.0)
        super().__init__(*args, **options)
        self.structure = structure
        self.seats = seats
        self.stakes = stakes
        self.discards: dict[int, list[str]] = {}
        self.actions = 0

    def step(self) -> None:
        """Do the one thing the poker table waits for now."""
        if self.on_step is not None:
            self.on_step(self, self.state)
        st = self.state
        self._check_progress(st)
        phase = st.get("phase")
        if st.get("fault"):
            self._resolve_fault(st)
        elif phase in ("waiting", "settled", "voided", "closed"):
            self._start_hand(st)
        elif phase == "over":
            hand = int(st["hand"])
            self.request("confirm", f"{hand}-confirm", hand=hand)
        elif st.get("to_act") is not None:
            self._act(st)
        elif st.get("next") is not None:
            self._draw(st)
        else:
            self.pump(0.5)

    def _check_progress(self, st: FullState) -> None:
        key = (self.boot, state_key(st), len(cards_placed(st)), bool(st.get("fault")))
        now = time.monotonic()
        if key != self._last_key:
            self._last_key, self._last_progress = key, now
        elif now - self._last_progress > self.progress_timeout_s:
            raise BotError(f"the table made no progress for {self.progress_timeout_s} s: {st}")

    def _start_hand(self, st: FullState) -> None:
        hand = self.next_hand(st)
        if self._ready_to_deal(st, hand):
            self._deal(hand)

    def _ready_to_deal(self, st: FullState, hand: int) -> bool:
        """Between hands: the table opened for this game, the broke players bought in again; False
        when a request was sent (or refused) instead and the hand waits."""
        if st.get("game") != self.game or st.get("structure") != self.structure:
            # the table is open for another game (a journal kept from an earlier session): open it for this one
            self.request("open", f"{hand}-open-{self.game}", **self.stakes.open_body(self.game, self.structure,
                                                                                       self.seats))
            return False
        for spot in st.get("spots") or []:
            if int(spot.get("stack") or 0) == 0:  # broke: buys in again
                reply = self.request("seat", f"{hand}-rebuy-{spot['seat']}", hand=hand, seat=int(spot["seat"]),
                                     action="rebuy", amount=self.stakes.buy_in)
                if not reply.get("ok"):
                    return False
        return True

    def _deal(self, hand: int) -> None:
        """The shoe shuffled for the hand (once), and the hand dealt."""
        if self._shuffled != hand:
            self.shoe.request(f"shuffle {self.seed * 100003 + hand}")
            self._shuffled = hand
            self.log.draws.setdefault(hand, [])
        self.request("deal", f"{hand}-deal", hand=hand)

    def _act(self, st: FullState) -> None:
        to_act = st["to_act"]
        assert to_act is not None  # the step acts only when a seat is to act
        hand, seat = int(st["hand"]), int(to_act)
        key = state_key(st)
        spot = next(s for s in st["spots"] if s["seat"] == seat)
        choice = self._choose(st, spot, hand, key)
        reply = self.request("act", f"{hand}-act-{key}", hand=hand, seat=seat, **choice.args())
        if not reply.get("ok"):
            return  # a fault: resolved at the next step
        self.actions += 1
        for card in choice.cards or ():
            self.shoe.request(f"discard {card}")  # the discards pass the discard reader
            self.discards.setdefault(hand, []).append(card)

    def _choose(self, st: FullState, spot: FullSpot, hand: int, key: str) -> Choice:
        """The bot's choice for the seat to act (seeded by the state: the same state, the same choice)."""
        left = DECK - len(self.log.draws.get(hand, [])) - SPARE_CARDS
        return choose(random.Random(f"{self.seed}:{key}"), legal_of(st), spot.get("cards") or [],
                      draw_cap=max(0, left))

    def placed(self) -> list[str]:
        """The cards on the table and those mucked (a draw's discards and folded hands)."""
        return list(cards_placed(self.state)) + list(self.state.get("mucked") or [])


def closed_hands(state_dir: str | Path, first_hand: int, hands: int) -> tuple[list[HandRow], list[HandRow], int]:
    """The journal's hands first_hand .. first_hand+hands-1, those settled, and their faults in all.
    Raises JournalError."""
    journal = Journal.open(state_dir, readonly=True)
    try:
        rows = [r for r in journal.hands() if first_hand <= r.hand < first_hand + hands]
    finally:
        journal.close()
    return rows, [r for r in rows if r.status == "settled"], sum(len(r.record.get("faults") or []) for r in rows)


def poker_summary(state_dir: str | Path, first_hand: int, hands: int) -> dict[str, Any]:
    """The demo's result line for a poker table, read back from the journal for hands first_hand ..
    first_hand+hands-1: hands, settled, voided, faults, the house's `rake`, and `chips_conserved`
    (every settled hand's nets and rake add up to nothing, and every seat's stack after the hand is
    its stack before plus its net; a voided hand leaves the stacks as they were). Raises JournalError."""
    rows, settled, faults = closed_hands(state_dir, first_hand, hands)
    rake = sum(int((r.record.get("results") or {}).get("rake") or 0) for r in settled)
    return {"hands": len(rows), "settled": len(settled), "voided": len(rows) - len(settled), "faults": faults,
            "rake": rake, "chips_conserved": all(chips_conserved(r.record) for r in rows)}


def chips_conserved(record: Mapping[str, Any]) -> bool:
    """A closed poker hand's chips: the nets and the rake add up to nothing, and each seat dealt in
    ends with its stack before plus its net (a voided hand: its stack before)."""
    before = {int(s): int(c) for s, c in (record.get("stacks") or {}).items()}
    after = {int(s): int(v["stack"]) for s, v in ((record.get("session") or {}).get("seats") or {}).items()}
    results = record.get("results")
    if record.get("status") != "settled" or results is None:
        return all(after.get(s) == c for s, c in before.items())
    nets = {int(x["seat"]): int(x["net"]) for x in results["net"]}
    return (sum(nets.values()) + int(results.get("rake") or 0) == 0
            and all(after.get(s) == c + nets.get(s, 0) for s, c in before.items()))
