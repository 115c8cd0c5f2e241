"""`[chip_reader] backend = "pn5180"`: its settings typed and checked, each refusal naming file, section and key; `croupier run`'s devices open it."""

from __future__ import annotations

from typing import Any

import pytest

from cli.run import Devices
from drivers.errors import BackendError
from firmware_host.service.config import Config
from protocol.config import ConfigError

PN5180 = ('[chip_reader]\nbackend = "pn5180"\nspi = "/dev/spidev0.1"\nbusy_pin = 16\nreset_pin = 12\n'
          'mux_pins = [19, 20, 21]\nantennas = ["spot1.ante", "spot1.trips", "spot1.play", "tray"]\n')


def test_the_pn5180_settings_are_read_into_typed_values() -> None:
    chip = Config.parse(PN5180, source="t.toml").chip_reader
    assert (chip.backend, chip.spi, chip.busy_pin, chip.reset_pin, chip.mux_pins, chip.antennas) == (
        "pn5180", "/dev/spidev0.1", 16, 12, (19, 20, 21), ("spot1.ante", "spot1.trips", "spot1.play", "tray"))
    assert Config.parse("", source="t.toml").chip_reader.backend == "serial"  # as before: a board on a serial line


@pytest.mark.parametrize("change, said", [
    (("backend = \"pn5180\"", "backend = \"rc522\""), "t.toml: [chip_reader] backend: must be one of 'serial', 'pn5180'"),
    (("spi = \"/dev/spidev0.1\"", "spi = \"/dev/ttyAMA0\""), "t.toml: [chip_reader] spi: must be a spidev device"),
    (("busy_pin = 16", "busy_pin = 40"), "t.toml: [chip_reader] busy_pin: must be between 0 and 27"),
    (("mux_pins = [19, 20, 21]", "mux_pins = 19"), "t.toml: [chip_reader] mux_pins: must be a list of at most 6"),
    (("\"spot1.trips\"", "\"spot1 trips\""), "t.toml: [chip_reader] antennas: not an antenna name"),
    (("\"spot1.trips\"", "\"tray\""), "t.toml: [chip_reader] antennas: 'tray' named twice"),
    (("antennas = [", "antennas = []\n#"), "t.toml: [chip_reader] antennas: backend 'pn5180' needs its antennas"),
    (("mux_pins = [19, 20, 21]", "mux_pins = [19]"),
     "t.toml: [chip_reader] mux_pins: 1 select lines choose at most 2 antennas, not the 4 named"),
    (("mux_pins = [19, 20, 21]", "mux_pins = [19, 16]"), "t.toml: [chip_reader] mux_pins: pin 16 is already used by "
                                                         "[chip_reader] busy_pin"),
    (("reset_pin = 12", "reset_pin = 8"), "t.toml: [chip_reader] reset_pin: pin 8 is already used by SPI0 CE0"),
    (("busy_pin = 16", "busy_pin = 16\nurl = \"/dev/ttyUSB1\""), "t.toml: [chip_reader] url: backend 'pn5180' reads "
                                                                 "no serial line"),
])
def test_bad_pn5180_settings_are_refused_naming_file_section_and_key(change: tuple[str, str], said: str) -> None:
    assert change[0] in PN5180
    with pytest.raises(ConfigError) as caught:
        Config.parse(PN5180.replace(*change), source="t.toml")
    assert str(caught.value).startswith(said)


def test_its_pins_must_not_be_the_dealers_gpio() -> None:
    text = PN5180.replace("busy_pin = 16", "busy_pin = 23") + '[gpio]\nbackend = "gpio"\n'
    with pytest.raises(ConfigError, match=r"^t.toml: \[chip_reader\] busy_pin: pin 23 is already used by "
                                          r"\[gpio\] light_green"):
        Config.parse(text, source="t.toml")
    Config.parse(text.replace('backend = "gpio"', 'backend = "none"'), source="t.toml")  # no GPIO wired: free


class _Inbox:
    def __init__(self) -> None:
        self.posted: list[Any] = []

    def post(self, reading: Any) -> None:
        self.posted.append(reading)


class _Controller:
    def __init__(self) -> None:
        self.inbox = _Inbox()


def test_run_opens_it_on_the_spi_device_named_and_says_where_when_it_cannot() -> None:
    cfg = Config.parse(PN5180.replace("/dev/spidev0.1", "/dev/spidev9.9") + '[gpio]\npin_factory = "mock"\n',
                       source="t.toml")
    devices = Devices()
    with pytest.raises(BackendError) as refused:
        devices.open(cfg, _Controller())  # type: ignore[arg-type]
    assert str(refused.value).startswith("t.toml: [chip_reader] spi: cannot open /dev/spidev9.9")
    devices.close()


def test_deploy_pi_toml_example_of_a_pn5180_parses_uncommented(tmp_path: Any) -> None:
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "deploy" / "pi.toml").read_text(encoding="utf-8")
    block = re.search(r'^# \[chip_reader\][^\n]*\n# backend = "pn5180".*?(?=^\S*\[|\Z)', text, re.M | re.S)
    assert block is not None
    lines = [ln[2:] if ln.startswith("# ") and not ln.startswith("#  ") else ln for ln in block.group(0).splitlines()]
    conf = tmp_path / "table.toml"
    conf.write_text(text.replace(block.group(0), "\n".join(lines) + "\n"), encoding="utf-8")
    chip = Config.load(conf).chip_reader
    assert (chip.backend, chip.spi, chip.mux_pins, len(chip.antennas), chip.antennas[-1]) == (
        "pn5180", "/dev/spidev0.0", (19, 20, 21), 7, "tray")
