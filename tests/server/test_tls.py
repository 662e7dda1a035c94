"""TLS: `arena serve --tls-cert/--tls-key` and clients with `--tls`/`--ca`, over real sockets."""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

import pytest
import trio
import trustme

from protocol.codec import FrameReader, encode_message, server_message_decoder
from protocol.messages import PROTOCOL_VERSION, Hello, Welcome
from protocol.transport import TlsSettings, open_stream
from server.app import ArenaServer, TlsError
from server.config import ServerConfig
from tests.server.harness import running_server
from tests.server.serverproc import ARENA, start_server


@pytest.fixture
def certificates(tmp_path: Path) -> tuple[str, str, str]:
    """(CA file, server certificate chain, server key) for 127.0.0.1 and localhost."""
    authority = trustme.CA()
    issued = authority.issue_cert("127.0.0.1", "localhost")
    ca, cert, key = tmp_path / "ca.pem", tmp_path / "cert.pem", tmp_path / "key.pem"
    authority.cert_pem.write_to_path(str(ca))
    issued.private_key_pem.write_to_path(str(key))
    with cert.open("wb") as out:
        for blob in issued.cert_chain_pems:
            out.write(blob.bytes())
    return str(ca), str(cert), str(key)


async def test_a_client_speaks_the_protocol_over_tls(certificates: tuple[str, str, str]) -> None:
    ca, cert, key = certificates
    async with running_server(tls_cert=cert, tls_key=key) as server:
        assert server.port is not None
        stream = await open_stream("127.0.0.1", server.port, TlsSettings(enabled=True, ca=ca))
        assert isinstance(stream, trio.SSLStream)
        await stream.send_all(encode_message(Hello(version=PROTOCOL_VERSION, name="secure")))
        reply = server_message_decoder().decode(await FrameReader(stream).read_frame())
        assert isinstance(reply, Welcome)
        await stream.aclose()


async def test_an_untrusted_certificate_is_refused(certificates: tuple[str, str, str]) -> None:
    _, cert, key = certificates
    async with running_server(tls_cert=cert, tls_key=key) as server:
        assert server.port is not None
        with pytest.raises(trio.BrokenResourceError):  # system CAs do not know trustme's
            await open_stream("127.0.0.1", server.port, TlsSettings(enabled=True))


async def test_plain_tcp_to_a_tls_server_gets_no_frames(certificates: tuple[str, str, str]) -> None:
    ca, cert, key = certificates
    async with running_server(tls_cert=cert, tls_key=key) as server:
        assert server.port is not None
        stream = await open_stream("127.0.0.1", server.port, TlsSettings(enabled=False))
        await stream.send_all(encode_message(Hello(version=PROTOCOL_VERSION, name="plain")))
        with trio.fail_after(10):
            data = b""
            try:
                while chunk := await stream.receive_some(4096):
                    data += chunk
            except trio.BrokenResourceError:
                pass
        assert b"welcome" not in data  # the server closed without speaking in clear
        # and it is unharmed: the next TLS client is served
        secure = await open_stream("127.0.0.1", server.port, TlsSettings(enabled=True, ca=ca))
        await secure.send_all(encode_message(Hello(version=PROTOCOL_VERSION, name="next")))
        reply = server_message_decoder().decode(await FrameReader(secure).read_frame())
        assert isinstance(reply, Welcome)


def test_a_missing_certificate_is_one_clear_error(tmp_path: Path) -> None:
    config = ServerConfig(port=0, db=None, tls_cert=str(tmp_path / "no.pem"), tls_key="x")
    with pytest.raises(TlsError, match="cannot use the TLS certificate"):
        ArenaServer(config).tls_context()


def test_a_certificate_needs_its_key() -> None:
    with pytest.raises(ValueError, match="both a certificate"):
        ServerConfig(tls_cert="cert.pem")


def test_arena_commands_over_tls(certificates: tuple[str, str, str], tmp_path: Path) -> None:
    """`arena serve --tls-cert/--tls-key`, then `arena --ca ... ping|status` as a user types it."""
    ca, cert, key = certificates
    server = start_server(
        tmp_path / "arena.sqlite",
        log=tmp_path / "serve.log",
        extra=["--tls-cert", cert, "--tls-key", key],
    )
    try:
        port = str(server.port)
        for command in (
            ["--ca", ca, "ping", "--port", port],
            ["status", "--port", port, "--ca", ca],
        ):
            done = subprocess.run([*ARENA, *command], capture_output=True, text=True, timeout=60)
            assert done.returncode == 0, done.stderr
        plain = subprocess.run(
            [*ARENA, "ping", "--port", port, "--timeout", "2"],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert plain.returncode == 1 and "Traceback" not in plain.stderr, plain.stderr
    finally:
        server.signal(signal.SIGTERM)


def test_serve_with_an_unusable_certificate_says_so_in_one_line(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            *ARENA,
            "serve",
            "--no-db",
            "--port",
            "0",
            "--tls-cert",
            str(tmp_path / "x.pem"),
            "--tls-key",
            "k",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and "cannot use the TLS certificate" in done.stderr
