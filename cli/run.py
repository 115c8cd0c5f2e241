"""`croupier run --config FILE [--state DIR]`: the table controller service.

Starts in this order: configuration (refused with file, section and key), journal (replayed: the
state is rebuilt exactly, mid-hand too), feed sockets, devices (the shoe is told where to continue;
the chip reader's debounced readings go to the inbox as the shoe's do),
then serves until SIGTERM or SIGINT. Prints one JSON line on standard output when ready:
`{"ready": true, "table": ..., "boot": ..., "hand": ..., "replayed": N, "pid": ...}`.
Under systemd (`Type=notify`) it then sends READY=1, pings the watchdog from the controller's loop
while the loop turns, and sends STOPPING=1 on the way out (`service/notify.py`).
Exit status: 0 after a clean stop, 2 for a bad configuration, 1 when it cannot start.
With `[security] manifest` and `manifest_key` set, the installed code and the profiles directory
are checked against the signed manifest first, before the journal, any socket or device: a file
changed, missing or added, or a refused signature, stops the start (exit 1, each file named, an
`integrity_failed` audit entry); a manifest or key that cannot be read is a configuration error
(exit 2, naming the key). A verified start's `start` audit entry carries the manifest's SHA-256.
`--check` only reads the configuration (and the paytable profile it names) and exits: 0 with
`configuration ok: FILE` when the service would take it, 2 naming file, section and key when not.
With `[security] server_key` and `clients` every TCP socket is a CURVE server checked by one ZAP
handler served from the controller's loop (`protocol/zap.py`, `docs/security.md`); the key files are
read before anything is opened (exit 2 naming `[security] server_key` when unusable).
Each start and stop, the configuration loaded, and the table's faults, clears, voids, chops and
device connections go to the audit log beside the journal (`docs/audit.md`).
"""

from __future__ import annotations

import argparse
import faulthandler
import gc
import json
import logging
import os
import signal
import sys
from pathlib import Path
from typing import Any

from typing import TYPE_CHECKING

from protocol.audit import AuditError, AuditLog, config_details, start_details
from firmware_host.service.config import Config
from protocol.config import ConfigError
from firmware_host.service.manifest import CodeChanged, ManifestError, check_at_start

if TYPE_CHECKING:
    import zmq

    from firmware_host.service.controller import Controller
    from protocol.feed import Feed
    from protocol.keys import KeyPair
    from protocol.zap import ZapHandler

log = logging.getLogger("croupier.run")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", required=True, metavar="FILE", help="the table's TOML configuration")
    parser.add_argument("--state", metavar="DIR", default=os.environ.get("CROUPIER_STATE", "croupier-state"),
                        help="the journal's directory (default $CROUPIER_STATE or ./croupier-state)")
    parser.add_argument("--log-level", default="INFO", choices=("DEBUG", "INFO", "WARNING", "ERROR"))
    parser.add_argument("--check", action="store_true",
                        help="check the configuration and its profile, then exit (0: ok, 2: refused)")


class Devices:
    """The devices a configuration asks for, opened with the controller's inbox as their callback."""

    def __init__(self) -> None:
        self.opened: list[Any] = []
        self.light: Any = None
        self._pin_factory: Any = None

    def open(self, cfg: Config, controller: Controller) -> None:
        """Open and start every configured device. Raises DeviceError; a BackendError names the
        configuration's file, section and key it came from."""
        from drivers.errors import BackendError

        try:
            self._open_gpio(cfg, controller)
        except BackendError as exc:
            raise BackendError(f"{cfg.source}: [gpio] {exc.option or 'backend'}: {exc}", option=exc.option) from exc
        try:
            self._open_shoe(cfg, controller)
        except BackendError as exc:
            raise BackendError(f"{cfg.source}: [shoe] {exc.option or 'url'}: {exc}", option=exc.option) from exc
        try:
            self._open_chip_reader(cfg, controller)
        except BackendError as exc:
            raise BackendError(f"{cfg.source}: [chip_reader] {exc.option or 'url'}: {exc}",
                               option=exc.option) from exc
        try:
            self._open_player_cards(cfg, controller)
        except BackendError as exc:
            raise BackendError(f"{cfg.source}: [player_cards] {exc.option or 'backend'}: {exc}",
                               option=exc.option) from exc

    def _open_player_cards(self, cfg: Config, controller: Controller) -> None:
        """The seats' player card reader (docs/ratings.md), when `[player_cards] backend` names one."""
        cards = cfg.player_cards
        if cards.backend == "none":
            return
        from drivers.player_card import open_player_card_reader

        options: dict[str, Any] = {"seat": cards.seat or None}
        if cards.backend == "serial":
            options["url"] = cards.url
        elif cards.backend == "keyboard":
            options["path"] = cards.path
        reader = open_player_card_reader(cards.backend, controller.inbox.post, **options)
        self.opened.append(reader)
        reader.start()

    def _open_gpio(self, cfg: Config, controller: Controller) -> None:
        post = controller.inbox.post
        gpio = cfg.gpio
        if gpio.backend != "none":
            from drivers.buttons import open_buttons
            from drivers.shoe_sensors import SensorChange, open_shoe_sensors
            from drivers.tower_light import open_tower_light

            options: dict[str, Any] = {}
            if gpio.backend == "sim":
                if gpio.panel:
                    options["panel"] = gpio.panel
            else:
                options["pin_factory"] = self.pin_factory(cfg)
            self.light = open_tower_light(gpio.backend, pins=gpio.light_pins(), **options)
            self.opened.append(self.light)
            sensors = open_shoe_sensors(gpio.backend, post, pins=gpio.sensor_pins(), **options)
            self.opened.append(sensors)
            for name, active in sensors.start().items():
                if controller.sensors.get(name, active if name != "shoe_present" else True) != active:
                    post(SensorChange(name, active))
            buttons = open_buttons(gpio.backend, post, pins=gpio.button_pins(),
                                   hold_s={"void": gpio.void_hold_s}, **options)
            self.opened.append(buttons)
            buttons.start()
            controller.on_light = self.set_light
            self.set_light(controller.light)

    def _open_shoe(self, cfg: Config, controller: Controller) -> None:
        post = controller.inbox.post
        if cfg.shoe.url:
            from drivers.card_reader import ResumePoint, open_card_reader
            from drivers.errors import UnsupportedDevice

            resume = controller.device_resume("shoe")
            reader = open_card_reader("serial", post, url=cfg.shoe.url, device="shoe",
                                      resume=ResumePoint(*resume) if resume else None,
                                      baudrate=cfg.shoe.baudrate, silence_s=cfg.shoe.silent_s)
            self.opened.append(reader)
            # Long enough for a connected shoe's HELLO: unsupported firmware then raises and stops
            # the start. A shoe not answering yet is fine: the link keeps trying and its
            # DeviceOnline arrives in the inbox.
            reader.start(timeout=1.0, driven=True)  # raises UnsupportedDevice for a refused shoe
            if reader.driven:  # served from the controller's own loop: no hand-off per card
                controller.add_pollable(reader)

    def _open_chip_reader(self, cfg: Config, controller: Controller) -> None:
        """The chip reader board, served like the shoe from the controller's loop: its ChipsRead
        readings reach the inbox and are journaled as `chip_scan` events. A PN5180 on the SPI runs on a
        thread of its own (its transfers block) and posts to the same inbox."""
        chip = cfg.chip_reader
        if chip.backend == "pn5180":
            from drivers.chip_reader import open_chip_reader

            reader = open_chip_reader("pn5180", controller.inbox.post, antennas=chip.antennas, spi=chip.spi,
                                      busy_pin=chip.busy_pin, reset_pin=chip.reset_pin, mux_pins=chip.mux_pins,
                                      device=chip.device, confirm=chip.confirm, settle_s=chip.settle_ms / 1000,
                                      pin_factory=self.pin_factory(cfg))
            self.opened.append(reader)
            reader.start(timeout=1.0)  # a front end not answering is posted offline and tried again
        elif chip.url:
            from drivers.chip_reader import open_chip_reader

            reader = open_chip_reader("serial", controller.inbox.post, url=chip.url, device=chip.device,
                                      baudrate=chip.baudrate, confirm=chip.confirm, settle_s=chip.settle_ms / 1000,
                                      silence_s=chip.silent_s)
            self.opened.append(reader)
            reader.start(timeout=1.0, driven=True)  # raises UnsupportedDevice for a refused board
            if reader.driven:
                controller.add_pollable(reader)

    def pin_factory(self, cfg: Config) -> Any:
        """`[gpio] pin_factory`, made once: the dealer's GPIO and the PN5180's lines share it."""
        if self._pin_factory is None:
            self._pin_factory = _pin_factory(cfg.gpio.pin_factory)
        return self._pin_factory

    def set_light(self, state: str) -> None:
        if self.light is not None:
            self.light.set(state)

    def close(self) -> None:
        for device in reversed(self.opened):
            try:
                device.close()
            except Exception:  # closing must go on for the others
                log.exception("closing %r", device)
        self.opened.clear()


def _pin_factory(name: str) -> Any:
    if name == "lgpio":
        from gpiozero.pins.lgpio import LGPIOFactory
        return LGPIOFactory()
    if name == "rpigpio":
        from gpiozero.pins.rpigpio import RPiGPIOFactory
        return RPiGPIOFactory()
    if name == "native":
        from gpiozero.pins.native import NativeFactory
        return NativeFactory()
    from gpiozero.pins.mock import MockFactory
    return MockFactory()


def main(args: argparse.Namespace) -> int:
    logging.basicConfig(level=getattr(logging, args.log_level), stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    faulthandler.enable()  # systemd's watchdog kills a hung loop with SIGABRT: its stack goes to the log
    try:
        cfg = Config.load(args.config)
        from protocol.config import table_keys

        table_keys(cfg.security, cfg.source)  # the certificates' files, before anything is opened
        if args.check:
            check_users(cfg)
    except ConfigError as exc:
        print(f"croupier run: {exc}", file=sys.stderr)
        return 2
    if args.check:
        print(f"configuration ok: {cfg.source}")
        return 0
    try:  # the code and profiles as signed, before any device, socket or journal is opened
        manifest_sha256 = check_at_start(cfg.security.manifest, cfg.security.manifest_key, cfg.security.profiles,
                                         cfg.source)
    except ManifestError as exc:
        print(f"croupier run: {exc}", file=sys.stderr)
        return 2
    except CodeChanged as exc:
        log.critical("start refused: %s", exc)
        print(f"croupier run: {exc}", file=sys.stderr)
        integrity_failed(Path(args.state), exc)
        return 1
    try:
        check_users(cfg)  # read once the code is known good, before anything is opened
    except ConfigError as exc:
        print(f"croupier run: {exc}", file=sys.stderr)
        return 2
    return serve(cfg, Path(args.state), manifest_sha256)


def _freeze(game: str | None) -> None:
    """What start-up built (modules, the replayed journal, and at a UTH or poker table the 7-card evaluator's tables,
    ~110 ms, else built in the first showdown's step) lives as long as the process: out of the collector's sight
    (`gc.freeze`), its collections go over each hand's garbage only."""
    from engine.evaluate import tables
    from engine.games import UTH, is_poker

    if game is not None and (game == UTH.code or is_poker(game)):
        tables()
    gc.collect()
    gc.freeze()


def serve(cfg: Config, state_dir: Path, manifest_sha256: str | None = None) -> int:
    """Run the controller for `cfg` with its journal in `state_dir` until a signal stops it
    (`manifest_sha256`: the verified manifest's, for the `start` audit entry)."""
    # Imported here, after the manifest's check in `main`: the controller, the tables and the
    # drivers are checked before any of their code runs (what the configuration needs is not).
    import zmq

    from drivers.errors import DeviceError
    from firmware_host.service.controller import Controller
    from protocol.feed import Feed, FeedError
    from firmware_host.service.journal import Journal, JournalError
    from firmware_host.service.notify import Notifier

    ctx: zmq.Context[Any] = zmq.Context()
    feed: Feed | None = None
    journal: Journal | None = None
    audit: AuditLog | None = None
    outcome = "start failed"  # the stop entry's: "stopped" after a clean stop
    devices = Devices()
    notifier = Notifier.from_environment()
    try:
        journal = Journal.open(state_dir)
        audit = open_audit(state_dir, cfg, manifest_sha256)
        feed, zap, keys = open_feed(ctx, cfg, audit)
        controller = Controller(journal, table=cfg.table.name, seats=cfg.table.seats, default_setup=default_setup(cfg),
                                limits=cfg.limits.as_dict(), feed=feed, audit=audit,
                                security=cfg.security, rights=cfg.rights, commands=cfg.commands,
                                max_steps=cfg.table.max_steps_per_hand, money=cfg.table.money,
                                tray_stops=cfg.table.tray_difference_stops, certificates=cfg.table.certificate_policy,
                                chip_set=cfg.chip_set)
        controller.zap, controller.ratings_day = zap, cfg.ratings  # the gaming day: a closed session's adjusting
        replayed = controller.recover()
        journal.record_boot(feed.boot, controller.clock())
        try:
            controller.bind_commands(ctx, cfg.commands.endpoint, keys)
        except zmq.ZMQError as exc:  # in use, or no such interface: the configuration's to fix
            raise ConfigError(f"{cfg.source}: [commands] endpoint: cannot bind {cfg.commands.endpoint}: "
                              f"{exc}") from exc
        devices.open(cfg, controller)
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, lambda *_: controller.stop())
        print(json.dumps({"ready": True, "table": cfg.table.name, "boot": feed.boot, "hand": controller.hand,
                          "replayed": replayed, "pid": os.getpid()}), flush=True)
        log.info("table %s ready: hand %d, %d event(s) replayed, boot %s", cfg.table.name, controller.hand,
                 replayed, feed.boot)
        notifier.ready(f"table {cfg.table.name} ready: hand {controller.hand}, {replayed} event(s) replayed")
        _freeze(cfg.table.game)  # start-up's objects out of the collector's sight
        outcome = "failed"
        controller.run(ctx, on_turn=notifier.watchdog)
        outcome = "stopped"
        return 0
    except ConfigError as exc:
        print(f"croupier run: {exc}", file=sys.stderr)
        return 2
    except (JournalError, FeedError, zmq.ZMQError) as exc:
        print(f"croupier run: {exc}", file=sys.stderr)
        return 1
    except DeviceError as exc:  # a device refused at start (unsupported firmware, its port in use): said plainly
        log.error("start failed: %s", exc)
        print(f"croupier run: {exc}", file=sys.stderr)
        return 1
    except Exception as exc:  # anything else: a bug, shown with its traceback
        log.exception("start failed")
        print(f"croupier run: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    finally:
        notifier.stopping("closing devices, feed and journal")
        notifier.close()
        devices.close()
        if feed is not None:
            feed.close()
        if journal is not None:
            journal.close()
        if audit is not None:
            audit.write("stop", {"outcome": outcome, "pid": os.getpid()})
            audit.close()
        ctx.destroy(linger=0)  # closes the ZAP handler's socket too


def default_setup(cfg: Config) -> Any:
    """The table the configuration opens at the first start (None: wait for `open`)."""
    from engine.games import is_poker
    from firmware_host.tables.house.table import HouseSetup
    from firmware_host.tables.poker.table import PokerSetup

    if cfg.table.game is not None and is_poker(cfg.table.game):
        return PokerSetup.from_body(cfg.poker.as_body(cfg.table.game, cfg.table.seats), cfg.table.seats)
    if cfg.table.game:
        return HouseSetup(cfg.table.game, cfg.table.profile, cfg.limits.as_dict(), cfg.table.seats,
                          text=cfg.profile)  # the profile as read with the configuration
    return None


def open_feed(ctx: zmq.Context[Any], cfg: Config,
              audit: AuditLog | None) -> tuple[Feed, ZapHandler | None, KeyPair | None]:
    """The feed's sockets, and the table's keys and ZAP handler when `[security]` sets them: the
    handler is bound first, the TCP sockets are CURVE servers it checks, and it cuts a revoked key's
    connections through the feed. Raises FeedError, ConfigError (the key files), zmq.ZMQError."""
    from protocol.feed import Feed
    from protocol.config import table_keys
    from protocol.zap import ZapHandler

    keys = table_keys(cfg.security, cfg.source)
    zap = ZapHandler(ctx, cfg.security.clients, cfg.access, audit) if keys is not None else None
    feed = Feed(ctx, cfg.table.name, public=cfg.feed.public, snapshot=cfg.feed.snapshot, full=cfg.feed.full,
                full_snapshot=cfg.feed.full_snapshot, heartbeat_s=cfg.feed.heartbeat_s, keys=keys,
                full_delay_s=cfg.security.full_delay_s, changes=cfg.feed.changes)
    if zap is not None:
        feed.guard = zap.admits
        zap.on_cut = feed.reopen
    return feed, zap, keys


def check_users(cfg: Config) -> None:
    """The users file `[security] users` names, read once at start. Raises ConfigError naming it."""
    from protocol.users import Users, UsersError  # after the manifest's check, like the rest

    if cfg.security.users:
        try:
            Users.load(cfg.security.users)
        except UsersError as exc:
            raise ConfigError(f"{cfg.source}: [security] users: {exc}") from None


def open_audit(state_dir: Path, cfg: Config, manifest_sha256: str | None = None) -> AuditLog | None:
    """The state directory's audit log with this start's `start` and `config` entries; None (logged
    loudly) when it cannot be opened: the table runs without it rather than not at all."""
    try:
        audit = AuditLog.open(state_dir)
    except AuditError as exc:
        log.critical("AUDIT LOG CANNOT BE OPENED, running without it: %s", exc)
        return None
    signed = {"manifest_sha256": manifest_sha256} if manifest_sha256 else {}
    audit.write("start", start_details(table=cfg.table.name, pid=os.getpid(), **signed))
    audit.write("config", config_details(cfg.source))
    return audit


def integrity_failed(state_dir: Path, exc: CodeChanged) -> None:
    """An `integrity_failed` audit entry for a start the manifest stopped, when the log can be opened."""
    try:
        audit = AuditLog.open(state_dir)
    except AuditError as error:
        log.critical("AUDIT LOG CANNOT BE OPENED for the integrity failure: %s", error)
        return
    audit.write("integrity_failed", {"manifest": exc.manifest, "error": str(exc)[:2000], "pid": os.getpid(),
                                     "files": [str(d) for d in exc.differences[:200]],
                                     "differences": len(exc.differences)})
    audit.close()
