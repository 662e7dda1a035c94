"""A tiny GTP Go engine for the tests: it always passes, lists `kgs-time_settings`,
and says that it has won (`final_score`) with a dead stone on the board
(`final_status_list dead`) whatever the board holds: the engine of issue 40's
measured run, which passed early and claimed the win its own count gave it.

Usage: python passing_go.py [SCORE [DEAD...]]  (default: B+99 D4)
"""

from __future__ import annotations

import sys

COMMANDS = [
    "protocol_version",
    "name",
    "version",
    "list_commands",
    "known_command",
    "boardsize",
    "clear_board",
    "komi",
    "play",
    "genmove",
    "time_settings",
    "kgs-time_settings",
    "time_left",
    "final_score",
    "final_status_list",
    "quit",
]


def main() -> None:
    score = sys.argv[1] if len(sys.argv) > 1 else "B+99"
    dead = sys.argv[2:] or ["D4"]
    answers = {
        "protocol_version": "2",
        "name": "passing",
        "version": "1",
        "list_commands": "\n".join(COMMANDS),
        "genmove": "pass",
        "final_score": score,
    }
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        ident = words[0] if words[0].isdigit() else ""
        if ident:
            words = words[1:]
        command = words[0] if words else ""
        if command not in COMMANDS:
            sys.stdout.write(f"?{ident} unknown command\n\n")
        elif command == "final_status_list":
            sys.stdout.write(f"={ident} {' '.join(dead) if words[1:] == ['dead'] else ''}\n\n")
        elif command == "known_command":
            sys.stdout.write(
                f"={ident} {'true' if words[1:2] and words[1] in COMMANDS else 'false'}\n\n"
            )
        else:
            sys.stdout.write(f"={ident} {answers.get(command, '')}\n\n")
        sys.stdout.flush()
        if command == "quit":
            return


if __name__ == "__main__":
    main()
