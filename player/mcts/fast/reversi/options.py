"""Reversi's options (the compiled engine's knowledge of it): evaluated leaves, solves and backups.

`ReversiOptions` is the knowledge the search of a reversi game takes
(`FastSearch`'s ``knowledge``); the agent's spec lists its fields after the
generic options (`player.mcts.options`), and other games ignore them.
"""

from __future__ import annotations

from dataclasses import dataclass

from player.mcts.option import FAST, MCTSOption, Options, option, table

#: what a leaf is: the evaluation (`reversi_depth`'s alpha-beta on it) or a random rollout
LEAVES = ("eval", "rollout")


@dataclass(frozen=True, slots=True)
class ReversiOptions(Options):
    """Reversi's leaves, solves and backups (read by `reversi.plan.plan_for`)."""

    reversi_leaf: str = option(
        str,
        "eval",
        "reversi: eval (alpha-beta on a hand evaluation at the leaves) or rollout (random)",
        choices=LEAVES,
        engines=FAST,
    )
    reversi_depth: int = option(
        int,
        0,
        "reversi: depth of the alpha-beta at evaluated leaves (0: the static evaluation)",
        low=0,
        high=8,
        engines=FAST,
    )
    reversi_solve: int = option(
        int,
        10,
        "reversi: solve leaves exactly from this many empty squares (0 = never)",
        low=0,
        high=24,
        engines=FAST,
    )
    reversi_endgame: int = option(
        int,
        20,
        "reversi: solve the root's moves exactly from this many empty squares,"
        " within half the time left (0 = never)",
        low=0,
        high=40,
        engines=FAST,
    )
    reversi_c: float = option(
        float, 0.5, "reversi: UCB1 constant with evaluated leaves", low=0, engines=FAST
    )
    reversi_minimax: float = option(
        float, 0.0,
        "reversi: implicit minimax backups with evaluated leaves, as connect4_minimax (0 = off)",
        low=0, high=1, engines=FAST,
    )  # fmt: skip


OPTIONS: tuple[MCTSOption, ...] = table(ReversiOptions)
