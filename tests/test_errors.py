"""Each package's errors live in its `errors` module, under one base class a caller can catch.

Imports every module of the project's packages and checks every exception class
defined there: it must be defined in ``<package>/errors.py`` and derive from
that package's base. Private classes (a leading underscore) are exempt: they
are control flow that never leaves its module (`_OutOfTime`, `_Spent`, ...),
so no caller could catch them by name anyway.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

#: package -> the base class of its errors, in `<package>.errors`
BASES = {
    "arena_cli": "CliError",
    "games": "GameError",
    "player": "PlayerError",
    "protocol": "WireError",
    "records": "RecordError",
    "server": "ServerError",
    "store": "StoreError",
    "tournament": "TournamentError",
}


def exception_classes(package: str) -> dict[str, type[BaseException]]:
    """Every exception class defined in `package` (its modules imported), by qualified name."""
    root = importlib.import_module(package)
    names = [package, *(m.name for m in pkgutil.walk_packages(root.__path__, package + "."))]
    found: dict[str, type[BaseException]] = {}
    for name in names:
        module = importlib.import_module(name)
        for obj in vars(module).values():
            if (
                inspect.isclass(obj)
                and issubclass(obj, BaseException)
                and obj.__module__.partition(".")[0] == package
            ):
                found[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return found


@pytest.mark.parametrize("package", sorted(BASES))
def test_every_error_lives_in_the_errors_module_under_the_base(package: str) -> None:
    base = getattr(importlib.import_module(f"{package}.errors"), BASES[package])
    classes = exception_classes(package)
    public = {name: cls for name, cls in classes.items() if not cls.__name__.startswith("_")}
    assert base in public.values()
    misplaced = [name for name, cls in public.items() if cls.__module__ != f"{package}.errors"]
    assert misplaced == [], f"move these into {package}/errors.py"
    strays = [name for name, cls in public.items() if not issubclass(cls, base)]
    assert strays == [], f"derive these from {package}.errors.{BASES[package]}"
