# The bot in a container: `python -m bot`, one process per container. Give it a Redis with REDIS_URL (compose.yaml
# runs two shard processes on one Redis: README.md, "Past one machine"); the embedded Redis is left out of the image.
#
# The base is pinned by digest: the same bytes on every build (with a digest, Docker ignores the tag; the tag says
# which release it is). This is Docker Hub's multi-platform index of python:3.11.16-slim-bookworm, as recorded in
# several public Dockerfiles (one notes it was resolved on 2026-10-01); the test hosts reach no registry, so it is not
# verified from here. To move to a newer one: `docker buildx imagetools inspect python:3.11-slim-bookworm`, and paste
# its version and digest below.
FROM python:3.11.16-slim-bookworm@sha256:a36c24f9cbdf4fd0f52d67f0823eeac19c2028c637cecc392d97f980d4fec56b

# FriBiDi lays Arabic and Hebrew names out right to left on the boards (README.md, "Board images").
RUN apt-get update && apt-get install -y --no-install-recommends libfribidi0 && rm -rf /var/lib/apt/lists/*

RUN useradd --create-home --uid 10001 hongbot
WORKDIR /home/hongbot/app
RUN chown hongbot /home/hongbot/app
USER hongbot

# The dependencies first, at the versions of requirements.lock (pip-compile from pyproject.toml, runtime only): they
# change far less often than the code, so a code change rebuilds from the next step on.
COPY --chown=hongbot requirements.lock ./
RUN python3 -m venv .venv && .venv/bin/pip install --no-cache-dir -q -r requirements.lock

# Then the code, installed without touching the dependencies.
COPY --chown=hongbot pyproject.toml README.md LICENSE ./
COPY --chown=hongbot bot bot
COPY --chown=hongbot engine engine
COPY --chown=hongbot render render
RUN .venv/bin/pip install --no-cache-dir -q --no-deps .

# Metrics on /metrics and the health check on /healthz (README.md, "Metrics and health check").
ENV HONGBOT_METRICS_PORT=9100 HONGBOT_DATA_DIR=/home/hongbot/app/data
EXPOSE 9100
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD [".venv/bin/python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:9100/healthz', timeout=4)"]

CMD [".venv/bin/python", "-m", "bot"]
