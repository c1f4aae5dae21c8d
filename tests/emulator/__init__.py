"""A local Discord (gateway + REST) for end-to-end tests of the bot, enforcing Discord's limits.

What it emulates: one Discord on 127.0.0.1 — the gateway websocket (IDENTIFY/RESUME, heartbeats, zlib-stream or
zstd-stream, READY and GUILD_CREATE, the events of guilds, channels, members and messages, INTERACTION_CREATE) and
the REST routes a bot uses (application commands, interaction callbacks and their webhooks, messages with
attachments and components, threads, DMs, members, roles and permission overwrites), with Discord's rules: rate
limits, the 3 s / 15 min interaction windows, the message and component limits, and its published OpenAPI spec.
Tests build the world (guilds, channels, users, members), act as users (``slash``, ``click``, ``autocomplete``,
``submit_modal``) and wait on and read what the bot did (``Interaction``, ``Message``, ``emu.errors``).

It stands alone: it imports nothing of the bot, the engine or the renderer — only aiohttp, jsonschema, regex and
(to point a client at it) discord.py — and its own tests are in ``tests/emulator/tests/`` (``test_server``: the
emulator driven by a small discord.py bot; ``test_gateway``, ``test_limits``, ``test_spec``; ``test_standalone``
checks the imports). ``python -m pytest tests/emulator`` runs them alone.

Usage::

    emu = DiscordEmulator()
    await emu.start()          # 127.0.0.1, random port; also points discord.py at the emulator
    gid = emu.create_guild("Test Guild")
    cid = emu.create_channel(gid, "general")
    ann = emu.create_user("ann"); emu.add_member(gid, ann)
    task = asyncio.create_task(bot.start(emu.token))
    await emu.wait_for_ready(); await emu.wait_for_commands()
    it = await emu.slash(ann, cid, "hongkong challenge", opponent=ben)
    msg = await it.wait_done()
    assert emu.errors == []
    await bot.close(); await emu.stop()

Pointing discord.py at it takes two class attributes, both set by ``start()`` and restored by
``stop()`` (``DiscordEmulator(patch_discord=False)`` to do it yourself with ``emu.patch_discord()``):

* ``discord.http.Route.BASE = emu.api_base`` -- every REST call, including interaction callbacks
  and webhooks (they build their URLs from ``Route`` too);
* ``discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(emu.gateway_url)`` --
  ``Client.connect`` never calls ``GET /gateway/bot``; it opens ``DEFAULT_GATEWAY`` for the first
  connection and again after an INVALID_SESSION. Only RESUMEs use READY's ``resume_gateway_url``.

Gateway faults as Discord has them (``gateway`` says how each behaves): ``await emu.request_heartbeat()`` (op 1),
``emu.stop_heartbeat_acks()`` / ``await emu.resume_heartbeat_acks()`` (a zombie connection), ``await
emu.drop_connection(code)`` (4000, 4008, 1006 without a close frame, ...), ``await emu.request_reconnect()`` (op 7),
``await emu.invalidate_session(resumable=...)`` (op 9), ``await emu.guild_outage(guild_id)`` / ``await
emu.end_guild_outage(guild_id)``; a connection missing heartbeats is closed (4009), one sending more than 120 payloads a
minute too (4008). ``DiscordEmulator(heartbeat_interval_ms=..., heartbeat_grace_ms=...)`` shortens the interval.

Modules: ``server`` (DiscordEmulator: world building, test-facing actions and waits), ``gateway``
(websocket sessions, zlib-stream/zstd-stream, heartbeats, RESUME), ``rest`` (routes and endpoint behaviour),
``limits`` (Discord's documented limits as validators), ``models`` (Message, Attachment,
Interaction), ``errors`` (RecordedError, EmulatorTimeout, InteractionFailed), ``faults`` (``emu.faults``: 5xx
before/after the effect, latency, dropped connections), ``nonces`` (``nonce`` + ``enforce_nonce``), ``ratelimits``
(``emu.rate_limits``, on by default: per-route buckets with Discord's headers, 429s, the global limit, the
invalid-request limit and its Cloudflare ban; ``emu.invalid_requests()``, ``emu.ratelimited``), ``caps``
(Discord's other limits: follow-ups per interaction, 30046 edits of hour-old messages, slowmode, snowflakes),
``spec`` (Discord's published OpenAPI description: requests it refuses answered 400 50035, replies and gateway
payloads it would not describe kept in ``emu.spec_violations``; ``DiscordEmulator(spec=False)`` turns the checks
off).
"""

from .errors import EmulatorAssertion, EmulatorTimeout, InteractionFailed, RecordedError
from .models import Attachment, Interaction, Message
from .server import (
    ALL_PERMISSIONS,
    DEFAULT_BOT_PERMISSIONS,
    DEFAULT_EVERYONE_PERMISSIONS,
    P as PERMISSIONS,
    DiscordEmulator,
)

__all__ = [
    "DiscordEmulator",
    "Message",
    "Attachment",
    "Interaction",
    "RecordedError",
    "EmulatorAssertion",
    "EmulatorTimeout",
    "InteractionFailed",
    "PERMISSIONS",
    "ALL_PERMISSIONS",
    "DEFAULT_BOT_PERMISSIONS",
    "DEFAULT_EVERYONE_PERMISSIONS",
]
