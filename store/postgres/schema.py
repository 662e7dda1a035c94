"""The PostgreSQL schema and its migrations (the SQLite ones are `store.sqlite.schema`).

Both backends share one version number (`store.version.SCHEMA_VERSION`): a
change to the records is a migration in each. PostgreSQL support began at
version 6, so its first migration creates the whole version-6 schema; each
later change adds ``MIGRATIONS[n]`` here and ``_Vn`` in `store.sqlite.schema`.

The version lives in the table ``arena_schema``. Several servers may open
the database at once: a migration runs under a transaction-level advisory
lock, so exactly one of them applies it and the others see the result.
The columns keep SQLite's encodings (JSON as text, times as seconds since
the epoch), so one row reader (`store.rows`) serves both.
"""

from __future__ import annotations

from typing import Any

from store.version import ARENA_TABLES as COMMON_TABLES
from store.version import SCHEMA_VERSION

#: the lock every migration holds (an arbitrary constant: "arena" in ASCII)
MIGRATION_LOCK = 0x6172656E61

_V6 = """
CREATE TABLE IF NOT EXISTS matches (
    id TEXT PRIMARY KEY,
    game TEXT NOT NULL,
    options TEXT NOT NULL,
    move_time DOUBLE PRECISION NOT NULL,
    lag_margin DOUBLE PRECISION NOT NULL,
    players TEXT NOT NULL,
    status TEXT NOT NULL,
    scores TEXT,
    winner INTEGER,
    termination TEXT,
    reason TEXT,
    points TEXT,
    plies INTEGER NOT NULL DEFAULT 0,
    started_at DOUBLE PRECISION NOT NULL,
    ended_at DOUBLE PRECISION,
    tournament TEXT,
    tags TEXT NOT NULL DEFAULT '{}',
    game_index INTEGER
);
CREATE INDEX IF NOT EXISTS matches_started ON matches(started_at);
CREATE INDEX IF NOT EXISTS matches_tournament ON matches(tournament);
CREATE INDEX IF NOT EXISTS matches_tournament_game ON matches(tournament, game_index);
CREATE INDEX IF NOT EXISTS matches_running ON matches(status) WHERE status = 'running';
CREATE TABLE IF NOT EXISTS moves (
    match_id TEXT NOT NULL REFERENCES matches(id),
    ply INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    move TEXT NOT NULL,
    notation TEXT NOT NULL,
    think_time DOUBLE PRECISION NOT NULL,
    at DOUBLE PRECISION NOT NULL,
    eval DOUBLE PRECISION,
    depth INTEGER,
    visits BIGINT,
    pv TEXT,
    PRIMARY KEY (match_id, ply)
);
CREATE TABLE IF NOT EXISTS tournaments (
    id TEXT PRIMARY KEY,
    config TEXT NOT NULL,
    status TEXT NOT NULL,
    created_at DOUBLE PRECISION NOT NULL,
    updated_at DOUBLE PRECISION NOT NULL,
    owner_key TEXT
);
CREATE TABLE IF NOT EXISTS tournament_games (
    tournament TEXT NOT NULL REFERENCES tournaments(id),
    idx INTEGER NOT NULL,
    seats TEXT NOT NULL,
    scores TEXT NOT NULL,
    termination TEXT NOT NULL,
    match_id TEXT NOT NULL,
    plies INTEGER NOT NULL,
    finished_at DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (tournament, idx)
);
CREATE TABLE IF NOT EXISTS accounts (
    name TEXT PRIMARY KEY,
    password_hash TEXT NOT NULL,
    created_at DOUBLE PRECISION NOT NULL
)
"""

#: version 7: the servers (nodes) sharing the database, each with a lease (seconds since
#: the epoch, on the database server's clock) it renews
_V7 = """
CREATE TABLE IF NOT EXISTS nodes (
    id TEXT PRIMARY KEY,
    address TEXT NOT NULL,
    started_at DOUBLE PRECISION NOT NULL,
    lease_until DOUBLE PRECISION NOT NULL
);
CREATE TABLE IF NOT EXISTS seeks (
    id TEXT PRIMARY KEY,
    node TEXT NOT NULL,
    name TEXT NOT NULL,
    terms TEXT NOT NULL,
    created_at DOUBLE PRECISION NOT NULL
);
CREATE INDEX IF NOT EXISTS seeks_terms ON seeks(terms, created_at)
"""

#: version 8: tournament pools span the nodes: the seeks waiting in a pool, whatever their
#: node (`secret` is a digest of the join secret), and each pool's owner (a digest of its
#: key) and the node its director talks to
_V8 = """
CREATE TABLE IF NOT EXISTS pool_seeks (
    id TEXT PRIMARY KEY,
    pool TEXT NOT NULL,
    node TEXT NOT NULL,
    name TEXT NOT NULL,
    secret TEXT NOT NULL,
    terms TEXT NOT NULL,
    created_at DOUBLE PRECISION NOT NULL
);
CREATE INDEX IF NOT EXISTS pool_seeks_pool ON pool_seeks(pool, created_at);
CREATE TABLE IF NOT EXISTS pools (
    name TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    node TEXT NOT NULL,
    idle_since DOUBLE PRECISION
)
"""

#: schema version -> the statements that bring version - 1 to it
#: version 9: a ladder's games are found by its name (the ``ladder`` tag, docs/LADDER.md)
#: without reading every match: an index over the tag, of the matches that have one
_V9 = """
CREATE INDEX IF NOT EXISTS matches_ladder ON matches ((tags::jsonb->>'ladder'), ended_at)
    WHERE (tags::jsonb->>'ladder') IS NOT NULL;
"""

#: version 10: a ladder spans the nodes (server/cluster_ladders.py): each bot's node, since
#: when it is ready and its last opponent, and who moved first against whom how often
_V10 = """
CREATE TABLE IF NOT EXISTS ladder_bots (
    ladder TEXT NOT NULL,
    name TEXT NOT NULL,
    node TEXT NOT NULL,
    ready_since DOUBLE PRECISION,
    last TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (ladder, name)
);
CREATE INDEX IF NOT EXISTS ladder_bots_node ON ladder_bots(node);
CREATE TABLE IF NOT EXISTS ladder_firsts (
    ladder TEXT NOT NULL,
    first TEXT NOT NULL,
    second TEXT NOT NULL,
    games INTEGER NOT NULL,
    PRIMARY KEY (ladder, first, second)
)
"""

MIGRATIONS: dict[int, str] = {6: _V6, 7: _V7, 8: _V8, 9: _V9, 10: _V10}
FIRST_VERSION = min(MIGRATIONS)
assert max(MIGRATIONS) == SCHEMA_VERSION, "every schema version needs a PostgreSQL migration"

#: tables of an arena database (any other table means the database belongs to something else):
#: the common ones, and the schema version's own table
ARENA_TABLES = COMMON_TABLES | {"arena_schema"}


def migrate(db: Any, name: str) -> int:
    """Bring the database behind connection `db` to `SCHEMA_VERSION`; the version it had.

    Raises ValueError with a readable line for a database this program cannot
    use (newer than this program, or another program's tables).
    """
    with db.transaction():
        db.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
        tables = {
            row[0]
            for row in db.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"
            )
        }
        if "arena_schema" in tables:
            row = db.execute("SELECT version FROM arena_schema").fetchone()
            version = int(row[0]) if row else 0
        else:
            foreign = tables - ARENA_TABLES
            if foreign:
                raise ValueError(
                    f"{name} holds another program's tables ({', '.join(sorted(foreign))});"
                    " give the arena a database of its own"
                )
            db.execute("CREATE TABLE arena_schema (version INTEGER NOT NULL)")
            db.execute("INSERT INTO arena_schema VALUES (0)")
            version = 0
        if version > SCHEMA_VERSION:
            raise ValueError(
                f"{name}: database schema version {version} is newer than this program's"
                f" ({SCHEMA_VERSION}); upgrade mcts-arena"
            )
        for target in range(max(version + 1, FIRST_VERSION), SCHEMA_VERSION + 1):
            for statement in _statements(MIGRATIONS[target]):
                db.execute(statement)
            db.execute("UPDATE arena_schema SET version = %s", (target,))
    return version


def _statements(script: str) -> list[str]:
    return [s.strip() for s in script.split(";") if s.strip()]
