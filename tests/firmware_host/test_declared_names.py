"""The command channel and the configuration take exactly the names the engine declares (`engine.games`):
every declared game, structure, action, decision, stakes key, seat and Play multiple is accepted;
any other is refused with a message listing the declared ones."""

from __future__ import annotations

from typing import Any

import msgpack
import pytest

from engine import games
from protocol.commands import Command, Malformed
from firmware_host.service.config import Config
from protocol.config import ConfigError


def decode(**data: Any) -> Command:
    return Command.decode(msgpack.packb(data, use_bin_type=True))


def refusal(**data: Any) -> str:
    with pytest.raises(Malformed) as info:
        decode(**data)
    return str(info.value)


def assert_lists(message: str, names: tuple[Any, ...]) -> None:
    """The refusal names every declared value (so a dealer sees what the table takes)."""
    for name in names:
        assert str(name) in message, (name, message)


# -- the command channel ----------------------------------------------------------------------------

def open_body(game: str) -> dict[str, Any]:
    return {"cmd": "open", "game": game, **({"structure": "no-limit"} if games.is_poker(game) else {})}


@pytest.mark.parametrize("game", games.GAMES)
def test_every_declared_game_opens(game: str) -> None:
    assert decode(**open_body(game)).args["game"] == game


def test_an_undeclared_game_is_refused_with_the_declared_ones() -> None:
    message = refusal(cmd="open", game="blackjack")
    assert "'blackjack'" in message
    assert_lists(message, games.GAMES)


@pytest.mark.parametrize("structure", games.STRUCTURES)
def test_every_declared_structure_opens(structure: str) -> None:
    assert decode(cmd="open", game="holdem", structure=structure).args["structure"] == structure


def test_an_undeclared_structure_is_refused_with_the_declared_ones() -> None:
    assert_lists(refusal(cmd="open", game="holdem", structure="table-stakes"), games.STRUCTURES)


@pytest.mark.parametrize("key", games.STAKES_KEYS)
def test_every_declared_stakes_key_is_taken(key: str) -> None:
    value: Any = {"blinds": [1, 2], "antes": 1, "uncapped_heads_up": True}.get(key, 5)
    cmd = decode(cmd="open", game="holdem", structure="no-limit", stakes={key: value})
    assert list(cmd.args["stakes"]) == [key]


def test_an_undeclared_stakes_key_is_refused_with_the_declared_ones() -> None:
    assert_lists(refusal(cmd="open", game="holdem", structure="no-limit", stakes={"straddle": 4}),
                 games.STAKES_KEYS)


@pytest.mark.parametrize("action", games.POKER_ACTIONS)
def test_every_declared_poker_action_is_taken(action: str) -> None:
    assert decode(cmd="act", seat=1, action=action).args["action"] == action


def test_an_undeclared_poker_action_is_refused_with_the_declared_ones() -> None:
    assert_lists(refusal(cmd="act", seat=1, action="shove"), games.POKER_ACTIONS)


@pytest.mark.parametrize("action", games.SEAT_ACTIONS)
def test_every_declared_seat_action_is_taken(action: str) -> None:
    assert decode(cmd="seat", seat=1, action=action).args["action"] == action


def test_an_undeclared_seat_action_is_refused_with_the_declared_ones() -> None:
    assert_lists(refusal(cmd="seat", seat=1, action="stand_up"), games.SEAT_ACTIONS)


@pytest.mark.parametrize("decision", games.DECISIONS)
def test_every_declared_decision_is_taken(decision: str) -> None:
    assert decode(cmd="decide", seat=1, decision=decision).args["decision"] == decision


def test_an_undeclared_decision_is_refused_with_the_declared_ones() -> None:
    assert_lists(refusal(cmd="decide", seat=1, decision="raise"), games.DECISIONS)


def test_the_play_multiples_are_the_declared_ones() -> None:
    for multiple in games.PLAY_MULTIPLES:
        assert decode(cmd="decide", seat=1, decision="play", multiple=multiple).args["multiple"] == multiple
    for multiple in (0, max(games.PLAY_MULTIPLES) + 1):
        assert_lists(refusal(cmd="decide", seat=1, decision="play", multiple=multiple), games.PLAY_MULTIPLES)


@pytest.mark.parametrize("cmd, args, bounds", [
    ("bet", {"bets": {"ante": 5}}, games.HOUSE_SEATS),
    ("decide", {"decision": "play"}, games.HOUSE_SEATS),
    ("act", {"action": "fold"}, (1, games.POKER_SEATS[1])),
    ("seat", {"action": "sit_in"}, (1, games.POKER_SEATS[1])),
])
def test_seats_are_the_declared_ones(cmd: str, args: dict[str, Any], bounds: tuple[int, int]) -> None:
    low, high = bounds
    for seat in (low, high):
        assert decode(cmd=cmd, seat=seat, **args).args["seat"] == seat
    for seat in (low - 1, high + 1):
        assert f"{low}..{high}" in refusal(cmd=cmd, seat=seat, **args)


def test_a_poker_tables_seats_in_maps_and_lists_are_the_declared_ones() -> None:
    high = games.POKER_SEATS[1]
    body = {"cmd": "open", "game": "holdem", "structure": "no-limit"}
    assert decode(**body, stacks={str(high): 100}, sitting_out=[high], button=high).args["button"] == high
    assert f"1..{high}" in refusal(**body, stacks={str(high + 1): 100})
    assert f"1..{high}" in refusal(**body, button=high + 1)
    assert f"1..{high}" in refusal(**body, sitting_out=[high + 1])


# -- the configuration ------------------------------------------------------------------------------

POKER_STAKES = {"no-limit": "blinds = [1, 2]", "pot-limit": "blinds = [1, 2]",
                "fixed-limit": "blinds = [1, 2]\nsmall_bet = 2\nbig_bet = 4",
                "spread-limit": "blinds = [1, 2]\nmin_bet = 2\nmax_bet = 10"}


def config(game: str, seats: int | None = None, structure: str = "no-limit") -> Config:
    text = f'[table]\ngame = "{game}"\n' + (f"seats = {seats}\n" if seats is not None else "")
    if games.is_poker(game):
        text += f'[poker]\nstructure = "{structure}"\n{POKER_STAKES.get(structure, "")}\n'
        if seats is None:
            text = text.replace("[poker]", "seats = 6\n[poker]", 1)
    return Config.parse(text, source="t.toml")


@pytest.mark.parametrize("game", games.GAMES)
def test_the_configuration_takes_every_declared_game(game: str) -> None:
    assert config(game).table.game == game


def test_the_configuration_refuses_an_undeclared_game_with_the_declared_ones() -> None:
    with pytest.raises(ConfigError, match=r"t\.toml: \[table\] game") as info:
        config("blackjack")
    assert_lists(str(info.value), games.GAMES)


@pytest.mark.parametrize("structure", games.STRUCTURES)
def test_the_configuration_takes_every_declared_structure(structure: str) -> None:
    assert config("holdem", structure=structure).poker.structure == structure


def test_the_configuration_refuses_an_undeclared_structure_with_the_declared_ones() -> None:
    with pytest.raises(ConfigError, match=r"\[poker\] structure") as info:
        config("holdem", structure="table-stakes")
    assert_lists(str(info.value), games.STRUCTURES)


@pytest.mark.parametrize("game", games.GAMES)
def test_the_configurations_seats_are_the_declared_ones(game: str) -> None:
    low, high = games.POKER_SEATS if games.is_poker(game) else games.HOUSE_SEATS
    for seats in (low, high):
        assert config(game, seats).table.seats == seats
    for seats in (low - 1, high + 1):
        with pytest.raises(ConfigError, match=r"\[table\] seats"):
            config(game, seats)


# -- the tables -------------------------------------------------------------------------------------

@pytest.mark.parametrize("game", games.GAMES)
def test_a_table_opens_every_declared_game(game: str) -> None:
    from firmware_host.tables.registry import open_setup
    body = {"game": game, **({"structure": "no-limit", "stakes": {"blinds": [1, 2]}} if games.is_poker(game) else {})}
    assert open_setup(body, 6).game == game


@pytest.mark.parametrize("action", games.POKER_ACTIONS)
def test_the_poker_table_knows_every_declared_action(action: str) -> None:
    """Each declared action reaches the engine: taken, or refused by the rules, never unknown."""
    from engine.errors import EngineError
    from firmware_host.tables.poker.table import PokerSetup
    setup = PokerSetup.from_body({"game": "holdem", "structure": "no-limit", "stakes": {"blinds": [1, 2]},
                                  "seats": 3, "stacks": {"1": 100, "2": 100, "3": 100}})
    table = setup.new_table(1)
    table.deal()
    for card in "2c As Kd Qh 6c Ad Kc".split():
        assert table.deal_or_fault(card) is None
    seat = table.engine.actor if table.engine is not None else None
    assert seat is not None
    try:
        table.act(seat, action, 10 if action in ("bet", "raise", "complete") else None)
    except (EngineError, ValueError) as exc:
        assert "unknown action" not in str(exc)


def test_the_poker_table_refuses_an_undeclared_action_with_the_declared_ones() -> None:
    from engine.errors import IllegalAction
    from firmware_host.tables.poker.table import PokerSetup
    table = PokerSetup.from_body({"game": "holdem", "structure": "no-limit", "stakes": {"blinds": [1, 2]},
                                  "seats": 2, "stacks": {"1": 100, "2": 100}}).new_table(1)
    table.deal()
    with pytest.raises(IllegalAction) as info:
        table.act(1, "shove")
    assert_lists(str(info.value), games.POKER_ACTIONS)
    with pytest.raises(IllegalAction) as info:
        table.seat_change(1, "stand_up")
    assert_lists(str(info.value), games.SEAT_ACTIONS)
