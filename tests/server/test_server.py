"""The server over real TCP sockets: matches, arbitration, records."""

from __future__ import annotations

from pathlib import Path

from protocol.messages import MatchEnd, MatchStart, Seeking, Turn, Update
from server.config import MatchPolicy
from server.store import Store
from tests.server.harness import RawClient, running_server


async def test_two_clients_play_tictactoe_to_the_end(tmp_path: Path) -> None:
    db = str(tmp_path / "arena.sqlite")
    async with running_server(db=db, policy=MatchPolicy(move_time=5)) as server:
        assert server.port is not None
        clients = [await RawClient.connect(server.port) for _ in range(2)]
        for i, client in enumerate(clients):
            await client.hello(f"p{i}")
            await client.send({"type": "seek", "game": "tictactoe"})
            assert isinstance(await client.expect(Seeking), Seeking)
        starts = [await c.expect(MatchStart) for c in clients]
        by_seat = {s.seat: c for s, c in zip(starts, clients, strict=True)}
        match_id = starts[0].match
        # X plays the top row: a3 b3 c3 -> cells 0, 1, 2; O plays 3, 4
        script = [0, 3, 1, 4, 2]
        for ply, cell in enumerate(script):
            mover = by_seat[ply % 2]
            turn = await mover.expect(Turn, skip=(Update,))
            assert turn.ply == ply and cell in turn.legal_moves
            await mover.send({"type": "move", "match": match_id, "ply": ply, "move": cell})
        ends = [await c.expect(MatchEnd, skip=(Update,)) for c in clients]
        assert ends[0].winner == 0 and ends[0].scores == [1.0, 0.0]
        assert ends[0].termination == "line"
    store = Store(db)
    record = store.get_match(match_id)
    assert record is not None and record.status == "finished" and record.winner == 0
    assert [m.move for m in store.get_moves(match_id)] == script
