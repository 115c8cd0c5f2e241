"""The floor's web process (`croupier pit web`): the pit's pages (/pit) and the tournament director's clock (/tournament), served from the floor server."""
