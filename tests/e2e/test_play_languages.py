"""End to end: the play feature's language choice (issue 16.3) through the emulator, with small catalogs of our own.

A button's answer to the person who pressed it is in that person's language (``interaction.locale``); what the
channel reads — a challenge, its Accept/Decline labels, the note when it is declined or accepted, a takeback request
and its buttons — is in the server's language (``/settings language``), whoever caused it. English is unchanged
(every other e2e test reads the English messages).
"""

from __future__ import annotations

import pytest

from bot import i18n
from bot.storage.settings import SettingsStore
from bot.storage.store import GameStore

from tests.bot.harness import display, refused, temporary_catalogs
from tests.e2e.test_lifecycle import bots  # noqa: F401  (bots started on demand, on the test clock)

pytestmark = pytest.mark.timeout(240)

#: A few of the play feature's messages, in German and Japanese (msgid or (context, msgid) → translation).
MESSAGES = {
    "de": {
        "That game has already ended: there is nothing to resign.": "Diese Partie ist schon zu Ende: Es gibt nichts aufzugeben.",
        "Resignation cancelled: play on.": "Aufgabe abgebrochen: Spiel weiter.",
        ("button", "Accept"): "Annehmen",
        ("button", "Decline"): "Ablehnen",
    },
    "ja": {
        "{opponent}, {challenger} challenges you to {game}. {sides} This challenge expires {when}.": "{opponent}さん、{challenger}さんから{game}の挑戦です。{sides} 期限は{when}です。",
        "~~{game} challenge~~ — {user} declined it.": "~~{game}の挑戦~~ — {user}さんが断りました。",
        "**{game}**: challenge accepted. {sides}": "**{game}**：挑戦が受けられました。{sides}",
        "{opponent}, {user} asks to take back their last turn, move {number}: {move}. Allow it? (This request closes {when}.)": "{opponent}さん、{user}さんが最後の手番（{number}手目：{move}）の取り消しを求めています。許可しますか？（締め切り：{when}）",
        ("button", "Accept"): "受ける",
        ("button", "Decline"): "断る",
        ("button", "Allow takeback"): "取り消しを許可",
        ("button", "Refuse"): "拒否",
    },
}


@pytest.fixture
def catalogs(tmp_path, monkeypatch):
    """bot/i18n/locales replaced by a folder holding :data:`MESSAGES` as de.po and ja.po (the caches cleared before and
    after, so no other test sees them)."""
    with temporary_catalogs(tmp_path, MESSAGES, monkeypatch):
        assert i18n.languages() == ("en", "de", "ja")
        yield


def mention(user) -> str:
    return f"<@{user['id']}>"


async def test_public_posts_in_the_servers_language_refusals_in_the_pressers(emu, world, bots, catalogs, redis):
    """The server speaks Japanese (``/settings language``), every player's client is German: the challenge, its
    buttons and what becomes of it are Japanese; a Confirm pressed too late is refused in German, to the presser."""
    emu.locale = "de"  # the clients' language (the guild's preferred locale was sent as en-US when it was created)
    await SettingsStore(redis).update(world.guild, language="ja")
    await bots()

    it = await emu.slash(world.ann, world.channel, "hongkong challenge", opponent=world.ben)
    challenge = await it.wait_done()
    assert not it.ephemeral
    assert challenge.content.startswith(
        f"{mention(world.ben)}さん、{mention(world.ann)}さんから**Hong Kong**の挑戦です。"
    )
    assert " 期限は" in challenge.content and challenge.content.endswith("です。")
    assert [b["label"] for b in challenge.buttons()] == ["受ける", "断る"]
    # Ben (a German client) declines: the channel's note is still Japanese
    click = await emu.click(world.ben, challenge, challenge.button("断る")["custom_id"])
    await click.wait_done()
    assert challenge.content == f"~~Hong Kongの挑戦~~ — {display(world.ben)}さんが断りました。"
    assert challenge.buttons() == []

    it = await emu.slash(world.ann, world.channel, "hongkong challenge", opponent=world.ben)
    challenge = await it.wait_done()
    click = await emu.click(world.ben, challenge, challenge.button("受ける")["custom_id"])
    await click.wait_followups(1)
    assert challenge.content.startswith("**Hong Kong**：挑戦が受けられました。")

    # Ann asks to resign and leaves the question open; Ben resigns meanwhile
    asked = await (await emu.slash(world.ann, world.channel, "hongkong resign")).wait_done()
    question = await (await emu.slash(world.ben, world.channel, "hongkong resign")).wait_done()
    click = await emu.click(world.ben, question, question.buttons()[1]["custom_id"])  # Cancel: to the presser
    await click.wait_done()
    assert question.content == "Aufgabe abgebrochen: Spiel weiter."
    question = await (await emu.slash(world.ben, world.channel, "hongkong resign")).wait_done()
    click = await emu.click(world.ben, question, question.buttons()[0]["custom_id"])  # Confirm
    await click.wait_followups(1)
    assert await GameStore(redis).get(world.channel) is None
    # Ann's Confirm comes too late: refused to her alone, in her language
    click = await emu.click(world.ann, asked, asked.buttons()[0]["custom_id"])
    assert await refused(click) == "Diese Partie ist schon zu Ende: Es gibt nichts aufzugeben."
    assert emu.errors == []


async def test_a_takeback_request_and_its_buttons_in_the_servers_language(emu, world, bots, catalogs, redis):
    await SettingsStore(redis).update(world.guild, language="ja")
    await bots()
    challenge = await (await emu.slash(world.ann, world.channel, "hongkong challenge", opponent=world.ben)).wait_done()
    # an English client sees the server's words on the public post, and presses them
    assert [b["label"] for b in challenge.buttons()] == ["受ける", "断る"]
    await (await emu.click(world.ben, challenge, challenge.button("受ける")["custom_id"])).wait_followups(1)
    first = (await GameStore(redis).get(world.channel)).record.player(0)
    mover = world.ann if first.id == int(world.ann["id"]) else world.ben
    other = world.ben if mover is world.ann else world.ann
    await (await emu.slash(mover, world.channel, "hongkong place", square="B2")).wait_followups(1)
    it = await emu.slash(mover, world.channel, "takeback")
    request = await it.wait_done()
    assert not it.ephemeral
    assert request.content.startswith(
        f"{mention(other)}さん、{display(mover)}さんが最後の手番（1手目：`S@B2`）の取り消しを求めています。"
    )
    assert [b["label"] for b in request.buttons()] == ["取り消しを許可", "拒否"]
    assert emu.errors == []
