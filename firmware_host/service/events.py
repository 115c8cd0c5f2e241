"""Device readings as journal events: what the controller writes for each reading a driver reports."""

from __future__ import annotations

from collections.abc import Callable

from drivers.readings import (
    ButtonPress, CardRead, ChipsRead, DeviceFault, DeviceOffline, DeviceOnline, Misread, PlayerCardRead, Reading, Sensor,
    SensorChange,
)
from firmware_host.tables.house.chips import chips_body
from protocol.records import ReadingBody, SensorBody


def _unknown(antenna: str) -> frozenset[str] | None:
    return None


def reading_event(reading: Reading, chips_before: Callable[[str], frozenset[str] | None] = _unknown,
                  ) -> tuple[str, ReadingBody] | None:
    """Turn a driver reading into a journal event `(kind, body)`; None for readings we ignore.
    `chips_before(antenna)`: the antenna's reading the table holds, which a chip reading is journaled against
    when its change is shorter than its UIDs (`firmware_host.tables.house.chips.chips_body`), or None.

    Dispatched on the drivers' closed set of frozen readings (`drivers.readings.Reading`), so the
    controller does not care which backend made them. What a reading means travels in its fields
    (`Sensor`, and a fault's or an offline's `kind`), journaled as their string values; `reason`
    is journaled as the text it is, for people. Each body is its kind's in `protocol.records`.
    """
    match reading:
        case CardRead(card=card, source=source, seq=seq):
            return "card", {"card": card, "source": source, "seq": seq, "device": "shoe"}
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
        case ChipsRead(antenna=antenna, uids=uids, stable=stable, device=device):
            return "chips", chips_body(antenna, frozenset(uids), stable, device, chips_before(antenna))
        case PlayerCardRead(seat=seat, card=card, device=device):  # a player's card at a seat (`tables/players.py`)
            return "player", {"seat": seat, "action": "in", "card": card, "source": "reader", "device": device}
    return None  # not a reading at all: nothing a device may send is one
