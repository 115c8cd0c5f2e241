"""The tables the controller keeps: the house-banked games' table and the poker table, behind one interface."""
