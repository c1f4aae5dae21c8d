"""Tests for the local Discord emulator (tests/emulator), driven by a real discord.py bot."""

from __future__ import annotations

import asyncio
import contextlib
import io
from typing import Any, AsyncIterator, Dict, List, Optional

import aiohttp
import discord
import pytest
from discord import app_commands
from discord.ext import commands
from PIL import Image

from tests.emulator import DiscordEmulator, EmulatorAssertion, EmulatorTimeout, InteractionFailed, PERMISSIONS
from tests.emulator import limits
from tests.emulator.errors import ErrorTree

MANAGE_GUILD = PERMISSIONS["manage_guild"]


# ============================================================================================
# A tiny bot exercising the features the real bot needs
# ============================================================================================


def png_bytes(width: int = 7, height: int = 5) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (width, height), (200, 30, 30)).save(buf, format="PNG")
    return buf.getvalue()


class SixRows(discord.ui.View):
    """discord.py refuses to build a 6th row itself, so hand-craft the payload."""

    def to_components(self) -> List[Dict[str, Any]]:
        return [
            {"type": 1, "components": [{"type": 2, "style": 1, "label": f"b{i}", "custom_id": f"row-{i}"}]}
            for i in range(6)
        ]


class DuelView(discord.ui.View):
    def __init__(self, bot: "EmuBot") -> None:
        super().__init__(timeout=60)
        self.bot = bot

    @discord.ui.button(label="Accept", style=discord.ButtonStyle.success, custom_id="duel:accept")
    async def accept(self, interaction: discord.Interaction, button: discord.ui.Button) -> None:
        self.bot.seen.append(("clicked", interaction.user.id, button.custom_id))
        await interaction.response.edit_message(content=f"accepted by {interaction.user.name}", view=None)


class FeedbackModal(discord.ui.Modal, title="Feedback"):
    text = discord.ui.TextInput(label="Your thoughts", custom_id="feedback:text", max_length=200)

    async def on_submit(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(f"thanks for: {self.text.value}", ephemeral=True)


class EmuBot(commands.Bot):
    def __init__(self, label: str, guild_id: Optional[int] = None, **options: Any) -> None:
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=discord.Intents.default(),
            guild_ready_timeout=0.1,
            **options,
        )
        self.label = label
        self.guild_id = guild_id
        self.seen: List[Any] = []
        self._register()

    async def setup_hook(self) -> None:
        if self.guild_id is None:
            await self.tree.sync()
        else:  # the usual development setup: commands only in one guild, available at once
            guild = discord.Object(self.guild_id)
            self.tree.copy_global_to(guild=guild)
            self.tree.clear_commands(guild=None)
            await self.tree.sync(guild=guild)

    async def before_identify_hook(self, shard_id: Any, *, initial: bool = False) -> None:
        # discord.py sleeps 5 s before every non-initial IDENTIFY (Discord's identify rate limit);
        # skip that so the re-identify test stays fast.
        pass

    def _register(self) -> None:
        bot = self
        hongkong = app_commands.Group(name="hongkong", description="Play Hong Kong")

        @hongkong.command(description="Challenge someone to a game")
        @app_commands.describe(opponent="Who to play against", colour="Your colour")
        async def challenge(interaction: discord.Interaction, opponent: discord.Member, colour: str) -> None:
            bot.seen.append(("challenge", type(opponent).__name__, opponent.id, colour))
            await interaction.response.send_message(
                f"{interaction.user.name} challenges {opponent.display_name} playing {colour}"
            )

        @challenge.autocomplete("colour")
        async def colour_autocomplete(interaction: discord.Interaction, current: str) -> List[app_commands.Choice[str]]:
            bot.seen.append(("autocomplete", current))
            if current == "many":  # more than Discord allows
                return [app_commands.Choice(name=f"colour {i}", value=f"c{i}") for i in range(30)]
            colours = ["red", "green", "blue", "black"]
            return [app_commands.Choice(name=c.title(), value=c) for c in colours if c.startswith(current)]

        self.tree.add_command(hongkong)

        @self.tree.command(description="Draw the board (slow, so it defers)")
        async def render(interaction: discord.Interaction) -> None:
            await interaction.response.defer(thinking=True)
            await asyncio.sleep(0.05)
            await interaction.followup.send(
                "here is the board", file=discord.File(io.BytesIO(png_bytes()), "board.png")
            )

        @self.tree.command(description="Only you can see this")
        async def secret(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("for your eyes only", ephemeral=True)

        @self.tree.command(description="Say which bot instance answers")
        async def whoami(interaction: discord.Interaction) -> None:
            await interaction.response.send_message(f"I am {bot.label}")

        @self.tree.command(description="Answers too late")
        async def slow(interaction: discord.Interaction) -> None:
            await asyncio.sleep(3.5)
            try:
                await interaction.response.send_message("sorry, I was thinking")
            except discord.HTTPException as exc:
                bot.seen.append(("slow", exc.status, exc.code))

        @self.tree.command(description="Answers twice")
        async def twice(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("first answer")
            interaction.response._response_type = None  # bypass discord.py's own guard to reach "Discord"
            try:
                await interaction.response.send_message("second answer")
            except discord.HTTPException as exc:
                bot.seen.append(("twice", exc.status, exc.code))

        @self.tree.command(description="Sends too much text, then recovers")
        async def essay(interaction: discord.Interaction) -> None:
            try:
                await interaction.response.send_message("x" * 2001)
            except discord.HTTPException as exc:
                bot.seen.append(("essay", exc.status, exc.code, exc.text))
                await interaction.response.send_message("that was too long")

        @self.tree.command(description="Sends six rows of buttons")
        async def rows(interaction: discord.Interaction) -> None:
            try:
                await interaction.response.send_message("pick one", view=SixRows())
            except discord.HTTPException as exc:
                bot.seen.append(("rows", exc.status, exc.code, exc.text))
                await interaction.response.send_message("could not build the menu")

        @self.tree.command(description="Start a duel")
        async def duel(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("A duel! Press accept.", view=DuelView(bot))

        @self.tree.command(description="Tell us what you think")
        async def feedback(interaction: discord.Interaction) -> None:
            await interaction.response.send_modal(FeedbackModal())

        @self.tree.command(description="Follows up after a pause")
        async def later(interaction: discord.Interaction) -> None:
            await interaction.response.defer()
            await asyncio.sleep(0.4)
            try:
                await interaction.followup.send("done at last")
            except discord.HTTPException as exc:
                bot.seen.append(("later", exc.status, exc.code))

        @self.tree.command(description="Server settings")
        @app_commands.default_permissions(manage_guild=True)
        async def settings(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("settings", ephemeral=True)


@contextlib.asynccontextmanager
async def running_bot(
    emu: DiscordEmulator,
    label: str = "bot-1",
    guild_id: Optional[int] = None,
    bot: Optional[EmuBot] = None,
    **options: Any,
) -> AsyncIterator[EmuBot]:
    """``options``: discord.py's, e.g. ``shard_id=0, shard_count=2`` for one shard of two. ``bot``: one made
    already (e.g. with a translator set), started instead of a new one."""
    bot = bot or EmuBot(label, guild_id, **options)
    task = asyncio.create_task(bot.start(emu.token), name=f"bot {label}")
    try:
        shard = (options["shard_id"], options["shard_count"]) if "shard_count" in options else None
        await emu.wait_for_ready(timeout=10, shard=shard)
        yield bot
    finally:
        await bot.close()
        await asyncio.wait_for(task, timeout=10)


# ============================================================================================
# fixtures
# ============================================================================================


@pytest.fixture
async def emu() -> AsyncIterator[DiscordEmulator]:
    emulator = DiscordEmulator()
    await emulator.start()  # also points discord.py's Route.BASE and DEFAULT_GATEWAY at it
    try:
        yield emulator
    finally:
        await emulator.stop()


class World:
    def __init__(self, emu: DiscordEmulator) -> None:
        self.gid = emu.create_guild("Test Guild")
        self.cid = emu.create_channel(self.gid, "general")
        self.ann = emu.create_user("ann")
        self.ben = emu.create_user("ben")
        self.admin = emu.create_user("boss")
        emu.add_member(self.gid, self.ann)
        emu.add_member(self.gid, self.ben)
        emu.add_member(self.gid, self.admin, permissions=MANAGE_GUILD)


@pytest.fixture
def world(emu: DiscordEmulator) -> World:
    return World(emu)


@pytest.fixture
async def bot(emu: DiscordEmulator, world: World) -> AsyncIterator[EmuBot]:
    async with running_bot(emu) as b:
        await emu.wait_for_commands(timeout=10)
        yield b


# ============================================================================================
# connection and sync
# ============================================================================================


async def test_bot_connects_identifies_and_syncs(emu: DiscordEmulator, world: World, bot: EmuBot) -> None:
    assert bot.user is not None and bot.user.id == emu.application_id
    assert bot.application_id == emu.application_id
    assert {c["name"] for c in emu.commands} >= {"hongkong", "render", "secret", "duel"}
    group = next(c for c in emu.commands if c["name"] == "hongkong")
    assert [o["name"] for o in group["options"]] == ["challenge"]
    # GUILD_CREATE reached the bot: guild, channel and @everyone are in its cache
    await asyncio.wait_for(bot.wait_until_ready(), 5)
    guild = bot.get_guild(world.gid)
    assert guild is not None and guild.name == "Test Guild"
    assert guild.get_channel(world.cid).name == "general"
    assert guild.default_role.permissions.send_messages
    assert guild.me.guild_permissions.attach_files
    session = emu.sessions[-1]
    conn = session.conn
    # the transport compression discord.py asked for (zlib-stream, or zstd-stream when zstandard is
    # importable) is the one every frame was compressed with
    assert conn is not None and conn.compress_mode == discord.utils._ActiveDecompressionContext.COMPRESSION_TYPE
    assert conn.compressed
    assert conn.heartbeats >= 1  # discord.py heartbeats right after HELLO
    assert emu.errors == []


async def test_guild_commands(emu: DiscordEmulator, world: World) -> None:
    async with running_bot(emu, "guild-bot", guild_id=world.gid):
        await emu.wait_for_commands()
        assert emu.commands == []
        assert "whoami" in {c["name"] for c in emu.guild_commands[world.gid]}
        it = await emu.slash(world.ann, world.cid, "whoami")
        assert it.payload["data"]["guild_id"] == str(world.gid)
        assert (await it.wait_done()).content == "I am guild-bot"
    assert emu.ready_count == 1 and emu.errors == []


async def test_start_points_discord_py_at_the_emulator_and_stop_restores() -> None:
    from discord.gateway import DiscordWebSocket
    from discord.http import Route

    before = (Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY)
    async with DiscordEmulator() as emulator:
        assert Route.BASE == emulator.api_base
        assert str(DiscordWebSocket.DEFAULT_GATEWAY) == emulator.gateway_url
    assert (Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY) == before
    manual = DiscordEmulator(patch_discord=False)
    await manual.start()
    try:
        assert (Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY) == before
        with manual.patch_discord():
            assert Route.BASE == manual.api_base
        assert Route.BASE == before[0]
    finally:
        await manual.stop()


async def test_unauthorised_token_is_refused(emu: DiscordEmulator, world: World) -> None:
    client = discord.Client(intents=discord.Intents.default())
    with pytest.raises(discord.LoginFailure):
        await client.login("not-the-token")
    await client.close()
    assert [e.kind for e in emu.errors] == ["unauthorized"]
    assert emu.errors[0].status == 401


async def test_unknown_route_is_404_and_recorded(emu: DiscordEmulator, world: World, bot: EmuBot) -> None:
    with pytest.raises(discord.NotFound):
        await bot.http.request(discord.http.Route("GET", "/voice/regions"))
    [err] = emu.errors
    assert err.kind == "unknown_route" and err.status == 404 and "/voice/regions" in err.path


# ============================================================================================
# slash commands
# ============================================================================================


async def test_slash_command_reaches_bot_with_resolved_options(emu: DiscordEmulator, world: World, bot: EmuBot) -> None:
    it = await emu.slash(world.ann, world.cid, "hongkong challenge", opponent=world.ben, colour="red")
    response = await it.wait_response(timeout=5)
    assert response["type"] == 4 and it.response_type == 4 and not it.ephemeral
    # the user option arrived resolved as a guild Member, not a bare Object
    assert ("challenge", "Member", int(world.ben["id"]), "red") in bot.seen
    msg = await it.wait_done()
    assert msg.content == "ann challenges ben playing red"
    assert msg.author["id"] == str(emu.application_id) and msg.interaction_id == it.id
    assert emu.messages(world.cid) == [msg]
    data = it.payload["data"]
    assert data["options"][0] == {
        "type": 1,
        "name": "challenge",
        "options": [
            {"type": 6, "name": "opponent", "value": world.ben["id"]},
            {"type": 3, "name": "colour", "value": "red"},
        ],
    }
    assert world.ben["id"] in data["resolved"]["members"]
    assert isinstance(it.payload["member"]["permissions"], str)
    assert emu.errors == []


async def test_slash_refuses_what_discord_would_not_send(emu: DiscordEmulator, world: World, bot: EmuBot) -> None:
    with pytest.raises(EmulatorAssertion, match="'nope' is not a subcommand"):
        await emu.slash(world.ann, world.cid, "hongkong nope")
    with pytest.raises(EmulatorAssertion, match="not synced"):
        await emu.slash(world.ann, world.cid, "chess")
    with pytest.raises(EmulatorAssertion, match=r"no option\(s\) \['colur'\]"):
        await emu.slash(world.ann, world.cid, "hongkong challenge", opponent=world.ben, colur="red")
    with pytest.raises(EmulatorAssertion, match="missing required"):
        await emu.slash(world.ann, world.cid, "hongkong challenge", opponent=world.ben)
    with pytest.raises(EmulatorAssertion, match="needs a subcommand"):
        await emu.slash(world.ann, world.cid, "hongkong")
    # default_member_permissions hides /settings from members without Manage Guild
    with pytest.raises(EmulatorAssertion, match="default_member_permissions"):
        await emu.slash(world.ann, world.cid, "settings")
    it = await emu.slash(world.admin, world.cid, "settings")
    assert (await it.wait_response())["type"] == 4
    assert emu.errors == []


async def test_ephemeral_messages_are_only_visible_to_the_invoker(
    emu: DiscordEmulator, world: World, bot: EmuBot
) -> None:
    secret = await emu.slash(world.ann, world.cid, "secret")
    public = await emu.slash(world.ben, world.cid, "whoami")
    secret_msg = await secret.wait_done()
    public_msg = await public.wait_done()
    assert secret.ephemeral and secret_msg.ephemeral and secret_msg.flags & 64
    assert not public.ephemeral and not public_msg.ephemeral
    assert emu.messages(world.cid) == [public_msg]
    assert emu.messages(world.cid, user=world.ann) == [secret_msg, public_msg]
    assert emu.messages(world.cid, user=world.ben) == [public_msg]
    # the bot cannot fetch an ephemeral message through the channel either
    with pytest.raises(discord.NotFound):
        await bot.http.get_message(world.cid, secret_msg.id)
    emu.errors.clear()


async def test_deferred_command_follow_up_carries_png(emu: DiscordEmulator, world: World, bot: EmuBot) -> None:
    it = await emu.slash(world.ann, world.cid, "render")
    assert (await it.wait_response())["type"] == 5
    final = await it.wait_done(timeout=5)
    [followup] = await it.wait_followups(1)
    assert final is followup
    assert final.content == "here is the board" and not final.loading
    [att] = final.attachments
    assert att.filename == "board.png" and att.content_type == "image/png"
    assert att.data == png_bytes()
    assert Image.open(io.BytesIO(att.data)).size == (7, 5)
    # Discord turns the first follow-up after a "thinking" deferral into an edit of that message
    assert final is it.original and emu.messages(world.cid) == [final]
    # attachment URLs point back at the emulator and serve the bytes
    async with aiohttp.ClientSession() as session:
        async with session.get(att.url) as resp:
            assert resp.status == 200 and await resp.read() == att.data
    assert emu.errors == []


# ============================================================================================
# autocomplete
# ============================================================================================


async def test_autocomplete_returns_choices(emu: DiscordEmulator, world: World, bot: EmuBot) -> None:
    choices = await emu.autocomplete(
        world.ann, world.cid, "hongkong challenge", focused="colour", opponent=world.ben, colour="b"
    )
    assert choices == [{"name": "Blue", "value": "blue"}, {"name": "Black", "value": "black"}]
    assert ("autocomplete", "b") in bot.seen
    assert emu.errors == []


async def test_autocomplete_with_more_than_25_choices_is_refused(
    emu: DiscordEmulator, world: World, bot: EmuBot
) -> None:
    with pytest.raises(InteractionFailed, match="refused"):
        await emu.autocomplete(world.ann, world.cid, "hongkong challenge", focused="colour", colour="many")
    [err] = emu.errors
    assert err.kind == "limit" and err.status == 400 and err.code == 50035
    assert err.body["errors"] == {
        "data": {
            "choices": {"_errors": [{"code": "BASE_TYPE_MAX_LENGTH", "message": "Must be 25 or fewer in length."}]}
        }
    }
    assert err.interaction_id == emu.interactions[-1].id


# ============================================================================================
# interaction response rules
# ============================================================================================


async def test_late_initial_response_is_unknown_interaction(emu: DiscordEmulator, world: World, bot: EmuBot) -> None:
    it = await emu.slash(world.ann, world.cid, "slow")
    with pytest.raises(InteractionFailed, match="within 3.0s"):
        await it.wait_response(timeout=10)
    err = await emu.wait_for_error(lambda e: e.code == 10062, timeout=5)
    assert err.kind == "unknown_interaction" and err.status == 404
    assert err.body == {"message": "Unknown interaction", "code": 10062}
    await asyncio.sleep(0.05)
    assert ("slow", 404, 10062) in bot.seen
    assert it.responses == [] and emu.messages(world.cid) == []


async def test_second_initial_response_is_already_acknowledged(emu: DiscordEmulator, world: World, bot: EmuBot) -> None:
    it = await emu.slash(world.ann, world.cid, "twice")
    first = await it.wait_done()
    err = await emu.wait_for_error(lambda e: e.code == 40060)
    assert err.status == 400 and err.body == {"message": "Interaction has already been acknowledged.", "code": 40060}
    assert first.content == "first answer" and [m.content for m in emu.messages(world.cid)] == ["first answer"]
    await it.wait_message(lambda m: True)
    for _ in range(50):
        if ("twice", 400, 40060) in bot.seen:
            break
        await asyncio.sleep(0.02)
    assert ("twice", 400, 40060) in bot.seen
    assert len(emu.errors) == 1


async def test_content_over_2000_characters_is_refused(emu: DiscordEmulator, world: World, bot: EmuBot) -> None:
    it = await emu.slash(world.ann, world.cid, "essay")
    final = await it.wait_done()
    # the refused attempt did not use up the interaction; the bot's second try went through
    assert final.content == "that was too long"
    [err] = emu.errors
    assert err.code == 50035 and err.kind == "limit"
    assert err.body["errors"] == {
        "data": {
            "content": {"_errors": [{"code": "BASE_TYPE_MAX_LENGTH", "message": "Must be 2000 or fewer in length."}]}
        }
    }
    assert any(s[0] == "essay" and s[1:3] == (400, 50035) for s in bot.seen)
    assert "data.content: Must be 2000 or fewer in length." in str(err)


async def test_sixth_action_row_is_refused(emu: DiscordEmulator, world: World, bot: EmuBot) -> None:
    it = await emu.slash(world.ann, world.cid, "rows")
    final = await it.wait_done()
    assert final.content == "could not build the menu"
    [err] = emu.errors
    assert err.code == 50035
    assert err.body["errors"] == {
        "data": {
            "components": {"_errors": [{"code": "BASE_TYPE_MAX_LENGTH", "message": "Must be 5 or fewer in length."}]}
        }
    }


async def test_bad_command_name_is_refused_at_sync(emu: DiscordEmulator, world: World) -> None:
    client = discord.Client(intents=discord.Intents.default())
    tree = app_commands.CommandTree(client)

    @tree.command(description="fine so far")
    async def good(interaction: discord.Interaction) -> None: ...

    good.name = "Bad Name"  # discord.py validates names locally; sneak it past to see Discord's answer
    assert await refused_sync(emu, client, tree) == {
        "0": {"name": {"_errors": [{"code": "APPLICATION_COMMAND_INVALID_NAME", "message": "Command name is invalid"}]}}
    }


async def refused_sync(emu: DiscordEmulator, client: discord.Client, tree: app_commands.CommandTree) -> Dict[str, Any]:
    """Sync ``tree``, which Discord must refuse: the errors of its 400 (50035), nothing stored."""
    await client.login(emu.token)
    try:
        with pytest.raises(app_commands.CommandSyncFailure):
            await tree.sync()
    finally:
        await client.close()
    [err] = emu.errors
    assert err.code == 50035 and emu.commands == [] and emu.sync_count == 0
    return err.body["errors"]


async def test_bad_localisations_are_refused_at_sync(emu: DiscordEmulator, world: World) -> None:
    """A translator giving a German name Discord refuses (a space): the whole sync is refused as Discord does, at
    the localisation, and nothing is stored."""

    class Naive(app_commands.Translator):
        async def translate(
            self, string: app_commands.locale_str, locale: discord.Locale, context: app_commands.TranslationContext
        ) -> Optional[str]:
            if locale is discord.Locale.german:
                return {"place": "Zug machen", "Place a piece": "Einen Stein setzen"}.get(string.message)
            return None

    client = discord.Client(intents=discord.Intents.default())
    tree = app_commands.CommandTree(client)

    @tree.command(description="Place a piece")
    async def place(interaction: discord.Interaction) -> None: ...

    await tree.set_translator(Naive())
    assert await refused_sync(emu, client, tree) == {
        "0": {
            "name_localizations": {
                "de": {"_errors": [{"code": "APPLICATION_COMMAND_INVALID_NAME", "message": "Command name is invalid"}]}
            }
        }
    }


async def test_a_good_localisation_is_kept_and_interactions_carry_the_clients_locale(
    emu: DiscordEmulator, world: World
) -> None:
    """Each user's client language is the interaction's ``locale``, the guild's preferred locale its
    ``guild_locale`` (changed with GUILD_UPDATE); the localisations synced are kept for tests to read."""

    class German(app_commands.Translator):
        async def translate(
            self, string: app_commands.locale_str, locale: discord.Locale, context: app_commands.TranslationContext
        ) -> Optional[str]:
            return "wer-bin-ich" if locale is discord.Locale.german and string.message == "whoami" else None

    german = emu.create_user("greta", locale="de")
    emu.add_member(world.gid, german)
    seen = []
    bot = EmuBot("A")

    @bot.listen()
    async def on_interaction(interaction: discord.Interaction) -> None:
        seen.append((interaction.locale, interaction.guild_locale))

    await bot.tree.set_translator(German())
    async with running_bot(emu, bot=bot):
        await emu.wait_for_commands(timeout=10)
        assert next(c for c in emu.commands if c["name"] == "whoami")["name_localizations"] == {"de": "wer-bin-ich"}
        await (await emu.slash(german, world.cid, "whoami")).wait_done()
        await (await emu.slash(world.ann, world.cid, "whoami")).wait_done()
        await emu.set_guild_locale(world.gid, "ja")
        emu.set_locale(world.ann, "pt-BR")
        await (await emu.slash(world.ann, world.cid, "whoami")).wait_done()
        assert bot.get_guild(world.gid).preferred_locale is discord.Locale.japanese
    assert seen == [
        (discord.Locale.german, discord.Locale.american_english),
        (discord.Locale.american_english, discord.Locale.american_english),
        (discord.Locale.brazil_portuguese, discord.Locale.japanese),
    ]
    with pytest.raises(ValueError):
        emu.create_user("typo", locale="de-DE")


def test_localisations_are_checked_as_discord_checks_them() -> None:
    """A localised name with a capital or a space, an unknown locale, a description over 100 characters, two
    options alike in one language are refused; Hindi, Thai and Japanese names pass."""

    def command(**localised: Any) -> Dict[str, Any]:
        return {
            "name": "place",
            "description": "Place a piece",
            "type": 1,
            "options": [
                {"name": "square", "description": "Where", "type": 3, **localised},
                {"name": "quick", "description": "Where else", "type": 3, "name_localizations": {"de": "schnell"}},
            ],
        }

    def verdict(cmd: Dict[str, Any]) -> str:
        return str(_errors(limits.validate_command_list, [cmd]))

    assert verdict(command(name_localizations={"hi": "स्थान", "th": "ช่อง", "ja": "マス", "de": "feld"})) == "{}"
    assert _errors(limits.validate_command_list, [command(name_localizations={"de": "Feld"})]) == {
        "0": {
            "options": {
                "0": {
                    "name_localizations": {
                        "de": {
                            "_errors": [
                                {"code": "APPLICATION_COMMAND_INVALID_NAME", "message": "Command name is invalid"}
                            ]
                        }
                    }
                }
            }
        }
    }
    assert "APPLICATION_COMMAND_INVALID_NAME" in verdict(command(name_localizations={"fr": "la case"}))
    assert "BASE_TYPE_CHOICES" in verdict(command(name_localizations={"de-AT": "feld"}))
    assert "BASE_TYPE_BAD_LENGTH" in verdict(command(description_localizations={"de": "x" * 101}))
    assert "OPTION_NAME_ALREADY_EXISTS" in verdict(command(name_localizations={"de": "schnell"}))
    unlocalised = command(name_localizations={"fr": "quick"})  # the other option is "quick" in French too
    del unlocalised["options"][1]["name_localizations"]
    assert "OPTION_NAME_ALREADY_EXISTS" in verdict(unlocalised)
    twins = [
        dict(command(), name="place", name_localizations={"de": "setzen"}),
        dict(command(), name="put", name_localizations={"de": "setzen"}),
    ]
    assert "APPLICATION_COMMANDS_DUPLICATE_NAME" in str(_errors(limits.validate_command_list, twins))
    with pytest.raises(ValueError):
        limits.check_locale("de-DE")


# ============================================================================================
# components
# ============================================================================================


async def test_button_click_reaches_view_and_edit_updates_the_message(
    emu: DiscordEmulator, world: World, bot: EmuBot
) -> None:
    it = await emu.slash(world.ann, world.cid, "duel")
    challenge = await it.wait_done()
    assert [b["label"] for b in challenge.buttons()] == ["Accept"]
    assert challenge.button("Accept")["custom_id"] == "duel:accept"
    click = await emu.click(world.ben, challenge, "duel:accept")
    assert (await click.wait_response())["type"] == 7
    assert ("clicked", int(world.ben["id"]), "duel:accept") in bot.seen
    # UPDATE_MESSAGE edited the same Message object: buttons are gone
    assert challenge.content == "accepted by ben" and challenge.buttons() == []
    assert await click.wait_done() is challenge
    with pytest.raises(EmulatorAssertion, match="no component"):
        await emu.click(world.ben, challenge, "duel:accept")
    assert emu.errors == []


async def test_modal_round_trip(emu: DiscordEmulator, world: World, bot: EmuBot) -> None:
    it = await emu.slash(world.ann, world.cid, "feedback")
    assert (await it.wait_response())["type"] == 9 and it.modal["title"] == "Feedback"
    submit = await emu.submit_modal(world.ann, it, **{"feedback:text": "great game"})
    reply = await submit.wait_done()
    assert reply.content == "thanks for: great game" and reply.ephemeral
    assert emu.errors == []


async def test_follow_up_after_token_expiry_is_refused(emu: DiscordEmulator, world: World, bot: EmuBot) -> None:
    emu.token_lifetime = 0.2  # Discord: 15 minutes
    it = await emu.slash(world.ann, world.cid, "later")
    assert (await it.wait_response())["type"] == 5
    err = await emu.wait_for_error(lambda e: e.code == 50027, timeout=5)
    assert err.status == 401 and err.body == {"message": "Invalid Webhook Token", "code": 50027}
    assert it.rejected == [err]
    with pytest.raises(EmulatorTimeout):
        await it.wait_done(timeout=0.1)


async def test_threads(emu: DiscordEmulator, world: World, bot: EmuBot) -> None:
    channel = bot.get_channel(world.cid)
    thread = await channel.create_thread(name="game 1", type=discord.ChannelType.public_thread)
    await thread.send("first move")
    [posted] = emu.messages(thread.id)
    assert posted.content == "first move"
    assert [t["name"] for t in emu.threads(world.cid)] == ["game 1"]
    assert emu.messages(world.cid)[-1].type == 18  # Discord's "started a thread" notice in the parent
    origin = await channel.send("a challenge")
    from_message = await origin.create_thread(name="game 2")
    assert from_message.id == origin.id
    with pytest.raises(discord.HTTPException) as info:
        await origin.create_thread(name="again")
    assert info.value.code == 160004
    emu.errors.clear()
    await asyncio.sleep(0.05)
    assert bot.get_channel(thread.id) is not None  # THREAD_CREATE reached the bot's cache


async def test_token_lifetime_runs_on_the_test_clock(emu: DiscordEmulator, world: World, bot: EmuBot) -> None:
    now = [1_000.0]
    emu.clock = lambda: now[0]
    it = await emu.slash(world.ann, world.cid, "later")  # defers, follows up 0.4 s later
    assert (await it.wait_response())["type"] == 5
    now[0] += 14 * 60  # within Discord's 15 minutes: the follow-up lands
    assert (await it.wait_done(timeout=5)).content == "done at last"
    it = await emu.slash(world.ann, world.cid, "later")
    await it.wait_response()
    now[0] += 15 * 60 + 1  # past them: the token is dead
    err = await emu.wait_for_error(lambda e: e.code == 50027, timeout=5)
    assert err.status == 401 and it.rejected == [err]
    await emu._wait_until(lambda: ("later", 401, 50027) in bot.seen, 5, lambda: "the bot to see the 401")


# ============================================================================================
# the world changing under the bot: channels deleted, overwrites, threads archived, the bot removed
# ============================================================================================


async def test_deleted_channel_is_announced_and_unknown_afterwards(
    emu: DiscordEmulator, world: World, bot: EmuBot
) -> None:
    doomed = emu.create_channel(world.gid, "doomed")
    await asyncio.sleep(0.05)
    thread = await bot.get_channel(doomed).create_thread(name="t", type=discord.ChannelType.public_thread)
    deleted = asyncio.ensure_future(bot.wait_for("guild_channel_delete", timeout=5))
    thread_gone = asyncio.ensure_future(bot.wait_for("raw_thread_delete", timeout=5))
    await emu.delete_channel(doomed)
    assert (await deleted).id == doomed and (await thread_gone).thread_id == thread.id
    assert bot.get_channel(doomed) is None and bot.get_channel(thread.id) is None
    for cid in (doomed, thread.id):
        with pytest.raises(discord.NotFound) as info:
            await bot.get_partial_messageable(cid).send("anyone?")
        assert info.value.code == 10003
    with pytest.raises(EmulatorAssertion, match="unknown channel"):
        await emu.slash(world.ann, doomed, "whoami")
    lone = await bot.get_channel(world.cid).create_thread(name="lone", type=discord.ChannelType.public_thread)
    await emu.delete_channel(lone.id)  # a thread on its own: THREAD_DELETE
    await emu._wait_until(lambda: bot.get_channel(lone.id) is None, 5, lambda: "THREAD_DELETE in the cache")


async def test_permission_overwrites_are_announced_and_enforced(
    emu: DiscordEmulator, world: World, bot: EmuBot
) -> None:
    channel = bot.get_channel(world.cid)
    me = channel.guild.me
    for name in ("send_messages", "attach_files", "embed_links"):
        updated = asyncio.ensure_future(bot.wait_for("guild_channel_update", timeout=5))
        await emu.set_permission_overwrite(world.cid, emu.bot_user, deny=PERMISSIONS[name])
        await updated
        assert not getattr(channel.permissions_for(me), name)
        it = await emu.slash(world.ann, world.cid, "whoami")  # interaction responses need no channel permission
        assert (await it.wait_done()).content == "I am bot-1"
        assert not getattr(discord.Permissions(int(it.payload["app_permissions"])), name)
        with pytest.raises(discord.Forbidden) as info:
            if name == "send_messages":
                await channel.send("hello")
            elif name == "attach_files":
                await channel.send("board", file=discord.File(io.BytesIO(png_bytes()), "board.png"))
            else:
                await channel.send(embed=discord.Embed(title="standings"))
        assert info.value.code == 50013
    await emu.set_permission_overwrite(world.cid, emu.bot_user)  # removed: everything works again
    await emu._wait_until(lambda: channel.permissions_for(me).embed_links, 5, lambda: "CHANNEL_UPDATE")
    await channel.send(
        "board", embed=discord.Embed(title="standings"), file=discord.File(io.BytesIO(png_bytes()), "board.png")
    )
    assert [e.code for e in emu.errors] == [50013, 50013, 50013]


async def test_archived_and_locked_threads(emu: DiscordEmulator, world: World, bot: EmuBot) -> None:
    thread = await bot.get_channel(world.cid).create_thread(name="game", type=discord.ChannelType.public_thread)
    meta = emu.channel(thread.id)["thread_metadata"]
    # archived, not locked: the next message unarchives it (THREAD_UPDATE both ways)
    update = asyncio.ensure_future(bot.wait_for("raw_thread_update", timeout=5))
    await emu.update_thread(thread.id, archived=True)
    assert (await update).data["thread_metadata"]["archived"] is True
    assert bot.get_channel(thread.id) is None  # discord.py drops archived threads from its cache
    with pytest.raises(EmulatorAssertion, match="archived"):
        await emu.slash(world.ann, thread.id, "whoami")
    await thread.send("still here")
    assert meta["archived"] is False and emu.messages(thread.id)[-1].content == "still here"
    # locked and archived: refused until a moderator (the bot has Manage Threads) reopens it
    await emu.update_thread(thread.id, archived=True, locked=True)
    with pytest.raises(discord.HTTPException) as info:
        await thread.send("hello?")
    assert info.value.status == 400 and info.value.code == 50083
    reopened = await thread.edit(archived=False, locked=False)
    assert not reopened.archived and not reopened.locked and not meta["locked"]
    await thread.send("reopened")
    # without Manage Threads: a locked thread can't be reopened, nor posted in
    await emu.set_permission_overwrite(world.cid, emu.bot_user, deny=PERMISSIONS["manage_threads"])
    await emu.update_thread(thread.id, locked=True)
    with pytest.raises(discord.Forbidden) as info:
        await thread.send("hello?")
    assert info.value.code == 160005
    with pytest.raises(discord.Forbidden) as info:
        await thread.edit(locked=False)
    assert info.value.code == 50013
    assert [e.code for e in emu.errors] == [50083, 160005, 50013]


async def test_direct_messages(emu: DiscordEmulator, world: World, bot: EmuBot) -> None:
    ann = await bot.fetch_user(int(world.ann["id"]))
    await ann.send("your game ended")
    await ann.send("and another thing")
    assert [m.content for m in emu.dms(world.ann)] == ["your game ended", "and another thing"]
    assert emu.dms(world.ben) == [] and emu.messages(world.cid) == []
    stranger = emu.create_user("stranger")  # shares no server with the bot
    with pytest.raises(discord.Forbidden) as info:
        await (await bot.fetch_user(int(stranger["id"]))).send("hello?")
    assert info.value.code == 50007


async def test_bot_removed_from_the_guild(emu: DiscordEmulator, world: World, bot: EmuBot) -> None:
    removed = asyncio.ensure_future(bot.wait_for("guild_remove", timeout=5))
    await emu.remove_member(world.gid, emu.bot_user)
    assert (await removed).id == world.gid and bot.get_guild(world.gid) is None
    with pytest.raises(discord.Forbidden) as info:
        await bot.get_partial_messageable(world.cid).send("anyone?")
    assert info.value.code == 50001
    with pytest.raises(EmulatorAssertion, match="not in guild"):
        await emu.slash(world.ann, world.cid, "whoami")


async def test_unchecked_options_go_out_as_given(emu: DiscordEmulator, world: World, bot: EmuBot) -> None:
    it = await emu.slash_unchecked(
        world.ann, world.cid, "hongkong challenge", opponent="nobody", colour=7, extra=True, types={"extra": 5}
    )
    options = it.payload["data"]["options"][0]["options"]
    assert options == [
        {"type": 6, "name": "opponent", "value": "nobody"},
        {"type": 3, "name": "colour", "value": 7},
        {"type": 5, "name": "extra", "value": True},
    ]
    assert "resolved" not in it.payload["data"]
    it = await emu.slash_unchecked(world.ann, world.cid, "hongkong challenge", opponent=world.ben)
    assert world.ben["id"] in it.payload["data"]["resolved"]["users"]


# ============================================================================================
# several bot instances, reconnects
# ============================================================================================


async def test_second_bot_instance_receives_the_next_interaction(emu: DiscordEmulator, world: World) -> None:
    async with running_bot(emu, "first"):
        it = await emu.slash(world.ann, world.cid, "whoami")
        assert (await it.wait_done()).content == "I am first"
    assert not emu.connected
    async with running_bot(emu, "second"):
        it = await emu.slash(world.ann, world.cid, "whoami")
        assert (await it.wait_done()).content == "I am second"
        # discord.py's close() ends up closing with 4000, so the old session stays resumable (as on
        # Discord) but has no connection; interactions go to the most recently identified live one.
        assert [s.live for s in emu.sessions] == [False, True]
    assert emu.errors == []


async def test_bot_resumes_after_reconnect_request(emu: DiscordEmulator, world: World, bot: EmuBot) -> None:
    session = await emu.wait_for_ready()
    await emu.request_reconnect()
    await emu._wait_until(lambda: session.resumes == 1 and session.live, 10, lambda: "a RESUME")
    it = await emu.slash(world.ann, world.cid, "whoami")
    assert (await it.wait_done()).content == "I am bot-1"
    assert len(emu.sessions) == 1  # resumed, not re-identified
    assert emu.errors == []


async def test_invalid_session_makes_the_bot_identify_again(emu: DiscordEmulator, world: World, bot: EmuBot) -> None:
    first = await emu.wait_for_ready()
    await emu.invalidate_session()
    await emu._wait_until(lambda: len(emu.sessions) == 2 and emu.connected, 10, lambda: "a fresh IDENTIFY")
    assert first.invalidated
    it = await emu.slash(world.ann, world.cid, "whoami")
    assert (await it.wait_done()).content == "I am bot-1"


# ============================================================================================
# sharding
# ============================================================================================


async def identify(emu: DiscordEmulator, **fields: Any) -> tuple[int | None, List[Dict[str, Any]]]:
    """IDENTIFY on a raw gateway connection: ``(close code or None, the dispatches received until READY's
    GUILD_CREATEs are in or the connection closed)``."""
    events: List[Dict[str, Any]] = []
    async with aiohttp.ClientSession() as http:
        async with http.ws_connect(f"{emu.gateway_url}?v=10&encoding=json") as ws:
            assert (await ws.receive_json(timeout=5))["op"] == 10  # HELLO
            await ws.send_json({"op": 2, "d": {"token": emu.token, "intents": 1, "properties": {}, **fields}})
            while True:
                msg = await ws.receive(timeout=5)
                if msg.type != aiohttp.WSMsgType.TEXT:
                    return ws.close_code, events
                events.append(msg.json())
                ready = [e for e in events if e["t"] == "READY"]
                if ready and sum(e["t"] == "GUILD_CREATE" for e in events) == len(ready[0]["d"]["guilds"]):
                    return None, events


async def test_a_bad_shard_is_closed_with_4010(emu: DiscordEmulator, world: World) -> None:
    for shard in ([2, 2], [0, 0], [-1, 2], "zero", [0]):
        code, _ = await identify(emu, shard=shard)
        assert code == 4010, shard
    assert len(emu.errors) == 5 and all("invalid shard" in str(e) for e in emu.errors)


async def test_a_shard_with_too_many_guilds_is_closed_with_4011_and_gateway_bot_recommends_enough() -> None:
    async with DiscordEmulator(max_guilds_per_shard=2) as emu:
        guilds = [emu.create_guild(f"g{n}", shard=shard) for n, shard in enumerate([(0, 2), (1, 2), (0, 2)])]
        assert [(g >> 22) % 2 for g in guilds] == [0, 1, 0] and guilds == sorted(guilds)
        code, _ = await identify(emu)
        assert code == 4011 and "would hold 3 guilds" in str(emu.errors[-1])
        async with aiohttp.ClientSession(headers={"Authorization": f"Bot {emu.token}"}) as http:
            async with http.get(f"{emu.api_base}/gateway/bot") as reply:
                assert (await reply.json())["shards"] == 2
        code, events = await identify(emu, shard=[0, 2])
        ready = next(e["d"] for e in events if e["t"] == "READY")
        assert code is None and ready["shard"] == [0, 2]
        assert [g["id"] for g in ready["guilds"]] == [str(guilds[0]), str(guilds[2])]
        assert [e["d"]["id"] for e in events if e["t"] == "GUILD_CREATE"] == [str(guilds[0]), str(guilds[2])]


async def test_each_shard_gets_only_its_guilds_events_and_interactions(emu: DiscordEmulator) -> None:
    first, second = (emu.create_guild(f"shard {k}", shard=(k, 2)) for k in (0, 1))
    ann = emu.create_user("ann")
    channels = []
    for gid in (first, second):
        emu.add_member(gid, ann)
        channels.append(emu.create_channel(gid, "general"))
    async with (
        running_bot(emu, "s0", shard_id=0, shard_count=2) as zero,
        running_bot(emu, "s1", shard_id=1, shard_count=2) as one,
    ):
        await emu.wait_for_commands(timeout=10)
        await asyncio.wait_for(asyncio.gather(zero.wait_until_ready(), one.wait_until_ready()), 10)
        assert [g.id for g in zero.guilds] == [first] and [g.id for g in one.guilds] == [second]
        for cid, label in zip(channels, ("s0", "s1")):
            it = await emu.slash(ann, cid, "whoami")
            assert (await it.wait_done()).content == f"I am {label}"
        late = emu.create_channel(second, "late")  # CHANNEL_CREATE goes to shard 1 only
        for _ in range(100):
            if one.get_channel(late) is not None:
                break
            await asyncio.sleep(0.05)
        assert one.get_channel(late) is not None
        assert zero.get_channel(late) is None
    assert emu.errors == []


# ============================================================================================
# channel messages, attachments, waiting helpers
# ============================================================================================


async def test_channel_send_edit_and_attachment_limit(emu: DiscordEmulator, world: World, bot: EmuBot) -> None:
    channel = bot.get_channel(world.cid)
    sent = await channel.send("hello", file=discord.File(io.BytesIO(png_bytes(3, 2)), "tiny.png"))
    msg = await emu.wait_for_message(world.cid, lambda m: m.content == "hello")
    assert msg.id == sent.id and msg.attachments[0].width == 3
    await sent.edit(content="hello again")
    assert msg.content == "hello again" and msg.history[0]["content"] == "hello"
    too_big = discord.File(io.BytesIO(b"\0" * (10 * 1024 * 1024 + 1)), "huge.bin")
    with pytest.raises(discord.HTTPException) as info:
        await channel.send(file=too_big)
    assert info.value.status == 413 and info.value.code == 40005
    [err] = emu.errors
    assert err.kind == "limit" and err.code == 40005
    assert [m.content for m in emu.messages(world.cid)] == ["hello again"]


async def test_waiting_helpers_explain_what_happened(emu: DiscordEmulator, world: World, bot: EmuBot) -> None:
    it = await emu.slash(world.ann, world.cid, "secret")
    await it.wait_done()
    with pytest.raises(EmulatorTimeout) as info:
        await it.wait_followups(1, timeout=0.2)
    text = str(info.value)
    assert "1 follow-up message(s) for /secret, got 0" in text
    assert "response type 4" in text and "for your eyes only" in text
    with pytest.raises(EmulatorTimeout, match="matching message in channel"):
        await emu.wait_for_message(world.cid, lambda m: "never" in m.content, timeout=0.2)


# ============================================================================================
# the limit checks themselves (no bot needed)
# ============================================================================================


def _errors(fn, *args, **kwargs) -> Dict[str, Any]:
    tree = ErrorTree()
    fn(tree, *args, **kwargs)
    return tree.to_dict()


def test_message_limits() -> None:
    ok = {"content": "x" * 2000, "embeds": [{"title": "t", "description": "d"}]}
    assert _errors(limits.validate_message_body, (), ok) == {}
    assert "embeds" in _errors(limits.validate_message_body, (), {"embeds": [{}] * 11})
    big = {"embeds": [{"description": "d" * 4000}, {"description": "d" * 2001}]}
    assert _errors(limits.validate_message_body, (), big)["embeds"]["_errors"][0]["code"] == "MAX_EMBED_SIZE_EXCEEDED"
    long_title = _errors(limits.validate_message_body, (), {"embeds": [{"title": "t" * 257}]})
    assert long_title["embeds"]["0"]["title"]["_errors"][0]["code"] == "BASE_TYPE_MAX_LENGTH"
    fields = _errors(limits.validate_message_body, (), {"embeds": [{"fields": [{"name": "n", "value": "v"}] * 26}]})
    assert "fields" in fields["embeds"]["0"]


def test_component_limits() -> None:
    def button(cid: str, label: str = "ok") -> Dict[str, Any]:
        return {"type": 2, "style": 1, "label": label, "custom_id": cid}

    row = {"type": 1, "components": [button(f"b{i}") for i in range(6)]}
    assert "components" in _errors(limits.validate_components, (), [row])["components"]["0"]
    dup = [{"type": 1, "components": [button("same")]}, {"type": 1, "components": [button("same")]}]
    errs = _errors(limits.validate_components, (), dup)
    assert (
        errs["components"]["1"]["components"]["0"]["custom_id"]["_errors"][0]["code"]
        == "COMPONENT_CUSTOM_ID_DUPLICATED"
    )
    long = [{"type": 1, "components": [button("x" * 101, "l" * 81)]}]
    errs = _errors(limits.validate_components, (), long)["components"]["0"]["components"]["0"]
    assert set(errs) == {"custom_id", "label"}


def test_command_limits() -> None:
    def opt(name: str, required: bool = True, type: int = 3) -> Dict[str, Any]:
        return {"type": type, "name": name, "description": "d", "required": required}

    def cmd(**kw: Any) -> Dict[str, Any]:
        return dict({"type": 1, "name": "game", "description": "A game", "options": []}, **kw)

    assert _errors(limits.validate_command_list, [cmd()]) == {}
    assert "name" in _errors(limits.validate_command_list, [cmd(name="Game")])["0"]
    assert "name" in _errors(limits.validate_command_list, [cmd(name="x" * 33)])["0"]
    assert "description" in _errors(limits.validate_command_list, [cmd(description="d" * 101)])["0"]
    order = _errors(limits.validate_command_list, [cmd(options=[opt("a", False), opt("b", True)])])
    assert (
        order["0"]["options"]["1"]["required"]["_errors"][0]["code"] == "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID"
    )
    many = _errors(limits.validate_command_list, [cmd(options=[opt(f"o{i}") for i in range(26)])])
    assert many["0"]["options"]["_errors"][0]["code"] == "BASE_TYPE_MAX_LENGTH"
    choices = [{"name": f"c{i}", "value": f"c{i}"} for i in range(26)]
    assert (
        "choices"
        in _errors(limits.validate_command_list, [cmd(options=[dict(opt("a"), choices=choices)])])["0"]["options"]["0"]
    )
    nested = cmd(
        options=[
            {
                "type": 1,
                "name": "sub",
                "description": "d",
                "options": [{"type": 1, "name": "deeper", "description": "d"}],
            }
        ]
    )
    assert "options" in _errors(limits.validate_command_list, [nested])["0"]["options"]["0"]
    mixed = cmd(options=[{"type": 1, "name": "sub", "description": "d"}, opt("a")])
    assert "options" in _errors(limits.validate_command_list, [mixed])["0"]
    too_many = [cmd(name=f"c{i}") for i in range(101)]
    assert _errors(limits.validate_command_list, too_many)["_errors"][0]["code"] == "BASE_TYPE_MAX_LENGTH"
    context_menu = {"type": 2, "name": "Show Stats"}
    assert _errors(limits.validate_command_list, [context_menu]) == {}
