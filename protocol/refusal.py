"""A refused request: the reply's `code` and, in a person's words, its `say` (the table's and the floor's alike)."""

from __future__ import annotations

from engine.errors import Say


class Refused(ValueError):
    """A well-formed step the table cannot take now; `code` is `illegal` or `fault`; `say`: the
    refusal in a person's words (`engine.errors.say`), passed on in the reply."""

    def __init__(self, message: str, code: str = "illegal", say: Say | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.say = say
