"""The threat knowledge of k-in-a-row games with k >= 5 (gomoku): root searches, candidates, playouts.

The compiled engine reads them on the `big` kernel with k >= 5; smaller k and
other games ignore them (docs/AGENTS.md, *Gomoku*).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from player.mcts.option import FAST, MCTSOption, defaults

OPTIONS: tuple[MCTSOption, ...] = (
    MCTSOption(
        "threats", bool, False,
        "k-in-a-row games, k >= 5: a root threat search before the tree (win, block, our"
        " VCF; moves that leave the opponent a VCF are proven losses), within 20% of the"
        " time left",
        engines=FAST,
    ),
    MCTSOption(
        "candidates", int, 12,
        "k-in-a-row games, k >= 5: expand the threat-relevant moves, best first, and at"
        " most this many quiet ones (0 = every legal move)",
        low=0, engines=FAST,
    ),
    MCTSOption(
        "cutoff", int, 4,
        "k-in-a-row games, k >= 5: plies of threat playout before the static evaluation"
        " decides (0 = play to the end)",
        low=0, engines=FAST,
    ),
    MCTSOption(
        "vcf", int, 32,
        "k-in-a-row games, k >= 5: positions of the VCF search at each node expanded"
        " (a found VCF is its only move; 0 = off)",
        low=0, engines=FAST,
    ),
    MCTSOption(
        "vct", int, 20_000,
        "k-in-a-row games, k >= 5: positions of each root VCT search (victory by continuous"
        " threats; ours: played at once; the opponent's: the moves that allow it are proven"
        " losses), ours within 35% of the time left, the opponent's within 25% of the rest;"
        " 0 = off",
        low=0, engines=FAST,
    ),

)  # fmt: skip

DEFAULTS: Mapping[str, Any] = defaults(OPTIONS)
