"""The pages' words in each language: the catalogs in `lang/`, checked alike at start, served as /words.json.

A catalog is a TOML file per language (`lang/en.toml`, `lang/fr.toml`): `[meta] locale` (Intl's locale for
money and numbers) and sections of words by screen, each `key = "text"` with `{name}` filled in by the page
(`static/words.js`). The English titles of the engine's games come from the engine itself (`engine.games`,
`engine.poker.variants`), so a game's name is written once; every other catalog names every key English has.
The display serves the language of its configuration (`[display] language`) to every page.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from types import MappingProxyType

from engine.games import HOUSE_GAMES
from engine.poker.variants import VARIANTS

LANG = Path(__file__).parent / "lang"
LANGUAGES: tuple[str, ...] = ("en", "fr")
"""The languages the pages can be shown in (`[display] language`), English first: it names every key."""
_FIELD = re.compile(r"\{([a-z_][a-z0-9_]*)\}")


class CatalogError(ValueError):
    """A catalog that cannot be used: unreadable, a key missing or extra, a placeholder that differs."""


def _flatten(data: Mapping[str, object], source: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for section, words in data.items():
        if not isinstance(words, Mapping):
            raise CatalogError(f"{source}: [{section}] must be a section of words")
        for key, text in words.items():
            if not isinstance(text, str) or not text:
                raise CatalogError(f"{source}: [{section}] {key}: must be non-empty text")
            out[f"{section}.{key}"] = text
    return out


def _engine_titles() -> dict[str, str]:
    """The English game titles as the engine declares them."""
    return {**{f"game.{g.code}": g.title for g in HOUSE_GAMES.values()},
            **{f"game.{code}": v.title for code, v in VARIANTS.items()}}


@cache
def catalogs() -> Mapping[str, Mapping[str, str]]:
    """Every language's words by `section.key`, checked: the same keys as English, the same `{fields}` in each.
    Raises CatalogError."""
    out: dict[str, Mapping[str, str]] = {}
    for lang in LANGUAGES:
        path = LANG / f"{lang}.toml"
        try:
            words: Mapping[str, str] = _flatten(tomllib.loads(path.read_text(encoding="utf-8")), str(path))
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise CatalogError(f"{path}: {exc}") from None
        if lang == LANGUAGES[0]:
            words = {**_engine_titles(), **words}
        out[lang] = MappingProxyType(words)
    english = out[LANGUAGES[0]]
    for lang, words in out.items():
        missing = sorted(set(english) - set(words))
        extra = sorted(set(words) - set(english))
        if missing or extra:
            raise CatalogError(f"lang/{lang}.toml: " + "; ".join(
                part for part in (missing and f"missing {', '.join(missing)}", extra and f"not in English "
                                  f"{', '.join(extra)}") if part))
        for key, text in words.items():
            if set(_FIELD.findall(text)) != set(_FIELD.findall(english[key])):
                raise CatalogError(f"lang/{lang}.toml: {key}: the fields {{...}} differ from English's")
    return MappingProxyType(out)


def words_for(lang: str) -> dict[str, object]:
    """What /words.json serves for `lang`: `{"lang", "locale", "words": {"section.key": text}}`."""
    words = catalogs()[lang]
    return {"lang": lang, "locale": words["meta.locale"], "words": dict(words)}
