"""ISO/IEC 15693-3's Inventory and its anticollision, apart from the front end that sends it: the requests, their air times, and which mask each next round asks for.

A reader (drivers/pn5180.py) runs the rounds `Anticollision` asks for, 16 slots each, and tells it
what each slot held: silence, one chip's answer, a collision, or an answer garbled (its CRC or its
framing wrong). A garbled slot is taken as a collision: two chips of a stack answering in the same
slot often reach the receiver as one answer with a bad CRC rather than as a collision bit, and since
a chip's slot comes from its UID, the same two would garble the same slot at every scan and never be
read. NXP's NFC Reader Library does the same (its discovery loop's ISO 15693 collision resolution
takes an integrity error in a slot as a collision). A garbled slot is inventoried again with the mask
a nibble longer; under a 60-bit mask each slot names a whole UID, one chip at most, so there it is
that chip missed this scan (and a collision there the same UID twice, or noise: not resolved). Two budgets keep noise from looping: `MAX_ROUNDS` rounds an inventory, and a round
asked with a mask of `NOISE_BITS` bits or more in which every slot is in error and none answered
(a stack cannot do that: it would take 16 x 16 x 2 chips): both end the inventory as incomplete.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from drivers.errors import FrameError

__all__ = ["Anticollision", "Scan", "inventory_request", "request_air_s", "uid_text"]

INVENTORY_16_SLOTS = 0x06             # request flags: inventory, high data rate, 16 slots, no AFI
INVENTORY = 0x01                      # command code
SLOTS = 16
UID_BITS = 64
MAX_ROUNDS = 256
"""Inventory rounds one antenna's scan may take, a round a collision resolved (a circle's 20 chips a few, a
tray's hundreds a few dozen); past it the collisions are a storm (a broken tag, interference)."""
NOISE_BITS = 8
"""A round asked with a mask this long or longer whose 16 slots are all in error, none answering, is noise:
a stack does not put 32 chips behind one 8-bit mask."""
VCD_BIT_S, VCD_SOF_S, VCD_EOF_S = 75.52e-6 / 2, 75.52e-6, 37.76e-6
"""A request's bit (ISO/IEC 15693-2's 1 out of 4 coding: two bits a 75.52 us symbol, 26.48 kbit/s), SOF and EOF."""
T1_S = 4352 / 13.56e6
"""ISO/IEC 15693-3's t1: the chips answer 320.9 us after the request's EOF."""
POWER_UP_S = 0.001
"""ISO/IEC 15693-3: a chip is ready for a request within 1 ms of the field coming on; none is sent before."""


@dataclass(frozen=True, slots=True)
class Scan:
    """One antenna's inventory: the UIDs read, and whether every collision was resolved (`complete`)."""

    uids: frozenset[str]
    complete: bool = True
    rounds: int = 1
    collisions: int = 0  # slots whose collision bit was set
    rx_errors: int = 0   # slots garbled (CRC, protocol): taken as collisions, or a chip missed at a full mask


def uid_text(answer: bytes) -> str:
    """The UID of an Inventory answer (flags, DSFID, UID least significant byte first) as 16 hex digits,
    most significant first. Raises FrameError for an answer too short or flagged an error.

    >>> uid_text(bytes([0x00, 0x00, 0x01, 0, 0, 0, 0, 0x01, 0x04, 0xE0]))
    'E004010000000001'
    """
    if len(answer) < 10 or answer[0] & 0x01:
        raise FrameError(f"not an inventory answer: {answer.hex()}")
    return answer[2:10][::-1].hex().upper()


def request_air_s(length: int) -> float:
    """The air time of a request of `length` bytes, its 2 CRC bytes, SOF and EOF added (1 out of 4 coding).

    >>> round(request_air_s(3) * 1000, 3)  # an Inventory with no mask: slot 0 answers ~5.9 ms after it is sent
    1.624
    """
    return (length + 2) * 8 * VCD_BIT_S + VCD_SOF_S + VCD_EOF_S


def inventory_request(mask: int, bits: int) -> bytes:
    """An Inventory request of 16 slots for the chips whose UID's lowest `bits` bits are `mask`.

    >>> inventory_request(0, 0).hex(), inventory_request(0x3A, 8).hex(), inventory_request(0x5, 4).hex()
    ('060100', '0601083a', '06010405')
    """
    return bytes([INVENTORY_16_SLOTS, INVENTORY, bits]) + mask.to_bytes((bits + 7) // 8, "little")


class Anticollision:
    """The rounds of one inventory: `next_round()` gives the (mask, mask bits) to ask for, or None when the
    inventory is over; each slot's outcome is told by `answer`, `collision` or `garbled`; `scan()` says it.

    >>> rounds = Anticollision()
    >>> rounds.next_round()
    (0, 0)
    >>> rounds.answer("E004010000000001"); rounds.garbled(3)  # slot 3's answer failed its CRC: two chips, maybe
    >>> rounds.next_round(), rounds.next_round()
    ((3, 4), None)
    >>> rounds.scan()
    Scan(uids=frozenset({'E004010000000001'}), complete=True, rounds=2, collisions=0, rx_errors=1)
    """

    def __init__(self, max_rounds: int = MAX_ROUNDS) -> None:
        self.max_rounds = max_rounds
        self._masks: deque[tuple[int, int]] = deque([(0, 0)])
        self._uids: set[str] = set()
        self._mask = self._bits = 0
        self._rounds = self._collisions = self._rx_errors = 0
        self._round_errors = self._round_answers = 0
        self._complete = True

    def next_round(self) -> tuple[int, int] | None:
        """The next round's mask and its length in bits; None once every collision is resolved, or the
        inventory given up (the budget spent, a round of noise): then `scan()` is not complete."""
        if (self._rounds and self._bits >= NOISE_BITS and self._round_errors == SLOTS
                and not self._round_answers):
            self._complete = False  # every slot in error under a narrow mask: noise, not chips
            return None
        if not self._masks or not self._complete:
            return None
        if self._rounds == self.max_rounds:
            self._complete = False
            return None
        self._mask, self._bits = self._masks.popleft()
        self._rounds += 1
        self._round_errors = self._round_answers = 0
        return self._mask, self._bits

    def answer(self, uid: str) -> None:
        """A slot held one chip's answer."""
        self._round_answers += 1
        self._uids.add(uid)

    def collision(self, slot: int) -> None:
        """A slot's collision bit was set: two chips or more; at a full mask, the same UID twice or noise."""
        self._collisions += 1
        if not self._split(slot):
            self._complete = False

    def garbled(self, slot: int) -> None:
        """A slot's answer failed its CRC (or its framing): taken as a collision; at a full mask, one chip missed."""
        self._rx_errors += 1
        self._split(slot)

    def _split(self, slot: int) -> bool:
        """The slot inventoried again with the mask a nibble longer; False when the slot's number and the
        mask make a whole UID already (a mask of 60 bits: one chip at most in each slot)."""
        self._round_errors += 1
        if self._bits + 4 >= UID_BITS:
            return False
        self._masks.append((self._mask | slot << self._bits, self._bits + 4))
        return True

    def scan(self) -> Scan:
        return Scan(frozenset(self._uids), self._complete and not self._masks, self._rounds, self._collisions,
                    self._rx_errors)
