"""A trivial connect four engine for the text protocol: always the leftmost free column.

The opponent that once beat ``mcts:time=0.1`` in 2 games of 10 (a reused root
proven won with no child carrying the proof played an arbitrary move). It
hands over forced wins, so any loss to it is a bug. Run it as an engine::

    python -m benchmarks.strength mcts:time=0.1 \\
        "engine:cmd=$(which python),args=benchmarks/leftmost_engine.py,protocol=text" \\
        --game connect4 --time 0.1 --games 100
"""

from __future__ import annotations

import sys


def main() -> int:
    width, height = 7, 6
    filled: list[int] = [0] * width
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        command = words[0]
        answer = None
        if command == "arena":
            answer = "id name leftmost\narenaok"
        elif command == "isready":
            answer = "readyok"
        elif command == "newgame":
            options = dict(o.split("=", 1) for o in (words[2].split(",") if len(words) > 2 else []))
            width, height = int(options.get("width", 7)), int(options.get("height", 6))
            filled = [0] * width
        elif command == "position":
            filled = [0] * width
            for move in words[3:]:
                filled[int(move) - 1] += 1
        elif command == "go":
            column = next(c for c in range(width) if filled[c] < height)
            answer = f"bestmove {column + 1}"
        elif command == "quit":
            return 0
        if answer is not None:
            print(answer, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
