"""Accounts: player names registered with a password (opt-in per server, CGOS-style).

Why this shape: a rating or a crosstable is only worth something if the name
on it belongs to someone. A registered name is usable only with its password;
an unregistered name stays free to use where the operator allows open play
(``accounts = "open"``), and a ``hello`` with a password for a free name
registers it (``registration``). Passwords are kept as salted scrypt hashes
(`hashlib.scrypt`, a memory-hard KDF from the standard library); checking one
costs ~50 ms of CPU and 16 MiB, so it runs in a worker thread, at most two at
a time, and failed attempts are rate-limited by the caller.

A ladder's resident bots (server/ladder_residents.py) are the server's own:
each one's name is reserved on this server for the process the server
started, which proves it with a random key the server made at start and
handed to it alone (in its environment, as its password). Such a name needs
no account, on either ``accounts`` mode, and no one else may play under it.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

import trio

from server.errors import AccountError as AccountError
from store.errors import StoreError
from store.interface import AccountTable

#: scrypt cost parameters (n = 2**14, r = 8: the interactive-login setting of the scrypt paper)
SCRYPT_N, SCRYPT_R, SCRYPT_P = 1 << 14, 8, 1
MIN_PASSWORD = 8


def hash_password(password: str, *, n: int = SCRYPT_N) -> str:
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=n, r=SCRYPT_R, p=SCRYPT_P, dklen=32)
    return "$".join(["scrypt", str(n), str(SCRYPT_R), str(SCRYPT_P), _b64(salt), _b64(digest)])


def verify_password(password: str, stored: str) -> bool:
    try:
        kind, n, r, p, salt, digest = stored.split("$")
        if kind != "scrypt":
            return False
        expected = base64.b64decode(digest)
        actual = hashlib.scrypt(
            password.encode(),
            salt=base64.b64decode(salt),
            n=int(n),
            r=int(r),
            p=int(p),
            dklen=len(expected),
        )
    except ValueError:
        return False
    return hmac.compare_digest(actual, expected)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


class Accounts:
    """What the server asks at ``hello``: may this connection use this name?"""

    def __init__(
        self,
        book: AccountTable | None,
        *,
        mode: str,
        registration: bool,
        residents: dict[str, str] | None = None,
    ) -> None:
        self.book = book
        self.mode = mode
        self.registration = registration
        #: the resident bots' names, each with the key its process proves itself with
        self.residents = dict(residents or {})
        self._hashing = trio.CapacityLimiter(2)

    async def authenticate(self, name: str, password: str, *, player: bool = True) -> str | None:
        """The account name the connection is authenticated as (None: an open, unregistered
        name). Raises `AccountError` (``bad_password``, ``name_registered``,
        ``registration_required``, ``accounts_unavailable``).

        A spectator (`player` False) may use an unregistered name without a password on
        a ``registered`` server too: watching, ``ping`` and ``status`` stay open.
        """
        key = self.residents.get(name)
        if key is not None and (player or password):
            if hmac.compare_digest(password.encode(), key.encode()):
                return name
            if password:
                raise AccountError("bad_password", f"wrong password for {name!r}")
            raise AccountError(
                "name_registered", f"{name!r} is a resident bot of this server: its name is taken"
            )
        book = self.book
        if book is None:
            if password or (self.mode == "registered" and player):
                raise AccountError(
                    "accounts_unavailable", "this server keeps no accounts (it has no database)"
                )
            return None
        try:
            stored = await trio.to_thread.run_sync(book.password_hash, name)
        except StoreError as exc:
            raise AccountError("accounts_unavailable", f"cannot read the accounts: {exc}") from None
        if stored is not None:
            if not password:
                raise AccountError(
                    "name_registered", f"{name!r} is a registered name: give its password"
                )
            async with self._hashing:
                ok = await trio.to_thread.run_sync(verify_password, password, stored)
            if not ok:
                raise AccountError("bad_password", f"wrong password for {name!r}")
            return name
        if password:
            if not self.registration:
                raise AccountError(
                    "registration_closed",
                    f"{name!r} is not registered and this server registers no new names",
                )
            if len(password) < MIN_PASSWORD:
                raise AccountError(
                    "bad_password", f"a password needs at least {MIN_PASSWORD} characters"
                )
            async with self._hashing:
                hashed = await trio.to_thread.run_sync(hash_password, password)
            try:
                added = await trio.to_thread.run_sync(book.add, name, hashed)
            except StoreError as exc:
                raise AccountError(
                    "accounts_unavailable", f"cannot register {name!r}: {exc}"
                ) from None
            if not added:  # registered by someone else a moment ago
                raise AccountError("bad_password", f"wrong password for {name!r}")
            return name
        if self.mode == "registered" and player:
            raise AccountError(
                "registration_required",
                f"{name!r} is not registered; this server admits registered names only"
                " (say hello with a password to register it)"
                if self.registration
                else f"{name!r} is not registered; this server admits registered names only",
            )
        return None
