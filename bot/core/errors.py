"""The errors a player may see. A leaf module: it imports nothing (the store's errors: :mod:`bot.storage.errors`).

:class:`UserError` (and the engine's :class:`engine.IllegalMove`) become an ephemeral refusal with their message,
through the one error path in :mod:`bot.interface.replies`; any other exception becomes an apology and a log line.
"""

from __future__ import annotations


class UserError(Exception):
    """A refusal to show the user (ephemerally): what was wrong and what would be right. Nothing was changed.

    Its message is shown as it is, so build it in the caller's language — the current language while a command
    or button runs: ``raise UserError(_("'{text}' is too short", text=shown))`` (:mod:`bot.i18n`)."""


class GameChanged(UserError):
    """A change lost the race against another one committed first (a move, takeback, answer or timeout).
    The message says to look at the board and try again; nothing was changed."""


class NoGameHere(UserError):
    """No game is running in the channel asked about (``channel_id``). The answer may add where one is — in a thread
    of that channel (:func:`bot.interface.replies.on_error`)."""

    def __init__(self, message: str, channel_id: int) -> None:
        super().__init__(message)
        self.channel_id = channel_id


class NotAcknowledged(Exception):
    """An interaction that would change a game could not be acknowledged (Discord refused its first response:
    10062 Unknown interaction — it arrived after Discord's 3 s, or was replayed after a gateway resume — or the
    callback failed): so nothing was changed (the change is committed only after its acknowledgement,
    :func:`bot.interface.answers.before_change`) and nobody can be told. The message says why, for the log."""


__all__ = ["UserError", "GameChanged", "NoGameHere", "NotAcknowledged"]
