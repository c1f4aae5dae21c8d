"""A game's public posts in the server's language (issue 16.3), whoever acted and whatever their client speaks.

The board post of a move (the mover's own interaction's follow-up), a game-over post, and a forfeit posted with no
interaction at all are built in the server's language (``/settings language``), while the session layer's refusals
are in the caller's; the stored result stays English. Small catalogs of our own (German, Japanese) stand in for
``bot/i18n/locales``. English is unchanged: every other e2e test reads the English messages.
"""

from __future__ import annotations

import pytest

from bot import i18n
from bot.core.errors import UserError
from bot.games.hong import HONG
from bot.games.hongkong import HONGKONG
from bot.interface.posts import sides, status_line, turn_message
from bot.core.session import Person, result_text
from bot.storage.settings import SettingsStore
from bot.storage.store import GameStore

from tests.bot.harness import display, refused, resign, temporary_catalogs
from tests.e2e.test_lifecycle import HOUR, bots, new_game, place, world  # noqa: F401  (fixtures)

pytestmark = pytest.mark.timeout(240)

MESSAGES = {
    "de": {
        "It's not your turn: {name} ({role}) is to move.": "Du bist nicht am Zug: {name} ({role}) ist dran.",
        "blue": "Blau",
        "orange": "Orange",
        "emperor": "Kaiser",
        "dragon master": "Drachenmeister",
        "whoever accepts": "wer annimmt",
        "{name} plays the {role} and moves first": "{name} spielt den {role} und zieht zuerst",
        "{name} plays the {role}": "{name} spielt den {role}",
        "you play the {role} and move first": "du spielst den {role} und ziehst zuerst",
        "you play the {role}": "du spielst den {role}",
        "{first}; {second}.": "{first}; {second}.",
        "{loser} resigned: {winner} wins.": "{loser} hat aufgegeben: {winner} gewinnt.",
    },
    "ja": {
        "{name} played `{move}`: {happened}.": "{name}さんが`{move}`を打ちました：{happened}。",
        "{mention}, your turn ({role}). Time runs out {when}.": "{mention}さんの番です（{role}）。期限は{when}です。",
        "blue": "青",
        "orange": "オレンジ",
        "{loser} resigned: {winner} wins.": "{loser}さんが投了しました：{winner}さんの勝ちです。",
        "{loser} ran out of time: {winner} wins.": "{loser}さんが時間切れ：{winner}さんの勝ちです。",
        "**Game over.** {result}": "**対局終了。** {result}",
        "{mentions} — thanks for playing!": "{mentions} — 対局ありがとうございました！",
        ("button", "Rematch"): "再戦",
    },
}


@pytest.fixture
def catalogs(tmp_path, monkeypatch):
    """bot/i18n/locales replaced by :data:`MESSAGES` as de.po and ja.po."""
    with temporary_catalogs(tmp_path, MESSAGES, monkeypatch):
        assert i18n.languages() == ("en", "de", "ja")
        yield


def mention(user) -> str:
    return f"<@{user['id']}>"


async def players(redis, world):
    """``(mover, other)``: who moves first in the channel's game, and the other player."""
    first = (await GameStore(redis).get(world.channel)).record.player(0)
    mover = world.ann if first.id == int(world.ann["id"]) else world.ben
    return mover, (world.ben if mover is world.ann else world.ann)


async def test_a_move_and_the_game_over_posted_in_the_servers_language(emu, world, bots, catalogs, redis):
    """German clients, a Japanese server: the mover's board post (their own interaction's follow-up) and the final
    board are Japanese — text and Rematch button; a refusal of the session layer is German, to the caller alone."""
    emu.locale = "de"
    await SettingsStore(redis).update(world.guild, language="ja")
    await bots()
    await new_game(emu, world)
    mover, other = await players(redis, world)

    post = await place(emu, world, mover, "B2")
    head, score, turn = post.content.split("\n")
    # what the move did has no Japanese in this catalog: English inside the Japanese sentence
    assert head == f"{display(mover)}さんが`S@B2`を打ちました：{display(mover)} takes the lead, 1–0。"
    assert score.startswith("Buildings: ")  # no translation in this catalog: English, as the fallback
    deadline = int((await GameStore(redis).get(world.channel)).record.deadline)
    assert (
        turn == f"{mention(other)}さんの番です（オレンジ）。期限は<t:{deadline}:R>です。"
    )  # Discord says when, in Japanese
    assert post.attachments

    it = await emu.slash(mover, world.channel, "hongkong place", square="C2")
    assert await refused(it) == f"Du bist nicht am Zug: {display(other)} (Orange) ist dran."

    final = await resign(emu, other, world.channel)
    assert final.content.split("\n") == [
        f"**対局終了。** {display(other)}さんが投了しました：{display(mover)}さんの勝ちです。",
        f"{mention(world.ann)} {mention(world.ben)} — 対局ありがとうございました！",
    ]
    assert final.buttons()[0]["label"] == "再戦" and final.attachments
    game_id = final.button("再戦")["custom_id"].split(":")[-1]
    record = await GameStore(redis).finished(world.channel, game_id)
    assert record.result.text == f"{display(other)} resigned: {display(mover)} wins."  # stored: English
    assert emu.errors == []


async def test_a_forfeit_posted_with_no_interaction_in_the_servers_language(emu, world, bots, catalogs, clock, redis):
    """The timers post a forfeit outside any interaction: in the server's language too."""
    await SettingsStore(redis).update(world.guild, language="ja")
    await bots()
    await new_game(emu, world)
    mover, other = await players(redis, world)
    await place(emu, world, mover, "A1")
    clock.advance(25 * HOUR)
    final = await emu.wait_for_message(world.channel, lambda m: "時間切れ" in m.content)
    assert final.content.startswith(
        f"**対局終了。** {display(other)}さんが時間切れ：{display(mover)}さんの勝ちです。\n"
    )
    assert final.buttons()[0]["label"] == "再戦"


async def test_a_post_is_built_in_the_language_it_is_asked_in(layer, catalogs):
    """The builders say things in the current language: a refusal raised while a German caller acts is German, the
    same turn's post built ``with i18n.language("ja")`` Japanese, and the stored result English."""
    ann, ben = Person(1, "Ann"), Person(2, "Ben")
    challenge = await layer.challenge(
        HONGKONG, guild_id=9, channel_id=7, challenger=ann, opponent=ben, options={"first": "me"}
    )
    await layer.accept(7, challenge.id, ben)
    i18n.use("de")
    try:
        with pytest.raises(UserError, match=r"^Du bist nicht am Zug: Ann \(Blau\) ist dran\.$"):
            await layer.play(HONGKONG, 7, ben.id, "S@A1")
        turn = await layer.resign(HONGKONG, 7, ann.id)
        assert turn.record.result.text == "Ann resigned: Ben wins."
        assert result_text(HONGKONG, turn.record) == "Ann hat aufgegeben: Ben gewinnt."
        with i18n.language("ja"):
            text, view = turn_message(HONGKONG, turn)
        assert (
            text
            == "**対局終了。** Annさんが投了しました：Benさんの勝ちです。\n<@1> <@2> — 対局ありがとうございました！"
        )
        assert view.children[0].item.label == "再戦"
        assert i18n.current() == "de"
    finally:
        i18n.use("en")


async def test_sides_say_each_role_in_the_current_language(layer, catalogs):
    """Hong's roles are people (an article in the sentence: "den Kaiser"); words of ours that start the sentence
    are capitalised ("Du", "Wer"), a name never; English is as before."""
    ann, ben = Person(1, "Ann"), Person(2, "Ben")
    open_challenge = await layer.challenge(
        HONG, guild_id=9, channel_id=8, challenger=ann, opponent=None, options={"role": "dragon_master"}
    )
    with i18n.language("de"):
        assert sides(HONG, open_challenge) == (
            "Wer annimmt spielt den Kaiser und zieht zuerst; Ann spielt den Drachenmeister."
        )
    record, game = await layer.accept(8, open_challenge.id, ben)
    with i18n.language("de"):
        assert sides(HONG, record, you=ben.id) == (
            "Du spielst den Kaiser und ziehst zuerst; Ann spielt den Drachenmeister."
        )
    assert sides(HONG, record) == "Ben plays the emperor and moves first; Ann plays the dragon master."
    assert sides(HONG, record, you=ann.id) == "Ben plays the emperor and moves first; you play the dragon master."
    with i18n.language("ja"):  # the role has no Japanese in this catalog: English inside the Japanese sentence
        assert status_line(HONG, game, record).endswith(
            f"\n<@2>さんの番です（emperor）。期限は<t:{int(record.deadline)}:R>です。"
        )
    assert status_line(HONG, game, record).endswith(
        f"\n<@2>, your turn (emperor). Time runs out <t:{int(record.deadline)}:R>."
    )
