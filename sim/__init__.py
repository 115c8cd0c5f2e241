"""The simulated table: the emulated shoe, bot players and dealer, and the process restarter the demo runs them under."""
