"""Slash commands in every language (issue 16): the names, descriptions and choices Discord receives come from the
catalogs and always pass Discord's rules (a bad translation is left out, never sent); ``python -m bot.i18n extract``
finds them with their contexts; ``/settings language`` and the commands' own refusals in the caller's language.

The command tree is the bot's real one (built offline, or synced by a running bot to the emulator, which checks the
localisations as Discord does); the catalogs are small ones of our own in a temporary folder (bot/i18n/locales is left
alone), except in the test over the real catalogs.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import discord
from discord import app_commands
import pytest
from babel.messages.pofile import read_po

from bot import i18n
from bot.interface import translator
from bot.interface.client import sync_commands
from bot.storage.settings import SettingsStore
from engine import registry
from bot.interface.extract import command_tree, main
from bot.interface.translator import CommandTranslator, command_strings, valid_name
from tests.emulator import PERMISSIONS, limits
from tests.emulator.errors import ErrorTree

from tests.bot.harness import make_world, refused, temporary_catalogs
from tests.e2e.test_lifecycle import bots  # noqa: F401  (bots started on demand, on the test clock)

pytestmark = pytest.mark.timeout(240)

NAME = "command name"
#: German names, descriptions and choices: good ones, and ones Discord would refuse.
GERMAN = {
    (NAME, "place"): "setzen",  # good: every game's /<game> place
    (NAME, "board"): "brett",  # good
    (NAME, "resign"): "Aufgeben!",  # not a name: a capital and a "!"
    (NAME, "challenge"): "zur partie fordern",  # not a name: spaces
    (NAME, "square"): "feld",  # clashes with "quick" in /hongkong place (both left out there), fine in /hong place
    (NAME, "quick"): "feld",
    (NAME, "games"): "spiele",  # two top-level commands translated alike: both left out
    (NAME, "game"): "spiele",
    (NAME, "turn_timer"): "zugzeit",
    "Show or change the bot's settings for this server": "Die Einstellungen des Bots für diesen Server zeigen oder ändern",
    "Resign your Hong Kong game in this channel": "Gib deine Partie Hong Kong in diesem Kanal auf " + "bitte " * 20,
    ("choice", "server"): "Server",
    ("choice", "Hong Kong"): "Hongkong",  # a game's title is never translated
    ("choice", "English"): "Englisch",  # nor a language's own name
    ("choice", "auto: the server's language in Discord"): "auto: die Sprache des Servers in Discord",
}


@pytest.fixture
def german(tmp_path, monkeypatch):
    with temporary_catalogs(tmp_path, {"de": GERMAN}, monkeypatch):
        yield


async def payloads(tree: discord.app_commands.CommandTree) -> list[dict]:
    """What a sync sends: every global command with its localisations."""
    return [await command.get_translated_payload(tree, tree.translator) for command in tree.get_commands()]


async def real_tree() -> discord.app_commands.CommandTree:
    tree = await command_tree()
    await tree.set_translator(CommandTranslator(tree))
    return tree


def find(items: list[dict], *path: str) -> dict:
    for name in path:
        item = next(i for i in items if i["name"] == name)
        items = item.get("options") or item.get("choices") or []
    return item


def names(item: dict) -> list[str]:
    """Every localised name of a command and of everything under it."""
    found = list((item.get("name_localizations") or {}).values())
    for option in item.get("options") or []:
        found += names(option)
    return found


def refusals(commands: list[dict]) -> dict:
    """The emulator's (Discord's) verdict on a bulk overwrite of ``commands``: {} when it accepts it."""
    tree = ErrorTree()
    limits.validate_command_list(tree, commands)
    return tree.to_dict() if tree else {}


async def test_translated_names_that_break_discords_rules_are_left_out(german, caplog):
    translator._refuse_once.cache_clear()  # each refusal is logged once a process
    sent = await payloads(await real_tree())
    assert refusals(sent) == {}
    for command in sent:
        assert all(valid_name(name) for name in names(command)), command["name"]
    hong, hongkong, settings = find(sent, "hong"), find(sent, "hongkong"), find(sent, "settings")
    assert find([hong], "hong", "place")["name_localizations"] == {"de": "setzen"}  # good: kept
    assert find([hongkong], "hongkong", "board")["name_localizations"] == {"de": "brett"}
    assert find([hongkong], "hongkong", "resign").get("name_localizations") == {}  # a capital and "!": left out
    assert find([hong], "hong", "challenge").get("name_localizations") == {}  # spaces
    assert find([hong], "hong", "place", "square")["name_localizations"] == {"de": "feld"}
    assert "name_localizations" not in find([hongkong], "hongkong", "place", "square")  # clashes with quick there
    assert "name_localizations" not in find([hongkong], "hongkong", "place", "quick")
    assert find(sent, "games")["name_localizations"] == find(sent, "game")["name_localizations"] == {}
    assert find([settings], "settings", "turn_timer")["name_localizations"] == {"de": "zugzeit"}
    assert settings["description_localizations"] == {"de": GERMAN["Show or change the bot's settings for this server"]}
    # a description over 100 characters is left out; the locales of one language all get it (es-419 and es-ES …)
    assert find([hongkong], "hongkong", "resign")["description_localizations"] == {}
    scope = find(sent, "leaderboard", "scope")
    assert [c.get("name_localizations") for c in scope["choices"]] == [{"de": "Server"}, None]
    games = find(sent, "leaderboard", "game")["choices"]  # one a game, none translated in this catalog
    assert [c.get("name_localizations") for c in games] == [None] * len(registry.games())
    language = find([settings], "settings", "language")
    assert [(c["name"], c.get("name_localizations")) for c in language["choices"]] == [
        ("auto: the server's language in Discord", {"de": "auto: die Sprache des Servers in Discord"}),
        ("English", None),
        ("Deutsch", None),
    ]
    warned = " ".join(r.getMessage() for r in caplog.records if r.name == "bot.interface.translator")
    for bad in ("'Aufgeben!'", "'zur partie fordern'", "'feld'", "'spiele'", "over 100 characters"):
        assert bad in warned


async def test_the_names_discord_receives_pass_its_rules_with_the_real_catalogs():
    """Whatever bot/i18n/locales holds now: every localised name is one Discord takes, and Discord (the emulator's
    checks) accepts the whole sync; without catalogs, nothing is localised and English is what Discord gets."""
    sent = await payloads(await real_tree())
    assert refusals(sent) == {}
    for command in sent:
        assert all(valid_name(name) for name in names(command)), command["name"]
    if i18n.languages() == (i18n.SOURCE,):
        assert all(names(command) == [] for command in sent)


async def test_extract_finds_the_command_strings_with_their_contexts():
    strings = await command_strings(await command_tree())
    assert (NAME, "place", "/hong/place") in strings
    assert (NAME, "turn_timer", "/settings(turn_timer)") in strings
    assert (None, "Show or change the bot's settings for this server", "/settings") in strings
    assert ("choice", "server", "/leaderboard(scope)") in strings
    assert ("choice", "auto: the server's language in Discord", "/settings(language)") in strings
    assert ("choice", "easy", "/hong/challenge(level)") in strings
    messages = {message for _context, message, _where in strings}
    assert not messages & {"Hong Kong", "English", "Deutsch"}  # the same in every language
    assert len(strings) == len({(context, message) for context, message, _where in strings})


def test_extract_writes_the_template_and_updates_each_catalog(tmp_path, monkeypatch, capsys):
    """``python -m bot.i18n extract`` (its main) into a temporary bot/i18n/locales holding a German catalog: the
    template has the code's messages and the commands', and the German catalog gains them, keeping its
    translation."""
    # extract() reads the code beside bot/i18n/locales: a copy of the code, with a bot/i18n/locales of its own
    root = Path(i18n.__file__).resolve().parents[2]
    for folder in i18n.SOURCES:
        shutil.copytree(root / folder, tmp_path / folder, ignore=shutil.ignore_patterns("locales", "__pycache__"))
    locales = tmp_path / "bot" / "i18n" / "locales"
    locales.mkdir()
    with temporary_catalogs(locales, {"de": {(NAME, "place"): "setzen"}}, monkeypatch):
        monkeypatch.setattr(i18n, "TEMPLATE", locales / "hongbot.pot")
        assert main(["extract"]) == 0
        with (locales / "hongbot.pot").open("rb") as f:
            template = read_po(f)
        with (locales / "de.po").open("rb") as f:
            german = read_po(f, locale="de")
    assert "messages" in capsys.readouterr().out
    place = template.get("place", context=NAME)
    assert place is not None and ("/hong/place", None) in place.locations
    assert template.get("Show or change the bot's settings for this server") is not None
    assert template.get("Use {settings} in a server.") is not None  # from the code
    assert template.get("{count} win", context=None) is not None  # an n_ message
    assert german.get("place", context=NAME).string == "setzen"
    assert german.get("turn_timer", context=NAME) is not None


# --- end to end -----------------------------------------------------------------------------------------------


@pytest.fixture
async def world(emu):
    world = make_world(emu)
    world.admin = emu.create_user("ada", locale="de")  # a German client
    world.english_admin = emu.create_user("eve")
    for admin in (world.admin, world.english_admin):
        emu.add_member(world.guild, admin, permissions=PERMISSIONS["manage_guild"])
    return world


async def test_the_sync_carries_the_localisations_and_a_changed_catalog_syncs_again(
    emu, world, bots, german, redis, tmp_path, monkeypatch
):
    running = await bots()
    synced = emu.guild_commands[world.guild]
    assert find(synced, "hong", "place")["name_localizations"] == {"de": "setzen"}
    assert find(synced, "settings")["description_localizations"]["de"].startswith("Die Einstellungen")
    assert emu.errors == []
    tree, guild = running.bot.tree, discord.Object(world.guild)
    assert not await sync_commands(tree, redis, guild)  # nothing changed: no request
    with temporary_catalogs(tmp_path, {"de": {**GERMAN, (NAME, "replay"): "wiederholung"}}, monkeypatch):
        assert await sync_commands(tree, redis, guild)  # a new translation: synced again
        assert find(emu.guild_commands[world.guild], "replay")["name_localizations"] == {"de": "wiederholung"}


GERMAN_REFUSALS = {
    "'{text}' is too long: the turn timer can be at most {most} (it can be between {least} and {most}).": "'{text}' ist zu lang: Die Zugzeit darf höchstens {most} betragen (zwischen {least} und {most}).",
    "The option `{option}` of {command} takes {accepts}, not {got}.": "Die Option `{option}` von {command} nimmt {accepts}, nicht {got}.",
    "one of {choices}": "eines von {choices}",
    (NAME, "scope"): "bereich",
    "(If Discord offered this, its list of commands is out of date: reload it with Ctrl+R or restart the app.)": "(Falls Discord das angeboten hat, ist seine Befehlsliste veraltet: Lade sie mit Strg+R neu.)",
    "Settings updated for this server:": "Einstellungen dieses Servers geändert:",
    "• language of the bot's posts: **{language}**": "• Sprache der Beiträge des Bots: **{language}**",
    "• language of the bot's posts: **{language}** (auto: the server's language in Discord)": "• Sprache der Beiträge des Bots: **{language}** (automatisch: die Sprache des Servers in Discord)",
}


async def test_a_german_client_is_refused_in_german(emu, world, bots, tmp_path, monkeypatch, redis):
    with temporary_catalogs(tmp_path, {"de": GERMAN_REFUSALS}, monkeypatch):
        await bots()
        it = await emu.slash(world.admin, world.channel, "settings", turn_timer="3 weeks")
        assert await refused(it) == (
            "'3 weeks' ist zu lang: Die Zugzeit darf höchstens 7 Tage betragen (zwischen 1 Minute und 7 Tage)."
        )
        it = await emu.slash_unchecked(world.admin, world.channel, "leaderboard", game="hongkong", scope="universe")
        leaderboard = emu.mention(world.guild, "leaderboard")
        assert await refused(it) == (
            f"Die Option `bereich` von {leaderboard} nimmt eines von `server` oder `global`, "
            "nicht `universe`. (Falls Discord das angeboten hat, ist seine Befehlsliste "
            "veraltet: Lade sie mit Strg+R neu.)"
        )
        # the same refusals to an English client: English, as ever
        it = await emu.slash(world.english_admin, world.channel, "settings", turn_timer="3 weeks")
        assert await refused(it) == (
            "'3 weeks' is too long: the turn timer can be at most 7 days (it can be between 1 minute and 7 days)."
        )
        it = await emu.slash_unchecked(
            world.english_admin, world.channel, "leaderboard", game="hongkong", scope="universe"
        )
        assert await refused(it) == (
            f"The option `scope` of {leaderboard} takes one of `server` or `global`, not "
            "`universe`. (If Discord offered this, its list of commands is out of date: "
            "reload it with Ctrl+R or restart the app.)"
        )
        assert (await SettingsStore(redis).get(world.guild)).turn_timer == 24 * 3600
    assert emu.errors == []


async def test_settings_language_sets_and_shows_the_servers_language(emu, world, bots, tmp_path, monkeypatch, redis):
    with temporary_catalogs(tmp_path, {"de": GERMAN_REFUSALS, "ja": {}}, monkeypatch):
        await bots()
        settings = find(emu.guild_commands[world.guild], "settings", "language")
        assert [(c["name"], c["value"]) for c in settings["choices"]] == [
            ("auto: the server's language in Discord", "auto"),
            ("English", "en"),
            ("Deutsch", "de"),
            ("日本語", "ja"),
        ]
        # an English admin sets Japanese: told in English, stored, and /settings shows it
        reply = await (await emu.slash(world.english_admin, world.channel, "settings", language="ja")).wait_done()
        assert reply.content.startswith("Settings updated for this server:")
        assert reply.content.endswith("\n• language of the bot's posts: **日本語**")
        assert (await SettingsStore(redis).get(world.guild)).language == "ja"
        assert await SettingsStore(redis).language_of(discord.Object(world.guild)) == "ja"
        reply = await (await emu.slash(world.english_admin, world.channel, "settings")).wait_done()
        assert reply.content.startswith("Settings for this server:\n")
        assert reply.content.endswith("• language of the bot's posts: **日本語**")
        # auto: the server's language in Discord (German here), said to a German admin in German
        await emu.set_guild_locale(world.guild, "de")
        reply = await (await emu.slash(world.admin, world.channel, "settings", language="auto")).wait_done()
        assert reply.content.startswith("Einstellungen dieses Servers geändert:\n")
        assert reply.content.endswith(
            "• Sprache der Beiträge des Bots: **Deutsch** (automatisch: die Sprache des Servers in Discord)"
        )
        assert (await SettingsStore(redis).get(world.guild)).language is None
        # a language Discord's client would not offer is refused, and nothing changes
        it = await emu.slash_unchecked(world.english_admin, world.channel, "settings", language="xx")
        assert (
            "takes one of `auto: the server's language in Discord`, `English`, `Deutsch` or `日本語`, not `xx`"
        ) in await refused(it)
        assert (await SettingsStore(redis).get(world.guild)).language is None
    assert emu.errors == []


async def test_the_commands_ids_are_kept_fetched_when_missing_and_installed_for_mentions(emu, world, bots, redis):
    """A sync keeps the ids Discord gave the commands; a restart with unchanged commands (no sync) installs the
    kept ids; with them gone (a database from before, a lost key) it fetches them once and keeps them."""
    from bot.interface import mentions
    from bot.interface.client import command_ids
    from bot.storage.keys import Keys

    running = await bots()
    synced = {c["name"]: int(c["id"]) for c in emu.guild_commands[world.guild]}
    assert set(synced) >= {"hong", "hongkong", "settings", "leaderboard", "takeback"}
    key = Keys.command_ids(running.bot.application_id, world.guild)
    assert {k.decode() if isinstance(k, bytes) else k: int(v) for k, v in (await redis.hgetall(key)).items()} == synced
    assert mentions.installed_ids() == synced
    assert mentions.command("hong board") == f"</hong board:{synced['hong']}>" == emu.mention(world.guild, "hong board")
    tree, guild = running.bot.tree, discord.Object(world.guild)
    await redis.delete(key)
    assert await command_ids(tree, redis, guild) == synced  # fetched from Discord
    assert await redis.hlen(key) == len(synced)  # and kept
    await running.stop()
    assert mentions.installed_ids() == {}  # a stopped bot's ids are not used by anything else in the process
    syncs = emu.sync_count
    await bots()  # unchanged commands: not synced again, the kept ids installed
    assert emu.sync_count == syncs and mentions.installed_ids() == synced


async def test_more_languages_than_discord_takes_as_choices_are_suggested_as_typed(
    emu, world, bots, tmp_path, monkeypatch, redis
):
    """With more catalogs than Discord's 25 choices (31 Discord languages exist), /settings language suggests
    them as the admin types instead of leaving some out; a typed code that is no language is refused."""
    from bot.exts.admin import MAX_CHOICES, complete_language, language_choices, language_option

    codes = [
        "bg",
        "cs",
        "da",
        "de",
        "el",
        "es",
        "fi",
        "fr",
        "hi",
        "hr",
        "hu",
        "id",
        "it",
        "ja",
        "ko",
        "lt",
        "nl",
        "nb",
        "pl",
        "pt_BR",
        "ro",
        "ru",
        "sv",
        "th",
        "tr",
        "uk",
        "vi",
        "zh_CN",
        "zh_TW",
    ]
    with temporary_catalogs(tmp_path, {code: {} for code in codes}, monkeypatch):
        choices = language_choices()
        assert len(choices) == 1 + 1 + len(codes) > MAX_CHOICES  # auto, English, every catalog
        assert [c.value for c in await complete_language(None, "zh")] == ["zh_CN", "zh_TW"]
        assert [c.value for c in await complete_language(None, "DEUTSCH")] == ["de"]
        assert len(await complete_language(None, "")) == MAX_CHOICES

        async def settings(interaction, language: str) -> None: ...

        command = app_commands.command(name="settings", description="x")(language_option(choices)(settings))
        assert command._params["language"].autocomplete is not None and not command._params["language"].choices
        command = app_commands.command(name="settings", description="x")(language_option(choices[:3])(settings))
        assert [c.value for c in command._params["language"].choices] == ["auto", "en", "bg"]
    # the real /settings refuses a language it doesn't speak, whichever way the value came
    await bots()
    it = await emu.slash_unchecked(world.english_admin, world.channel, "settings", language="xx")
    assert "`xx`" in await refused(it)
    assert (await SettingsStore(redis).get(world.guild)).language is None
