"""The Pi's SPI bus through Linux spidev (`/dev/spidevB.C`): mode 0, 8 bits a word, one full-duplex frame an ioctl.

The PN5180 chip reader's bus (drivers/pn5180.py); the ioctl numbers and `struct spi_ioc_transfer` are
linux/spi/spidev.h's.
"""

from __future__ import annotations

import os
import struct

from drivers.errors import BackendError

__all__ = ["SpiDev"]

def _iow(kind: str, number: int, size: int) -> int:
    """An ioctl request number that writes `size` bytes (Linux's _IOW)."""
    return (1 << 30) | (size << 16) | (ord(kind) << 8) | number


SPI_TRANSFER = struct.Struct("<QQIIHBBBBBB")
"""struct spi_ioc_transfer (linux/spi/spidev.h): tx_buf, rx_buf, len, speed_hz, delay_usecs, bits_per_word,
cs_change, tx_nbits, rx_nbits, word_delay_usecs, pad: 32 bytes."""
SPI_IOC_MESSAGE_1 = _iow("k", 0, SPI_TRANSFER.size)
SPI_IOC_WR_MODE = _iow("k", 1, 1)
SPI_IOC_WR_BITS_PER_WORD = _iow("k", 3, 1)
SPI_IOC_WR_MAX_SPEED_HZ = _iow("k", 4, 4)
SPEED_HZ = 7_000_000
"""The PN5180's SPI at most (7 Mbit/s, mode 0: CPOL 0, CPHA 0, most significant bit first)."""


class SpiDev:
    """A Linux spidev device (`/dev/spidevB.C`), mode 0, 8 bits a word, one frame a `transfer`
    (chip select held for the frame). Raises BackendError (option `spi`) when it cannot be opened."""

    def __init__(self, path: str, speed_hz: int = SPEED_HZ) -> None:
        import fcntl

        self._fcntl = fcntl
        self.speed_hz = speed_hz
        try:
            self._fd = os.open(path, os.O_RDWR)
        except OSError as exc:
            raise BackendError(f"cannot open {path}: {exc.strerror}", option="spi") from None
        try:
            fcntl.ioctl(self._fd, SPI_IOC_WR_MODE, struct.pack("B", 0))
            fcntl.ioctl(self._fd, SPI_IOC_WR_BITS_PER_WORD, struct.pack("B", 8))
            fcntl.ioctl(self._fd, SPI_IOC_WR_MAX_SPEED_HZ, struct.pack("<I", speed_hz))
        except OSError as exc:
            os.close(self._fd)
            raise BackendError(f"{path} is not an SPI device: {exc.strerror}", option="spi") from None

    def transfer(self, data: bytes) -> bytes:
        import ctypes

        tx = ctypes.create_string_buffer(bytes(data), len(data))
        rx = ctypes.create_string_buffer(len(data))
        message = SPI_TRANSFER.pack(ctypes.addressof(tx), ctypes.addressof(rx), len(data), self.speed_hz,
                                    0, 8, 0, 0, 0, 0, 0)
        self._fcntl.ioctl(self._fd, SPI_IOC_MESSAGE_1, message)
        return rx.raw

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
