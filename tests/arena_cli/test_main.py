"""The `arena` dispatcher."""

from __future__ import annotations

import pytest

from arena_cli.main import build_parser, main


def test_global_flags_work_before_and_after_the_command() -> None:
    parser = build_parser()
    before = parser.parse_args(["--log-level", "debug", "games"])
    after = parser.parse_args(["games", "--log-level", "debug", "--log-format", "json"])
    neither = parser.parse_args(["games"])
    assert before.log_level == after.log_level == "debug"
    assert after.log_format == "json"
    assert neither.log_level is None and neither.log_format is None


def test_bad_log_level_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["games", "--log-level", "loud"])
    assert info.value.code == 2
    assert "log level must be one of" in capsys.readouterr().err


def test_no_command_prints_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert "tournament" in capsys.readouterr().out


def test_version_and_lazy_start_up() -> None:
    import subprocess
    import sys

    code = (
        "import sys; from arena_cli.main import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "heavy = [m for m in ('trio', 'structlog', 'rich', 'games', 'server.app') if m in sys.modules]\n"
        "print('heavy:', heavy)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "heavy: []" in done.stdout  # `arena --help` imports no command module
    version = subprocess.run(
        [sys.executable, "-m", "arena_cli.main", "--version"], capture_output=True, text=True
    )
    assert version.returncode == 0 and version.stdout.startswith("arena (mcts-arena) ")


def test_every_command_is_listed_with_the_help_its_module_gives() -> None:
    from arena_cli.main import COMMANDS

    full = build_parser()
    actions = [a for a in full._actions if a.dest == "command"]
    helps = {c.dest: c.help for c in actions[0]._choices_actions}  # type: ignore[attr-defined]
    assert helps == {name: text for name, (_, text) in COMMANDS.items()}
