"""Engine specs and engines files: found programs, one-line errors naming the key."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from player.engines.agent import EngineAgent
from player.engines.config import ENGINES_ENV, build_config, find_program
from player.spec import check_agent_spec, make_agent, parse_agent_spec


@pytest.fixture
def program(tmp_path: Path) -> Path:
    path = tmp_path / "bin" / "my-engine"
    path.parent.mkdir()
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_a_name_is_found_on_path_then_in_the_games_directories(
    monkeypatch: pytest.MonkeyPatch, program: Path, tmp_path: Path
) -> None:
    monkeypatch.setenv("PATH", str(program.parent))
    assert find_program("my-engine", tmp_path) == str(program)
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.setattr("player.engines.config.GAMES_DIRS", (str(program.parent),))
    assert find_program("my-engine", tmp_path) == str(program)


def test_a_path_is_relative_to_the_base_and_must_be_executable(program: Path) -> None:
    assert find_program("./bin/my-engine", program.parent.parent) == str(program)
    program.chmod(0o644)
    with pytest.raises(ValueError, match="is not executable"):
        find_program("./bin/my-engine", program.parent.parent)
    with pytest.raises(ValueError, match=r"engine cmd './nope': no such file"):
        find_program("./nope", program.parent)


def test_an_unknown_program_says_where_it_was_looked_for(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(ValueError) as caught:
        make_agent("engine:cmd=no-such-engine-here")
    message = str(caught.value)
    assert "\n" not in message
    assert (
        "'no-such-engine-here' was not found on PATH nor in /usr/local/games, /usr/games" in message
    )


def test_spec_options_are_checked_with_their_valid_values(program: Path) -> None:
    with pytest.raises(
        ValueError, match=r"option 'protocol' must be one of text, gtp, gomocup, not 'uci'"
    ):
        check_agent_spec(f"engine:cmd={program},protocol=uci")
    with pytest.raises(
        ValueError,
        match=r"unknown option 'level' for agent 'engine' \(valid options: entry=none, cmd=none",
    ):
        check_agent_spec(f"engine:cmd={program},level=3")
    with pytest.raises(ValueError, match="cmd is missing"):
        check_agent_spec("engine:protocol=gtp")
    with pytest.raises(ValueError, match="workdir '/nonexistent/dir' is not a directory"):
        check_agent_spec(f"engine:cmd={program},workdir=/nonexistent/dir")


def test_a_spec_builds_its_configuration(program: Path, tmp_path: Path) -> None:
    agent = make_agent(
        f"engine:cmd={program},args=-l 5 -m '8',protocol=gtp,name=rhino5,workdir={tmp_path},"
        "init=a b;c d,margin=0.1,restart=always"
    )
    assert isinstance(agent, EngineAgent)
    config = agent.config
    assert config.argv == [str(program), "-l", "5", "-m", "8"]
    assert (config.protocol, config.name, config.workdir) == ("gtp", "rhino5", str(tmp_path))
    assert config.init == ("a b", "c d")
    assert (config.margin, config.restart, config.start_timeout) == (0.1, "always", 10.0)
    agent.close()  # nothing was started


def write_file(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_an_engines_file_entry_by_name_with_spec_overrides(
    monkeypatch: pytest.MonkeyPatch, program: Path, tmp_path: Path
) -> None:
    engines = write_file(
        tmp_path / "engines.toml",
        '[engines.mine]\ncmd = "./bin/my-engine"\nargs = ["-l", "5"]\nprotocol = "gomocup"\n'
        'init = ["x 1", "y 2"]\n',
    )
    monkeypatch.setenv(ENGINES_ENV, str(engines))
    monkeypatch.chdir("/")
    assert parse_agent_spec("engine:mine") == ("engine", {"entry": "mine"})
    config = build_config({"entry": "mine"})
    assert config.program == str(program)  # relative to the file's directory
    assert config.args == ("-l", "5") and config.protocol == "gomocup"
    assert config.init == ("x 1", "y 2")
    overridden = make_agent("engine:mine,args=-l 3,protocol=text")
    assert isinstance(overridden, EngineAgent)
    assert overridden.config.args == ("-l", "3") and overridden.config.protocol == "text"
    with pytest.raises(ValueError, match=r"has no engine 'yours' \(it has: mine\)"):
        make_agent("engine:yours")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[engines.a]\ncmd = 3\n", r"cmd must be a non-empty string, not 3"),
        (
            "[engines.a]\ncmd = 'x'\nlevel = 3\n",
            r"\[engines.a\] has an unknown key 'level' \(valid keys: cmd, args",
        ),
        (
            "[engines.a]\ncmd = 'x'\nprotocol = 'uci'\n",
            r"protocol must be one of text, gtp, gomocup, not 'uci'",
        ),
        ("[engines.a\ncmd = 'x'\n", r"is not valid TOML"),
        ("[players.a]\ncmd = 'x'\n", r"unknown table 'players' \(expected \[engines.NAME\]\)"),
        ("[engines.a]\ncmd = 'x'\nargs = [1]\n", r"args must be a string or a list of strings"),
        ("[engines.a]\ncmd = 'x'\nmargin = 'big'\n", r"margin must be a number of seconds"),
    ],
)
def test_a_bad_engines_file_is_one_line_naming_the_file_and_key(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, text: str, message: str
) -> None:
    engines = write_file(tmp_path / "engines.toml", text)
    monkeypatch.setenv(ENGINES_ENV, str(engines))
    with pytest.raises(ValueError, match=message) as caught:
        check_agent_spec("engine:a")
    assert "\n" not in str(caught.value)
    assert str(engines) in str(caught.value) or "engines file" in str(caught.value)


def test_an_entry_without_any_engines_file(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv(ENGINES_ENV, raising=False)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match="there is no engines file"):
        check_agent_spec("engine:rhino")
    (tmp_path / "engines.toml").write_text('[engines.rhino]\ncmd = "/bin/true"\n')
    info, values = check_agent_spec("engine:rhino")  # ./engines.toml by default
    assert info.name == "engine" and values["entry"] == "rhino"
    assert os.path.basename(build_config(values).program) == "true"
