-- The pit's signed-off rating steps (docs/ratings.md): a table's `rating` events (a session opened for a card or a
-- player who declined it, closed, or adjusted: the unrated play and the start or end entered, with what each
-- replaced and who signed it) are archived beside its `player` and `dealer` events and folded with them.
ALTER TABLE rating_events DROP CONSTRAINT rating_events_kind_check;
ALTER TABLE rating_events ADD CONSTRAINT rating_events_kind_check CHECK (kind IN ('player', 'dealer', 'rating'));
