"""Tournament domain: formats, statistics, SPRT and openings (pure, no I/O)."""
