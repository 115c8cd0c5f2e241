"""The simulated smart table, a room by what each part is.

The emulated chip reader board (`board`), people's hands on it (`hands`), the bot dealer and players betting real
chips (`bots`), and the hands beside a person at `/dealer` (`console`).
"""
