"""The PROXY protocol behind a TCP load balancer (docs/PROTOCOL.md section 6).

A real server on a real port; the test plays the load balancer: it opens TCP
connections from 127.0.0.1 (a trusted proxy) and begins each with the header
a balancer would send (v1 text, v2 binary), then speaks the protocol.
"""

from __future__ import annotations

import ipaddress
import re
import ssl
import struct
from pathlib import Path
from typing import Any

import pytest
import structlog
import trio
import trustme

from protocol.messages import Error, Pong
from server.config import build_config
from server.proxy_protocol import (
    V2_SIGNATURE,
    ProxiedSource,
    ProxyHeaderError,
    TrustedProxies,
    parse_v1,
    parse_v2,
)
from tests.server.harness import RawClient, running_server

PROXIED: dict[str, Any] = {"proxy_protocol": True, "trusted_proxies": ("10.0.0.0/8", "127.0.0.1")}


def v1(source: str = "203.0.113.7", port: int = 40000) -> bytes:
    family = "TCP6" if ":" in source else "TCP4"
    destination = "2001:db8::1" if family == "TCP6" else "192.0.2.1"
    return f"PROXY {family} {source} {destination} {port} 4242\r\n".encode()


def v2(source: str | None = "203.0.113.7", port: int = 40000, *, tlvs: bytes = b"") -> bytes:
    """A v2 header: PROXY from `source` (IPv4 or IPv6), or LOCAL when it is None."""
    if source is None:
        return V2_SIGNATURE + bytes([0x20, 0x00]) + struct.pack(">H", len(tlvs)) + tlvs
    address = ipaddress.ip_address(source)
    if address.version == 4:
        family, destination = 0x11, ipaddress.ip_address("192.0.2.1")
    else:
        family, destination = 0x21, ipaddress.ip_address("2001:db8::1")
    body = address.packed + destination.packed + struct.pack(">HH", port, 4242) + tlvs
    return V2_SIGNATURE + bytes([0x21, family]) + struct.pack(">H", len(body)) + body


async def through_proxy(port: int, header: bytes) -> RawClient:
    """A connection from the 'load balancer' (127.0.0.1) that begins with `header`."""
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    await stream.send_all(header)
    return RawClient(stream)


# --- the parser, against the specification's examples and edge cases ----------


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (b"PROXY TCP4 192.168.0.1 192.168.0.11 56324 443\r\n", ProxiedSource("192.168.0.1", 56324)),
        (b"PROXY TCP6 2001:db8::7 2001:db8::1 1 2\r\n", ProxiedSource("2001:db8::7", 1)),
        (b"PROXY TCP6 ::ffff:10.1.2.3 ::1 9 9\r\n", ProxiedSource("10.1.2.3", 9)),
        (b"PROXY UNKNOWN\r\n", ProxiedSource(None)),
        (b"PROXY UNKNOWN ffff:f...f:ffff ffff:f...f:ffff 65535 65535\r\n", ProxiedSource(None)),
    ],
)
def test_v1_headers(header: bytes, expected: ProxiedSource) -> None:
    assert parse_v1(header) == expected


@pytest.mark.parametrize(
    "header",
    [
        b"PROXY TCP4 192.168.0.1 192.168.0.11 56324\r\n",  # a port missing
        b"PROXY TCP4 2001:db8::7 192.168.0.11 1 2\r\n",  # IPv6 in TCP4
        b"PROXY TCP4 192.168.0.1 192.168.0.11 65536 443\r\n",  # port out of range
        b"PROXY TCP4 192.168.0.1 192.168.0.11 0443 443\r\n",  # leading zero
        b"PROXY TCP4  192.168.0.1 192.168.0.11 1 443\r\n",  # two spaces
        b"PROXY UDP4 192.168.0.1 192.168.0.11 1 443\r\n",
        b"PROXY TCP4 192.168.0.1 192.168.0.11 1 443\n",  # no CR
    ],
)
def test_malformed_v1_headers(header: bytes) -> None:
    with pytest.raises(ProxyHeaderError) as caught:
        parse_v1(header)
    assert caught.value.code == "proxy_header_invalid"


def test_v2_headers() -> None:
    assert parse_v2(v2("198.51.100.2", 5555)) == ProxiedSource("198.51.100.2", 5555, 2)
    assert parse_v2(v2("2001:db8::9", 6)) == ProxiedSource("2001:db8::9", 6, 2)
    assert parse_v2(v2("198.51.100.2", 7, tlvs=b"\x04\x00\x02ab")).host == "198.51.100.2"
    assert parse_v2(v2(None)) == ProxiedSource(None, 0, 2)  # LOCAL
    unspecified = V2_SIGNATURE + bytes([0x21, 0x00]) + b"\x00\x00"
    assert parse_v2(unspecified).host is None
    for bad in (
        V2_SIGNATURE + bytes([0x11, 0x11]) + b"\x00\x0c" + bytes(12),  # version 1
        V2_SIGNATURE + bytes([0x22, 0x11]) + b"\x00\x0c" + bytes(12),  # command 2
        V2_SIGNATURE + bytes([0x21, 0x41]) + b"\x00\x0c" + bytes(12),  # family 4
        V2_SIGNATURE + bytes([0x21, 0x11]) + b"\x00\x08" + bytes(8),  # IPv4 in 8 bytes
    ):
        with pytest.raises(ProxyHeaderError):
            parse_v2(bad)


# --- a real server behind the 'load balancer' ------------------------------------


@pytest.mark.parametrize(
    "header",
    [v1("203.0.113.7"), v2("203.0.113.7"), v1("2001:db8::7"), v2("2001:db8::7")],
    ids=["v1-ipv4", "v2-ipv4", "v1-ipv6", "v2-ipv6"],
)
async def test_the_announced_client_is_who_the_connection_cap_counts(header: bytes) -> None:
    client = "2001:db8::7" if b"TCP6" in header or b"\x21\x21" in header else "203.0.113.7"
    async with running_server(max_connections_per_address=2, **PROXIED) as server:
        assert server.port is not None
        with structlog.testing.capture_logs() as logs:
            held = [await through_proxy(server.port, header) for _ in range(2)]
            for i, conn in enumerate(held):
                await conn.hello(f"p{i}")
        connected = [entry for entry in logs if entry["event"] == "connected"]
        assert {entry["peer"] for entry in connected} == {f"{client}:40000"}
        assert all(entry["proxy"].startswith("127.0.0.1:") for entry in connected)
        third = await through_proxy(server.port, header)
        refused: Error = await third.expect(Error)
        assert refused.code == "too_many_connections" and client in refused.message
        # another client behind the same balancer has its own cap
        other = await through_proxy(server.port, v1("203.0.113.8"))
        await other.hello("other")
        # and so does the balancer's own address: a health check (LOCAL, UNKNOWN)
        for local in (v2(None), b"PROXY UNKNOWN\r\n"):
            check = await through_proxy(server.port, local)
            await check.hello("health")
            await check.send({"type": "ping", "id": 7})
            assert (await check.expect(Pong)).id == 7


async def test_two_clients_behind_one_proxy_have_their_own_rate_limits() -> None:
    limits: dict[str, Any] = {"address_message_rate": 1.0, "address_message_burst": 5.0}
    async with running_server(**PROXIED, **limits) as server:
        assert server.port is not None
        flooder = await through_proxy(server.port, v2("198.51.100.1"))
        await flooder.hello("flooder")
        for i in range(8):
            await flooder.send({"type": "ping", "id": i})
        limited: Error = await flooder.expect(Error, skip=(Pong,))
        assert limited.code == "rate_limited"
        calm = await through_proxy(server.port, v2("198.51.100.2"))
        await calm.hello("calm")
        await calm.send({"type": "ping", "id": 99})
        assert (await calm.expect(Pong)).id == 99  # not held back behind the flooder


@pytest.mark.parametrize(
    ("header", "code"),
    [
        (b"GET / HTTP/1.1\r\n\r\n", "proxy_header_invalid"),  # garbage
        (b"PROXY TCP4 1.2.3.4 5.6.7.8 1\r\n", "proxy_header_invalid"),  # malformed
        (b"PROXY TCP4 " + b"1" * 200, "proxy_header_too_large"),  # no CRLF in 107 bytes
        (V2_SIGNATURE + b"\x21\x11\x20\x00", "proxy_header_too_large"),  # 8 KiB announced
        (b"PROXY TCP4 1.2.3.4", "proxy_header_timeout"),  # slow: the rest never comes
        (V2_SIGNATURE[:10], "proxy_header_timeout"),
    ],
    ids=["garbage", "malformed", "long-v1", "long-v2", "slow-v1", "slow-v2"],
)
async def test_a_bad_header_closes_that_connection_only(header: bytes, code: str) -> None:
    async with running_server(handshake_timeout=0.3, **PROXIED) as server:
        assert server.port is not None
        bystander = await through_proxy(server.port, v1("203.0.113.9"))
        await bystander.hello("bystander")
        with structlog.testing.capture_logs() as logs:
            bad = await through_proxy(server.port, header)
            assert await bad.closed()  # closed without a word: the peer is the balancer
        refusals = [entry for entry in logs if entry["event"] == "proxy_header_refused"]
        assert [entry["code"] for entry in refusals] == [code]
        assert refusals[0]["log_level"] == "warning"
        await bystander.send({"type": "ping", "id": 1})
        assert (await bystander.expect(Pong)).id == 1


async def test_a_truncated_header_is_missing() -> None:
    async with running_server(**PROXIED) as server:
        assert server.port is not None
        with structlog.testing.capture_logs() as logs:
            stream = await trio.open_tcp_stream("127.0.0.1", server.port)
            await stream.send_all(v2("203.0.113.7")[:20])
            await stream.send_eof()
            assert await RawClient(stream).closed()
        codes = [e["code"] for e in logs if e["event"] == "proxy_header_refused"]
        assert codes == ["proxy_header_missing"]


async def test_an_untrusted_address_speaks_as_before_and_its_header_is_a_protocol_error() -> None:
    async with running_server(proxy_protocol=True, trusted_proxies=("10.0.0.0/8",)) as server:
        assert server.port is not None
        plain = await RawClient.connect(server.port)
        await plain.hello("plain")  # no header expected from 127.0.0.1
        spoofer = await through_proxy(server.port, v1("203.0.113.7"))
        error: Error = await spoofer.expect(Error)
        assert error.code == "frame_too_large" and error.fatal
        assert await spoofer.closed()


async def test_the_header_comes_before_tls(tmp_path: Path) -> None:
    authority = trustme.CA()
    issued = authority.issue_cert("127.0.0.1")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    issued.private_key_pem.write_to_path(str(key))
    cert.write_bytes(b"".join(b.bytes() for b in issued.cert_chain_pems))
    tls: dict[str, Any] = {"tls_cert": str(cert), "tls_key": str(key)}
    async with running_server(max_connections_per_address=1, **PROXIED, **tls) as server:
        assert server.port is not None
        context = ssl.create_default_context()
        authority.configure_trust(context)
        clients = []
        for source in ("203.0.113.7", "203.0.113.8"):  # one each: the cap is 1 per address
            tcp = await trio.open_tcp_stream("127.0.0.1", server.port)
            await tcp.send_all(v2(source))
            client = RawClient(trio.SSLStream(tcp, context, server_hostname="127.0.0.1"))
            await client.hello(source)
            clients.append(client)


def test_the_environment_turns_it_on() -> None:
    env = {"ARENA_PROXY_PROTOCOL": "yes", "ARENA_TRUSTED_PROXIES": "10.0.0.0/8, 127.0.0.1"}
    config = build_config({}, env)
    assert config.proxy_protocol and config.trusted_proxies == ("10.0.0.0/8", "127.0.0.1")
    assert not build_config({}, {}).proxy_protocol  # off by default
    with pytest.raises(ValueError, match="needs the proxies it trusts"):
        build_config({}, {"ARENA_PROXY_PROTOCOL": "1"})
    with pytest.raises(
        ValueError, match=re.escape("'10.0.0.0/33' is not an IP address or network")
    ):
        build_config({}, {**env, "ARENA_TRUSTED_PROXIES": "10.0.0.0/33"})
    with pytest.raises(ValueError, match="ARENA_PROXY_PROTOCOL='maybe' is not a valid yes/no"):
        build_config({}, {**env, "ARENA_PROXY_PROTOCOL": "maybe"})


def test_trusted_networks_match_mapped_addresses() -> None:
    proxies = TrustedProxies(["10.0.0.0/8", "::ffff:192.0.2.0/120", "2001:db8::/32"])
    assert proxies.trusts("10.1.2.3") and proxies.trusts("::ffff:10.1.2.3")
    assert proxies.trusts("192.0.2.77") and proxies.trusts("2001:db8::1")
    assert not proxies.trusts("11.0.0.1") and not proxies.trusts("not an address")
