"""The `pn5180` chip reader backend driven through the emulated PN5180 (sim/pn5180.py) at the SPI frame level, its GPIO on mock pins."""

from __future__ import annotations

import struct

import pytest
from gpiozero.pins.mock import MockFactory

from drivers.chip_debounce import FIRST_SCANS
from drivers.chip_reader import open_chip_reader
from drivers.errors import BackendError, DeviceError
from drivers.iso15693 import inventory_request
from drivers.pn5180 import Pn5180Reader
from drivers.spidev import SPI_IOC_MESSAGE_1, SPI_IOC_WR_MAX_SPEED_HZ, SPI_IOC_WR_MODE, SPI_TRANSFER, SpiDev
from drivers.readings import ChipsRead, DeviceFault, DeviceOffline, DeviceOnline, OfflineKind, Reading
from sim.pn5180 import Pn5180Emulator, stack_uids

ANTENNAS = ["spot1.ante", "spot1.trips", "spot1.play", "tray"]
MUX = (19, 20)
K = 2
SETTLE_S = 10.0  # longer than a pass (16 slots of 5 ms a round, a round a collision: 1.8 s for 80 chips)


class Clock:
    """A fake clock whose sleep advances it: the reader's waits (BUSY, slots) cost no real time."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


class Rig:
    def __init__(self, antennas: list[str] = ANTENNAS, miss_rate: float = 0.0, confirm: int = K,
                 garbled_collisions: float = 0.5, **options: object) -> None:
        self.factory = MockFactory()
        self.clock = Clock()
        self.readings: list[Reading] = []
        self.emulator = Pn5180Emulator(self.factory, antennas, mux_pins=MUX, miss_rate=miss_rate, seed=7,
                                       clock=self.clock, garbled_collisions=garbled_collisions)
        self.reader = Pn5180Reader(self.readings.append, antennas, mux_pins=MUX, pin_factory=self.factory,
                                   transfer=self.emulator.transfer, clock=self.clock, sleep=self.clock.sleep,
                                   thread=False, confirm=confirm, settle_s=SETTLE_S, **options)  # type: ignore[arg-type]

    def turns(self, n: int) -> None:
        for _ in range(n):
            self.reader.turn()

    def chips(self) -> dict[str, frozenset[str]]:
        """Each antenna's last reported chips."""
        return {r.antenna: r.uids for r in self.readings if isinstance(r, ChipsRead)}

    def of(self, kind: type) -> list[Reading]:
        return [r for r in self.readings if isinstance(r, kind)]


FIRST = FIRST_SCANS * K  # the scans an antenna's first reading is made over
ROUNDS_TO_WHOLE_UID = 16  # a chip's slot asked again a nibble longer each round, 0 to 60 bits of mask


def test_each_antenna_reads_its_own_chips_through_the_mux_and_they_become_stable() -> None:
    rig = Rig()
    ante, play, tray = stack_uids("E00401", 5), stack_uids("E00402", 3), stack_uids("E00403", 40)
    rig.emulator.place("spot1.ante", *ante)
    rig.emulator.place("spot1.play", *play)
    rig.emulator.place("tray", *tray)
    online = rig.reader.start()
    assert online == DeviceOnline("chips", "PN5180", "101112131415161718191A1B1C1D1E1F", "4.0", 1)
    rig.turns(FIRST - 1)
    assert rig.of(ChipsRead) == []  # the first reading is made over its first scans
    rig.turns(1)
    assert rig.chips() == {"spot1.ante": frozenset(ante), "spot1.trips": frozenset(),
                           "spot1.play": frozenset(play), "tray": frozenset(tray)}
    assert not any(r.stable for r in rig.of(ChipsRead))
    rig.clock.sleep(SETTLE_S)
    rig.turns(1)
    assert {r.antenna for r in rig.of(ChipsRead) if r.stable} == set(ANTENNAS)
    # each antenna's inventories were taken with its own channel on the mux lines
    assert [a for a, bits in rig.emulator.inventories() if bits == "0"][:4] == ANTENNAS


def test_a_chip_put_and_taken_is_in_and_out_after_k_scans() -> None:
    rig = Rig()
    rig.reader.start()
    rig.turns(FIRST)
    chip = "E0040100000000AA"
    rig.emulator.place("spot1.play", chip)
    rig.turns(K - 1)
    assert rig.chips()["spot1.play"] == frozenset()
    rig.turns(1)
    assert rig.chips()["spot1.play"] == {chip}
    rig.emulator.remove("spot1.play", chip)
    rig.turns(K)
    assert rig.chips()["spot1.play"] == frozenset()


def test_collisions_are_resolved_by_extending_the_mask() -> None:
    # 20 chips whose UIDs end alike: every one collides in the first round's slot 0x1, again in the
    # next (mask 1, slot 0x0), and is told apart only with the third nibble of the mask
    rig = Rig()
    chips = [f"E0040100000{n:02X}001" for n in range(20)]
    rig.emulator.place("tray", *chips)
    rig.reader.start()
    scan = rig.reader.scan("tray")
    assert scan.uids == frozenset(chips) and scan.complete
    assert scan.collisions >= 3
    assert [(a, bits) for a, bits in rig.emulator.inventories()][:3] == [("tray", "0"), ("tray", "4"), ("tray", "8")]
    assert rig.emulator.log.count(("error",)) == 0 and not [e for e in rig.emulator.log if e[0] == "error"]


def test_the_reader_sets_up_the_iso15693_field_for_every_antenna_and_switches_it_off() -> None:
    rig = Rig(antennas=["spot1.ante", "tray"])
    rig.reader.start()
    rig.emulator.log.clear()
    rig.turns(1)
    names = [entry[0] for entry in rig.emulator.log]
    assert names.count("LOAD_RF_CONFIG") == 2 and names.count("RF_ON") == 2 and names.count("RF_OFF") == 2
    for antenna in ("spot1.ante", "tray"):
        at = rig.emulator.log.index(("inventory", antenna, "0"))
        before, after = names[:at], names[at:]
        assert before[-1] == "SEND_DATA" and "RF_ON" in before and "RF_OFF" in after
    assert rig.emulator.rf_config == (0x0D, 0x8D) and not rig.emulator.rf
    assert not [e for e in rig.emulator.log if e[0] == "error"]  # no command refused


def test_tall_stacks_missed_now_and_then_are_held_by_the_debounce() -> None:
    rig = Rig(miss_rate=0.005, confirm=4)  # the emulated board's rule: the 20th chip missed one scan in ten
    column = stack_uids("E00405", 20)
    rig.emulator.place("spot1.ante", *column)
    rig.reader.start()
    rig.turns(FIRST_SCANS * 4 + 40)
    assert rig.emulator.misses > 0
    assert rig.chips()["spot1.ante"] == frozenset(column)
    assert [r for r in rig.of(ChipsRead) if r.antenna == "spot1.ante" and r.uids != frozenset(column)] == []


def test_an_answer_that_fails_its_crc_is_asked_again_under_a_longer_mask() -> None:
    rig = Rig()
    chip = "E0040100000000C1"
    rig.emulator.place("spot1.ante", chip)
    rig.reader.start()
    rig.emulator.garble(1)  # two chips at once, as likely as one garbled answer: its slot is asked again
    scan = rig.reader.scan("spot1.ante")
    assert scan.uids == {chip} and scan.complete and (scan.rounds, scan.rx_errors) == (2, 1)
    assert rig.emulator.inventories()[-2:] == [("spot1.ante", "0"), ("spot1.ante", "4")]
    # garbled under every mask to the whole UID: a slot of one chip at most, that chip missed this scan
    rig.emulator.garble(ROUNDS_TO_WHOLE_UID)
    scan = rig.reader.scan("spot1.ante")
    assert scan.uids == frozenset() and scan.complete and (scan.rounds, scan.rx_errors) == (16, 16)


# 20 chips of a stack: 0x01 to 0x12 (0x01 and 0x11, 0x02 and 0x12 share their slot of the first round), and
# 0x101, 0x201 sharing their low byte with 0x01 (the four in one slot, three again in the next round's)
PAIRED_STACK = [*stack_uids("E00405", 18), "E004050000000101", "E004050000000201"]


@pytest.mark.parametrize("garbled_collisions", [1.0, 0.5])
def test_a_stack_whose_pairs_answer_as_crc_errors_is_read_whole_at_every_scan(garbled_collisions: float) -> None:
    rig = Rig(confirm=4, garbled_collisions=garbled_collisions)
    rig.emulator.place("spot1.ante", *PAIRED_STACK)
    rig.reader.start()
    scans = [rig.reader.scan("spot1.ante") for _ in range(20)]
    assert all(scan.uids == frozenset(PAIRED_STACK) and scan.complete for scan in scans)
    garbled = sum(scan.rx_errors for scan in scans)  # seen as CRC errors, and read all the same
    assert garbled == 20 * 3 if garbled_collisions == 1.0 else garbled > 0
    rig.turns(FIRST_SCANS * 4 + 20)
    assert {r.uids for r in rig.of(ChipsRead) if r.antenna == "spot1.ante"} == {frozenset(PAIRED_STACK)}
    assert rig.of(DeviceFault) == []


def test_a_tray_of_hundreds_whose_collisions_all_garble_is_read_whole() -> None:
    # the noise rule (a round under an 8-bit mask all in error) is not met by a tray's real collisions
    rig = Rig(antennas=["tray"], garbled_collisions=1.0)
    tray = [f"E00406{n * 0x9E3779B1 % (1 << 40):010X}" for n in range(1, 401)]
    rig.emulator.place("tray", *tray)
    rig.reader.start()
    scan = rig.reader.scan("tray")
    assert scan.uids == frozenset(tray) and scan.complete and scan.collisions == 0 and scan.rx_errors > 16


def test_an_antenna_hearing_only_crc_errors_is_a_fault_within_18_rounds_and_the_others_are_read() -> None:
    # a receiver hearing only noise: each garbled slot is asked again a nibble longer; under an 8-bit mask a
    # round all garbled with nothing read is noise, not chips: the scan is given up, not a loop of 256 rounds
    rig = Rig()
    tray = stack_uids("E00407", 8)
    rig.emulator.place("tray", *tray)
    rig.emulator.place("spot1.ante", "E0040700000000D1")
    rig.reader.start()
    rig.turns(FIRST)
    rig.emulator.storm("tray", garbled=True)
    scan = rig.reader.scan("tray")
    assert not scan.complete and (scan.rounds, scan.rx_errors) == (18, 18 * 16)
    started = rig.clock.now
    rig.turns(3)
    assert rig.clock.now - started < 3 * 2.0  # three passes of four antennas, 18 rounds of 82 ms the tray's
    faults = rig.of(DeviceFault)
    assert [f.reason for f in faults] == ["tray: collisions not resolved in 18 inventory rounds"]
    assert rig.chips()["tray"] == frozenset(tray) and rig.reader.online is not None
    rig.emulator.place("spot1.ante", "E0040700000000D2")
    rig.turns(K)
    assert rig.chips()["spot1.ante"] == {"E0040700000000D1", "E0040700000000D2"}
    for antenna in ANTENNAS:  # every antenna hears only noise: a fault for each, the reader still online
        rig.emulator.storm(antenna, garbled=True)
    rig.turns(2)
    assert len(rig.of(DeviceFault)) == 4 and rig.of(DeviceOffline) == [] and rig.reader.stats.errors == 0
    for antenna in ANTENNAS:
        rig.emulator.storm(antenna, on=False)
    rig.turns(K)
    assert rig.chips()["tray"] == frozenset(tray) and len(rig.of(DeviceFault)) == 4


def test_another_readers_field_on_an_antenna_is_a_fault_naming_it_not_the_reader_offline() -> None:
    # RF_ON keeps collision avoidance: with a field there already the PN5180 keeps its own off; that was
    # taken as the front end lost (RF on never signalled): offline, every antenna's reads stopped, RST pulsed
    rig = Rig()
    chip, other = "E0040800000000A1", "E0040800000000B1"
    rig.emulator.place("spot1.play", chip)
    rig.emulator.place("spot1.ante", other)
    rig.reader.start()
    rig.turns(FIRST)
    resets = rig.reader.stats.resets
    rig.emulator.neighbour("spot1.play")
    rig.turns(K + 1)
    assert rig.of(DeviceOffline) == [] and rig.reader.stats.resets == resets
    assert [f.reason for f in rig.of(DeviceFault)] == [
        "spot1.play: another reader's field is on this antenna: the PN5180 kept its own off"]
    assert rig.chips()["spot1.play"] == {chip} and rig.reader.stats.fields == K + 1
    rig.emulator.place("spot1.ante", "E0040800000000B2")  # the other antennas go on being read
    rig.turns(K)
    assert rig.chips()["spot1.ante"] == {other, "E0040800000000B2"}
    rig.emulator.neighbour("spot1.play", on=False)
    rig.emulator.remove("spot1.play", chip)
    rig.turns(K)
    assert rig.chips()["spot1.play"] == frozenset() and len(rig.of(DeviceFault)) == 1


def test_a_chip_missed_by_crc_errors_is_held_by_the_debounce_under_k_scans() -> None:
    rig = Rig()
    chip = "E0040100000000C1"
    rig.emulator.place("spot1.ante", chip)
    rig.reader.start()
    rig.turns(FIRST)
    before = len(rig.readings)
    rig.emulator.garble(ROUNDS_TO_WHOLE_UID * (K - 1))  # missed fewer than K scans running: it stays in
    rig.turns(K + 1)
    assert rig.reader.stats.rx_errors == ROUNDS_TO_WHOLE_UID * (K - 1)
    assert [r for r in rig.readings[before:] if isinstance(r, ChipsRead) and not r.stable] == []
    rig.emulator.garble(ROUNDS_TO_WHOLE_UID * K)  # K running: it is out, then back in K scans later
    rig.turns(K)
    assert rig.chips()["spot1.ante"] == frozenset()
    rig.turns(K)
    assert rig.chips()["spot1.ante"] == {chip}


def test_a_collision_storm_is_one_fault_naming_the_antenna_and_no_partial_reading() -> None:
    rig = Rig(max_rounds=20)
    tray = stack_uids("E00406", 8)
    rig.emulator.place("tray", *tray)
    rig.emulator.place("spot1.ante", "E0040100000000D1")
    rig.reader.start()
    rig.turns(FIRST)
    rig.emulator.storm("tray")
    rig.turns(3)
    faults = rig.of(DeviceFault)
    assert len(faults) == 1 and faults[0].reason.startswith("tray: collisions not resolved")
    assert rig.chips()["tray"] == frozenset(tray)  # the tray is not said emptied by a scan that read part of it
    assert rig.reader.stats.incomplete == 3
    rig.emulator.place("spot1.ante", "E0040100000000D2")  # the other antennas go on being read
    rig.turns(K)
    assert rig.chips()["spot1.ante"] == {"E0040100000000D1", "E0040100000000D2"}
    rig.emulator.storm("tray", on=False)
    rig.turns(K)
    assert rig.chips()["tray"] == frozenset(tray) and len(rig.of(DeviceFault)) == 1
    rig.emulator.storm("tray")
    rig.turns(1)
    assert len(rig.of(DeviceFault)) == 2  # over, then back: said again


def test_busy_stuck_is_offline_then_a_reset_brings_it_back_and_the_readings_are_restated() -> None:
    rig = Rig(retry_s=1.0)
    chip = "E0040100000000E1"
    rig.emulator.place("spot1.play", chip)
    rig.reader.start()
    rig.turns(FIRST + 1)
    rig.emulator.stick_busy()
    rig.turns(1)
    offline = rig.of(DeviceOffline)
    assert offline == [DeviceOffline("chips", offline[0].reason, OfflineKind.DEVICE_OFFLINE)]
    assert "BUSY" in offline[0].reason
    resets = rig.reader.stats.resets
    rig.turns(3)  # no second offline; no reset tried before retry_s has passed
    assert len(rig.of(DeviceOffline)) == 1 and rig.reader.stats.resets == resets
    rig.clock.sleep(1.0)
    rig.turns(1)  # tried: still hung
    assert rig.reader.stats.resets == resets + 1 and rig.reader.online is None
    rig.emulator.stick_busy(False)
    boots = rig.emulator.boots
    rig.clock.sleep(1.0)
    before = len(rig.readings)
    rig.turns(1)
    assert rig.emulator.boots == boots + 1  # the reader pulsed RST
    assert rig.readings[before:] == [DeviceOnline("chips", "PN5180", "101112131415161718191A1B1C1D1E1F", "4.0", 2)]
    rig.turns(K)
    restated = [r for r in rig.readings[before:] if isinstance(r, ChipsRead) and r.antenna == "spot1.play"]
    assert restated and restated[0].uids == {chip}


def test_no_front_end_on_the_bus_is_offline_at_start() -> None:
    rig = Rig()
    rig.emulator.eeprom[0x10:0x14] = b"\xff" * 4
    assert rig.reader.start() is None
    assert [type(r) for r in rig.readings] == [DeviceOffline]
    assert "no PN5180" in rig.readings[0].reason  # type: ignore[union-attr]


def test_a_failing_handler_does_not_stop_the_reader() -> None:
    rig = Rig()
    calls = []

    def failing(reading: Reading) -> None:
        calls.append(reading)
        if isinstance(reading, ChipsRead):
            raise RuntimeError("handler bug")

    rig.reader._on_reading = failing
    rig.reader.start()
    rig.turns(FIRST + 2)
    assert rig.reader.stats.errors >= 1 and rig.reader.stats.passes == FIRST + 2


def test_the_registry_opens_it_and_refuses_bad_options_by_name() -> None:
    factory = MockFactory()
    emulator = Pn5180Emulator(factory, ["tray"])
    reader = open_chip_reader("pn5180", lambda r: None, antennas=["tray"], pin_factory=factory,
                              transfer=emulator.transfer, thread=False)
    assert isinstance(reader, Pn5180Reader) and not reader.driven
    reader.close()
    with pytest.raises(BackendError) as refused:
        open_chip_reader("pn5180", lambda r: None, antennas=["tray", "spot1.ante", "spot1.play"], mux_pins=[19],
                         pin_factory=MockFactory(), transfer=emulator.transfer)
    assert refused.value.option == "mux_pins" and "at most 2 antennas" in str(refused.value)
    with pytest.raises(BackendError) as refused:
        open_chip_reader("pn5180", lambda r: None, antennas=["table"], pin_factory=MockFactory(),
                         transfer=emulator.transfer)
    assert refused.value.option == "antennas"
    with pytest.raises(BackendError) as refused:
        open_chip_reader("pn5180", lambda r: None, antennas=["tray"], spi="/dev/spidev-none.0",
                         pin_factory=MockFactory())
    assert refused.value.option == "spi" and "/dev/spidev-none.0" in str(refused.value)


def test_emulator_refuses_what_a_pn5180_would_not_do() -> None:
    rig = Rig(antennas=["tray"])
    rig.emulator.place("tray", "E0040100000000F1")
    rig.reader.start()
    front = rig.reader.front_end
    front.send_data(inventory_request(0, 0))  # field off, no configuration, not set to transceive
    assert front.read_register(0x02) & (1 << 17)
    assert ("error", "SEND_DATA with the field off, another RF configuration, or not set to transceive") in rig.emulator.log
    with pytest.raises(DeviceError):
        rig.reader.scan("spot1.ante")


def test_spidev_message_layout_is_the_kernels() -> None:
    # linux/spi/spidev.h: struct spi_ioc_transfer is 32 bytes; SPI_IOC_MESSAGE(1) = _IOW('k', 0, char[32])
    assert SPI_TRANSFER.size == 32
    assert SPI_IOC_MESSAGE_1 == 0x40206B00
    assert SPI_IOC_WR_MODE == 0x40016B01 and SPI_IOC_WR_MAX_SPEED_HZ == 0x40046B04
    assert struct.unpack_from("<I", SPI_TRANSFER.pack(1, 2, 3, 4, 0, 8, 0, 0, 0, 0, 0), 16) == (3,)


def test_spidev_refuses_a_file_that_is_not_an_spi_device(tmp_path: object) -> None:
    with pytest.raises(BackendError) as refused:
        SpiDev("/dev/null")
    assert refused.value.option == "spi" and "not an SPI device" in str(refused.value)


def test_on_its_own_thread_it_reads_until_closed() -> None:
    import threading

    factory = MockFactory()
    emulator = Pn5180Emulator(factory, ["tray"], miss_rate=0.0)
    emulator.place("tray", "E004010000000A01")
    arrived = threading.Event()
    readings: list[Reading] = []

    def post(reading: Reading) -> None:
        readings.append(reading)
        if isinstance(reading, ChipsRead):
            arrived.set()

    reader = Pn5180Reader(post, ["tray"], pin_factory=factory, transfer=emulator.transfer, period_s=0.001,
                          slot_s=0.0, confirm=1)
    try:
        assert isinstance(reader.start(), DeviceOnline)
        assert arrived.wait(10.0)
    finally:
        reader.close()
    assert reader._thread is None and not emulator.rf  # joined, the field left off
    assert [r.uids for r in readings if isinstance(r, ChipsRead)][0] == {"E004010000000A01"}


def test_the_first_request_waits_for_the_chips_to_power_up() -> None:
    # ISO/IEC 15693-3: a chip is ready within 1 ms of the field coming on; asked sooner, it says nothing
    rig = Rig()
    chip = "E0040100000000B1"  # slot 1 of the first round
    rig.emulator.place("spot1.trips", chip)
    rig.reader.start()
    rig.turns(FIRST)
    assert rig.chips()["spot1.trips"] == {chip}


@pytest.mark.parametrize("mask_bits", [0, 60])
def test_slot_0_waits_for_the_request_to_go_through_the_air_before_reading_the_answer(mask_bits: int) -> None:
    # slot 0 answers after the request itself (1.6 ms with no mask, 4 ms with 60 bits), t1 and the answer
    # (3.9 ms): 5 ms from SEND_DATA is too soon, and the chip answering in slot 0 was missed every scan
    rig = Rig()
    chip = "E004010000000000"  # slot 0 of every round
    rig.emulator.place("spot1.ante", chip)
    if mask_bits:  # a twin differing in the top nibble alone: resolved only by a 60-bit mask
        rig.emulator.place("spot1.ante", "1004010000000000")
    rig.reader.start()
    rig.turns(FIRST)
    assert chip in rig.chips()["spot1.ante"]
    assert ("spot1.ante", str(mask_bits)) in rig.emulator.inventories()


@pytest.mark.parametrize("miso", [0xFF, 0x00])
def test_a_board_unplugged_mid_shift_is_offline_not_a_collision_storm_and_comes_back(miso: int) -> None:
    # unplugged or unpowered, BUSY is pulled low and MISO floats: all ones would read as every slot in collision
    rig = Rig(retry_s=1.0)
    chip = "E0040100000000A1"
    rig.emulator.place("spot1.ante", chip)
    rig.reader.start()
    rig.turns(FIRST)
    started = rig.clock.now
    rig.emulator.unplug(miso)
    rig.turns(3)
    assert rig.of(DeviceFault) == [] and rig.reader.stats.incomplete == 0
    assert [r.kind for r in rig.readings if isinstance(r, DeviceOffline)] == [OfflineKind.DEVICE_OFFLINE]
    assert rig.clock.now - started < 1.0  # found at once, not after 256 rounds of 16 slots an antenna
    assert rig.chips()["spot1.ante"] == {chip}  # nothing said taken while the reader is away
    rig.emulator.unplug(None)
    rig.clock.sleep(1.0)
    rig.turns(1 + FIRST)
    assert len(rig.of(DeviceOnline)) == 2 and rig.chips()["spot1.ante"] == {chip}


def test_an_spi_transfer_that_fails_is_the_reader_lost_not_a_logged_error_every_pass() -> None:
    rig = Rig()
    rig.reader.start()
    rig.turns(1)
    emulator_transfer = rig.emulator.transfer

    def failing(frame: bytes) -> bytes:
        raise OSError(5, "Input/output error")

    rig.reader.front_end._transfer = failing
    rig.turns(3)
    offline = [r for r in rig.readings if isinstance(r, DeviceOffline)]
    assert len(offline) == 1 and "SPI transfer failed: Input/output error" in offline[0].reason
    assert rig.reader.stats.errors == 0
    rig.reader.front_end._transfer = emulator_transfer
    rig.clock.sleep(1.0)
    rig.turns(1)
    assert rig.reader.online is not None


def test_a_front_end_that_flags_an_error_is_offline_not_an_empty_table() -> None:
    # SEND_DATA refused (GENERAL_ERROR_IRQ): nothing went out, so the silence of every slot says nothing of the
    # chips; read as an empty circle, K scans of it would tell the controller every chip was taken away
    rig = Rig(retry_s=1.0)
    chip = "E004010000000091"
    rig.emulator.place("spot1.play", chip)
    rig.reader.start()
    rig.turns(FIRST)
    rig.emulator.refuse_transmit()
    rig.turns(K + 1)
    assert rig.chips()["spot1.play"] == {chip}
    offline = [r for r in rig.readings if isinstance(r, DeviceOffline)]
    assert len(offline) == 1 and "GENERAL_ERROR" in offline[0].reason
    rig.emulator.refuse_transmit(False)
    rig.clock.sleep(1.0)
    rig.turns(1 + FIRST)
    assert len(rig.of(DeviceOnline)) == 2 and rig.chips()["spot1.play"] == {chip}


def test_the_inventory_rounds_do_as_their_examples_say() -> None:
    import doctest

    import drivers.iso15693
    import drivers.pn5180
    for module in (drivers.iso15693, drivers.pn5180):
        result = doctest.testmod(module)
        assert result.failed == 0 and result.attempted > 0
