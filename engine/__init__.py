"""Pure game logic for Croupier: cards, hand values, paytables, games, table state, views."""
