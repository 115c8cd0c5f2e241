"""The house-banked games' table (UTH, Three Card Poker): its hand, its opening and its signed-off steps."""
