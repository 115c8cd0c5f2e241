"""The simulated floor of `croupier floor-sim`: many house tables feeding a real pit."""
