"""What is PostgreSQL's own in the records store: migrations, refusals, unreachable servers.

What every backend promises is tests/store/test_database.py.
"""

from __future__ import annotations

import threading
import time

import psycopg
import pytest

from store.errors import StoreError
from store.open import open_database
from store.postgres.schema import MIGRATIONS
from store.version import SCHEMA_VERSION
from tests.postgres import PostgresServer


def _statements(script: str) -> list[str]:
    return [s.strip() for s in script.split(";") if s.strip()]


def test_a_version_6_database_is_upgraded(postgres_url: str) -> None:
    with psycopg.connect(postgres_url, autocommit=True) as db:
        db.execute("CREATE TABLE arena_schema (version INTEGER NOT NULL)")
        db.execute("INSERT INTO arena_schema VALUES (6)")
        for statement in _statements(MIGRATIONS[6]):
            db.execute(statement)
    database = open_database(postgres_url)
    try:
        assert database.upgraded_from == 6
        database.nodes.register("n", "h:1", 5.0)  # the version-7 table is there
        assert database.integrity_check() == ["ok"]
    finally:
        database.close()


def test_a_newer_or_foreign_database_is_refused_untouched(
    postgres_server: PostgresServer,
) -> None:
    newer, foreign = postgres_server.new_database(), postgres_server.new_database()
    with psycopg.connect(newer, autocommit=True) as db:
        db.execute("CREATE TABLE arena_schema (version INTEGER NOT NULL)")
        db.execute("INSERT INTO arena_schema VALUES (%s)", (SCHEMA_VERSION + 1,))
    with pytest.raises(StoreError, match="newer than this program's"):
        open_database(newer)
    with psycopg.connect(foreign, autocommit=True) as db:
        db.execute("CREATE TABLE invoices (id INTEGER)")
    with pytest.raises(StoreError, match="another program's tables"):
        open_database(foreign)
    with psycopg.connect(foreign, autocommit=True) as db:
        tables = db.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'"
        ).fetchall()
    assert tables == [("invoices",)]  # nothing created


def test_an_unreachable_or_wrong_server_is_one_line(postgres_server: PostgresServer) -> None:
    cases = (
        ("postgresql://arena@127.0.0.1:1/arena", "cannot use postgresql://arena@127.0.0.1:1/arena"),
        (postgres_server.url("no_such_db"), "no_such_db"),
        ("postgresql://arena:s3cret@127.0.0.1:1/arena", "cannot use"),
    )
    for url, words in cases:
        with pytest.raises(StoreError) as caught:
            open_database(url)
        message = str(caught.value)
        assert words in message and "\n" not in message
        assert "s3cret" not in message  # a password is never shown


def test_a_node_hears_what_is_sent_to_it_and_nothing_else(postgres_url: str) -> None:
    """Sent until heard: a NOTIFY before the LISTEN is committed is lost, by design."""

    database = open_database(postgres_url)
    heard: list[str] = []
    listening = threading.Event()
    done = threading.Event()

    def listen() -> None:
        stream = database.nodes.listen("n-1", done.is_set)
        listening.set()
        for payload in stream:
            heard.append(payload)
            if len(heard) == 3:
                done.set()

    try:
        thread = threading.Thread(target=listen)
        thread.start()
        listening.wait(5)
        deadline = time.monotonic() + 10
        sent = 0
        while not done.is_set() and time.monotonic() < deadline:
            database.nodes.notify("n-1", f"hello {sent}")
            database.nodes.notify("n-2", "not for n-1")
            sent += 1
            time.sleep(0.2)
        thread.join(10)
        assert len(heard) == 3 and all(payload.startswith("hello ") for payload in heard)
        numbers = [int(payload.split()[1]) for payload in heard]
        assert numbers == sorted(numbers)  # in the order sent
    finally:
        done.set()
        database.close()
