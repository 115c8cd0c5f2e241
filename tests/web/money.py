"""Money as the pages write it, worked out here on its own (not by the pages' code): the tests' oracle.

English: `€1,234.50`, `−€7.50`, `+€12.00`; French: `1 234,50 €` (a narrow no-break space between thousands,
a no-break space before the sign of the currency), `−7,50 €`.
"""

from __future__ import annotations

SYMBOLS = {"EUR": "€", "USD": "$", "GBP": "£"}
NARROW_NBSP, NBSP, MINUS = "\u202f", "\u00a0", "\u2212"


def shown(amount: int, lang: str = "en", currency: str = "EUR", decimals: int = 2, signed: bool = False) -> str:
    """`amount` in the smallest unit as a page in `lang` shows it."""
    units, minor = divmod(abs(amount), 10 ** decimals)
    group = "," if lang == "en" else NARROW_NBSP
    whole = f"{units:,}".replace(",", group)
    number = whole + (("." if lang == "en" else ",") + f"{minor:0{decimals}d}" if decimals else "")
    sign = MINUS if amount < 0 else "+" if signed and amount > 0 else ""
    symbol = SYMBOLS.get(currency, currency)
    return f"{sign}{symbol}{number}" if lang == "en" else f"{sign}{number}{NBSP}{symbol}"
