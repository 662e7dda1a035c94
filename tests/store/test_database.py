"""The records database interface (`store.interface.Database`), run on every backend.

The same tests drive the SQLite file and a real PostgreSQL server (started by
the tests, `tests/postgres.py`): what one backend promises, the other keeps.
Backend-specific behaviour (SQLite migrations and file faults, PostgreSQL's
connection faults) has its own modules.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from protocol.messages import Clock
from store import (
    SCHEMA_VERSION,
    MatchRecord,
    MatchWrite,
    MoveRecord,
    ResultRecord,
    StoreError,
    move_row,
)
from store.interface import (
    Database,
    LadderPairing,
    LadderRound,
    PoolClaim,
    PoolSeeker,
    StoredGame,
)
from store.matches import MatchTags
from store.open import open_database
from tests.postgres import postgres_server as postgres_server


@pytest.fixture(params=["sqlite", "postgresql"])
def target(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """What a user passes as ``--db``: a fresh SQLite file, or a fresh PostgreSQL database."""
    if request.param == "sqlite":
        return str(tmp_path / "arena.sqlite")
    return str(request.getfixturevalue("postgres_server").new_database())


@pytest.fixture
def database(target: str) -> Iterator[Database]:
    """A fresh, empty database of each backend."""
    db = open_database(target)
    yield db
    db.close()


def record(match_id: str, **changes: Any) -> MatchRecord:
    base = MatchRecord(
        id=match_id,
        game="tictactoe",
        options={},
        move_time=1.0,
        lag_margin=0.2,
        players=["a", "b"],
        status="finished",
        scores=[1.0, 0.0],
        winner=0,
        termination="line",
        reason="X wins (line)",
        points=None,
        plies=1,
        started_at=1.0,
        ended_at=2.0,
        tournament=None,
    )
    return dataclasses.replace(base, **changes)


def running(match_id: str, **changes: Any) -> MatchRecord:
    return record(
        match_id,
        status="running",
        scores=None,
        winner=None,
        termination=None,
        reason=None,
        ended_at=None,
        **changes,
    )


def result(match_id: str, ended_at: float = 2.0) -> ResultRecord:
    return ResultRecord(match_id, "finished", [1.0, 0.0], 0, "line", "X wins", None, 1, ended_at)


_INFOS: list[dict[str, Any]] = [
    {"eval": 0.62, "depth": 14, "visits": 35_210, "pv": ("d3", "e6", "f4")},
    {},
    {"eval": 1.0},
    {"eval": 0.0, "visits": 2**53},
    {"depth": 0, "pv": ("pass",)},
    {"pv": ('x"y]', "\\", "é")},
]


# --- matches and moves -------------------------------------------------------------


def test_a_whole_match_is_imported_once(database: Database) -> None:
    moves = [MoveRecord("imported-1", 0, 0, 4, "b2", 0.5, 1.5)]
    tagged = record("imported-1", tags=MatchTags(room="r1", clock=Clock(60.0, 1.0)))
    assert database.import_match(tagged, moves)
    assert not database.import_match(tagged, moves)  # already there: nothing written
    assert database.get_match("imported-1") == tagged
    assert database.get_moves("imported-1") == moves


@pytest.mark.parametrize("count", [1, 40])
def test_moves_and_their_info_come_back_exactly(database: Database, count: int) -> None:
    values: list[Any] = [4, "e4", [0, 3], {"from": 1, "to": [2, 3]}, None, -7, "x\"y'z"]
    moves = [
        MoveRecord(
            "m",
            ply,
            ply % 2,
            values[ply % len(values)],
            f"n{ply}",
            0.1 * ply,
            1e9 + ply / 3,
            **_INFOS[ply % len(_INFOS)],
        )
        for ply in range(count)
    ]
    report = database.write([MatchWrite("m", running("m"), [move_row(m) for m in moves])])
    assert report.error is None and report.committed == {"m"}
    assert database.get_moves("m") == moves  # types, floats, JSON values and move info


def test_a_running_match_is_finished_by_its_result(database: Database) -> None:
    database.write(
        [MatchWrite("m", running("m"), [move_row(MoveRecord("m", 0, 0, 4, "b2", 0.1, 1.0))])]
    )
    assert database.get_match("m").status == "running"  # type: ignore[union-attr]
    # moves written again (a retried batch) replace themselves: no duplicate, no error
    again = MoveRecord("m", 0, 0, 5, "c2", 0.2, 1.1)
    report = database.write([MatchWrite("m", moves=[move_row(again)], result=result("m"))])
    assert report.committed == {"m"} and report.error is None
    finished = database.get_match("m")
    assert finished is not None and finished.status == "finished" and finished.scores == [1.0, 0.0]
    assert database.get_moves("m") == [again]


def test_a_result_for_a_match_already_ended_elsewhere_is_superseded(database: Database) -> None:
    """Fencing: a node declared dead (its matches aborted by a survivor) that finishes one of
    them later is refused, distinctly and without an error: the match is recorded once."""
    database.write([MatchWrite(name, running(name)) for name in ("late", "fine")])
    assert database.abort_running("its server (node) stopped answering") == 2
    database.write([MatchWrite("fine2", running("fine2"))])
    late_move = move_row(MoveRecord("late", 0, 0, 4, "b2", 0.1, 1.0))
    report = database.write(
        [
            MatchWrite("late", moves=[late_move], result=result("late")),
            MatchWrite("fine2", result=result("fine2")),
        ]
    )
    assert report.superseded == {"late"} and report.committed == {"fine2"}
    assert report.error is None
    late = database.get_match("late")
    assert late is not None and late.status == "aborted" and late.reason is not None
    assert "stopped answering" in late.reason and database.get_moves("late") == []
    assert database.get_match("fine2").status == "finished"  # type: ignore[union-attr]


def test_a_failing_match_in_a_batch_rolls_back_alone(database: Database) -> None:
    good = MatchWrite(
        "good", running("good"), [move_row(MoveRecord("good", 0, 0, 4, "b2", 0.1, 1.0))]
    )
    bad = MatchWrite("bad", result=result("bad"))  # no match row to finish: its savepoint fails
    report = database.write([good, bad])
    assert report.committed == {"good"}
    assert report.error is not None and "bad" in report.error
    assert database.get_match("good") is not None and len(database.get_moves("good")) == 1
    assert database.get_match("bad") is None
    assert database.write([MatchWrite("bad", running("bad"), result=result("bad"))]).committed == {
        "bad"
    }
    assert database.get_match("bad").status == "finished"  # type: ignore[union-attr]
    assert database.integrity_check() == ["ok"]


def test_running_matches_are_aborted_after_a_crash(database: Database) -> None:
    database.write([MatchWrite(name, running(name)) for name in ("r1", "r2")])
    database.import_match(record("done"), [])
    assert database.abort_running("server restarted") == 2
    aborted = database.get_match("r1")
    assert aborted is not None and aborted.status == "aborted"
    assert aborted.reason == "server restarted" and aborted.ended_at is not None
    assert database.get_match("done").status == "finished"  # type: ignore[union-attr]
    assert database.abort_running("again") == 0


def test_listing_filters_and_orders_newest_first(database: Database) -> None:
    for i in range(5):
        database.import_match(
            record(f"m{i}", started_at=float(i), tournament="t" if i % 2 else None), []
        )
    database.write([MatchWrite("live", running("live", started_at=9.0))])
    assert [m.id for m in database.list_matches(3)] == ["live", "m4", "m3"]
    assert [m.id for m in database.list_matches(status="running")] == ["live"]
    assert [m.id for m in database.list_matches(tournament="t")] == ["m3", "m1"]


def test_ids_and_prefixes_match_literally(database: Database) -> None:
    for match_id in ("a_b", "axb1", "abc%1", "abd"):
        database.import_match(record(match_id), [])
    assert database.get_match("a_").id == "a_b"  # type: ignore[union-attr]
    assert database.get_match("abc%").id == "abc%1"  # type: ignore[union-attr]
    assert database.get_match("a%") is None
    assert database.get_match("ab") is None  # two matches start with it
    assert database.match_ids("ab") == ["abc%1", "abd"]
    assert database.match_ids("a", limit=2) == ["a_b", "abc%1"]


def test_a_ladders_games_are_read_in_the_order_they_ended(database: Database) -> None:
    def game(match_id: str, ladder: str | None, ended: float, status: str = "finished") -> None:
        tags = MatchTags(ladder=ladder)
        database.import_match(record(match_id, tags=tags, ended_at=ended, status=status), [])

    game("late", "c4", 9.0)
    game("early", "c4", 3.0)
    game("other", "go9", 5.0)
    game("plain", None, 4.0)
    game("live", "c4", 1.0, status="running")
    assert [r.id for r in database.ladder_matches("c4")] == ["early", "late"]
    assert database.ladder_matches("c4")[0].tags.ladder == "c4"
    assert [r.id for r in database.ladder_matches("go9")] == ["other"]
    assert database.ladder_matches("none") == []


def test_a_tournament_game_is_found_by_index_and_owner(database: Database) -> None:
    def game(match_id: str, index: int, owner: str | None, status: str = "finished") -> None:
        tags = MatchTags(index=index, seats=("x", "y"), owner=owner)
        database.import_match(record(match_id, tournament="t1", tags=tags, status=status), [])

    game("own", 3, "key-1")
    game("other", 3, "key-2")
    game("old", 4, None)
    game("live", 5, "key-1", status="running")
    assert database.find_tournament_game("t1", 3, "key-1").id == "own"  # type: ignore[union-attr]
    assert database.find_tournament_game("t1", 3, "key-3") is None
    assert database.find_tournament_game("t1", 4, "").id == "old"  # type: ignore[union-attr]
    assert database.find_tournament_game("t1", 5, "key-1") is None  # not finished


def test_concurrent_writers_lose_nothing(database: Database) -> None:
    def writer(worker: int) -> None:
        for i in range(20):
            name = f"w{worker}-{i}"
            moves = [
                move_row(MoveRecord(name, ply, ply % 2, ply, str(ply), 0.1, 1.0))
                for ply in range(5)
            ]
            report = database.write([MatchWrite(name, running(name), moves, result(name))])
            assert report.committed == {name}, report.error

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    matches = database.list_matches(1000)
    assert len(matches) == 80 and {m.status for m in matches} == {"finished"}
    assert all(len(database.get_moves(m.id)) == 5 for m in matches)


# --- tournaments -------------------------------------------------------------------


def test_tournament_tables(database: Database) -> None:
    tables = database.tournaments
    tables.save("t-one", '{"game": "connect4"}', "running")
    tables.save("t-one", '{"ignored": true}', "finished")  # the status changes, not the config
    tables.save("t-two", "{}", "running")
    found = tables.find("t-o")
    assert found is not None and found.id == "t-one"
    assert found.config == '{"game": "connect4"}' and found.status == "finished"
    assert tables.find("t-") is None and tables.find("nope") is None
    assert tables.owner_key("t-one", "k1") == "k1"
    assert tables.owner_key("t-one", "k2") == "k1"  # kept across restarts
    tables.add_game("t-one", StoredGame(0, ("a", "b"), (1.0, 0.0), "line", "m1", 7))
    tables.add_game("t-one", StoredGame(1, ("b", "a"), (0.5, 0.5), "draw", "m2", 9))
    tables.add_game("t-one", StoredGame(1, ("b", "a"), (0.0, 1.0), "line", "m3", 8))  # replaced
    assert sorted(tables.games("t-one"), key=lambda g: g.index) == [
        StoredGame(0, ("a", "b"), (1.0, 0.0), "line", "m1", 7),
        StoredGame(1, ("b", "a"), (0.0, 1.0), "line", "m3", 8),
    ]
    listed = {t.id: t.done for t in tables.all()}
    assert listed == {"t-one": 2, "t-two": 0}
    database.import_match(record("x1", tournament="remote", started_at=5.0), [])
    database.import_match(record("x2", tournament="remote", started_at=4.0), [])
    [tagged] = tables.tagged()
    assert (tagged.id, tagged.game, tagged.matches, tagged.first_started_at) == (
        "remote",
        "tictactoe",
        2,
        4.0,
    )


# --- accounts ----------------------------------------------------------------------


def test_account_table(database: Database) -> None:
    accounts = database.accounts
    assert accounts.password_hash("ann") is None
    assert accounts.add("ann", "h1")
    assert not accounts.add("ann", "h2")  # registered already: unchanged
    assert accounts.add("bob", "h3")
    assert accounts.password_hash("ann") == "h1"
    assert accounts.set_password("ann", "h4") and accounts.password_hash("ann") == "h4"
    assert not accounts.set_password("nobody", "h5")
    assert accounts.names() == ["ann", "bob"]
    assert [name for name, _ in accounts.entries()] == ["ann", "bob"]
    assert accounts.remove("bob") and not accounts.remove("bob")
    assert accounts.names() == ["ann"]


# --- opening -----------------------------------------------------------------------


def test_reopening_keeps_everything(database: Database, target: str) -> None:
    assert database.upgraded_from == 0  # created now
    database.import_match(record("kept"), [MoveRecord("kept", 0, 0, 4, "b2", 0.5, 1.5)])
    again = open_database(target)
    try:
        assert again.upgraded_from == SCHEMA_VERSION  # nothing to migrate
        assert again.get_match("kept") == record("kept")
        assert len(again.get_moves("kept")) == 1
    finally:
        again.close()


def test_a_missing_sqlite_file_is_refused_when_reading(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no records database"):
        open_database(str(tmp_path / "none.sqlite"), create=False)
    assert not (tmp_path / "none.sqlite").exists()


def test_the_director_lock_is_exclusive_and_dropped_with_its_holder(database: Database) -> None:
    tables = database.tournaments
    tables.save("t-lock", "{}", "running")
    assert not tables.is_held("t-lock")
    with tables.hold("t-lock") as mine:
        assert mine and tables.is_held("t-lock")
        with tables.hold("t-lock") as second:
            assert not second  # one director at a time
        assert tables.is_held("t-lock") and not tables.is_held("t-other")
    assert not tables.is_held("t-lock")
    with tables.hold("t-lock") as again:
        assert again


# --- nodes: servers sharing the database ---------------------------------------------


def test_nodes_live_while_their_lease_runs_and_are_reaped_once(database: Database) -> None:
    nodes = database.nodes
    nodes.register("n1", "10.0.0.1:4242", 60.0)
    nodes.register("n2", "10.0.0.2:4242", 60.0)
    assert [n.id for n in nodes.live()] == ["n1", "n2"]
    for name, node in (("a1", "n1"), ("a2", "n1"), ("b1", "n2")):
        database.write([MatchWrite(name, running(name, tags=MatchTags(node=node)))])
    database.import_match(record("done", tags=MatchTags(node="n1")), [])
    assert [(r.record.id, r.plies) for r in nodes.running(exclude="n2")] == [("a1", 0), ("a2", 0)]
    assert nodes.renew("n1", -1.0)  # n1 stops renewing: its lease is over
    assert [n.id for n in nodes.live()] == ["n2"]
    results: list[dict[str, int]] = []
    reapers = [
        threading.Thread(target=lambda: results.append(nodes.reap("node n1 died")))
        for _ in range(4)
    ]
    for reaper in reapers:
        reaper.start()
    for reaper in reapers:
        reaper.join()
    assert sorted(results, key=len) == [{}, {}, {}, {"n1": 2}]  # exactly one reaper ended them
    for name in ("a1", "a2"):
        ended = database.get_match(name)
        assert ended is not None and ended.status == "aborted" and ended.reason == "node n1 died"
    assert database.get_match("b1").status == "running"  # type: ignore[union-attr]
    assert database.get_match("done").status == "finished"  # type: ignore[union-attr]
    assert not nodes.renew("n1", 60.0)  # a reaped node learns it when it renews
    nodes.leave("n2")
    assert nodes.live() == []


def test_ladder_rounds_pair_ready_bots_of_live_nodes_once(database: Database) -> None:
    """A ladder spans the nodes: each round sees the ready bots of live nodes, pairs them
    once (concurrent rounds take turns), and remembers last opponents and first movers."""
    nodes, ladders = database.nodes, database.ladders
    nodes.register("n1", "h:1", 60.0)
    nodes.register("n2", "h:2", 60.0)
    assert ladders.seed("c4", {("a", "b"): 2}, {"a": "b", "b": "a"})
    assert not ladders.seed("c4", {("x", "y"): 1}, {})  # it has a history: left alone
    seen: list[LadderRound] = []

    def take_all(round_: LadderRound) -> list[tuple[str, str]]:
        seen.append(round_)
        ready = sorted(bot.name for bot in round_.bots if bot.waited is not None)
        return [(ready[i], ready[i + 1]) for i in range(0, len(ready) - 1, 2)]

    def look(round_: LadderRound) -> list[tuple[str, str]]:
        seen.append(round_)
        return []

    assert ladders.pair_round("c4", "n1", ["a"], [], take_all) == []  # alone: nothing asked
    pairs = ladders.pair_round("c4", "n2", ["b", "c"], [], take_all)
    assert pairs == [LadderPairing("a", "b", "n1", "n2")]  # c waits for someone
    round_ = seen[-1]
    assert {bot.name: bot.last for bot in round_.bots} == {"a": "b", "b": "a", "c": ""}
    assert round_.firsts == {("a", "b"): 2}
    assert ladders.pair_round("c4", "n1", ["a"], [], take_all) == [
        LadderPairing("a", "c", "n1", "n2")
    ]
    assert seen[-1].firsts == {}  # a and c never met
    assert ladders.pair_round("c4", "n2", ["b"], [], take_all) == []  # b waits alone
    assert ladders.pair_round("c4", "n2", [], ["c"], take_all) == []  # c left
    assert [bot.name for bot in seen[-1].bots] == ["a", "b"]  # c is on no node
    # a node that stops renewing: its bots leave the ready set at once, and its reaping
    # takes them off it
    ladders.pair_round("c4", "n1", ["a"], [], look)  # a is ready on n1
    assert nodes.renew("n1", -1.0)
    assert ladders.pair_round("c4", "n2", ["d"], [], take_all) == [
        LadderPairing("b", "d", "n2", "n2")
    ]
    assert "a" not in {bot.name for bot in seen[-1].bots}
    assert nodes.reap("n1 died") == {"n1": 0}
    nodes.register("n1", "h:1", 60.0)  # the same node id back: a is not its bot any more
    ladders.pair_round("c4", "n2", ["b", "d"], [], look)
    assert {bot.name for bot in seen[-1].bots} == {"b", "d"}
    # many rounds at once: every ready bot is paired by exactly one of them
    bots = [f"r{i}" for i in range(20)]
    found: list[LadderPairing] = []

    def round_of(index: int) -> None:
        found.extend(ladders.pair_round("c4", "n2", bots[index::4], [], take_all))

    threads = [threading.Thread(target=round_of, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    paired = [name for pairing in found for name in (pairing.first, pairing.second)]
    assert len(paired) == len(set(paired)) and set(bots) <= set(paired) | {"b", "d"}
    with pytest.raises(ValueError, match="chose"):  # a pair of bots that are not ready
        ladders.pair_round("c4", "n2", ["e", "f"], [], lambda _: [("e", "a")])


def test_the_progress_of_several_matches_is_read_at_once(database: Database) -> None:
    """What a node mirrors of other nodes' matches: each one's row, and its moves past a ply."""
    moves = {
        name: [
            move_row(MoveRecord(name, ply, ply % 2, ply, f"m{ply}", 0.1, 1.0)) for ply in range(n)
        ]
        for name, n in (("p1", 5), ("p2", 3))
    }
    database.write([MatchWrite(name, running(name), rows) for name, rows in moves.items()])
    database.write([MatchWrite("p2", running("p2"), result=result("p2"))])
    nodes = database.nodes
    assert nodes.progress({}, 10) == []
    found = {p.record.id: p for p in nodes.progress({"p1": 2, "p2": 0, "nope": 0}, 10)}
    assert set(found) == {"p1", "p2"}
    assert [m.ply for m in found["p1"].moves] == [2, 3, 4] and found[
        "p1"
    ].record.status == "running"
    assert [m.notation for m in found["p2"].moves] == ["m0", "m1", "m2"]
    assert found["p2"].record.status == "finished" and found["p2"].record.winner == 0
    cut = {p.record.id: p for p in nodes.progress({"p1": 0, "p2": 3}, 2)}
    assert [m.ply for m in cut["p1"].moves] == [0, 1] and cut["p2"].moves == []


def test_seeks_pair_in_the_database_and_never_twice(database: Database) -> None:
    nodes = database.nodes
    assert nodes.offer_seek("s1", "n1", "ann", "connect4|10") is None  # waits
    assert nodes.offer_seek("s2", "n2", "bob", "tictactoe|10") is None  # other terms: waits
    assert [seek.id for seek in nodes.waiting_seeks()] == ["s1", "s2"]  # oldest first
    taken = nodes.offer_seek("s3", "n2", "cid", "connect4|10")
    assert taken is not None and (taken.id, taken.node, taken.name) == ("s1", "n1", "ann")
    assert not nodes.withdraw_seek("s1")  # taken: its owner learns it cannot withdraw it
    assert nodes.withdraw_seek("s2") and not nodes.withdraw_seek("s2")
    # many offers at once on the same terms: every waiting seek is taken by exactly one
    taken_by: list[str] = []

    def offer(index: int) -> None:
        found = nodes.offer_seek(f"c{index}", f"n{index % 3}", f"p{index}", "gomoku|1")
        if found is not None:
            taken_by.append(found.id)

    threads = [threading.Thread(target=offer, args=(i,)) for i in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(taken_by) == len(set(taken_by)) == 10  # 20 offers: 10 pairs, none twice
    assert nodes.withdraw_node_seeks("n1") == 0
    assert nodes.waiting_seeks() == []


def test_a_waiting_seek_is_taken_once_by_its_node_or_by_an_offer(database: Database) -> None:
    """A seeker on the seek's own node takes it by withdrawing it while another node's offer
    may take it too: exactly one of them gets it, every time."""
    nodes = database.nodes
    for round_ in range(10):
        assert nodes.offer_seek(f"w{round_}", "n1", "ann", "reversi|1") is None
        outcomes: list[str] = []

        def withdraw(seek: str, outcomes: list[str] = outcomes) -> None:
            if nodes.withdraw_seek(seek):
                outcomes.append("here")

        def offer(seek: str, outcomes: list[str] = outcomes) -> None:
            taken = nodes.offer_seek(seek, "n2", "bob", "reversi|1")
            outcomes.append("there" if taken is not None else "waits")

        threads = [
            threading.Thread(target=withdraw, args=(f"w{round_}",)),
            threading.Thread(target=offer, args=(f"o{round_}",)),
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert sorted(outcomes) in (["here", "waits"], ["there"])
        waiting = [seek.id for seek in nodes.waiting_seeks()]
        assert waiting == ([f"o{round_}"] if "here" in outcomes else [])
        nodes.withdraw_node_seeks("n2")


def test_pool_seekers_are_taken_all_or_none_and_never_twice(database: Database) -> None:
    """A pool's director takes the seekers of a match in one transaction: every seat's or
    none, the right secret only, of live nodes only, its own node's first; concurrent
    takes share nothing."""
    seeks = database.pools
    c4 = '["connect4",{}]'
    for node in ("n0", "n1", "n2"):
        database.nodes.register(node, f"{node}:1", 60.0)

    def seeker(seek: str, node: str, name: str, pool: str = "cup", terms: str = c4) -> PoolSeeker:
        return PoolSeeker(seek, pool, node, name, f"digest-{name}", terms)

    for row in (
        seeker("a1", "n1", "ann"),
        seeker("b1", "n2", "bob"),
        seeker("a2", "n2", "ann"),
        seeker("x1", "n1", "ann", pool="other"),
        seeker("t1", "n1", "bob", terms='["tictactoe",{}]'),
    ):
        seeks.add(row)
    assert seeks.add(seeker("a1", "n1", "ann")) == ""  # published again: nothing changes
    seeks.claim("cup", "owner", "n2", 60.0)  # a director on n2: a new seeker's node tells it
    assert seeks.add(seeker("a3", "n1", "ann", pool="other")) == ""
    assert seeks.add(seeker("a4", "n1", "ann")) == "n2"
    assert seeks.withdraw("a3") and seeks.withdraw("a4")
    assert [s.id for s in seeks.waiting(["cup"])] == ["a1", "b1", "a2", "t1"]  # oldest first
    assert [s.id for s in seeks.waiting(["cup", "other"])] == ["a1", "b1", "a2", "x1", "t1"]
    assert seeks.waiting([]) == []
    # a seat without a seeker (wrong secret, nobody, other terms): nothing is taken
    assert seeks.take("cup", [("ann", "digest-ann"), ("bob", "wrong")], c4) is None
    assert seeks.take("cup", [("ann", "digest-ann"), ("cid", "digest-cid")], c4) is None
    assert seeks.take("cup", [("bob", "digest-bob"), ("bob", "digest-bob")], c4) is None
    assert len(seeks.waiting(["cup"])) == 4
    # the seekers of a node whose lease has lapsed (not reaped yet), or of no node, wait on
    database.nodes.register("dead", "dead:1", -1.0)
    seeks.add(seeker("d1", "dead", "cid"))
    seeks.add(seeker("g1", "ghost", "cid"))
    assert seeks.take("cup", [("ann", "digest-ann"), ("cid", "digest-cid")], c4) is None
    assert seeks.withdraw("d1") and seeks.withdraw("g1")
    assert len(seeks.waiting(["cup"])) == 4
    # the director's own node first (n2: ann's second seek), each seek for one seat
    taken = seeks.take("cup", [("ann", "digest-ann"), ("bob", "digest-bob")], c4, prefer="n2")
    assert taken is not None and [(s.id, s.node) for s in taken] == [("a2", "n2"), ("b1", "n2")]
    assert not seeks.withdraw("a2")  # taken: its node learns it cannot withdraw it
    assert seeks.withdraw("t1") and not seeks.withdraw("t1")
    # a node's death (or its clean stop) takes its pool seekers with it
    assert database.nodes.withdraw_node_seeks("n1") == 2  # a1 and x1
    assert seeks.waiting(["cup", "other"]) == []
    # many directors at once: each seeker is taken by exactly one of them
    for index in range(20):
        seeks.add(seeker(f"s{index}", f"n{index % 3}", "ann" if index % 2 else "bob"))
    takes: list[list[str]] = []
    failed: list[int] = []

    def take(index: int) -> None:
        got = seeks.take("cup", [("ann", "digest-ann"), ("bob", "digest-bob")], c4, f"n{index % 3}")
        if got is None:
            failed.append(index)
        else:
            takes.append([s.id for s in got])

    threads = [threading.Thread(target=take, args=(i,)) for i in range(14)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    taken_ids = [seek for pair in takes for seek in pair]
    assert len(taken_ids) == len(set(taken_ids)) == 20  # 10 matches, no seeker twice
    assert len(failed) == 4 and seeks.waiting(["cup"]) == []


def test_a_pool_has_one_owner_in_the_arena(database: Database) -> None:
    """Directors claim pools from any node: the first owner keeps it while it is directed
    or has seekers; its name is free again once idle for the grace."""
    pools = database.pools
    assert pools.claim("cup", "key-1", "n1", 60.0) == PoolClaim("key-1", "")  # new: claimed
    assert pools.claim("cup", "key-2", "n2", 60.0) == PoolClaim("key-1", "n1")  # refused
    assert pools.claim("cup", "key-1", "n2", 60.0) == PoolClaim("key-1", "n1")  # taken over
    pools.release("cup", "n1")  # n1's director left long ago: n2 directs it still
    assert pools.claim("cup", "key-2", "n3", 0.0) == PoolClaim("key-1", "n2")
    pools.release("cup", "n2")  # no director now, but a seeker waits: still key-1's
    pools.add(PoolSeeker("s1", "cup", "n3", "ann", "digest", "[]"))
    assert pools.claim("cup", "key-2", "n3", 0.0) == PoolClaim("key-1", "")
    assert pools.withdraw("s1")
    assert pools.claim("cup", "key-2", "n3", 60.0) == PoolClaim("key-1", "")  # not idle long
    assert pools.claim("cup", "key-2", "n3", 0.0) == PoolClaim("key-2", "")  # free: claimed
    # a node that stops (or dies) leaves its pools without director, and their owners
    assert database.nodes.withdraw_node_seeks("n3") == 0
    assert pools.claim("cup", "key-1", "n1", 60.0) == PoolClaim("key-2", "")
    # many directors at once, from many nodes: one owner
    claims: list[PoolClaim] = []

    def claim(index: int) -> None:
        claims.append(pools.claim("new", f"key-{index}", f"n{index}", 60.0))

    threads = [threading.Thread(target=claim, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len({c.owner for c in claims}) == 1
    assert sum(c.previous == "" for c in claims) == 1  # the winner found no director
