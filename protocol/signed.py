"""What a supervisor's sign-off leaves in the journal, the closed hands and the full feed: who signed, and a fault's clearing.

Never a PIN. No `from __future__ import annotations` here: Python 3.11 reads `NotRequired` only from
evaluated annotations (`protocol.schema` makes the JSON Schema of the records from them).
"""

from typing import NotRequired, TypedDict


class SignedOff(TypedDict):
    """Who signed a step off (`user`, a supervisor), the role the request came in, and the caller's certificate
    when it came over CURVE (`protocol/signoff.py` `SignOff.admit`)."""

    user: str
    caller_role: str
    caller_key: NotRequired[str]


class Cleared(TypedDict):
    """How a fault was cleared: why, what came next (`continue`, `void`), the `clear` event, who signed it off
    (a journal of before sign-offs: its free-text `by`)."""

    reason: str
    then: str
    event: int
    signed_off: NotRequired[SignedOff]
    by: NotRequired[str]
