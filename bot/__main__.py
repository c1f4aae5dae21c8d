"""``python -m bot``: load the configuration and run the bot until interrupted."""
from __future__ import annotations

import logging
import sys

import discord

from .config import ConfigError, load_config


def main() -> int:
    """Entry point. Exit codes: 0 after a clean stop, 2 for missing/invalid configuration, 1 for a failed login."""
    try:
        config = load_config()
    except ConfigError as exc:
        print(f"hongbot: configuration error: {exc}", file=sys.stderr)
        return 2
    if not config.token:
        print(
            "hongbot: no Discord bot token. Set DISCORD_TOKEN in the environment, or `token = \"...\"` in config.toml "
            "(copy config.example.toml); see README.md, 'Create the Discord application'.",
            file=sys.stderr,
        )
        return 2
    logging.basicConfig(level=config.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    point_at(config.api_base, config.gateway_url)
    from .client import HongBot

    try:
        HongBot(config).run(config.token, log_handler=None)
    except discord.LoginFailure:
        print("hongbot: Discord refused the token (401). Check DISCORD_TOKEN / config.toml.", file=sys.stderr)
        return 1
    except RuntimeError as exc:
        print(f"hongbot: {exc}", file=sys.stderr)
        return 1
    return 0


def point_at(api_base: str, gateway_url: str) -> None:
    """Send discord.py's REST calls to ``api_base`` and open its gateway at ``gateway_url``
    (Discord's, or the local emulator's in tests). discord.py reads both from class attributes."""
    import yarl
    from discord.gateway import DiscordWebSocket
    from discord.http import Route

    Route.BASE = api_base
    DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway_url)


if __name__ == "__main__":
    sys.exit(main())
