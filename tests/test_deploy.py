"""The Dockerfile and compose.yaml (README.md, "Past one machine") hold together: Docker can't run on the test hosts
(no daemon, and no image registry reachable), so they are read the way Docker reads them — the Dockerfile with
BuildKit's own parser (the ``dockerfile`` package), the compose file as YAML — and checked against the README and
the bot's settings."""
from __future__ import annotations

import shlex
from pathlib import Path

import dockerfile
import yaml

from bot.config import ENV_VARS, load_config

ROOT = Path(__file__).resolve().parent.parent
#: Dockerfile instructions (https://docs.docker.com/reference/dockerfile/).
INSTRUCTIONS = {"FROM", "RUN", "CMD", "LABEL", "EXPOSE", "ENV", "ADD", "COPY", "ENTRYPOINT", "VOLUME", "USER",
                "WORKDIR", "ARG", "ONBUILD", "STOPSIGNAL", "HEALTHCHECK", "SHELL"}


def readme_install_command() -> str:
    readme = (ROOT / "README.md").read_text()
    return next(line for line in readme.splitlines() if line.startswith("python3 -m venv .venv && .venv/bin/pip install -q . "))


def test_the_dockerfile_parses_and_installs_and_starts_the_bot_as_the_readme_does():
    commands = dockerfile.parse_file(str(ROOT / "Dockerfile"))
    assert {c.cmd for c in commands} <= INSTRUCTIONS
    assert commands[0].cmd == "FROM" and commands[-1].cmd == "CMD" and commands[-1].json
    install = [c.value[0] for c in commands if c.cmd == "RUN" and "pip install" in c.value[0]]
    start = shlex.join(commands[-1].value)
    assert len(install) == 1 and f"{install[0]} && {start}" == readme_install_command()
    for copy in (c for c in commands if c.cmd == "COPY"):
        for source in copy.value[:-1]:
            assert (ROOT / source).exists(), f"COPY {source}: not in the repository"
    env = dict(zip(*[iter(next(c.value for c in commands if c.cmd == "ENV"))] * 2))
    assert load_config(ROOT / "none.toml", env=env).metrics_port == 9100
    health = next(c for c in commands if c.cmd == "HEALTHCHECK")
    assert "http://127.0.0.1:9100/healthz" in health.original


def test_compose_runs_two_shards_on_one_redis_that_keeps_an_append_only_file():
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text())
    services = compose["services"]
    assert set(services) == {"redis", "shard0", "shard1"}
    redis = services["redis"]["command"]
    assert redis[redis.index("--appendonly") + 1] == "yes"
    assert redis[redis.index("--maxmemory-policy") + 1] == "noeviction"  # the bot refuses an evicting Redis
    assert "redis-data:/data" in services["redis"]["volumes"]
    shards = []
    for name in ("shard0", "shard1"):
        service = services[name]
        assert service["build"] == "." and service["depends_on"]["redis"]["condition"] == "service_healthy"
        env = service["environment"]
        assert set(env) <= set(ENV_VARS.values())  # every variable is a setting of the bot
        config = load_config(ROOT / "none.toml", env={k: v for k, v in env.items() if k != "DISCORD_TOKEN"})
        assert config.redis_url == "redis://redis:6379/0" and config.metrics_port == 9100
        assert config.shard_count == 2
        shards += config.shard_ids
    assert sorted(shards) == [0, 1]  # each shard run once
    assert services["shard0"]["ports"] != services["shard1"]["ports"]
