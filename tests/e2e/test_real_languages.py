"""A game with the real catalogs (bot/i18n/locales), as issue 16 asks: a German and a Japanese client in a French
server. Each player's refusals come in their own language, the channel's posts in the server's (its preferred
locale in Discord, no ``/settings language``), and nothing is English where a catalog has the words.

Expected texts are built by the bot's own builders inside ``i18n.language(...)``, so the test checks that the right
language reaches each reply and post; tests/i18n/test_catalogs.py checks the catalogs' contents.
"""

from __future__ import annotations

import re

import pytest

from bot import i18n
from bot.games.hongkong import HONGKONG
from bot.interface.replies import refusal
from bot.storage.store import GameStore
from engine import IllegalMove, hongkong

from tests.bot.harness import display, refused
from tests.e2e.test_lifecycle import bots, place, world  # noqa: F401  (fixtures)

pytestmark = pytest.mark.timeout(240)
JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")


def mention(user) -> str:
    return f"<@{user['id']}>"


async def test_a_game_with_german_and_japanese_clients_in_a_french_server(emu, world, bots, redis):
    assert {"de", "ja", "fr"} <= set(i18n.languages())
    emu.set_locale(world.ann, "de")
    emu.set_locale(world.ben, "ja")
    await emu.set_guild_locale(world.guild, "fr")
    await bots()

    # the challenge is public: French, with French buttons; Ben (Japanese) accepts with the French "Accept" button
    it = await emu.slash(world.ann, world.channel, "hongkong challenge", opponent=world.ben, first="me")
    challenge = await it.wait_done()
    with i18n.language("fr"):
        accept = i18n.p_("button", "Accept")
    assert accept != "Accept" and challenge.button(accept)
    click = await emu.click(world.ben, challenge, challenge.button(accept)["custom_id"])
    await click.wait_done()

    # Ben moves out of turn: refused in Japanese, to him alone
    it = await emu.slash(world.ben, world.channel, "hongkong place", square="C2")
    text = await refused(it)
    with i18n.language("ja"):
        want = i18n._("It's not your turn: {name} ({role}) is to move.", name=display(world.ann), role=HONGKONG.role(0))
    assert text == want and JAPANESE.search(text)

    # Ann moves: the board post in French, pinging Ben with the French turn line
    post = await place(emu, world, world.ann, "B2")
    with i18n.language("fr"):
        deadline = (await GameStore(redis).get(world.channel)).record.deadline
        turn = i18n._(
            "{mention}, your turn ({role}). Time runs out {when}.",
            mention=mention(world.ben),
            role=HONGKONG.role(1),
            when=f"<t:{int(deadline)}:R>",
        )
    assert post.content.split("\n")[-1] == turn and "your turn" not in turn
    assert post.attachments

    # Ben plays onto Ann's fresh building illegally: the engine's refusal, in Japanese
    game = hongkong.new_game(first=0)
    game.play("S@B2")
    with pytest.raises(IllegalMove) as caught:
        game.play("R@B2")
    it = await emu.slash(world.ben, world.channel, "hongkong place", square="B2", piece="roof")
    text = await refused(it)
    with i18n.language("ja"):
        assert text == refusal(caught.value)
    assert text != str(caught.value) and JAPANESE.search(text)

    # Ann types a square that is none: refused in German (not the English an English client gets)
    it = await emu.slash(world.ann, world.channel, "hongkong place", square="B 3 4")
    text = await refused(it)
    assert text != (await refused_in_english(emu, world)) and text

    assert (await GameStore(redis).get(world.channel)).record.state["moves"] == ["S@B2"]  # only Ann's move stored
    assert emu.errors == []


async def refused_in_english(emu, world) -> str:
    """The same refusal for an English client (Ann switched back, then to German again)."""
    emu.set_locale(world.ann, "en-US")
    try:
        return await refused(await emu.slash(world.ann, world.channel, "hongkong place", square="B 3 4"))
    finally:
        emu.set_locale(world.ann, "de")


async def test_messages_name_commands_and_options_as_a_german_client_shows_them(emu, world, bots, redis):
    """Discord shows a German client the German command and option names of the catalog (`/hong setzen`,
    `drehen`), so a German refusal must not tell them to type the English ones: commands are mentions (Discord
    draws each in the reader's language), options carry the catalog's German name. Texts written out here, from
    bot/i18n/locales/de.po."""
    for user in (world.ann, world.ben, world.admin):
        emu.set_locale(user, "de")
    await emu.set_guild_locale(world.guild, "de")
    await bots()
    hong = next(c for c in emu.guild_commands[world.guild] if c["name"] == "hong")
    place_command = next(o for o in hong["options"] if o["name"] == "place")
    assert place_command["name_localizations"]["de"] == "setzen"
    assert [o["name_localizations"]["de"] for o in place_command["options"]] == ["feld", "drehen"]

    it = await emu.slash(world.ann, world.channel, "hong challenge", opponent=world.ben, role="emperor")
    challenge = await it.wait_done()
    with i18n.language("de"):
        accept = i18n.p_("button", "Accept")
    click = await emu.click(world.ben, challenge, challenge.button(accept)["custom_id"])
    await click.wait_done()

    # a square typed with H while rotate:True says V: the option by its German name
    it = await emu.slash(world.ann, world.channel, "hong place", square="B3H", rotate=True)
    assert await refused(it) == "`B3H` sagt H, aber `drehen:True` sagt V: Gib nur eins davon an."
    # a watcher who tries to move: told to watch with /hong board, as a mention
    it = await emu.slash(world.admin, world.channel, "hong place", square="B3")
    board = emu.mention(world.guild, "hong board")
    assert board.startswith("</hong board:")
    assert await refused(it) == (
        f"Du spielst in dieser Partie nicht mit ({display(world.ann)} gegen "
        f"{display(world.ben)}). Schau mit {board} zu oder fordere jemanden in einem "
        f"anderen Kanal heraus."
    )
    # a choice Discord never offered (an outdated client): the choices named as the German client lists them
    it = await emu.slash_unchecked(world.ann, world.channel, "hongkong challenge", first="nobody")
    challenge_command = emu.mention(world.guild, "hongkong challenge")
    assert (await refused(it)).startswith(
        f"Die Option `beginn` von {challenge_command} erwartet einen der Werte "
        "`ich`, `Gegner` oder `zufällig`, nicht `nobody`."
    )
    assert (await GameStore(redis).get(world.channel)).record.state["moves"] == []
    assert emu.errors == []
