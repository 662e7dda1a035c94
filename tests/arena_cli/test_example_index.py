"""Every example of the user documents and of the `--help` texts has a test that runs it.

The examples are read from the README, the reference in docs/ (examples.py's
`DOCUMENTS`) and the parser's help;
each test module below lists its examples in ``SCENARIOS`` (example -> test).
A new example without a scenario, or a scenario whose example is gone or
whose test does not exist, fails here.
"""

from __future__ import annotations

import importlib
from types import ModuleType

import pytest

from tests.arena_cli.cli import ROOT
from tests.arena_cli.examples import MENTIONS, doc_examples, documents_text, help_examples

MODULES = (
    "test_readme",  # quick start, play over the network
    "test_readme_sections",  # games, commands, records, web app, export/import, make demo
    "test_readme_network",  # TLS, accounts, a spectator from anywhere
    "test_tournament_examples",  # `arena tournament` (README and --help)
    "test_help_examples",  # `arena --help`, `play --help`, `matches --help`
    "test_readme_offline",  # weaker checks: docker, make, benchmarks, synopses
    "test_engines_cmd",  # external engines: README and `arena engines --help`
    "test_accounts_cmd",  # `arena accounts --help`
    "test_serve_cmd",  # many players from one host: the connection limits
    "test_ladder_examples",  # docs/LADDER.md: ladders, residents, a bot joining, curl | jq
)


def modules() -> list[ModuleType]:
    return [importlib.import_module(f"tests.arena_cli.{name}") for name in MODULES]


def scenarios() -> dict[str, list[str]]:
    """example -> the tests that run it (module:test)."""
    found: dict[str, list[str]] = {}
    for module in modules():
        for example, test in module.SCENARIOS.items():
            found.setdefault(example, []).append(f"{module.__name__}:{test}")
    return found


def test_every_document_example_has_a_scenario() -> None:
    shown = doc_examples()
    missing = sorted(f"{shown[example]}: {example}" for example in set(shown) - set(scenarios()))
    assert not missing, f"examples of the docs without a test: {missing}"


def test_every_help_example_has_a_scenario() -> None:
    missing = sorted(set(help_examples()) - set(scenarios()))
    assert not missing, f"--help examples without a test: {missing}"


def test_no_scenario_for_an_example_that_is_gone() -> None:
    shown = {*doc_examples(), *help_examples()}
    assert not sorted(set(scenarios()) - shown)


@pytest.mark.parametrize("module", modules(), ids=MODULES)
def test_every_scenario_names_a_test(module: ModuleType) -> None:
    for example, test in module.SCENARIOS.items():
        if "::" in test:  # a test elsewhere that runs the same command line
            path, name = test.split("::")
            assert f"def {name}(" in (ROOT / path).read_text(), (example, test)
        else:
            assert callable(getattr(module, test, None)), (example, test)
            assert test.startswith("test_"), test


def test_mentions_are_still_mentioned() -> None:
    """The inline code spans taken as command names, not examples, are in the documents."""
    text = " ".join(documents_text().split())
    assert all(f"`{mention}`" in text for mention in MENTIONS)


def test_the_collector_reads_blocks_continuations_and_inline_code() -> None:
    text = (
        "# T\n\nRun `arena games` or `arena play`.\n\n## S\n\n```sh\n"
        "arena tournament x -p a \\\n    -p b   # two\nmake demo   # the demo\n```\n\n"
        "```\nnot a shell block\n```\n| `make bench` | table |\n"
    )
    assert doc_examples(text) == {
        "arena games": "# T",
        "arena tournament x -p a -p b": "## S",
        "make demo": "## S",
        "make bench": "## S",
    }
    assert help_examples()["arena matches --limit 10"] == "arena matches"
