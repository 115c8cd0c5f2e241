"""The closed set of readings the devices report, the names and kinds they carry, and the callback that receives them.

Readings are frozen values. A device's reader thread or GPIO callback builds one and hands it to
`on_reading`; the controller's callback only puts it in the table's inbox. A receiver tells them
apart by type (`match reading: case CardRead(): ...`), never by a type's name or a message's words:
what a reading means travels in its fields (`Sensor`, `FaultKind`, `OfflineKind`), and `reason` is
text for people, free to be reworded.

The enums are `str` enums whose values are the words the journal has always stored, so a journal
body written from a reading (`str(kind)`, `str(name)`) reads the same as before they existed.

>>> Sensor.parse("lid"), str(Sensor.LID_OPEN)
(<Sensor.LID_OPEN: 'lid_open'>, 'lid_open')
>>> DeviceFault("shoe", "sequence gap: expected 3, got 5", FaultKind.SEQUENCE_GAP).kind == "sequence_gap"
True
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, TypeAlias

from drivers.errors import DeviceError

RANKS = "23456789TJQKA"
SUITS = "cdhs"
"""A card's text form as the devices report it (`As`, `Td`): the engine's own (`engine.cards`; drivers
import no engine, so a test ties the two: tests/drivers/test_card_reader.py)."""

CardSource = Literal["shoe", "discard"]
SOURCES: tuple[CardSource, ...] = ("shoe", "discard")


class Sensor(enum.StrEnum):
    """The table's sensors, on GPIO (`card_out`, `shoe_present`, `lid_open`) or reported by the shoe
    over its link (`empty`, and `lid_open` on a shoe that has its own lid switch)."""

    CARD_OUT = "card_out"          # the card-out beam is broken by a card
    SHOE_PRESENT = "shoe_present"  # the shoe sits in its place
    LID_OPEN = "lid_open"          # the shoe's lid is open
    EMPTY = "empty"                # the shoe has no card left

    @classmethod
    def parse(cls, text: str) -> Sensor:
        """The sensor `text` names, older spellings (`lid`, `present`) included.

        Raises DeviceError naming the text and the sensors there are.
        """
        try:
            return cls(_SENSOR_ALIASES.get(text, text))
        except ValueError:
            raise DeviceError(f"no sensor {text!r} (sensors: {', '.join(cls)})") from None


# Names the shoe's firmware and the journal used before the enum: still read as the same sensor.
_SENSOR_ALIASES = {"lid": "lid_open", "present": "shoe_present"}


class FaultKind(enum.StrEnum):
    """Why a device's link stopped the hand (`DeviceFault.kind`); the values are the controller's fault kinds."""

    SEQUENCE_GAP = "sequence_gap"  # frames were lost for good between the device and the host
    DEVICE_FAULT = "device_fault"  # anything else: an unreadable frame, a device refused (firmware, protocol)


class OfflineKind(enum.StrEnum):
    """How a device went away (`DeviceOffline.kind`); the values are the controller's fault kinds."""

    DEVICE_SILENT = "device_silent"    # connected, but no frame heard past its heartbeat
    DEVICE_OFFLINE = "device_offline"  # port lost, no device answering, or the device refused


@dataclass(frozen=True, slots=True)
class CardRead:
    """A card read by the shoe (dealt) or the discard reader, as text (`As`, `Td`).

    `seq` is the device's frame number (0..255, wrapping); journal the last one with the device's
    `boot` to resume after a restart (see `drivers.card_reader.ResumePoint`).
    """

    card: str
    source: CardSource
    seq: int


@dataclass(frozen=True, slots=True)
class Misread:
    """A card went past a reader and could not be read."""

    source: CardSource
    seq: int


@dataclass(frozen=True, slots=True)
class SensorChange:
    """Sensor `name` became active or inactive (also posted once per sensor at start).

    `seq` is the frame number when the shoe itself reported it over its link (journal it like a
    card's), None for a sensor on GPIO.
    """

    name: Sensor
    active: bool
    seq: int | None = None


@dataclass(frozen=True, slots=True)
class ButtonPress:
    """The dealer pressed button `name` (for a hold button: held it the full time)."""

    name: str


@dataclass(frozen=True, slots=True)
class DeviceOnline:
    """The device said who it is and was accepted. `boot` changes each time the device restarts."""

    device: str
    model: str
    serial: str
    firmware: str
    boot: int


@dataclass(frozen=True, slots=True)
class DeviceOffline:
    """The device went away: port closed, connection lost, refused, or silent past its heartbeat.

    `kind` says which (silent or offline); `reason` says it in words, for the log and the feed.
    """

    device: str
    reason: str
    kind: OfflineKind = OfflineKind.DEVICE_OFFLINE


@dataclass(frozen=True, slots=True)
class DeviceFault:
    """The device or its link did something that stops the hand (sequence gap, refused firmware, ...).

    `kind` says which; `reason` says it in words, for the log and the feed.
    """

    device: str
    reason: str
    kind: FaultKind = FaultKind.DEVICE_FAULT


@dataclass(frozen=True, slots=True)
class ChipsRead:
    """What one antenna of a chip reader holds now, debounced: the chips' UIDs in a betting circle or the tray.

    `antenna` is the reader's name for it, the circle it lies under: `spot3.ante`, `spot3.play`,
    `tray` (`docs/protocol.md`). `uids` are ISO 15693 UIDs as 16 upper-case hex digits. `stable` is
    True once the antenna's chips have stayed the same for the reader's settle time; a change is
    reported unstable first, then stable. The chip reader's `device` is `chips` unless configured.
    """

    antenna: str
    uids: frozenset[str]
    stable: bool
    device: str = "chips"


@dataclass(frozen=True, slots=True)
class PlayerCardRead:
    """A player card read at a seat by its card reader (`drivers.player_card`): the card's number (a magnetic
    stripe's account number, an NFC card's UID) and the seat it was presented at. The number is private:
    the journal and the full feed keep it, the public feed never (`docs/ratings.md`)."""

    seat: int
    card: str
    device: str = "player_cards"


Reading: TypeAlias = (CardRead | Misread | SensorChange | ButtonPress | DeviceOnline | DeviceOffline | DeviceFault
                      | ChipsRead | PlayerCardRead)
"""Every reading a device reports: the closed set a receiver matches on."""

READING_TYPES: tuple[type[Reading], ...] = (CardRead, Misread, SensorChange, ButtonPress, DeviceOnline,
                                            DeviceOffline, DeviceFault, ChipsRead, PlayerCardRead)

OnReading = Callable[[Reading], None]
"""Receives every reading of a device. Runs on the device's thread: keep it short (post to a queue)."""
