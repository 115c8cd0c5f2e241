"""The poker table: dealer assist for the rule pages' poker games, its hand records and signed-off steps."""
