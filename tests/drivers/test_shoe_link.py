"""The host side of the shoe link: handshake, acks, retransmission, gaps, silence, resume; over sockets and a pty."""

from __future__ import annotations

import queue
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.card_reader import CardRead, Misread, ResumePoint, open_card_reader
from drivers.errors import UnsupportedDevice
from drivers.readings import DeviceFault, DeviceOffline, DeviceOnline, FaultKind, OfflineKind, Sensor
from drivers.shoe_sensors import SensorChange
from drivers.shoe_protocol import Ack, CardMsg, Decoder, Hello, MsgType, Source, encode_message
from drivers.shoe_link import ONLINE, REFUSED, HostSession, ShoeLink
from sim.shoe import ShoeFirmware, SimShoeClient, SimShoeServer


GOOD_FRAMES = [
    encode_message(Hello(1, (1, 0, 0), 7, "CR-1", "S1"), 0),
    encode_message(CardMsg(Source.SHOE, "As"), 1),
    encode_message(CardMsg(Source.DISCARD, "Kd"), 2),
    encode_message(CardMsg(Source.SHOE, "2c"), 4),
    encode_message(Hello(1, (3, 0, 0), 8, "CR-2", "S2"), 0),
]


class Wire:
    """A host session and a shoe's firmware joined back to back, on a fake clock."""

    def __init__(self, host: HostSession, shoe: ShoeFirmware) -> None:
        self.host, self.shoe, self.now = host, shoe, 0.0
        self.readings: list[Any] = []
        self.to_shoe = bytearray()
        host.connect(self.now)

    def run(self, seconds: float = 1.0, dt: float = 0.01, cut: bool = False) -> list[Any]:
        """Advance the clock; `cut`: nothing passes either way. Returns the new readings."""
        new: list[Any] = []
        for _ in range(round(seconds / dt)):
            self.now += dt
            self.host.poll(self.now)
            self.shoe.poll(self.now)
            a, b = self.host.take_output(), self.shoe.take_output()
            if not cut:
                if a:
                    self.shoe.receive(a, self.now)
                if b:
                    self.host.receive(b, self.now)
            new += self.host.take_readings()
        self.readings += new
        return new


def cards(readings: list[Any]) -> list[str]:
    return [r.card for r in readings if isinstance(r, CardRead)]


def faults(readings: list[Any]) -> list[str]:
    return [r.reason for r in readings if isinstance(r, DeviceFault)]


def connected(seed: int = 1, **shoe: Any) -> Wire:
    wire = Wire(HostSession(), ShoeFirmware(seed=seed, boot=42, **shoe))
    got = wire.run(0.2)
    assert got == [DeviceOnline("shoe", "CR-SIM", "SIM0001", "1.0.0", 42)]
    assert wire.host.state == ONLINE
    return wire


def test_handshake_then_cards_in_order() -> None:
    wire = connected()
    dealt = [wire.shoe.draw()[0] for _ in range(5)]
    wire.shoe.discard(dealt[0])
    got = wire.run(0.5)
    assert got == [CardRead(c, "shoe", i + 1) for i, c in enumerate(dealt)] + [CardRead(dealt[0], "discard", 6)]
    assert wire.shoe.pending == 0 and wire.host.stats.retransmits == 0


def test_garbled_frame_is_retransmitted_without_a_fault() -> None:
    wire = connected()
    wire.shoe.inject("garble", wire.now)
    card, _ = wire.shoe.draw()
    got = wire.run(1.0)
    assert cards(got) == [card] and faults(got) == []
    assert wire.host.stats.crc_errors >= 1


def test_repeated_frame_is_taken_once() -> None:
    wire = connected()
    wire.shoe.inject("repeat", wire.now)
    card, _ = wire.shoe.draw()
    got = wire.run(0.5)
    assert cards(got) == [card] and wire.host.stats.repeats == 1


def test_dropped_frame_is_a_sequence_gap() -> None:
    wire = connected()
    wire.shoe.inject("drop", wire.now)
    lost, _ = wire.shoe.draw()
    card, _ = wire.shoe.draw()
    got = wire.run(0.5)
    assert faults(got) == ["sequence gap: expected 1, got 2"]
    assert got[-1] == CardRead(card, "shoe", 2) and lost not in cards(got)


def test_dropped_last_frame_is_seen_by_the_heartbeat() -> None:
    wire = connected()
    wire.shoe.inject("drop", wire.now)
    wire.shoe.draw()
    got = wire.run(1.0)
    assert faults(got) == ["sequence gap: last frame kept 0, device is at 1"]
    assert wire.run(2.0) == []  # reported once


def test_misread_duplicate_and_sensor_frames() -> None:
    wire = connected()
    wire.shoe.inject("misread", wire.now)
    wire.shoe.draw()
    first, _ = wire.shoe.draw()
    wire.shoe.inject("duplicate", wire.now)
    again, _ = wire.shoe.draw()
    wire.shoe.sensor("lid_open", True)
    got = wire.run(0.5)
    assert got == [Misread("shoe", 1), CardRead(first, "shoe", 2), CardRead(first, "shoe", 3),
                   SensorChange(Sensor.LID_OPEN, True, 4)]
    assert again == first


def test_silence_goes_offline_then_back_online_without_loss() -> None:
    wire = connected()
    wire.shoe.inject("silent", wire.now, 3.0)
    card, _ = wire.shoe.draw()
    got = wire.run(2.5)
    assert [type(r) for r in got] == [DeviceOffline] and "silent" in got[0].reason
    got = wire.run(2.0)
    assert got == [DeviceOnline("shoe", "CR-SIM", "SIM0001", "1.0.0", 42), CardRead(card, "shoe", 1)]


def test_next_turn_names_the_sessions_own_timers_alone() -> None:
    """A driven link asks for its next turn when the session has a timer due (the shoe's silence, our CONTINUE's
    retransmission), not at the link's 20 ms pace: turned only then, the silence is still seen on time."""
    host = HostSession(silence_s=2.0, retry_s=0.2)
    assert host.next_turn(0.0) is None  # connecting: the link's pace
    wire = Wire(host, ShoeFirmware(seed=1, boot=42))
    wire.run(0.2)
    assert host.state == ONLINE
    assert host.next_turn(wire.now) == pytest.approx(host._last_heard + 2.0 - wire.now)
    host._in_flight = (9, b"continue")  # a CONTINUE not yet acknowledged: its retransmission is due first
    host._next_send = wire.now + 0.2
    assert host.next_turn(wire.now) == pytest.approx(0.2)
    host._in_flight = None
    host.receive(encode_message(CardMsg(Source.SHOE, "As"), 1)[:4], wire.now)  # part of a frame: the link's pace
    assert host.next_turn(wire.now) is None
    quiet = connected()
    quiet.shoe.inject("silent", quiet.now, 5.0)
    due = quiet.host.next_turn(quiet.now)
    assert due is not None and 1.5 < due <= 2.0
    quiet.now += due
    quiet.host.poll(quiet.now)  # the one turn it asked for
    assert [type(r) for r in quiet.host.take_readings()] == [DeviceOffline]


def test_unsupported_firmware_is_refused() -> None:
    wire = Wire(HostSession(), ShoeFirmware(seed=1, firmware=(2, 0, 0)))
    got = wire.run(0.3)
    assert wire.host.state == REFUSED
    assert faults(got) == [wire.host.refusal] and "unsupported CR-SIM firmware 2.0.0" in faults(got)[0]
    wire.shoe.held = False
    wire.shoe.draw()
    assert wire.run(0.5) == []  # nothing more is taken from a refused device


def test_host_restart_takes_nothing_twice_and_loses_nothing() -> None:
    wire = connected()
    a, _ = wire.shoe.draw()
    wire.run(0.2)
    b, _ = wire.shoe.draw()
    # The host kept b (journaled it) but died before its ACK left: the shoe still has b in flight.
    wire.run(0.005, cut=True)
    wire.shoe.poll(wire.now)
    wire.shoe.take_output()
    frame_b_seq = wire.shoe.seq
    assert wire.shoe.pending == 1
    c, _ = wire.shoe.draw()
    restarted = Wire(HostSession(resume=ResumePoint(42, frame_b_seq)), wire.shoe)
    restarted.now = wire.now
    got = restarted.run(1.0)
    assert got == [DeviceOnline("shoe", "CR-SIM", "SIM0001", "1.0.0", 42), CardRead(c, "shoe", 3)]
    assert cards(wire.readings) == [a]


def test_host_restart_without_journal_of_the_last_frame_gets_it_again() -> None:
    wire = connected()
    wire.shoe.draw()
    wire.run(0.2)
    b, _ = wire.shoe.draw()
    restarted = Wire(HostSession(resume=ResumePoint(42, 1)), wire.shoe)
    restarted.now = wire.now
    got = restarted.run(1.0)
    assert cards(got) == [b] and faults(got) == []


def test_device_reboot_starts_counting_afresh() -> None:
    wire = Wire(HostSession(resume=ResumePoint(41, 200)), ShoeFirmware(seed=3, boot=42))
    wire.run(0.2)
    card, _ = wire.shoe.draw()
    got = wire.run(0.5)
    assert got == [CardRead(card, "shoe", 1)] and wire.host.resume_point == ResumePoint(42, 1)


def test_stale_and_malformed_frames() -> None:
    host = HostSession()
    host.connect(0.0)
    # Before HELLO a numbered frame is ignored, not acknowledged.
    host.receive(encode_message(CardMsg(Source.SHOE, "As"), 9), 0.1)
    assert host.take_readings() == [] and host.stats.unexpected == 1
    host.take_output()
    host.receive(encode_message(Hello(1, (1, 4, 0), 5, "CR-1", "X1"), 0), 0.2)
    assert host.take_readings() == [DeviceOnline("shoe", "CR-1", "X1", "1.4.0", 5)]
    host.take_output()
    # A good CRC around a payload that is not a card: acknowledged (so it is not resent) and a fault.
    from drivers.shoe_protocol import Frame
    host.receive(Frame(1, MsgType.CARD, b"\x00Zz").encode(), 0.3)
    assert faults(host.take_readings())[0].startswith("unreadable frame 1: not a card")
    sent = Decoder().feed(host.take_output())
    assert [(f.kind, f.payload) for f in sent] == [(MsgType.ACK, Ack(1).encode())]


# --- the threaded link on real ports -----------------------------------------------------------


@pytest.fixture(params=["tcp", "pty"])
def shoe(request: pytest.FixtureRequest) -> Any:
    server = SimShoeServer(ShoeFirmware(seed=5, boot=9, heartbeat_s=0.1), link=request.param).start()
    yield server
    server.close()


def next_of(inbox: queue.Queue[Any], kind: type) -> Any:
    while True:
        reading = inbox.get(timeout=5)
        if isinstance(reading, kind):
            return reading


def test_link_reads_the_sim_shoe(shoe: SimShoeServer) -> None:
    inbox: queue.Queue[Any] = queue.Queue()
    link = open_card_reader("serial", inbox.put, url=shoe.port_url)
    try:
        assert link.start(timeout=5) == DeviceOnline("shoe", "CR-SIM", "SIM0001", "1.0.0", 9)
        with SimShoeClient(shoe.control_address) as dealer:
            drawn = [dealer.draw() for _ in range(3)]
            dealer.fault("garble")
            drawn.append(dealer.draw())
        got = [next_of(inbox, CardRead) for _ in drawn]
        assert got == [CardRead(c, "shoe", i + 1) for i, c in enumerate(drawn)]
    finally:
        link.close()


def test_link_survives_a_failing_callback_and_a_restarted_host() -> None:
    server = SimShoeServer(ShoeFirmware(seed=5, boot=9, heartbeat_s=0.1), link="tcp").start()
    inbox: queue.Queue[Any] = queue.Queue()

    def flaky(reading: Any) -> None:
        if isinstance(reading, CardRead) and reading.seq == 1:
            raise RuntimeError("inbox full")
        inbox.put(reading)

    link = ShoeLink(flaky, url=server.port_url)
    try:
        link.start(timeout=5)
        with SimShoeClient(server.control_address) as dealer:
            dealer.draw()
            second = dealer.draw()
            assert next_of(inbox, CardRead) == CardRead(second, "shoe", 2)
            assert link.stats.callback_errors == 1
            resume = link.session.resume_point
            link.close()
            third = dealer.draw()
            again = ShoeLink(inbox.put, url=server.port_url, resume=resume)
            try:
                again.start(timeout=5)
                assert next_of(inbox, CardRead) == CardRead(third, "shoe", 3)
            finally:
                again.close()
    finally:
        link.close()
        server.close()


def test_link_refuses_unsupported_firmware() -> None:
    server = SimShoeServer(ShoeFirmware(seed=1, firmware=(2, 1, 0)), link="tcp").start()
    inbox: queue.Queue[Any] = queue.Queue()
    try:
        link = ShoeLink(inbox.put, url=server.port_url)
        with pytest.raises(UnsupportedDevice, match="firmware 2.1.0"):
            link.start(timeout=5)
        assert isinstance(inbox.get(timeout=1), DeviceFault)
    finally:
        server.close()


def test_link_without_a_device_reports_offline() -> None:
    inbox: queue.Queue[Any] = queue.Queue()
    link = ShoeLink(inbox.put, url="socket://127.0.0.1:1", silence_s=0.3, reconnect_s=0.05)
    try:
        assert link.start(timeout=0.1) is None
        assert isinstance(inbox.get(timeout=5), DeviceOffline)
    finally:
        link.close()


def test_host_restart_after_ack_before_journal_gets_the_card_replayed() -> None:
    wire = connected()
    a, _ = wire.shoe.draw()
    b, _ = wire.shoe.draw()
    wire.run(0.3)
    assert cards(wire.readings) == [a, b] and wire.shoe.acked == 2
    # The host acknowledged b but died before journaling it: it resumes after a (seq 1).
    restarted = Wire(HostSession(resume=ResumePoint(42, 1)), wire.shoe)
    restarted.now = wire.now
    c, _ = wire.shoe.draw()
    got = restarted.run(1.0)
    assert cards(got) == [b, c] and faults(got) == []
    assert [r.seq for r in got if isinstance(r, CardRead)] == [2, 3]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.one_of(st.binary(max_size=30), st.sampled_from(GOOD_FRAMES)), max_size=30))
def test_session_never_raises_on_any_stream(chunks: list[bytes]) -> None:
    host = HostSession()
    host.connect(0.0)
    now = 0.0
    for chunk in chunks:
        now += 0.05
        host.receive(chunk, now)
        host.poll(now)
        host.take_output()
        for reading in host.take_readings():
            assert isinstance(reading, (CardRead, Misread, SensorChange, DeviceOnline, DeviceOffline, DeviceFault))


def test_link_on_loop_hears_only_itself_and_goes_offline() -> None:
    inbox: queue.Queue[Any] = queue.Queue()
    link = ShoeLink(inbox.put, url="loop://", silence_s=0.3)
    try:
        assert link.start(timeout=0.05) is None
        offline = inbox.get(timeout=5)
        assert isinstance(offline, DeviceOffline) and offline.reason.startswith("no HELLO")
        assert link.stats.unexpected >= 1  # its own IDENTIFY came back and was ignored
    finally:
        link.close()


def test_a_device_that_chatters_but_never_says_hello_is_offline() -> None:
    from drivers.shoe_protocol import Heartbeat
    host = HostSession(silence_s=2.0)
    host.connect(0.0)
    readings: list[Any] = []
    for step in range(1, 30):
        host.receive(encode_message(Heartbeat(), 0), step * 0.1)
        host.poll(step * 0.1)
        readings += host.take_readings()
    assert len(readings) == 1 and isinstance(readings[0], DeviceOffline)
    assert readings[0].reason == "no HELLO for 2.0 s"


def test_noisy_line_both_ways_loses_nothing_and_raises_no_false_fault() -> None:
    import random
    rng = random.Random(1234)

    def noisy(data: bytes) -> bytes:
        if data and rng.random() < 0.2:
            damaged = bytearray(data)
            damaged[rng.randrange(len(damaged))] ^= 1 << rng.randrange(8)
            return bytes(damaged)
        return data

    host, shoe = HostSession(silence_s=5.0), ShoeFirmware(seed=99, boot=5)  # 20% noise: ~3 heartbeats lost in a row now and then
    host.connect(0.0)
    now, dealt, got = 0.0, [], []
    for step in range(6000):
        now += 0.01
        if step % 40 == 0 and len(dealt) < 52:
            if rng.random() < 0.2:
                shoe.inject(rng.choice(["garble", "repeat"]), now)
            dealt.append(shoe.draw()[0])
        host.poll(now)
        shoe.poll(now)
        a, b = host.take_output(), shoe.take_output()
        if a:
            shoe.receive(noisy(a), now)
        if b:
            host.receive(noisy(b), now)
        got += host.take_readings()
    assert cards(got) == dealt and len(dealt) == 52
    assert faults(got) == [] and not any(isinstance(r, DeviceOffline) for r in got)
    assert host.stats.crc_errors > 0 and host.stats.repeats > 0


# -- driven by the caller's loop (how `croupier run` serves the shoe) ----------------------------


def _pump_until(link: ShoeLink, inbox: queue.Queue[Any], kind: type, seconds: float = 5.0) -> Any:
    """Turn a driven link the way the controller's loop does (select on its descriptor, then pump)
    until a reading of `kind` arrives."""
    import select
    import time
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        fd = link.fileno()
        due = 0.02
        if fd is not None:
            select.select([fd], [], [], due)
        link.pump()
        while not inbox.empty():
            reading = inbox.get_nowait()
            if isinstance(reading, kind):
                return reading
    raise TimeoutError(f"no {kind.__name__} from the driven link")


def test_driven_link_reads_the_sim_shoe_with_no_thread_of_its_own(shoe: SimShoeServer) -> None:
    import threading
    before = threading.active_count()
    inbox: queue.Queue[Any] = queue.Queue()
    link = ShoeLink(inbox.put, url=shoe.port_url)
    try:
        assert link.start(timeout=5, driven=True) == DeviceOnline("shoe", "CR-SIM", "SIM0001", "1.0.0", 9)
        assert link.driven and isinstance(link.fileno(), int)
        assert threading.active_count() == before  # no reader thread: the caller turns the link
        with SimShoeClient(shoe.control_address) as dealer:
            drawn = [dealer.draw() for _ in range(3)]
            got = [_pump_until(link, inbox, CardRead) for _ in drawn]
        assert got == [CardRead(c, "shoe", i + 1) for i, c in enumerate(drawn)]
        assert link.stats.accepted == 3
    finally:
        link.close()


def test_driven_link_reopens_a_lost_port_and_goes_on() -> None:
    server = SimShoeServer(ShoeFirmware(seed=5, boot=9, heartbeat_s=0.1), link="tcp").start()
    port = int(server.port_url.rsplit(":", 1)[1])
    inbox: queue.Queue[Any] = queue.Queue()
    link = ShoeLink(inbox.put, url=server.port_url, reconnect_s=0.05)
    try:
        link.start(timeout=5, driven=True)
        with SimShoeClient(server.control_address) as dealer:
            first = dealer.draw()
        assert _pump_until(link, inbox, CardRead) == CardRead(first, "shoe", 1)
        server.close()  # the line is cut under the link; a shoe comes back on the same port
        assert isinstance(_pump_until(link, inbox, DeviceOffline), DeviceOffline)
        server = SimShoeServer(ShoeFirmware(seed=6, boot=10, heartbeat_s=0.1), link="tcp",
                               tcp=("127.0.0.1", port)).start()
        assert _pump_until(link, inbox, DeviceOnline).boot == 10
        with SimShoeClient(server.control_address) as dealer:
            second = dealer.draw()
        assert _pump_until(link, inbox, CardRead) == CardRead(second, "shoe", 1)
        assert link.stats.reconnects >= 1 and link.fileno() is not None
    finally:
        link.close()
        server.close()


def test_driven_link_on_a_port_without_a_descriptor_gets_its_thread() -> None:
    inbox: queue.Queue[Any] = queue.Queue()
    link = ShoeLink(inbox.put, url="loop://", silence_s=0.3)
    try:
        assert link.start(timeout=0.05, driven=True) is None
        assert not link.driven and link.fileno() is None  # loop:// has no descriptor: the thread turns it
        offline = inbox.get(timeout=5)  # the thread alone hears the silence
        assert isinstance(offline, DeviceOffline)
    finally:
        link.close()


def test_driven_link_refuses_unsupported_firmware() -> None:
    server = SimShoeServer(ShoeFirmware(seed=1, firmware=(2, 1, 0)), link="tcp").start()
    inbox: queue.Queue[Any] = queue.Queue()
    try:
        link = ShoeLink(inbox.put, url=server.port_url)
        with pytest.raises(UnsupportedDevice, match="firmware 2.1.0"):
            link.start(timeout=5, driven=True)
    finally:
        server.close()


def test_driven_link_without_a_device_waits_and_reports_offline() -> None:
    inbox: queue.Queue[Any] = queue.Queue()
    link = ShoeLink(inbox.put, url="socket://127.0.0.1:1", silence_s=0.3, reconnect_s=0.05)
    turns = []
    pump = link.pump
    link.pump = lambda wait=0.0: (turns.append(wait), pump(wait))[1]  # type: ignore[method-assign]
    try:
        assert link.start(timeout=0.3, driven=True) is None
        assert 2 <= len(turns) <= 12  # a try every reconnect_s (0.05 s) for 0.3 s: it waited, did not spin
        assert link.driven and link.fileno() is None
        assert isinstance(_pump_until(link, inbox, DeviceOffline), DeviceOffline)
    finally:
        link.close()


# -- found when tried as an adversary would ---------------------------------------------------------


def test_a_refused_device_is_reported_gone_and_a_good_one_on_a_new_connection_is_taken() -> None:
    wire = connected()
    # The line is reconnected to a shoe whose firmware we do not run.
    wire.shoe = ShoeFirmware(seed=2, boot=50, firmware=(2, 0, 0))
    wire.host.connect(wire.now)
    got = wire.run(0.3)
    refusal = wire.host.refusal
    assert refusal is not None and "unsupported CR-SIM firmware 2.0.0" in refusal
    assert got == [DeviceFault("shoe", refusal, FaultKind.DEVICE_FAULT),
                   DeviceOffline("shoe", f"refused: {refusal}", OfflineKind.DEVICE_OFFLINE)]
    wire.shoe.held = False
    wire.shoe.draw()
    assert wire.run(3.0) == []  # nothing taken from it, and reported once though it is asked again
    # A good shoe on the next connection is taken.
    wire.shoe = ShoeFirmware(seed=3, boot=51)
    wire.host.connect(wire.now)
    assert wire.run(0.3) == [DeviceOnline("shoe", "CR-SIM", "SIM0001", "1.0.0", 51)]
    assert wire.host.state == ONLINE and wire.host.refusal is None
    card, _ = wire.shoe.draw()
    assert wire.run(0.3) == [CardRead(card, "shoe", 1)]


def test_a_device_swapped_on_the_same_line_is_refused_then_its_good_successor_taken() -> None:
    wire = connected()
    wire.shoe = ShoeFirmware(seed=2, boot=50, firmware=(2, 0, 0))
    wire.shoe.boot_hello()  # it says HELLO at power-up, on the line the host already has open
    got = wire.run(0.3)
    assert [type(r) for r in got] == [DeviceFault, DeviceOffline]  # the shoe online before is gone
    assert wire.host.state == REFUSED
    wire.shoe = ShoeFirmware(seed=3, boot=51)
    wire.shoe.boot_hello()
    assert wire.run(0.3) == [DeviceOnline("shoe", "CR-SIM", "SIM0001", "1.0.0", 51)]


@pytest.mark.parametrize("ahead", [2, 100, 127, 128, 200, 255])
def test_a_card_frame_out_of_sequence_is_a_sequence_gap_not_a_repeat(ahead: int) -> None:
    wire = connected()
    card, _ = wire.shoe.draw()
    assert wire.run(0.3) == [CardRead(card, "shoe", 1)]
    seq = (1 + ahead) % 256  # +200 is -56 modulo 256: the number alone cannot say which
    wire.host.receive(encode_message(CardMsg(Source.SHOE, "Qh"), seq), wire.now)
    got = wire.host.take_readings()
    assert got == [DeviceFault("shoe", f"sequence gap: expected 2, got {seq}", FaultKind.SEQUENCE_GAP),
                   CardRead("Qh", "shoe", seq)]  # the card is kept, not dropped
    assert Decoder().feed(wire.host.take_output())[-1].payload == Ack(seq).encode()
    assert wire.host.stats.gaps == 1 and wire.host.stats.repeats == 0


def test_the_last_card_frame_again_is_a_repeat() -> None:
    wire = connected()
    card, _ = wire.shoe.draw()
    wire.run(0.3)
    wire.host.receive(encode_message(CardMsg(Source.SHOE, card), 1), wire.now)
    assert wire.host.take_readings() == [] and wire.host.stats.repeats == 1


def test_a_heartbeat_behind_the_last_frame_kept_is_a_sequence_gap() -> None:
    from drivers.shoe_protocol import Heartbeat
    wire = connected()
    for _ in range(3):
        wire.shoe.draw()
    wire.run(0.3)
    wire.host.receive(encode_message(Heartbeat(), 200), wire.now)
    assert wire.host.take_readings() == [
        DeviceFault("shoe", "sequence gap: last frame kept 3, device is at 200", FaultKind.SEQUENCE_GAP)]


def test_fault_and_offline_kinds_travel_on_the_readings() -> None:
    wire = connected()
    wire.shoe.inject("drop", wire.now)
    wire.shoe.draw()
    wire.shoe.draw()
    assert [r.kind for r in wire.run(0.5) if isinstance(r, DeviceFault)] == [FaultKind.SEQUENCE_GAP]
    wire.shoe.inject("silent", wire.now, 3.0)
    offline = [r for r in wire.run(2.5) if isinstance(r, DeviceOffline)]
    assert [r.kind for r in offline] == [OfflineKind.DEVICE_SILENT]
    host = HostSession()
    host.connect(0.0)
    host.poll(2.5)
    assert host.take_readings() == [DeviceOffline("shoe", "no HELLO for 2.5 s", OfflineKind.DEVICE_OFFLINE)]
