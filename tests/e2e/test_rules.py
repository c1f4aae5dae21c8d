"""End to end: ``/hongkong rules`` and ``/hong rules`` — pages with pictures, shown privately by default, turned by
their caller alone (edits of the same message), across a restart, in the caller's language."""

from __future__ import annotations

import pytest

from bot.games import all_kinds

from tests.bot.harness import decode_png, refused, start_bot

pytestmark = pytest.mark.timeout(300)


def footer(message) -> str:
    return message.embeds[0]["footer"]["text"]


async def test_rules_pages_turn_for_their_caller_and_survive_a_restart(emu, world, redis, redis_server):
    first = await start_bot(emu, redis_server, guild=world.guild)
    try:
        pages = len(all_kinds()["hongkong"].rules)
        it = await emu.slash(world.ann, world.channel, "hongkong rules")
        shown = await it.wait_done()
        assert it.ephemeral and shown.ephemeral
        assert shown.embeds[0]["title"] == "Hong Kong — Pieces and turns" and footer(shown) == f"Page 1/{pages}"
        assert "</hongkong place:" in shown.embeds[0]["description"]
        assert shown.attachments and shown.attachments[0].description
        decode_png(shown.attachments[0].data)
        assert [b["label"] for b in shown.buttons()] == ["Previous", "Next"]
        assert shown.button("Previous").get("disabled") and not shown.button("Next").get("disabled")

        click = await emu.click(world.ann, shown, "Next")
        await click.wait_done()
        assert footer(shown) == f"Page 2/{pages}" and shown.embeds[0]["title"] == "Hong Kong — Placing and capturing"
        assert len(shown.attachments) == 2  # before and after the capture
        for attachment in shown.attachments:
            decode_png(attachment.data)

    finally:
        await first.stop()
    second = await start_bot(emu, redis_server, guild=world.guild)
    try:
        click = await emu.click(world.ann, shown, "Previous")
        await click.wait_done()
        assert footer(shown) == f"Page 1/{pages}"
    finally:
        await second.stop()
    assert emu.errors == []


async def test_hong_rules_in_german_and_in_public(emu, world, running):
    emu.locale = "de"
    it = await emu.slash(world.ann, world.channel, "hong rules")
    shown = await it.wait_done()
    assert it.ephemeral
    assert shown.embeds[0]["title"] == "Hong — Plättchen und Hongs" and footer(shown).startswith("Seite 1/")
    assert [b["label"] for b in shown.buttons()] == ["Zurück", "Weiter"]
    decode_png(shown.attachments[0].data)
    emu.locale = "en-US"
    it = await emu.slash(world.ann, world.channel, "hong rules", ephemeral=False)
    shown = await it.wait_done()
    assert not it.ephemeral and shown.embeds[0]["title"] == "Hong — Tiles and Hongs"
    click = await emu.click(world.ben, shown, "Next")  # not theirs: refused privately, nothing turns
    assert "Run </hong rules:" in await refused(click)
    assert footer(shown).startswith("Page 1/")
    click = await emu.click(world.ann, shown, "Next")
    await click.wait_done()
    assert footer(shown).startswith("Page 2/") and shown.embeds[0]["title"] == "Hong — Boards and the end"
    assert emu.errors == []
