"""End to end: option values Discord's own client would never send — what an outdated or broken client sends after
a command changed — are refused, ephemerally, naming the option and what it takes. Every command the bot synced,
every option, several wrong values each (a wrong type, an unknown choice, out of range, an unresolved user, an
option the command doesn't have, a required one missing), sent through the emulator to the real bot: never the
generic apology, never silence, never accepted; the stored games unchanged."""

from __future__ import annotations

import logging

import pytest

from bot.storage.store import GameStore
from tests.emulator import PERMISSIONS

from tests.bot.harness import refused

pytestmark = pytest.mark.timeout(300)

STRING, INTEGER, BOOLEAN, USER, NUMBER = 3, 4, 5, 6, 10


def valid(option: dict, world) -> object:
    """A value the option takes (for the options around the one under test)."""
    if option.get("choices"):
        return option["choices"][0]["value"]
    return {STRING: "A1", INTEGER: 1, NUMBER: 1.0, BOOLEAN: False, USER: world.ben}[option["type"]]


def wrong_values(option: dict) -> list[tuple[object, dict]]:
    """``(value, types override)`` pairs the option can't take."""
    name, kind = option["name"], option["type"]
    cases: list[tuple[object, dict]] = {
        STRING: [(7, {}), (True, {})],
        INTEGER: [("seven", {}), (1.5, {}), (True, {})],
        NUMBER: [("abc", {}), (True, {})],
        BOOLEAN: [("maybe", {}), ("true", {}), (1, {})],
        USER: [("abc", {}), ("123456789012345678", {}), (5, {}), ("someone", {name: STRING})],
    }[kind]
    if option.get("choices"):
        cases += [("universe", {}), ("maybe", {})]
    if option.get("max_length"):
        cases.append(("x" * (option["max_length"] + 1), {}))
    if kind == STRING:
        cases.append(("A1", {name: INTEGER}))  # the schema changed: a string sent as a whole number
    return cases


def leaf_commands(commands: list[dict]) -> list[tuple[str, list[dict]]]:
    """``("hongkong place", [option defs])`` for every runnable command."""
    out = []
    for command in commands:
        subs = [o for o in command.get("options") or [] if o["type"] == 1]
        if subs:
            out += [(f"{command['name']} {s['name']}", s.get("options") or []) for s in subs]
        else:
            out.append((command["name"], command.get("options") or []))
    return out


async def test_every_option_of_every_command_refuses_wrong_values(emu, world, running, redis, caplog):
    admin = emu.create_user("ada")
    emu.add_member(world.guild, admin, permissions=PERMISSIONS["manage_guild"] | PERMISSIONS["manage_messages"])
    # a game runs in the channel (a move or resignation must not land); the other channel is empty (no challenge
    # or settings change may appear)
    it = await emu.slash(world.ann, world.channel, "hongkong challenge", opponent=world.ben)
    challenge = await it.wait_done()
    await (await emu.click(world.ben, challenge, challenge.button("Accept")["custom_id"])).wait_done()
    store = GameStore(redis)
    before = {cid: await store.raw(cid) for cid in (world.channel, world.other_channel)}
    settings_before = await redis.hgetall(f"hongbot:{{g:{world.guild}}}:settings")
    caplog.set_level(logging.ERROR)

    commands = leaf_commands(emu.guild_commands[world.guild])
    assert {"hongkong place", "hong challenge", "leaderboard", "stats", "settings", "game abort"} <= {
        c for c, _ in commands
    }
    sent = 0
    for channel in (world.channel, world.other_channel):
        for command, defs in commands:
            around = {d["name"]: valid(d, world) for d in defs if d.get("required")}
            cases = [(d["name"], value, types) for d in defs for value, types in wrong_values(d)]
            cases.append(("colour", "red", {}))  # an option the command doesn't have
            for name, value, types in cases:
                it = await emu.slash_unchecked(admin, channel, command, types=types, **{**around, name: value})
                text = await refused(it)
                sent += 1
                assert f"`{name}`" in text and ("takes" in text or "has no option" in text), (
                    command,
                    name,
                    value,
                    text,
                )
                assert "Something went wrong" not in text
            required = [d for d in defs if d.get("required")]
            if required:  # a required option missing
                it = await emu.slash_unchecked(admin, channel, command)
                text = await refused(it)
                sent += 1
                assert f"needs the option `{required[0]['name']}`" in text, (command, text)
    # a few exact answers
    it = await emu.slash_unchecked(admin, world.other_channel, "leaderboard", game="hongkong", scope="universe")
    leaderboard = emu.mention(world.guild, "leaderboard")
    assert await refused(it) == (
        f"The option `scope` of {leaderboard} takes one of `server` or `global`, not "
        "`universe`. (If Discord offered this, its list of commands is out of date: reload it "
        "with Ctrl+R or restart the app.)"
    )
    it = await emu.slash_unchecked(admin, world.other_channel, "hong challenge", opponent=world.ben, expansion="maybe")
    assert (
        f"The option `expansion` of {emu.mention(world.guild, 'hong challenge')} takes True or False, not `maybe`."
        in await refused(it)
    )
    it = await emu.slash_unchecked(admin, world.other_channel, "stats", user="123456789012345678")
    assert (
        f"The option `user` of {emu.mention(world.guild, 'stats')} takes a member of this server (pick one from the "
        "list)" in await refused(it)
    )
    it = await emu.slash_unchecked(world.ann, world.channel, "hongkong place", square="A1", piece="tower")
    assert "takes one of `block` or `roof`, not `tower`" in await refused(it)

    assert sent > 100
    assert {cid: await store.raw(cid) for cid in (world.channel, world.other_channel)} == before
    assert await redis.hgetall(f"hongbot:{{g:{world.guild}}}:settings") == settings_before
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []
    assert emu.errors == []
    # and the same commands with right values still work
    it = await emu.slash(world.ann, world.channel, "hongkong place", square="A1")
    assert "`S@A1`" in (await it.wait_followups(1))[0].content
