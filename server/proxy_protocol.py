"""The PROXY protocol (v1 text, v2 binary): a TCP load balancer tells who its client is.

Why: behind a TCP load balancer (HAProxy, AWS NLB, ...) every connection comes
from the balancer's address, so per-address limits would count every client
as one. A balancer that speaks the PROXY protocol begins each connection it
forwards with one header naming the client's address. It is trusted only
from the addresses the operator names (`trusted_proxies`): anyone else could
claim any address with it. Specified in HAProxy's ``doc/proxy-protocol.txt``;
this is our own reading of it:

* v1: ``PROXY TCP4|TCP6 SRC DST SPORT DPORT\\r\\n`` or ``PROXY UNKNOWN ...\\r\\n``,
  ASCII, single spaces, at most 107 bytes with the CRLF.
* v2: the 12-byte signature ``\\r\\n\\r\\n\\0\\r\\nQUIT\\n``, a version/command
  byte (0x20 LOCAL, 0x21 PROXY), a family/transport byte, a 16-bit big-endian
  length, then the addresses (IPv4: 12 bytes, IPv6: 36, Unix: 216) and TLVs
  (skipped here).

``LOCAL`` (v2), ``UNKNOWN`` (v1) and the unspecified and Unix families keep
the balancer's own address (a health check, or a client we cannot name).

The header is read from the socket before anything else (before TLS and the
``hello``), and never a byte beyond it: what follows belongs to the client's
protocol, and with TLS to a handshake this module must not touch. So v1 is
peeked at (``MSG_PEEK``) to find its CRLF, then exactly the header is
consumed; v2 gives its length after 16 bytes.
"""

from __future__ import annotations

import ipaddress
import socket as stdlib_socket
import struct
from collections.abc import Iterable
from dataclasses import dataclass

import trio

from server.errors import ProxyHeaderError as ProxyHeaderError

V2_SIGNATURE = b"\r\n\r\n\x00\r\nQUIT\n"
V1_PREFIX = b"PROXY "
#: the longest v1 header, CRLF included (the specification's bound)
V1_MAX = 107
#: the longest v2 header accepted here: 16 bytes, the addresses and room for TLVs
V2_MAX = 16 + 2048

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network


@dataclass(frozen=True, slots=True)
class ProxiedSource:
    """What a header announced: the client's address, or None (LOCAL / UNKNOWN)."""

    host: str | None
    port: int = 0
    version: int = 1

    def peer(self) -> str | None:
        """The client as a ``host:port`` peer name, like a socket's (None: keep the proxy's)."""
        return None if self.host is None else f"{self.host}:{self.port}"


class TrustedProxies:
    """A set of IP networks: the proxies whose connections must begin with a PROXY header,
    or the client addresses exempt from the per-address limits (server/limits.py)."""

    def __init__(self, networks: Iterable[str]) -> None:
        self.networks: tuple[IPNetwork, ...] = tuple(parse_network(n) for n in networks)

    def __bool__(self) -> bool:
        return bool(self.networks)

    def trusts(self, host: str) -> bool:
        """Whether a connection from `host` (an IP address) is from a trusted proxy."""
        try:
            address = _unmapped(ipaddress.ip_address(host.strip("[]")))
        except ValueError:
            return False
        return any(address in network for network in self.networks)


def parse_network(text: str) -> IPNetwork:
    """``10.0.0.0/8``, ``127.0.0.1`` or ``::1`` as a network; ValueError naming the text."""
    try:
        network = ipaddress.ip_network(text.strip(), strict=False)
    except ValueError:
        raise ValueError(
            f"{text!r} is not an IP address or network (e.g. 10.0.0.0/8, 127.0.0.1)"
        ) from None
    if isinstance(network, ipaddress.IPv6Network) and network.prefixlen >= 96:
        mapped = network.network_address.ipv4_mapped
        if mapped is not None:  # ::ffff:10.0.0.1 is 10.0.0.1
            return ipaddress.ip_network(f"{mapped}/{network.prefixlen - 96}")
    return network


def _unmapped(address: IPAddress) -> IPAddress:
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def _invalid(message: str) -> ProxyHeaderError:
    return ProxyHeaderError("proxy_header_invalid", message)


def parse_v1(line: bytes) -> ProxiedSource:
    """A whole v1 header (with its CRLF) -> the source it announces."""
    if len(line) > V1_MAX:
        raise ProxyHeaderError("proxy_header_too_large", f"a v1 header of {len(line)} bytes")
    if not line.startswith(V1_PREFIX) or not line.endswith(b"\r\n"):
        raise _invalid(f"not a v1 header: {line[:V1_MAX]!r}")
    try:
        text = line[:-2].decode("ascii")
    except UnicodeDecodeError:
        raise _invalid(f"a v1 header is ASCII: {line!r}") from None
    parts = text.split(" ")
    if len(parts) >= 2 and parts[1] == "UNKNOWN":
        return ProxiedSource(None, 0, 1)
    if len(parts) != 6 or parts[1] not in ("TCP4", "TCP6"):
        raise _invalid(f"a v1 header is PROXY TCP4|TCP6 SRC DST SPORT DPORT: {text!r}")
    _, family, source, destination, source_port, destination_port = parts
    kind = ipaddress.IPv4Address if family == "TCP4" else ipaddress.IPv6Address
    try:
        address = kind(source)
        kind(destination)
    except ValueError:
        raise _invalid(f"bad {family} address in {text!r}") from None
    for port in (source_port, destination_port):
        if not port.isdigit() or not port.isascii() or int(port) > 65535 or port != str(int(port)):
            raise _invalid(f"bad port {port!r} in {text!r}")
    return ProxiedSource(str(_unmapped(address)), int(source_port), 1)


def parse_v2(header: bytes) -> ProxiedSource:
    """A whole v2 header (16 bytes, then its length's worth) -> the source it announces."""
    if len(header) < 16 or not header.startswith(V2_SIGNATURE):
        raise _invalid(f"not a v2 header: {header[:16]!r}")
    version_command, family_transport, length = header[12], header[13], header[14:16]
    if version_command >> 4 != 2:
        raise _invalid(f"v2 header of version {version_command >> 4} (only 2 exists)")
    command = version_command & 0x0F
    if command > 1:
        raise _invalid(f"v2 command {command} (0 LOCAL and 1 PROXY exist)")
    family, transport = family_transport >> 4, family_transport & 0x0F
    if family > 3 or transport > 2:
        raise _invalid(f"v2 family/transport byte {family_transport:#04x}")
    (size,) = struct.unpack(">H", length)
    body = header[16:]
    if len(body) != size:
        raise _invalid(f"v2 header announces {size} bytes after its 16, has {len(body)}")
    if command == 0 or family in (0, 3):  # LOCAL, unspecified, Unix: the proxy's own address
        return ProxiedSource(None, 0, 2)
    need = 12 if family == 1 else 36
    if size < need:
        raise _invalid(f"v2 {'IPv4' if family == 1 else 'IPv6'} addresses need {need} bytes")
    half = (need - 4) // 2
    address: IPAddress = (
        ipaddress.IPv4Address(body[:half]) if family == 1 else ipaddress.IPv6Address(body[:half])
    )
    (port,) = struct.unpack(">H", body[2 * half : 2 * half + 2])
    return ProxiedSource(str(_unmapped(address)), port, 2)


async def read_header(sock: trio.socket.SocketType) -> ProxiedSource:
    """Read one PROXY header from `sock`, and not a byte more.

    The caller sets the deadline. Raises `ProxyHeaderError` (no timeout code:
    the caller's deadline is its own).
    """
    first = await _read_exactly(sock, 8)
    if first.startswith(V1_PREFIX):
        return parse_v1(await _read_v1_rest(sock, first))
    if first == V2_SIGNATURE[:8]:
        head = first + await _read_exactly(sock, 8)
        if not head.startswith(V2_SIGNATURE):
            raise _invalid(f"not a PROXY header: {head!r}")
        (size,) = struct.unpack(">H", head[14:16])
        if 16 + size > V2_MAX:
            raise ProxyHeaderError(
                "proxy_header_too_large", f"a v2 header of {16 + size} bytes (at most {V2_MAX})"
            )
        return parse_v2(head + await _read_exactly(sock, size))
    raise _invalid(f"not a PROXY header: {first!r}")


async def _read_exactly(sock: trio.socket.SocketType, count: int) -> bytes:
    data = b""
    while len(data) < count:
        chunk = await sock.recv(count - len(data))
        if not chunk:
            raise ProxyHeaderError(
                "proxy_header_missing", f"the connection closed after {len(data)} header bytes"
            )
        data += chunk
    return data


async def _read_v1_rest(sock: trio.socket.SocketType, line: bytes) -> bytes:
    """The rest of a v1 line: peek for its CRLF, consume exactly up to it."""
    while True:
        room = V1_MAX - len(line)
        if room <= 0:
            raise ProxyHeaderError(
                "proxy_header_too_large", f"no CRLF within {V1_MAX} bytes: {line!r}"
            )
        peeked = await sock.recv(room, stdlib_socket.MSG_PEEK)
        if not peeked:
            raise ProxyHeaderError(
                "proxy_header_missing", f"the connection closed within the header {line!r}"
            )
        # the CR may be the last byte consumed and the LF the first one peeked
        end = (line[-1:] + peeked).find(b"\r\n")
        take = len(peeked) if end < 0 else end + 1  # bytes of `peeked` up to the LF
        line += await _read_exactly(sock, take)
        if end >= 0:
            return line
