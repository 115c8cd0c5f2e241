"""Every configuration file kind refuses, in the one checker's words, an unknown section, an unknown key, a bad
endpoint and a bad heartbeat, naming the file, the section and the key (`protocol/config.py`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from engine.tournament.config import parse_tournament
from firmware_host.display.config import DisplayConfig
from firmware_host.service.config import Config
from floor.config import PitConfig
from floor.director.config import DirectorConfig
from floor.web.config import WebConfig
from protocol.config import ConfigError, Section, parse_file, parse_section


KINDS: dict[str, Callable[[str, str], Any]] = {
    "table": Config.parse, "display": DisplayConfig.parse, "pit": PitConfig.parse, "web": WebConfig.parse,
    "director": lambda text, source: DirectorConfig.parse(text, source), "tournament": parse_tournament,
}


def director(**keys: str) -> str:
    """A `[director]` section with its required keys, `keys` in place of some."""
    given = {"tournament": "'sunday.toml'", "public": "'ipc:///p'", "snapshot": "'ipc:///s'",
             "commands": "'ipc:///c'", **keys}
    return "[director]\n" + "".join(f"{k} = {v}\n" for k, v in given.items())


SECTION = {"table": "feed", "display": "display", "pit": "pit", "web": "web", "director": "director"}
HEARTBEAT = "must be a number of seconds between 0.05 and 60, not 0"
ENDPOINT = "must be a ZeroMQ endpoint tcp://HOST:PORT or ipc://PATH, not 'tcp://10.0.0.5'"

CASES = [
    *[(kind, "[tabel]\nname = 'x'\n", "unknown section [tabel] (known: ") for kind in SECTION],
    ("tournament", "[tabel]\nname = 'x'\n", "unknown section [tabel] (known: [tables], [[levels]], [[payouts]])"),
    *[(kind, f"[{s}]\nhartbeat_s = 1\n", f"[{s}] unknown key 'hartbeat_s' (known: ") for kind, s in SECTION.items()],
    ("tournament", "chips = [1]\n[[levels]]\nsmall_blind = 1\nbig_blind = 2\nduration_s = 60\nblind = 3\n",
     "levels[0].blind: unknown key (known: "),
    ("table", "[feed]\npublic = 'tcp://10.0.0.5'\n", f"[feed] public: {ENDPOINT}"),
    ("display", "[display]\npublic = 'tcp://10.0.0.5'\n", f"[display] public: {ENDPOINT}"),
    ("pit", "[pit]\nlisten = 'tcp://10.0.0.5'\n", f"[pit] listen: {ENDPOINT}"),
    ("director", director(public="'tcp://10.0.0.5'"), f"[director] public: {ENDPOINT}"),
    ("display", "[[display.tables]]\nname = 'a'\npublic = 'tcp://10.0.0.5'\nsnapshot = 'ipc:///s'\n",
     f"[[display.tables]] #1 public: {ENDPOINT}"),
    ("pit", "[[pit.tables]]\nname = 'a'\npublic = 'ipc:///p'\nsnapshot = 'ipc:///s'\ncommands = 'tcp://10.0.0.5'\n",
     f"[[pit.tables]] #1 commands: {ENDPOINT}"),
    ("director", director() + "[[director.tables]]\nname = 'T1'\ncommands = 'ipc:///t1'\npublic = 'tcp://10.0.0.5'\n",
     f"[[director.tables]] #1 public: {ENDPOINT}"),
    ("table", "[feed]\nheartbeat_s = 0\n", f"[feed] heartbeat_s: {HEARTBEAT}"),
    ("display", "[display]\nheartbeat_s = 0\n", f"[display] heartbeat_s: {HEARTBEAT}"),
    ("web", "[web]\npit_heartbeat_s = 0\n", f"[web] pit_heartbeat_s: {HEARTBEAT}"),
    ("display", "[display]\nfloor_db = 'host=db'\npit = 'tcp://10.0.0.2:6556'\n",
     "[display] floor_db: the pit's pages moved to the floor's web process: give floor_db, pit in its [web] section"),
    ("web", "[web]\ntournament = 'tcp://10.0.0.5'\n", f"[web] tournament: {ENDPOINT}"),
    ("web", "[[web.tables]]\nname = 'a'\npublic = 'ipc:///p'\nsnapshot = 'ipc:///s'\nheartbeat_s = 0\n",
     f"[[web.tables]] #1 heartbeat_s: {HEARTBEAT}"),
    ("display", "[[display.tables]]\nname = 'a'\npublic = 'ipc:///p'\nsnapshot = 'ipc:///s'\nheartbeat_s = 0\n",
     f"[[display.tables]] #1 heartbeat_s: {HEARTBEAT}"),
    ("pit", "[pit]\nheartbeat_s = 0\n", f"[pit] heartbeat_s: {HEARTBEAT}"),
    ("director", director(heartbeat_s="0"), f"[director] heartbeat_s: {HEARTBEAT}"),
]


@pytest.mark.parametrize("kind, text, says", CASES)
def test_every_file_kind_refuses_naming_file_section_and_key(kind: str, text: str, says: str) -> None:
    """The same refusal in the same form, whichever file: `FILE: [SECTION] KEY: WHY`."""
    with pytest.raises(ValueError) as refused:  # ConfigError; the engine's TournamentError for the tournament file
        KINDS[kind](text, "floor-7.toml")
    said = str(refused.value)
    assert said.startswith("floor-7.toml: ") or said.startswith("tournament file floor-7.toml: "), said
    assert says in said, said


@dataclass(frozen=True)
class Seat:
    number: int
    player: str = ""


@dataclass(frozen=True)
class Room:
    name: str = "room"
    seats: tuple[Seat, ...] = ()


SEAT = Section(Seat, {"number": lambda v: int(v), "player": str}, required=("number",), unique="number")
ROOM = {"room": Section(Room, {"name": str, "seats": SEAT})}


def test_a_section_its_arrays_of_tables_and_their_refusals() -> None:
    """A key whose schema is a Section is an array of tables, each numbered in the errors, no key twice."""
    rooms = parse_file('[room]\nname = "east"\n[[room.seats]]\nnumber = 1\n[[room.seats]]\nnumber = 2\n'
                       'player = "ann"\n', "r.toml", ROOM)
    assert rooms == {"room": Room("east", (Seat(1), Seat(2, "ann")))}
    assert parse_file("", "r.toml", ROOM) == {"room": Room()}  # a section the file leaves out: its defaults
    for text, says in [('[[room.seats]]\nplayer = "ann"\n', "r.toml: [[room.seats]] #1 number: is missing"),
                       ("[[room.seats]]\nnumber = 1\n[[room.seats]]\nnumber = 1\n",
                        "r.toml: [[room.seats]] #2 number: 1 is given twice (#1 too)"),
                       ('[room]\nseats = 3\n', "r.toml: [room] seats: must be an array of tables ([[room.seats]])"),
                       ('room = 3\n', "r.toml: [room] must be a table of keys, not int"),
                       ('[[room.seats]]\nnumber = "x"\n', "r.toml: [[room.seats]] #1 number: invalid literal")]:
        with pytest.raises(ConfigError) as refused:
            parse_file(text, "r.toml", ROOM)
        assert str(refused.value).startswith(says), str(refused.value)
    with pytest.raises(ConfigError, match=r"^r.toml: \[room\] unknown key 'nmae' \(known: name, seats\)$"):
        parse_section("r.toml", "room", {"nmae": "x"}, ROOM["room"])
