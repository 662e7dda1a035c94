"""What `arena tournament` prints: live lines, tables, the list.

Everything is drawn from `tournament.report.results_document`, so the tables,
``--json`` and the ``--out`` files (`arena_cli.result_files`) always agree.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table

from arena_cli.replay_view import reason_note
from arena_cli.result_files import format_number
from games import Game, make_game
from tournament.config import TournamentConfig
from tournament.director import TournamentDirector
from tournament.ratings import standings
from tournament.report import rated, sprt_state
from tournament.results import GameResult, Listed
from tournament.schedule import planned_total as planned_total

__all__ = [
    "Live",
    "game_line",
    "list_document",
    "planned_total",
    "print_list",
    "print_results",
]


def game_line(
    result: GameResult, done: int, total: int | None, game: Game[Any, Any] | None = None
) -> str:
    """``game 3/8 (#3): a vs b: 1-0 (line, 9 plies)``; Go's results as ``B+3.5`` (`game`);
    a failure's reason after it: ``0-1 (crash, 5 plies) {e crashed: engine exited (code 3)}``."""
    scores = result.result_text(game)
    count = f"{done}/{total}" if total else str(done)
    return (
        f"game {count} (#{result.index + 1}): {' vs '.join(result.seats)}: {scores}"
        f" ({result.termination}, {result.plies} {'ply' if result.plies == 1 else 'plies'})"
        + reason_note(result.termination, result.reason)
    )


#: the failure columns of the standings (`tournament.failures`), with what each counts
FAILURE_COLUMNS = {
    "time": "games lost on time",
    "illegal": "illegal moves",
    "crash": "crashes and disconnects",
    "stall": "stalls (its program stopped answering)",
    "protocol": "protocol errors (output that is no answer)",
}


def _interval(lower: float | None, upper: float | None) -> str:
    """``[-33, 504]``; ``-`` when the sample supports no interval at all."""
    if lower is None and upper is None:
        return "-"
    return f"[{format_number(lower)}, {format_number(upper)}]"


def print_results(console: Console, document: dict[str, Any]) -> None:
    """Standings, per-pairing statistics, crosstable and (for an SPRT) the verdict."""
    title = (
        f"Tournament {document['tournament']} ({document['format']}, {document['status']}):"
        f" {document['game']}, {document['move_time']:g}s/move, {len(document['games'])} games"
    )
    out = Table(
        title=title,
        caption="Elo: each player's rating fitted to all its games, the field's mean at 0"
        " (a weak prior pulls it toward 0)",
    )
    columns = ("#", "player", "games", "W", "D", "L", "points", "score", "draws", "Elo", "±95%")
    # the failures (time losses, illegal moves, crashes, stalls, protocol errors): a
    # column for each kind that some player has
    failed = [
        kind
        for kind in FAILURE_COLUMNS
        if any(row.get("failures", {}).get(kind) for row in document["standings"])
    ]
    for column in (*columns, *failed):
        if column == "player":
            out.add_column(column, overflow="fold")
        else:
            out.add_column(column, justify="right")
    if failed:
        out.caption = (
            f"{out.caption}; {', '.join(f'{kind}: {FAILURE_COLUMNS[kind]}' for kind in failed)}"
        )
    for row in document["standings"]:
        out.add_row(
            str(row["rank"]),
            row["name"],
            str(row["games"]),
            str(row["wins"]),
            str(row["draws"]),
            str(row["losses"]),
            f"{row['points']:g}",
            "-" if row["score"] is None else f"{100 * row['score']:.1f}%",
            "-" if row["draw_ratio"] is None else f"{100 * row['draw_ratio']:.0f}%",
            f"{row['elo']:+.0f}",
            format_number(row["elo_margin"]),
            *(str(row["failures"][kind]) for kind in failed),
        )
    console.print(out)
    pairs = Table(
        title="Pairings (first player's side)",
        caption="Elo diff: the first player over the second from these games alone"
        " (pentanomial, over pairs, as the SPRT counts), not the standings' Elo difference;"
        " pairs: one opening played twice, seats swapped; penta: pairs LL LD WL DD WD WW",
    )
    pair_columns = (
        "pairing",
        "games",
        "+/=/-",
        "draws",
        "Elo diff",
        "95%",
        "LOS",
        "pairs",
        "penta",
    )
    for column in pair_columns:
        pairs.add_column(
            column, overflow="fold", justify="left" if column == "pairing" else "right"
        )
    for pairing in document["pairings"]:
        elo = pairing["elo_pentanomial"] if pairing["pairs"] else pairing["elo"]
        penta = pairing["pentanomial"]
        pairs.add_row(
            " vs ".join(pairing["players"]),
            str(pairing["games"]),
            f"+{pairing['wins']} ={pairing['draws']} -{pairing['losses']}",
            "-" if pairing["draw_ratio"] is None else f"{100 * pairing['draw_ratio']:.0f}%",
            "-"
            if elo is None
            else f"{format_number(elo['elo'], '+.1f')} ± {format_number(elo['error'], '.1f')}",
            "-" if elo is None else _interval(elo["lower"], elo["upper"]),
            "-" if elo is None else f"{100 * elo['los']:.1f}%",
            str(pairing["pairs"]),
            " ".join(str(v) for v in penta.values()),
        )
    console.print(pairs)
    names = [row["name"] for row in document["players"]]
    cross = document["crosstable"]
    grid = Table(title="Crosstable (points of row player against column player)")
    grid.add_column("", overflow="fold")
    for name in names:
        grid.add_column(name, justify="center", overflow="fold")
    for row in names:
        cells = []
        for col in names:
            cell = cross[row].get(col)
            never = cell is None or cell["games"] == 0  # itself, or a gauntlet's other players
            cells.append("-" if never else f"{cell['points']:g}/{cell['games']}")
        grid.add_row(row, *cells)
    console.print(grid)
    sprt = document.get("sprt")
    if sprt is not None:
        console.print(f"SPRT: {sprt['summary']}", markup=False, soft_wrap=True)
        console.print(f"SPRT verdict: {_verdict(sprt, document['status'])}", markup=False)


def _verdict(sprt: dict[str, Any], status: str) -> str:
    """What the test concluded, in words that agree with the status and the last line."""
    bounds = f"LLR {sprt['llr']:.2f}, inside ({sprt['lower']:.2f}, {sprt['upper']:.2f})"
    if sprt["decision"] == "H0":
        return f"H0 accepted (elo0={sprt['sprt']['elo0']:g}): LLR {sprt['llr']:.2f}"
    if sprt["decision"] == "H1":
        return f"H1 accepted (elo1={sprt['sprt']['elo1']:g}): LLR {sprt['llr']:.2f}"
    if sprt.get("verdict") == "undecided":
        return f"undecided: stopped at --max-pairs {sprt['max_pairs']} with {bounds}"
    if status == "finished":
        return f"undecided ({bounds})"
    return f"undecided so far ({bounds}); --resume goes on with the test"


def _total(listed: Listed) -> int | None:
    if listed.config.format == "sprt" and listed.status == "finished":
        return listed.done  # decided (or at its limit)
    return planned_total(listed.config)


def list_document(listed: Sequence[Listed]) -> list[dict[str, Any]]:
    return [
        {
            "id": item.config.id,
            "status": item.status,
            "format": item.config.format,
            "game": item.config.game,
            "players": item.config.names,
            "done": item.done,
            "total": _total(item),
            "created_at": item.created_at,
        }
        for item in listed
    ]


def print_list(console: Console, listed: Sequence[Listed]) -> None:
    if not listed:
        console.print("no tournaments stored")
        return
    table = Table()
    for column in ("id", "created", "status", "done", "format", "game", "players"):
        table.add_column(column, overflow="fold")
    for row in list_document(listed):
        total = "?" if row["total"] is None else str(row["total"])
        table.add_row(
            row["id"],
            time.strftime("%Y-%m-%d %H:%M", time.localtime(row["created_at"])),
            row["status"],
            f"{row['done']}/{total}",
            row["format"],
            row["game"],
            ", ".join(row["players"]),
        )
    console.print(table)


class Live:
    """Progress as games finish: a bar on a terminal, else one line per game."""

    def __init__(self, console: Console, config: TournamentConfig, interactive: bool) -> None:
        self.console = console
        self.config = config
        self.game: Game[Any, Any] | None
        try:
            self.game = make_game(config.game, config.options)
        except ValueError:
            self.game = None  # a plug-in game not installed here: the generic spelling
        self.progress: Progress | None = None
        self.task: TaskID | None = None
        if interactive:
            self.progress = Progress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                console=console,
            )

    def note(self, text: str) -> None:
        (self.progress.console if self.progress else self.console).print(text)

    def start(self, total: int | None, done: int) -> None:
        if self.progress is not None:
            self.progress.start()
            self.task = self.progress.add_task("starting", total=total, completed=done)

    def stop(self) -> None:
        if self.progress is not None:
            self.progress.stop()

    def on_result(self, director: TournamentDirector, result: GameResult) -> None:
        results = director.results
        summary = self._summary(results) if self.config.format == "sprt" else None
        if self.progress is not None and self.task is not None:
            description = summary or self._leaders(results)
            self.progress.update(self.task, completed=len(results), description=description)
            return
        line = game_line(result, len(results), director.total, self.game)
        self.console.print(line, markup=False, soft_wrap=True)
        if summary and (result.index ^ 1) in results:  # a pair is complete
            self.console.print(summary, markup=False, soft_wrap=True)

    def _summary(self, results: dict[int, GameResult]) -> str:
        state = sprt_state(self.config, results)
        return "" if state is None else state.summary(self.config.max_pairs)

    def _leaders(self, results: dict[int, GameResult]) -> str:
        table = standings(self.config.names, rated(results.values()))
        top = ", ".join(f"{s.player} {s.points:g}/{s.games}" for s in table[:3])
        return top or "waiting for players"
