"""SGF (Smart Game Format, FF[4]) records for the games that have an SGF standard.

* the m,n,k family (tic-tac-toe, gomoku and their variants): GM[4] "Gomoku +
  Renju"; ``SZ[n]`` or ``SZ[columns:rows]`` for a non-square board;
* reversi: GM[2] "Othello", ``SZ[n]``; a pass is an empty move, ``B[]``;
* go: GM[1], ``SZ[n]``, ``KM[komi]``, ``RU[Chinese]`` (area scoring and no
  suicide, the two rules that decide which moves are legal and how the board
  counts; Tromp–Taylor, which our rules follow otherwise, allows suicide, so
  ``RU[Tromp-Taylor]`` would tell a reader that moves we refuse are legal);
  a pass is ``B[]``, and ``B[tt]`` is read as a pass too on boards up to
  19×19 (FF[3]'s spelling, which many programs still write). The result is
  ``RE[B+3.5]`` (the count), ``W+R``, ``B+T``.

Seat 0 moves first and is Black (``B``, ``PB``); seat 1 is White. A point is
two letters, column then row, ``aa`` the top-left corner — the same cell
numbering the games use (``row * width + col``, row 0 at the top), so a move
and its point convert directly.

What SGF has no property for (the match id is ``GN``) travels in private
properties, which FF[4] allows and other readers ignore: ``XA`` on the root
holds the rest of the record as JSON (schema version, options, time control,
opening, termination, timestamps...); on each move node ``XT`` is the think
time in seconds and ``XW`` the Unix time the move was made, and for a move
whose engine said something about it, ``XI`` holds that move info as JSON
(eval, depth, visits, pv) and a comment ``C`` says it for people
(``eval 0.62, depth 14, 35,210 visits, pv d3 e6 f4``; comments are not read
back). A file written here re-imports losslessly; a foreign file
without ``XA`` is read with what SGF says (game from GM and SZ, players, RE).

The reader implements the FF[4] grammar (Collection = GameTree+, GameTree =
"(" Sequence GameTree* ")", Sequence = Node+, Node = ";" Property*, Property
= PropIdent PropValue+, PropIdent = UcLetter+, PropValue = "[" value "]", with
``\\`` escaping inside values) and refuses variations: a game record is one line
of play.
"""

from __future__ import annotations

import datetime
import hashlib
from typing import Any

import msgspec

from games import Game, Outcome, Termination, colour_result_text, make_game
from games.go import PASS as GO_PASS
from games.go import Go
from games.mnk import MNKGame
from games.reversi import PASS, Reversi
from protocol.messages import Depth, Evaluation, PrincipalVariation, Visits
from records.moveinfo import describe_move_info
from records.schema import (
    SCHEMA_VERSION,
    GameEntry,
    MoveEntry,
    OpeningEntry,
    RecordError,
    ResultEntry,
    TimeControlEntry,
)

__all__ = ["SgfNode", "entry_from_sgf", "entry_to_sgf", "parse_sgf", "sgf_game_number"]

SgfNode = dict[str, list[str]]

_LETTERS = "abcdefghijklmnopqrstuvwxyz"
_COLORS = ("B", "W")


class _MoveInfo(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    """A move's ``XI`` property: what the mover's engine said about it."""

    eval: Evaluation | None = None
    depth: Depth | None = None
    visits: Visits | None = None
    pv: PrincipalVariation = msgspec.field(default_factory=list)


def sgf_game_number(game: Game[Any, Any]) -> int | None:
    """SGF's GM number for this game (4 for the m,n,k family, 2 for reversi, 1 for go), or None."""
    if isinstance(game, Go):
        return 1
    if isinstance(game, MNKGame):
        return 4
    if isinstance(game, Reversi):
        return 2
    return None


def _board(game: Game[Any, Any]) -> tuple[int, int]:
    if isinstance(game, MNKGame):
        return game.width, game.height
    if isinstance(game, Reversi | Go):
        return game.size, game.size
    raise RecordError(f"game {game.name!r} has no SGF standard")


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("]", "\\]")


def _point(move: int, width: int) -> str:
    row, col = divmod(move, width)
    return _LETTERS[col] + _LETTERS[row]


def _result_text(entry: GameEntry) -> str:
    """``RE``'s value: `colour_result_text` (``B+3.5``, ``W+R``, ``B+T``, ``W+F``, ``0``)."""
    result = entry.result
    if result is None or result.scores is None:
        return "Void" if entry.status == "aborted" else "?"
    try:
        termination = Termination(result.termination)
    except ValueError:
        termination = Termination.LINE  # a result we cannot name: a plain win
    points = None if result.points is None else tuple(result.points)
    return colour_result_text(Outcome(tuple(result.scores), result.winner, termination, points))


def _is_pass(game: Game[Any, Any], move: int) -> bool:
    return (isinstance(game, Reversi) and move == PASS) or (
        isinstance(game, Go) and move == GO_PASS
    )


def entry_to_sgf(entry: GameEntry) -> str:
    """The SGF text of one game (RecordError if the game has no SGF standard)."""
    game = make_game(entry.game, entry.options)
    number = sgf_game_number(game)
    if number is None:
        raise RecordError(
            f"game {entry.game!r} has no SGF standard (SGF covers go, reversi and the m,n,k games)"
        )
    width, height = _board(game)
    size = f"{width}" if width == height else f"{width}:{height}"
    date = datetime.datetime.fromtimestamp(entry.started_at, datetime.UTC).strftime("%Y-%m-%d")
    meta = msgspec.json.encode(msgspec.structs.replace(entry, moves=[])).decode()
    root = [
        "FF[4]",
        f"GM[{number}]",
        "CA[UTF-8]",
        "AP[mcts-arena:1]",
        f"SZ[{size}]",
        *([f"KM[{game.komi:g}]", "RU[Chinese]"] if isinstance(game, Go) else []),
        f"GN[{_escape(entry.id)}]",
        f"PB[{_escape(entry.players[0])}]",
        f"PW[{_escape(entry.players[1])}]",
        f"DT[{date}]",
        f"RE[{_result_text(entry)}]",
        f"XA[{_escape(meta)}]",
    ]
    lines = ["(;" + "".join(root)]
    for move in entry.moves:
        point = "" if _is_pass(game, int(move.move)) else _point(int(move.move), width)
        node = f";{_COLORS[move.seat]}[{point}]XT[{float(move.think_time)!r}]"
        if move.at is not None:
            node += f"XW[{float(move.at)!r}]"
        lines.append(node + _info_properties(move))
    return "\n".join(lines) + ")\n"


def _info_properties(move: MoveEntry) -> str:
    """``XI[json]C[text]`` for a move with move info, else ""."""
    info = _MoveInfo(move.eval, move.depth, move.visits, move.pv)
    if info == _MoveInfo():
        return ""
    text = describe_move_info(move.eval, move.depth, move.visits, move.pv)
    return f"XI[{_escape(msgspec.json.encode(info).decode())}]C[{_escape(text)}]"


def _info_fields(node: SgfNode, ply: int) -> dict[str, Any]:
    """The `MoveEntry` fields of a node's ``XI`` property (none without one)."""
    text = _single(node, "XI")
    if text is None:
        return {}
    try:
        info = msgspec.json.decode(text, type=_MoveInfo)
    except msgspec.DecodeError as exc:
        raise RecordError(f"ply {ply + 1}: bad move info XI[{text}]: {exc}") from None
    return {"eval": info.eval, "depth": info.depth, "visits": info.visits, "pv": info.pv}


# --- reading -----------------------------------------------------------------


class _Parser:
    def __init__(self, text: str) -> None:
        self.text, self.pos = text, 0

    def error(self, message: str) -> RecordError:
        line = self.text.count("\n", 0, self.pos) + 1
        return RecordError(f"SGF line {line}: {message}")

    def skip_space(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def peek(self) -> str:
        self.skip_space()
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def expect(self, char: str) -> None:
        if self.peek() != char:
            found = self.peek() or "the end"
            raise self.error(f"expected {char!r}, found {found!r}")
        self.pos += 1

    def collection(self) -> list[list[SgfNode]]:
        trees = [self.game_tree()]
        while self.peek() == "(":
            trees.append(self.game_tree())
        if self.peek():
            raise self.error(f"unexpected {self.peek()!r} after the last game")
        return trees

    def game_tree(self) -> list[SgfNode]:
        self.expect("(")
        nodes = [self.node()]
        while self.peek() == ";":
            nodes.append(self.node())
        if self.peek() == "(":
            raise self.error("variations are not supported in a game record")
        self.expect(")")
        return nodes

    def node(self) -> SgfNode:
        self.expect(";")
        properties: SgfNode = {}
        while self.peek().isalpha():
            start = self.pos
            while self.pos < len(self.text) and self.text[self.pos].isalpha():
                self.pos += 1
            ident = self.text[start : self.pos]
            if not ident.isupper() or not ident.isascii():
                raise self.error(f"property name {ident!r} must be upper-case letters")
            if ident in properties:
                raise self.error(f"property {ident} appears twice in a node")
            values = [self.value()]
            while self.peek() == "[":
                values.append(self.value())
            properties[ident] = values
        return properties

    def value(self) -> str:
        self.expect("[")
        chars: list[str] = []
        while True:
            if self.pos >= len(self.text):
                raise self.error("unterminated property value")
            char = self.text[self.pos]
            self.pos += 1
            if char == "\\":
                if self.pos >= len(self.text):
                    raise self.error("unterminated property value")
                chars.append(self.text[self.pos])
                self.pos += 1
            elif char == "]":
                return "".join(chars)
            else:
                chars.append(char)


def parse_sgf(text: str) -> list[list[SgfNode]]:
    """The games of an SGF collection, each a list of nodes (RecordError if malformed)."""
    return _Parser(text).collection()


def _single(node: SgfNode, ident: str) -> str | None:
    values = node.get(ident)
    if values is None:
        return None
    if len(values) != 1:
        raise RecordError(f"property {ident} must have one value, not {len(values)}")
    return values[0]


def _game_from_root(root: SgfNode) -> tuple[str, dict[str, Any]]:
    number, size = _single(root, "GM") or "1", _single(root, "SZ")
    if number == "1":
        for setup in ("AB", "AW", "AE"):
            if setup in root:
                raise RecordError(
                    f"the root places stones ({setup}): only games played from the empty"
                    " board can be imported (a handicap game, or a position such as GNU Go's"
                    " printsgf writes, is not a game record)"
                )
        komi = _single(root, "KM")
        return "go", {"size": int(size or 19), "komi": float(komi or 0)}
    if number == "2":
        return "reversi", {"size": int(size or 8)}
    if number == "4":
        width, _, height = (size or "15").partition(":")
        w, h = int(width), int(height or width)
        return (
            ("tictactoe", {"width": w, "height": h, "k": 3})
            if (w, h) == (3, 3)
            else (
                "gomoku",
                {"width": w, "height": h, "k": 5},
            )
        )
    raise RecordError(
        f"GM[{number}] is not a game we play (GM[1] go, GM[2] reversi, GM[4] m,n,k games)"
    )


def _foreign_header(root: SgfNode, text: str) -> GameEntry:
    """What a file without our XA property says about its game."""
    try:
        name, options = _game_from_root(root)
    except ValueError as exc:
        raise RecordError(f"bad GM or SZ: {exc}") from None
    digest = hashlib.sha1(text.encode(), usedforsecurity=False).hexdigest()[:12]
    return GameEntry(
        schema=SCHEMA_VERSION,
        id=_single(root, "GN") or f"sgf-{digest}",
        game=name,
        options=options,
        players=[_single(root, "PB") or "Black", _single(root, "PW") or "White"],
        time_control=TimeControlEntry(0.0, 0.0),
        opening=OpeningEntry(),
        moves=[],
        status="finished",
        result=None,
        started_at=0.0,
    )


def _moves(game: Game[Any, Any], nodes: list[SgfNode]) -> list[MoveEntry]:
    width, height = _board(game)
    moves: list[MoveEntry] = []
    for ply, node in enumerate(nodes):
        colors = [color for color in _COLORS if color in node]
        if len(colors) != 1:
            raise RecordError(f"ply {ply + 1}: a move node needs exactly one of B or W")
        color = colors[0]
        point = _single(node, color) or ""
        if point == "" and isinstance(game, Reversi):
            move = PASS
        elif isinstance(game, Go) and (point == "" or (point == "tt" and width <= 19)):
            move = GO_PASS
        elif len(point) == 2 and point[0] in _LETTERS[:width] and point[1] in _LETTERS[:height]:
            move = _LETTERS.index(point[1]) * width + _LETTERS.index(point[0])
        else:
            raise RecordError(f"ply {ply + 1}: {color}[{point}] is not a point on the board")
        think, at = _single(node, "XT") or "0", _single(node, "XW")
        try:
            think_time, when = float(think), None if at is None else float(at)
        except ValueError:
            raise RecordError(
                f"ply {ply + 1}: think time XT[{think}] or time XW[{at}] is not a number"
            ) from None
        moves.append(
            MoveEntry(
                ply,
                _COLORS.index(color),
                game.encode_move(move),
                "",
                think_time,
                when,
                **_info_fields(node, ply),
            )
        )
    return moves


def entry_from_sgf(text: str, nodes: list[SgfNode]) -> GameEntry:
    """The exchange record of one parsed SGF game (`parse_sgf`); check it with `check_entry`.

    Move notation is filled in from the rules; a foreign file's result is
    taken from its final position by the replay (see `records.replay`), or
    from its ``RE`` when that says the game ended early (``W+R``, ``B+T``,
    ``W+F``). Passes after a Go game has ended (GNU Go writes two more) are
    left out.
    """
    root, move_nodes = nodes[0], nodes[1:]
    if any(color in root for color in _COLORS):
        raise RecordError("the root node holds a move; moves belong in the following nodes")
    meta = _single(root, "XA")
    if meta is not None:
        try:
            entry = msgspec.json.decode(meta, type=GameEntry)
        except msgspec.DecodeError as exc:
            raise RecordError(f"bad XA record: {exc}") from None
    else:
        entry = _foreign_header(root, text)
    try:
        game = make_game(entry.game, entry.options)
    except ValueError as exc:
        raise RecordError(f"game {entry.game!r}: {exc}") from None
    number = _single(root, "GM")
    if number != str(sgf_game_number(game)):
        raise RecordError(f"GM[{number}] does not match game {entry.game!r}")
    moves = _moves(game, move_nodes)
    # notation as the game writes it; illegal moves are caught by the replay, not here
    moves = [
        msgspec.structs.replace(m, notation=game.format_move(game.decode_move(m.move)))
        for m in moves
    ]
    if meta is None:
        if isinstance(game, Go):
            moves = _without_passes_after_the_end(game, moves)
        result = _result_from_replay(game, moves, _single(root, "RE"))
        entry = msgspec.structs.replace(entry, result=result)
    return msgspec.structs.replace(entry, moves=moves)


def _without_passes_after_the_end(game: Go, moves: list[MoveEntry]) -> list[MoveEntry]:
    """The moves up to the two passes that end the game, when only passes follow them."""
    state = game.initial_state()
    for index, move in enumerate(moves):
        if game.is_terminal(state):
            rest = moves[index:]
            return moves[:index] if all(m.move == GO_PASS for m in rest) else moves
        try:
            state = game.play(state, game.decode_move(move.move))
        except ValueError:
            return moves  # the replay check reports it
    return moves


#: the endings a foreign ``RE`` can state for a game whose board is not over
_STATED_ENDINGS = {
    "R": Termination.RESIGNATION,
    "RESIGN": Termination.RESIGNATION,
    "T": Termination.TIMEOUT,
    "TIME": Termination.TIMEOUT,
    "F": Termination.ILLEGAL_MOVE,
    "FORFEIT": Termination.ILLEGAL_MOVE,
}


def _stated_ending(stated: str | None) -> tuple[int, Termination] | None:
    """The winner and ending of ``RE[W+R]``, ``RE[B+Time]``...; None for any other result."""
    side, plus, how = (stated or "").strip().partition("+")
    if not plus or side.upper() not in _COLORS:
        return None
    ending = _STATED_ENDINGS.get(how.upper())
    return None if ending is None else (_COLORS.index(side.upper()), ending)


def _result_from_replay(
    game: Game[Any, Any], moves: list[MoveEntry], stated: str | None
) -> ResultEntry | None:
    state = game.initial_state()
    for move in moves:
        if game.is_terminal(state):
            return None  # the replay check reports it
        try:
            state = game.play(state, game.decode_move(move.move))
        except ValueError:
            return None
    outcome = game.outcome(state)
    if outcome is None:
        ending = _stated_ending(stated)
        if ending is None:
            raise RecordError(
                f"the game is not over after {len(moves)} plies, and its result"
                f" RE[{stated or ''}] does not say how it ended (W+R, B+T, W+F)"
            )
        winner, termination = ending
        scores = [1.0 if seat == winner else 0.0 for seat in range(2)]
        return ResultEntry(scores, winner, termination.value, f"RE[{stated}]", None)
    return ResultEntry(
        scores=list(outcome.scores),
        winner=outcome.winner,
        termination=outcome.termination.value,
        reason=_disagreement(outcome, stated),
        points=None if outcome.points is None else list(outcome.points),
    )


def _disagreement(outcome: Outcome, stated: str | None) -> str:
    """ "" when the file's ``RE`` agrees with our count (or states none), else both results.

    Ours stands (the board counted by our rules); the file's is kept in the reason.
    """
    if not stated or stated.strip() in ("?", ""):
        return ""
    ours = colour_result_text(outcome)
    side, plus, margin = stated.strip().partition("+")
    try:
        same = (
            stated.strip() == ours
            or (stated.strip() in ("0", "Draw", "draw") and ours == "0")
            or (plus and f"{side}+{float(margin):g}" == ours)
        )
    except ValueError:
        same = False
    return "" if same else f"the file says RE[{stated.strip()}]; counted here {ours}"
