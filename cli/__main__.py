"""`python -m cli`: the `croupier` command line."""

import sys

from cli import main

if __name__ == "__main__":  # not when a "spawn" child re-imports it (floor-sim's watcher process)
    sys.exit(main())
