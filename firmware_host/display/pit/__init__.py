"""The pit view's side of the pages' server: every table's summary, the floor feed's tables, the day's figures."""
