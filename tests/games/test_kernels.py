"""The compiled kernels (player/mcts/fast) play the same rules as the Python games.

Perft-style counts through the kernels' own move generation equal the
published counts the Python games are held to (tests/games/test_connect4.py,
test_tictactoe.py, test_reversi.py's Othello perft, test_ultimate.py), and
random games driven move by move through both reach identical states, legal
move sets and outcomes.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

pytest.importorskip("numba")

import numpy as np

from games import make_game
from games.connect4 import Connect4
from player.mcts.fast import kernels
from player.mcts.fast.adapters import Adapter, adapter_for
from player.mcts.fast.core.codes import DRAW, ONGOING, Rollout
from player.mcts.fast.core.rng import new_rng
from tests.benchmarks.minimax import even_positions, value

GAMES = ["connect4", "tictactoe", "reversi", "ultimate", "gomoku"]
#: random games per test (gomoku's 225 cells make each Python game slow)
GAME_COUNT = {"gomoku": 20}


def adapter(game: Any) -> Adapter:
    found = adapter_for(game)
    assert found is not None
    return found


def kernel_counts(name: str, depth: int) -> list[tuple[int, int]]:
    """(distinct positions, move sequences) per ply, through the kernel only."""
    game = make_game(name)
    a = adapter(game)
    moves = np.empty(128, dtype=np.int64)
    level: Counter[tuple[int, ...]] = Counter({a.encode_state(game.initial_state()): 1})
    result = []
    for _ in range(depth):
        following: Counter[tuple[int, ...]] = Counter()
        for state, paths in level.items():
            row = np.array(state, dtype=np.int64)
            for i in range(kernels.legal(a.gid, a.cfg, row, moves)):
                child = np.empty(a.state_size, dtype=np.int64)
                kernels.play(a.gid, a.cfg, row, int(moves[i]), child)
                following[tuple(int(x) for x in child)] += paths
        level = following
        result.append((len(level), sum(level.values())))
    return result


def test_connect4_kernel_positions_and_perft() -> None:
    counts = kernel_counts("connect4", 7)
    # OEIS A212693 and perft(d) = 7**d (d <= 6), 7**7 - 7 (see test_connect4.py)
    assert [p for p, _ in counts] == [7, 49, 238, 1120, 4263, 16422, 54859]
    assert [s for _, s in counts] == [7**d for d in range(1, 7)] + [7**7 - 7]


def test_tictactoe_kernel_perft() -> None:
    # games still going at each ply: the counts of test_tictactoe.test_perft_by_depth
    counts = kernel_counts("tictactoe", 9)
    assert [s for _, s in counts] == [9, 72, 504, 3024, 15120, 54720, 148176, 200448, 127872]


def test_reversi_kernel_perft() -> None:
    # Aart Bik's Othello perft (as in test_reversi.PERFT): sequences per depth, passes counted
    from tests.games.test_reversi import PERFT

    counts = kernel_counts("reversi", 7)
    assert [s for _, s in counts] == [PERFT[d] for d in range(1, 8)]


def test_ultimate_kernel_counts_match_the_python_game() -> None:
    from games.ultimate import UltimateTicTacToe
    from tests.games.test_ultimate import perft_counts

    game = UltimateTicTacToe()
    assert [s for _, s in kernel_counts("ultimate", 3)] == perft_counts(game, 3)


@pytest.mark.parametrize("name", GAMES)
def test_random_games_reach_identical_states_and_outcomes(name: str) -> None:
    game = make_game(name)
    a = adapter(game)
    rng = random.Random(7)
    moves = np.empty(512, dtype=np.int64)
    for _ in range(GAME_COUNT.get(name, 200)):
        state = game.initial_state()
        row = np.array(a.encode_state(state), dtype=np.int64)
        while True:
            n = kernels.legal(a.gid, a.cfg, row, moves)
            kernel_moves = sorted(a.decode_move(int(m)) for m in moves[:n])
            assert kernel_moves == sorted(game.legal_moves(state))
            outcome = game.outcome(state)
            status = kernels.status(a.gid, a.cfg, row)
            if outcome is None:
                assert status == ONGOING
                assert kernels.to_move(a.gid, a.cfg, row) == game.to_move(state)
            else:
                assert status == (DRAW if outcome.winner is None else outcome.winner)
                break
            move = rng.choice(game.legal_moves(state))
            child = np.empty_like(row)
            kernels.play(a.gid, a.cfg, row, a.encode_move(move), child)
            state, row = game.apply(state, move), child
            assert tuple(int(x) for x in row) == a.encode_state(state)


@pytest.mark.parametrize("name", GAMES)
def test_random_rollouts_match_the_python_playout_statistics(name: str) -> None:
    """RANDOM is uniform random: its first-player win rate matches `Game.playout`'s."""
    game = make_game(name)
    a = adapter(game)
    row = np.array(a.encode_state(game.initial_state()), dtype=np.int64)
    krng = new_rng(3)
    n, tolerance = (2_000, 0.05) if name == "gomoku" else (20_000, 0.025)
    kernel = Counter(
        kernels.rollout(a.gid, a.cfg, row, krng, Rollout.RANDOM.value) for _ in range(n)
    )
    rng = random.Random(3)
    python: Counter[int | None] = Counter(
        game.outcome(game.playout(game.initial_state(), rng)).winner  # type: ignore[union-attr]
        for _ in range(n)
    )
    for seat in (0, 1):
        assert abs(kernel[seat] / n - python[seat] / n) < tolerance


@pytest.mark.parametrize("name", GAMES)
def test_rollouts_end_by_the_rules(name: str) -> None:
    """Every policy returns a legal result from positions along random games."""
    game = make_game(name)
    a = adapter(game)
    rng = random.Random(11)
    krng = new_rng(11)
    for _ in range(50):
        state = game.initial_state()
        while game.outcome(state) is None:
            row = np.array(a.encode_state(state), dtype=np.int64)
            for policy in Rollout:
                assert kernels.rollout(a.gid, a.cfg, row, krng, policy.value) in (0, 1, DRAW)
            state = game.apply(state, rng.choice(game.legal_moves(state)))
        row = np.array(a.encode_state(state), dtype=np.int64)
        outcome = game.outcome(state)
        assert outcome is not None
        expected = DRAW if outcome.winner is None else outcome.winner
        assert kernels.rollout(a.gid, a.cfg, row, krng, a.smart.value) == expected


def test_gomoku_smart_rollouts_take_a_win_and_block_one() -> None:
    game = make_game("gomoku")
    a = adapter(game)
    krng = new_rng(5)

    def after(moves: list[str]) -> np.ndarray:
        state = game.initial_state()
        for text in moves:
            state = game.apply(state, game.parse_move(text))
        return np.array(a.encode_state(state), dtype=np.int64)

    # X (to move) has four in a row, open at both ends: the win-or-block policy and
    # gomoku's smart one (threat playouts, player/mcts/fast/threats.py) always win
    four = after(["a1", "o15", "b1", "o14", "c1", "o13", "d1", "n15"])
    smart = Rollout.WIN_BLOCK.value
    assert a.smart == Rollout.THREAT
    for policy in (Rollout.WIN_BLOCK, Rollout.THREAT):
        wins = {kernels.rollout(a.gid, a.cfg, four, krng, policy.value) for _ in range(200)}
        assert wins == {0}, policy
    # O (to move) faces X's four with one open end (e1): unblocked, the smart X would
    # take it next move every time; O blocks, so X wins only some of the games
    blocked = after(["a1", "h8", "b1", "h9", "c1", "h10", "d1"])
    results = Counter(kernels.rollout(a.gid, a.cfg, blocked, krng, smart) for _ in range(500))
    assert results[0] < 400 and results[1] > 50


#: the policy each kernel's adapter plays for ``rollout=smart`` (see `Rollout`)
SMART = {
    "connect4": Rollout.WIN_BLOCK,
    "tictactoe": Rollout.WIN_BLOCK,
    "gomoku": Rollout.THREAT,  # threat playouts (k >= 5), which also take a win first
    "ultimate": Rollout.WIN,
    "reversi": Rollout.RANDOM,
}


@pytest.mark.parametrize("name", ["connect4", "tictactoe", "ultimate", "gomoku"])
def test_a_policy_that_takes_wins_takes_one_in_every_kernel(name: str) -> None:
    """WIN_BLOCK and WIN mean one thing everywhere: a mover who can win at once does.

    Positions along random games where the side to move has a move that ends the
    game in its favour: every rollout of the kernel's smart policy from there is a
    win for that side (a uniformly random rollout is not, in most of them).
    """
    game = make_game(name)
    a = adapter(game)
    assert a.smart == SMART[name]
    rng = random.Random(13)
    krng = new_rng(13)
    found = 0
    for _ in range(WIN_GAMES.get(name, 60)):
        state = game.initial_state()
        while game.outcome(state) is None:
            moves = game.legal_moves(state)
            if any(_wins_at_once(game, state, move) for move in moves):
                mover = game.to_move(state)
                row = np.array(a.encode_state(state), dtype=np.int64)
                policy = a.smart.value
                results = {kernels.rollout(a.gid, a.cfg, row, krng, policy) for _ in range(20)}
                assert results == {mover}
                found += 1
            state = game.apply(state, rng.choice(moves))
    assert found >= 10


#: random games searched for immediate wins (gomoku's are long)
WIN_GAMES = {"gomoku": 4}


def _wins_at_once(game: Any, state: Any, move: Any) -> bool:
    outcome = game.outcome(game.apply(state, move))
    return outcome is not None and outcome.winner == game.to_move(state)


def test_reversi_plays_random_rollouts_for_every_policy() -> None:
    """Reversi implements only RANDOM: any policy gives the same stream of results."""
    game = make_game("reversi")
    a = adapter(game)
    assert a.smart == Rollout.RANDOM
    row = np.array(a.encode_state(game.initial_state()), dtype=np.int64)
    streams = []
    for policy in Rollout:
        krng = new_rng(21)
        streams.append([kernels.rollout(a.gid, a.cfg, row, krng, policy.value) for _ in range(50)])
    assert all(stream == streams[0] for stream in streams)


def _four(cells: set[tuple[int, int]]) -> bool:
    """Whether the (column, row) cells hold four in a row (plainly, no bitboards)."""
    steps = ((1, 0), (0, 1), (1, 1), (1, -1))
    return any(
        all((c + i * dc, r + i * dr) in cells for i in range(4))
        for c, r in cells
        for dc, dr in steps
    )


def test_connect4_rollouts_end_where_claimeven_decides() -> None:
    """Every column's empties even: if the side to move cannot make four with its discs
    and the empty cells of its row parity (what the other side's follow-up leaves it),
    it never wins; every smart rollout ends there at once, the other side's win when its
    own cells hold a four (the exact value, as plain minimax says), else a draw (the
    least the other side gets: it may do better by other means)."""
    game = Connect4()
    a = adapter(game)
    krng = new_rng(5)
    seen: set[str] = set()
    for state in even_positions(seed=3, count=40, ply=34):
        mover = game.to_move(state)
        own: list[set[tuple[int, int]]] = [set(), set()]
        for c in range(7):
            for r in range(6):
                bit = 1 << (c * 7 + r)
                for seat in (0, 1):
                    if state[seat] & bit:
                        own[seat].add((c, r))
                if not (state[0] | state[1]) & bit:
                    own[mover if r % 2 == 0 else 1 - mover].add((c, r))
        if _four(own[mover]):
            continue  # the rule does not decide
        row = np.array(a.encode_state(state), dtype=np.int64)
        results = {
            kernels.rollout(a.gid, a.cfg, row, krng, Rollout.WIN_BLOCK.value) for _ in range(20)
        }
        if _four(own[1 - mover]):
            assert results == {1 - mover} and value(game, state) == -1, state
            seen.add("loss")
        else:
            assert results == {DRAW} and value(game, state) <= 0, state
            seen.add("draw")
    assert seen == {"loss", "draw"}
