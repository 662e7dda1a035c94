"""The import graph of the project (tests excluded): no circles, no arrow pointing up.

The layers (docs/ARCHITECTURE.md), bottom first; a package imports only
packages of lower layers (and itself):

0. `games` (rules), `protocol` (wire format and the one protocol client)
1. `store` (the database: every SQL statement, the schema and its migrations)
2. `records` (game records: export, import, SGF), `tournament` (formats,
   statistics, the director as a protocol client)
3. `server`, `player` (beside each other: they meet only on the wire)
4. `arena_cli` (the one command)
5. `benchmarks` (they may use the CLI's helpers)

`KNOWN` lists what still breaks this (the database still lives in
`store`, so `records` and `tournament` reach up into it; a
connection still carries its lobby membership, typed with `Match`). The
test fails on anything new, and on a known entry that is gone (so the list
only shrinks).
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LAYERS = {
    "games": 0,
    "protocol": 0,
    "store": 1,
    "records": 2,
    "tournament": 2,
    "server": 3,
    "player": 3,
    "arena_cli": 4,
    "benchmarks": 5,
}
#: the arrows and circles that remain (none: keep it so)
KNOWN: set[str] = set()


def modules() -> dict[str, Path]:
    found = {}
    for package in LAYERS:
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


def imports(found: dict[str, Path]) -> dict[str, set[str]]:
    """module -> the project modules it imports (anywhere in it, TYPE_CHECKING too)."""

    def resolve(name: str) -> str | None:
        while name and name not in found:
            name = name.rpartition(".")[0]
        return name or None

    edges: dict[str, set[str]] = defaultdict(set)
    for name, path in found.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text())):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                    base = f"{anchor}.{base}" if base else anchor
                targets = [f"{base}.{alias.name}" for alias in node.names] or [base]
            for target in targets:
                resolved = resolve(target)
                if resolved is not None and resolved != name:
                    edges[name].add(resolved)
    return edges


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(edges.get(node, ())):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def violations() -> set[str]:
    edges = imports(modules())
    found = {f"circle: {', '.join(component)}" for component in circles(edges)}
    for source, targets in edges.items():
        for target in targets:
            up, down = source.split(".")[0], target.split(".")[0]
            if up != down and LAYERS[down] >= LAYERS[up]:
                found.add(f"{up} -> {down}")
    return found


def test_no_circle_and_no_upward_import_but_the_known_ones() -> None:
    assert violations() == KNOWN


def test_the_checker_sees_a_circle_and_an_upward_arrow() -> None:
    edges = {"a.x": {"a.y"}, "a.y": {"a.z"}, "a.z": {"a.x"}, "b.q": {"a.x"}}
    assert circles(edges) == [["a.x", "a.y", "a.z"]]
    assert circles({"a.x": {"a.y"}}) == []


#: `sqlite3`, or an SQL statement (our SQL is written in capitals)
SQL = re.compile(
    r"\b(?:import sqlite3|from sqlite3|SELECT\s.+\sFROM|INSERT\s+(?:OR\s+\w+\s+)?INTO"
    r"|UPDATE\s+\w+\s+SET|DELETE\s+FROM|CREATE\s+TABLE|ALTER\s+TABLE)\b"
)


def test_every_sql_statement_lives_in_the_store_package() -> None:
    found = []
    for name, path in modules().items():
        if name == "store" or name.startswith("store."):
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if SQL.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not found, "SQL outside store/:\n" + "\n".join(found)


def test_the_sql_check_sees_a_statement() -> None:
    assert SQL.search('db.execute("SELECT id FROM matches WHERE x")')
    assert SQL.search("import sqlite3")
    assert not SQL.search("select a move from the legal moves")
