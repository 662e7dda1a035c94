"""Game records in standard exchange formats: JSON Lines (every game) and SGF (where one exists).

Pure conversion between `store` records and text; no database access.
"""
