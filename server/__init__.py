"""The match server: Trio TCP server, matches, clocks, records, tournaments."""
