"""Which built-in games have a compiled kernel, and how their states and moves convert.

Why here and not in `games/`: the kernels need numba and NumPy, and `games/`
must stay importable without them; the conversions are a few lines per game,
so they sit beside the kernels. A game (or game option set) without an
adapter is searched by the generic Python engine.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from games.base import Game
from games.connect4 import Connect4
from games.go import Go
from games.mnk import MNKGame
from games.reversi import Reversi
from games.ultimate import UltimateTicTacToe
from player.mcts.fast import kernels
from player.mcts.fast.connect4 import kernel as connect4
from player.mcts.fast.connect4 import plan as connect4_plan
from player.mcts.fast.connect4.options import Connect4Options
from player.mcts.fast.core.adapter import Adapter
from player.mcts.fast.core.codes import Rollout
from player.mcts.fast.go import config as go_config
from player.mcts.fast.go import kernel as go
from player.mcts.fast.go.options import GoOptions
from player.mcts.fast.mnk import big as bigmnk
from player.mcts.fast.mnk import kernel as mnk
from player.mcts.fast.mnk.options import GomokuOptions
from player.mcts.fast.mnk.rootthreats import RootThreats
from player.mcts.fast.mnk.rootvct import RootVCT
from player.mcts.fast.reversi import kernel as reversi
from player.mcts.fast.reversi import plan as reversi_plan
from player.mcts.fast.reversi.options import ReversiOptions
from player.mcts.fast.ultimate import kernel as ultimate

__all__ = ["GO_C", "GO_RAVE", "Adapter", "adapter_for"]

#: Go's default RAVE equivalence parameter (option ``rave=none``): at 0.5 s a move on 9×9,
#: rave=1000 won 23 of 23 games against rave=0 (docs/notes/2026-11-28-rave.md)
GO_RAVE = 1000.0
#: Go's default UCB1 constant (option ``c=none``): with RAVE and the prior, the tree needs
#: little exploration of its own (docs/STRENGTH.md, "Go")
GO_C = 0.1


def _identity(value: Any) -> Any:
    return value


def _tuple(state: Any) -> tuple[int, ...]:
    return tuple(state)


def _reversi_plan(
    adapter: Adapter, options: ReversiOptions, policy: int
) -> reversi_plan.ReversiPlan | None:
    return reversi_plan.plan_for(adapter, options)


def _gomoku_cfg(cfg: np.ndarray, options: GomokuOptions) -> np.ndarray:
    return bigmnk.tune(cfg, options.candidates, options.cutoff, options.vcf)


def _go_cfg(cfg: np.ndarray, options: GoOptions) -> np.ndarray:
    tuned = cfg.copy()
    tuned[go_config.PRIOR] = round(100 * options.go_prior)
    tuned[go_config.LADDERS] = int(options.go_ladders)
    return tuned


def _gomoku_threats(adapter: Adapter, options: GomokuOptions) -> RootThreats | None:
    return RootThreats(adapter) if options.threats else None


def _gomoku_vct(adapter: Adapter, options: GomokuOptions) -> RootVCT | None:
    return RootVCT(adapter, options.vct) if options.vct > 0 else None


def adapter_for(game: Game[Any, Any]) -> Adapter | None:
    """The kernel adapter of `game`, or None if only the Python engine can search it."""
    if type(game) is Connect4 and connect4.supports(game.width, game.height, game.k):
        cfg = connect4.make_cfg(game.width, game.height)
        return Adapter(
            kernels.CONNECT4, cfg, connect4.STATE_SIZE, _tuple, _identity, _identity,
            Rollout.WIN_BLOCK, knowledge=Connect4Options, plan=connect4_plan.plan_for,
        )  # fmt: skip
    if (
        isinstance(game, MNKGame)
        and type(game).__module__.startswith("games.")
        and mnk.supports(game.width, game.height)
    ):
        cfg = mnk.make_cfg(game.width, game.height, game.k, game.windows)
        return Adapter(
            kernels.MNK, cfg, mnk.STATE_SIZE, _tuple, _identity, _identity, Rollout.WIN_BLOCK
        )
    if (
        isinstance(game, MNKGame)
        and type(game).__module__.startswith("games.")
        and bigmnk.supports(game.width, game.height)
    ):
        cfg = bigmnk.make_cfg(game.width, game.height, game.k)
        threats = game.k >= 5
        return Adapter(
            kernels.BIGMNK, cfg, bigmnk.STATE_SIZE, bigmnk.encode, _identity, _identity,
            Rollout.THREAT if threats else Rollout.WIN_BLOCK,
            knowledge=GomokuOptions if threats else None,
            analyse=bigmnk.analyse if threats else None,
            threat_win=bigmnk.threat_win if threats else None,
            configure=_gomoku_cfg if threats else None,
            root_threats=_gomoku_threats if threats else None,
            root_vct=_gomoku_vct if threats else None,
        )  # fmt: skip
    if type(game) is Reversi and game.size == 8:
        return Adapter(
            kernels.REVERSI, reversi.make_cfg(), reversi.STATE_SIZE, reversi.encode, _identity,
            _identity, Rollout.RANDOM, knowledge=ReversiOptions, plan=_reversi_plan,
        )  # fmt: skip
    if type(game) is Go and go_config.supports(game.size, game.move_cap):
        return Adapter(
            kernels.GO, go_config.make_cfg(game.size, game.komi, game.move_cap),
            go_config.state_size(game.size), functools.partial(go.encode, game), _identity,
            _identity, Rollout.HEAVY, rules_bound=True, rave=GO_RAVE, c=GO_C,
            knowledge=GoOptions, configure=_go_cfg,
        )  # fmt: skip
    if type(game) is UltimateTicTacToe:
        return Adapter(
            kernels.ULTIMATE, ultimate.make_cfg(), ultimate.STATE_SIZE, ultimate.encode,
            _identity, _identity, Rollout.WIN,
        )  # fmt: skip
    return None
