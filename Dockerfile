# MCTS Arena: one image for every role. The entry point is `arena`, so the
# command picks the role: `serve` (the default), `play`, `tournament`, `ping`...
# Every setting comes from ARENA_* environment variables (see docs/CLI.md).
#
#   docker build -t mcts-arena .
#   docker run --rm -p 4242:4242 -v arena-data:/data mcts-arena
#
# Build stage: install the project and its dependencies into a virtualenv.
FROM python:3.12-slim-bookworm AS build

ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    PYTHONDONTWRITEBYTECODE=1

# The build context is an allowlist (.dockerignore): pyproject, README, the packages.
WORKDIR /src
COPY . .
RUN python -m venv /opt/arena \
    && /opt/arena/bin/pip install --no-cache-dir . \
    && /opt/arena/bin/arena games > /dev/null

# Runtime stage: the virtualenv only, run by an unprivileged user.
FROM python:3.12-slim-bookworm

ENV PATH=/opt/arena/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    ARENA_DB=/data/arena.sqlite

RUN groupadd --system --gid 10001 arena \
    && useradd --system --uid 10001 --gid arena --home-dir /home/arena --create-home \
        --shell /usr/sbin/nologin arena \
    && mkdir /data \
    && chown arena:arena /data

COPY --from=build /opt/arena /opt/arena

# Compile the MCTS kernels now (numba, about 20 s) into the arena user's own
# cache, so a player container starts in about a second; on a host with
# another CPU numba compiles again once, into the same writable cache.
ENV NUMBA_CACHE_DIR=/home/arena/.cache/mcts-arena
RUN python -c "from player.mcts.fast import warm_up; assert warm_up()" \
    && chown -R arena:arena /home/arena/.cache

USER 10001:10001
WORKDIR /data
VOLUME ["/data"]
EXPOSE 4242

ENTRYPOINT ["arena"]
CMD ["serve", "--host", "0.0.0.0"]
