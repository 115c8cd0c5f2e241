"""The bots of the simulated table, a room by what each part is.

The table's setup (`table`: free ports, endpoints, limits, the configuration file, the bot supervisor), the house
players (`players`) and dealer (`dealer`), the poker table's dealer and players (`poker`), and their one error
(`errors`).
"""
