"""The paytables' own math beside the engine's: a numpy batch hand evaluator and the UTH house edges (the `analysis` extra), each game's figures, PAR sheets and paytable certificates."""
