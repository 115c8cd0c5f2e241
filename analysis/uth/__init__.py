"""Ultimate Texas Hold'em's exact house edges: the one pass over every deal, its counts, distributions and strategies."""
