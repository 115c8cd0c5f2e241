"""Device drivers, one module per device kind, each with a simulated twin; they only report readings."""
