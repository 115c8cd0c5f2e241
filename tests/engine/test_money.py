"""Money as the screens show it: the table's currency, its unit's decimals, amounts in the smallest unit."""

from __future__ import annotations

import pytest

from engine.money import DECIMALS, Money, format_money


@pytest.mark.parametrize(("amount", "currency", "decimals", "text"), [
    (1250, "EUR", 2, "EUR 12.50"), (5, "EUR", 2, "EUR 0.05"), (-5, "EUR", 2, "EUR -0.05"),
    (-1250, "USD", 2, "USD -12.50"), (0, "GBP", 2, "GBP 0.00"), (1500, "JPY", 0, "JPY 1500"),
    (-7, "KRW", 0, "KRW -7"), (1250, "BHD", 3, "BHD 1.250"), (1, "KWD", 3, "KWD 0.001"),
    (123456789, "EUR", 2, "EUR 1234567.89"),
])
def test_format_money(amount: int, currency: str, decimals: int, text: str) -> None:
    assert format_money(amount, currency, decimals) == text


def test_a_signed_amount_shows_a_gain_with_plus_and_zero_without() -> None:
    assert format_money(750, "EUR", 2, signed=True) == "EUR +7.50"
    assert format_money(-750, "EUR", 2, signed=True) == "EUR -7.50"
    assert format_money(0, "EUR", 2, signed=True) == "EUR 0.00"


def test_the_unit_decimals_of_known_codes() -> None:
    assert (DECIMALS["EUR"], DECIMALS["USD"], DECIMALS["GBP"]) == (2, 2, 2)
    assert (DECIMALS["JPY"], DECIMALS["KRW"]) == (0, 0)
    assert (DECIMALS["BHD"], DECIMALS["KWD"]) == (3, 3)
    assert Money.of("usd") == Money("USD", 2) and Money() == Money("EUR", 2)


@pytest.mark.parametrize("code", ["XYZ", "EURO", "", "€"])
def test_an_unknown_code_is_refused(code: str) -> None:
    with pytest.raises(ValueError, match="unknown currency"):
        Money.of(code)


@pytest.mark.parametrize("amount", [12.5, "1250", True, None])
def test_only_integer_amounts_are_money(amount: object) -> None:
    with pytest.raises(ValueError, match="integer"):
        format_money(amount, "EUR", 2)  # type: ignore[arg-type]
