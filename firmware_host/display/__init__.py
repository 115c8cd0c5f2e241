"""The browser pages of a table (`croupier display`): the web process, its feed bridge and the shipped static pages."""
