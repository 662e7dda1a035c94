"""An engine's configuration: from a spec's options and an engines file, checked before anything runs.

The spec ``engine:cmd=gtp-rhino,args=-l 3,protocol=gtp`` and the engines file
entry ``[engines.rhino]`` hold the same keys; ``engine:rhino`` names an entry
and any key given in the spec overrides the entry's. Every error is one line
naming the key (and the file) and the valid values.
"""

from __future__ import annotations

import math
import os
import shlex
import shutil
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PROTOCOLS = ("text", "gtp", "gomocup")
RESTARTS = ("auto", "always")
#: where a program named without a '/' is looked for after PATH (Debian's game programs)
GAMES_DIRS = ("/usr/local/games", "/usr/games")
#: the environment variable naming the engines file (set by --engines for child processes)
ENGINES_ENV = "ARENA_ENGINES"
DEFAULT_ENGINES_FILE = "engines.toml"

#: key -> (what it is, the expected TOML types)
KEYS: dict[str, str] = {
    "cmd": "the program (a name on PATH, /usr/local/games or /usr/games, or a path)",
    "args": "its arguments (a list, or one string split like a shell)",
    "protocol": "text, gtp or gomocup",
    "name": "the player's name",
    "workdir": "the directory it runs in",
    "init": "commands sent after the handshake (a list, or one string split at ';')",
    "margin": "seconds kept back from every budget",
    "start_timeout": "seconds it may take to start and answer its handshake",
    "restart": "auto (a fresh process after a fault) or always (every game)",
}


@dataclass(frozen=True, slots=True)
class EngineConfig:
    """Everything needed to run one engine (the program already found)."""

    program: str
    args: tuple[str, ...]
    protocol: str = "text"
    name: str | None = None
    workdir: str | None = None
    init: tuple[str, ...] = ()
    margin: float = 0.05
    start_timeout: float = 10.0
    restart: str = "auto"

    @property
    def argv(self) -> list[str]:
        """The command line to run."""
        return [self.program, *self.args]

    @property
    def label(self) -> str:
        """A short name for logs and reasons: the name, else the program's file name."""
        return self.name or os.path.basename(self.program)


def engines_file() -> Path | None:
    """The engines file in force: ``$ARENA_ENGINES``, else ``./engines.toml`` if it exists."""
    named = os.environ.get(ENGINES_ENV, "").strip()
    if named:
        return Path(named)
    default = Path(DEFAULT_ENGINES_FILE)
    return default if default.is_file() else None


def load_engines_file(path: Path) -> dict[str, dict[str, Any]]:
    """The ``[engines.NAME]`` tables of `path` (ValueError with the file and the key if bad)."""
    try:
        with open(path, "rb") as handle:
            data = tomllib.load(handle)
    except FileNotFoundError:
        raise ValueError(f"engines file {str(path)!r} does not exist") from None
    except IsADirectoryError:
        raise ValueError(f"engines file {str(path)!r} is a directory") from None
    except OSError as exc:
        raise ValueError(f"engines file {str(path)!r}: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"engines file {str(path)!r} is not valid TOML: {exc}") from None
    unknown = sorted(set(data) - {"engines"})
    if unknown:
        raise ValueError(
            f"engines file {str(path)!r}: unknown table {unknown[0]!r} (expected [engines.NAME])"
        )
    engines = data.get("engines", {})
    if not isinstance(engines, dict) or not all(isinstance(v, dict) for v in engines.values()):
        raise ValueError(f"engines file {str(path)!r}: engines must be tables [engines.NAME]")
    for name, entry in engines.items():
        for key in entry:
            if key not in KEYS:
                raise ValueError(
                    f"engines file {str(path)!r}: [engines.{name}] has an unknown key {key!r}"
                    f" (valid keys: {', '.join(KEYS)})"
                )
    return engines


def _words(value: Any, key: str, where: str, *, sep: str | None = None) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        if sep is not None:
            return tuple(part.strip() for part in value.split(sep) if part.strip())
        try:
            return tuple(shlex.split(value))
        except ValueError as exc:
            raise ValueError(f"{where}{key} {value!r} cannot be split: {exc}") from None
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return tuple(value)
    raise ValueError(f"{where}{key} must be a string or a list of strings, not {value!r}")


def _seconds(value: Any, key: str, where: str, *, minimum: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(f"{where}{key} must be a number of seconds, not {value!r}")
    if value < minimum:
        raise ValueError(f"{where}{key} must be at least {minimum:g} seconds, not {value!r}")
    return float(value)


def _text(value: Any, key: str, where: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{where}{key} must be a non-empty string, not {value!r}")
    return value.strip()


def find_program(cmd: str, base: Path) -> str:
    """The program `cmd` names: a path (relative to `base`) or a name on PATH or GAMES_DIRS."""
    if "/" in cmd:
        path = Path(cmd).expanduser()
        if not path.is_absolute():
            path = base / path
        if not path.is_file():
            raise ValueError(f"engine cmd {cmd!r}: no such file ({path})")
        if not os.access(path, os.X_OK):
            raise ValueError(f"engine cmd {cmd!r}: {path} is not executable")
        return str(path)
    found = shutil.which(cmd) or shutil.which(cmd, path=os.pathsep.join(GAMES_DIRS))
    if found is None:
        raise ValueError(
            f"engine cmd {cmd!r} was not found on PATH nor in {', '.join(GAMES_DIRS)}"
            " (give a path, e.g. cmd=./my_engine)"
        )
    return found


def build_config(options: Mapping[str, Any]) -> EngineConfig:
    """An `EngineConfig` from a spec's options (None = not given), an entry filling the rest.

    ``options["entry"]`` names an entry of the engines file (`engines_file`).
    Raises ValueError naming the key, the file and the valid values.
    """
    values: dict[str, Any] = {}
    base = Path.cwd()
    where = ""
    entry = options.get("entry")
    if entry is not None:
        path = engines_file()
        if path is None:
            raise ValueError(
                f"engine {entry!r} names an engines file entry, but there is no engines file"
                f" (--engines FILE, ${ENGINES_ENV}, or ./{DEFAULT_ENGINES_FILE})"
            )
        engines = load_engines_file(path)
        if entry not in engines:
            known = ", ".join(sorted(engines)) or "none"
            raise ValueError(
                f"engines file {str(path)!r} has no engine {entry!r} (it has: {known})"
            )
        values.update(engines[entry])
        base = path.resolve().parent
        where = f"engines file {str(path)!r}: [engines.{entry}] "
    values.update(
        {key: value for key, value in options.items() if key != "entry" and value is not None}
    )
    cmd = _text(values.get("cmd"), "cmd", where)
    if cmd is None:
        raise ValueError(f"{where}cmd is missing: which program? (e.g. engine:cmd=gtp-rhino)")
    protocol = values.get("protocol", "text")
    if protocol not in PROTOCOLS:
        raise ValueError(f"{where}protocol must be one of {', '.join(PROTOCOLS)}, not {protocol!r}")
    restart = values.get("restart", "auto")
    if restart not in RESTARTS:
        raise ValueError(f"{where}restart must be one of {', '.join(RESTARTS)}, not {restart!r}")
    workdir = _text(values.get("workdir"), "workdir", where)
    if workdir is not None:
        folder = Path(workdir).expanduser()
        folder = folder if folder.is_absolute() else base / folder
        if not folder.is_dir():
            raise ValueError(f"{where}workdir {workdir!r} is not a directory")
        workdir = str(folder)
    args = _words(values.get("args"), "args", where)
    init = _words(values.get("init"), "init", where, sep=";")
    name = _text(values.get("name"), "name", where)
    margin = _seconds(values.get("margin", 0.05), "margin", where, minimum=0.0)
    start_timeout = _seconds(values.get("start_timeout", 10.0), "start_timeout", where, minimum=0.1)
    return EngineConfig(
        program=find_program(cmd, base),  # last: every other key is checked first
        args=args,
        protocol=protocol,
        name=name,
        workdir=workdir,
        init=init,
        margin=margin,
        start_timeout=start_timeout,
        restart=restart,
    )
