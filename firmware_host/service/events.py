"""Device readings as journal events: what the controller writes for each reading a driver reports."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from drivers.readings import (
    ButtonPress, CardRead, ChipsRead, DeviceFault, DeviceOffline, DeviceOnline, Misread, PlayerCardRead, Reading, Sensor,
    SensorChange,
)
from firmware_host.tables.house.chips import chip_read
from protocol.records import ChipScanBody, ReadingBody, SensorBody


def _unknown(antenna: str) -> frozenset[str] | None:
    return None


def reading_event(reading: Reading, chips_before: Callable[[str], frozenset[str] | None] = _unknown,
                  ) -> tuple[str, ReadingBody] | None:
    """Turn a driver reading into a journal event `(kind, body)`; None for readings we ignore.
    `chips_before(antenna)`: the antenna's reading the table holds, which a chip reading is journaled against
    when its change is shorter than its UIDs (`firmware_host.tables.house.chips.chip_read`), or None. A chip
    reading is a `chip_scan` of one (`scan_event`: the controller takes a run of them together).

    Dispatched on the drivers' closed set of frozen readings (`drivers.readings.Reading`), so the
    controller does not care which backend made them. What a reading means travels in its fields
    (`Sensor`, and a fault's or an offline's `kind`), journaled as their string values; `reason`
    is journaled as the text it is, for people. Each body is its kind's in `protocol.records`.
    """
    match reading:
        case CardRead(card=card, source=source, seq=seq):  # what a replay needs: the card, and its frame to resume at
            if source == "shoe":
                return "card", {"card": card, "seq": seq}
            return "card", {"card": card, "source": source, "seq": seq}
        case Misread(source=source, seq=seq):
            return "misread", {"source": source, "seq": seq}
        case SensorChange(name=Sensor.CARD_OUT):
            return None  # the beam only says a card passed; the CARD reading carries the card
        case SensorChange(name=name, active=active, seq=seq):
            body: SensorBody = {"name": str(name), "active": active}
            if seq is not None:  # sent over the shoe's link: part of its resume point
                body["seq"], body["device"] = seq, "shoe"
            return "sensor", body
        case ButtonPress(name=name):
            return "button", {"name": name}
        case DeviceOnline(device=device, model=model, serial=serial, firmware=firmware, boot=boot):
            return "device", {"device": device, "online": True, "model": model, "serial": serial,
                              "firmware": firmware, "boot": boot}
        case DeviceOffline(device=device, reason=reason, kind=kind):
            return "device", {"device": device, "online": False, "reason": reason, "kind": str(kind)}
        case DeviceFault(device=device, reason=reason, kind=kind):
            return "device_fault", {"device": device, "reason": reason, "kind": str(kind)}
        case ChipsRead():
            return scan_event((reading,), chips_before)
        case PlayerCardRead(seat=seat, card=card, device=device):  # a player's card at a seat (`tables/players.py`)
            return "player", {"seat": seat, "action": "in", "card": card, "source": "reader", "device": device}
    return None  # not a reading at all: nothing a device may send is one


def scan_event(readings: Sequence[ChipsRead], chips_before: Callable[[str], frozenset[str] | None] = _unknown,
               ) -> tuple[str, ChipScanBody]:
    """The `chip_scan` event of chip readings taken together (one reader's, each antenna once: `runs`), each
    journaled against the antenna's reading `chips_before` gives (`reading_event`)."""
    return "chip_scan", {"device": readings[0].device, "reads": [
        chip_read(r.antenna, frozenset(r.uids), r.stable, chips_before(r.antenna)) for r in readings]}


def runs(readings: Sequence[Reading | None]) -> list[Reading | tuple[ChipsRead, ...]]:
    """Readings drained together, in order, each run of chip readings as one item (a scan's changes, taken
    as one event: `scan_event`), a run ending where another reading, another reader or an antenna read again
    comes (so each reading of a run is journaled against the table's reading before the run); None dropped.

    >>> [len(r) if isinstance(r, tuple) else "card" for r in runs([ChipsRead("tray", frozenset(), True),
    ...     ChipsRead("spot1.ante", frozenset(), True), ChipsRead("tray", frozenset(), False),
    ...     CardRead("As", "shoe", 1), ChipsRead("tray", frozenset(), True)])]
    [2, 1, 'card', 1]
    """
    if len(readings) == 1:  # the most common: one reading drained alone
        only = readings[0]
        return [] if only is None else [(only,) if isinstance(only, ChipsRead) else only]
    out: list[Reading | tuple[ChipsRead, ...]] = []
    run: list[ChipsRead] = []
    names: set[str] = set()
    for reading in readings:
        if run and not (isinstance(reading, ChipsRead) and reading.device == run[0].device
                        and reading.antenna not in names):
            out.append(tuple(run))
            run, names = [], set()
        if isinstance(reading, ChipsRead):
            run.append(reading)
            names.add(reading.antenna)
        elif reading is not None:
            out.append(reading)
    if run:
        out.append(tuple(run))
    return out
