"""The table controller: one thread owns the table; readings and commands become journaled engine steps.

Every input (a device reading from the inbox, a dealer command from the command channel, a fault the
controller itself detects) takes the same path on the controller thread:

    event = (kind, body)          # JSON-able; readings are converted by `service.events.reading_event`
    journal.begin(event)          # written (in an open transaction) before it is applied
    apply(event)                  # engine calls; a refused command raises and is rolled back
    journal.commit()              # durable (WAL, synchronous=FULL) before anything leaves
    feed.publish(...)             # public + full state; the tower light follows

Readings drained from the inbox together share one transaction (`handle_readings`: each written, then applied, a run
of chip readings one `chip_scan`; one refused is journaled as `refused` instead; one commit; their updates published).

`apply` is deterministic in the event bodies alone (no clock, no randomness), so at start the
controller rebuilds the exact state by applying the journal's events again (`Journal.resume`).

A fault stops the hand: cards that arrive while a fault stands are journaled and recorded but not
dealt; only `clear` (a supervisor, with a reason) lifts it, then the hand continues or is voided.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

import zmq

from drivers.readings import ChipsRead, Reading, SensorChange
from engine.chips import ChipSet
from engine.errors import EngineError, say
from engine.games import MAX_SPOTS
from engine.money import Money
from protocol.access import Caller
from protocol.signoff_holds import HOLDS_FILE
from protocol.signoff import SignOff, Verdict
from protocol.audit import AuditLog, TableAudit
from protocol.certificates import Certificates
from firmware_host.service.config import CommandsConfig, RatingsConfig
from protocol.config import RightsConfig, SecurityConfig
from protocol.commands import Command, error_reply
from protocol.fairness import Admission
from protocol.feed import Feed
from protocol.messages import Device, FullState, PublicState
from protocol.records import HandRecord
from protocol.history import Reply
from protocol.requests import Done, Refusal, Status
from firmware_host.service.events import reading_event, runs, scan_event
from firmware_host.service.inbox import Inbox
from firmware_host.service.loop import bind_commands, serve
from firmware_host.service.integrity import replay_failed, start_faults
from firmware_host.service.history import backfill_lines, closed_line, history_reply
from firmware_host.service.journal import DuplicateRequest, Journal, JournalError
from protocol.keys import KeyPair
from protocol.zap import ZapHandler
from firmware_host.tables.base import MAX_STEPS_PER_HAND, Fault, FaultKind, GameSetup, GameTable, Refused
from firmware_host.tables.clock_call import ClockWatch
from firmware_host.tables.house.opening import changes, open_body
from firmware_host.tables.registry import HOUSE_SETUP, SETUPS, open_is_new
from firmware_host.service.profiles import requested_profile
from firmware_host.service.recovery import rebuild
from firmware_host.service.refusals import refusal
from firmware_host.service.tray import TrayWatch, alert, tray_alert
from firmware_host.service.signoff_alert import AlertWatch
from firmware_host.service.bodies import journaled_body
from firmware_host.tables.state import TableState

log = logging.getLogger("croupier.controller")

_OWN_KEYS = ("tray", "tray_alert", "signoff_alert")
"""The keys `states` puts in the views after their redaction."""

FAULT_KINDS = tuple(kind.value for kind in FaultKind)
"""Every kind of fault; `fault.kind` on the feed is one of these."""

_CHECK_REQ_FIRST = frozenset({"state", "card", "open"})
"""Commands whose duplicate is looked up before anything else (answered or reshaped before the journal
write); the others are found duplicate by the journal's insert (no SELECT per command)."""

class Controller:
    """The table: state, the journal-then-apply-then-publish path, and the loop that serves it.

    Only the thread that calls `run` (or, in tests, the caller of `handle_*`) touches the state."""

    def __init__(self, journal: Journal, *, table: str = "table-1", seats: int = MAX_SPOTS,
                 default_setup: GameSetup | None = None, feed: Feed | None = None,
                 clock: Callable[[], float] = time.time,
                 on_light: Callable[[str], None] | None = None,
                 limits: Mapping[str, int] | None = None, audit: AuditLog | None = None,
                 security: SecurityConfig | None = None, rights: RightsConfig | None = None,
                 commands: CommandsConfig | None = None, max_steps: int = MAX_STEPS_PER_HAND,
                 money: Money = Money(), certificates: Certificates = Certificates(),
                 chip_set: Mapping[str, Any] | None = None, chips: ChipSet | None = None,
                 tray_stops: bool = False) -> None:
        self.journal = journal
        self.chip_set = chip_set  # [chips] set: the `chip_set` event's body, journaled at start when new
        self.tray = TrayWatch(chips)  # the chip tray reconciled all shift (by the journaled chip set, or `chips`)
        self.tray_stops = tray_stops  # [table] tray_difference_stops: a flag stands a fault, not only an alert
        self.certificates = certificates  # [table] require_certificate: an open only on a certified profile
        self.money = money  # [table] currency: published with the table's state
        self.admission = Admission.of(commands)  # [commands]: frame limits, rate per client, bound per turn
        self.max_steps = max_steps  # [table] max_steps_per_hand: past it the hand faults
        self.security = security if security is not None else SecurityConfig()  # [security]
        self.rights = rights if rights is not None else RightsConfig()  # [rights]: role -> commands
        self.audit = TableAudit(audit)  # faults, clears, voids, chops, devices: once committed
        self.signoff = SignOff(self.security.users, self.rights, audit,  # rights and sign-offs (its clock: .clock)
                               journal.path.parent / HOLDS_FILE,  # a key's held sign-offs, kept across restarts
                               throttled_keys=frozenset(self.security.signed_in_relays))  # people signed in: throttled
        self.default_limits = dict(limits) if limits is not None else None  # the configuration's [limits]
        self._pending_open: dict[str, Any] | None = None  # the configuration's table, at the next hand
        self._hand_closed = False
        self.table_name = table
        self.seats = seats
        self.feed = feed
        self.clock = clock
        self.on_light = on_light
        self.default_setup = default_setup
        self.inbox = Inbox()
        self.last_reading_at = 0.0  # when a reading was last taken (time.monotonic)
        self.state = TableState(seats)
        self.light = ""
        self._last_published: tuple[PublicState, FullState] | None = None
        self._stop = threading.Event()
        self._commands: zmq.Socket[Any] | None = None
        self.signoff_alert = AlertWatch(self.signoff, self._refresh)  # its throttle told on the feeds (`signoff_alert`)
        self._pollables: list[Any] = [ClockWatch(self), self.signoff_alert]  # the clock called on a poker player
        self._waiting_fds: list[Callable[[], int | None]] = []
        self.zap: ZapHandler | None = None  # the sockets' authenticator, when they are CURVE servers
        self.ratings_day = RatingsConfig()  # `[ratings]`: when the gaming day starts (a closed session's adjusting)

    # the table state's parts, read by the loop, `croupier history` and the tests

    @property
    def table(self) -> GameTable | None:
        return self.state.table

    @property
    def hand(self) -> int:
        return self.state.hand

    @property
    def fault(self) -> Fault | None:
        return self.state.fault

    @property
    def devices(self) -> dict[str, Device]:
        return self.state.devices

    @property
    def sensors(self) -> dict[str, bool]:
        return self.state.sensors

    @property
    def last_record(self) -> HandRecord | None:
        return self.state.last_record

    @property
    def events_applied(self) -> int:
        return self.state.events_applied

    # -- start ------------------------------------------------------------------------------------

    def recover(self) -> int:
        """Rebuild the state from the journal; open the default table when there is none.

        An event the journal's chain does not vouch for, or a break in the audit log's, stands a
        `journal_integrity` or `audit_integrity` fault (journaled) after the replay: no step is taken
        until a supervisor clears it. Returns the number of events replayed. Raises JournalError when
        an event no longer applies."""
        try:  # a journal written before the hands' history lines were stored: made once, now
            if filled := backfill_lines(self.journal):
                log.info("made the history lines of %d hands closed before they were stored", filled)
        except JournalError as exc:  # a page makes them from the records instead
            log.warning("the history lines of the older hands were not made: %s", exc)
        try:
            self.state, replayed = rebuild(self.journal, self.seats)
            self.tray = TrayWatch.from_journal(self.journal, self.tray.chips)  # the shift's trail, as kept live
        except JournalError as exc:
            raise replay_failed(self.journal, exc) from exc
        for body in start_faults(self.journal, self.audit.log):  # replayed as it stands, then the table is locked
            self._submit("fault", body, None)
        if self.chip_set is not None and self.state.chips.set_sha256 != self.chip_set["sha256"]:
            self._submit("chip_set", dict(self.chip_set), None)  # the journal alone values the chips
        if self.state.table is None and self.default_setup is not None and self.state.fault is None:
            if not self.state.table_closed:  # a table the pit closed stays closed
                self._submit("open", self.default_setup.as_body(), None)
        elif self.default_setup is not None:
            self._configuration_changed(self.default_setup)
        self._refresh()  # displays see the rebuilt state at once
        return replayed

    def _configuration_changed(self, configured: GameSetup) -> None:
        """At a start on a journal with a table open: a house table whose configuration now differs
        (game, profile, limits, seats) is opened again as configured, now between hands, or as
        soon as the hand in progress closes; either is logged with what changed. A poker table's
        players and stacks are the journal's: it stands, and the start says which settings differ."""
        table = self.state.need_table()
        journaled, wanted = table.setup.as_body(), configured.as_body()
        said = changes(journaled, wanted)
        if not said:
            return
        if SETUPS.get(str(wanted.get("game"))) != HOUSE_SETUP or SETUPS.get(table.setup.game) != HOUSE_SETUP:
            log.warning("configuration differs from the journal's table (%s): the journal's stands; open the "
                        "table again to change it", ", ".join(said))
            return
        if table.started or self.state.fault is not None:
            self._pending_open = wanted
            log.warning("configuration changed: %s; takes effect at the next hand (hand %d is in progress "
                        "under the journal's)", ", ".join(said), self.state.hand)
            return
        log.warning("configuration changed: %s; takes effect now (hand %d)", ", ".join(said), self.state.hand)
        self._submit("open", wanted, None)

    def _open_pending(self) -> None:
        """The configuration's table, held back while a hand was in progress, opened once it closed."""
        self._hand_closed = False
        wanted, self._pending_open = self._pending_open, None
        if wanted is None:
            return
        try:
            self._submit("open", wanted, None)
        except (Refused, EngineError, ValueError, JournalError) as exc:
            log.error("the configuration's table could not be opened after hand %d: %s", self.state.hand - 1, exc)
            return
        log.warning("configuration's table opened for hand %d", self.state.hand)

    def device_resume(self, device: str) -> tuple[int, int] | None:
        """`(boot, seq)` of the last frame kept from `device`, to tell it where to continue."""
        return self.state.device_resume(device)

    # -- the one path -----------------------------------------------------------------------------

    def _apply(self, kind: str, body: Mapping[str, Any], event_id: int) -> None:
        """Apply one journaled event (in the open transaction); a hand it closes is recorded in it."""
        before, hand = self.state.fault, self.state.hand
        applied = self.state.apply(kind, body, event_id)
        self.audit.seen(kind, body, event_id, before, self.state.fault, applied.closed)
        if self.state.chips.audit:  # typed bets with the reader offline, a mispay accepted
            for entry, details in self.state.chips.take_audit():
                self.audit.note(entry, {"event": event_id, **details})
        flags = self.tray.seen(kind, body, event_id, hand, applied.closed)  # a difference found: on the full feed
        if applied.closed is not None:
            self._hand_closed = True
            rec, now = applied.closed, self.clock()
            if self.tray.closed_entry is not None:  # the chips moved at the tray before it: the floor's counts
                rec["tray"] = self.tray.closed_entry
            self.journal.close_hand(int(rec["hand"]), str(rec["game"]), str(rec["status"]), event_id, now, rec,
                                    closed_line(self.journal, rec, event_id, now))  # a `history` page reads it
        over = alert(flags, self.money, self.tray_stops) if flags else None  # logged; a fault when the table stops on one
        if self.state.hand_steps >= self.max_steps:  # asked only once the hand has taken as many (at every event)
            over = self.state.step_limit_fault(kind, self.max_steps) or over
        if over is not None:  # journaled in the same transaction: a replay stands it as it stands
            self._apply("fault", over, self.journal.insert(self.state.hand, "fault", over, self.clock()))

    def _commit(self) -> None:
        """Make the open transaction durable. When that fails the steps it held never happened: the
        table goes back to what the journal holds (rebuilt from it), and JournalError is raised."""
        try:
            self.journal.commit()
        except JournalError:
            self.journal.rollback()
            self._restore_after_rollback()
            raise

    def _submit(self, kind: str, body: dict[str, Any], req: str | None, digest: str | None = None) -> int:
        """Journal (with the request's id and digest, if any), apply, commit, publish. Raises
        Refused/EngineError/ValueError (rolled back, nothing changed) and JournalError (nothing
        changed either: the table is as the journal holds it)."""
        self.audit.drop()  # what a rolled-back step saw
        event_id = self.journal.begin(self.state.hand, kind, body, self.clock(), req, digest)
        try:
            self._apply(kind, body, event_id)
        except BaseException:
            self.journal.rollback()
            self._hand_closed = False
            raise
        self._commit()
        self._refresh()
        self.audit.flush()  # after the feed: its fsync never delays what the displays show
        if self._hand_closed:
            self._open_pending()
        return event_id

    def handle_reading(self, reading: Reading) -> None:
        """Journal and apply one device reading (`handle_readings` with one). Raises JournalError."""
        self.handle_readings([reading])

    def _reading_to_take(self, reading: Reading | tuple[ChipsRead, ...]) -> tuple[str, Mapping[str, Any]] | None:
        """The event of a reading or a run of chip readings (`events.runs`: one `chip_scan`), or None when it changes
        nothing (ignored, a retransmitted card, a sensor reporting the state it is known to be in)."""
        if isinstance(reading, (tuple, ChipsRead)):  # a chip reading is journaled against the antenna's reading before
            before = partial(self.tray.chips_before, self.state.chips)
            event = scan_event(reading, before) if isinstance(reading, tuple) else reading_event(reading, before)
        else:  # a card, a sensor, a button: nothing of the chips' to read (the partial made for nothing ~2,000 a card)
            event = reading_event(reading)
        if event is None:
            log.debug("reading not taken: %r", reading)
            return None
        kind, body = event
        if kind == "card" and self.state.is_retransmit(body):
            return None
        if isinstance(reading, SensorChange) and reading.seq is None and \
                self.state.sensors.get(str(reading.name)) == reading.active:
            return None  # nothing changed (sensors report their state at start); a shoe-link reading moves its seq
        return event

    def handle_readings(self, readings: list[Any]) -> None:
        """Journal and apply readings that arrived together (drained from the inbox at once).

        They share one transaction, so one commit (one fsync) makes them all durable: each is written, then applied;
        a run of chip readings (a scan's changes) is one `chip_scan` event, one row and one step (`events.runs`). A
        reading is never dropped: one the table cannot apply is journaled as `refused` (the reading, the reason), a
        fault. The states they lead to are published in order once the commit is done (runs of chip readings: the
        state after their last); nothing before it, so a crash loses nothing shown. Raises JournalError."""
        items = runs(readings)
        if not items:
            return
        states: list[tuple[PublicState, FullState]] = []
        taken, chips_next = 0, [isinstance(r, tuple) for r in items[1:]] + [False] if len(items) > 1 else [False]
        try:
            for n, item in enumerate(items):
                event = self._event_of(item)
                if event is None:
                    continue
                if not taken:
                    self.audit.drop()
                    self.journal.begin_batch()
                self._take_reading(*event)
                taken += 1
                if self.feed is not None and not (event[0] == "chip_scan" and chips_next[n]):  # chips' runs: 1 state
                    states.append(self.states())
        except BaseException:
            self.journal.rollback()
            self._hand_closed = False
            if taken:
                self._restore_after_rollback()
            raise
        if not taken:
            return
        self.last_reading_at = time.monotonic()  # the PIN checks wait for a quiet moment (`service.command_desk`)
        self._commit()
        for public, full in states[:-1]:
            self._publish(public, full)
        self._refresh(states[-1] if states else None)
        self.audit.flush()
        if self._hand_closed:
            self._open_pending()

    def _event_of(self, reading: Reading | tuple[ChipsRead, ...]) -> tuple[str, Mapping[str, Any]] | None:
        """The event to journal for a reading: its own, None when it changes nothing, `refused` when unreadable."""
        try:
            return self._reading_to_take(reading)
        except Exception as exc:
            log.exception("reading %r", reading)
            return "refused", {"kind": type(reading).__name__, "body": {"reading": repr(reading)[:500]},
                               "error": f"{type(exc).__name__}: {exc}"}

    def _take_reading(self, kind: str, body: Mapping[str, Any]) -> None:
        """One reading inside the open batch; one the table refuses is journaled as `refused` instead (a refused step
        changes nothing, and a hand closes only once its step is taken, so taking back the event's row is all there
        is to undo: no savepoint per reading); a refused `chip_scan` of several is taken again one reading a scan."""
        event_id = self.journal.insert(self.state.hand, kind, body, self.clock())
        try:
            self._apply(kind, body, event_id)
        except JournalError:
            raise
        except Exception as exc:  # the reading stays journaled, as refused: never dropped
            self.journal.forget(event_id)
            if kind == "chip_scan" and len(body["reads"]) > 1:
                for read in body["reads"]:
                    self._take_reading(kind, {"device": body["device"], "reads": [read]})
                return
            log.error("reading %s refused: %s", kind, exc)
            refused = {"kind": kind, "body": body, "error": str(exc) or type(exc).__name__}
            event_id = self.journal.insert(self.state.hand, "refused", refused, self.clock())
            self._apply("refused", refused, event_id)

    def _restore_after_rollback(self) -> None:
        """Steps applied but rolled back (a failed commit, a batch that failed midway): the table as
        the journal holds it. A journal that cannot even be read is logged; the caller's raise stops the loop."""
        try:
            self.state, _ = rebuild(self.journal, self.seats)
            self.tray = TrayWatch.from_journal(self.journal, self.tray.chips)
        except JournalError as exc:
            log.error("after a rollback the table cannot be rebuilt: %s", exc)

    def handle_command(self, cmd: Command, caller: Caller | None = None,
                       verdict: Verdict | None = None) -> Reply:
        """Journal and apply one dealer command; return the reply map (an error reply when refused).

        `caller` is who sent it over the command channel (its role is held to `self.rights`);
        None is the controller's own process (recovery, tests driving the table in-process). A step
        the gate refuses (`service.signoff`) is answered `forbidden` and nothing is journaled. `verdict`:
        its sign-off's PIN as hashed off the loop (`service.command_desk`); None: hashed now if needed."""
        admitted = self.signoff.admit(cmd, caller, verdict)
        if admitted.refusal is not None:
            if self.signoff.stepped is not None:  # a relaying key's checks slowed down: the feeds told at once
                self.signoff_alert.pump()
            return admitted.refusal
        if cmd.cmd == "history":  # journal reads only: nothing journaled, the table unchanged
            return history_reply(self.journal, cmd)
        req = cmd.req
        if req is not None and (cmd.cmd in _CHECK_REQ_FIRST or (cmd.hand is not None and cmd.hand != self.hand)):
            # these may be answered before the journal is written: look the request up first
            duplicate = self._duplicate_reply(cmd)
            if duplicate is not None:
                return duplicate
        # otherwise a request id already journaled is found by the journal's insert itself (DuplicateRequest)
        if cmd.hand is not None and cmd.hand != self.state.hand:
            return error_reply(cmd.id, "illegal", f"hand {cmd.hand} is not the current hand {self.state.hand}",
                               say("refusal.not_current_hand", hand=cmd.hand, current=self.state.hand))
        if cmd.cmd == "state":  # what the public feed shows now (built once, when it was published)
            shown = self._last_published[0] if self._last_published is not None else self.public_state()
            return {"id": cmd.id, "ok": True, **self._status(), "state": shown}
        kind = cmd.cmd
        try:
            body = journaled_body(kind, cmd.args, self.state, self.clock, self.journal, self.ratings_day)
            if kind == "open" and SETUPS.get(body["game"]) == HOUSE_SETUP:
                body = self._house_open(body)  # journaled with the profile's text and the limits spelt out
            if (kind == "open" and caller is not None and admitted.signed_off is None
                    and open_is_new(body, self.table.setup if self.table else None, self.default_setup, self.seats)):
                return self.signoff.needs_sign_off(cmd, caller, "an open with new limits or a new profile")
            if admitted.signed_off is not None:
                body["signed_off"] = admitted.signed_off
            event_id = self._submit(kind, body, req, cmd.digest if req is not None else None)
        except DuplicateRequest:
            duplicate = self._duplicate_reply(cmd)
            if duplicate is None:  # cannot be: the journal has just found it
                return error_reply(cmd.id, "journal", f"request {req!r} is journaled but cannot be read back")
            return duplicate
        except (Refused, EngineError, ValueError) as exc:  # with its words (`say`) where it was raised
            return refusal(cmd.id, getattr(exc, "code", "illegal"), exc, self.money)
        except JournalError as exc:
            log.error("journal: %s", exc)
            return error_reply(cmd.id, "journal", str(exc))
        return self._taken(cmd, event_id)

    def _duplicate_reply(self, cmd: Command) -> Done | Refusal | None:
        """The reply to a request whose id is already journaled, or None: the same request is applied
        once and answered again; another one under that id is refused `reused_id`."""
        seen = self.journal.find_request(cmd.req) if cmd.req is not None else None
        if seen is None:
            return None
        if seen.digest is not None and seen.digest != cmd.digest:  # None: journaled before digests were
            return error_reply(cmd.id, "reused_id", f"request id {cmd.req!r} was already used for another "
                               f"request (event {seen.id}, {seen.kind}): give each request its own id")
        again = self._taken(cmd, seen.id)
        again["duplicate"] = True
        return again

    def _house_open(self, body: dict[str, Any]) -> dict[str, Any]:
        """A house table's `open` as journaled: the profile read now (its text and sha256), the limits
        spelt out (the configuration's when the open gives none). What the table had before and the
        new one differ in is logged. Raises ProfileError/LimitsError/ValueError (refused)."""
        if self.state.table is not None and self.state.table.started:
            return body  # refused as it stands by the table state (a hand is in progress)
        profile = requested_profile(body.get("profile", "default"), self.security.profiles)  # builtin or [security]'s
        opened = {**body, **open_body(body["game"], profile, body.get("limits"),
                                      body.get("seats", self.seats), self.default_limits)}
        self.certificates.check(opened, self.audit.log)  # Refused `uncertified`, in the audit log
        if self.state.table is not None:
            said = changes(self.state.table.setup.as_body(), opened)
            if said:
                log.info("open: %s (from hand %d)", ", ".join(said), self.state.hand)
        return opened

    @property
    def clock_call(self) -> Mapping[str, Any] | None:
        """The clock called on a poker player, while it runs (`tables/clock_call.py`)."""
        return self.state.clock_call

    def submit_own(self, kind: str, body: dict[str, Any]) -> int:
        """An event the controller decides itself (the clock run out): journaled like any. Raises as `_submit`."""
        return self._submit(kind, body, None)

    def raise_fault(self, kind: str, detail: str) -> None:
        """A fault the controller detected itself (e.g. a device silent): journaled like any event."""
        self._submit("fault", {"kind": kind, "detail": detail}, None)

    def _taken(self, cmd: Command, event: int) -> Done:
        """The reply to a request taken (journaled as `event`): with the table's status."""
        status = self._status()
        return {"id": cmd.id, "ok": True, "event": event, "hand": status["hand"], "seq": status["seq"],
                "boot": status["boot"], "phase": status["phase"], "fault": status["fault"]}

    def _status(self) -> Status:
        return {"hand": self.hand, "seq": self.feed.seq if self.feed else 0,
                "boot": self.feed.boot if self.feed else None,
                "phase": self.table.phase if self.table else "closed",
                "fault": self.fault.public() if self.fault else None}

    # -- views ------------------------------------------------------------------------------------

    def public_state(self) -> PublicState:
        """The table as the public feed shows it: hidden cards as `??`, no burns, no detail."""
        return self.states()[0]

    def full_state(self) -> FullState:
        """Every card, for the restricted socket only."""
        return self.states()[1]

    def states(self) -> tuple[PublicState, FullState]:
        """`(public_state(), full_state())`, built together: what each step publishes (the full one with the tray)."""
        public, full = self.state.views_with_day(self.money, self.ratings_day)  # `[ratings]` too, for the pit
        tray = self.tray.shown()
        if tray is not None:
            full["tray"] = tray
            if tray["flagged"]:  # the pit follows the public feed: told of a difference, never of the tray's chips
                public["tray_alert"] = full["tray_alert"] = tray_alert(tray)
        if self.signoff_alert.shown is not None:  # the pit and surveillance told of sign-offs slowed down
            public["signoff_alert"] = full["signoff_alert"] = self.signoff_alert.shown
        return public, full

    def _refresh(self, shown: tuple[PublicState, FullState] | None = None) -> None:
        """The tower light and the feed follow the state (`shown`: its views, when already built)."""
        light = self.state.light
        if light != self.light:
            self.light = light
            if self.on_light is not None:
                try:
                    self.on_light(light)
                except Exception:  # a failing light never stops the table
                    log.exception("tower light")
        if self.feed is not None:
            self._publish(*(shown if shown is not None else self.states()))

    def _publish(self, public: PublicState, full: FullState) -> None:
        if (public, full) == self._last_published:
            return  # nothing changed (e.g. a sensor that matters only mid-hand)
        self._last_published = (public, full)
        named = self.state.named(public, full, also=_OWN_KEYS)  # a clean card's or scan's changes
        # else the full view's moved keys, as its redaction found them (the tray's keys joined it after the redaction)
        known = None if named is not None else self.state.moved(full, also=_OWN_KEYS)
        self.feed.publish(public, full, redacted=True, known=known, named=named)  # type: ignore[union-attr]

    # -- the loop ---------------------------------------------------------------------------------

    def stop(self) -> None:
        self._stop.set()
        self.inbox.post(None)

    def bind_commands(self, ctx: zmq.Context[Any], endpoint: str, keys: KeyPair | None = None) -> zmq.Socket[Any]:
        """Bind the command channel's ROUTER socket (before `run`; a CURVE server on TCP with the
        table's `keys`). Raises zmq.ZMQError."""
        self._commands = bind_commands(ctx, endpoint, self.admission, keys)
        return self._commands

    def add_pollable(self, device: Any) -> None:
        """Serve a device from this thread's loop (before `run`): a driven shoe link. `device.fileno()`
        is its descriptor or None; `device.pump()` does its work (its readings go to the inbox)
        and returns the seconds until it is due again at the latest. A device served this way
        costs no thread hand-off per reading: read, journal and publish happen in one wake-up."""
        self._pollables.append(device)

    def run(self, ctx: zmq.Context[Any], command_endpoint: str | None = None, *,
            on_turn: Callable[[], float] | None = None) -> None:
        """Serve until `stop()`: commands, snapshots, the inbox, driven devices, heartbeats.

        Binds the command socket first unless `bind_commands` did. Raises zmq.ZMQError on bind.
        `on_turn` is called once per turn of the loop (systemd's watchdog ping: a stuck loop sends
        none) and returns the seconds until it wants the next turn at the latest."""
        commands = self._commands if command_endpoint is None else self.bind_commands(ctx, command_endpoint)
        if commands is None:
            raise ValueError("no command endpoint: call bind_commands or give one")
        try:
            serve(self, commands, self._stop, self._pollables, self._waiting_fds, on_turn)
        finally:
            commands.close(0)
            self._commands = None
