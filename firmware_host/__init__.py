"""The service on the table's Pi: device protocol, supervision, controller, journal, feed, CLI."""
