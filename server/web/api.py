"""The read-only JSON HTTP API (docs/WEB.md): matches, records, tournaments, the lobby.

Records are read through the store's own read paths in a worker thread
(`trio.to_thread`), never on the event loop. The lobby's live view (matches
being played, open seeks, rooms) is read from the running server's memory.
Every error is a JSON object ``{"error": "..."}`` with a 4xx/5xx status.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec
import trio
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from games import GameError, available_games, make_game
from server.app import ArenaServer
from server.errors import ApiError as ApiError
from server.ladder_ratings import LadderRatings
from server.ladders import Ladders
from server.web.config import WebConfig
from server.web.downloads import match_file
from server.web.ladders import bot_document, ladder_document, list_ladders
from server.web.tournaments import list_tournaments, tournament_document
from store import Database, MatchRecord, StoreError

#: renderers the page ships (other games get the generic view)
RENDERED_GAMES = frozenset({"tictactoe", "gomoku", "connect4", "reversi", "ultimate", "go"})
MAX_LIMIT = 1000
STATUSES = ("running", "finished", "aborted")

_encoder = msgspec.json.Encoder()


def json_response(data: Any, status: int = 200) -> Response:
    return Response(
        _encoder.encode(data),
        status_code=status,
        media_type="application/json",
        headers={"Cache-Control": "no-store"},
    )


def _int_param(request: Request, name: str, default: int, low: int, high: int) -> int:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ApiError(400, f"{name} must be an integer, not {raw!r}") from None
    if not low <= value <= high:
        raise ApiError(400, f"{name} must be in {low}..{high}, not {value}")
    return value


def match_json(record: MatchRecord) -> dict[str, Any]:
    return record.as_json()


def replay_states(record: MatchRecord, moves: list[Any]) -> tuple[list[Any] | None, str | None]:
    """The state before the first move and after each one (or why not), each as a page
    draws it (`Game.encode_view`: Go leaves out its superko history)."""
    try:
        game = make_game(record.game, record.options)
    except ValueError as exc:
        return None, f"cannot load game {record.game!r}: {exc}"
    state = game.initial_state()
    states = [game.encode_view(state)]
    for move in moves:
        try:
            state = game.play(state, game.decode_move(move))
        except GameError as exc:
            return states, f"ply {len(states)}: cannot replay {move!r}: {exc}"
        states.append(game.encode_view(state))
    return states, None


def match_document(store: Database, match_id: str) -> dict[str, Any] | None:
    """A stored match: its record, every move (with the mover's move info), and the state
    after every ply."""
    record = store.get_match(match_id)
    if record is None:
        return None
    moves = store.get_moves(record.id)
    states, error = replay_states(record, [m.move for m in moves])
    return {
        "match": match_json(record),
        "moves": [
            {
                "ply": m.ply,
                "seat": m.seat,
                "move": m.move,
                "notation": m.notation,
                "think_time": m.think_time,
                "at": m.at,
                # the mover's move info: null (pv []) where it said nothing
                "eval": m.eval,
                "depth": m.depth,
                "visits": m.visits,
                "pv": list(m.pv),
            }
            for m in moves
        ],
        "states": states,
        "replay_error": error,
    }


def games_json() -> list[dict[str, Any]]:
    return [
        {
            "name": name,
            "description": cls.description,
            "seat_names": list(cls.seat_names),
            "notation": cls.notation_help,
            "rendered": name in RENDERED_GAMES,
            "options": [
                {
                    "name": spec.name,
                    "type": spec.type.__name__,
                    "default": spec.default,
                    "minimum": spec.minimum,
                    "maximum": spec.maximum,
                    "choices": spec.choices,
                    "help": spec.help,
                }
                for spec in cls.option_specs
            ],
        }
        for name, cls in available_games().items()
    ]


class Api:
    """The API's handlers, bound to one running server."""

    def __init__(self, server: ArenaServer, config: WebConfig) -> None:
        self.server = server
        self.config = config

    def routes(self) -> list[Route]:
        return [
            Route("/api/server", self._wrap(self.server_info)),
            Route("/api/games", self._wrap(self.games)),
            Route("/api/live", self._wrap(self.live)),
            Route("/api/matches", self._wrap(self.matches)),
            Route("/api/matches/{match}", self._wrap(self.match)),
            Route("/api/matches/{match}/record.{kind:str}", self.download),
            Route("/api/ladders", self._wrap(self.ladders)),
            Route("/api/ladders/{ladder}", self._wrap(self.ladder)),
            Route("/api/ladders/{ladder}/bots/{bot:path}", self._wrap(self.ladder_bot)),
            Route("/api/tournaments", self._wrap(self.tournaments)),
            Route("/api/tournaments/{tournament}", self._wrap(self.tournament)),
        ]

    @staticmethod
    def _wrap(handler: Callable[[Request], Any]) -> Callable[[Request], Any]:
        async def endpoint(request: Request) -> Response:
            try:
                return json_response(await handler(request))
            except ApiError as exc:
                return json_response({"error": exc.message}, exc.status)
            except StoreError as exc:
                return json_response({"error": f"records unavailable: {exc}"}, 503)

        return endpoint

    async def _store_call(self, function: Callable[..., Any], *args: Any) -> Any:
        store = self.server.store
        if store is None:
            raise ApiError(503, "this server keeps no records (--no-db)")
        return await trio.to_thread.run_sync(function, store, *args)

    async def server_info(self, request: Request) -> dict[str, Any]:
        status = self.server.status()
        return {
            "server": self.server.config.name,
            "session": self.server.session_id,
            "tcp_port": self.server.port,
            "max_frame": self.server.config.max_frame,
            "move_time": self.server.config.policy.move_time,
            "max_move_time": self.server.config.max_move_time,
            "records": self.server.store is not None,
            "engines": sorted(self.config.engines),
            "lobby_refresh": self.config.lobby_refresh,
            "status": msgspec.to_builtins(status),
        }

    async def games(self, request: Request) -> list[dict[str, Any]]:
        return games_json()

    async def live(self, request: Request) -> dict[str, Any]:
        lobby = self.server.lobby
        if lobby is None:
            raise ApiError(503, "the server is not running")
        seeks = [
            {
                "game": key.game,
                "options": msgspec.json.decode(key.options),
                "move_time": key.move_time,
                "players": [conn.name for conn in conns],
            }
            for key, conns in lobby.seeks.items()
            if conns
        ]
        rooms = [
            {
                "room": room.name,
                "game": room.game.name,
                "options": room.game.options,
                "move_time": room.move_time,
                "seats": [None if conn is None else conn.name for conn in room.seats],
            }
            for room in lobby.rooms.values()
        ]
        matches = []
        for match in lobby.matches.values():
            info = msgspec.to_builtins(match.info())
            info["tournament"] = match.tournament
            info["move_time"] = match.policy.move_time
            info["to_move"] = None if match.outcome else match.game.to_move(match.state)
            matches.append(info)
        cluster = self.server.cluster
        if cluster is not None:  # the other nodes' matches, as this node last read them
            for info in matches:
                info["node"] = cluster.node
            for running in cluster.remote:
                record = running.record
                matches.append(
                    {
                        "match": record.id,
                        "game": record.game,
                        "options": record.options,
                        "players": record.players,
                        "ply": running.plies,
                        "status": "playing",
                        "node": record.tags.node,
                        "tournament": record.tournament,
                        "move_time": record.move_time,
                        "to_move": None,
                    }
                )
        return {"matches": matches, "seeks": seeks, "rooms": rooms}

    async def matches(self, request: Request) -> dict[str, Any]:
        limit = _int_param(request, "limit", 50, 1, MAX_LIMIT)
        status = request.query_params.get("status")
        if status is not None and status not in STATUSES:
            raise ApiError(400, f"status must be one of {', '.join(STATUSES)}, not {status!r}")
        tournament = request.query_params.get("tournament")

        def read(store: Database) -> list[MatchRecord]:
            return store.list_matches(limit, status=status, tournament=tournament)

        records = await self._store_call(read)
        return {"matches": [match_json(r) for r in records]}

    async def match(self, request: Request) -> dict[str, Any]:
        match_id = request.path_params["match"]
        document = await self._store_call(match_document, match_id)
        if document is None:
            raise ApiError(404, f"no recorded match {match_id!r} (or the prefix is ambiguous)")
        return dict(document)

    async def tournaments(self, request: Request) -> dict[str, Any]:
        return {"tournaments": await self._store_call(list_tournaments)}

    async def tournament(self, request: Request) -> dict[str, Any]:
        tournament_id = request.path_params["tournament"]
        document = await self._store_call(tournament_document, tournament_id)
        if document is None:
            raise ApiError(404, f"no tournament {tournament_id!r}")
        lobby = self.server.lobby
        document["playing"] = (
            []
            if lobby is None
            else [m.id for m in lobby.matches.values() if m.tournament == document["id"]]
        )
        return dict(document)

    async def download(self, request: Request) -> Response:
        """A match's record as a file: ``record.jsonl``, or ``record.sgf`` where it has one."""
        match_id, kind = request.path_params["match"], request.path_params["kind"]
        try:
            if kind not in ("jsonl", "sgf"):
                raise ApiError(404, f"a record is .jsonl or .sgf, not .{kind}")
            text = await self._store_call(match_file, match_id, kind)
        except ApiError as exc:
            return json_response({"error": exc.message}, exc.status)
        except StoreError as exc:
            return json_response({"error": f"records unavailable: {exc}"}, 503)
        media = "application/x-go-sgf" if kind == "sgf" else "application/jsonl"
        safe = "".join(c for c in match_id if c.isalnum() or c in "-_")[:64] or "match"
        return Response(
            text,
            media_type=media,
            headers={"Content-Disposition": f'attachment; filename="{safe}.{kind}"'},
        )

    def _ladder_state(self) -> tuple[Ladders, LadderRatings]:
        lobby, ratings = self.server.lobby, self.server.ladder_ratings
        if lobby is None or ratings is None:
            raise ApiError(404, "this server runs no ladder (arena serve --ladder GAME)")
        return lobby.ladders, ratings

    async def ladders(self, request: Request) -> dict[str, Any]:
        lobby = self.server.lobby
        if lobby is None or self.server.ladder_ratings is None:
            return {"ladders": []}
        return {"ladders": list_ladders(lobby.ladders, self.server.ladder_ratings)}

    async def ladder(self, request: Request) -> dict[str, Any]:
        name = request.path_params["ladder"]
        document = ladder_document(*self._ladder_state(), name)
        if document is None:
            raise ApiError(404, f"no ladder {name!r}")
        return document

    async def ladder_bot(self, request: Request) -> dict[str, Any]:
        name, bot = request.path_params["ladder"], request.path_params["bot"]
        document = bot_document(*self._ladder_state(), name, bot)
        if document is None:
            raise ApiError(404, f"no bot {bot!r} in ladder {name!r}")
        return document
