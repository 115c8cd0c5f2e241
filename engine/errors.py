"""The engine's one error root, each error also subclassing the matching builtin."""


class EngineError(Exception):
    """Root of every error the engine raises."""


class CardError(EngineError, ValueError):
    """Card text that is not a card (`As`, `Td`, `2c`), or a card that cannot be used here."""


class DuplicateCard(CardError):
    """A card that is already in play, burnt or discarded in this hand: the shoe read it twice."""


class IllegalAction(EngineError, ValueError):
    """A step the rules do not allow now (wrong bet, wrong decision, card out of turn)."""


class ProfileError(EngineError, ValueError):
    """A paytable or rule profile that cannot be used: names the source, key and reason."""


class LimitsError(EngineError, ValueError):
    """Table limits that cannot be used (maximum below minimum, beyond the profile's multiple...)."""


class RoundFormatError(EngineError, ValueError):
    """A round given as data (`croupier settle`'s JSON) that is not well formed: names what is wrong."""
