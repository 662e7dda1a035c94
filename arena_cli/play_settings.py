"""`arena play`'s settings once resolved: shared by the run and the `--vs` session."""

from __future__ import annotations

from dataclasses import dataclass

from player.client import PlayerConfig
from player.spec import parse_agent_spec


@dataclass(frozen=True, slots=True)
class PlaySettings:
    """`arena play` arguments after environment fallbacks and validation."""

    game: str
    options: dict[str, str]
    spec: str
    config: PlayerConfig
    #: --vs: the opponent's spec, and whether it plays on an embedded server
    vs: str | None = None
    embedded: bool = False
    #: --serve-port: the embedded server's port (0: a free one)
    serve_port: int = 0

    @property
    def human(self) -> bool:
        return parse_agent_spec(self.spec)[0] == "human"
