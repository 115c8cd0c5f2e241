"""The tournament director (`croupier tournament`): its clock, seating, orders to the tables, breaks and gate."""
