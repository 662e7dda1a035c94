"""The threat knowledge of k-in-a-row games with k >= 5 (gomoku): root searches, candidates, playouts.

`GomokuOptions` is the knowledge the search of such a game takes
(`FastSearch`'s ``knowledge``): the `big` kernel with k >= 5 reads it;
smaller k and other games ignore it (docs/AGENTS.md, *Gomoku*).
"""

from __future__ import annotations

from dataclasses import dataclass

from player.mcts.option import FAST, MCTSOption, Options, option, table


@dataclass(frozen=True, slots=True)
class GomokuOptions(Options):
    """Gomoku's threat knowledge (read by `adapters`' gomoku factories)."""

    threats: bool = option(
        bool,
        False,
        "k-in-a-row games, k >= 5: a root threat search before the tree (win, block, our"
        " VCF; moves that leave the opponent a VCF are proven losses), within 20% of the"
        " time left",
        engines=FAST,
    )
    candidates: int = option(
        int,
        12,
        "k-in-a-row games, k >= 5: expand the threat-relevant moves, best first, and at"
        " most this many quiet ones (0 = every legal move)",
        low=0,
        engines=FAST,
    )
    cutoff: int = option(
        int,
        4,
        "k-in-a-row games, k >= 5: plies of threat playout before the static evaluation"
        " decides (0 = play to the end)",
        low=0,
        engines=FAST,
    )
    vcf: int = option(
        int,
        32,
        "k-in-a-row games, k >= 5: positions of the VCF search at each node expanded"
        " (a found VCF is its only move; 0 = off)",
        low=0,
        engines=FAST,
    )
    vct: int = option(
        int, 20_000,
        "k-in-a-row games, k >= 5: positions of each root VCT search (victory by continuous"
        " threats; ours: played at once; the opponent's: the moves that allow it are proven"
        " losses), ours within 35% of the time left, the opponent's within 25% of the rest;"
        " 0 = off",
        low=0, engines=FAST,
    )  # fmt: skip


OPTIONS: tuple[MCTSOption, ...] = table(GomokuOptions)
