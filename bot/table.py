"""Discord glue shared by every game: replies, board posts, challenge buttons, the shared commands.

A game's own module (``bot/games/<name>.py``) turns its slash-command options into a call here
(:meth:`Table.challenge`, :meth:`Table.play`); everything else — deferring, rendering off the event loop,
posting the board, refusing ephemerally — is written once in this module.
"""
from __future__ import annotations

import asyncio
import io
import logging
import re
from typing import TYPE_CHECKING

import discord
from discord import app_commands

from engine import IllegalMove

from .kinds import Game, GameKind
from .session import GameLayer, Person, Turn, UserError, names

if TYPE_CHECKING:
    from .client import HongBot

log = logging.getLogger(__name__)

MENTION_PLAYERS = discord.AllowedMentions(everyone=False, roles=False, users=True)
NO_MENTIONS = discord.AllowedMentions.none()


def person(user: discord.abc.User) -> Person:
    """A Discord user or member as the game layer's :class:`Person` (display name, ≤ 64 characters)."""
    return Person(user.id, (getattr(user, "display_name", None) or user.name)[:64])


def mention(doc: dict, seat: int) -> str:
    return f"<@{doc['players'][seat]['id']}>"


class ChallengeButton(discord.ui.DynamicItem[discord.ui.Button], template=r"hb:ch:(?P<action>accept|decline):(?P<game>[a-z0-9]{1,16})"):
    """Accept / Decline on a challenge. The game id rides in the custom_id, so the buttons keep working
    after a restart and on any bot process (discord.py ``DynamicItem``)."""

    def __init__(self, action: str, game_id: str) -> None:
        style = discord.ButtonStyle.success if action == "accept" else discord.ButtonStyle.secondary
        super().__init__(discord.ui.Button(label=action.capitalize(), style=style, custom_id=f"hb:ch:{action}:{game_id}"))
        self.action = action
        self.game_id = game_id

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Button, match: re.Match[str]):
        return cls(match["action"], match["game"])

    async def callback(self, interaction: discord.Interaction) -> None:
        table: Table = interaction.client.table  # type: ignore[attr-defined]
        await table.guarded(interaction, table.answer_challenge(interaction, self.action, self.game_id))


def challenge_view(game_id: str) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(ChallengeButton("accept", game_id))
    view.add_item(ChallengeButton("decline", game_id))
    return view


class Table:
    """Everything the commands of every game share: one instance per bot.

    Args:
        bot: the running client (for posting to channels and editing challenge messages).
        layer: the :class:`GameLayer` (Redis-backed, Discord-free).
    """

    def __init__(self, bot: "HongBot", layer: GameLayer) -> None:
        self.bot = bot
        self.layer = layer
        self._timers: dict[tuple[int, str], asyncio.Task] = {}

    # --- replies ----------------------------------------------------------------------------------

    async def guarded(self, interaction: discord.Interaction, work) -> None:
        """Run ``work``; turn a :class:`UserError` or :class:`IllegalMove` into an ephemeral reply,
        and any other failure into an apology that says the game is unchanged."""
        try:
            await work
        except (UserError, IllegalMove) as exc:
            await self.refuse(interaction, str(exc))
        except Exception:
            log.exception("interaction %s failed", interaction.id)
            await self.refuse(interaction, "Something went wrong on our side; nothing was changed. Please try again.")

    @staticmethod
    async def refuse(interaction: discord.Interaction, text: str) -> None:
        """An ephemeral message to the user only (as the initial response, or a follow-up if one was sent)."""
        try:
            if interaction.response.is_done():
                await interaction.followup.send(text[:2000], ephemeral=True)
            else:
                await interaction.response.send_message(text[:2000], ephemeral=True)
        except discord.HTTPException:
            log.warning("could not send a refusal for interaction %s", interaction.id)

    async def board_file(self, kind: GameKind, game: Game, doc: dict) -> discord.File:
        """The rendered board as a ``board.png`` attachment (rendered in a worker thread)."""
        png = await asyncio.to_thread(kind.render, game, names(doc))
        return discord.File(io.BytesIO(png), filename="board.png")

    def status_line(self, kind: GameKind, game: Game, doc: dict) -> str:
        """Score and whose turn, with a mention of the player to move."""
        seat = game.to_move
        return f"{kind.score(game, names(doc))}\n{mention(doc, seat)}, your turn ({kind.roles[seat]})."

    # --- challenges -------------------------------------------------------------------------------

    async def challenge(self, interaction: discord.Interaction, kind: GameKind, opponent: discord.abc.User, options: dict) -> None:
        """Open a challenge and post it publicly with Accept/Decline for the opponent."""
        if interaction.guild_id is None:
            raise UserError("Games are played in server channels, not in direct messages.")
        if opponent.bot:
            raise UserError(f"{opponent.display_name} is a bot and can't play. Challenge a person instead.")
        doc = await self.layer.challenge(
            kind,
            guild_id=interaction.guild_id,
            channel_id=interaction.channel_id,
            challenger=person(interaction.user),
            opponent=person(opponent),
            options=options,
        )
        minutes = max(1, round(self.layer.challenge_timeout / 60))
        text = (
            f"<@{doc['opponent']}>, {interaction.user.mention} challenges you to **{kind.title}** "
            f"({kind.describe_options(doc['options'])}). This challenge expires in {minutes} minute"
            f"{'s' if minutes != 1 else ''}."
        )
        await interaction.response.send_message(text, view=challenge_view(doc["id"]), allowed_mentions=MENTION_PLAYERS)
        try:
            message = await interaction.original_response()
            await self.layer.remember_message(interaction.channel_id, doc["id"], message.id)
        except discord.HTTPException:
            log.warning("could not read back challenge message for %s", doc["id"])
        self.arm_expiry(interaction.channel_id, doc["id"], doc["expires"])

    async def answer_challenge(self, interaction: discord.Interaction, action: str, game_id: str) -> None:
        """Accept or Decline clicked: start the game and post its first board, or close the challenge."""
        channel_id = interaction.channel_id
        if action == "decline":
            doc = await self.layer.decline(channel_id, game_id, interaction.user.id)
            self.disarm(channel_id, game_id)
            kind = self.layer.kinds[doc["kind"]]
            verb = "withdrew" if interaction.user.id == doc["challenger"] else "declined"
            await interaction.response.edit_message(
                content=f"~~{kind.title} challenge~~ — {interaction.user.display_name} {verb} it.", view=None,
                allowed_mentions=NO_MENTIONS,
            )
            return
        doc, game = await self.layer.accept(channel_id, game_id, interaction.user.id)
        self.disarm(channel_id, game_id)
        kind = self.layer.kinds[doc["kind"]]
        a, b = names(doc)
        await interaction.response.edit_message(
            content=f"**{kind.title}**: {a} ({kind.roles[0]}) vs {b} ({kind.roles[1]}) — challenge accepted.",
            view=None,
            allowed_mentions=NO_MENTIONS,
        )
        text = f"**{kind.title}** — the game begins!\n{self.status_line(kind, game, doc)}"
        await interaction.followup.send(text, file=await self.board_file(kind, game, doc), allowed_mentions=MENTION_PLAYERS)

    def arm_expiry(self, channel_id: int, game_id: str, expires: float) -> None:
        """Schedule the challenge's expiry: at ``expires`` (Unix seconds) it is removed and its message says so."""
        key = (channel_id, game_id)
        if key in self._timers:
            return
        self._timers[key] = asyncio.create_task(self._expire_at(channel_id, game_id, expires))

    def disarm(self, channel_id: int, game_id: str) -> None:
        task = self._timers.pop((channel_id, game_id), None)
        if task and task is not asyncio.current_task():
            task.cancel()

    async def _expire_at(self, channel_id: int, game_id: str, expires: float) -> None:
        try:
            await asyncio.sleep(max(0.0, expires - self.layer.clock()) + 0.05)
            doc = await self.layer.expire(channel_id, game_id)
            if doc and doc.get("message_id"):
                kind = self.layer.kinds[doc["kind"]]
                message = self.bot.get_partial_messageable(channel_id).get_partial_message(doc["message_id"])
                await message.edit(
                    content=f"~~{kind.title} challenge~~ — expired: <@{doc['opponent']}> did not answer in time.",
                    view=None,
                    allowed_mentions=NO_MENTIONS,
                )
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("expiring challenge %s in channel %s failed", game_id, channel_id)
        finally:
            self._timers.pop((channel_id, game_id), None)

    async def rearm(self) -> int:
        """At start-up: schedule expiry of every open challenge in Redis. Returns how many."""
        count = 0
        for channel_id in await self.layer.store.channels_with_records():
            stored = await self.layer.store.get(channel_id)
            if stored and stored.doc["status"] == "challenge":
                self.arm_expiry(channel_id, stored.doc["id"], stored.doc["expires"])
                count += 1
        return count

    def cancel_timers(self) -> None:
        for task in self._timers.values():
            task.cancel()
        self._timers.clear()

    # --- moves ------------------------------------------------------------------------------------

    async def play(self, interaction: discord.Interaction, kind: GameKind, move: str) -> None:
        """Check and commit ``move`` for the caller, then post the new board publicly."""
        turn = await self.layer.play(kind, interaction.channel_id, interaction.user.id, move)
        await self.post_turn(interaction, kind, turn)

    async def post_turn(self, interaction: discord.Interaction, kind: GameKind, turn: Turn) -> None:
        """Defer (the move is committed), render off the event loop, and post board + notation + next player."""
        await interaction.response.defer(thinking=True)
        doc, game = turn.doc, turn.game
        who = doc["players"][turn.player]["name"]
        if turn.move is None:
            head = doc["result"]["text"]
        else:
            head = f"{who} played `{turn.move}`."
        if turn.finished:
            text = f"{head}\n**Game over.** {doc['result']['text']}" if turn.move else f"**Game over.** {head}"
            text += f"\n{mention(doc, 0)} {mention(doc, 1)} — thanks for playing!"
        else:
            text = f"{head}\n{self.status_line(kind, game, doc)}"
        await interaction.followup.send(text[:2000], file=await self.board_file(kind, game, doc), allowed_mentions=MENTION_PLAYERS)

    async def board(self, interaction: discord.Interaction) -> None:
        """Anyone: the channel's current board (of whichever game runs here)."""
        stored, game = await self.layer.running(interaction.channel_id)
        doc = stored.doc
        kind = self.layer.kinds[doc["kind"]]
        await interaction.response.defer(thinking=True)
        a, b = names(doc)
        if game.is_over:
            line = doc.get("result", {}).get("text", "")
        else:
            seat = game.to_move
            line = f"{kind.score(game, names(doc))} — {doc['players'][seat]['name']} ({kind.roles[seat]}) to move."
        text = f"**{kind.title}**: {a} vs {b}, move {len(game.moves) + 1}.\n{line}"
        await interaction.followup.send(text[:2000], file=await self.board_file(kind, game, doc), allowed_mentions=NO_MENTIONS)

    async def resign(self, interaction: discord.Interaction, kind: GameKind) -> None:
        turn = await self.layer.resign(kind, interaction.channel_id, interaction.user.id)
        await self.post_turn(interaction, kind, turn)

    # --- commands ---------------------------------------------------------------------------------

    def build_group(self, kind: GameKind) -> app_commands.Group:
        """The ``/<game>`` command group: the game's own commands plus the shared ``board`` and ``resign``."""
        group = app_commands.Group(name=kind.name, description=f"Play {kind.title}", guild_only=True)
        kind.register(group, self)

        @group.command(name="board", description=f"Show the current board of this channel's game (anyone)")
        async def board(interaction: discord.Interaction) -> None:
            await self.guarded(interaction, self.board(interaction))

        @group.command(name="resign", description=f"Resign your {kind.title} game in this channel")
        async def resign(interaction: discord.Interaction) -> None:
            await self.guarded(interaction, self.resign(interaction, kind))

        return group

    async def legal_for_caller(self, interaction: discord.Interaction, kind: GameKind) -> Game | None:
        """For autocomplete: the engine game if the caller is the player to move here, else None."""
        try:
            stored, game = await self.layer.running(interaction.channel_id, kind)
        except UserError:
            return None
        players = stored.doc["players"]
        if game.is_over or players[game.to_move]["id"] != interaction.user.id:
            return None
        return game


def choices(values: list[str], typed: str) -> list[app_commands.Choice[str]]:
    """Autocomplete choices: ``values`` starting with (then containing) what was typed, at most 25."""
    typed = (typed or "").strip().upper()
    first = [v for v in values if v.upper().startswith(typed)]
    rest = [v for v in values if typed in v.upper() and v not in first]
    return [app_commands.Choice(name=v, value=v) for v in (first + rest)[:25]]
