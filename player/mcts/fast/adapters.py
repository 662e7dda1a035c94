"""Which built-in games have a compiled kernel, and how their states and moves convert.

Why here and not in `games/`: the kernels need numba and NumPy, and `games/`
must stay importable without them; the conversions are a few lines per game,
so they sit beside the kernels. A game (or game option set) without an
adapter is searched by the generic Python engine.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from games.base import Game
from games.connect4 import Connect4
from games.mnk import MNKGame
from games.reversi import Reversi
from games.ultimate import UltimateTicTacToe
from player.mcts.fast import bigmnk, connect4, kernels, mnk, reversi, ultimate
from player.mcts.fast.codes import Rollout


@dataclass(frozen=True, slots=True)
class Adapter:
    """A game's kernel id, its config array, the state/move conversions and its smart rollout.

    `smart` is the `Rollout` policy the agent's ``rollout=smart`` asks this
    kernel for: the best one it implements.
    """

    gid: int
    cfg: np.ndarray
    state_size: int
    encode_state: Callable[[Any], tuple[int, ...]]
    encode_move: Callable[[Any], int]
    decode_move: Callable[[int], Any]
    smart: Rollout
    #: threat knowledge (m,n,k with k >= 5): `bigmnk.tune`, `bigmnk.analyse`, `bigmnk.threat_win`
    tune: Callable[[np.ndarray, int, int, int], np.ndarray] | None = None
    analyse: Callable[[np.ndarray, np.ndarray, int, np.ndarray], int] | None = None
    threat_win: Callable[[np.ndarray, np.ndarray, bool, np.ndarray], int] | None = None


def _identity(value: Any) -> Any:
    return value


def _tuple(state: Any) -> tuple[int, ...]:
    return tuple(state)


def adapter_for(game: Game[Any, Any]) -> Adapter | None:
    """The kernel adapter of `game`, or None if only the Python engine can search it."""
    if type(game) is Connect4 and connect4.supports(game.width, game.height, game.k):
        cfg = connect4.make_cfg(game.width, game.height)
        return Adapter(
            kernels.CONNECT4, cfg, connect4.STATE_SIZE, _tuple, _identity, _identity,
            Rollout.WIN_BLOCK,
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
            tune=bigmnk.tune if threats else None,
            analyse=bigmnk.analyse if threats else None,
            threat_win=bigmnk.threat_win if threats else None,
        )  # fmt: skip
    if type(game) is Reversi and game.size == 8:
        return Adapter(
            kernels.REVERSI, reversi.make_cfg(), reversi.STATE_SIZE, reversi.encode, _identity,
            _identity, Rollout.RANDOM,
        )  # fmt: skip
    if type(game) is UltimateTicTacToe:
        return Adapter(
            kernels.ULTIMATE, ultimate.make_cfg(), ultimate.STATE_SIZE, ultimate.encode,
            _identity, _identity, Rollout.WIN,
        )  # fmt: skip
    return None
