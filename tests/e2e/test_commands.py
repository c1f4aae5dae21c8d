"""End to end: the commands are synced to Discord only when their definitions changed since the last sync."""

from __future__ import annotations

import pytest
from discord import app_commands

import bot.interface.client

from tests.bot.harness import start_bot

pytestmark = pytest.mark.timeout(120)


@app_commands.command(name="ping", description="An extra command, as a new version of the bot would add one")
async def ping(interaction) -> None:
    await interaction.response.send_message("pong", ephemeral=True)


async def setup(client) -> None:
    """This module as an extension: adds /ping."""
    client.tree.add_command(ping)


def names(commands) -> list[str]:
    return sorted(c["name"] for c in commands)


@pytest.mark.parametrize("in_guild", [True, False])
async def test_a_restart_syncs_only_changed_commands(emu, world, redis_server, redis, monkeypatch, in_guild):
    stored = (lambda: emu.guild_commands.get(world.guild, [])) if in_guild else (lambda: emu.commands)
    guild = world.guild if in_guild else None
    first = await start_bot(emu, redis_server, guild=guild)
    await first.stop()
    assert emu.sync_count == 1 and "ping" not in names(stored())
    synced = names(stored())

    again = await start_bot(emu, redis_server, guild=guild)  # the same commands: the sync route is not called
    try:
        assert emu.sync_count == 1 and names(stored()) == synced
        it = await emu.slash(world.ann, world.channel, "hongkong challenge", opponent=world.ben)
        assert "challenges you" in (await it.wait_done()).content  # the commands synced before still work
    finally:
        await again.stop()

    monkeypatch.setattr(bot.interface.client, "EXTENSIONS", bot.interface.client.EXTENSIONS + (__name__,))
    changed = await start_bot(emu, redis_server, guild=guild)  # a new command: synced
    await changed.stop()
    assert emu.sync_count == 2 and names(stored()) == sorted(synced + ["ping"])

    monkeypatch.undo()
    removed = await start_bot(emu, redis_server, guild=guild)  # and gone again: synced again
    await removed.stop()
    assert emu.sync_count == 3 and names(stored()) == synced
    assert emu.errors == []


async def test_leaving_dev_guild_mode_withdraws_the_servers_copy(emu, world, redis_server, redis):
    """Started with ``dev_guild_id``, then without: the server's own copy of every command is removed, so Discord
    doesn't list each twice there (the global one beside it); the next start asks nothing more of Discord."""
    in_guild = await start_bot(emu, redis_server, guild=world.guild)
    await in_guild.stop()
    synced = names(emu.guild_commands[world.guild])
    assert "hongkong" in synced and emu.commands == []

    globally = await start_bot(emu, redis_server)
    await globally.stop()
    assert emu.guild_commands[world.guild] == [] and names(emu.commands) == synced
    assert emu.sync_count == 3  # the server's sync, the global one, and the server's emptied
    assert sorted(await redis.keys("hongbot:commands:*")) == [
        f"hongbot:commands:{emu.application_id}:global",
        f"hongbot:commands:{emu.application_id}:global:ids",
    ]

    again = await start_bot(emu, redis_server)
    try:
        assert emu.sync_count == 3
        it = await emu.slash(world.ann, world.channel, "hongkong challenge", opponent=world.ben)
        assert "challenges you" in (await it.wait_done()).content
    finally:
        await again.stop()
    assert emu.errors == []
