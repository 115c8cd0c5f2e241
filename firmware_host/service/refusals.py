"""A refused command's reply: its code, the English `error` and the words a person reads (`say`).

The words are declared where the refusal is raised (`engine.errors.say`, carried by the error as
`say`); the reply passes them on (`commands.error_reply`). A refusal that names an amount has its
English `error` written from the English catalog's sentence, the amounts in the table's money
(`EUR 5.00`, not `500`), so the log, the command line and the pages say the same thing.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from engine.cards import printed
from engine.errors import Say
from engine.money import Money
from pages.words import catalogs
from protocol.commands import error_reply
from protocol.requests import Refusal

_FIELD = re.compile(r"\{([a-z_][a-z0-9_]*)\}")


def refusal(req_id: Any, code: str, exc: BaseException, money: Money = Money()) -> Refusal:
    """The reply refusing a request for `exc` (its `say`, when it has one)."""
    said: Say | None = getattr(exc, "say", None)
    message = str(exc)
    if said is not None and any(isinstance(v, Mapping) and "money" in v for v in said.get("args", {}).values()):
        message = english(said, money)
    return error_reply(req_id, code, message, said)


def english(said: Say, money: Money = Money()) -> str:
    """The words `said` in the English catalog, amounts in `money`, cards as `10♦`; a key the
    catalog lacks is shown as it is (the catalogs' test keeps every key the code sends in them).

    >>> english({"key": "refusal.below_minimum", "args": {"seat": 3, "bet": {"word": "circle.ante"},
    ...          "amount": {"money": 100}, "minimum": {"money": 500}}})
    'Seat 3: the Ante EUR 1.00 is below the table minimum EUR 5.00'
    """
    words = catalogs()["en"]
    args = said.get("args", {})
    text = words.get(said["key"], said["key"])
    return _FIELD.sub(lambda m: _shown(args.get(m.group(1), m.group(0)), words, money), text)


def _shown(value: Any, words: Mapping[str, str], money: Money) -> str:
    if isinstance(value, Mapping):
        if "money" in value:
            return money.format(int(value["money"]))
        if "card" in value:
            return printed(str(value["card"]))
        if "word" in value:  # a word, with its own fields when it has some (words.js argText alike)
            inner = value.get("args") or {}
            text = words.get(str(value["word"]), str(value["word"]))
            return _FIELD.sub(lambda m: _shown(inner.get(m.group(1), m.group(0)), words, money), text)
        if "times" in value:  # a multiple, or those open: the catalog's notation (words.js argText alike)
            each = value["times"] if isinstance(value["times"], list) else [value["times"]]
            said = (words.get("common.times", "{times}x").replace("{times}", str(m)) for m in each)
            return words.get("common.or", " or ").join(said)
    return str(value)
