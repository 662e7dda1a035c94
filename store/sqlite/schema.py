"""The SQLite schema and its migrations (PostgreSQL's are `store.postgres.schema`).

`PRAGMA user_version` holds the schema version. Each migration takes a
database from version N-1 to N inside one transaction, so an upgrade either
happens completely or not at all; databases written by earlier releases are
upgraded when they are opened, and a database newer than this program is
refused rather than misread.
"""

from __future__ import annotations

import sqlite3

from store.version import ARENA_TABLES, SCHEMA_VERSION

#: the tables of version 1 (the first release)
_V1 = """
CREATE TABLE IF NOT EXISTS matches (
    id TEXT PRIMARY KEY,
    game TEXT NOT NULL,
    options TEXT NOT NULL,
    move_time REAL NOT NULL,
    lag_margin REAL NOT NULL,
    players TEXT NOT NULL,
    status TEXT NOT NULL,
    scores TEXT,
    winner INTEGER,
    termination TEXT,
    reason TEXT,
    points TEXT,
    plies INTEGER NOT NULL DEFAULT 0,
    started_at REAL NOT NULL,
    ended_at REAL,
    tournament TEXT,
    extra TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS matches_started ON matches(started_at);
CREATE INDEX IF NOT EXISTS matches_tournament ON matches(tournament);
CREATE TABLE IF NOT EXISTS moves (
    match_id TEXT NOT NULL REFERENCES matches(id),
    ply INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    move TEXT NOT NULL,
    notation TEXT NOT NULL,
    think_time REAL NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (match_id, ply)
);
"""

#: version 2: tournaments belong to the schema (they were created on first use), and a
#: tournament game's index is a column, so "is this game already played?" is one lookup
_V2 = """
CREATE TABLE IF NOT EXISTS tournaments (
    id TEXT PRIMARY KEY,
    config TEXT NOT NULL,
    status TEXT NOT NULL,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS tournament_games (
    tournament TEXT NOT NULL REFERENCES tournaments(id),
    idx INTEGER NOT NULL,
    seats TEXT NOT NULL,
    scores TEXT NOT NULL,
    termination TEXT NOT NULL,
    match_id TEXT NOT NULL,
    plies INTEGER NOT NULL,
    finished_at REAL NOT NULL,
    PRIMARY KEY (tournament, idx)
);
ALTER TABLE matches ADD COLUMN game_index INTEGER;
UPDATE matches SET game_index = json_extract(extra, '$.index')
    WHERE tournament IS NOT NULL AND json_type(extra, '$.index') = 'integer';
CREATE INDEX IF NOT EXISTS matches_tournament_game ON matches(tournament, game_index);
"""

#: version 3: accounts (registered player names with a password hash, docs/PROTOCOL.md)
_V3 = """
CREATE TABLE IF NOT EXISTS accounts (
    name TEXT PRIMARY KEY,
    password_hash TEXT NOT NULL,
    created_at REAL NOT NULL
);
"""

#: version 4: a tournament's pool owner key, kept by its director across restarts
#: (docs/PROTOCOL.md section 5: only the owner's games are the tournament's)
_V4 = """
ALTER TABLE tournaments ADD COLUMN owner_key TEXT;
"""

#: version 5: what the mover's engine said about each move (``move.eval``/``depth``/
#: ``visits``/``pv``, docs/PROTOCOL.md); NULL when it said nothing. `pv` is a JSON array
#: of moves in the game's notation
_V5 = """
ALTER TABLE moves ADD COLUMN eval REAL;
ALTER TABLE moves ADD COLUMN depth INTEGER;
ALTER TABLE moves ADD COLUMN visits INTEGER;
ALTER TABLE moves ADD COLUMN pv TEXT;
"""

#: version 6: a match's tags are typed (`MatchTags`): the ``extra`` column becomes ``tags``,
#: and an opening stored the old way (``{"moves": [...]}``) becomes its list of moves
_V6 = """
ALTER TABLE matches RENAME COLUMN extra TO tags;
UPDATE matches SET tags = json_set(tags, '$.opening', json_extract(tags, '$.opening.moves'))
    WHERE json_type(tags, '$.opening') = 'object';
UPDATE matches SET tags = json_remove(tags, '$.opening')
    WHERE json_type(tags, '$.opening') NOT IN ('array') AND json_type(tags, '$.opening') IS NOT NULL;
"""

#: version 7: the servers (nodes) sharing the database, each with a lease it renews
#: (a node whose lease expired is dead: a survivor ends its matches, once), and the
#: seeks waiting on them (a seek on one node pairs with a seek on another)
_V7 = """
CREATE TABLE IF NOT EXISTS nodes (
    id TEXT PRIMARY KEY,
    address TEXT NOT NULL,
    started_at REAL NOT NULL,
    lease_until REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS seeks (
    id TEXT PRIMARY KEY,
    node TEXT NOT NULL,
    name TEXT NOT NULL,
    terms TEXT NOT NULL,
    created_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS seeks_terms ON seeks(terms, created_at);
"""

#: version 8: tournament pools span the nodes: the seeks waiting in a pool, whatever their
#: node (its director, on any node, pairs them; `secret` is a digest of the join secret),
#: and each pool's owner (a digest of its key) and the node its director talks to
_V8 = """
CREATE TABLE IF NOT EXISTS pool_seeks (
    id TEXT PRIMARY KEY,
    pool TEXT NOT NULL,
    node TEXT NOT NULL,
    name TEXT NOT NULL,
    secret TEXT NOT NULL,
    terms TEXT NOT NULL,
    created_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS pool_seeks_pool ON pool_seeks(pool, created_at);
CREATE TABLE IF NOT EXISTS pools (
    name TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    node TEXT NOT NULL,
    idle_since REAL
);
"""

#: version 9: a ladder's games are found by its name (the ``ladder`` tag, docs/LADDER.md)
#: without reading every match: an index over the tag, of the matches that have one
_V9 = """
CREATE INDEX IF NOT EXISTS matches_ladder ON matches(json_extract(tags, '$.ladder'), ended_at)
    WHERE json_extract(tags, '$.ladder') IS NOT NULL;
"""

#: version 10: a ladder spans the nodes of a shared database (server/cluster_ladders.py);
#: the tables exist here too, so that SQLite implements the whole store interface
_V10 = """
CREATE TABLE IF NOT EXISTS ladder_bots (
    ladder TEXT NOT NULL,
    name TEXT NOT NULL,
    node TEXT NOT NULL,
    ready_since REAL,
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
);
"""

MIGRATIONS: tuple[str, ...] = (_V1, _V2, _V3, _V4, _V5, _V6, _V7, _V8, _V9, _V10)
assert len(MIGRATIONS) == SCHEMA_VERSION, "every schema version needs an SQLite migration"


def check_compatible(db: sqlite3.Connection, path: str) -> int:
    """The schema version of an arena database; writes nothing.

    Raises ValueError with a readable message for a database this program cannot use.
    """
    version = int(db.execute("PRAGMA user_version").fetchone()[0])
    if version > SCHEMA_VERSION:
        raise ValueError(
            f"{path}: database schema version {version} is newer than this program's"
            f" ({SCHEMA_VERSION}); upgrade mcts-arena"
        )
    if version == 0:
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        foreign = tables - ARENA_TABLES
        if foreign:
            raise ValueError(
                f"{path} is an SQLite database of another program (tables: {', '.join(sorted(foreign))})"
            )
    return version


def migrate(db: sqlite3.Connection, path: str) -> int:
    """Bring the database to `SCHEMA_VERSION`; returns the version it had before."""
    version = check_compatible(db, path)
    for target in range(version + 1, SCHEMA_VERSION + 1):
        db.execute("BEGIN IMMEDIATE")
        try:
            for statement in _statements(MIGRATIONS[target - 1]):
                if _adds_existing_column(db, statement):
                    continue  # a database that got the column some other way
                db.execute(statement)
            db.execute(f"PRAGMA user_version={target}")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")
    return version


def _statements(script: str) -> list[str]:
    return [s.strip() for s in script.split(";") if s.strip()]


def _adds_existing_column(db: sqlite3.Connection, statement: str) -> bool:
    """Whether `statement` is ``ALTER TABLE t ADD COLUMN c ...`` for a column `t` has already."""
    words = statement.split()
    if words[:2] != ["ALTER", "TABLE"] or words[3:5] != ["ADD", "COLUMN"]:
        return False
    table, column = words[2], words[5]
    return any(row[1] == column for row in db.execute(f"PRAGMA table_info({table})"))
