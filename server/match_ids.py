"""Match ids, unique per database forever: ``arena show`` can take any unique prefix.

Why not a counter: several servers (and restarts, and tournaments) write to
one database, and a per-process counter restarted at ``m0001`` each time. The
time in milliseconds (made strictly increasing within a process) keeps one
process's ids apart and sorted; 20 random bits keep processes apart.
"""

from __future__ import annotations

import secrets
import time

_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"  # Crockford's base 32, lower case
_last_id_ms = 0


def _base32(value: int, digits: int) -> str:
    return "".join(_ALPHABET[(value >> (5 * i)) & 31] for i in reversed(range(digits)))


def new_match_id() -> str:
    """``m`` + 9 characters of milliseconds + 4 random characters, e.g. ``m1m82t2bxzn4zz``.

    Ids sort by creation time; within a process no two are equal (the
    millisecond count is bumped when it repeats), and 20 random bits keep
    servers sharing a database apart.
    """
    global _last_id_ms
    now = max(int(time.time() * 1000), _last_id_ms + 1)
    _last_id_ms = now
    return f"m{_base32(now, 9)}{_base32(secrets.randbits(20), 4)}"
