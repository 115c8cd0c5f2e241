"""The smart table's chips at a house game: each circle's chips read, bets taken from them, moved chips, foreign chips and payouts checked.

The table state (`firmware_host.tables.state`) keeps one `TableChips` across hands and calls it at
its steps: a `chip_set` event (the set the table values chips with, journaled at start) and every
`chip_scan` (the readings taken together, each an antenna's UIDs, `drivers.readings.ChipsRead`; a `chips` event
of one reading in journals written before it); at Deal (`bets_at_deal`: the
stable circles become the hand's bets), at a Play decision (`play_multiple`: read from the Play
circle), at the confirm (`payout_fault`: every circle must read its due) and at a clear
(`cleared`). A problem comes back as a `ChipFault` for the state to stand; a refusal is raised as
`Refused` naming the circle. Everything here follows from journaled events alone, so a replay
rebuilds it exactly; what outlives a hand is carried in the hand's record (`close_hand`, `restore`).
The game logic (antenna names, dues, a Play's multiple) is `engine.chip_circles`; a reading as the journal holds it
(`chip_read`, `reads_of`, `uids_after`, named here too) is `firmware_host.tables.house.chip_reads`; a fault and its
words (`ChipFault`, `make_of`, `said_in_full`, named here too) `firmware_host.tables.house.chip_faults`.
"""

from __future__ import annotations

from collections.abc import Mapping
from operator import is_not
from typing import Any, cast

from engine.chip_circles import PROTECTED, TRAY, Antenna, ChipsError, dues, moved, play_multiple
from engine.chips import ChipSet
from engine.errors import money, say, times
from engine.games import PLAY_MULTIPLES
from firmware_host.tables.base import FaultKind, GameTable, Refused
from firmware_host.tables.house.chip_faults import (
    MISPAY_WORDS, ChipFault, circles_named, make_of, make_words, said_in_full, spoken, where_words,
)
from firmware_host.tables.house.chip_reads import DEVICE, chip_read, listed_uids, reads_of, uids_after
from protocol.chip_alerts import ChipNote, ChipOverride, MakeDue
from protocol.messages import AntennaUids, ChipCircle, ChipCounts, ChipReads, Chips, Device
from protocol.records import ChipRead, ChipScanBody, ChipSetBody, ChipsBody, HandChips


_NONE: frozenset[str] = frozenset()
_NO_READ: tuple[frozenset[str], bool] = (_NONE, True)
"""An antenna never read: no chips, settled (one object, not one made at every look)."""


class TableChips:
    """What the chip readers show and what the hand made of it (see the module docstring)."""

    def __init__(self) -> None:
        self.set: ChipSet | None = None
        self.set_sha256 = ""
        self.device = DEVICE
        self.reads: dict[str, tuple[frozenset[str], bool]] = {}  # antenna -> (UIDs, stable)
        self.flagged: set[tuple[str, str]] = set()  # (antenna, UID) already faulted as foreign
        self.taken: set[str] = set()  # the antennas read since a replay may start (`replay_point`, `journaled_against`)
        self.stale: dict[str, frozenset[str]] = {}  # circles still holding the last hand's chips (paid, not yet taken)
        self.counts: ChipCounts = {"foreign": 0, "moved": 0, "mispays": 0, "overrides": 0}  # since the table started
        self.audit: list[tuple[str, dict[str, Any]]] = []  # the event's entries for the audit log (`take_audit`)
        self._new_hand()
        self._shown: dict[str, tuple[frozenset[str], int, list[str]]] = {}  # antenna -> (UIDs, value, sorted UIDs)
        self._listed: dict[str, tuple[frozenset[str], list[str]]] = {}  # antenna -> (UIDs, the list its reading gave)
        self._uids_shown: dict[str, AntennaUids] = {}  # circle -> its `chip_uids` entry, kept while its reading is
        self._circles_shown: list[AntennaUids] = []  # the full view's `chip_uids`, the very list while no circle changed
        self._reads_shown: ChipReads | None = None  # the full view's `chip_reads`, the very map while it is equal
        self._laid: tuple[tuple[tuple[str, ...], int], list[str]] = (((), 0), [])  # the circles' layout and antennas
        self._names: tuple[Any, list[str]] = (None, [])  # the reads map and its antennas sorted
        self.readings = 0  # readings taken, sets and restores: what `uids_views` was made at
        self._uids_at: tuple[int, list[str]] = (-1, [])  # `readings` and the layout when `uids_views` was made
        self._read_since: set[str] | None = None  # the antennas read since `uids_views` was made (None: the set or all changed)
        self._places: dict[str, int] = {}  # each circle of the layout's place in `chip_uids` (the tray's: -1)
        self._circles_made: dict[str, tuple[tuple[Any, ...], ChipCircle]] = {}  # circle -> (what made it, entry)
        self._entries: tuple[Any, dict[str, ChipCircle | None]] = (None, {})  # (what made them, each circle's entry)
        self._views_since: set[str] = set()  # the antennas read since `views` was made
        self._chips_shown: Chips | None = None  # the public view's `chips`, the very map while no part changed
        self._dues: tuple[tuple[Any, ...], dict[str, int]] = ((), {})  # `dues` and the round they were worked out from
        self._antennas: dict[str, tuple[tuple[str, ...] | None, Antenna, str]] = {}  # text -> (circles, antenna, name)

    def _new_hand(self) -> None:
        self.source: str | None = None  # "chips" (read at Deal) or "typed" (the reader offline)
        self.bets_read: dict[str, dict[str, int]] = {}  # seat -> circle -> value, read at Deal
        self.locked: dict[str, frozenset[str]] = {}  # the circles that must not change, as they were
        self.accepted: dict[str, int] = {}  # circle -> value read, accepted by a supervisor's sign-off
        self.notes: list[ChipNote] = []  # the hand's moved and foreign chips, mispays
        self.override: ChipOverride | None = None
        self.paid: dict[str, int] | None = None
        self._before: Any = None  # the round before the bets were read, for a Deal refused after

    # -- the set and the readings ------------------------------------------------------------------

    @property
    def active(self) -> bool:
        """A chip set is loaded: chips are money at this table."""
        return self.set is not None

    def take_set(self, body: ChipSetBody) -> None:
        """A `chip_set` event (name, sha256, text). Raises ValueError (ChipSetError) for a text that is
        no chip set or is not its sha256's."""
        chips = ChipSet.from_csv(str(body["text"]), where=str(body.get("name", "chip set")))
        if body.get("sha256") and chips.sha256() != body["sha256"]:
            raise ValueError(f"chip set {body.get('name')}: its content is not its sha256 {body['sha256']}")
        self.set, self.set_sha256 = chips, chips.sha256()
        self._shown.clear()
        self.readings += 1
        self._read_since = None

    def online(self, devices: Mapping[str, Device]) -> bool:
        """The reader is online and a chip set values what it reads."""
        return self.set is not None and bool(devices.get(self.device, {}).get("online"))

    def take_scan(self, body: ChipScanBody, table: GameTable | None) -> list[ChipFault]:
        """A `chip_scan` event: each antenna's chips now, taken in order. Returns the faults they raise (a foreign
        chip, chips moved in a circle that must not change), in order. Every reading is checked before any is taken,
        so a refusal changes nothing: raises ChipsError for an antenna that is no circle of the table (holding chips:
        an empty one under a circle the profile does not offer is no reading) and ValueError for an antenna named
        twice or a change with no reading before it."""
        circles = getattr(getattr(table, "round", None), "BETS", None)
        reads = body["reads"]
        if len(reads) > 1 and len({read["antenna"] for read in reads}) != len(reads):
            raise ValueError("a chip scan names an antenna twice")
        known = None if circles is None else (*circles, "play")  # the antennas' circles here, made once a scan
        checked = [self._checked(read, known) for read in reads]
        if any(antenna is not None for antenna, _, _, _ in checked):
            self.device = str(body.get("device", DEVICE))
        return [fault for antenna, name, uids, read in checked if antenna is not None
                and (fault := self._took(antenna, name, uids, bool(read["stable"]), table)) is not None]

    def take(self, body: ChipsBody, table: GameTable | None) -> ChipFault | None:
        """A `chips` event (one antenna's reading, as journals before `chip_scan` hold them): `take_scan` of one."""
        faults = self.take_scan({"device": str(body.get("device", DEVICE)), "reads": [body]}, table)
        return faults[0] if faults else None

    def _checked(self, read: ChipRead, known: tuple[str, ...] | None,
                 ) -> tuple[Antenna | None, str, frozenset[str], ChipRead]:
        """A reading's antenna (None: an empty one under a circle this table's profile does not offer, 3CP's 6-card
        bonus), its name and its UIDs, nothing taken; `known` the table's circles (any: None). Raises ChipsError and
        ValueError as `take_scan`. An antenna's name is parsed once for the same circles (`_antennas`)."""
        text = str(read["antenna"])
        was = self.reads.get(text)
        if "uids" in read:  # all its UIDs: the list kept for the views to sort (`_shown_of`), when a list of texts
            uids, listed = listed_uids(read["uids"])
            if listed and len(listed) == len(uids):  # (a list naming a UID twice: the set sorted)
                self._listed[text] = (uids, listed)
        else:
            uids = uids_after(read, was[0] if was is not None else None)
        parsed = self._antennas.get(text)
        if parsed is not None and parsed[0] == known:
            return parsed[1], parsed[2], uids, read
        try:
            antenna = Antenna.parse(text, known)
        except ChipsError:
            if uids or known is None:
                raise
            return None, text, uids, read
        self._antennas[text] = (known, antenna, antenna.name)
        return antenna, antenna.name, uids, read

    def _took(self, antenna: Antenna, name: str, uids: frozenset[str], stable: bool,
              table: GameTable | None) -> ChipFault | None:
        """One checked reading (of `antenna`, named `name`) taken; the fault it raises, or None. What most readings do
        not need is not looked at: no chip faulted as foreign, no circle holding the last hand's chips, none locked."""
        self.reads[name] = (uids, stable)
        self.readings += 1
        if self._read_since is not None:
            self._read_since.add(name)
        self._views_since.add(name)
        self.taken.add(name)
        stale = self.stale
        if stale and not uids & stale.get(name, _NONE):  # the last hand's chips all taken (new ones may lie there)
            stale.pop(name, None)
        if self.flagged:  # a chip gone may be faulted again
            self.flagged = {(n, u) for n, u in self.flagged if n != name or u in uids}
        chip_set = self.set
        if chip_set is None:
            return None
        found = chip_set.foreign(uids)
        new = [uid for uid in found if (name, uid) not in self.flagged] if found else found
        for uid in new:  # each noted and counted; the fault names the first, its detail every one
            self.flagged.add((name, uid))
            self.counts["foreign"] += 1
            self.notes.append({"kind": "foreign_chip", "antenna": name, "uid": uid, "why": chip_set.why_foreign(uid)})
        if new:
            said = ", ".join(f"{uid} ({chip_set.why_foreign(uid)})" for uid in new)
            return ChipFault(FaultKind.FOREIGN_CHIP, f"foreign chip {said} in {spoken(antenna)}",
                             where_words(antenna), new[0], "tray" if antenna.is_tray else "circle",
                             circles_named(antenna))
        return self._moved(antenna, uids, table) if self.locked else None

    def carry(self, body: ChipsBody) -> None:
        """A reading (`reads_of`) journaled before the events a replay applies (`service/recovery.py`): taken as at
        no hand, its fault not raised again (one the journal could not take is passed over, as it was)."""
        try:
            self.take(body, None)
        except (ChipsError, ValueError):
            pass

    def _moved(self, antenna: Antenna, uids: frozenset[str], table: GameTable | None) -> ChipFault | None:
        was = self.locked.get(antenna.name)
        if was is None or table is None or not table.mid_hand or uids == was:
            return None
        added, taken = moved(was, uids)
        self.locked[antenna.name] = uids  # this change is faulted once
        assert self.set is not None
        out = len(table.round.record().deals)  # type: ignore[attr-defined]
        self.counts["moved"] += 1
        change = self.set.value(added) - self.set.value(taken)
        self.notes.append({"kind": "chips_moved", "antenna": antenna.name, "added": list(added), "taken": list(taken),
                           "change": change, "phase": table.phase, "cards_out": out})
        return ChipFault(FaultKind.CHIPS_MOVED,
                         f"chips moved in {spoken(antenna)} with {out} cards out ({table.phase}): "
                         f"added {', '.join(added) or 'none'}, taken {', '.join(taken) or 'none'}",
                         {**where_words(antenna), "change": money(change), "cards": out},
                         circles=circles_named(antenna))

    def reading_of(self, antenna: str) -> frozenset[str] | None:
        """The UIDs antenna `antenna` (as a reading names it) holds as the table last took it, or None."""
        was = self.reads.get(antenna)
        return was[0] if was is not None else None

    def journaled_against(self, antenna: str) -> frozenset[str] | None:
        """What a reading of `antenna` may be journaled as a change against (`chip_read`): the table's reading of
        it when one was taken since the last moment a replay may start from (`replay_point`), else None (whole)."""
        was = self.reads.get(antenna) if antenna in self.taken else None
        return was[0] if was is not None else None

    def replay_point(self) -> None:
        """A hand closed, or the table opened or closed: recovery may replay from here on (`service/recovery.py`),
        so each antenna's next reading is journaled whole."""
        self.taken.clear()

    def value(self, name: str) -> int:
        assert self.set is not None
        return self._shown_of(name)[1]

    def _shown_of(self, name: str) -> tuple[frozenset[str], int, list[str]]:
        """Antenna `name`'s reading, its value and its UIDs sorted, worked out once a reading (the views are made
        at every step of the table, and a tray holds hundreds of chips): kept while its UIDs are the same object."""
        uids = self.reads.get(name, _NO_READ)[0]
        shown = self._shown.get(name)
        if shown is None or shown[0] is not uids:
            listed = self._listed.get(name)  # its reading's list: sorted already when it is `chip_read`'s (fewer compares)
            ordered = sorted(listed[1] if listed is not None and listed[0] is uids else uids)
            shown = (uids, self.set.value(uids) if self.set is not None else 0, ordered)
            self._shown[name] = shown
        return shown

    # -- the hand's steps ---------------------------------------------------------------------------

    def bets_at_deal(self, table: GameTable, devices: Mapping[str, Device]) -> None:
        """Before the Deal: with the reader online every spot's stable circles become its bets (the
        engine's limits apply); else the typed bets stay, audited. Raises Refused naming the circle
        (still moving, the last hand's chips), the reader offline with no bet typed, or the engine's refusal of a
        bet; nothing changed then."""
        self.source, self.bets_read, self.locked = None, {}, {}
        if self.set is None:
            return
        if not self.online(devices):  # the bets are the dealer's taps, audited as typed; none tapped is said in
            # those words, not the engine's "take the bets" (found dealing by hand: the reader dropped as Deal was tapped)
            if not table.round.spot_seats():  # type: ignore[attr-defined]
                raise Refused(f"chip reader {self.device} offline and no bet typed: tap each seat's bets, then deal",
                              say=say("refusal.reader_offline_no_bets"))
            self.source = "typed"  # audited once the Deal is taken (`dealt`): a Deal refused after this audits none
            return
        round_ = table.round  # type: ignore[attr-defined]
        before = [step.to_dict() for step in round_.steps]  # the round as it was, should the Deal be refused
        read: dict[str, dict[str, int]] = {}
        try:
            for seat in range(1, round_.seats + 1):
                bets = {c: v for c in round_.BETS if (v := self._stable_value(Antenna(seat, c)))}
                if not bets and seat in round_.spot_seats():
                    raise Refused(f"seat {seat}: bets were typed but its circles hold no chips",
                                  say=say("refusal.typed_no_chips", seat=seat))
                if bets:
                    table.step("bet", {"seat": seat, "bets": bets})
                    read[str(seat)] = bets
        except BaseException:
            self._restore(table, before)
            raise
        self.source, self.bets_read, self._before = "chips", read, before

    def undo_deal(self, table: GameTable) -> None:
        """The Deal was refused after the bets were read: the round as it was."""
        if self.source == "chips":
            self._restore(table, self._before)
        self.source, self.bets_read, self.locked = None, {}, {}

    @staticmethod
    def _restore(table: GameTable, steps: list[dict[str, Any]]) -> None:
        was = table.round  # type: ignore[attr-defined]
        table.round = type(was).replay(was.profile, steps, was.limits, was.seats)  # type: ignore[attr-defined]

    def bets_to_read(self, devices: Mapping[str, Device]) -> bool:
        """The readers would take bets at a Deal now: online, a circle holding chips other than the last hand's, every
        circle settled (whether they make a hand is the Deal's to say, in words: `bets_at_deal`)."""
        if not self.online(devices):
            return False
        fresh = False
        for name, (uids, stable) in self.reads.items():
            if uids and name != TRAY:
                if not stable:
                    return False
                fresh = fresh or name not in self.stale
        return fresh

    def _stable_value(self, antenna: Antenna) -> int:
        uids, stable = self.reads.get(antenna.name, _NO_READ)
        if uids and not stable:
            raise Refused(f"{spoken(antenna)}: the chips are still moving: wait for the circle to settle",
                          say=say("refusal.chips_moving", **where_words(antenna)))
        if uids and antenna.name in self.stale:
            raise Refused(f"{spoken(antenna)}: the last hand's chips are still in the circle",
                          say=say("refusal.chips_stale", **where_words(antenna)))
        return self.value(antenna.name)

    def dealt(self, table: GameTable) -> None:
        """The Deal was taken: every circle of a spot in the hand is locked as it reads (Play once placed); typed bets
        (the reader offline) are audited now, never for a Deal refused after they were taken (note9)."""
        if self.source == "typed":
            self.audit.append(("bets_typed", {"hand": table.hand, "reason": f"chip reader {self.device} offline"}))
        if self.source != "chips":
            return
        for seat in table.round.spot_seats():  # type: ignore[attr-defined]
            for c in table.round.BETS:  # type: ignore[attr-defined]
                name = Antenna(seat, c).name
                self.locked[name] = self.reads.get(name, _NO_READ)[0]

    def play_multiple(self, table: GameTable, body: Mapping[str, Any]) -> dict[str, Any]:
        """A `decide` body with the Play read from the Play circle (the reader online, bets read at
        Deal). Raises Refused naming the circle when its chips are moving or make no legal Play, or
        when a check or a fold is tapped with a Play lying in it (a mis-tap: the player played)."""
        if self.source != "chips" or body.get("decision") not in ("play", "check", "fold"):
            return dict(body)
        seat = int(body["seat"])
        antenna = Antenna(seat, "play")
        if body.get("decision") != "play":
            uids, stable = self.reads.get(antenna.name, _NO_READ)
            placed = self.value(antenna.name) if uids and stable and antenna.name not in self.stale else 0
            if placed:
                raise Refused(f"{spoken(antenna)}: reads {placed}: the player played, not {body['decision']}",
                              say=say("refusal.play_in_circle", **where_words(antenna), amount=money(placed)))
            return dict(body)
        round_ = table.round  # type: ignore[attr-defined]
        legal = [m for m in PLAY_MULTIPLES if round_.can_decide(seat, "play", m)]
        if not legal:  # no Play open to this seat now: the engine's refusal says why
            return dict(body)
        played = self._stable_value(antenna)
        ante = next((int(s.bets.get("ante", 0)) for s in round_.record().spots if s.seat == seat), 0)
        multiple = play_multiple(played, ante, legal)
        typed = body.get("multiple")
        if multiple is not None and typed is not None and typed != multiple and len(legal) > 1:
            raise Refused(f"{spoken(antenna)}: reads {played}, a {multiple}x Play, not {typed}x",
                          say=say("refusal.play_not_tapped", **where_words(antenna), amount=money(played),
                                  read=times(multiple), typed=times(int(typed))))
        if multiple is None and played == 0:
            raise Refused(f"{spoken(antenna)}: the circle holds no chips",
                          say=say("refusal.play_circle_empty", **where_words(antenna)))
        if multiple is None:
            open_ = sorted(legal, reverse=True)
            listed = " or ".join(f"{m}x" for m in open_)
            raise Refused(f"{spoken(antenna)}: reads {played}, not {listed} the Ante ({ante})",
                          say=say("refusal.play_not_legal", **where_words(antenna), amount=money(played),
                                  ante=money(ante), multiples=times(open_)))
        return {**body, "multiple": multiple}

    def decided(self, table: GameTable, seat: int, decision: str) -> None:
        """After a decision: a Play's circle is locked as placed; a folded or dead spot's circles are collected."""
        if self.source != "chips":
            return
        if decision == "play":
            name = Antenna(seat, "play").name
            self.locked[name] = self.reads.get(name, _NO_READ)[0]
        elif decision in ("fold", "dead"):
            for name in [n for n in self.locked if n.startswith(f"spot{seat}.")]:
                del self.locked[name]

    def dues(self, table: GameTable) -> dict[str, int]:
        """Each circle's due at the showdown (antenna -> value), when the bets were read. Worked out again
        only when the hand took a step since (the round, its settlement or its count of steps changed, a
        correction included): a chip reading, as each circle's change comes, changes none of them."""
        round_: Any = getattr(table, "round", None)
        settlement = getattr(round_, "settlement", None)  # a poker table has none
        if self.source != "chips" or settlement is None:
            return {}
        key = (round_, settlement, len(round_.steps))  # the objects by identity
        made, out = self._dues
        if len(made) != len(key) or any(was is not now for was, now in zip(made[:2], key[:2])) or made[2] != key[2]:
            out = {}
            for spot in round_.record().spots:
                results = settlement.spot(spot.seat).results
                for c, value in dues(spot.bets, results).items():
                    out[Antenna(spot.seat, c).name] = value
            self._dues = (key, out)
        return dict(out)

    def owed(self, table: GameTable) -> dict[str, int]:
        """`dues`, and 0 for any other circle of a spot in the hand that holds chips (none is due there)."""
        due = self.dues(table)
        if due:
            seats = {Antenna.parse(name).seat for name in due}
            for name, (uids, _) in self.reads.items():
                if uids and name not in due and name != TRAY and Antenna.parse(name).seat in seats:
                    due[name] = 0
        return due

    def payout_fault(self, table: GameTable) -> ChipFault | None:
        """At the confirm: every circle must read its due, stable (or what a supervisor accepted).
        Returns the `mispay` fault; raises Refused naming a circle whose chips are still moving."""
        due = self.owed(table)
        if not due:
            return None
        wrong: list[tuple[str, int, int]] = []
        for name, value in due.items():
            uids, stable = self.reads.get(name, _NO_READ)
            if not stable:
                antenna = Antenna.parse(name)
                raise Refused(f"{spoken(antenna)}: the chips are still moving: wait for the circle to settle",
                              say=say("refusal.chips_moving", **where_words(antenna)))
            read = self.value(name)
            if read != value and self.accepted.get(name) != read:
                wrong.append((name, value, read))
        self.paid = {name: self.value(name) for name in due}
        if not wrong:
            return None
        self.counts["mispays"] += 1
        self.notes.append({"kind": "mispay", "circles": [
            {"antenna": n, "due": d, "reads": r, "make": cast(MakeDue, make_of(d, r))} for n, d, r in wrong]})
        name, value, read = wrong[0]
        antenna = Antenna.parse(name)
        detail = "; ".join(f"{spoken(Antenna.parse(n))}: due {d}, reads {r}" for n, d, r in wrong)
        return ChipFault(FaultKind.MISPAY, detail, {**where_words(antenna), "due": money(value), "reads": money(read),
                                                    "make": make_words(value, read), "more": len(wrong) - 1,
                                                    "circles": len(wrong)},
                         situation="more" if len(wrong) > 1 else "",
                         circles=tuple(sorted(c for n, _, _ in wrong for c in circles_named(Antenna.parse(n)))))

    def unverified(self, table: GameTable) -> None:
        """The confirm with the reader offline: the payouts taken unchecked, audited."""
        if self.source == "chips":
            self.audit.append(("payout_unverified", {"hand": table.hand, "reason": f"chip reader {self.device} offline"}))

    def cleared(self, kind: FaultKind, table: GameTable | None, cleared: Mapping[str, Any]) -> None:
        """A supervisor cleared a chips fault: a mispay's circles are accepted as they read (counted, audited)."""
        if kind is not FaultKind.MISPAY or table is None:
            return
        due = self.owed(table)
        accepted = {name: self.value(name) for name, value in due.items() if self.value(name) != value}
        if not accepted:  # the dealer paid the dues before the clear: nothing to accept
            return
        self.accepted.update(accepted)
        self.counts["overrides"] += 1
        override = {"accepted": {n: {"due": due[n], "reads": v} for n, v in accepted.items()},
                    **{k: cleared[k] for k in ("signed_off", "by", "reason", "event") if k in cleared}}
        self.override = cast(ChipOverride, override)  # the clear's reason and event always, its sign-off or `by`
        self.audit.append(("mispay_accepted", {"hand": table.hand, **override}))

    def take_audit(self) -> list[tuple[str, dict[str, Any]]]:
        out, self.audit = self.audit, []
        return out

    # -- the hand's record and the views --------------------------------------------------------------

    def close_hand(self, dues: Mapping[str, int]) -> HandChips:
        """The hand's chips for its record (bets read, dues, paid, override, what was met) and what the
        table carries on (every circle's reading, the counts): `restore` takes it back after a restart."""
        record: HandChips = {"source": self.source, "bets_read": self.bets_read, "dues": dict(dues), "paid": self.paid,
                  "override": self.override,
                  "notes": self.notes, "set_sha256": self.set_sha256, "counts": self.counts.copy(),
                  "reads": {n: {"uids": sorted(u), "stable": s} for n, (u, s) in sorted(self.reads.items()) if u}}
        paid = self.paid or {}
        made = {n: m for n, due in sorted(dues.items()) if n in paid and (m := make_of(due, paid[n])) is not None}
        if made:  # what the readers read at the confirm against the due: `croupier history` and the recall say it
            record["make"] = made
        self.stale = {n: u for n, (u, _) in self.reads.items() if u and n != TRAY}
        self._new_hand()
        return record

    def restore(self, record: HandChips) -> None:
        """The readings and counts as the last closed hand left them (recovery replays what came after)."""
        self.reads = {n: (frozenset(r["uids"]), bool(r["stable"])) for n, r in record.get("reads", {}).items()}
        self.readings += 1
        self._read_since = None
        self.stale = {n: u for n, (u, _) in self.reads.items() if n != TRAY}
        self.counts.update(record.get("counts", {}))
        self.flagged = {(n, uid) for n, (uids, _) in self.reads.items() if self.set is not None
                        for uid in self.set.foreign(uids)}

    def views(self, table: GameTable | None, devices: Mapping[str, Device]) -> tuple[Chips, ChipReads]:
        """`(chips, chip_reads)`: each circle's value as read (and its due at the showdown), for everyone;
        the UIDs, the tray, the set and the counts for the full feed only. A circle's entry is made again only
        when its reading, its due or the set changed (`_circle`), and looked at only when it was read since (while
        the circles, the dues and the set are those of the views before); `chips` is the very map of the view
        before while none did: a circle's change makes that circle's part alone, as a card does its spot's."""
        due = self.owed(table) if table is not None and table.closed is None else {}
        names = self._names
        if names[0] is not self.reads or len(names[1]) != len(self.reads):
            names = self._names = (self.reads, sorted(self.reads))
        made, entries = self._entries
        if made is None or made[0] is not names[1] or made[1] is not self.set or made[2] != due:
            entries = {name: self._circle(name, due) for name in names[1]}  # every circle's entry looked at
            self._entries = ((names[1], self.set, due), entries)
        else:  # the same circles, set and dues: those read since alone
            for name in self._views_since:
                entries[name] = self._circle(name, due)
        self._views_since = set()
        circles = [c for name in names[1] if (c := entries[name]) is not None]
        if due:
            circles += [cast(ChipCircle, self._circle(name, due)) for name in sorted(set(due) - set(self.reads))]
        online, shown = self.online(devices), self._chips_shown
        if (shown is None or shown["online"] != online or shown["source"] != self.source
                or len(shown["circles"]) != len(circles) or any(map(is_not, shown["circles"], circles))):
            shown = self._chips_shown = {"online": online, "source": self.source, "circles": circles}
        public = shown
        tray = self.reads.get(TRAY, _NO_READ)
        full: ChipReads = {"set": {"name": self.set.name if self.set is not None else None, "sha256": self.set_sha256},
                "tray": {"value": self.value(TRAY) if self.set is not None else 0, "stable": tray[1]},
                "foreign": sorted(f"{n} {u}" for n, u in self.flagged), "notes": list(self.notes),
                "counts": self.counts.copy(), "override": self.override}
        if full != self._reads_shown:  # else the very map of the view before: the feed's changes skip it unlooked at
            self._reads_shown = full
        return public, self._reads_shown

    def _circle(self, name: str, due: Mapping[str, int]) -> ChipCircle | None:
        """Circle `name`'s entry in `chips` (None: not shown, the tray or an empty circle with no due), the very
        entry made before while its UIDs (the same object), settling, due and the set are."""
        if name == TRAY:
            return None
        uids, stable = self.reads.get(name, (None, True))
        owed = due.get(name)
        if owed is None and not uids:
            return None
        made = self._circles_made.get(name)
        if made is not None and made[0][0] is uids and made[0][1:3] == (stable, owed) and made[0][3] is self.set:
            return made[1]
        parsed = self._antennas.get(name)  # parsed when its reading was taken
        antenna = parsed[1] if parsed is not None else Antenna.parse(name)
        value = self._shown_of(name)[1] if self.set is not None and uids is not None else 0
        entry: ChipCircle = {"seat": antenna.seat, "circle": antenna.circle, "value": value, "stable": stable}
        if owed is not None:
            entry["due"] = owed
            if (make := make_of(owed, value)) is not None:  # what makes it read its due: the console says it
                entry["make"] = make
        self._circles_made[name] = ((uids, stable, owed, self.set), entry)
        return entry

    def uids_views(self, table: GameTable | None) -> tuple[list[AntennaUids], list[str]]:
        """`(chip_uids, tray_uids)`, the full feed's UIDs apart from `chip_reads`: each circle's chips, one place of
        a list a circle of the table's layout (seat by seat, its bet circles and its Play; an empty one `[]`,
        so the places stay where they are whatever was read, a restart included), and the tray's. Each the very
        object of the view before while its readings are, so a circle's change sends that circle's place alone
        and the tray's hundreds of UIDs go out only when the tray changes (`docs/feed.md`)."""
        names = self._layout(table)
        at, laid = self._uids_at
        if at == self.readings and laid == names:  # no reading taken since, the same layout: the very lists
            return self._circles_shown, self._shown_of(TRAY)[2]
        moved, self._read_since = self._read_since, set()
        self._uids_at = (self.readings, names)
        was = self._circles_shown
        if moved is not None and laid == names and len(was) == len(names) and moved <= self._places.keys():
            circles = list(was)  # the layout's circles alone, the same: the places of those read since made again
            for name in moved:
                if name != TRAY:
                    circles[self._places[name]] = self._uids_entry(name)
        else:
            self._places = {name: n for n, name in enumerate(names)}
            self._places[TRAY] = -1  # not a place of the list: the tray's UIDs are `tray_uids`
            names = names + sorted(n for n, (u, _) in self.reads.items() if u and n != TRAY and n not in self._places)
            circles = [self._uids_entry(name) for name in names]
        if len(was) != len(circles) or any(map(is_not, was, circles)):
            self._circles_shown = circles
        return self._circles_shown, self._shown_of(TRAY)[2]

    def _uids_entry(self, name: str) -> AntennaUids:
        """Circle `name`'s place in `chip_uids`: the very entry made before while its sorted UIDs are."""
        sorted_uids = self._shown_of(name)[2]
        entry = self._uids_shown.get(name)
        if entry is None or entry["uids"] is not sorted_uids:
            entry = self._uids_shown[name] = {"antenna": name, "uids": sorted_uids}
        return entry

    def _layout(self, table: GameTable | None) -> list[str]:
        """The table's circles' antennas, seat by seat (none without a house round): the very list while the layout is
        the same (never changed)."""
        round_: Any = getattr(table, "round", None)
        circles, seats = getattr(round_, "BETS", None), getattr(round_, "seats", 0)
        if circles is None:
            return []
        key = (tuple(circles), int(seats))
        if self._laid[0] != key:
            self._laid = (key, [Antenna(seat, c).name for seat in range(1, key[1] + 1)
                                for c in dict.fromkeys((*key[0], "play"))])
        return self._laid[1]

__all__ = ["ChipFault", "ChipsError", "DEVICE", "MISPAY_WORDS", "TableChips", "chip_read", "make_of", "make_words", "reads_of",
           "said_in_full", "uids_after"]
