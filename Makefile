# Every target creates (or reuses) the local virtualenv .venv and installs the
# project into it, so a fresh machine needs nothing but python3.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
RUNTIME := $(VENV)/.runtime
STAMP := $(VENV)/.installed

.PHONY: all install chromium engines postgres demo test lint test-fast test-slow bench clean

all: test

# What the demo runs: the runtime dependencies only (no developer tools).
$(RUNTIME): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e .
	touch $(RUNTIME)

# Everything else the tests and linters use (pytest, ruff, mypy, playwright, ...).
$(STAMP): $(RUNTIME)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

# Debian's Chromium for the browser tests (tests/web); they skip without it.
# Playwright drives this system browser: it never downloads one.
chromium:
	@command -v chromium >/dev/null 2>&1 || { \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium >/dev/null; }
	@chromium --version

# Debian's grhino and gnugo for the engine tests (tests/player/engines, tests/games/test_go.py):
# gtp-rhino, an Othello program over GTP, and GNU Go, installed in /usr/games (the engine
# kind looks there after PATH). Without them those tests skip locally; CI runs them. The
# tests' own small engines are C programs they compile with the system compiler (cc).
engines:
	@test -x /usr/games/gtp-rhino || command -v gtp-rhino >/dev/null 2>&1 || { \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq grhino >/dev/null; }
	@test -x /usr/games/gnugo || command -v gnugo >/dev/null 2>&1 || { \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq gnugo >/dev/null; }
	@command -v cc >/dev/null 2>&1 || { echo "make engines: no C compiler (cc): apt-get install gcc" >&2; exit 1; }
	@echo "gtp-rhino: $$(command -v gtp-rhino || echo /usr/games/gtp-rhino); gnugo: $$(command -v gnugo || echo /usr/games/gnugo); cc: $$(command -v cc)"

# Debian's PostgreSQL server for the PostgreSQL backend's tests (tests/postgres.py starts
# its own cluster in a temporary directory, as an unprivileged user). Without it those
# tests skip locally; CI runs them.
postgres:
	@ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null 2>&1 || { \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq postgresql >/dev/null; }
	@echo "PostgreSQL: $$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | tail -1)"

demo: $(RUNTIME)
	$(BIN)/arena demo

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

test-fast: $(STAMP)
	$(BIN)/pytest -q

test: lint test-fast

test-slow: $(STAMP)
	$(BIN)/pytest -q -m slow

bench: $(STAMP)
	$(BIN)/python -m benchmarks.playouts
	$(BIN)/python -m benchmarks.go_speed
	$(BIN)/python -m benchmarks.mcts
	$(BIN)/python -m benchmarks.server
	$(BIN)/python -m benchmarks.hostile
	$(BIN)/python -m benchmarks.tournament
	$(BIN)/python -m benchmarks.web

clean:
	rm -rf $(VENV) build *.egg-info
