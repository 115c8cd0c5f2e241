"""The table service: the controller loop, its inbox, the journal, the feed, the dealer command channel, the configuration."""
