"""Discord glue shared by every game: replies, board posts, buttons, deadlines, the shared commands.

A game's own module (``bot/games/<name>.py``) turns its slash-command options into a call here
(:meth:`Table.challenge`, :meth:`Table.play`); everything else — deferring, rendering off the event loop,
posting the board, refusing ephemerally, timers, threads, rematches, takebacks — is written once here.
"""
from __future__ import annotations

import asyncio
import io
import json
import logging
import random
import re
from typing import TYPE_CHECKING, Literal

import discord
from discord import app_commands

from engine import IllegalMove

from .computer import Thinker
from .deadlines import Deadline
from .kinds import Game, GameKind
from .session import GameLayer, Person, Turn, UserError, ended_off_board, names, plain_names, safe_name
from .settings import describe_duration

if TYPE_CHECKING:
    from .client import HongBot

log = logging.getLogger(__name__)

MENTION_PLAYERS = discord.AllowedMentions(everyone=False, roles=False, users=True)
NO_MENTIONS = discord.AllowedMentions.none()
GAME_ID = r"[a-z0-9]{1,16}"

# Shared by every game's challenge command.
LEVEL = Literal["easy", "medium", "hard"]
OPPONENT_HELP = "Who you want to play (leave out: anyone may accept; the bot itself: the computer)"
LEVEL_HELP = "Against the computer: easy, medium (default) or hard"


def person(user: discord.abc.User) -> Person:
    """A Discord user or member as the game layer's :class:`Person`, its display name made safe to quote."""
    return Person(user.id, safe_name(getattr(user, "display_name", None) or user.name))


def mention(doc: dict, seat: int) -> str:
    return f"<@{doc['players'][seat]['id']}>"


def jump_link(guild_id: int, channel_id: int) -> str:
    return f"https://discord.com/channels/{guild_id}/{channel_id}"


def _table(interaction: discord.Interaction) -> "Table":
    return interaction.client.table  # type: ignore[attr-defined]


class ChallengeButton(discord.ui.DynamicItem[discord.ui.Button], template=rf"hb:ch:(?P<action>accept|decline):(?P<game>{GAME_ID})"):
    """Accept / Decline on a challenge. The game id rides in the custom_id, so the buttons keep working
    after a restart and on any bot process (discord.py ``DynamicItem``)."""

    def __init__(self, action: str, game_id: str) -> None:
        style = discord.ButtonStyle.success if action == "accept" else discord.ButtonStyle.secondary
        super().__init__(discord.ui.Button(label=action.capitalize(), style=style, custom_id=f"hb:ch:{action}:{game_id}"))
        self.action, self.game_id = action, game_id

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Button, match: re.Match[str]):
        return cls(match["action"], match["game"])

    async def callback(self, interaction: discord.Interaction) -> None:
        table = _table(interaction)
        await table.guarded(interaction, table.answer_challenge(interaction, self.action, self.game_id))


class RematchButton(discord.ui.DynamicItem[discord.ui.Button], template=rf"hb:rm:(?P<game>{GAME_ID})"):
    """Rematch on a finished game's last board: when both players have pressed it, a new game starts."""

    def __init__(self, game_id: str) -> None:
        super().__init__(discord.ui.Button(label="Rematch", style=discord.ButtonStyle.primary, custom_id=f"hb:rm:{game_id}"))
        self.game_id = game_id

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Button, match: re.Match[str]):
        return cls(match["game"])

    async def callback(self, interaction: discord.Interaction) -> None:
        table = _table(interaction)
        await table.guarded(interaction, table.rematch(interaction, self.game_id))


class TakebackButton(
    discord.ui.DynamicItem[discord.ui.Button],
    template=rf"hb:tb:(?P<answer>yes|no):(?P<game>{GAME_ID}):(?P<moves>\d{{1,4}}):(?P<nonce>[a-z0-9]{{1,8}})",
):
    """Allow / Refuse on a takeback request; carries the game id, the move count it applies to and the request's
    own nonce (so a button of an older, expired request never answers a newer one)."""

    def __init__(self, answer: str, game_id: str, moves: int, nonce: str) -> None:
        label, style = ("Allow takeback", discord.ButtonStyle.success) if answer == "yes" else ("Refuse", discord.ButtonStyle.secondary)
        super().__init__(discord.ui.Button(label=label, style=style, custom_id=f"hb:tb:{answer}:{game_id}:{moves}:{nonce}"))
        self.answer, self.game_id, self.moves, self.nonce = answer, game_id, moves, nonce

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Button, match: re.Match[str]):
        return cls(match["answer"], match["game"], int(match["moves"]), match["nonce"])

    async def callback(self, interaction: discord.Interaction) -> None:
        table = _table(interaction)
        await table.guarded(interaction, table.answer_takeback(interaction, self))


DYNAMIC_ITEMS = (ChallengeButton, RematchButton, TakebackButton)


def buttons(*items: discord.ui.Item) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for item in items:
        view.add_item(item)
    return view


class Table:
    """Everything the commands of every game share: one instance per bot.

    Args:
        bot: the running client (for posting to channels and editing messages outside interactions).
        layer: the :class:`GameLayer` (Redis-backed, Discord-free).
        poll_interval: seconds between checks for due deadlines.
    """

    def __init__(self, bot: "HongBot", layer: GameLayer, *, poll_interval: float = 1.0) -> None:
        self.bot = bot
        self.layer = layer
        self.poll_interval = poll_interval
        self.final_items: list = [RematchButton]  # buttons on a finished game's last board (built from the game id)
        self._poller: asyncio.Task | None = None
        self._stopping = asyncio.Event()
        self.thinker = Thinker()
        self._thinking: dict[tuple[int, str, int], asyncio.Task] = {}

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
            await self.refuse(interaction, "Something went wrong on our side. Please try again; `/hongkong board` or "
                                           "`/hong board` shows the game as it is stored.")

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
        """The rendered board as a ``board.png`` attachment (rendered in a worker thread); a game that was
        resigned, lost on time or aborted shows that result instead of whose turn it was."""
        png = await asyncio.to_thread(kind.render, game, plain_names(doc), ended=ended_off_board(doc))
        return discord.File(io.BytesIO(png), filename="board.png")

    def status_line(self, kind: GameKind, game: Game, doc: dict) -> str:
        """Score and whose turn, with a mention of the player to move and the time they have."""
        seat = game.to_move
        player = doc["players"][seat]
        if player.get("bot"):
            return f"{kind.score(game, names(doc))}\n{player['name']} ({kind.roles[seat]}) is thinking…"
        left = ""
        if doc.get("deadline"):
            left = f" You have {describe_duration(doc['deadline'] - doc['turn_started'])}."
        return f"{kind.score(game, names(doc))}\n{mention(doc, seat)}, your turn ({kind.roles[seat]}).{left}"

    def turn_message(self, kind: GameKind, turn: Turn) -> tuple[str, discord.ui.View | None]:
        """The text (and buttons) posted with the board after a committed change."""
        doc, game = turn.doc, turn.game
        if turn.event == "move":
            head = f"{doc['players'][turn.player]['name']} played `{turn.move}`."
        elif turn.event == "takeback":
            head = f"Takeback accepted: {doc['players'][turn.player]['name']}'s last turn is undone."
        else:
            head = ""
        if not turn.finished:
            return f"{head}\n{self.status_line(kind, game, doc)}", None
        text = f"{head}\n**Game over.** {doc['result']['text']}".strip()
        text += f"\n{mention(doc, 0)} {mention(doc, 1)} — thanks for playing!"
        view = buttons(*(item(doc["id"]) for item in self.final_items))
        return text, view

    async def post_turn(self, interaction: discord.Interaction | None, kind: GameKind, turn: Turn) -> None:
        """Post board + notation + next player: as the interaction's follow-up (after deferring), or in the
        game's channel when there is no interaction (a forfeit). Rendering runs off the event loop."""
        if interaction is not None and not interaction.response.is_done():
            await interaction.response.defer(thinking=True)
        try:
            text, view = self.turn_message(kind, turn)
            file = await self.board_file(kind, turn.game, turn.doc)
            extra = {"view": view} if view else {}
            if interaction is not None:
                await interaction.followup.send(text[:2000], file=file, allowed_mentions=MENTION_PLAYERS, **extra)
            else:
                channel = self.bot.get_partial_messageable(turn.doc["channel_id"])
                await channel.send(text[:2000], file=file, allowed_mentions=MENTION_PLAYERS, **extra)
        finally:  # the game's state is committed: what follows from it happens even if the post failed
            if turn.finished:
                await self.on_finished(turn.doc)
            else:
                self.computer_to_move(turn.doc, turn.game)

    async def on_finished(self, doc: dict) -> None:
        """After a game ended: tell the parent channel of a thread game."""
        await self.bot.stats.game_over(doc)  # record + rate (exactly once, never raises), post the rating change
        if doc.get("parent_id"):
            kind = self.layer.kinds[doc["kind"]]
            a, b = names(doc)
            await self._send_quietly(
                doc["parent_id"],
                f"**{kind.title}** {a} vs {b} has ended: {doc['result']['text']} {jump_link(doc['guild_id'], doc['channel_id'])}",
            )

    async def _send_quietly(self, channel_id: int, text: str, **kwargs) -> None:
        try:
            await self.bot.get_partial_messageable(channel_id).send(text[:2000], allowed_mentions=kwargs.pop("allowed_mentions", NO_MENTIONS), **kwargs)
        except discord.HTTPException:
            log.warning("could not post in channel %s", channel_id)

    # --- challenges -------------------------------------------------------------------------------

    async def challenge(
        self, interaction: discord.Interaction, kind: GameKind, opponent: discord.abc.User | None, options: dict,
        level: str | None = None,
    ) -> None:
        """Open a challenge and post it publicly with Accept/Decline (for the opponent, or anyone if open);
        challenging the bot itself starts a game against the computer at once."""
        if interaction.guild_id is None:
            raise UserError("Games are played in server channels, not in direct messages.")
        if opponent is not None and self.bot.user is not None and opponent.id == self.bot.user.id:
            await self.computer_game(interaction, kind, options, level or "medium")
            return
        if level is not None:
            raise UserError(f"`level` is for games against the computer: challenge {self.bot.user.mention} to play it.")
        if opponent is not None and not isinstance(opponent, discord.Member):
            raise UserError(f"{opponent.display_name} is not a member of this server, so they can't play here.")
        if opponent is not None and opponent.bot:
            raise UserError(f"{opponent.display_name} is a bot and can't play. Challenge a person instead.")
        doc = await self.layer.challenge(
            kind,
            guild_id=interaction.guild_id,
            channel_id=interaction.channel_id,
            challenger=person(interaction.user),
            opponent=person(opponent) if opponent else None,
            options=options,
        )

        who = f"<@{doc['opponent']}>, {interaction.user.mention} challenges you" if opponent else (
            f"{interaction.user.mention} is looking for an opponent — anyone may accept"
        )
        text = (
            f"{who} to **{kind.title}** ({kind.describe_options(doc['options'])}). "
            f"This challenge expires in {describe_duration(self.layer.challenge_timeout)}."
        )
        view = buttons(ChallengeButton("accept", doc["id"]), ChallengeButton("decline", doc["id"]))
        await interaction.response.send_message(text, view=view, allowed_mentions=MENTION_PLAYERS)
        try:
            message = await interaction.original_response()
            await self.layer.remember_message(interaction.channel_id, doc["id"], message.id)
        except discord.HTTPException:
            log.warning("could not read back challenge message for %s", doc["id"])

    async def answer_challenge(self, interaction: discord.Interaction, action: str, game_id: str) -> None:
        """Accept or Decline clicked: start the game and post its first board, or close the challenge."""
        channel_id = interaction.channel_id
        if action == "decline":
            doc = await self.layer.decline(channel_id, game_id, interaction.user.id)
            kind = self.layer.kinds[doc["kind"]]
            verb = "withdrew" if interaction.user.id == doc["challenger"] else "declined"
            await interaction.response.edit_message(
                content=f"~~{kind.title} challenge~~ — {interaction.user.display_name} {verb} it.", view=None,
                allowed_mentions=NO_MENTIONS,
            )
            return
        doc, game = await self.layer.accept(channel_id, game_id, person(interaction.user))
        kind = self.layer.kinds[doc["kind"]]
        a, b = names(doc)
        header = f"**{kind.title}**: {a} ({kind.roles[0]}) vs {b} ({kind.roles[1]}) — challenge accepted."
        await interaction.response.edit_message(content=header, view=None, allowed_mentions=NO_MENTIONS)
        text = f"**{kind.title}** — the game begins!\n{self.status_line(kind, game, doc)}"
        settings = await self.layer.settings.get(doc["guild_id"])
        if settings.threads:
            thread = await self._open_thread(interaction, doc, kind)
            if thread is not None:
                doc = await self.layer.move_to_thread(doc, thread.id)
                if doc["channel_id"] == thread.id:
                    await thread.send(text, file=await self.board_file(kind, game, doc), allowed_mentions=MENTION_PLAYERS)
                    await interaction.followup.send(
                        f"**{kind.title}** {a} vs {b} has started in its own thread: {thread.mention}",
                        allowed_mentions=NO_MENTIONS,
                    )
                    return
        await interaction.followup.send(text, file=await self.board_file(kind, game, doc), allowed_mentions=MENTION_PLAYERS)

    async def _open_thread(self, interaction: discord.Interaction, doc: dict, kind: GameKind) -> discord.Thread | None:
        """A public thread for the game from the challenge message, or None (after saying why) if not possible."""
        if isinstance(interaction.channel, discord.Thread):
            return None  # already in a thread: play here
        if not interaction.app_permissions.create_public_threads:
            await interaction.followup.send(
                "Threads are on for this server, but I don't have the **Create Public Threads** permission in this "
                "channel, so the game is played here instead.",
                allowed_mentions=NO_MENTIONS,
            )
            return None
        a, b = names(doc)
        try:
            return await interaction.message.create_thread(name=f"{kind.title}: {a} vs {b}"[:100], auto_archive_duration=1440)
        except discord.HTTPException as exc:
            await interaction.followup.send(
                f"I couldn't open a thread for this game ({exc.text or exc.status}), so it is played here instead.",
                allowed_mentions=NO_MENTIONS,
            )
            return None

    # --- the computer opponent --------------------------------------------------------------------

    async def computer_game(self, interaction: discord.Interaction, kind: GameKind, options: dict, level: str) -> None:
        """Start a game against the computer at ``level`` in this channel and post its first board."""
        me = self.bot.user
        doc, game = await self.layer.start_computer_game(
            kind, guild_id=interaction.guild_id, channel_id=interaction.channel_id, human=person(interaction.user),
            computer=Person(me.id, f"Computer ({level})"), level=level, options=options,
        )
        await interaction.response.defer(thinking=True)
        a, b = names(doc)
        text = (f"**{kind.title}** against the computer ({level}, unrated): {a} ({kind.roles[0]}) vs "
                f"{b} ({kind.roles[1]}).\n{self.status_line(kind, game, doc)}")
        await interaction.followup.send(text[:2000], file=await self.board_file(kind, game, doc), allowed_mentions=MENTION_PLAYERS)
        self.computer_to_move(doc, game)

    def computer_to_move(self, doc: dict, game: Game) -> None:
        """If the computer is to move in this running game, let it think (in a worker process) and move."""
        if doc["status"] != "active" or game.is_over or not doc["players"][game.to_move].get("bot"):
            return
        # keyed by the position itself: after a takeback the same move count can be a different position
        key = (doc["channel_id"], doc["id"], json.dumps(doc["state"], sort_keys=True))
        if key not in self._thinking:
            self._thinking[key] = asyncio.create_task(self._computer_move(*key))

    async def _computer_move(self, channel_id: int, game_id: str, state_key: str) -> None:
        try:
            stored = await self.layer.store.get(channel_id)
            doc = stored.doc if stored else None
            if doc is None or doc["id"] != game_id or doc["status"] != "active" \
                    or json.dumps(doc["state"], sort_keys=True) != state_key:
                return  # that position is gone (a move, takeback, resignation or abort came first)
            kind = self.layer.kinds[doc["kind"]]
            game = kind.load(doc["state"])
            marker = len(game.moves)
            player = doc["players"][game.to_move]
            seed = int.from_bytes(f"{game_id}:{marker}".encode(), "big") % (2**31)
            try:
                move = await self.thinker.choose(kind.name, doc["state"], player["level"], seed)
            except Exception:
                # never leave the human waiting: a worker failure (or a broken pool) falls back to a legal move
                log.exception("the computer's search failed in channel %s; playing a random legal move", channel_id)
                self.thinker.close()
                move = random.Random(seed).choice(game.legal_moves())
            turn = await self.layer.play(kind, channel_id, player["id"], move, expected_state=doc["state"])
            await self.post_turn(None, kind, turn)
        except UserError:
            pass  # the position changed meanwhile (another process moved, a takeback, a resignation): not ours
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("computer move in channel %s failed", channel_id)
        finally:
            self._thinking.pop((channel_id, game_id, state_key), None)

    async def resume_computer_games(self) -> int:
        """At start-up: let the computer move in every running game where it is to move. Returns how many."""
        count = 0
        for channel_id in await self.layer.store.channels_with_records():
            stored = await self.layer.store.get(channel_id)
            if stored and stored.doc["status"] == "active":
                game = self.layer.kinds[stored.doc["kind"]].load(stored.doc["state"])
                if stored.doc["players"][game.to_move].get("bot"):
                    self.computer_to_move(stored.doc, game)
                    count += 1
        return count

    # --- moves ------------------------------------------------------------------------------------

    async def play(self, interaction: discord.Interaction, kind: GameKind, move: str) -> None:
        """Check and commit ``move`` for the caller, then post the new board publicly."""
        turn = await self.layer.play(kind, interaction.channel_id, interaction.user.id, move)
        await self.post_turn(interaction, kind, turn)

    async def board(self, interaction: discord.Interaction) -> None:
        """Anyone: the channel's current board (of whichever game runs here)."""
        stored, game = await self.layer.running(interaction.channel_id)
        doc = stored.doc
        kind = self.layer.kinds[doc["kind"]]
        await interaction.response.defer(thinking=True)
        a, b = names(doc)
        seat = game.to_move
        line = f"{kind.score(game, names(doc))} — {doc['players'][seat]['name']} ({kind.roles[seat]}) to move."
        if doc.get("deadline"):
            line += f" Time left: {describe_duration(doc['deadline'] - self.layer.clock())}."
        text = f"**{kind.title}**: {a} vs {b}, move {len(game.moves) + 1}.\n{line}"
        await interaction.followup.send(text[:2000], file=await self.board_file(kind, game, doc), allowed_mentions=NO_MENTIONS)

    async def resign(self, interaction: discord.Interaction, kind: GameKind) -> None:
        turn = await self.layer.resign(kind, interaction.channel_id, interaction.user.id)
        await self.post_turn(interaction, kind, turn)

    # --- rematch and takeback ---------------------------------------------------------------------

    async def rematch(self, interaction: discord.Interaction, game_id: str) -> None:
        result = await self.layer.rematch(interaction.channel_id, game_id, person(interaction.user))
        if isinstance(result, str):
            await interaction.response.send_message(
                f"{interaction.user.display_name} wants a rematch — waiting for {result} to press Rematch too.",
                allowed_mentions=NO_MENTIONS,
            )
            return
        doc, game = result
        kind = self.layer.kinds[doc["kind"]]
        await interaction.response.defer(thinking=True)
        text = f"**{kind.title}** — rematch! {names(doc)[0]} ({kind.roles[0]}) vs {names(doc)[1]} ({kind.roles[1]}).\n"
        text += self.status_line(kind, game, doc)
        await interaction.followup.send(text, file=await self.board_file(kind, game, doc), allowed_mentions=MENTION_PLAYERS)
        self.computer_to_move(doc, game)

    async def takeback(self, interaction: discord.Interaction) -> None:
        result = await self.layer.request_takeback(interaction.channel_id, interaction.user.id)
        if isinstance(result, Turn):  # against the computer: undone at once
            await self.post_turn(interaction, self.layer.kinds[result.doc["kind"]], result)
            return
        doc, answerer = result
        request = doc["takeback"]
        view = buttons(*(TakebackButton(answer, doc["id"], request["moves"], request["nonce"]) for answer in ("yes", "no")))
        minutes = round((request["expires"] - self.layer.clock()) / 60)
        await interaction.response.send_message(
            f"{mention(doc, answerer)}, {interaction.user.display_name} asks to take back their last turn. "
            f"Allow it? (open for {minutes} minutes)",
            view=view,
            allowed_mentions=MENTION_PLAYERS,
        )

    async def answer_takeback(self, interaction: discord.Interaction, button: TakebackButton) -> None:
        result = await self.layer.answer_takeback(
            interaction.channel_id, button.game_id, button.moves, interaction.user.id, button.answer == "yes", button.nonce
        )
        if isinstance(result, dict):
            await interaction.response.edit_message(content=f"Takeback refused by {interaction.user.display_name}.", view=None)
            return
        await interaction.response.edit_message(content=f"Takeback allowed by {interaction.user.display_name}.", view=None)
        await self.post_turn(interaction, self.layer.kinds[result.doc["kind"]], result)

    # --- deadlines --------------------------------------------------------------------------------

    def start_deadlines(self) -> None:
        """Start polling Redis for due deadlines (challenge expiry, reminders, forfeits)."""
        if self._poller is None:
            self._poller = asyncio.create_task(self._poll())

    async def _poll(self) -> None:
        while not self._stopping.is_set():
            try:
                await self.fire_due()
            except Exception:
                log.exception("handling deadlines failed")
            try:  # sleep, but wake at once when asked to stop
                await asyncio.wait_for(self._stopping.wait(), self.poll_interval)
            except asyncio.TimeoutError:
                pass

    async def fire_due(self) -> int:
        """Claim and handle every deadline due now (each fires once across all bot processes). Returns how many."""
        claimed = await self.layer.deadlines.claim_due()
        for deadline in claimed:
            try:
                await self._fire(deadline)
            except Exception:
                log.exception("deadline %s failed", deadline.member)
        return len(claimed)

    async def _fire(self, deadline: Deadline) -> None:
        if deadline.what == "expire":
            doc = await self.layer.expire(deadline.channel_id, deadline.game_id)
            message_id = doc and await self.layer.challenge_message(deadline.channel_id, deadline.game_id)
            if message_id:
                kind = self.layer.kinds[doc["kind"]]
                who = f"<@{doc['opponent']}> did not answer" if doc["opponent"] else "nobody accepted"
                message = self.bot.get_partial_messageable(deadline.channel_id).get_partial_message(message_id)
                await message.edit(content=f"~~{kind.title} challenge~~ — expired: {who} in time.", view=None,
                                   allowed_mentions=NO_MENTIONS)
        elif deadline.what == "remind":
            due = await self.layer.reminder_due(deadline.channel_id, deadline.game_id, deadline.marker)
            if due and not due[0]["players"][due[1].to_move].get("bot"):
                doc, game = due
                kind = self.layer.kinds[doc["kind"]]
                left = describe_duration(doc["deadline"] - self.layer.clock())
                await self._send_quietly(
                    deadline.channel_id,
                    f"⏰ {mention(doc, game.to_move)}, it's your turn in **{kind.title}** ({kind.roles[game.to_move]}). "
                    f"You have {left} left before you forfeit.",
                    allowed_mentions=MENTION_PLAYERS,
                )
        elif deadline.what == "forfeit":
            turn = await self.layer.forfeit(deadline.channel_id, deadline.game_id, deadline.marker)
            if turn:
                await self.post_turn(None, self.layer.kinds[turn.doc["kind"]], turn)

    async def stop(self, grace: float = 5.0) -> None:
        """Stop polling deadlines — letting a deadline being handled finish (up to ``grace`` seconds), so no Redis
        transaction or post is cut in half — and stop the computer's thinking."""
        self._stopping.set()
        if self._poller:
            try:
                await asyncio.wait_for(self._poller, grace)
            except (asyncio.TimeoutError, asyncio.CancelledError):
                pass
            self._poller = None
        for task in list(self._thinking.values()):
            task.cancel()
        self.thinker.close()

    # --- server-wide commands ---------------------------------------------------------------------

    async def games(self, interaction: discord.Interaction) -> None:
        """The server's running games, for anyone who wants to watch."""
        if interaction.guild_id is None:
            raise UserError("Use /games in a server.")
        games = await self.layer.active_games(interaction.guild_id)
        if not games:
            raise UserError("No games are running in this server right now. Start one with /hongkong challenge or /hong challenge.")
        embed = discord.Embed(title=f"Games in progress ({len(games)})", colour=discord.Colour.blurple())
        for doc, game in games[:25]:
            kind = self.layer.kinds[doc["kind"]]
            a, b = names(doc)
            seat = game.to_move
            left = describe_duration(doc["deadline"] - self.layer.clock()) if doc.get("deadline") else "—"
            embed.add_field(
                name=f"{kind.title}: {a} vs {b}"[:256],
                value=(f"{doc['players'][seat]['name']} ({kind.roles[seat]}) to move · move {len(game.moves) + 1} · "
                       f"{left} left · [watch]({jump_link(doc['guild_id'], doc['channel_id'])})")[:1024],
                inline=False,
            )
        if len(games) > 25:
            embed.set_footer(text=f"… and {len(games) - 25} more")
        await interaction.response.send_message(embed=embed, ephemeral=True)

    async def settings(self, interaction: discord.Interaction, turn_timer: str | None, reminders: bool | None, threads: bool | None) -> None:
        """Show (and, with options, change) the server's settings. Needs Manage Server."""
        from .settings import parse_duration

        if interaction.guild_id is None:
            raise UserError("Use /settings in a server.")
        if not interaction.permissions.manage_guild:
            raise UserError("Only members with the **Manage Server** permission can view or change the bot's settings.")
        seconds = parse_duration(turn_timer) if turn_timer is not None else None
        settings = await self.layer.settings.update(interaction.guild_id, turn_timer=seconds, reminders=reminders, threads=threads)
        changed = any(v is not None for v in (turn_timer, reminders, threads))
        text = (
            f"{'Settings updated' if changed else 'Settings'} for this server:\n"
            f"• turn timer: **{describe_duration(settings.turn_timer)}** (a player who doesn't move in time forfeits; "
            "applies from the next turn)\n"
            f"• reminders: **{'on' if settings.reminders else 'off'}** (once, at half the time)\n"
            f"• a thread per game: **{'on' if settings.threads else 'off'}**"
        )
        await interaction.response.send_message(text, ephemeral=True)

    async def abort(self, interaction: discord.Interaction) -> None:
        """An admin ends the channel's game, unrated. Needs Manage Messages."""
        if not interaction.permissions.manage_messages:
            raise UserError("Only members with the **Manage Messages** permission can abort a game.")
        turn = await self.layer.abort(interaction.channel_id, person(interaction.user))
        await self.post_turn(interaction, self.layer.kinds[turn.doc["kind"]], turn)

    # --- commands ---------------------------------------------------------------------------------

    def build_group(self, kind: GameKind) -> app_commands.Group:
        """The ``/<game>`` command group: the game's own commands plus the shared ``board`` and ``resign``."""
        group = app_commands.Group(name=kind.name, description=f"Play {kind.title}", guild_only=True)
        kind.register(group, self)

        @group.command(name="board", description="Show the current board of this channel's game (anyone)")
        async def board(interaction: discord.Interaction) -> None:
            await self.guarded(interaction, self.board(interaction))

        @group.command(name="resign", description=f"Resign your {kind.title} game in this channel")
        async def resign(interaction: discord.Interaction) -> None:
            await self.guarded(interaction, self.resign(interaction, kind))

        return group

    def server_commands(self) -> list[app_commands.Command | app_commands.Group]:
        """``/games``, ``/takeback``, ``/settings`` and ``/game abort``."""

        @app_commands.command(name="games", description="The games running in this server, to watch")
        @app_commands.guild_only()
        async def games(interaction: discord.Interaction) -> None:
            await self.guarded(interaction, self.games(interaction))

        @app_commands.command(name="takeback", description="Ask your opponent to let you undo your last turn")
        @app_commands.guild_only()
        async def takeback(interaction: discord.Interaction) -> None:
            await self.guarded(interaction, self.takeback(interaction))

        @app_commands.command(name="settings", description="Show or change the bot's settings for this server")
        @app_commands.describe(
            turn_timer="Time for a turn before forfeiting, 1m to 7d (e.g. 30m, 12h, 2d)",
            reminders="Remind the player to move at half the time",
            threads="Open a thread for each game",
        )
        @app_commands.guild_only()
        @app_commands.default_permissions(manage_guild=True)
        async def settings(
            interaction: discord.Interaction,
            turn_timer: app_commands.Range[str, 1, 20] | None = None,
            reminders: bool | None = None,
            threads: bool | None = None,
        ) -> None:
            await self.guarded(interaction, self.settings(interaction, turn_timer, reminders, threads))

        game = app_commands.Group(
            name="game", description="Moderate games in this server", guild_only=True,
            default_permissions=discord.Permissions(manage_messages=True),
        )

        @game.command(name="abort", description="End this channel's game without a result (unrated)")
        async def abort(interaction: discord.Interaction) -> None:
            await self.guarded(interaction, self.abort(interaction))

        return [games, takeback, settings, game]

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
