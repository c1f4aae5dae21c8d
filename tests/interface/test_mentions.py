"""How messages name commands and options (bot.interface.mentions): mentions with the synced ids, names as Discord shows
them in the message's language (the real catalogs), and the typed form when no id is known."""

from __future__ import annotations

import pytest

from bot import i18n
from bot.interface import mentions
from bot.interface.extract import command_tree


@pytest.fixture
async def installed():
    tree = await command_tree()
    mentions.install(tree, {"hong": 111, "settings": 222, "leaderboard": 333})
    yield tree
    mentions.install(None, {})


async def test_a_command_with_a_known_id_is_a_mention_in_every_language(installed):
    assert mentions.command("hong place") == "</hong place:111>"
    with i18n.language("ja"):
        assert mentions.command("hong place") == "</hong place:111>"  # Discord draws it in each reader's language
    assert mentions.command("settings") == "</settings:222>"


async def test_without_an_id_a_command_is_written_as_typed_in_the_current_language(installed):
    assert mentions.command("hongkong place") == "`/hongkong place`"
    with i18n.language("de"):
        assert mentions.command("hongkong place") == "`/hongkong setzen`"
        assert mentions.typed("replay") == "/wiederholung"
        assert mentions.typed("game abort") == "/partie abbrechen"
    with i18n.language("ja"):
        assert mentions.typed("hong dragon") == "/hong 龍"


async def test_options_are_named_as_discord_shows_them_in_the_current_language(installed):
    assert mentions.option("hong place", "rotate") == "rotate"
    with i18n.language("de"):
        assert mentions.option("hong place", "rotate") == "drehen"
        assert mentions.option("settings", "threads") == "threads"  # German Discord says "Threads" too
        assert mentions.option("record", "game") == "partie"
    with i18n.language("fr"):
        assert mentions.option("hongkong challenge", "opponent") == "adversaire"
    with i18n.language("zh_CN"):
        assert mentions.option("settings", "turn_timer") == "回合时限"


async def test_an_option_the_tree_lacks_is_named_by_the_catalog_alone(installed):
    with i18n.language("es"):
        assert mentions.option("hong place", "level") == "nivel"
        assert mentions.option("no such command", "square") == "casilla"


def test_before_install_commands_are_typed_in_english():
    mentions.install(None, {})
    assert mentions.command("hong board") == "`/hong board`"
    assert mentions.installed_ids() == {}


async def test_a_command_of_a_game_no_longer_hosted_is_written_as_typed(installed):
    mentions.install(installed, {})
    with i18n.language("de"):
        assert mentions.command("chess challenge") == "`/chess herausfordern`"
        assert mentions.typed("chess") == "/chess"


async def test_a_command_with_its_options_is_written_as_a_player_types_it(installed):
    assert (
        mentions.invoked("hong place", {"square": "B3", "rotate": True}) == "</hong place:111> `square:B3 rotate:True`"
    )
    assert mentions.invoked("hongkong place", {"square": "C2", "quick": "E1"}) == "`/hongkong place square:C2 quick:E1`"
    with i18n.language("de"):
        assert mentions.invoked("hong place", {"square": "B3"}) == "</hong place:111> `feld:B3`"
        assert mentions.invoked("hongkong place", {"square": "B2", "piece": "roof"}) == (
            "`/hongkong setzen feld:B2 teil:Dach`"  # a choice by its name in the language
        )
    assert mentions.invoked("hong dragon", {}) == "</hong dragon:111>"
