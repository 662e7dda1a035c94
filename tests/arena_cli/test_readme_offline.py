"""Examples of the user documents (examples.py) that cannot run here as written get a
weaker check, and every ``arena`` example parses with the real parser.

Weaker checks, and why:

* ``docker ...`` / ``kubectl ...``: CI has no Docker engine (tests/deploy lints
  the Dockerfile, validates the compose file and runs its services' commands
  locally). Here: docker-compose.yml parses (yaml), the services, profile,
  volume paths and variables an example names exist in it, and every ``arena``
  command line inside an example, the compose file or the Dockerfile's
  CMD parses with `arena_cli.main.build_parser`.
* ``make demo`` / ``make test`` / the other targets: running make here would
  reinstall the venv and run the whole suite inside the suite. Here: the
  target exists with the recipe the documents describe; `arena demo`, the demo
  recipe, is run as written by test_readme_sections.py.
* ``python -m benchmarks...``: minutes of CPU, and the strength benchmark's
  opponent needs the optional ``reference`` extra. Here: the arguments parse
  with the benchmark's own parser (stopped right after parsing) and the agent
  specs name real options.
* ``ssh -N -L ...`` is OpenSSH's: only its port is ours (the server's default).
* docs/CLI.md's command table's synopses (``arena play GAME AGENT``...) and the
  prose's (docs/LADDER.md's ``arena play go gtp... --ladder go9``) only parse:
  they stand for the concrete examples run elsewhere.
"""

from __future__ import annotations

import argparse
import importlib
import re
import shlex
import sys
from collections.abc import Callable
from typing import Any
from unittest import mock

import pytest
import yaml

from arena_cli.main import build_parser
from player.spec import available_agents, parse_agent_spec
from tests.arena_cli.cli import ROOT
from tests.arena_cli.examples import doc_examples, help_examples, substitute

MAKEFILE = (ROOT / "Makefile").read_text()
COMPOSE: dict[str, Any] = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
SERVICES: dict[str, Any] = COMPOSE["services"]
DOCKERFILE = (ROOT / "Dockerfile").read_text()


def parses(words: list[str]) -> argparse.Namespace:
    """`arena WORDS` parsed by the real parser (an argparse error fails the test)."""
    try:
        return build_parser().parse_args(words)
    except SystemExit as exc:
        raise AssertionError(f"arena {shlex.join(words)}: argparse exit {exc.code}") from None


def serve_help() -> str:
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    assert isinstance(sub.choices, dict)
    return str(sub.choices["serve"].format_help())


def target(name: str) -> str:
    """The recipe of Makefile target `name` (AssertionError without one)."""
    found = re.search(rf"^{re.escape(name)}:[^\n]*\n((?:\t[^\n]*\n)*)", MAKEFILE, re.M)
    assert found, f"no make target {name!r}"
    return found.group(1)


def compose_value(text: str, env: dict[str, str] | None = None) -> str:
    """`text` with compose's ${VAR:-default} / ${VAR-default} filled from `env` or defaults."""

    def fill(found: re.Match[str]) -> str:
        name, colon, default = found.group(1), found.group(2), found.group(3)
        value = (env or {}).get(name)
        if value is None or (colon and value == ""):
            return default
        return value

    return re.sub(r"\$\{(\w+)(:?)-([^}]*)\}", fill, text)


def service_command(name: str, env: dict[str, str] | None = None) -> list[str]:
    return [compose_value(str(word), env) for word in SERVICES[name]["command"]]


def compose_variables() -> set[str]:
    return set(re.findall(r"\$\{(\w+)", (ROOT / "docker-compose.yml").read_text()))


def check_spec(spec: str) -> None:
    """An agent spec whose kind and option names exist (values are not checked here)."""
    name, options = parse_agent_spec(spec)
    info = available_agents().get(name)
    assert info is not None, f"no agent kind {name!r}"
    assert set(options) <= set(info.options), f"{spec}: unknown options"


class Parsed(Exception):
    pass


def benchmark_args(example: str) -> argparse.Namespace:
    """`python -m benchmarks.X ARGS` parsed by that benchmark's parser; nothing runs."""
    words = shlex.split(example)
    module = importlib.import_module(words[2])
    parse = argparse.ArgumentParser.parse_args

    def stop(self: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> None:
        raise Parsed(parse(self, *args, **kwargs))

    with (
        mock.patch.object(argparse.ArgumentParser, "parse_args", stop),
        mock.patch.object(sys, "argv", [words[2], *words[3:]]),
        pytest.raises(Parsed) as parsed,
    ):
        try:
            module.main(words[3:])
        except TypeError:  # a main() that reads sys.argv itself
            module.main()
    namespace = parsed.value.args[0]
    assert isinstance(namespace, argparse.Namespace)
    return namespace


def docker_run(example: str) -> None:
    """`docker run [-e VAR=...] IMAGE [ARGS]`: known variables; ARGS (else CMD) parse."""
    words = shlex.split(substitute(example, SERVER="127.0.0.1", HOST="127.0.0.1"))
    rest, variables = words[2:], []
    while rest[0].startswith("-"):
        option = rest.pop(0)
        if option in ("-e", "-p", "-v", "--restart"):
            value = rest.pop(0)
            if option == "-e":
                variables.append(value.partition("=")[0])
                if value.startswith("ARENA_AGENT="):
                    check_spec(value.partition("=")[2])
            if option == "-v":
                assert value.endswith(":/data") and 'VOLUME ["/data"]' in DOCKERFILE
            if option == "-p":
                assert value == "4242:4242" and "EXPOSE 4242" in DOCKERFILE
    configuration = (ROOT / "docs" / "CLI.md").read_text().split("## Configuration", 1)[1]
    assert all(f"`{name}`" in configuration for name in variables), variables
    image, *command = rest
    assert image.startswith(("mcts-arena", "REGISTRY/mcts-arena"))
    cmd = re.search(r"^CMD (\[.*\])$", DOCKERFILE, re.M)
    assert cmd and re.search(r'^ENTRYPOINT \["arena"\]$', DOCKERFILE, re.M)
    parses(command or yaml.safe_load(cmd.group(1)))


def compose(example: str) -> None:
    """`[VAR=...] docker compose ...`: the services, profiles, paths and variables exist."""
    words = shlex.split(example.split("|")[0])
    env = dict(word.split("=", 1) for word in words if re.match(r"[A-Z_]+=", word))
    words = [w for w in words if not re.match(r"[A-Z_]+=", w)][2:]
    assert set(env) <= compose_variables(), env
    if words[0] == "--profile":
        assert any(words[1] in s.get("profiles", ()) for s in SERVICES.values()), words[1]
        words = words[2:]
    positional = [w for i, w in enumerate(words[1:]) if not w.startswith("-")]
    positional = [w for w in positional if w not in ("-", ".")]
    scaled = [words[i + 1].split("=")[0] for i, w in enumerate(words) if w == "--scale"]
    if words[0] == "cp":
        named = [positional[0].split(":")[0]]
    elif words[0] == "up":
        named = [w for w in positional if "=" not in w]
    else:
        named = positional[:1]
    assert all(name in SERVICES for name in [*named, *scaled]), (named, scaled)
    if "exec" in words and "arena" in words:
        parses(words[words.index("arena") + 1 :])
    if words[:3] == ["run", "--rm", "--no-deps"]:
        assert words[3] == "tournament"
        parses(words[4:])
    if "tournament" in words and words[0] in ("run", "up", "logs"):
        assert "tournament" in SERVICES["tournament"]["profiles"]
        argv = service_command("tournament", env)
        parsed = parses(argv)
        if "TOURNAMENT_GAMES_PER_PAIR" in env:
            assert parsed.games_per_pair == int(env["TOURNAMENT_GAMES_PER_PAIR"])
        assert {"/data/results.json", "/data/results.csv"} <= set(parsed.out)
    for path in re.findall(r"/data/[\w.]+", example):
        assert path in service_command("tournament"), path
        assert all("arena-data:/data" in SERVICES[s]["volumes"] for s in ("server", "tournament"))
    if "ARENA_AGENT" in env:
        check_spec(env["ARENA_AGENT"])
    if "ARENA_POOL" in env:  # `${ARENA_POOL-arena}`: set empty, the players seek open games
        assert compose_value(SERVICES["player"]["environment"]["ARENA_POOL"], env) == ""
    event = re.search(r'\.event == "(\w+)"', example)
    if event:  # the jq filter selects an event the code logs
        sources = "".join(p.read_text() for p in ROOT.glob("[ps]*/**/*.py"))
        assert f'"{event.group(1)}"' in sources


def make(example: str) -> None:
    name = example.split()[1]
    recipe = target(name)
    expected = {
        "demo": "$(BIN)/arena demo",
        "test": "",
        "install": "",
        "chromium": "apt-get install -y -qq chromium",
        "test-slow": "pytest -q -m slow",
        "bench": "python -m benchmarks.",
    }[name]
    assert expected in recipe
    if name == "test":
        assert re.search(r"^test: lint test-fast$", MAKEFILE, re.M)
        assert "ruff check" in target("lint") and "$(BIN)/mypy" in target("lint")
    if name == "install":
        assert re.search(r"^install: \$\(STAMP\)$", MAKEFILE, re.M)
    for module in re.findall(r"python -m (benchmarks\.\w+)", recipe):
        assert (ROOT / (module.replace(".", "/") + ".py")).is_file()


def benchmark(example: str) -> None:
    args = benchmark_args(example)
    for spec in (getattr(args, "spec_a", None), getattr(args, "spec_b", None)):
        if spec == "openspiel":  # the optional 'reference' extra: registered, maybe absent
            assert "openspiel" in (ROOT / "pyproject.toml").read_text()
        elif spec is not None:
            check_spec(spec)


def compile_engine(example: str) -> None:
    """docs/STRENGTH.md compiles a test engine that exists, with the compiler the tests use."""
    source = shlex.split(example)[-1]
    assert (ROOT / source).is_file()
    assert source in (ROOT / "tests" / "engines" / "programs.py").read_text().replace('" / "', "/")


def ssh(example: str) -> None:
    """The tunnel forwards the server's default port."""
    assert "-L 4242:localhost:4242" in example
    assert "[$ARENA_PORT, 4242]" in " ".join(serve_help().split())


def activate(example: str) -> None:
    assert re.search(r"^VENV := \.venv$", MAKEFILE, re.M)
    assert "-m venv $(VENV)" in target("$(RUNTIME)")  # a venv has bin/activate


def synopsis(example: str) -> None:
    parses([w for w in shlex.split(example)[1:] if w != "..."])


def build(example: str) -> None:
    """The context (.) has the Dockerfile and its allowlist; the image runs `arena`
    (tests/deploy lints the Dockerfile with hadolint)."""
    assert example.split(" && ")[0].endswith(" .")
    assert (ROOT / ".dockerignore").is_file()
    assert re.search(r'^ENTRYPOINT \["arena"\]$', DOCKERFILE, re.M)


def scale(example: str) -> None:
    assert "player" in SERVICES and "volumes" not in SERVICES["player"]


CHECKS: dict[str, Callable[[str], None]] = {
    **dict.fromkeys(
        ("make demo", "make test", "make install", "make chromium", "make test-slow"), make
    ),
    "make bench": make,
    ". .venv/bin/activate": activate,
    **dict.fromkeys(
        (
            "python -m benchmarks.strength --game connect4 --time 0.2 --games 200",
            'python -m benchmarks.strength "mcts:workers=2" mcts --game ultimate --time 0.2'
            ' --games 200 --seed 4100 --cores ""',
            "python -m benchmarks.startup",
            "python -m benchmarks.hostile",
            "python -m benchmarks.server",
            "python -m benchmarks.server --postgres --matches 100",
            "python -m benchmarks.nodes",
            "python -m benchmarks.ladder --minutes 10 --baseline-minutes 1",
            "python -m benchmarks.ladder",
            "python -m benchmarks.strength mcts:time=0.2"
            " 'engine:cmd=./pattern_gomoku,args=--seed 7,protocol=gomocup'"
            " --game gomoku --games 100 --time 0.2 --seed 1 --cores 1,1",
            "python -m benchmarks.connect4_accuracy --seed 1 --positions 200 --time 0.2",
            "python -m benchmarks.strength mcts openspiel --game connect4 --time 0.2 --games 100"
            " --seed 7100 --cores 0,0",
            "python -m benchmarks.strength mcts openspiel --game ultimate --time 0.2 --games 60"
            " --seed 31 --cores 1,1",
            "python -m benchmarks.think_times FILE.sqlite",
            "python -m benchmarks.go_speed --seconds 8",
            "python -m benchmarks.go_patterns",
            "python -m benchmarks.strength mcts:time=0.5 mcts:time=0.5,rave=0 --game go"
            " --games 8 --time 0.5 --seed 777",
            "python -m benchmarks.strength mcts:time=0.5 mcts:time=0.5,rollout=random"
            " --game go --games 40 --time 0.5 --seed 4101",
            "python -m benchmarks.strength mcts:time=1 'engine:cmd=gnugo,args=--mode gtp"
            " --level 10 --chinese-rules --capture-all-dead --positional-superko,protocol=gtp'"
            " --game go --games 30 --time 1 --seed 4102",
            "python -m benchmarks.strength mcts:time=1 'engine:cmd=gnugo,args=--mode gtp"
            " --level 10 --chinese-rules --capture-all-dead --positional-superko,protocol=gtp'"
            " --game go --games 6 --time 1",
            "python -m benchmarks.strength mcts:time=1 'engine:cmd=gnugo,args=--mode gtp"
            " --level 10 --chinese-rules --capture-all-dead --positional-superko,protocol=gtp'"
            " --game go --games 100 --time 1 --lag-margin 1 --seed 5301",
            "python -m benchmarks.strength mcts:time=1 'engine:cmd=gnugo,args=--mode gtp"
            " --level 10 --chinese-rules --capture-all-dead --positional-superko,protocol=gtp'"
            " --game go --options size=9,komi=7 --games 50 --time 1 --lag-margin 1 --seed 5401"
            " --cores 1,1",
            "python -m benchmarks.strength mcts:time=1 openspiel:time=1 --game go"
            " --options size=9,komi=7 --games 60 --time 1 --lag-margin 1 --seed 41090"
            " --cores 0,0",
            "python -m benchmarks.strength mcts:time=1 'engine:cmd=gnugo,args=--mode gtp"
            " --level 10 --chinese-rules --capture-all-dead --positional-superko,protocol=gtp'"
            " --game go --options size=13,komi=7.5 --games 40 --time 1 --lag-margin 1"
            " --seed 5502 --cores 1,1",
            'python -m benchmarks.strength "mcts:workers=2" mcts --game go'
            " --options size=9,komi=7 --time 0.2 --games 200 --lag-margin 0.5 --seed 4190"
            ' --cores ""',
            "python -m benchmarks.threads --separate --seconds 1 --repeat 5",
            "python -m benchmarks.strength mcts:time=0.1"
            ' "engine:cmd=python,args=benchmarks/leftmost_engine.py,protocol=text"'
            ' --game connect4 --time 0.1 --games 100 --cores ""',
        ),
        benchmark,
    ),
    "cc -O2 -o pattern_gomoku tests/engines/pattern_gomoku.c": compile_engine,
    "ssh -N -L 4242:localhost:4242 SERVER": ssh,
    **dict.fromkeys(
        (
            "arena play GAME AGENT",
            "arena watch MATCH",
            "arena backup DEST",
            "arena tournament GAME --player SPEC ...",
            "arena show MATCH",
            "arena export OUT",
            "arena import FILE ...",
            "arena tournament --server server:4242 --remote mcts --remote baseline",
            # docs/LADDER.md: a GTP bot joining the Go ladder (gtp... stands for its spec;
            # the ladder's own examples run in test_ladder_examples.py) and a TLS player
            "arena play go gtp... -o size=9 --ladder go9",
            "arena play --tls",
            # docs/STRENGTH.md's 100-game series against gtp-rhino (a short one runs in
            # test_engines_cmd.py::test_the_readme_tournament_against_gtp_rhino)
            "arena tournament reversi -p mcts:time=0.2"
            " -p 'engine:cmd=gtp-rhino,args=-l 3,protocol=gtp' --games-per-pair 100"
            " --random-openings 4 --move-time 5 --seed 1 --db l3.sqlite",
            "arena tournament reversi -p mcts:time=1"
            " -p 'engine:cmd=gtp-rhino,args=-l 5 -m 8 -e 14 -w 16,protocol=gtp'"
            " --games-per-pair 100 --random-openings 4 --move-time 60 --max-failures 1000"
            " --seed 1 --db l5.sqlite",
            # 100 games of connect four at 0.2 s: the tournament runs for real (shorter)
            # in tests/arena_cli and tests/tournament
            "arena tournament connect4 -p mcts:workers=2 -p mcts --move-time 0.2"
            " --games-per-pair 100 --random-openings 4 --seed 4242",
            # docs/STRENGTH.md's Go self-play: exploration and the ablation
            "arena tournament go -o size=9 -o komi=7 -p base=mcts:iterations=5000,c=1.4"
            " -p c03=mcts:iterations=5000,c=0.3 -p c01=mcts:iterations=5000,c=0.1"
            " -p c06=mcts:iterations=5000,c=0.6 --gauntlet --games-per-pair 16"
            " --random-openings 2 --move-time 30 --seed 41001",
            "arena tournament go -o size=9 -o komi=7 -p default=mcts:time=0.5"
            " -p no-rave=mcts:time=0.5,rave=0 -p no-prior=mcts:time=0.5,prior=false"
            " -p light=mcts:time=0.5,rollout=random -p c1.4=mcts:time=0.5,c=1.4 --gauntlet"
            " --games-per-pair 20 --random-openings 2 --move-time 0.5 --seed 41003",
            # ladders (go_ladders), at fixed simulations and at a fixed time
            "arena tournament go -o size=9 -o komi=7"
            " -p base=mcts:iterations=5000,time=none,go_ladders=false"
            " -p new=mcts:iterations=5000,time=none --gauntlet --games-per-pair 20"
            " --random-openings 2 --move-time 30 --concurrency 1 --seed 4141",
            "arena tournament go -o size=9 -o komi=7 -p base=mcts:time=0.5,go_ladders=false"
            " -p new=mcts:time=0.5 --gauntlet --games-per-pair 20 --random-openings 2"
            " --move-time 2 --concurrency 1 --seed 4142",
        ),
        synopsis,
    ),
    "docker service scale arena_player=16": scale,
    "kubectl scale deployment player --replicas=16": scale,
    "docker build -t mcts-arena .": build,
    "docker build -t REGISTRY/mcts-arena:TAG . && docker push ...": build,
}
DOCKER_RUN = [example for example in doc_examples() if example.startswith("docker run ")]
CHECKS.update(dict.fromkeys(DOCKER_RUN, docker_run))
CHECKS.update(
    {
        example: compose
        for example in doc_examples()
        if re.match(r"(?:[A-Z_]+=\S*\s+)*docker compose ", example)
    }
)
SCENARIOS = dict.fromkeys(CHECKS, "test_weak_check")


@pytest.mark.parametrize("example", sorted(CHECKS))
def test_weak_check(example: str) -> None:
    CHECKS[example](example)


def test_compose_tournament_is_the_documented_synopsis() -> None:
    argv = service_command("tournament")
    line = "arena tournament --server server:4242 --remote mcts --remote baseline"
    assert all(word in argv for word in line.split()[1:])


@pytest.mark.parametrize(
    "example", sorted(e for e in {*doc_examples(), *help_examples()} if "arena " in e)
)
def test_every_arena_example_parses(example: str) -> None:
    """The part from ``arena`` on, placeholders filled (``$(...)``: a word)."""
    words = shlex.split(re.sub(r"\$\([^)]*\)", "2025-01-01", example.split("|")[0]))
    words = words[words.index("arena") + 1 :] if "arena" in words else []
    words = [substitute(w, SERVER="127.0.0.1", HOST="127.0.0.1", ID="m1") for w in words]
    words = [w for w in words if w != "..."]
    if words in (["--help"], ["--version"]):
        with pytest.raises(SystemExit) as done:
            build_parser().parse_args(words)
        assert done.value.code == 0
    elif words:
        parses(words)


def test_the_compose_files_arena_lines_parse() -> None:
    for name in SERVICES:
        parses(service_command(name))
    health = SERVICES["server"]["healthcheck"]["test"]
    assert health[:2] == ["CMD", "arena"]
    parses(health[2:])
    for line in re.findall(r"^#\s+docker run .*$", DOCKERFILE, re.M):
        docker_run(line.lstrip("# "))
