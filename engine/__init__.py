"""Pure game logic for Croupier: cards, hand values, paytables, games, table state, views."""

# True only in the copy tools/compile_engine.py builds with mypyc (`make compiled`): which form of the engine
# this process runs (docs/architecture.md, "The compiled engine")
COMPILED = False
