"""Money as a table shows it: an ISO 4217 currency, the decimals of its unit, amounts in the smallest unit.

Every amount in Croupier is an integer in the table's smallest unit (cents for EUR); only a screen
turns it into text, and only here. The text is the currency code, a space and the amount with the
unit's decimals: `EUR 12.50`, `EUR -0.05`, `JPY 1500`, `BHD 1.250` (a code, not a symbol: `$` is
several currencies, and a code reads the same on every terminal).

>>> format_money(1250, "EUR", 2)
'EUR 12.50'
>>> format_money(-5, "EUR", 2)
'EUR -0.05'
>>> format_money(1500, "JPY", 0)
'JPY 1500'
>>> format_money(750, "EUR", 2, signed=True)
'EUR +7.50'
>>> Money.of("bhd").format(1250)
'BHD 1.250'
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DECIMALS", "DEFAULT_CURRENCY", "Money", "format_money"]

DECIMALS: dict[str, int] = {
    **dict.fromkeys(("EUR", "USD", "GBP", "CHF", "CAD", "AUD", "NZD", "SEK", "NOK", "DKK", "PLN", "CZK",
                     "HUF", "RON", "BGN", "TRY", "ZAR", "MXN", "BRL", "ARS", "CNY", "HKD", "MOP", "SGD",
                     "MYR", "THB", "PHP", "INR", "ILS", "AED", "SAR", "QAR", "EGP", "MAD", "RUB", "UAH"), 2),
    **dict.fromkeys(("JPY", "KRW", "VND", "CLP", "ISK", "PYG", "UGX"), 0),
    **dict.fromkeys(("BHD", "KWD", "OMR", "JOD", "TND", "LYD", "IQD"), 3),
}
"""The currencies a table may play in and the decimals of each one's unit (ISO 4217 minor units)."""

DEFAULT_CURRENCY = "EUR"


@dataclass(frozen=True, slots=True)
class Money:
    """A table's currency: its ISO 4217 code and the decimals of its unit."""

    currency: str = DEFAULT_CURRENCY
    decimals: int = 2

    @classmethod
    def of(cls, code: str) -> Money:
        """The currency named by `code` (any case). Raises ValueError for a code not in DECIMALS."""
        upper = code.strip().upper() if isinstance(code, str) else ""
        if upper not in DECIMALS:
            raise ValueError(f"unknown currency {code!r} (an ISO 4217 code: {', '.join(sorted(DECIMALS))})")
        return cls(upper, DECIMALS[upper])

    def format(self, amount: int, *, signed: bool = False) -> str:
        return format_money(amount, self.currency, self.decimals, signed=signed)


def format_money(amount: object, currency: str, decimals: object, *, signed: bool = False) -> str:
    """`amount` (in the smallest unit) as text: `EUR 12.50`; `signed` puts `+` before a gain.
    Raises ValueError for an amount that is not an integer or a negative number of decimals (the parameters are
    `object`: compiled by mypyc, an `int` one would take a bool as a number and refuse a str with a TypeError)."""
    if isinstance(amount, bool) or not isinstance(amount, int):
        raise ValueError(f"an amount is an integer in the smallest unit, not {amount!r}")
    if isinstance(decimals, bool) or not isinstance(decimals, int) or decimals < 0:
        raise ValueError(f"decimals must be an integer >= 0, not {decimals!r}")
    sign = "-" if amount < 0 else ("+" if signed and amount > 0 else "")
    units, minor = divmod(abs(amount), 10 ** decimals)
    number = f"{units}.{minor:0{decimals}d}" if decimals else str(units)
    return f"{currency} {sign}{number}"
