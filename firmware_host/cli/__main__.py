"""`python -m firmware_host.cli`: the `croupier` command line."""

import sys

from firmware_host.cli import main

sys.exit(main())
