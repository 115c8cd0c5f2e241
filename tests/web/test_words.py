"""The pages' catalogs (words.py): every language names every key, with the same fields; /words.json serves the
configured one; `[display] language` is checked."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from engine.cards import DECK, Card
from engine.evaluate import high, named_ranks, three_card
from engine.games import HOUSE_GAMES
from engine.poker.variants import VARIANTS
from pages import words
from firmware_host.display.config import DisplayConfig
from protocol.config import ConfigError


def test_every_language_names_every_key_with_the_same_fields() -> None:
    catalogs = words.catalogs()
    assert set(catalogs) == set(words.LANGUAGES)
    keys = set(catalogs["en"])
    for lang, catalog in catalogs.items():
        assert set(catalog) == keys, lang
    for code in [*HOUSE_GAMES, *VARIANTS]:  # every game has a title in every language
        assert f"game.{code}" in keys
    assert catalogs["en"]["game.uth"] == HOUSE_GAMES["uth"].title  # English's titles are the engine's
    assert catalogs["fr"]["meta.locale"] == "fr-FR"


def _named(catalog: dict[str, str] | object, category: str, ranks: tuple[str, ...]) -> str:
    """A hand's name as the pages write it (words.js `rankedHand`): the catalog's `hand_ranked` sentence with the
    ranks' words."""
    assert isinstance(catalog, Mapping)
    fields = {}
    for suffix, rank in zip(("", "2"), ranks):
        fields |= {f"rank{suffix}": catalog[f"rank_one.{rank}"], f"ranks{suffix}": catalog[f"rank_many.{rank}"],
                   f"of_ranks{suffix}": catalog[f"rank_of.{rank}"]}
    return str(catalog[f"hand_ranked.{category}"]).format(**fields)


def _one_hand_a_class() -> Iterator[tuple[Card, ...]]:
    """A 5-card hand of every multiset of ranks (a rank's cards in different suits; five different ranks not all one
    suit), and five different ranks in one suit: one hand of each of the 7,462 classes of high hand."""
    for ranks in itertools.combinations_with_replacement(range(2, 15), 5):
        counts = Counter(ranks)
        if max(counts.values()) > 4:
            continue
        if len(counts) == 5:
            yield tuple(Card(r, 0) for r in ranks)  # the flush (or straight flush)
            yield tuple(Card(r, 1 if i == 0 else 0) for i, r in enumerate(ranks))
        else:
            yield tuple(Card(r, n) for r, count in counts.items() for n in range(count))


def test_the_english_hand_names_are_the_engines_and_french_names_the_rank() -> None:
    """Every class of 5-card high hand and of three-card hand: English's sentence with the ranks the engine cites
    (`named_ranks`) is the engine's own name, so the pages name a hand as the engine does; French cites the rank."""
    catalogs = words.catalogs()
    seen: set[int] = set()
    for hand in _one_hand_a_class():
        value = high(hand)
        seen.add(value.strength)
        assert _named(catalogs["en"], value.category, named_ranks(value)) == value.name
    assert len(seen) == 7462  # every class once: the 2,598,960 hands valued would give no other
    for hand in itertools.combinations(DECK, 3):
        value = three_card(hand)
        assert _named(catalogs["en"], value.category, named_ranks(value)) == value.name
    fr = catalogs["fr"]
    assert _named(fr, "pair", ("K",)) == "Paire de rois"
    assert _named(fr, "pair", ("A",)) == "Paire d'as"
    assert _named(fr, "full_house", ("A", "5")) == "Full aux as par les cinq"
    assert _named(fr, "two_pair", ("Q", "8")) == "Double paire, dames et huit"
    assert _named(fr, "flush", ("J",)) == "Couleur hauteur valet"


def test_a_catalog_with_a_field_missing_is_refused(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for lang in words.LANGUAGES:
        (tmp_path / f"{lang}.toml").write_text((words.LANG / f"{lang}.toml").read_text(encoding="utf-8"),
                                              encoding="utf-8")
    fr = tmp_path / "fr.toml"
    fr.write_text(fr.read_text(encoding="utf-8").replace('seat = "Place {seat}"', 'seat = "Place"'), encoding="utf-8")
    monkeypatch.setattr(words, "LANG", tmp_path)
    words.catalogs.cache_clear()
    try:
        with pytest.raises(words.CatalogError, match="common.seat"):
            words.catalogs()
    finally:
        words.catalogs.cache_clear()


def test_the_display_language_is_checked() -> None:
    assert DisplayConfig.parse('[display]\nlanguage = "fr"\n').language == "fr"
    assert DisplayConfig.parse("[display]\n").language == "en"
    with pytest.raises(ConfigError, match="language: must be one of 'en', 'fr', not 'de'"):
        DisplayConfig.parse('[display]\nlanguage = "de"\n')
    assert words.words_for("fr")["words"]["common.hand"] == "Coup"


@pytest.mark.parametrize("section", ["poker_console", "poker_table"])
def test_every_street_of_every_poker_game_has_its_words(section: str) -> None:
    """Found dealing 2-7 triple draw by hand at a French console: its head read "FIRST DRAW", the engine's English (the
    console had no word for a draw's streets, nor made the street a key as the players' screen does: state.js
    streetKey)."""
    streets = {street.name for variant in VARIANTS.values() for street in variant.streets}
    keys = {f"{section}.street_{name.replace(' ', '_')}" for name in streets}
    for lang in words.LANGUAGES:
        assert sorted(keys - set(words.catalogs()[lang])) == [], lang
