"""Every error of the records package, under one base class: `RecordError`.

Reading, importing or replaying a record fails in one way for its callers: a
one-line message saying where and what is wrong. It is also a ValueError, for
callers that treat every bad input alike.
"""

from __future__ import annotations


class RecordError(ValueError):
    """A record cannot be read or does not replay (one line: where, and what is wrong)."""
