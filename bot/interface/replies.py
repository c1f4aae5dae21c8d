"""The one error path of every slash command and button.

:func:`on_error` is the command tree's error handler (``tree.error``) and what every button's callback calls
(:class:`bot.interface.buttons.GameButton`). It turns

- :class:`bot.core.errors.UserError` and :class:`engine.IllegalMove` (bare, or wrapped in
  ``app_commands.CommandInvokeError``) into an ephemeral refusal with their message;
- ``app_commands.TransformerError`` (an option value Discord's client let through but we can't read) and
  ``app_commands.CheckFailure`` into an ephemeral note of what was wrong;
- the game store not answering in time (:class:`bot.storage.store.NotSaved`, or Redis unreachable before the interaction
  wrote anything: :func:`bot.storage.store.wrote`) into an ephemeral "not saved, please try again" (:func:`not_saved`):
  certainly nothing was stored, and nothing will be when Redis wakes (the commit's deadline);
- :class:`bot.core.errors.NotAcknowledged` (a change whose interaction Discord refused to acknowledge: nothing was
  changed) into nothing: Discord takes no answer for it;
- anything else into an apology, with the traceback in the log (a Redis failure after a write: the change may
  or may not be stored, and the apology says so).

Every answer goes through :mod:`bot.interface.answers`, so it works whether or not the interaction's watchdog acknowledged
it first (a refusal then replaces its private "thinking…").

The state of a game is never changed by a refusal: the session layer raises before it commits.

Every text is in the current language, the caller's (the command tree and the buttons set it from
``interaction.locale`` before anything runs): an ``IllegalMove``'s message is the engine's English
:class:`engine.Term`, translated here (:func:`bot.i18n.wording.translate`); a ``UserError`` is raised with its message
already built in the caller's language (``raise UserError(_("…", x=...))``) and shown as it is.
"""

from __future__ import annotations

import logging

import discord
from babel.lists import format_list
from discord import app_commands

from engine import IllegalMove

from . import answers, mentions
from .. import i18n
from ..core.errors import NoGameHere, NotAcknowledged, UserError
from ..storage.errors import UNREACHABLE, StoreLost
from ..i18n import _
from .metrics import FAILURES
from ..storage.store import NotSaved, wrote
from ..i18n.wording import translate

log = logging.getLogger(__name__)

#: Discord's limit on a message's length.
MESSAGE_LIMIT = 2000


#: Bidi embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069): one left open in text a player typed
#: and a refusal quotes (``\u202eB3``) would reverse the rest of the refusal on screen. Names are cleaned of them
#: when stored (:mod:`bot.i18n.names`); a refusal drops them from what it quotes.
_BIDI_CONTROLS = dict.fromkeys([*range(0x202A, 0x202F), *range(0x2066, 0x206A)])


async def refuse(interaction: discord.Interaction, text: str) -> None:
    """An ephemeral message to the user only: the initial response, or a follow-up if one was sent (after
    deferring, or the watchdog's "thinking…": :func:`bot.interface.answers.send`); without bidi controls
    (:data:`_BIDI_CONTROLS`), at most :data:`MESSAGE_LIMIT` characters. A failure to send is logged, never raised."""
    text = text.translate(_BIDI_CONTROLS)
    try:
        await answers.send(interaction, text[:MESSAGE_LIMIT], ephemeral=True)
    except discord.HTTPException:
        log.warning("could not send a refusal for interaction %s", interaction.id)


def apology(game_names, error: BaseException | None = None) -> str:
    """What a player is told when the bot failed: try again, and how to see the stored game (``game_names``:
    the command names of the hosted games). When the game store could not be reached (``error`` a Redis
    connection error, or a Redis Cluster down or failing over), the change may or may not have been stored: say that
    a stored one's board follows. When the store lost its data (:class:`bot.storage.errors.StoreLost`: nothing is written
    until an operator decides, :mod:`bot.storage.guard`), say that."""
    if isinstance(getattr(error, "original", error), StoreLost):
        return _("The game store lost its data; an operator has been alerted — nothing is saved until they decide.")
    boards = format_list([mentions.command(f"{name} board") for name in game_names], style="or", locale=i18n.current())
    if isinstance(getattr(error, "original", error), UNREACHABLE):
        # TRANSLATORS: {boards} is a command or two (mentions), e.g. "/hongkong board or /hong board".
        return _(
            "I couldn't reach the game store just now. If your move was saved, its board will be posted here "
            "shortly; if not, please try again in a moment ({boards} shows the game as it is stored).",
            boards=boards,
        )
    # TRANSLATORS: {boards} is a command or two (mentions), e.g. "/hongkong board or /hong board".
    return _(
        "Something went wrong on our side. Please try again; {boards} shows the game as it is stored.", boards=boards
    )


def not_saved(move: str | None) -> str:
    """What a player is told when the game store did not answer in time and certainly nothing was stored: their
    move (``move``, in the game's notation) or whatever they asked for was not saved; try again."""
    if move:
        # TRANSLATORS: {move} is the move in the game's notation (e.g. Q@B2 S@C3), shown as it is.
        return _(
            "The game store isn't answering — your move `{move}` was not saved. Please try again in a moment.",
            move=move,
        )
    return _("The game store isn't answering — nothing was saved. Please try again in a moment.")


def not_answering() -> str:
    """What a player is told when the game store did not answer a command that only reads (a board, stats)."""
    return _("The game store isn't answering right now. Please try again in a moment.")


def refusal(error: BaseException) -> str | None:
    """The text to show for an error that is the user's to fix, or None for one that is ours."""
    if isinstance(error, app_commands.CommandInvokeError):
        error = error.original
    if isinstance(error, IllegalMove):
        return translate(error)
    if isinstance(error, UserError):
        return str(error)
    if isinstance(error, app_commands.TransformerError):
        # TRANSLATORS: {value} is what the player gave; {reason} is discord.py's explanation (in English).
        return _("I couldn't read `{value}` for that option. {reason}", value=error.value, reason=str(error))
    if isinstance(error, app_commands.CheckFailure):
        return str(error) or _("You can't use this command here.")
    return None


async def _in_a_thread(interaction: discord.Interaction, error: NoGameHere) -> str | None:
    """Where the game of a channel with none is played, if in one of its threads (a server with a thread per game):
    a sentence pointing there, or None. Never raises (a store failure: the refusal as it was)."""
    layer = getattr(interaction.client, "layer", None)
    if layer is None or interaction.guild_id is None:
        return None
    try:
        records = await layer.active_records(interaction.guild_id)  # no engine game loaded: only who plays where
    except Exception:
        return None
    for record in records:
        if record.parent_id == error.channel_id:
            a, b = record.names
            # TRANSLATORS: {game} is "Hong Kong" or "Hong"; {first}, {second} the players; {thread} the game's thread
            # (a mention: Discord shows its name and opens it when clicked).
            return _(
                "This channel's game of {game} ({first} vs {second}) is played in its thread {thread}: play "
                "and watch it there.",
                game=layer.kinds[record.kind].title,
                first=a,
                second=b,
                thread=f"<#{record.channel_id}>",
            )
    return None


async def on_error(interaction: discord.Interaction, error: BaseException) -> None:
    """Answer a failed command or button press (see the module docstring). Never raises."""
    original = getattr(error, "original", error)
    if isinstance(original, NotAcknowledged):  # nothing changed, and Discord takes no answer (logged, counted)
        log.info("interaction %s: not answered, nothing changed (%s)", interaction.id, original)
        return
    text = refusal(error)
    if isinstance(original, NoGameHere):
        text = await _in_a_thread(interaction, original) or text
    lost = isinstance(original, StoreLost)  # never "not saved": nothing is, until an operator decides
    if (
        text is None
        and not lost
        and (isinstance(original, NotSaved) or (isinstance(original, UNREACHABLE) and not wrote()))
    ):
        log.warning(
            "interaction %s: the game store did not answer in time, nothing saved (%s)", interaction.id, original
        )
        FAILURES.labels("not_saved").inc()
        move = answers.move_of(interaction)
        text = not_saved(move) if move or answers.changing(interaction) else not_answering()
    if text is None:
        data = interaction.data
        what = interaction.command.qualified_name if interaction.command else data.get("custom_id") if data else None
        if lost:  # logged once as an ERROR by bot.storage.guard
            log.warning("interaction %s (%s) refused: %s", interaction.id, what, original)
        else:
            log.error("interaction %s (%s) failed", interaction.id, what, exc_info=error)
        FAILURES.labels("error").inc()
        text = apology(getattr(interaction.client, "kinds", ()), error)
    await refuse(interaction, text)


__all__ = ["refuse", "refusal", "not_saved", "apology", "on_error", "MESSAGE_LIMIT"]
