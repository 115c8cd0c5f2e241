"""protocol/schema.py: each type the messages use written as JSON Schema, and the test validator's verdicts on it."""

from typing import Any, Literal, NotRequired, TypedDict

import pytest

from protocol import messages
from protocol.schema import DIALECT, json_schema
from tests.protocol.schema_check import problems


class Chip(TypedDict):
    """A chip: its value."""

    value: int


class Stack(TypedDict):
    """A stack of chips, maybe on another stack."""

    seat: int
    chips: list[Chip]
    colour: Literal["red"]
    kind: NotRequired[Literal["cash", "tournament"] | None]
    under: NotRequired["Stack | None"]
    notes: dict[str, Any]
    share: float
    open: bool
    name: str


def test_every_type_the_messages_use() -> None:
    schema = json_schema(Stack, "/schema/stack.json")
    assert schema["$schema"] == DIALECT and schema["$id"] == "/schema/stack.json" and schema["title"] == "Stack"
    assert schema["description"] == "A stack of chips, maybe on another stack."
    assert schema["required"] == ["seat", "chips", "colour", "notes", "share", "open", "name"]
    assert schema["additionalProperties"] is False
    properties = schema["properties"]
    assert properties["seat"] == {"type": "integer"} and properties["share"] == {"type": "number"}
    assert properties["open"] == {"type": "boolean"} and properties["name"] == {"type": "string"}
    assert properties["chips"] == {"type": "array", "items": {"$ref": "#/$defs/Chip"}}
    assert properties["colour"] == {"const": "red"}
    assert properties["kind"] == {"anyOf": [{"enum": ["cash", "tournament"]}, {"type": "null"}]}
    assert properties["under"] == {"anyOf": [{"$ref": "#/$defs/Stack"}, {"type": "null"}]}  # itself, by name
    assert properties["notes"] == {"type": "object", "additionalProperties": {}}
    assert list(schema["$defs"]) == ["Chip", "Stack"]
    assert schema["$defs"]["Chip"]["properties"] == {"value": {"type": "integer"}}


def test_what_it_cannot_write_is_refused() -> None:
    class Seats(TypedDict):
        by_number: dict[int, str]

    class Pair(TypedDict):
        cards: tuple[str, str]

    for typed in (Seats, Pair):
        with pytest.raises(TypeError):
            json_schema(typed)
    with pytest.raises(TypeError, match="not a TypedDict"):
        json_schema(dict)


def test_the_validator_names_each_wrong_place() -> None:
    schema = json_schema(Stack)
    good: dict[str, Any] = {"seat": 1, "chips": [{"value": 5}], "colour": "red", "notes": {}, "share": 1,
                            "open": False, "name": "s", "under": {"seat": 2, "chips": [], "colour": "red",
                                                                   "notes": {"x": [1]}, "share": 0.5, "open": True,
                                                                   "name": "t", "kind": None}}
    assert problems(schema, good) == []
    bad = {**good, "seat": True, "colour": "blue", "kind": "free", "chips": [{"value": 5, "extra": 1}]}
    del bad["name"]
    assert problems(schema, bad) == [
        "$: 'name' is missing",
        "$.seat: bool True is not integer",
        "$.chips[0]: 'extra' is not a declared key",
        "$.colour: 'blue' is not 'red'",
        "$.kind: matches none of 2 types: $.kind: 'free' is not one of ['cash', 'tournament'] | $.kind: str 'free' is not null",
    ]


def test_the_public_states_schema_names_no_type_twice() -> None:
    schema = json_schema(messages.PublicState)
    assert "PublicState" not in schema["$defs"] and {"Spot", "Dealer", "Fault", "HistoryHand"} <= set(schema["$defs"])
    assert set(schema["properties"]) == set(messages.PublicState.__annotations__) | set(
        messages.TableFields.__annotations__)
