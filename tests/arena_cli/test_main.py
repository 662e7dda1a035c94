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
