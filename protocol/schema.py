"""JSON Schema (draft 2020-12) made from a typed message's TypedDict: the contract the pages are served.

Handles the types the messages use (`protocol.messages`): str, int, bool, float, None, Any, list,
dict with string keys, Literal, unions, NotRequired keys and nested TypedDicts (each once, under
`$defs`, referred to by name). A TypedDict's object takes no key it does not declare, so a key added
to a view without its type is seen by the test that validates real states against the schema.

>>> from typing import Literal, NotRequired, TypedDict
>>> Seat = TypedDict("Seat", {"seat": int, "owes": NotRequired[Literal["small", "big"] | None]})
>>> schema = json_schema(Seat)
>>> schema["required"], schema["properties"]["owes"]
(['seat'], {'anyOf': [{'enum': ['small', 'big']}, {'type': 'null'}]})
"""

from __future__ import annotations

import types
import typing
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints, is_typeddict

DIALECT = "https://json-schema.org/draft/2020-12/schema"

_SCALARS: dict[Any, dict[str, Any]] = {
    str: {"type": "string"}, int: {"type": "integer"}, bool: {"type": "boolean"}, float: {"type": "number"},
    type(None): {"type": "null"},
}


def json_schema(message: Any, schema_id: str | None = None) -> dict[str, Any]:
    """The JSON Schema of TypedDict `message`: its object at the top, every nested TypedDict under
    `$defs` (`message` too when a nested type refers back to it). Raises TypeError for a type it
    cannot write (a set, a tuple, a class of ours)."""
    if not is_typeddict(message):
        raise TypeError(f"{message!r} is not a TypedDict")
    defs: dict[str, dict[str, Any]] = {}
    top = _object(message, defs)
    head: dict[str, Any] = {"$schema": DIALECT}
    if schema_id is not None:
        head["$id"] = schema_id
    return {**head, "title": message.__name__, **top, **({"$defs": dict(sorted(defs.items()))} if defs else {})}


def _object(message: Any, defs: dict[str, dict[str, Any]]) -> dict[str, Any]:
    hints = get_type_hints(message)  # NotRequired[...] stripped; the required keys say which are
    required = message.__required_keys__
    out: dict[str, Any] = {"type": "object"}
    doc = message.__dict__.get("__doc__")
    if doc:
        out["description"] = " ".join(doc.split("\n\n")[0].split())
    out["properties"] = {name: _type(hint, defs) for name, hint in hints.items()}
    out["required"] = [name for name in hints if name in required]
    out["additionalProperties"] = False
    return out


def _type(hint: Any, defs: dict[str, dict[str, Any]]) -> dict[str, Any]:
    if hint is Any:
        return {}
    if hint in _SCALARS:
        return dict(_SCALARS[hint])
    if is_typeddict(hint):
        name = hint.__name__
        if name not in defs:
            defs[name] = {}  # taken before it is written: a type that refers to itself stops here
            defs[name] = _object(hint, defs)
        return {"$ref": f"#/$defs/{name}"}
    origin, args = get_origin(hint), get_args(hint)
    if origin is Literal:
        return {"const": args[0]} if len(args) == 1 else {"enum": list(args)}
    if origin in (Union, types.UnionType):
        return {"anyOf": [_type(arg, defs) for arg in args]}
    if origin is list:
        return {"type": "array", "items": _type(args[0], defs)}
    if origin is dict:
        if args[0] is not str:
            raise TypeError(f"a map's keys are strings on the wire, not {args[0]!r}")
        return {"type": "object", "additionalProperties": _type(args[1], defs)}
    if origin in (typing.NotRequired, typing.Required):
        return _type(args[0], defs)
    raise TypeError(f"no JSON Schema for {hint!r}")
