"""The controller's TOML configuration, parsed once at start into typed frozen values.

Every section and key is declared once in `_SCHEMA` below and walked by the one checker of every
configuration file (`protocol/config.py`) when `Config.load(path)` reads it. An unknown
section or key, a missing required key, or a value of the wrong type or out of range stops the start
with a `ConfigError` naming the file, the section and the key. The house table's paytable profile is
read and the `[limits]` checked at parse time by the engine's own checks (`engine.paytables`,
`engine.house.TableLimits`), so a bad profile or limits are refused like any other bad value; the
profile's text is kept (`Config.profile`) and is what the table opens with.

>>> cfg = Config.parse('[table]\\nname = "t1"\\ngame = "3cp"\\n', source="x.toml")
>>> cfg.table.name, cfg.table.game, cfg.feed.public
('t1', '3cp', 'tcp://127.0.0.1:5556')
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import time
from fractions import Fraction
from pathlib import Path
from typing import Any

from drivers.chip_debounce import CONFIRM, SETTLE_S
from drivers.chip_protocol import check_antenna
from drivers.errors import FrameError
from engine import games
from engine.chips import ChipSet, ChipSetError
from engine.errors import LimitsError, ProfileError
from engine.house import TableLimits
from engine.money import DEFAULT_CURRENCY, Money
from engine.paytables import ProfileText, read_profile
from protocol import access, commands, fairness
from protocol.certificates import Certificates, directory_problem
from firmware_host.tables.base import MAX_STEPS_PER_HAND
from protocol.config import (  # the one checker of every configuration file
    AccessConfig, ConfigError, RightsConfig, Section, SecurityConfig, Where, boolean, bound_on_loopback, clock_time,
    currency, curve_server, distinct_endpoints, endpoint, heartbeat, host_port, integer, integer_list, names_of, one_of,
    optional_endpoint, parse_sections, parse_toml, plain_name, rate, read_text, seconds, string,
    time_zone,
)

GPIO_BACKENDS = ("none", "sim", "gpio")
PIN_FACTORIES = ("lgpio", "rpigpio", "native", "mock")


# -- values ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TableConfig:
    """`[table]`: who the table is and what it opens with when the journal has no table yet."""

    name: str = "table-1"
    game: str | None = None  # None: wait for an `open` command
    profile: str = "default"  # a profile name shipped with the engine, or a TOML file
    seats: int = games.MAX_SPOTS  # house games 1..engine.games.MAX_SPOTS spots; poker engine.games.POKER_SEATS seats
    max_steps_per_hand: int = MAX_STEPS_PER_HAND  # past it the hand faults (`step_limit`)
    currency: str = DEFAULT_CURRENCY  # an ISO 4217 code (engine.money.DECIMALS): what the screens show money in
    require_certificate: bool = False  # a house table opens only on a certified profile (service.certificates)
    certificates: str = ""  # the directory of the paytable certificates (`croupier math certify`)
    tray_difference_stops: bool = False  # a flagged tray difference stands a fault (docs/tray.md); else an alert

    @property
    def certificate_policy(self) -> Certificates:
        """`require_certificate` and `certificates` as the controller checks an `open` against them."""
        return Certificates(self.require_certificate, self.certificates)

    @property
    def money(self) -> Money:
        """The table's currency with the decimals of its unit."""
        return Money.of(self.currency)


@dataclass(frozen=True, slots=True)
class PokerConfig:
    """`[poker]`: a poker table's betting structure and stakes, and who sits at the start.

    Amounts in the table's smallest unit. `blinds` = [small, big, straddles...]; stud tables give
    `antes` and `bring_in`; fixed limit needs `small_bet` and `big_bet`; spread limit `min_bet` and
    `max_bet`; `raise_cap` is the number of raises after the bet (fixed limit; default 3).
    `seated` lists the seats taken at the start, each with `buy_in` chips; `button` the first
    button (0: the highest seated seat). The house's rake: `rake_bp` basis points of each pot
    (500 = 5 %, 0 = no rake), at most `rake_cap` a hand, none for a hand that ends on its first
    street while `no_flop_no_drop`. The room's rules (docs/poker.md, "Seats, blinds and short
    all-ins"): `button_rule` "dead" (default) or "moving", `short_allin_rule` "tda" (default) or
    "simple", `fixed_limit_half_bet_reopens` (default true), `all_in_reveal` (tournament tables).
    """

    structure: str = "no-limit"
    blinds: tuple[int, ...] = ()
    antes: int = 0
    bring_in: int = 0
    small_bet: int = 0
    big_bet: int = 0
    min_bet: int = 0
    max_bet: int = 0
    raise_cap: int = 3
    seated: tuple[int, ...] = ()
    buy_in: int = 0
    button: int = 0
    rake_bp: int = 0
    rake_cap: int = 0
    no_flop_no_drop: bool = True
    button_rule: str = "dead"
    short_allin_rule: str = "tda"
    fixed_limit_half_bet_reopens: bool = True
    all_in_reveal: bool = False

    def as_body(self, game: str, seats: int) -> dict[str, Any]:
        """The `open` body of this poker table."""
        stakes: dict[str, Any] = {"blinds": list(self.blinds)}
        for key in ("antes", "bring_in", "small_bet", "big_bet", "min_bet", "max_bet"):
            if getattr(self, key):
                stakes[key] = getattr(self, key)
        if self.structure == "fixed-limit":
            stakes["raise_cap"] = self.raise_cap
        body: dict[str, Any] = {"game": game, "structure": self.structure, "stakes": stakes, "seats": seats,
                                "stacks": {str(s): self.buy_in for s in self.seated}}
        if self.button:
            body["button"] = self.button
        if self.rake_bp:
            body["rake"] = {"rate_bp": self.rake_bp, "cap": self.rake_cap, "no_flop_no_drop": self.no_flop_no_drop}
        body["rules"] = {"button": self.button_rule, "short_allin_rule": self.short_allin_rule,
                         "fixed_limit_half_bet_reopens": self.fixed_limit_half_bet_reopens,
                         "all_in_reveal": self.all_in_reveal}
        return body


@dataclass(frozen=True, slots=True)
class LimitsConfig:
    """`[limits]`: the table's limits in its smallest unit (0 = no limit on that key): the keys of
    `engine.house.TableLimits`, which checks them (`_house_table`), with the table's own defaults."""

    minimum: int = 100
    maximum: int = 0
    side_minimum: int = 0
    side_maximum: int = 0
    chip: int = 1

    def as_dict(self) -> dict[str, int]:
        return {key: getattr(self, key) for key in TableLimits.KEYS}


@dataclass(frozen=True, slots=True)
class FeedConfig:
    """`[feed]`: public PUB + snapshot ROUTER, and the restricted full-state sockets."""

    public: str = "tcp://127.0.0.1:5556"
    snapshot: str = "tcp://127.0.0.1:5557"
    full: str = "tcp://127.0.0.1:5558"
    full_snapshot: str = "tcp://127.0.0.1:5559"
    heartbeat_s: float = 1.0
    changes: bool = True  # false: every step as a whole `update`, for clients that do not follow changes yet


@dataclass(frozen=True, slots=True)
class CommandsConfig:
    """`[commands]`: the dealer command channel (ROUTER) and its limits (`docs/security.md`, Limits).

    A request is one frame of at most `max_request_bytes`; each turn of the controller's loop takes
    at most `per_turn` requests; each client may send `rate_per_s` requests a second, in bursts of
    at most `burst`, and is answered `busy` beyond.
    """

    endpoint: str = "tcp://127.0.0.1:5555"
    max_request_bytes: int = commands.MAX_REQUEST_BYTES
    per_turn: int = fairness.PER_TURN
    rate_per_s: float = fairness.RATE_PER_S
    burst: int = fairness.BURST


@dataclass(frozen=True, slots=True)
class ShoeConfig:
    """`[shoe]`: the card-reading shoe's serial URL ("" = no shoe attached)."""

    url: str = ""
    baudrate: int = 115200
    silent_s: float = 3.0  # no frame (heartbeat included) for this long mid-hand: device silent fault


@dataclass(frozen=True, slots=True)
class ChipReaderConfig:
    """`[chip_reader]`: the chip reader, its device name, and the debounce (drivers/chip_debounce.py): a
    chip is in a circle once read in `confirm` consecutive scans and out once missed in as many; a
    circle's reading is stable once unchanged for `settle_ms`.

    `backend` "serial" (the default): the reader board's serial URL ("" = no reader: bets are tapped),
    its line; silent for `silent_s`: device silent. `backend` "pn5180": an NXP PN5180 on the Pi's SPI
    (`spi`, a spidev path), its BUSY and RST lines (`busy_pin`, `reset_pin`, BCM) and the antenna
    multiplexer's select lines (`mux_pins`, lowest first); `antennas` the antennas' names in channel
    order (drivers/pn5180.py)."""

    backend: str = "serial"
    url: str = ""
    baudrate: int = 115200
    device: str = "chips"
    confirm: int = CONFIRM
    settle_ms: int = round(SETTLE_S * 1000)
    silent_s: float = 2.0
    spi: str = "/dev/spidev0.0"
    busy_pin: int = 16
    reset_pin: int = 12
    mux_pins: tuple[int, ...] = ()
    antennas: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class GpioConfig:
    """`[gpio]`: sensors, dealer buttons and tower light through gpiozero.

    `backend` "gpio" uses `pin_factory` (lgpio on a Pi); "sim" uses gpiozero's mock factory and
    serves the pins on the simulated panel at `panel` (host:port) for bots; "none" wires nothing.
    Pins are BCM numbers.
    """

    backend: str = "none"
    pin_factory: str = "lgpio"
    panel: str = ""
    card_out: int = 17
    shoe_present: int = 27
    lid_open: int = 22
    confirm: int = 5
    next: int = 6
    void: int = 13
    void_hold_s: float = 2.0
    light_green: int = 23
    light_amber: int = 24
    light_red: int = 25

    def sensor_pins(self) -> dict[str, int]:
        return {"card_out": self.card_out, "shoe_present": self.shoe_present, "lid_open": self.lid_open}

    def button_pins(self) -> dict[str, int]:
        return {"confirm": self.confirm, "next": self.next, "void": self.void}

    def light_pins(self) -> dict[str, int]:
        return {"green": self.light_green, "amber": self.light_amber, "red": self.light_red}


@dataclass(frozen=True, slots=True)
class ChipsConfig:
    """`[chips]`: the chip set the smart table values chips with (a CSV file, `engine.chips`; "" = no chips read)."""

    set: str = ""


@dataclass(frozen=True, slots=True)
class PlayerCardsConfig:
    """`[player_cards]`: the seats' player card reader (`drivers/player_card.py`): `backend` "none", "serial"
    (`url`), "keyboard" (`path`, its Linux input device) or "sim"; `seat` the seat it serves (0: its lines
    name the seat, `SEAT:`). Its device is `player_cards`; its going offline never stops a hand."""

    backend: str = "none"
    url: str = ""
    path: str = ""
    seat: int = 0


@dataclass(frozen=True, slots=True)
class RatingsConfig:
    """`[ratings]`: the share of a session's theo given back in comps (`reinvestment`, 0 to 1, a number or a
    fraction text such as "3/10"), and when the gaming day starts (`day_starts`, local "HH:MM" in `time_zone`, an
    IANA name: the archive's `gaming_day` defaults), within which the pit may adjust a closed session (docs/ratings.md)."""

    reinvestment: Fraction = Fraction(0)
    day_starts: time = time(6)
    time_zone: str = "UTC"


@dataclass(frozen=True, slots=True)
class Config:
    """The whole configuration. `source` is the file it came from."""

    source: str = "<defaults>"
    table: TableConfig = field(default_factory=TableConfig)
    limits: LimitsConfig = field(default_factory=LimitsConfig)
    poker: PokerConfig = field(default_factory=PokerConfig)
    feed: FeedConfig = field(default_factory=FeedConfig)
    commands: CommandsConfig = field(default_factory=CommandsConfig)
    shoe: ShoeConfig = field(default_factory=ShoeConfig)
    chip_reader: ChipReaderConfig = field(default_factory=ChipReaderConfig)
    gpio: GpioConfig = field(default_factory=GpioConfig)
    security: SecurityConfig = field(default_factory=SecurityConfig)
    access: AccessConfig = field(default_factory=AccessConfig)
    rights: RightsConfig = field(default_factory=RightsConfig)
    chips: ChipsConfig = field(default_factory=ChipsConfig)
    ratings: RatingsConfig = field(default_factory=RatingsConfig)
    player_cards: PlayerCardsConfig = field(default_factory=PlayerCardsConfig)
    profile: ProfileText | None = None  # `[table] profile` as read when the configuration was parsed
    chip_set: dict[str, Any] | None = None  # `[chips] set` as read: the `chip_set` event's body (name, sha256, text)

    @classmethod
    def load(cls, path: str | Path) -> Config:
        """Read and parse a TOML file. Raises ConfigError (unreadable file, bad TOML, bad key)."""
        return cls.parse(read_text(path), source=str(path))

    @classmethod
    def parse(cls, text: str, source: str = "<string>") -> Config:
        """Parse TOML text. Raises ConfigError naming `source`, the section and the key."""
        return cls.from_mapping(parse_toml(text, source), source)

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], source: str = "<mapping>") -> Config:
        """Build from already-parsed TOML data. Raises ConfigError."""
        cfg = cls(source=source, **parse_sections(data, source, _SCHEMA))
        _check_whole(cfg)
        return replace(cfg, profile=_house_table(cfg), chip_set=_chip_set(cfg))


def _serial_url(v: Any) -> str:
    text = string(v)
    if text and not (text.startswith("/") or "://" in text):
        raise ValueError(f"must be a device path or a pyserial URL (socket://, loop://, spy://), not {text!r}")
    return text


def _share(v: Any) -> Fraction:
    try:
        if isinstance(v, bool) or not isinstance(v, (int, float, str)):
            raise ValueError
        share = Fraction(repr(v) if isinstance(v, float) else v)
    except (ValueError, ZeroDivisionError):
        raise ValueError(f"must be a number or a fraction such as \"3/10\", not {v!r}") from None
    if not 0 <= share <= 1:
        raise ValueError(f"must be between 0 and 1, not {v!r}")
    return share


def _spidev(v: Any) -> str:
    path = string(v)
    if not re.fullmatch(r"/dev/spidev\d+\.\d+", path):
        raise ValueError(f"must be a spidev device, /dev/spidevBUS.CS (e.g. /dev/spidev0.0), not {path!r}")
    return path


def _antennas(v: Any) -> tuple[str, ...]:
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise ValueError(f"must be a list of antenna names (tray, spotN.circle) in channel order, not {v!r}")
    try:
        names = tuple(check_antenna(x) for x in v)
    except FrameError as exc:
        raise ValueError(str(exc)) from None
    twice = sorted({x for x in names if names.count(x) > 1})
    if twice:
        raise ValueError(f"{', '.join(map(repr, twice))} named twice")
    return names


def _key_names(v: Any) -> tuple[str, ...]:
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise ValueError(f"must be a list of client key names (the certificates' names), not {v!r}")
    return tuple(plain_name(x) for x in v)


def _chip_device(v: Any) -> str:
    name = plain_name(v)
    if name == "shoe":
        raise ValueError("must not be 'shoe', the card reader's name (each device is journaled by its name)")
    return name


_SCHEMA: dict[str, Section] = {
    "table": Section(TableConfig, {"name": plain_name, "game": one_of(*games.GAMES), "profile": string,
                            "seats": integer(*games.TABLE_SEATS), "max_steps_per_hand": integer(100, 10**7),
                            "currency": currency, "require_certificate": boolean, "certificates": string,
                            "tray_difference_stops": boolean}),
    "poker": Section(PokerConfig, {"structure": one_of(*games.STRUCTURES), "blinds": integer_list(0, 10**9, 10),
                            **{k: integer(0) for k in ("antes", "bring_in", "small_bet", "big_bet", "min_bet",
                                                    "max_bet", "raise_cap", "buy_in")},
                            "seated": integer_list(1, games.POKER_SEATS[1], games.POKER_SEATS[1]),
                            "button": integer(0, games.POKER_SEATS[1]), "rake_bp": integer(0, 10000),
                            "rake_cap": integer(0), "no_flop_no_drop": boolean,
                            "button_rule": one_of(*games.POKER_RULES["button"]),
                            "short_allin_rule": one_of(*games.POKER_RULES["short_allin_rule"]),
                            "fixed_limit_half_bet_reopens": boolean, "all_in_reveal": boolean}),
    "limits": Section(LimitsConfig, {key: integer(low) for key, low in TableLimits.FLOORS.items()}),  # engine's
    "feed": Section(FeedConfig, {"public": endpoint, "snapshot": endpoint, "full": optional_endpoint,
                                 "full_snapshot": optional_endpoint, "heartbeat_s": heartbeat,
                                 "changes": boolean}),
    "commands": Section(CommandsConfig, {"endpoint": endpoint, "max_request_bytes": integer(1024, 16 * 1024 * 1024),
                                  "per_turn": integer(1, 10_000), "rate_per_s": rate, "burst": integer(1, 10**6)}),
    "shoe": Section(ShoeConfig, {"url": _serial_url, "baudrate": integer(1200, 4_000_000),
                          "silent_s": seconds(0.1, 3600.0)}),
    "chip_reader": Section(ChipReaderConfig, {"backend": one_of("serial", "pn5180"), "url": _serial_url,
                                              "baudrate": integer(1200, 12_000_000),
                                              "device": _chip_device, "confirm": integer(1, 20),
                                              "settle_ms": integer(0, 10_000), "silent_s": seconds(0.2, 3600.0),
                                              "spi": _spidev, "busy_pin": integer(0, 27), "reset_pin": integer(0, 27),
                                              "mux_pins": integer_list(0, 27, 6), "antennas": _antennas}),
    "gpio": Section(GpioConfig, {"backend": one_of(*GPIO_BACKENDS), "pin_factory": one_of(*PIN_FACTORIES),
                          "panel": host_port, "void_hold_s": seconds(0.1, 10.0),
                          **{k: integer(0, 27) for k in ("card_out", "shoe_present", "lid_open", "confirm", "next",
                                                      "void", "light_green", "light_amber", "light_red")}}),
    "security": Section(SecurityConfig, {**{k: string for k in ("server_key", "clients", "users", "manifest", "manifest_key",
                                                       "profiles")},
                                  "local_role": one_of(*access.ROLES), "full_delay_s": seconds(0.0, 3600.0),
                                  "signed_in_relays": _key_names}),
    "access": Section(AccessConfig, {k: names_of(access.ROLES, "roles") for k in access.SOCKETS}),
    "rights": Section(RightsConfig, {k: names_of(access.COMMANDS, "commands") for k in access.ROLES}),
    "chips": Section(ChipsConfig, {"set": string}),
    "ratings": Section(RatingsConfig, {"reinvestment": _share, "day_starts": clock_time, "time_zone": time_zone}),
    "player_cards": Section(PlayerCardsConfig, {"backend": one_of("none", "serial", "keyboard", "sim"),
                                                "url": _serial_url, "path": string, "seat": integer(0, games.MAX_SPOTS)}),
}


def endpoints(cfg: Config) -> list[Where]:
    """The table's sockets, each with where the file gives it ("" for one not bound), the hole cards' first (the
    checks below; `croupier firewall`'s ports)."""
    return [("feed", "full", cfg.feed.full), ("feed", "full_snapshot", cfg.feed.full_snapshot),
            ("feed", "public", cfg.feed.public), ("feed", "snapshot", cfg.feed.snapshot),
            ("commands", "endpoint", cfg.commands.endpoint)]


def _check_security(cfg: Config) -> None:
    """A socket open to the network needs CURVE: `[security] server_key` and `clients` (both or none)."""
    sec = cfg.security
    if not curve_server(cfg.source, "security", sec.server_key, sec.clients, "the table's"):
        hole_cards = "the full state (hole cards)"
        bound_on_loopback(cfg.source, endpoints(cfg), "[security] server_key and clients",
                          {"full": hole_cards, "full_snapshot": hole_cards})


def _check_whole(cfg: Config) -> None:
    src = cfg.source
    _check_security(cfg)
    game = cfg.table.game
    if game in games.HOUSE_GAMES and cfg.table.seats > games.MAX_SPOTS:
        raise ConfigError(f"{src}: [table] seats: a {game} table has at most {games.MAX_SPOTS} spots, "
                          f"not {cfg.table.seats}")
    if game is not None and games.is_poker(game):
        from firmware_host.tables.base import SetupError
        from firmware_host.tables.poker.table import PokerSetup
        low, high = games.POKER_SEATS
        if not low <= cfg.table.seats <= high:
            raise ConfigError(f"{src}: [table] seats: a poker table has {low} to {high} seats")
        if cfg.poker.seated and not cfg.poker.buy_in:
            raise ConfigError(f"{src}: [poker] buy_in: the seated players need a buy-in (> 0)")
        if cfg.poker.rake_bp and not cfg.poker.rake_cap:
            raise ConfigError(f"{src}: [poker] rake_cap: a rake of {cfg.poker.rake_bp} basis points needs its cap "
                              f"(the most taken from one hand, > 0)")
        try:
            PokerSetup.from_body(cfg.poker.as_body(game, cfg.table.seats), cfg.table.seats)
        except SetupError as exc:  # a seat, the button: the body's key names the configuration's
            key = {"stacks": "seated", "sitting_out": "seated"}.get(exc.field, exc.field)
            raise ConfigError(f"{src}: [poker] {key}: {exc}") from None
        except ValueError as exc:  # the structure and stakes (IllegalAction is a ValueError too)
            raise ConfigError(f"{src}: [poker] structure: {exc}") from None
    if cfg.chip_reader.url and cfg.chip_reader.url == cfg.shoe.url:
        raise ConfigError(f"{src}: [chip_reader] url: {cfg.chip_reader.url!r} is the shoe's ([shoe] url)")
    gpio = cfg.gpio
    pins = {**gpio.sensor_pins(), **gpio.button_pins(), **gpio.light_pins()}
    used: dict[int, str] = {}
    keys: dict[int, str] = {}
    for name, pin in pins.items():
        key = name if name in gpio.sensor_pins() or name in gpio.button_pins() else f"light_{name}"
        if pin and pin in used:
            raise ConfigError(f"{src}: [gpio] {key}: pin {pin} is already used by {used[pin]}")
        used[pin] = name
        if pin:
            keys[pin] = key
    if cfg.chip_reader.backend == "pn5180":
        _check_pn5180(cfg, keys if gpio.backend != "none" else {})
    distinct_endpoints(src, endpoints(cfg))


def _check_pn5180(cfg: Config, used: dict[int, str]) -> None:
    """`[chip_reader] backend = "pn5180"`: its antennas, as many as its mux lines select, on pins of its own."""
    src, chip = cfg.source, cfg.chip_reader
    if chip.url:
        raise ConfigError(f"{src}: [chip_reader] url: backend 'pn5180' reads no serial line (its front end is on "
                          f"[chip_reader] spi)")
    if not chip.antennas:
        raise ConfigError(f"{src}: [chip_reader] antennas: backend 'pn5180' needs its antennas' names, in the "
                          f"mux's channel order")
    if len(chip.antennas) > 1 << len(chip.mux_pins):
        raise ConfigError(f"{src}: [chip_reader] mux_pins: {len(chip.mux_pins)} select lines choose at most "
                          f"{1 << len(chip.mux_pins)} antennas, not the {len(chip.antennas)} named")
    taken = {pin: f"[gpio] {key}" for pin, key in used.items()}
    spi0 = {7: "SPI0 CE1", 8: "SPI0 CE0", 9: "SPI0 MISO", 10: "SPI0 MOSI", 11: "SPI0 SCLK"}
    for key, pin in [("busy_pin", chip.busy_pin), ("reset_pin", chip.reset_pin),
                     *(("mux_pins", pin) for pin in chip.mux_pins)]:
        if pin in taken or pin in spi0:
            raise ConfigError(f"{src}: [chip_reader] {key}: pin {pin} is already used by "
                              f"{taken.get(pin) or spi0[pin]}")
        taken[pin] = f"[chip_reader] {key}"


def _house_table(cfg: Config) -> ProfileText:
    """The profile's text, read and checked, and the limits checked, by the engine's own checks: what
    the house table opens with. The limits are held to the profile's UTH maximum multiple when the
    table is a UTH table or its game is left to an `open` (which may open UTH with these limits).
    Raises ConfigError naming `[table] profile` or the `[limits]` key."""
    src = cfg.source
    try:
        text = read_profile(cfg.table.profile)
    except ProfileError as exc:
        raise ConfigError(f"{src}: [table] profile: {exc}") from None
    if cfg.table.require_certificate:
        problem = directory_problem(cfg.table.certificates)
        if problem is not None:
            raise ConfigError(f"{src}: [table] certificates: {problem}")
        refused = cfg.table.certificate_policy.refusal(text.name, text.sha256) if cfg.table.game in games.HOUSE_GAMES else None
        if refused is not None:
            raise ConfigError(f"{src}: [table] profile: {refused}")
    try:
        limits = TableLimits(**cfg.limits.as_dict())
        if cfg.table.game in (games.UTH.code, None):
            limits.with_max_multiple(text.parse().uth.max_multiple)
    except LimitsError as exc:  # its message starts with the key
        raise ConfigError(f"{src}: [limits] {exc}") from None
    return text



def _chip_set(cfg: Config) -> dict[str, Any] | None:
    """`[chips] set` read and checked (`engine.chips.ChipSet`): the body of the `chip_set` event the table
    journals at start. Raises ConfigError naming the file and the bad line."""
    if not cfg.chips.set:
        return None
    path = Path(cfg.chips.set)
    if not path.is_absolute() and not path.exists() and (Path(cfg.source).parent / path).exists():
        path = Path(cfg.source).parent / path  # a set beside the configuration file
    try:
        text = read_text(path)
    except ConfigError as exc:
        raise ConfigError(f"{cfg.source}: [chips] set: {exc}") from None
    try:
        chips = ChipSet.from_csv(text, where=str(path))
    except ChipSetError as exc:
        raise ConfigError(f"{cfg.source}: [chips] set: {exc}") from None
    return {"name": path.name, "sha256": chips.sha256(), "text": text}
