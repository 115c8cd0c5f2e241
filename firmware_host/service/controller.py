"""The table controller: one thread owns the table; readings and commands become journaled engine steps.

Every input (a device reading from the inbox, a dealer command from the command channel, a fault the
controller itself detects) takes the same path on the controller thread:

    event = (kind, body)          # JSON-able; readings are converted by `reading_event`
    journal.begin(event)          # written (in an open transaction) before it is applied
    apply(event)                  # engine calls; a refused command raises and is rolled back
    journal.commit()              # durable (WAL, synchronous=FULL) before anything leaves
    feed.publish(...)             # public + full state; the tower light follows

Readings drained from the inbox together share one transaction (`handle_readings`: each written,
then applied, in its own savepoint; one commit; their updates published in order after it).

`apply` is deterministic in the event bodies alone (no clock, no randomness), so at start the
controller rebuilds the exact state by applying the journal's events again (`Journal.resume`).

A fault stops the hand: cards that arrive while a fault stands are journaled and recorded but not
dealt; only `clear` (a supervisor, with a reason) lifts it, then the hand continues or is voided.
"""

from __future__ import annotations

import collections
import logging
import os
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import zmq

from drivers.readings import DeviceFault, DeviceOffline, DeviceOnline
from engine.errors import EngineError
from firmware_host.service.commands import (Command, Malformed, Refused, encode_reply, error_reply,
                                    request_id_of)
from firmware_host.service.feed import Feed
from firmware_host.service.journal import DuplicateRequest, Journal, JournalError
from firmware_host.tables.poker import PokerSetup, PokerTable, open_setup
from firmware_host.tables.house import Table, TableSetup

log = logging.getLogger("croupier.controller")

FAULT_KINDS = ("duplicate_card", "unexpected_card", "no_bet", "card_count", "shoe_empty", "lid_open",
               "device_silent", "device_offline", "sequence_gap", "misread", "device_fault")
"""Every kind of fault; `fault.kind` on the feed is one of these."""

_CHECK_REQ_FIRST = frozenset({"state", "card", "open"})
"""Commands whose duplicate is looked up before anything else (answered or reshaped before the journal
write); the others are found duplicate by the journal's insert (no SELECT per command)."""

LIGHT_READY, LIGHT_WAITING, LIGHT_FAULT = "ready", "waiting", "fault"  # green, amber, red


# -- readings -> events -------------------------------------------------------------------------


def reading_event(reading: Any) -> tuple[str, dict[str, Any]] | None:
    """Turn a driver reading into a journal event `(kind, body)`; None for readings we ignore.

    Works on the drivers' frozen readings by type name and fields, so the controller does not care
    which backend made them: `CardRead`, `Misread`, `SensorChange`, `ButtonPress`, `DeviceOnline`,
    `DeviceOffline`, `DeviceFault`.
    """
    name = type(reading).__name__
    if name == "CardRead":
        return "card", {"card": str(reading.card), "source": str(reading.source), "seq": int(reading.seq),
                        "device": str(getattr(reading, "device", "shoe"))}
    if name == "Misread":
        return "misread", {"source": str(reading.source), "seq": int(reading.seq)}
    if name == "SensorChange":
        if reading.name == "card_out":
            return None  # the beam only says a card passed; the CARD reading carries the card
        body: dict[str, Any] = {"name": str(reading.name), "active": bool(reading.active)}
        if getattr(reading, "seq", None) is not None:  # sent over the shoe's link: part of its resume point
            body["seq"], body["device"] = int(reading.seq), "shoe"
        return "sensor", body
    if name in ("ButtonPress", "ButtonPressed", "Button"):
        return "button", {"name": str(getattr(reading, "button", getattr(reading, "name", "")))}
    if isinstance(reading, DeviceOnline):
        return "device", {"device": reading.device, "online": True, "model": reading.model,
                          "serial": reading.serial, "firmware": reading.firmware, "boot": reading.boot}
    if isinstance(reading, DeviceOffline):
        return "device", {"device": reading.device, "online": False, "reason": reading.reason}
    if isinstance(reading, DeviceFault):
        return "device_fault", {"device": reading.device, "reason": reading.reason}
    return None


class Inbox:
    """Where reader threads and GPIO callbacks post readings; the controller thread drains it.

    `post` is thread-safe and wakes the controller's poller through a pipe; a reading posted on
    the controller's own thread (a device it serves from its loop) needs no wake-up and gets none.
    """

    def __init__(self) -> None:
        self._items: collections.deque[Any] = collections.deque()
        self._rfd, self._wfd = os.pipe()
        os.set_blocking(self._rfd, False)
        os.set_blocking(self._wfd, False)
        self.owner: int | None = None  # the controller thread's ident once it serves the loop

    def post(self, item: Any) -> None:
        self._items.append(item)
        if threading.get_ident() == self.owner:
            return  # the loop takes it before it polls again
        try:
            os.write(self._wfd, b"\x01")
        except BlockingIOError:
            pass  # the pipe is full: the controller is already awake

    def fileno(self) -> int:
        return self._rfd

    def __len__(self) -> int:
        return len(self._items)

    def drain(self, woken: bool = True) -> list[Any]:
        """Every item posted so far. `woken`: the pipe was found readable (empty it too)."""
        if woken:
            try:
                os.read(self._rfd, 1 << 16)  # a pipe holds at most 64 KiB: one read empties it
            except BlockingIOError:
                pass
        items = []
        while self._items:
            items.append(self._items.popleft())
        return items

    def close(self) -> None:
        for fd in (self._rfd, self._wfd):
            try:
                os.close(fd)
            except OSError:
                pass


@dataclass(frozen=True, slots=True)
class Fault:
    """A standing fault. `detail` may name cards: it goes only on the full feed."""

    kind: str
    message: str
    detail: str
    event: int

    def public(self) -> dict[str, Any]:
        return {"kind": self.kind, "message": self.message, "event": self.event}

    def full(self) -> dict[str, Any]:
        return {"kind": self.kind, "message": self.message, "detail": self.detail, "event": self.event}


_FAULT_MESSAGES = {
    "duplicate_card": "a card was read twice in this hand",
    "unexpected_card": "a card came out where none was expected",
    "no_bet": "a card went to a spot that has no bet",
    "card_count": "wrong number of cards at showdown",
    "shoe_empty": "the shoe is empty mid-hand",
    "lid_open": "the shoe's lid was opened mid-hand",
    "device_silent": "a device went silent",
    "device_offline": "a device went offline",
    "sequence_gap": "frames were lost on the shoe's serial line",
    "misread": "the shoe could not read a card",
    "device_fault": "a device reported a fault",
}


class Controller:
    """The table: state, the journal-then-apply-then-publish path, and the loop that serves it.

    Only the thread that calls `run` (or, in tests, the caller of `handle_*`) touches the state.
    """

    def __init__(self, journal: Journal, *, table: str = "table-1", seats: int = 7,
                 default_setup: TableSetup | PokerSetup | None = None, feed: Feed | None = None,
                 clock: Callable[[], float] = time.time,
                 on_light: Callable[[str], None] | None = None) -> None:
        self.journal = journal
        self.table_name = table
        self.seats = seats
        self.feed = feed
        self.clock = clock
        self.on_light = on_light
        self.default_setup = default_setup
        self.inbox = Inbox()
        self.table: Table | PokerTable | None = None
        self.hand = 1
        self.fault: Fault | None = None
        self.devices: dict[str, dict[str, Any]] = {}
        self.sensors: dict[str, bool] = {}
        self.light = ""
        self.replaying = False
        self.events_applied = 0
        self.last_record: dict[str, Any] | None = None
        self._last_published: tuple[dict[str, Any], dict[str, Any]] | None = None
        self._stop = threading.Event()
        self._commands: zmq.Socket[Any] | None = None
        self._pollables: list[Any] = []

    # -- start ------------------------------------------------------------------------------------

    def recover(self) -> int:
        """Rebuild the state from the journal; open the default table when there is none.

        Returns the number of events replayed. Raises JournalError when an event no longer applies.
        """
        resume = self.journal.resume()
        self.hand = resume.last_closed_hand + 1
        last = self.journal.hands(last=1)
        if last:  # devices as they stood when the last hand closed (not replayed)
            self.devices = {k: dict(v) for k, v in last[0].record.get("devices", {}).items()}
        # every sensor as its last reading left it (the replay below sets the same), so a device that
        # reports the same state again at start changes nothing and is not journaled
        self.sensors = self.journal.sensors()
        self.replaying = True
        try:
            events = ([resume.open_event] if resume.open_event else []) + list(resume.events)
            for event in events:
                try:
                    self._apply(event.kind, event.body, event.id)
                    if event is resume.open_event and last and last[0].closed_event > event.id:
                        self._resume_session(last[0].record)
                except (Refused, EngineError, ValueError) as exc:
                    raise JournalError(f"replay failed at event {event.id} ({event.kind}): {exc}") from exc
        finally:
            self.replaying = False
        if self.table is None and self.default_setup is not None:
            self._submit("open", self.default_setup.as_body(), None)
        if last and resume.open_event is not None:
            self._show_settled(last[0], resume.open_event)
        self._refresh()  # displays see the rebuilt state at once
        return len(events)

    def _show_settled(self, last: Any, open_event: Any) -> None:
        """A restart between hands puts the hand just settled back on show, as it was before (a
        settled hand stays on the displays until the next hand's first step): its events are
        replayed on a scratch controller, nothing journaled. Only when nothing of the next hand has
        happened yet, at a house table opened before that hand; otherwise the table stays as is."""
        table = self.table
        if (last.status != "settled" or last.hand != self.hand - 1 or self.fault is not None
                or not isinstance(table, Table) or table.started or table.closed is not None):
            return
        events = [e for e in self.journal.hand_events(last.hand) if e.id > open_event.id]
        if not events or events[-1].id != last.closed_event:
            return  # the table was opened again during or after that hand
        scratch = Controller(self.journal, table=self.table_name, seats=self.seats)
        scratch.hand, scratch.replaying = last.hand, True
        try:
            for event in [open_event, *events]:
                scratch._apply(event.kind, event.body, event.id)
        except (Refused, EngineError, ValueError) as exc:  # a display nicety: never a reason to stop
            log.warning("the settled hand %d cannot be shown again: %s", last.hand, exc)
            return
        finally:
            scratch.inbox.close()  # its wake-up pipe: never used
        shown = scratch.table
        if isinstance(shown, Table) and shown.closed == "settled" and scratch.hand == self.hand:
            self.table = shown

    def _resume_session(self, record: Mapping[str, Any]) -> None:
        """A poker table's seats and stacks as the last hand closed under this open left them."""
        if isinstance(self.table, PokerTable) and record.get("session") is not None:
            self.table.restore_session(record["session"])

    def device_resume(self, device: str) -> tuple[int, int] | None:
        """`(boot, seq)` of the last frame kept from `device`, to tell it where to continue."""
        info = self.devices.get(device)
        if not info or "boot" not in info:
            return None
        return int(info["boot"]), int(info.get("seq", 0))

    # -- the one path -----------------------------------------------------------------------------

    def _submit(self, kind: str, body: dict[str, Any], req: str | None) -> int:
        """Journal, apply, commit, publish. Raises Refused/EngineError (rolled back, nothing changed)."""
        event_id = self.journal.begin(self.hand, kind, body, self.clock(), req)
        try:
            self._apply(kind, body, event_id)
        except BaseException:
            self.journal.rollback()
            raise
        self.journal.commit()
        self._refresh()
        return event_id

    def handle_reading(self, reading: Any) -> None:
        """Journal and apply one device reading. A reader loop never dies: errors are logged."""
        event = self._reading_to_take(reading)
        if event is None:
            return
        kind, body = event
        try:
            self._submit(kind, body, None)
        except (Refused, EngineError, ValueError) as exc:  # a reading is never refused; log if it is
            log.error("reading %s refused: %s", kind, exc)

    def _reading_to_take(self, reading: Any) -> tuple[str, dict[str, Any]] | None:
        """The event of a reading, or None when it changes nothing (ignored, a retransmitted card,
        a sensor reporting the state it is known to be in)."""
        event = reading_event(reading)
        if event is None:
            log.debug("reading not taken: %r", reading)
            return None
        kind, body = event
        if kind == "card" and self._is_retransmit(body):
            return None
        if kind == "sensor" and "seq" not in body and self.sensors.get(body["name"]) == body["active"]:
            return None  # nothing changed (sensors report their state at start); a shoe-link reading moves its seq
        return event

    def handle_readings(self, readings: list[Any]) -> None:
        """Journal and apply readings that arrived together (drained from the inbox at once).

        One reading takes `handle_reading`'s path. Several share one transaction, so one commit (one
        fsync) makes them all durable: each is written, then applied, in its own savepoint (a reading
        the table refuses is rolled back alone and logged); the states they lead to are published in
        order once the commit is done. Nothing is published before it, so a crash loses nothing that
        was shown. Raises JournalError (the journal cannot be written: stop, be restarted, replay).
        """
        readings = [r for r in readings if r is not None]
        if len(readings) <= 1:
            for reading in readings:
                self.handle_reading(reading)
            return
        states: list[tuple[dict[str, Any], dict[str, Any]]] = []
        self.journal.begin_batch()
        try:
            for reading in readings:
                try:
                    event = self._reading_to_take(reading)
                except Exception:  # a bad reading never takes the table down
                    log.exception("reading %r", reading)
                    continue
                if event is None:
                    continue
                kind, body = event
                event_id = self.journal.add(self.hand, kind, body, self.clock())
                try:
                    self._apply(kind, body, event_id)
                except JournalError:
                    raise
                except Exception as exc:  # a reading is never refused; a bad one never takes the table down
                    self.journal.drop()
                    log.error("reading %s refused: %s", kind, exc)
                    continue
                self.journal.keep()
                if self.feed is not None:
                    states.append(self.states())
        except BaseException:
            self.journal.rollback()
            raise
        self.journal.commit()
        for public, full in states:
            self._publish(public, full)
        self._refresh()

    def _is_retransmit(self, body: Mapping[str, Any]) -> bool:
        info = self.devices.get(body["device"], {})
        return "seq" in info and info.get("seq") == body["seq"] and info.get("last_card") == body["card"]

    def handle_command(self, cmd: Command) -> dict[str, Any]:
        """Journal and apply one dealer command; return the reply map (an error reply when refused)."""
        req = cmd.req
        if req is not None and (cmd.cmd in _CHECK_REQ_FIRST or (cmd.hand is not None and cmd.hand != self.hand)):
            # these may be answered before the journal is written: look the request up first
            duplicate = self._duplicate_reply(cmd)
            if duplicate is not None:
                return duplicate
        # otherwise a request id already journaled is found by the journal's insert itself (DuplicateRequest)
        if cmd.hand is not None and cmd.hand != self.hand:
            return error_reply(cmd.id, "illegal", f"hand {cmd.hand} is not the current hand {self.hand}")
        if cmd.cmd == "state":  # what the public feed shows now (built once, when it was published)
            shown = self._last_published[0] if self._last_published is not None else self.public_state()
            return {"id": cmd.id, "ok": True, **self._status(), "state": shown}
        kind, body = cmd.cmd, dict(cmd.args)
        if kind == "card":
            body = {"card": body["card"], "source": "manual", "seq": 0, "device": "dealer"}
        try:
            if kind == "open" and body.pop("keep_seats", False):
                body = self._keep_seats(body)  # journaled with the seats spelt out: replays alone
            event_id = self._submit(kind, body, req)
        except DuplicateRequest:
            duplicate = self._duplicate_reply(cmd)
            if duplicate is None:  # cannot be: the journal has just found it
                return error_reply(cmd.id, "journal", f"request {req!r} is journaled but cannot be read back")
            return duplicate
        except Refused as exc:
            return error_reply(cmd.id, exc.code, str(exc))
        except (EngineError, ValueError) as exc:
            return error_reply(cmd.id, "illegal", str(exc))
        except JournalError as exc:
            log.error("journal: %s", exc)
            return error_reply(cmd.id, "journal", str(exc))
        return {"id": cmd.id, "ok": True, "event": event_id, **self._status()}

    def _duplicate_reply(self, cmd: Command) -> dict[str, Any] | None:
        """The reply to a request whose id is already journaled (applied once, answered again), or None."""
        seen = self.journal.find_request(cmd.req) if cmd.req is not None else None
        if seen is None:
            return None
        return {"id": cmd.id, "ok": True, "duplicate": True, "event": seen.id, "hand": seen.hand, **self._status()}

    def _keep_seats(self, body: dict[str, Any]) -> dict[str, Any]:
        """An `open` that keeps the poker table's players (a mixed game's next game, new stakes):
        the body with their stacks, who sits out and the last button (the next moves on). Raises Refused."""
        if not isinstance(self.table, PokerTable):
            raise Refused("keep_seats: no poker table is open")
        if self.table.started:
            raise Refused("a hand is in progress: confirm or void it before opening the table again")
        return {**body, **self._need_table().carried_seats()}  # type: ignore[union-attr]

    def raise_fault(self, kind: str, detail: str) -> None:
        """A fault the controller detected itself (e.g. a device silent): journaled like any event."""
        self._submit("fault", {"kind": kind, "detail": detail}, None)

    def _status(self) -> dict[str, Any]:
        return {"hand": self.hand, "seq": self.feed.seq if self.feed else 0,
                "boot": self.feed.boot if self.feed else None,
                "phase": self.table.phase if self.table else "closed",
                "fault": self.fault.public() if self.fault else None}

    # -- apply: deterministic in the event bodies ---------------------------------------------------

    def _apply(self, kind: str, body: Mapping[str, Any], event_id: int) -> None:
        handler = getattr(self, "_on_" + kind, None)
        if handler is None:
            raise Refused(f"unknown event kind {kind!r}")
        handler(body, event_id)
        self.events_applied += 1

    def _need_table(self) -> Table | PokerTable:
        """The table for the current hand: after a hand closed, a fresh round for the next one."""
        if self.table is None:
            raise Refused("no table is open: send open first")
        if self.table.closed is not None:  # the caller keeps it once its step succeeded
            return self.table.successor(self.hand)
        return self.table

    def _need_no_fault(self) -> None:
        if self.fault is not None:
            raise Refused(f"the hand is stopped by a fault ({self.fault.kind}): a supervisor must clear it",
                          "fault")

    def _set_fault(self, kind: str, detail: str, event_id: int) -> None:
        if self.table is not None:
            self.table = self._need_table()
        if self.fault is not None:  # the first fault stands; later ones are recorded with it
            if self.table is not None:
                self.table.note_fault(kind, _FAULT_MESSAGES.get(kind, kind), detail, event_id, extra=True)
            return
        self.fault = Fault(kind, _FAULT_MESSAGES.get(kind, kind), detail, event_id)
        if self.table is not None:
            self.table.note_fault(kind, self.fault.message, detail, event_id)

    def _mid_hand(self) -> bool:
        return self.table is not None and self.table.mid_hand

    def _on_open(self, body: Mapping[str, Any], event_id: int) -> None:
        if self.table is not None and self.table.started:
            raise Refused("a hand is in progress: confirm or void it before opening the table again")
        self._need_no_fault()
        setup = open_setup(body, self.seats)
        self.table = setup.new_table(self.hand)

    def _on_bet(self, body: Mapping[str, Any], event_id: int) -> None:
        self._need_no_fault()
        table = self._need_table()
        table.bet(int(body["seat"]), dict(body["bets"]))
        self.table = table

    def _on_deal(self, body: Mapping[str, Any], event_id: int) -> None:
        self._need_no_fault()
        table = self._need_table()
        table.deal()
        self.table = table

    def _on_decide(self, body: Mapping[str, Any], event_id: int) -> None:
        self._need_no_fault()
        table = self._need_table()
        table.decide(int(body["seat"]), str(body["decision"]), body.get("multiple"))
        self.table = table

    def _poker_table(self) -> PokerTable:
        self._need_no_fault()
        table = self._need_table()
        if not isinstance(table, PokerTable):
            raise Refused(f"a {table.setup.game} table takes bet and decide, not poker actions")
        return table

    def _on_act(self, body: Mapping[str, Any], event_id: int) -> None:
        table = self._poker_table()
        table.act(int(body["seat"]), str(body["action"]), body.get("amount"), body.get("cards"))
        self.table = table

    def _on_seat(self, body: Mapping[str, Any], event_id: int) -> None:
        table = self._poker_table()
        table.seat_change(int(body["seat"]), str(body["action"]), body.get("amount"))
        self.table = table

    def _on_chop(self, body: Mapping[str, Any], event_id: int) -> None:
        table = self._poker_table()
        shares = body.get("shares")
        table.chop(None if shares is None else {int(s): int(c) for s, c in dict(shares).items()})
        self.table = table

    def _on_card(self, body: Mapping[str, Any], event_id: int) -> None:
        device = str(body.get("device", "shoe"))
        info = self.devices.setdefault(device, {})
        if body.get("source") != "manual":
            info["seq"] = int(body.get("seq", 0))
            info["last_card"] = body["card"]
        if self.table is None:
            self._set_fault("unexpected_card", f"card {body['card']} with no table open", event_id)
            return
        if body.get("source") == "discard":
            self.table.discard(str(body["card"]))
            return
        table = self._need_table()
        self.table = table
        if self.fault is not None:
            table.note_ignored(str(body["card"]), self.fault.kind)
            return
        deal_or_fault = getattr(table, "deal_or_fault", None)
        if deal_or_fault is not None:  # one check of the card (a house table)
            problem = deal_or_fault(str(body["card"]))
            if problem is not None:
                self._set_fault(problem[0], problem[1], event_id)
            return
        problem = table.check_card(str(body["card"]))
        if problem is not None:
            self._set_fault(problem[0], problem[1], event_id)
            return
        table.take_card(str(body["card"]))

    def _on_misread(self, body: Mapping[str, Any], event_id: int) -> None:
        if "seq" in body:
            self.devices.setdefault(str(body.get("device", "shoe")), {})["seq"] = int(body["seq"])
        if body.get("source") == "discard" and not self._mid_hand():
            return
        self._set_fault("misread", f"misread on the {body.get('source')} reader", event_id)

    def _on_sensor(self, body: Mapping[str, Any], event_id: int) -> None:
        name, active = str(body["name"]), bool(body["active"])
        self.sensors[name] = active
        if "seq" in body:
            self.devices.setdefault(str(body.get("device", "shoe")), {})["seq"] = int(body["seq"])
        if not self._mid_hand():
            return
        if name == "empty" and active:
            self._set_fault("shoe_empty", "the shoe reports empty", event_id)
        elif name in ("lid", "lid_open") and active:
            self._set_fault("lid_open", "the shoe's lid is open", event_id)
        elif name in ("shoe_present", "present") and not active:
            self._set_fault("shoe_empty", "the shoe was taken off the table", event_id)

    def _on_device(self, body: Mapping[str, Any], event_id: int) -> None:
        device = str(body["device"])
        info = self.devices.setdefault(device, {})
        if body.get("online"):
            if info.get("boot") != body.get("boot"):
                info.pop("seq", None)
                info.pop("last_card", None)
            info.update({k: body[k] for k in ("model", "serial", "firmware", "boot") if k in body})
            info["online"] = True
            return
        info["online"] = False
        reason = str(body.get("reason", ""))
        if self._mid_hand():
            kind = "device_silent" if "silent" in reason or "heartbeat" in reason else "device_offline"
            self._set_fault(kind, f"{device}: {reason}", event_id)

    def _on_device_fault(self, body: Mapping[str, Any], event_id: int) -> None:
        reason = str(body.get("reason", ""))
        kind = "sequence_gap" if ("sequence" in reason or "gap" in reason) else "device_fault"
        self._set_fault(kind, f"{body.get('device')}: {reason}", event_id)

    def _on_fault(self, body: Mapping[str, Any], event_id: int) -> None:
        kind = str(body["kind"])
        if kind not in FAULT_KINDS:
            raise Refused(f"unknown fault kind {kind!r}")
        self._set_fault(kind, str(body.get("detail", "")), event_id)

    def _on_button(self, body: Mapping[str, Any], event_id: int) -> None:
        name = str(body["name"])
        if self.table is None or self.fault is not None:
            return  # a button pressed while nothing can happen is recorded only
        table = self.table
        try:
            if name == "next" and (table.phase in ("bets", "waiting")
                                   or (isinstance(table, PokerTable) and table.closed is not None)):
                table = self._need_table()
                table.deal()
                self.table = table
            elif name == "confirm" and table.confirmable:
                table.settle()
                self._close("settled", {"by": "button"}, event_id)
            elif name == "confirm" and table.closed is None and table.short_of_cards():
                self._set_fault("card_count", "too few cards at showdown: the hand still expects "
                                f"a card for {table.next_target()}", event_id)
            elif name == "void" and table.started:
                self._close("voided", {"reason": "void button held", "by": "button"}, event_id)
        except (Refused, EngineError) as exc:
            log.info("button %s did nothing: %s", name, exc)

    def _on_confirm(self, body: Mapping[str, Any], event_id: int) -> None:
        self._need_no_fault()
        table = self._need_table()
        if not table.confirmable:
            if table is self.table and table.short_of_cards():
                # the dealer called the showdown but the shoe gave fewer cards than the hand needs
                self._set_fault("card_count", "too few cards at showdown: the hand still expects "
                                f"a card for {table.next_target()}", event_id)
                return
            raise Refused(f"nothing to confirm: the hand is in phase {table.phase}")
        table.settle()
        self._close("settled", dict(body), event_id)

    def _on_void(self, body: Mapping[str, Any], event_id: int) -> None:
        table = self._need_table()
        if not table.started or table is not self.table:
            raise Refused("no hand in progress to void")
        self._close("voided", dict(body), event_id)

    def _on_clear(self, body: Mapping[str, Any], event_id: int) -> None:
        if self.fault is None:
            raise Refused("there is no fault to clear")
        cleared = {"reason": body["reason"], "by": body["by"], "then": body.get("then", "continue"),
                   "event": event_id}
        if self.table is not None:
            self.table.note_clear(cleared)
        self.fault = None
        if cleared["then"] == "void" and self.table is not None and self.table.started:
            self._close("voided", {"reason": f"fault cleared by {body['by']}: {body['reason']}"}, event_id)

    def _close(self, status: str, body: Mapping[str, Any], event_id: int) -> None:
        """Finish the hand: record it (in the same transaction when live). A settled hand stays on
        show until the next hand's first step; a voided one gives way to the next hand at once."""
        table = self._need_table()
        record = {**table.record(status, dict(body)), "devices": {k: dict(v) for k, v in self.devices.items()},
                  "sensors": dict(self.sensors)}
        if not self.replaying:
            self.journal.close_hand(self.hand, table.setup.game, status, event_id, self.clock(), record)
        self.last_record = record
        self.hand += 1
        self.fault = None
        if status == "voided":
            self.table = table.successor(self.hand)

    # -- views ------------------------------------------------------------------------------------

    def public_state(self) -> dict[str, Any]:
        """The table as the public feed shows it: hidden cards as `??`, no burns, no detail."""
        base = self.table.view("public") if self.table else _closed_view()
        hand = self.table.hand if self.table else self.hand
        return {**base, "hand": hand, "fault": self.fault.public() if self.fault else None}

    def full_state(self) -> dict[str, Any]:
        """Every card, for the restricted socket only."""
        base = self.table.view("full") if self.table else _closed_view()
        hand = self.table.hand if self.table else self.hand
        return {**base, "hand": hand, "fault": self.fault.full() if self.fault else None,
                "devices": {name: dict(info) for name, info in self.devices.items()}, "sensors": dict(self.sensors)}

    def states(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """`(public_state(), full_state())`, built together: what each step publishes."""
        table = self.table
        if table is None:
            public, full = _closed_view(), _closed_view()
            hand = self.hand
        else:
            views = getattr(table, "views", None)
            public, full = views() if views is not None else (table.view("public"), table.view("full"))
            hand = table.hand
        fault = self.fault
        public["hand"] = full["hand"] = hand
        public["fault"] = fault.public() if fault else None
        full["fault"] = fault.full() if fault else None
        full["devices"] = {name: dict(info) for name, info in self.devices.items()}
        full["sensors"] = dict(self.sensors)
        return public, full

    def _light(self) -> str:
        if self.fault is not None:
            return LIGHT_FAULT
        if self.table is not None and self.table.waiting_for_dealer:
            return LIGHT_WAITING
        return LIGHT_READY

    def _refresh(self) -> None:
        light = self._light()
        if light != self.light:
            self.light = light
            if self.on_light is not None:
                try:
                    self.on_light(light)
                except Exception:  # a failing light never stops the table
                    log.exception("tower light")
        if self.feed is not None:
            self._publish(*self.states())

    def _publish(self, public: dict[str, Any], full: dict[str, Any]) -> None:
        if (public, full) == self._last_published:
            return  # nothing changed (e.g. a sensor that matters only mid-hand)
        self._last_published = (public, full)
        self.feed.publish(public, full)  # type: ignore[union-attr]

    # -- the loop ---------------------------------------------------------------------------------

    def stop(self) -> None:
        self._stop.set()
        self.inbox.post(None)

    def bind_commands(self, ctx: zmq.Context[Any], endpoint: str) -> zmq.Socket[Any]:
        """Bind the command channel's ROUTER socket (before `run`). Raises zmq.ZMQError."""
        sock = ctx.socket(zmq.ROUTER)
        sock.setsockopt(zmq.LINGER, 0)
        try:
            sock.bind(endpoint)
        except zmq.ZMQError:
            sock.close(0)
            raise
        self._commands = sock
        return sock

    def add_pollable(self, device: Any) -> None:
        """Serve a device from this thread's loop (before `run`): a driven shoe link. `device.fileno()`
        is its descriptor or None; `device.pump()` does its work (its readings go to the inbox)
        and returns the seconds until it is due again at the latest. A device served this way
        costs no thread hand-off per reading: read, journal and publish happen in one wake-up."""
        self._pollables.append(device)

    def run(self, ctx: zmq.Context[Any], command_endpoint: str | None = None) -> None:
        """Serve until `stop()`: commands, snapshots, the inbox, driven devices, heartbeats.

        Binds the command socket first unless `bind_commands` did. Raises zmq.ZMQError on bind.
        """
        commands = self._commands if command_endpoint is None else self.bind_commands(ctx, command_endpoint)
        if commands is None:
            raise ValueError("no command endpoint: call bind_commands or give one")
        poller = zmq.Poller()
        poller.register(commands, zmq.POLLIN)
        inbox = self.inbox.fileno()
        poller.register(inbox, zmq.POLLIN)
        snaps = self.feed.snapshot_sockets() if self.feed else []
        for s in snaps:
            poller.register(s, zmq.POLLIN)
        devices = [_Polled(device) for device in self._pollables]
        clock = time.monotonic
        self.inbox.owner = threading.get_ident()
        try:
            while not self._stop.is_set():
                wait = self.feed.heartbeat_due() if self.feed else 1.0
                if devices:
                    now = clock()
                    for d in devices:
                        d.watch(poller)
                        wait = min(wait, d.due - now)
                ready = dict(poller.poll(max(0, int(wait * 1000)) + 1))
                if devices:
                    now = clock()
                    for d in devices:
                        if now >= d.due or (d.fd is not None and d.fd in ready):
                            d.pump(now)
                woken = inbox in ready
                if woken or self.inbox:  # what a served device read is in the inbox: take it now
                    items = self.inbox.drain(woken)
                    try:
                        self.handle_readings(items)
                    except JournalError:
                        raise  # nothing can be accepted any more: stop, be restarted, replay
                    except Exception:  # a bad reading never takes the table down
                        log.exception("readings %r", items)
                if commands in ready:
                    self._serve_commands(commands)
                for s in snaps:
                    if s in ready:
                        self.feed.serve_snapshots(s)  # type: ignore[union-attr]
                if self.feed is not None:
                    self.feed.tick()
        finally:
            self.inbox.owner = None
            commands.close(0)
            self._commands = None

    def _serve_commands(self, sock: zmq.Socket[Any]) -> None:
        # ZMQ_EVENTS says whether a request waits (cheaper than a receive that raises zmq.Again)
        while sock.get(zmq.EVENTS) & zmq.POLLIN:
            try:
                frames = sock.recv_multipart(zmq.NOBLOCK)
            except zmq.Again:
                return
            envelope, payload = frames[:-1], frames[-1]
            try:
                reply = self.handle_command(Command.decode(payload))
            except Malformed as exc:
                reply = error_reply(request_id_of(payload), "malformed", str(exc))
            except Exception as exc:  # never let one request take the table down
                log.exception("command failed")
                reply = error_reply(request_id_of(payload), "internal", f"{type(exc).__name__}: {exc}")
            sock.send_multipart([*envelope, encode_reply(reply)])


class _Polled:
    """A device served from the controller's loop: its descriptor as registered and when it is due."""

    def __init__(self, device: Any) -> None:
        self.device = device
        self.fd: int | None = None
        self.due = 0.0

    def watch(self, poller: zmq.Poller) -> None:
        """Keep the poller on the device's current descriptor (a reopened port has a new one)."""
        fd = self.device.fileno()
        if fd != self.fd:
            if self.fd is not None:
                poller.unregister(self.fd)
            if fd is not None:
                poller.register(fd, zmq.POLLIN)
            self.fd = fd

    def pump(self, now: float) -> None:
        try:
            self.due = now + max(0.0, float(self.device.pump()))
        except Exception:  # a device's bug never takes the table down
            log.exception("device %r", self.device)
            self.due = now + 0.5


def _closed_view() -> dict[str, Any]:
    return {"game": None, "phase": "closed", "board": [], "dealer": {"cards": []}, "spots": [], "to_act": None,
            "next": None}
