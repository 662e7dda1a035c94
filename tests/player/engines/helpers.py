"""Small helpers shared by the engine adapter tests."""

from __future__ import annotations

from player.engines.process import EngineProcess


def record_sends(process: EngineProcess) -> list[str]:
    """Every line the arena sends to `process` from now on, in order (they are still sent)."""
    sent: list[str] = []
    send = process.send

    def recording(line: str) -> None:
        sent.append(line)
        send(line)

    process.send = recording  # type: ignore[method-assign]
    return sent
