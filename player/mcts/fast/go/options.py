"""Go's options (the compiled engine's knowledge of it): the weight of its prior, and
whether its heavy playouts and prior read ladders.

`GoOptions` is the knowledge the search of a Go game takes (`FastSearch`'s
``knowledge``); the agent's spec lists its fields after the generic options
(`player.mcts.options`), and other games ignore them. The adapter writes it
into the kernel's config (`config.PRIOR`, `config.LADDERS`), where `prior`
and the playout board (`board.load`, for `policy`) read it.
"""

from __future__ import annotations

from dataclasses import dataclass

from player.mcts.option import FAST, MCTSOption, Options, option, table


@dataclass(frozen=True, slots=True)
class GoOptions(Options):
    """Go's prior weight and ladder switch (read by `adapters`' Go factory into the
    kernel's config)."""

    go_prior: float = option(
        float,
        1.0,
        "go: the prior's weight, its virtual visits and wins for each new node's children"
        " times this (0 = none, as prior=false)",
        low=0,
        high=10,
        engines=FAST,
    )
    #: on: 12.5/20 against off at 5,000 simulations a move (docs/STRENGTH.md, "Go")
    go_ladders: bool = option(
        bool,
        True,
        "go: read ladders in the heavy playouts and the prior (no extension of a chain"
        " that a ladder catches; the atari that starts a working ladder)",
        engines=FAST,
    )


#: this game's options, in spec order
OPTIONS: tuple[MCTSOption, ...] = table(GoOptions)
