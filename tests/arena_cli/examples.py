"""The examples users are shown, collected from the user documents and the `--help` texts.

The user documents are the README and the reference in docs/ that shows
commands (`DOCUMENTS`); the dated lab notes of docs/notes/ are history, not
instructions, and are not collected.

Tests run them *as written*, after replacing these placeholders (and nothing else):

* ``SERVER`` / ``HOST``: 127.0.0.1 (the server runs on this machine);
* ``ID`` / ``MATCH`` / ``MATCH_ID``: an id from the database the example reads;
  ``NAME`` / ``PASSWORD``: a player name / a password;
* the ports ``4242`` and ``8080``: free ports (two test runs must not collide);
  an example without a port reaches the test's server through $ARENA_PORT;
* files an example names as its input (``book.txt``, ``cert.pem``...) are
  written in the example's working directory (a tmp dir) first.

Every example must appear in exactly one test module's ``SCENARIOS`` table
(test_example_index.py checks it): example -> the test that runs it, a local
test function name or ``tests/...py::test_name`` for a test elsewhere.
"""

from __future__ import annotations

import os
import re
import shlex
import stat
import sys
from pathlib import Path

from tests.arena_cli.cli import ROOT

#: the documents whose command examples are run, relative to the repository's root
DOCUMENTS = (
    "README.md",
    "docs/CLI.md",
    "docs/STORAGE.md",
    "docs/DEPLOYMENT.md",
    "docs/STRENGTH.md",
    "docs/LADDER.md",
)
#: command words the documents' command lines start with (after VAR=value assignments)
_COMMAND = re.compile(r"^(?:[A-Z_]+=\S*\s+)*(?:arena|make|python -m|docker|kubectl|ssh|\.)\s+\S")
#: inline code that names a command in prose, not a command line to run
MENTIONS = frozenset({"arena play", "arena tournament", "arena export", "docker compose run"})


def _strip_comment(line: str) -> str:
    return re.split(r"\s+#\s|\s{3,}", line)[0].strip()


def doc_examples(text: str | None = None) -> dict[str, str]:
    """Every command line of the user documents (or of `text`): example -> where it is shown
    (the document and the heading of its section; the first place for one shown twice).

    Fenced ``sh``/``bash`` blocks give every non-blank line (a trailing ``\\``
    joins the next one; ``# ...`` comments are dropped); prose and tables give
    every inline code span that is a command line (`_COMMAND`) and not one of
    the `MENTIONS`.
    """
    if text is not None:
        return _examples(text, "")
    found: dict[str, str] = {}
    for name in DOCUMENTS:
        for example, heading in _examples((ROOT / name).read_text(), f"{name}: ").items():
            found.setdefault(example, heading)
    return found


def documents_text() -> str:
    """The user documents, one after the other."""
    return "\n".join((ROOT / name).read_text() for name in DOCUMENTS)


def _examples(text: str, where: str) -> dict[str, str]:
    found: dict[str, str] = {}
    heading = "(top)"
    parts = re.split(r"(```\w*\n.*?```)", text, flags=re.S)
    for part in parts:
        if part.startswith("```"):
            lang, _, body = part[3:-3].partition("\n")
            if lang not in ("sh", "bash"):
                continue
            for line in re.sub(r"\s*\\\n\s*", " ", body).splitlines():
                command = " ".join(_strip_comment(line).split())
                if command and not command.startswith("#"):
                    found.setdefault(command, where + heading)
            continue
        for line_heading, chunk in _by_heading(part, heading):
            heading = line_heading
            for span in re.findall(r"`([^`]+)`", chunk):
                command = " ".join(span.split())
                if _COMMAND.match(command) and command not in MENTIONS:
                    found.setdefault(command, where + heading)
    return found


def _by_heading(prose: str, heading: str) -> list[tuple[str, str]]:
    """`prose` cut at its headings: (heading in force, text) pairs, in order."""
    chunks: list[tuple[str, str]] = []
    current: list[str] = []
    for line in prose.splitlines(keepends=True):
        if re.match(r"#{1,3} ", line):
            chunks.append((heading, "".join(current)))
            heading, current = line.strip(), []
        else:
            current.append(line)
    chunks.append((heading, "".join(current)))
    return chunks


def help_texts() -> dict[str, str]:
    """`arena --help` and every `arena COMMAND --help`, as the parser prints them."""
    from arena_cli.main import build_parser

    parser = build_parser()
    texts = {"arena": parser.format_help()}
    sub = next(a for a in parser._actions if a.dest == "command")
    assert isinstance(sub.choices, dict)
    for name, command_parser in sub.choices.items():
        texts[f"arena {name}"] = command_parser.format_help()
    return texts


def help_examples() -> dict[str, str]:
    """Every ``arena ...`` line of the "examples:" parts: example -> whose --help shows it.

    A description follows an example after two spaces or on the next
    (indented) line; a trailing ``\\`` continues the example.
    """
    found: dict[str, str] = {}
    for owner, text in help_texts().items():
        _, _, tail = text.partition("\nexamples:\n")
        for line in re.sub(r"\s*\\\n\s*", " ", tail).splitlines():
            for part in line.split(";"):
                command = " ".join(_strip_comment(part.strip().replace("  ", "   ")).split())
                if command.startswith("arena "):
                    found.setdefault(command, owner)
    return found


def substitute(example: str, **values: str) -> str:
    """`example` with each placeholder word (``SERVER``, ``ID``, ``4242``...) replaced."""
    for word, value in values.items():
        example = re.sub(rf"(?<![\w-]){re.escape(word)}(?![\w-])", value, example)
    return example


def argv(example: str, **values: str) -> list[str]:
    """The arguments after ``arena`` of an ``arena ...`` example, placeholders replaced."""
    words = shlex.split(substitute(example, **values))
    assert words[0] == "arena", example
    return words[1:]


def shim(directory: Path) -> dict[str, str]:
    """An `arena` executable in `directory` running this checkout; the environment to
    run shell examples with it first on PATH."""
    directory.mkdir(parents=True, exist_ok=True)
    script = directory / "arena"
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m arena_cli.main "$@"\n')
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return {"PATH": f"{directory}{os.pathsep}{os.environ.get('PATH', '')}"}
