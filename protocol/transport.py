"""How a client reaches a server: plain TCP, or TLS over TCP.

Every client command (play, watch, ping, status, tournament) opens its
connection here, so TLS is one switch for all of them: ``--tls`` (and
``--ca FILE`` for a certificate that is not signed by a system-trusted
authority) on the command line, or ``ARENA_TLS=1`` / ``ARENA_CA=FILE`` in the
environment. The server's certificate is always verified, and its host name
checked against the name the client dialled.
"""

from __future__ import annotations

import os
import ssl
from dataclasses import dataclass

import trio


@dataclass(frozen=True, slots=True)
class TlsSettings:
    enabled: bool = False
    ca: str | None = None  # PEM file of the authority that signed the server's certificate

    @classmethod
    def from_env(cls) -> TlsSettings:
        flag = os.environ.get("ARENA_TLS", "").strip().lower()
        ca = os.environ.get("ARENA_CA") or None
        return cls(enabled=flag in {"1", "true", "yes", "on"} or ca is not None, ca=ca)

    def context(self) -> ssl.SSLContext:
        """A verifying client context; `ValueError` with one line if the CA file is unusable."""
        try:
            return ssl.create_default_context(cafile=self.ca)
        except (OSError, ssl.SSLError) as exc:
            raise ValueError(
                f"cannot use the CA file {self.ca}: {getattr(exc, 'strerror', None) or exc}"
            ) from None


_settings: TlsSettings | None = None


def configure_tls(settings: TlsSettings) -> None:
    """Set this process's TLS settings (the CLI calls it from ``--tls``/``--ca``)."""
    global _settings
    _settings = settings


def tls_settings() -> TlsSettings:
    return _settings if _settings is not None else TlsSettings.from_env()


async def open_stream(host: str, port: int, tls: TlsSettings | None = None) -> trio.abc.Stream:
    """A connected stream to ``host:port`` (TLS-wrapped and handshaken when TLS is on).

    Raises OSError when the server cannot be reached, and `trio.BrokenResourceError`
    when the TLS handshake fails (e.g. an untrusted certificate).
    """
    settings = tls if tls is not None else tls_settings()
    stream = await trio.open_tcp_stream(host, port)
    if not settings.enabled:
        return stream
    wrapped = trio.SSLStream(stream, settings.context(), server_hostname=host)
    try:
        await wrapped.do_handshake()
    except BaseException:
        await trio.aclose_forcefully(wrapped)
        raise
    return wrapped
