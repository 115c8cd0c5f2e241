"""The high evaluator's values of rank multisets and flush rank masks, and its two tables built from them (on first use, by `engine.evaluate`)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

# Strength layout shared by the five-card evaluators: category << 20, then up to five ranks
# (most significant first) in 4-bit fields. Ranks are 2..14 (or 1 for a low ace).
HC, PAIR, TWO_PAIR, TRIPS, STRAIGHT, FLUSH, FULL_HOUSE, QUADS, STRAIGHT_FLUSH = range(9)
CAT_SHIFT = 20


def pack(category: int, ranks: Sequence[int]) -> int:
    value = category
    for i in range(5):
        value = (value << 4) | (ranks[i] if i < len(ranks) else 0)
    return value


def ranks_of(strength: int) -> list[int]:
    return [(strength >> shift) & 0xF for shift in (16, 12, 8, 4, 0)]


def straight_top(mask: int, wheel: bool = True) -> int:
    """The top rank of the highest straight in a rank mask (bit r-2 for rank r), else 0."""
    for top in range(14, 5, -1):
        run = 0x1F << (top - 6)
        if mask & run == run:
            return top
    if wheel and mask & 0x100F == 0x100F:  # A-2-3-4-5
        return 5
    return 0


def value_from_counts(counts: dict[int, int], wheel: bool = True) -> int:
    """Best non-flush high value of a rank multiset (rank -> count, 5 to 7 cards)."""
    present = sorted(counts, reverse=True)
    quads = [r for r in present if counts[r] >= 4]
    trips = [r for r in present if counts[r] >= 3]
    pairs = [r for r in present if counts[r] >= 2]
    if quads:
        q = quads[0]
        return pack(QUADS, [q, next(r for r in present if r != q)])
    if trips:
        t = trips[0]
        rest = [r for r in pairs if r != t]
        if rest:
            return pack(FULL_HOUSE, [t, rest[0]])
    mask = 0
    for r in present:
        mask |= 1 << (r - 2)
    top = straight_top(mask, wheel)
    if top:
        return pack(STRAIGHT, [top])
    if trips:
        t = trips[0]
        return pack(TRIPS, [t] + [r for r in present if r != t][:2])
    if len(pairs) >= 2:
        p1, p2 = pairs[0], pairs[1]
        return pack(TWO_PAIR, [p1, p2, next(r for r in present if r not in (p1, p2))])
    if pairs:
        p = pairs[0]
        return pack(PAIR, [p] + [r for r in present if r != p][:3])
    return pack(HC, present[:5])


def flush_value(mask: int, wheel: bool = True) -> int:
    """High value of the cards of one suit given as a rank mask with five or more bits."""
    top = straight_top(mask, wheel)
    if top:
        return pack(STRAIGHT_FLUSH, [top])
    return pack(FLUSH, [r for r in range(14, 1, -1) if mask >> (r - 2) & 1][:5])


def rank_multisets(n: int) -> Iterator[dict[int, int]]:
    """Every multiset of n ranks (each rank at most four times)."""
    counts: dict[int, int] = {}

    def walk(rank: int, left: int) -> Iterator[dict[int, int]]:
        if left == 0:
            yield counts
            return
        if rank > 14 or left > 4 * (15 - rank):
            return
        for c in range(min(4, left), -1, -1):
            if c:
                counts[rank] = c
            yield from walk(rank + 1, left - c)
            counts.pop(rank, None)

    yield from walk(2, n)


def build_nonflush() -> dict[int, int]:
    """Rank-multiset key -> best non-flush value, for 5, 6 and 7 cards.

    Five-card multisets are valued directly; a six- or seven-card multiset is worth the best of the
    multisets one card smaller inside it (its best five lie in one of them), so each layer is the
    previous one with every possible card added.
    """
    layer: dict[int, int] = {}
    for counts in rank_multisets(5):
        key = 0
        for r, c in counts.items():
            key += c << (3 * (r - 2))
        layer[key] = value_from_counts(counts)
    table = dict(layer)
    units = [(3 * r, 1 << (3 * r)) for r in range(13)]
    for _ in (6, 7):
        bigger: dict[int, int] = {}
        get = bigger.get
        for key, value in layer.items():
            for shift, unit in units:
                if (key >> shift) & 7 < 4 and get(key + unit, -1) < value:
                    bigger[key + unit] = value
        table.update(bigger)
        layer = bigger
    return table


def build_flush() -> list[int]:
    """A flush suit's 13-bit rank mask (bit r-2 for rank r) -> its high value; 0 under five cards."""
    return [flush_value(mask) if mask.bit_count() >= 5 else 0 for mask in range(1 << 13)]
