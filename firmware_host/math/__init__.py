"""The paytables' own math that needs numpy (the `analysis` extra): a batch hand evaluator and the UTH house edges."""
