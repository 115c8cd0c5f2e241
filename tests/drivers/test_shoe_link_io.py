"""The shoe link's port I/O: a frame's bytes are read in one go on socket:// and pty ports, and written whole."""

from __future__ import annotations

import os
import socket

import serial

from drivers.shoe_link import _raw_fd, _read_available, _write_all


def test_socket_port_reads_what_is_there_in_one_go() -> None:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    port = serial.serial_for_url(f"socket://127.0.0.1:{server.getsockname()[1]}", timeout=0.5)
    peer, _ = server.accept()
    try:
        fd = _raw_fd(port)
        assert fd is not None
        assert _read_available(port, fd, 0.01) == b""  # nothing yet: the wait times out
        peer.sendall(bytes(range(30)))
        assert _read_available(port, fd, 2.0) == bytes(range(30))  # not 30 reads of one byte
        _write_all(port, fd, b"ack!")
        assert peer.recv(16) == b"ack!"
        peer.close()
        try:
            _read_available(port, fd, 2.0)
        except serial.SerialException:
            pass  # the peer went away: pyserial says so, and the link reopens
        else:
            raise AssertionError("a closed peer must raise")
    finally:
        port.close()
        server.close()


def test_pty_port_reads_what_is_there_in_one_go() -> None:
    master, slave = os.openpty()
    port = serial.serial_for_url(os.ttyname(slave), timeout=0.5)
    try:
        fd = _raw_fd(port)
        assert fd is not None
        os.write(master, b"\x7e" * 12)
        got = b""
        while len(got) < 12:
            got += _read_available(port, fd, 2.0)
        assert got == b"\x7e" * 12
    finally:
        port.close()
        os.close(master)
        os.close(slave)


def test_other_ports_keep_pyserial_reads() -> None:
    port = serial.serial_for_url("loop://", timeout=0.05)
    try:
        assert _raw_fd(port) is None
        port.write(b"hello")
        assert _read_available(port, None, 0.05) == b"hello"  # in_waiting counts on loop://
    finally:
        port.close()
