"""Configuration: ``config.toml`` (keys as in ``config.example.toml``) overridden by the environment.

The file is read with :mod:`tomllib`; every key is optional. The token is held in :class:`Config` but never
shown by its ``repr`` (so it cannot reach a log line by accident).
"""

from __future__ import annotations

import ipaddress
import os
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Mapping

from .budget import POOL_TIMEOUT

DEFAULT_API_BASE = "https://discord.com/api/v10"
DEFAULT_GATEWAY = "wss://gateway.discord.gg/"
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")
#: The web companion's interface by default (``web_host``): this machine only, for a reverse proxy on it.
WEB_HOST = "127.0.0.1"
#: The reverse proxies trusted by default (``web_trusted_proxies``): loopback and the private ranges, where a load
#: balancer in front of the web companion usually is; a client on the open internet is never one of them.
WEB_TRUSTED_PROXIES = ("127.0.0.0/8", "::1/128", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7")


class ConfigError(Exception):
    """The configuration file or an environment variable holds a value we cannot use; the message says which."""


@dataclass(frozen=True)
class Config:
    """Settings for one bot process.

    Attributes:
        token: Discord bot token, or None when not configured (hidden from ``repr``).
        redis_url: Redis server URL, or None to start the embedded server.
        data_dir: directory for the embedded Redis data file.
        dev_guild_id: guild to sync commands to instantly, or None for a global sync.
        log_level: one of DEBUG, INFO, WARNING, ERROR.
        challenge_timeout: seconds a challenge stays open (> 0).
        api_base: Discord REST base URL (changed only for the local emulator in tests).
        gateway_url: Discord gateway websocket URL (likewise).
        allow_unsafe_redis: start even on a Redis that may lose games (an evicting ``maxmemory-policy``, or an
            external server with no persistence): only logged instead of refusing to start.
        redis_pool_size: the most connections to Redis at once (1–10,000); a command that finds them all busy waits
            for one to be free.
        redis_pool_timeout: seconds such a command waits at most before failing (0.1–600; default 2: an
            interaction's budget, :mod:`bot.budget`; 600 still ends inside Discord's 15-minute follow-up window).
        store_check_interval: seconds between two checks that Redis still holds the bot's data and keeps it on disk
            (0.1–3600; :mod:`bot.storage.guard`).
        render_workers: processes drawing board images (0–64; 0: a thread of the bot's process), or None: half the
            CPUs, at least one (:func:`bot.interface.board_pool.default_workers`).
        computer_workers: processes searching the computer's moves, at a lower OS priority (1–64), or None: half
            the CPUs, at least one.
        metrics_port: the TCP port serving Prometheus metrics (``/metrics``) and the health check (``/healthz``) on
            every interface, or 0 (off).
        redis_cluster: ``redis_url`` names one node of a Redis Cluster (redis-py's cluster client, keys laid out
            for it: :class:`bot.storage.keys.ClusterKeys`).
        shard_count: the bot's total number of gateway shards (every process of one bot says the same), or None:
            ask Discord for its recommended count (``auto``) and run every shard here.
        shard_ids: the shards this process runs (each < ``shard_count``), or None for all of them.
        heartbeat_timeout: seconds without anything from Discord's gateway after which a connection is judged dead
            (a "zombie" that stopped answering heartbeats) and replaced by a RESUMEd one (10–600; discord.py's
            ``heartbeat_timeout``, default 60). Keep it above Discord's heartbeat interval (41.25 s), or a quiet healthy
            connection is restarted for nothing; below 10 s discord.py would even give up its own new connections
            while it waits its 5 s before identifying again.
        presence: what the bot is shown playing in Discord's member list ("Playing …", at most 128 characters), or
            None: the games' commands ("/hong · /hongkong"); :data:`NO_PRESENCE` (``off``) shows nothing.
        finished_retention: days a finished game's record is kept (1–36,500) before the periodic sweep deletes it
            and its index entries (ratings stay), or None: forever (the default). README.md, "Privacy".
        web_port: the TCP port the web companion (:mod:`bot.web`: game pages, replays, leaderboards) is served on
            by this bot — from its child process (:mod:`bot.web.process`), on ``web_host`` — or 0 (off: run
            ``python -m bot.web`` apart, or none).
        web_host: the interface the web companion listens on (the bot's child and ``python -m bot.web``): an IP
            address, ``0.0.0.0`` (every IPv4 interface) or ``::`` (every IPv6 one); default :data:`WEB_HOST`
            (loopback: only a reverse proxy on the same machine reaches it).
        public_url: the absolute base of the web companion's links and images as people reach it
            (``https://games.example.org``, no trailing slash), or None: ``http://localhost:<web_port>``. Links
            are offered in Discord (**Watch live**) only when the bot knows a base (this, or ``web_port``).
        web_proxies: how many reverse proxies (load balancers) stand in front of the web companion, each adding the
            address it got the request from to ``X-Forwarded-For`` (0–10; default 0: the peer's address is the
            client's). The client each rate limit counts is the address that many entries from the right.
        web_trusted_proxies: the addresses (networks) those proxies connect from: ``X-Forwarded-For`` is believed
            only on a request from one of them (anyone reaching the port directly is limited by their own
            address); default :data:`WEB_TRUSTED_PROXIES`.
        web_global_leaderboard: whether the web companion serves the global leaderboards (``/leaderboard/<game>``:
            the display names and ratings of players of *every* server, including servers whose ``/settings web``
            is off), default false: 404. An operator whose servers all agree to be public turns it on; a server's
            own leaderboard is on its ``public`` page either way. README.md, "Privacy".
    """

    token: str | None = field(default=None, repr=False)
    redis_url: str | None = None
    data_dir: Path = Path("data")
    dev_guild_id: int | None = None
    log_level: str = "INFO"
    challenge_timeout: float = 600.0
    api_base: str = DEFAULT_API_BASE
    gateway_url: str = DEFAULT_GATEWAY
    allow_unsafe_redis: bool = False
    redis_pool_size: int = 50
    redis_pool_timeout: float = POOL_TIMEOUT
    store_check_interval: float = 5.0
    render_workers: int | None = None
    computer_workers: int | None = None
    metrics_port: int = 0
    redis_cluster: bool = False
    shard_count: int | None = 1
    shard_ids: tuple[int, ...] | None = None
    heartbeat_timeout: float = 60.0
    presence: str | None = None
    finished_retention: float | None = None
    web_port: int = 0
    public_url: str | None = None
    web_proxies: int = 0
    web_global_leaderboard: bool = False
    web_host: str = WEB_HOST
    web_trusted_proxies: tuple[str, ...] = WEB_TRUSTED_PROXIES

    @property
    def web_base(self) -> str | None:
        """The base of the web companion's links (:attr:`public_url`, else ``http://localhost:<web_port>``), or
        None when there is no web companion to link to."""
        if self.public_url:
            return self.public_url
        return f"http://localhost:{self.web_port}" if self.web_port else None


#: ``presence = "off"``: the bot shows no activity.
NO_PRESENCE = "off"
#: Discord's limit on an activity's name.
MAX_PRESENCE = 128

#: config key -> environment variable that overrides it
ENV_VARS = {
    "token": "DISCORD_TOKEN",
    "redis_url": "REDIS_URL",
    "data_dir": "HONGBOT_DATA_DIR",
    "dev_guild_id": "HONGBOT_DEV_GUILD_ID",
    "log_level": "HONGBOT_LOG_LEVEL",
    "challenge_timeout": "HONGBOT_CHALLENGE_TIMEOUT",
    "api_base": "HONGBOT_API_BASE",
    "gateway_url": "HONGBOT_GATEWAY_URL",
    "allow_unsafe_redis": "HONGBOT_ALLOW_UNSAFE_REDIS",
    "redis_pool_size": "HONGBOT_REDIS_POOL_SIZE",
    "redis_pool_timeout": "HONGBOT_REDIS_POOL_TIMEOUT",
    "store_check_interval": "HONGBOT_STORE_CHECK_INTERVAL",
    "render_workers": "HONGBOT_RENDER_WORKERS",
    "computer_workers": "HONGBOT_COMPUTER_WORKERS",
    "metrics_port": "HONGBOT_METRICS_PORT",
    "redis_cluster": "HONGBOT_REDIS_CLUSTER",
    "shard_count": "HONGBOT_SHARD_COUNT",
    "shard_ids": "HONGBOT_SHARD_IDS",
    "heartbeat_timeout": "HONGBOT_HEARTBEAT_TIMEOUT",
    "presence": "HONGBOT_PRESENCE",
    "finished_retention": "HONGBOT_FINISHED_RETENTION",
    "web_port": "HONGBOT_WEB_PORT",
    "public_url": "HONGBOT_PUBLIC_URL",
    "web_proxies": "HONGBOT_WEB_PROXIES",
    "web_global_leaderboard": "HONGBOT_WEB_GLOBAL_LEADERBOARD",
    "web_host": "HONGBOT_WEB_HOST",
    "web_trusted_proxies": "HONGBOT_WEB_TRUSTED_PROXIES",
}
#: The most shards a bot may say it has.
MAX_SHARDS = 100_000


def load_config(path: str | Path | None = None, env: Mapping[str, str] | None = None) -> Config:
    """Read ``path`` (default: ``$HONGBOT_CONFIG``, else ``./config.toml`` if it exists) and apply env overrides.

    Raises:
        ConfigError: unreadable TOML, an unknown key, a value of the wrong kind, or ``$HONGBOT_CONFIG`` naming
            something that is not a file.
    """
    env = os.environ if env is None else env
    named = None if path else env.get("HONGBOT_CONFIG")
    path = Path(path or named or "config.toml")
    raw: dict = {}
    if named and not path.is_file():
        raise ConfigError(f"the configuration file {path} does not exist (or is not a file)")
    if path.is_file():
        try:
            raw = tomllib.loads(path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{path} is not valid TOML: {exc}") from None
    known = {f.name for f in fields(Config)}
    unknown = sorted(set(raw) - known)
    if unknown:
        raise ConfigError(f"{path}: unknown key(s) {', '.join(unknown)}; known keys: {', '.join(sorted(known))}")
    from_env = {}
    for key, var in ENV_VARS.items():
        if env.get(var, "").strip():
            raw[key] = env[var].strip()
            from_env[key] = var
    return _build(raw, path, from_env)


def _build(raw: dict, path: Path, from_env: Mapping[str, str]) -> Config:
    def bad(key: str, why: str) -> ConfigError:
        """The error for a bad value of ``key``, naming the environment variable when it came from one."""
        where = f" (set by ${from_env[key]})" if key in from_env else ""
        return ConfigError(f"{key} {why}{where}")

    def text(key: str) -> str | None:
        value = raw.get(key)
        if value is None or (isinstance(value, str) and not value.strip()):
            return None
        if not isinstance(value, str):
            raise ConfigError(f"{key} must be a string (in {path} or ${ENV_VARS[key]})")
        return value.strip()

    def number(key: str, default: float, low: float, high: float, unit: str, whole: bool = False) -> float:
        """A number between ``low`` and ``high`` (a whole one with ``whole``); ``unit`` names it in errors."""
        value = raw.get(key, default)
        try:
            if isinstance(value, bool) or (whole and not str(value).strip().isdigit()):
                raise ValueError(value)
            value = int(value) if whole else float(value)
        except (TypeError, ValueError):
            raise bad(key, f"must be a {'whole ' if whole else ''}number of {unit}, not {value!r}") from None
        if not low <= value <= high:  # also refuses inf and nan
            raise bad(key, f"must be between {low:g} and {high:g} {unit}")
        return value

    def workers(key: str, low: int) -> int | None:
        """A number of worker processes (``low``–64), or None for ``auto`` or unset (sized from the CPUs)."""
        value = raw.get(key)
        if value is None or (isinstance(value, str) and value.strip().lower() in ("", "auto")):
            return None
        return int(number(key, 0, low, 64, 'processes (or "auto")', whole=True))

    guild = raw.get("dev_guild_id")
    if guild in (None, "", 0, "0"):
        guild = None
    elif isinstance(guild, bool) or not str(guild).isdigit():
        raise bad("dev_guild_id", f"must be a guild id (a positive whole number), not {guild!r}")
    else:
        guild = int(guild)
    timeout = raw.get("challenge_timeout", 600)
    try:
        timeout = float(timeout)
    except (TypeError, ValueError):
        raise bad("challenge_timeout", f"must be a number of seconds, not {timeout!r}") from None
    if not 10 <= timeout <= 7 * 86400:  # also refuses inf and nan
        raise bad("challenge_timeout", "must be between 10 seconds and 7 days (604800)")
    level = (text("log_level") or "INFO").upper()
    if level not in LOG_LEVELS:
        raise bad("log_level", f"must be one of {', '.join(LOG_LEVELS)}, not {level!r}")

    def flag(key: str) -> bool:
        value = raw.get(key, False)
        if isinstance(value, str) and value.strip().lower() in ("1", "true", "yes", "on", "0", "false", "no", "off"):
            value = value.strip().lower() in ("1", "true", "yes", "on")
        if not isinstance(value, bool):
            raise bad(key, f"must be true or false (or 1/0), not {value!r}")
        return value

    redis_url = text("redis_url")
    if redis_url and not redis_url.startswith(("redis://", "rediss://", "unix://")):
        raise bad("redis_url", "must start with redis://, rediss:// or unix://, e.g. redis://localhost:6379/0")
    cluster = flag("redis_cluster")
    if cluster and not (redis_url or "").startswith(("redis://", "rediss://")):
        raise bad(
            "redis_cluster",
            "needs redis_url (or $REDIS_URL) naming one node of the cluster, e.g. "
            "redis://10.0.0.5:7000 (the embedded Redis and unix sockets are single servers)",
        )
    shard_count = raw.get("shard_count", 1)
    if isinstance(shard_count, str) and shard_count.strip().lower() == "auto":
        shard_count = None
    elif isinstance(shard_count, bool) or not str(shard_count).strip().isdigit():
        raise bad("shard_count", f'must be a whole number of shards or "auto", not {shard_count!r}')
    else:
        shard_count = int(number("shard_count", 1, 1, MAX_SHARDS, "shards", whole=True))
    shard_ids = shards(raw.get("shard_ids"), shard_count if "shard_count" in raw else None, bad)
    presence = text("presence")
    if presence is not None and len(presence) > MAX_PRESENCE:
        raise bad("presence", f"must be at most {MAX_PRESENCE} characters (Discord's limit), not {len(presence)}")
    if presence is not None and presence.lower() == NO_PRESENCE:
        presence = NO_PRESENCE
    public_url = text("public_url")
    if public_url is not None:
        if not public_url.startswith(("http://", "https://")) or " " in public_url:
            raise bad(
                "public_url",
                f"must be an absolute http:// or https:// URL, e.g. https://games.example.org, not {public_url!r}",
            )
        public_url = public_url.rstrip("/")
    web_host = text("web_host") or WEB_HOST
    try:
        ipaddress.ip_address(web_host)
    except ValueError:
        raise bad("web_host", f"must be an IP address (127.0.0.1, 0.0.0.0 for every interface, ::), not {web_host!r}")
    proxies = raw.get("web_trusted_proxies", list(WEB_TRUSTED_PROXIES))
    networks = proxies if isinstance(proxies, list) else str(proxies).split(",")
    try:
        trusted = tuple(str(ipaddress.ip_network(str(n).strip(), strict=False)) for n in networks if str(n).strip())
    except ValueError:
        raise bad(
            "web_trusted_proxies",
            f'must list addresses or networks, e.g. "10.0.0.0/8, 192.0.2.7" (or a list in config.toml), not {proxies!r}',
        ) from None
    retention = raw.get("finished_retention")
    if isinstance(retention, str) and retention.strip().lower() in ("", "forever"):
        retention = None
    return Config(
        token=text("token"),
        redis_url=redis_url,
        data_dir=Path(text("data_dir") or "data"),
        dev_guild_id=guild,
        log_level=level,
        challenge_timeout=timeout,
        api_base=(text("api_base") or DEFAULT_API_BASE).rstrip("/"),
        gateway_url=text("gateway_url") or DEFAULT_GATEWAY,
        allow_unsafe_redis=flag("allow_unsafe_redis"),
        redis_cluster=cluster,
        shard_count=shard_count,
        shard_ids=shard_ids,
        redis_pool_size=int(number("redis_pool_size", 50, 1, 10_000, "connections", whole=True)),
        redis_pool_timeout=number("redis_pool_timeout", POOL_TIMEOUT, 0.1, 600, "seconds"),
        store_check_interval=number("store_check_interval", 5.0, 0.1, 3600, "seconds"),
        render_workers=workers("render_workers", 0),
        computer_workers=workers("computer_workers", 1),
        metrics_port=int(number("metrics_port", 0, 0, 65535, "(a TCP port; 0: off)", whole=True)),
        heartbeat_timeout=number("heartbeat_timeout", 60.0, 10, 600, "seconds"),
        web_port=int(number("web_port", 0, 0, 65535, "(a TCP port; 0: off)", whole=True)),
        public_url=public_url,
        web_proxies=int(number("web_proxies", 0, 0, 10, "proxies", whole=True)),
        web_global_leaderboard=flag("web_global_leaderboard"),
        web_host=web_host,
        web_trusted_proxies=trusted,
        presence=presence,
        finished_retention=(
            None if retention is None else number("finished_retention", 0, 1, 36_500, 'days (or "forever")')
        ),
    )


def shards(value, count: int | None, bad) -> tuple[int, ...] | None:
    """``shard_ids`` as given — ``"0,1"``, ``"0-3"``, ``"0-3,8"`` or a TOML list ``[0, 1]`` — as sorted shard ids, or
    None (unset: every shard). ``count``: the shard count set (None: unset or ``auto``); ``bad(key, why)`` makes the
    error.

    Raises:
        ConfigError: not such a list, a shard twice, a shard ≥ ``count``, or ids without a shard count.
    """
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    example = 'e.g. "0,1" or "0-3" (or a list [0, 1] in config.toml)'
    parts = value if isinstance(value, list) else str(value).split(",")
    ids: list[int] = []
    for part in parts:
        text = str(part).strip()
        low, dash, high = text.partition("-")
        if isinstance(part, bool) or not low.strip().isdigit() or (dash and not high.strip().isdigit()):
            raise bad("shard_ids", f"must list shard numbers and ranges, {example}, not {value!r}")
        first, last = int(low), int(high) if dash else int(low)
        if last < first:
            raise bad("shard_ids", f'has the range {text!r} running backwards: write it low-high, e.g. "0-3"')
        ids += range(first, last + 1)
    if count is None:
        raise bad(
            "shard_ids",
            "needs shard_count set to the bot's total number of shards (the same number in every process; not auto)",
        )
    if len(set(ids)) < len(ids):
        raise bad("shard_ids", f"names a shard twice ({value!r}): each process runs each of its shards once")
    if max(ids) >= count:
        raise bad("shard_ids", f"names shard {max(ids)}, but with shard_count {count} the shards are 0 to {count - 1}")
    return tuple(sorted(ids))
