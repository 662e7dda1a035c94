"""The root threat search (player/mcts/fast/rootthreats.py) as the ``mcts`` agent uses it.

The agent must block, defend an open three, and win a forced line that plain
UCT (the knowledge switched off) misses at the same budget; where the
knowledge does not apply (k < 5) nothing changes.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

pytest.importorskip("numba")

from games import make_game
from games.gomoku import Gomoku
from player.agent import SearchLimit
from player.mcts import MCTSAgent
from player.mcts.fast.adapters import adapter_for
from player.mcts.fast.core.engine import FastSearch
from player.mcts.fast.mnk import big as bigmnk
from player.mcts.fast.mnk.options import GomokuOptions
from player.mcts.fast.mnk.rootthreats import MAX_RATE, MIN_RATE, SHARE
from player.mcts.options import Knowledge
from player.spec import make_agent
from tests.player.mcts.fast.test_threats import VCF_POSITION, position

GAME = Gomoku()
PLAIN = "threats=false,candidates=0,vcf=0,vct=0,rollout=random"


#: gomoku's knowledge with the root threat search on
THREATS = GomokuOptions(threats=True)


def agent(spec: str, seat: int) -> MCTSAgent:
    made = make_agent(spec)
    assert isinstance(made, MCTSAgent)
    made.start(GAME, seat)
    return made


def choose(spec: str, *moves: str) -> tuple[str, MCTSAgent]:
    state = position(*moves)
    player = agent(spec, GAME.to_move(state))
    player.sync(state, [GAME.parse_move(m) for m in moves])
    move = player.choose(state, player.default_limit or SearchLimit(iterations=100))
    return GAME.format_move(move), player


def test_blocks_a_four_and_defends_an_open_three() -> None:
    # X's four f8..i8, closed at e8 by O: O must take j8
    move, _ = choose(
        "mcts:iterations=200,seed=1,threats=true", "f8", "e8", "g8", "f10", "h8", "g10", "i8"
    )
    assert move == "j8"
    move, player = choose("mcts:iterations=300,seed=1,threats=true", "f8", "f10", "g8", "g10", "h8")
    assert move in ("e8", "i8")
    report = player.last_report
    assert report is not None
    lost = {GAME.format_move(s.move) for s in report.stats if s.proven == 0.0}
    assert lost and not lost & {"e8", "i8"}  # the moves that leave X its VCF are pruned


def test_wins_a_forced_line_that_plain_uct_misses() -> None:
    move, player = choose("mcts:iterations=50,seed=1,threats=true", *VCF_POSITION)
    assert player.last_report is not None and player.last_report.root_proven == 1.0
    plain, other = choose(f"mcts:iterations=2000,seed=1,{PLAIN}", *VCF_POSITION)
    assert other.last_report is not None and other.last_report.root_proven is None
    assert plain != move


def test_the_root_search_keeps_to_its_share_of_the_move_time() -> None:
    search = FastSearch(GAME, adapter_for(GAME), knowledge=THREATS, seed=1)  # type: ignore[arg-type]
    threats = search.root_threats
    assert threats is not None
    assert abs(threats.budget(10.0, 10.1) - SHARE * 0.1 * threats.rate) < 2
    # a crowded middle game: both sides have fours to try; the rate is then measured
    state = position(*VCF_POSITION[:-1])
    begin = time.perf_counter()
    search.search(state, SearchLimit(time=0.05))
    assert time.perf_counter() - begin < 0.05 + 0.15  # generous: the machine may be loaded
    assert MIN_RATE <= threats.rate <= MAX_RATE


def test_smaller_k_and_small_boards_keep_plain_uct() -> None:
    for game in (make_game("tictactoe"), make_game("gomoku", {"width": 9, "height": 9, "k": 4})):
        adapter = adapter_for(game)
        assert adapter is not None and adapter.analyse is None
        # the agent's knowledge of gomoku asks for threats; these games take none of it
        own = Knowledge(THREATS).of(adapter.knowledge)
        assert own is None
        search: Any = FastSearch(game, adapter, knowledge=own, seed=1)
        assert search.root_threats is None and (search.cfg == adapter.cfg).all()
    cfg = bigmnk.make_cfg(9, 9, 4)
    assert (bigmnk.tune(cfg, 12, 4, 32) == cfg).all()
