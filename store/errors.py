"""Every error the store raises, under one base class: `StoreError`.

A caller that only needs to know that the records database failed catches
`StoreError`; each subclass names a case some caller treats on its own.
Every message is one readable line (a path or a URL without its password,
and what is wrong), fit to show a user as it is.
"""

from __future__ import annotations


class StoreError(Exception):
    """The database cannot be opened, is not an arena database, or cannot be used."""


class StoreUnavailable(StoreError):
    """The store cannot answer now (reads failing, or too many unwritten results)."""


class MatchSuperseded(StoreError):
    """A result for a match that the database already holds as ended (`BatchReport`).

    Raised and caught inside a backend's `write`: the report lists the match
    as superseded; it never reaches a caller."""


class MatchRefused(StoreError):
    """A match's records that the database refuses (no match row to finish): that match
    alone fails, inside a backend's `write` or `import_match`."""


__all__ = ["MatchRefused", "MatchSuperseded", "StoreError", "StoreUnavailable"]
