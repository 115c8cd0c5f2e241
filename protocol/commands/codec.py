"""The command channel's frames: a request's msgpack map unpacked within the decoding limits, and the replies packed.

What a frame may hold, and the words of each refusal of one: `protocol.commands` (the channel's
description, "Limits"). What the map's arguments must be is `protocol.commands.arguments`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import msgpack

from engine.errors import Say
from protocol.requests import Refusal

MAX_DEPTH = 8
"""How deeply maps and arrays may nest in a request (the deepest, `open`'s stakes, nest 3 deep)."""

MAX_REQUEST_BYTES = 64 * 1024
"""The longest request frame taken by default (`[commands] max_request_bytes`); the largest real one,
a poker `open`, is under 1 KiB."""

MAX_STR_BYTES = 4096
"""The longest string or binary value decoded in a request (a reason or a profile name: 500 characters)."""

MAX_ENTRIES = 64
"""The most entries of one map or array decoded in a request (an `open` has 13 keys, blinds 10)."""

MAX_ID_CHARS = 64
"""The longest request id, in characters (journaled with the event, looked up on every re-send)."""

_INT64 = (-(2**63), 2**63 - 1)

_LIMIT_WORDS = {"max_str_len": "a string longer than", "max_bin_len": "binary data longer than",
                "max_array_len": "an array of more entries than", "max_map_len": "a map of more entries than"}
_KINDS = {"NoneType": "nil", "bool": "a boolean", "int": "a number", "float": "a number", "str": "a string",
          "bytes": "binary data", "list": "an array", "tuple": "an array", "dict": "a map"}



def _unpacker(size: int) -> msgpack.Unpacker:
    """An unpacker that holds every value of a request to the limits above (and the buffer to `size`)."""
    return msgpack.Unpacker(raw=False, max_buffer_size=max(size, 1), max_str_len=MAX_STR_BYTES,
                            max_bin_len=MAX_STR_BYTES, max_array_len=MAX_ENTRIES, max_map_len=MAX_ENTRIES,
                            max_ext_len=0)


def too_large(size: int, limit: int) -> str:
    """What is said of a frame over the size limit."""
    return f"too large: a request is at most {limit} bytes, this frame has {size}"


def id_problem(req_id: object) -> str | None:
    """Why `req_id` cannot be a request id, or None when it can (None: no id given).

    >>> id_problem("r1") is None, id_problem(2**63) is not None, id_problem("x" * 65) is not None
    (True, True, True)
    """
    if req_id is None:
        return None
    if isinstance(req_id, bool) or not isinstance(req_id, (str, int)):
        return "id must be a string or an integer"
    if isinstance(req_id, int):
        return None if _INT64[0] <= req_id <= _INT64[1] else "id: an integer id must fit in 64 bits (int64)"
    if not 0 < len(req_id) <= MAX_ID_CHARS or not req_id.isprintable():
        return f"id: a string id has 1 to {MAX_ID_CHARS} printable characters"
    return None


def _unpack_failure(exc: Exception) -> str:
    """What is wrong with a frame msgpack refused, in words (several of its errors carry none)."""
    if isinstance(exc, msgpack.exceptions.StackError):
        return "nested too deep: more levels of maps and arrays than msgpack will decode"
    if isinstance(exc, msgpack.exceptions.FormatError):
        return "not msgpack: a byte that begins no msgpack value (0xc1 is never used)"
    if isinstance(exc, msgpack.exceptions.OutOfData):
        return "not msgpack: the frame ends in the middle of a value"
    over = re.fullmatch(r"(\d+) exceeds (max_\w+_len)\((\d+)\)", str(exc))
    if over is not None and over.group(2) == "max_ext_len":
        return "not a request: a msgpack extension value (no request holds one)"
    if over is not None and over.group(2) in _LIMIT_WORDS:
        return f"too large: {_LIMIT_WORDS[over.group(2)]} {over.group(3)} ({over.group(1)})"
    key = re.fullmatch(r"(\w+) is not allowed for map key when strict_map_key=True", str(exc))
    if key is not None:  # msgpack's own words name its setting, not the frame: a random frame's likeliest refusal
        return f"not a request: a map key that is {_KINDS.get(key.group(1), key.group(1))} (a request's keys are strings)"
    return f"not msgpack: {exc}" if str(exc) else f"not msgpack ({type(exc).__name__})"


def _kind(value: object) -> str:
    """What a msgpack value is, in words ("a number", "nil")."""
    return _KINDS.get(type(value).__name__, type(value).__name__)


def _deeper_than(value: object, limit: int) -> bool:
    """Whether maps and arrays nest more than `limit` levels in `value` (walked without recursion)."""
    stack: list[tuple[object, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list, tuple)):
            if depth > limit:
                return True
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return False



class Malformed(ValueError):
    """A request that is not a well-formed command (bad msgpack, unknown command, bad argument);
    `say`: its words when a person typed what is wrong (a card typed by hand)."""

    def __init__(self, message: str, say: Say | None = None) -> None:
        super().__init__(message)
        self.say = say


def unpack_request(frame: bytes, max_bytes: int = MAX_REQUEST_BYTES) -> dict[Any, Any]:
    """The map one request frame holds. Raises Malformed saying what is wrong (never in no words: longer
    than `max_bytes`, not msgpack, a value over the decoding limits, not a map, nested deeper than MAX_DEPTH)."""
    if not frame:
        raise Malformed("not msgpack: an empty frame")
    if len(frame) > max_bytes:
        raise Malformed(too_large(len(frame), max_bytes))
    unpacker = _unpacker(len(frame))
    try:
        unpacker.feed(frame)
        data = unpacker.unpack()
    except Exception as exc:  # msgpack raises several unrelated types
        raise Malformed(_unpack_failure(exc)) from None
    if unpacker.tell() != len(frame):
        raise Malformed("not msgpack: bytes left over after the first value (one request a frame)")
    if not isinstance(data, dict):
        raise Malformed(f"not a msgpack map: a request is a map, this frame holds {_kind(data)}")
    if _deeper_than(data, MAX_DEPTH):
        raise Malformed(f"nested too deep: a request has at most {MAX_DEPTH} levels of maps and arrays")
    return data


def encode_reply(reply: Mapping[str, Any]) -> bytes:
    packed: bytes = msgpack.packb(dict(reply), use_bin_type=True)
    return packed


_CODE_SAYS: dict[str, str] = {"malformed": "refusal.malformed", "busy": "refusal.busy", "reused_id": "refusal.reused_id",
                              "journal": "refusal.journal", "internal": "refusal.internal"}
"""The words of a refusal that names none of its own, by its code (`refusal.other` for any other code)."""


def error_reply(req_id: Any, code: str, message: str, say: Say | None = None) -> Refusal:
    """A refusal: `code`, the English `error` and `say`, the words a person reads (`engine.errors.say`),
    the refusal's own or its code's (else `refusal.other`, `why` the `error`); None arguments left out."""
    if say is None:
        say = {"key": _CODE_SAYS.get(code, "refusal.other"), "args": {"why": message}}
    return {"id": req_id, "ok": False, "code": code, "error": message,
            "say": {"key": str(say["key"]), "args": {k: v for k, v in say.get("args", {}).items() if v is not None}}}


def request_id_of(frame: bytes, max_bytes: int = MAX_REQUEST_BYTES) -> Any:
    """Best effort: the `id` of a request that failed to decode (or was not decoded: `busy`), to echo
    it in the reply; None for a frame over `max_bytes` or the decoding limits, or an id that is not one
    (`id_problem`): a refusal never echoes a huge id."""
    if len(frame) > max_bytes:
        return None
    unpacker = _unpacker(len(frame))
    try:
        unpacker.feed(frame)
        data = unpacker.unpack()
    except Exception:  # garbage: no id to echo
        return None
    rid = data.get("id") if isinstance(data, dict) else None
    return rid if rid is not None and id_problem(rid) is None else None
