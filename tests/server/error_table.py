"""docs/PROTOCOL.md's error table as data, and what its scenarios share.

The first cell of each row names the requests the row is about, in
backticks (`seek`, `join`, ...), each perhaps with a qualifier ("`seek` with
`pool`": a seek that names a pool), or, for a row about the connection
itself ("any frame", "(connecting)", "(keepalive)"), no request. A *scenario*
drives one (row, request) over a real socket: it sends exactly that request,
as the row qualifies it, and returns the error it got, which must carry
exactly the row's code and fatal flag (and a fatal one closes the
connection). tests/server/test_error_table.py checks that every (row,
request) has exactly one scenario and every scenario a row, and drives the
connection-level rows; tests/server/test_error_requests.py drives the rest.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec
import trio

from protocol.codec import encode_frame
from protocol.messages import (
    Directing,
    Error,
    MatchStart,
    Paired,
    PoolStatus,
    Seeking,
)
from server.app import ArenaServer
from server.config import MatchPolicy
from server.connection import Connection
from store import BatchReport, MatchRecord, MatchWrite, MoveRecord
from tests.server.harness import RawClient, running_server

PROTOCOL = Path(__file__).resolve().parents[2] / "docs" / "PROTOCOL.md"

#: what a row's qualifier asks of the request: "`seek` with `pool`" is a seek naming a pool
QUALIFIERS: dict[str, Callable[[dict[str, Any]], bool]] = {
    "with `pool`": lambda sent: bool(sent.get("pool")),
    "with `ladder`": lambda sent: bool(sent.get("ladder")),
    "with a password": lambda sent: bool(sent.get("password")),
    '`"*"`': lambda sent: sent.get("match") == "*",
}


@dataclass(frozen=True)
class Item:
    """One request a row's first cell names, or the whole cell of a row that names none."""

    text: str  # as written: "`seek` with `pool`", "(connecting)"
    request: str | None = None  # the message type ("seek"); None: the row names no request
    qualifier: str = ""  # what follows the type ("with `pool`")


@dataclass(frozen=True)
class Row:
    items: tuple[Item, ...]
    situation: str
    code: str
    fatal: bool


def documented_rows(text: str | None = None) -> list[Row]:
    """The rows of the "Error codes" table of docs/PROTOCOL.md (or of `text`)."""
    text = PROTOCOL.read_text() if text is None else text
    section = text.split("### Error codes", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 4 or not (code := re.fullmatch(r"`([a-z_]+)`", cells[2])):
            continue  # prose, the header, the rule under it
        assert cells[3] in ("yes", "no"), f"fatal is yes or no: {line}"
        rows.append(Row(items_of(cells[0]), cells[1], code.group(1), cells[3] == "yes"))
    return rows


def documented_codes() -> dict[str, set[bool]]:
    """Each code of the table -> the fatal flags its rows give it."""
    codes: dict[str, set[bool]] = {}
    for row in documented_rows():
        codes.setdefault(row.code, set()).add(row.fatal)
    return codes


def items_of(cell: str) -> tuple[Item, ...]:
    """The requests a first cell names: "`seek` with `pool`, `direct`" names two."""
    if not cell.startswith("`"):  # "any frame", "(connecting)", "a second `hello`"
        return (Item(cell),)
    items = []
    for text in cell.split(", "):
        named = re.fullmatch(r"`([a-z_]+)`\s*(.*)", text)
        assert named is not None, f"not a request: {text!r} (in {cell!r})"
        items.append(Item(text, named.group(1), named.group(2)))
    return tuple(items)


# --- scenarios ---------------------------------------------------------------------


@dataclass
class Refusal:
    """What a scenario got: the error, the connection it came on, the request it answers."""

    error: Error
    client: RawClient
    sent: dict[str, Any] | None = None


Run = Callable[["Bench"], Awaitable[Refusal]]


@dataclass(frozen=True)
class Scenario:
    """Drives the row with `code` whose first cell names `item` (as written in the table);
    `when`, words of the row's situation, tells apart rows with the same code and item."""

    code: str
    item: str
    run: Run
    when: str = ""
    settings: dict[str, Any] = field(default_factory=dict)  # the server's (ServerConfig)
    db: bool = False  # the server keeps a records database (accounts)

    @property
    def id(self) -> str:
        words = [self.code, self.item, self.when] if self.when else [self.code, self.item]
        return "-".join(re.sub(r"[^\w*]+", "_", w).strip("_") for w in words)


def rows_of(scenario: Scenario, rows: Sequence[Row]) -> list[tuple[Row, Item]]:
    """The (row, item) pairs the scenario fits: exactly one, for a good scenario."""
    return [
        (row, item)
        for row in rows
        for item in row.items
        if row.code == scenario.code
        and item.text == scenario.item
        and scenario.when in row.situation
    ]


def row_of(scenario: Scenario, rows: Sequence[Row]) -> tuple[Row, Item]:
    """The one (row, item) the scenario drives."""
    found = rows_of(scenario, rows)
    assert len(found) == 1, (
        f"scenario {scenario.id}: {len(found)} rows have code {scenario.code!r}, request"
        f" {scenario.item!r} and a situation with {scenario.when!r}"
    )
    return found[0]


async def ask(client: RawClient, request: dict[str, Any]) -> Refusal:
    """Send `request`; the first error after it."""
    await client.send(request)
    return await told(client, request)


async def told(client: RawClient, sent: dict[str, Any] | None = None) -> Refusal:
    """The first error `client` gets (what comes before it is skipped)."""
    while True:
        message = await client.receive()
        if isinstance(message, Error):
            return Refusal(message, client, sent)


async def wait_until(ready: Callable[[], bool]) -> None:
    """Wait (under the caller's deadline) until `ready()` holds: for the server's own state,
    which has no event to wait on."""
    while not ready():  # noqa: ASYNC110 - polled: the condition is another object's state
        await trio.sleep(0.001)


def frame(message: dict[str, Any]) -> bytes:
    return encode_frame(msgspec.msgpack.encode(message))


SEEK = {"type": "seek", "game": "tictactoe"}
#: a seek in pool q, which `Bench.director` admits a and b to
POOL_SEEK = {**SEEK, "pool": "q", "secret": "s"}
JOIN = {"type": "join", "room": "r", "game": "tictactoe"}
DIRECT = {
    "type": "direct",
    "pool": "q",
    "owner": "key-1",
    "players": [{"name": "a", "secret": "s"}, {"name": "b", "secret": "s"}],
}
PAIR = {"type": "pair", "pool": "q", "seats": ["a", "b"], "game": "tictactoe"}


def move(match: str, ply: int = 0, cell: int = 4) -> dict[str, Any]:
    return {"type": "move", "match": match, "ply": ply, "move": cell}


def adjudicate(match: str, ply: int = 0, winner: int | None = 0) -> dict[str, Any]:
    return {
        "type": "adjudicate",
        "match": match,
        "ply": ply,
        "winner": winner,
        "termination": "proven",
    }


class Bench:
    """A running server and the clients of one scenario, which all stay open until it
    ends (a dropped client would leave its seat, its room, its pool)."""

    def __init__(self, server: ArenaServer) -> None:
        assert server.port is not None
        self.server = server
        self.port = server.port
        self._clients: list[RawClient] = []

    async def connect(self, *, receive_buffer: int | None = None) -> RawClient:
        """A new connection, before its hello."""
        client = await RawClient.connect(self.port, receive_buffer=receive_buffer)
        self._clients.append(client)
        return client

    async def client(
        self, name: str = "x", role: str = "player", *, receive_buffer: int | None = None
    ) -> RawClient:
        """A new connection that said hello as `name`."""
        client = await self.connect(receive_buffer=receive_buffer)
        await client.hello(name, role)
        return client

    async def asks(
        self, request: dict[str, Any], *, name: str = "x", role: str = "player"
    ) -> Refusal:
        """A new client sends `request`: the error it gets."""
        return await ask(await self.client(name, role), request)

    async def says_hello(self, **fields: Any) -> Refusal:
        """A new connection's `hello` (`fields` over a player's): the error it gets."""
        return await ask(
            await self.connect(), {"type": "hello", "version": 1, "name": "n", **fields}
        )

    async def seated(
        self, first: str = "a", second: str = "b"
    ) -> tuple[RawClient, RawClient, MatchStart]:
        """Two players in a tictactoe match from open seeks: their clients, first's match_start."""
        clients = [await self.client(first), await self.client(second)]
        for client in clients:
            await client.send({**SEEK, "move_time": 30})
        start: MatchStart = await clients[0].expect(MatchStart, skip=(Seeking,))
        await clients[1].expect(MatchStart, skip=(Seeking,))
        return clients[0], clients[1], start

    async def director(self, name: str = "director", **direct: Any) -> RawClient:
        """A client directing pool q (`direct` over `DIRECT`: it admits a and b)."""
        client = await self.client(name)
        await client.send({**DIRECT, **direct})
        await client.expect(Directing)
        return client

    async def paired(self, director: RawClient) -> Paired:
        """a and b seek in pool q and `director` pairs them: its `paired`."""
        for name in ("a", "b"):
            seeker = await self.client(name)
            await seeker.send(POOL_SEEK)
            await seeker.expect(Seeking)
        while sum((await director.expect(PoolStatus)).idle.values()) < 2:
            pass  # the pool view before both seeks
        await director.send({**PAIR, "move_time": 30})
        paired: Paired = await director.expect(Paired, skip=(PoolStatus,))
        return paired

    def connection(self, name: str) -> Connection:
        """The server's side of the client that said hello as `name`."""
        return next(conn for conn in self.server.open_connections if conn.name == name)

    def fill_the_results_queue(self) -> None:
        """As if `max_pending_results` ended matches waited to be written."""
        self.server.recorder._pending_results = self.server.config.max_pending_results

    async def aclose(self) -> None:
        for client in self._clients:
            await client.aclose()


class UnreadableRecords:
    """A records database every read of which fails, as on a broken disk."""

    path = "unreadable.sqlite"

    def write(self, batch: Sequence[MatchWrite]) -> BatchReport:
        return BatchReport(frozenset(), "disk I/O error")

    def find_tournament_game(self, tournament: str, index: int, owner: str) -> MatchRecord | None:
        raise sqlite3.OperationalError("disk I/O error")

    def import_match(self, record: MatchRecord, moves: Sequence[MoveRecord]) -> bool:
        return False

    def abort_running(self, reason: str) -> int:
        return 0

    def close(self) -> None:
        pass


async def drive(scenario: Scenario, tmp_path: Path) -> None:
    """Run `scenario` on a fresh server; its error must be exactly its row's."""
    row, item = row_of(scenario, documented_rows())
    db = str(tmp_path / "arena.sqlite") if scenario.db else None
    policy = MatchPolicy(move_time=30.0)
    async with running_server(db=db, policy=policy, **scenario.settings) as server:
        bench = Bench(server)
        try:
            with trio.fail_after(20):
                refusal = await scenario.run(bench)
                error = refusal.error
                assert (error.code, error.fatal) == (row.code, row.fatal), error
                if item.request is not None:  # exactly the row's request, as it qualifies it
                    sent = refusal.sent
                    assert sent is not None and sent["type"] == item.request, sent
                    assert not item.qualifier or QUALIFIERS[item.qualifier](sent), sent
                if row.fatal:  # the frame first, then the server closes
                    assert await refusal.client.closed()
        finally:
            await bench.aclose()
