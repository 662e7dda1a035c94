"""The records database as the rest of the project sees it: `Database` and its tables.

Everything outside `store/` that reads or writes records goes through these
protocols: the server (through `store.recorder.Recorder`), the tournament
director (`tournament.results`), import/export and backup (`arena_cli`), and
the web app. A backend implements all of them: SQLite
(`store.sqlite.SqliteDatabase`, the embedded default) and PostgreSQL
(`store.postgres.PostgresDatabase`, selected by a ``postgresql://`` URL)
implement the same methods with the same meaning, and the store test suite
runs against each backend.

`MatchWriter` is the part of a `Database` that the recorder uses (writing
matches); the server's writer process (`store.writer.ProcessWriter`) is one
too, without being a whole database.

Every call blocks: the server makes them from a worker thread (or the writer
process), never on its event loop. A call fails with `store.errors.StoreError`
carrying one readable line, except `MatchWriter.write`, which reports a failed
write in its `BatchReport` instead of raising, so that the recorder can keep,
retry and journal what did not commit.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Protocol

from store.matches import BatchReport, MatchRecord, MatchWrite, MoveRecord


@dataclass(frozen=True, slots=True)
class StoredTournament:
    """A row of the tournaments table: its configuration (JSON text) and state."""

    id: str
    config: str
    status: str
    created_at: float
    #: games with a result (filled by `TournamentTables.all`; 0 elsewhere)
    done: int = 0
    #: the pool owner key (filled by `TournamentTables.all`; "" elsewhere, or when none)
    owner_key: str = ""


@dataclass(frozen=True, slots=True)
class StoredGame:
    """A finished tournament game as the director recorded it."""

    index: int
    seats: tuple[str, ...]
    scores: tuple[float, ...]
    termination: str
    match_id: str
    plies: int
    #: game points per seat (Go's margin), from the match: the tournament tables keep none
    points: tuple[float, ...] | None = None
    #: why it ended (``e crashed: engine pg: engine exited (code 3)``), from the match's
    #: record or its ``match_end``: the tournament tables keep none either
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class TaggedTournament:
    """A tournament seen only through its match records (a remote director's)."""

    id: str
    game: str
    matches: int
    first_started_at: float


class TournamentTables(Protocol):
    """Tournament configurations, their pool owner keys and each game's result.

    A configuration is the JSON text its owner wrote
    (`tournament.config.TournamentConfig.to_json`): the database keeps it and
    hands it back, it does not read it.
    """

    def save(self, tournament_id: str, config: str, status: str) -> None:
        """Store a tournament's configuration (the first time) and its status (every time)."""
        ...

    def owner_key(self, tournament_id: str, new_key: str) -> str:
        """The tournament's pool owner key: the stored one, else `new_key`, stored now."""
        ...

    def find(self, tournament_id: str) -> StoredTournament | None:
        """The tournament with this id, or the one whose id starts with it (None: none, or two)."""
        ...

    def all(self) -> list[StoredTournament]:
        """Every stored tournament, newest first, with its number of results."""
        ...

    def add_game(self, tournament_id: str, game: StoredGame) -> None:
        """Record (or replace) the result of the game at `game.index`."""
        ...

    def games(self, tournament_id: str) -> list[StoredGame]:
        """The recorded results of a tournament's games."""
        ...

    def tagged(self) -> list[TaggedTournament]:
        """Every tournament named by a match record, with its game and number of matches."""
        ...

    def hold(self, tournament_id: str) -> AbstractContextManager[bool]:
        """The tournament's director lock, held for the block: True if this process got it.

        Held by the operating system or the database server for the life of
        the holder, so a director killed with kill -9 drops it at once.
        """
        ...

    def is_held(self, tournament_id: str) -> bool:
        """Whether a live process holds the tournament's director lock."""
        ...


@dataclass(frozen=True, slots=True)
class NodeRow:
    """A server sharing the database: its id, where clients reach it, its lease."""

    id: str
    address: str
    started_at: float
    lease_until: float


@dataclass(frozen=True, slots=True)
class RunningMatch:
    """A match some node is playing, as the database knows it (moves flushed so far)."""

    record: MatchRecord
    plies: int


@dataclass(frozen=True, slots=True)
class MatchProgress:
    """A match as stored now, with its moves from a given ply on (`NodeTable.progress`)."""

    record: MatchRecord
    moves: list[MoveRecord]


@dataclass(frozen=True, slots=True)
class WaitingSeek:
    """A seek another connection left in the database, taken by `NodeTable.offer_seek`."""

    id: str
    node: str
    name: str


@dataclass(frozen=True, slots=True)
class LadderBot:
    """A bot of a ladder connected to a live node (`LadderTable.pair_round`)."""

    name: str
    #: the node its connection is on
    node: str
    #: seconds it has been ready for its next game (the database's clock), None if it is not
    waited: float | None
    #: its last opponent in the ladder ("" before its first game)
    last: str


@dataclass(frozen=True, slots=True)
class LadderRound:
    """What one pairing round of a ladder sees: its bots on live nodes, and how often
    each ready bot moved first against each other ready bot."""

    bots: list[LadderBot]
    #: (a, b) -> the games a moved first against b, among the ready bots
    firsts: dict[tuple[str, str], int]


@dataclass(frozen=True, slots=True)
class LadderPairing:
    """A game a pairing round decided: who moves first, who second, and their nodes."""

    first: str
    second: str
    first_node: str
    second_node: str


class LadderTable(Protocol):
    """The ladders' bots on every node of a shared database, and who paired with whom.

    A node writes which of its bots are ready (`pair_round`'s `ready` and
    `left`); a round of one ladder runs under that ladder's lock, so rounds of
    several nodes take turns, and a bot is paired once.
    """

    def pair_round(
        self,
        ladder: str,
        node: str,
        ready: Sequence[str],
        left: Sequence[str],
        choose: Callable[[LadderRound], Sequence[tuple[str, str]]],
    ) -> list[LadderPairing]:
        """In one transaction holding the ladder's lock: the bots `ready` (connected to
        `node`) are ready since now (if they were not already), those `left` leave it;
        `choose` (asked every round) sees the ladder's bots on live nodes and returns pairs (first mover,
        second mover) of ready bots; each is recorded (neither is ready any more, each
        one's last opponent is the other, the first mover's count against the second
        grows by one) and returned with the bots' nodes."""
        ...

    def seed(
        self, ladder: str, firsts: Mapping[tuple[str, str], int], last: Mapping[str, str]
    ) -> bool:
        """Write the ladder's history as read from the records (`firsts`: (a, b) -> the games
        a moved first against b; `last`: each bot's last opponent) if the database has none
        of it yet; False if it had some."""
        ...


class NodeTable(Protocol):
    """The servers (nodes) that share this database, each alive while its lease runs.

    Times are seconds on the database's own clock (one clock for every host).
    """

    def register(self, node: str, address: str, lease: float) -> None:
        """Add this node, alive for `lease` seconds from now."""
        ...

    def renew(self, node: str, lease: float) -> bool:
        """Extend the node's lease; False if its row is gone (it was declared dead)."""
        ...

    def leave(self, node: str) -> None:
        """Remove the node (a clean stop: its matches are already ended)."""
        ...

    def live(self) -> list[NodeRow]:
        """Every node whose lease has not expired."""
        ...

    def reap(self, reason: str) -> dict[str, int]:
        """End the dead: for each node whose lease expired, remove it and abort its running
        matches, in one transaction, so that exactly one caller ever does it. Returns
        node -> matches aborted, for the nodes this call reaped."""
        ...

    def running(self, exclude: str | None = None) -> list[RunningMatch]:
        """The running matches of every node but `exclude`, oldest first."""
        ...

    def progress(self, since: Mapping[str, int], limit: int) -> list[MatchProgress]:
        """The matches named in `since`, each with its moves from ply ``since[id]`` on (at most
        `limit` of them, in order), in one read (matches that do not exist are left out).

        The match rows are read before the moves, or with them in one snapshot: a match
        read as no longer running comes with every move it was played with, unless
        `limit` cut them short.
        """
        ...

    def offer_seek(self, seek: str, node: str, name: str, terms: str) -> WaitingSeek | None:
        """Pair a seek, deciding in the database: take the oldest waiting seek with the same
        `terms` (removed: the caller starts the match), or, if there is none, leave this
        one waiting. Concurrent offers never take the same seek twice."""
        ...

    def withdraw_seek(self, seek: str) -> bool:
        """Remove a waiting seek; False if another offer took it meanwhile."""
        ...

    def waiting_seeks(self) -> list[WaitingSeek]:
        """The seeks waiting in the database, oldest first."""
        ...

    def withdraw_node_seeks(self, node: str) -> int:
        """Remove every seek a node left, plain and pool seeks, release the pools it
        directed and take its ladder bots off it (it stopped, or was declared dead: `reap`
        does the same)."""
        ...

    def notify(self, node: str, payload: str) -> None:
        """Send `payload` to `node` (``listen``); committed at once."""
        ...

    def listen(self, node: str, stop: Callable[[], bool]) -> Iterator[str]:
        """The payloads sent to `node`, as they come, until `stop()` (checked each second)."""
        ...


@dataclass(frozen=True, slots=True)
class PoolSeeker:
    """A seek waiting in a tournament pool on some node (`PoolTables`)."""

    id: str
    pool: str
    #: the node whose connection seeks (where a ``redirect`` is sent)
    node: str
    name: str
    #: a digest of the seeker's join secret, compared with the admitted player's
    secret: str
    #: what it plays (game and options), as the server wrote it: equal text, equal terms
    terms: str


@dataclass(frozen=True, slots=True)
class PoolClaim:
    """What `PoolTables.claim` found: the pool's owner and where its director was."""

    #: the digest of the pool's owner key (the claimant's, if the claim succeeded)
    owner: str
    #: the node its director talked to before ("" if it had none)
    previous: str


class PoolTables(Protocol):
    """Tournament pools of a shared database: their owners and the seeks waiting in them.

    A pool spans the nodes: a seeker waits on its own node, and the pool's
    director, on any node, sees every seeker here and takes those it pairs.
    Its owner (a digest of the owner key) is the arena's, not a node's.
    """

    def claim(self, pool: str, owner: str, node: str, grace: float) -> PoolClaim:
        """Direct `pool` from `node` with the owner digest `owner`, in one transaction.

        A new pool, one that `owner` owns, or one that has had no director for
        `grace` seconds and has no seeker waiting (its name is free again)
        becomes (or stays) `owner`'s, directed from `node`. Another owner's pool
        is left as it is. The answer names the pool's owner and the node that
        directed it before: the claim succeeded if that owner is `owner`.
        """
        ...

    def release(self, pool: str, node: str) -> None:
        """The director of `pool` on `node` left: the pool has none (its idle time begins).
        Nothing changes if another node directs it now."""
        ...

    def add(self, seeker: PoolSeeker) -> str:
        """Publish a waiting pool seek (again: nothing changes); the node its pool's director
        talks to ("" if none), to be told."""
        ...

    def withdraw(self, seek: str) -> bool:
        """Remove a waiting pool seek; False if it was taken (or withdrawn) already."""
        ...

    def waiting(self, pools: Sequence[str]) -> list[PoolSeeker]:
        """The seeks waiting in these pools, oldest first."""
        ...

    def take(
        self, pool: str, seats: Sequence[tuple[str, str]], terms: str, prefer: str = ""
    ) -> list[PoolSeeker] | None:
        """Take the seekers of a match, all or none, in one transaction.

        For each seat, a (name, secret digest), the oldest seek of that name and
        secret waiting in `pool` with these `terms` (those of node `prefer` first),
        whose node's lease has not expired (the seekers of a dead node are never
        paired, even before it is reaped), each seek for one seat only; all are removed and returned in seat order, or,
        if some seat has none, nothing is removed and the answer is None. Concurrent
        takes and withdrawals never get the same seek twice.
        """
        ...


class AccountTable(Protocol):
    """Registered player names and their password hashes (policy: `server.accounts`)."""

    def password_hash(self, name: str) -> str | None:
        """The stored hash of `name`, or None if the name is not registered."""
        ...

    def add(self, name: str, password_hash: str) -> bool:
        """Register `name`; False (nothing written) if it is registered already."""
        ...

    def set_password(self, name: str, password_hash: str) -> bool:
        """Replace the hash of a registered name; False if the name is not registered."""
        ...

    def remove(self, name: str) -> bool:
        """Forget `name`; False if it was not registered."""
        ...

    def names(self) -> list[str]:
        """Every registered name, in order."""
        ...

    def entries(self) -> list[tuple[str, float]]:
        """Every registered name with the time it was registered, in name order."""
        ...


class MatchWriter(Protocol):
    """What the recorder needs of a records database: write matches, find a played game.

    Every `Database` is one; so is the server's writer process
    (`store.writer.ProcessWriter`), which writes through a child process.
    """

    #: names the database in messages (a file path, or a URL without its password)
    path: str

    def write(self, batch: Sequence[MatchWrite]) -> BatchReport:
        """Write each match's records in its own (sub)transaction; never raises for a write error.

        The report names the matches that committed and the first error: a
        result counts as acknowledged only once its match is in `committed`.
        """
        ...

    def import_match(self, record: MatchRecord, moves: Sequence[MoveRecord]) -> bool:
        """Store a whole match in one transaction; False (nothing written) if its id exists."""
        ...

    def abort_running(self, reason: str) -> int:
        """Mark matches left 'running' by a crash or shutdown as aborted; return how many."""
        ...

    def find_tournament_game(self, tournament: str, index: int, owner: str) -> MatchRecord | None:
        """The finished game `index` of `tournament` paired by the pool owner `owner`."""
        ...

    def close(self) -> None: ...


class Database(MatchWriter, Protocol):
    """A records database: matches and their moves, tournaments, accounts, nodes and pools.

    `path` names it in messages (a file path, or a URL without its password).
    """

    #: the schema version the database had when it was opened (0: created now)
    upgraded_from: int

    @property
    def tournaments(self) -> TournamentTables:
        """The tournament tables."""
        ...

    @property
    def accounts(self) -> AccountTable:
        """The accounts table."""
        ...

    @property
    def nodes(self) -> NodeTable:
        """The servers sharing this database (used when `shared`)."""
        ...

    @property
    def pools(self) -> PoolTables:
        """Tournament pools of every node: owners and waiting seeks (used when `shared`)."""
        ...

    @property
    def ladders(self) -> LadderTable:
        """The ladders' bots of every node and their pairings (used when `shared`)."""
        ...

    #: whether several servers may use this database at once (PostgreSQL: True)
    shared: bool

    # --- reads -------------------------------------------------------------------

    def list_matches(
        self, limit: int = 50, *, status: str | None = None, tournament: str | None = None
    ) -> list[MatchRecord]:
        """Most recent matches first."""
        ...

    def get_match(self, match_id: str) -> MatchRecord | None:
        """The match with this id, or with this unique id prefix."""
        ...

    def match_ids(self, prefix: str, limit: int = 10) -> list[str]:
        """Up to `limit` match ids starting with `prefix`, in order."""
        ...

    def get_moves(self, match_id: str) -> list[MoveRecord]:
        """Every recorded ply of the match, in order, with the movers' move info."""
        ...

    def ladder_matches(self, ladder: str) -> list[MatchRecord]:
        """The finished and aborted games of `ladder`, in the order they ended."""
        ...

    def ladder_ended(self, ladder: str) -> int:
        """How many games of `ladder` have ended (finished or aborted), on every node."""
        ...

    # --- maintenance -------------------------------------------------------------

    def backup(self, destination: str) -> None:
        """A consistent copy of the whole database at `destination`, taken while it runs."""
        ...

    def integrity_check(self) -> list[str]:
        """The backend's own consistency check: ``["ok"]`` for a sound database."""
        ...


__all__ = [
    "AccountTable",
    "Database",
    "LadderBot",
    "LadderPairing",
    "LadderRound",
    "LadderTable",
    "MatchProgress",
    "MatchWriter",
    "NodeRow",
    "NodeTable",
    "PoolClaim",
    "PoolSeeker",
    "PoolTables",
    "RunningMatch",
    "StoredGame",
    "StoredTournament",
    "TaggedTournament",
    "TournamentTables",
    "WaitingSeek",
]
