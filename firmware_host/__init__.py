"""The service on the table's Pi: the controller and its journal, feed and command channel (service/), the tables (tables/), the simulated table (sim/), the `croupier` command line (cli/)."""
