"""The simulated tournaments: engine-only hands, emulated devices, and the production director driving them."""
