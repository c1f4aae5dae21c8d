"""Every interaction answered within Discord's 3 s, whatever the game store does: the watchdog, and the answers
that work whether or not it answered first.

:func:`watch` starts the watchdog of an interaction in the task that handles it (the command tree's
:meth:`bot.interface.tree.Tree.interaction_check`, :meth:`bot.interface.buttons.GameButton.callback`; it stops when that task ends). If
the handler has not answered by :data:`bot.budget.ANSWER_BY` seconds after the interaction's creation (its snowflake
time), the watchdog acknowledges it itself and the handler finishes through the follow-up path:

- a slash command: Discord's "thinking…", to the caller alone (ephemeral). A refusal or any private answer then
  replaces it (Discord: the first follow-up after a deferral edits its "thinking…" message and keeps its privacy);
  a public answer (a move's board) first turns it into a short confirmation (``confirm``, default :data:`DONE`), then
  goes to the channel as a follow-up of its own — so a refusal stays private and a board reaches the channel;
- a button: a deferred update (the button shows it is working; the message it is on can still be edited, and
  follow-ups are private or public as asked);
- an autocomplete can't be deferred: its handler is given up and Discord gets no choices, before 3 s.

Every reply to an interaction goes through :func:`send`, :func:`defer` and :func:`edit` (and so
:func:`bot.interface.replies.refuse`): a lock per interaction keeps the watchdog and the handler from both sending the initial
response. The watchdog also starts the interaction's store accounting (:func:`bot.storage.store.fresh_task`; a server's settings
read once, :func:`bot.storage.settings.read_once`): what it changes
must be stored by :data:`bot.budget.STORE_DEADLINE` after its creation or never, and until it writes anything a
failure to reach Redis means nothing was saved (:func:`bot.interface.replies.on_error` says so).

A command or button that changes a game answers first (:func:`before_change`): its checks run, then the
interaction is acknowledged, and the change is committed only if that went through — an interaction Discord no
longer takes (10062: it arrived late, or was replayed after a gateway resume) changes nothing, so pressing again
works. A refusal after a public "thinking…" (the change lost a race, the store failed) replaces it privately: the
"thinking…" is deleted and the refusal sent to the player alone.

Discord's rule: "Interaction tokens are valid for 15 minutes … you must send an initial response within 3 seconds"
(Receiving and Responding, Responding to an Interaction).
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import time
from contextlib import nullcontext
from typing import Callable

import aiohttp
import discord

from .. import budget
from ..storage import settings, store
from ..core.errors import NotAcknowledged
from ..i18n import N_, _
from .metrics import FAILURES, FIRST_RESPONSE

log = logging.getLogger(__name__)

#: What a private "thinking…" of the watchdog becomes when the answer is public (a catalog message: ``_(DONE)``).
DONE = N_("Done: posted in this channel.")


class Guard:
    """The watchdog of one interaction, alive while the task handling it runs.

    Attributes:
        interaction: the interaction watched.
        lock: held while an initial response is sent (by the watchdog or the handler).
        by_watchdog: True once the watchdog has acknowledged the interaction.
        pending: True while a private "thinking…" (a slash command; the watchdog's, or :func:`before_change`'s when
            the boards queue is long) has not been replaced by an answer yet.
        thinking: True while a public "thinking…" (:func:`defer` with ``thinking``) has not been answered yet: a
            private answer deletes it first (:func:`send`).
        expired: True once Discord refused to acknowledge the interaction (10062): it can't be answered.
        move: the move being made (set with :func:`note_move`), for the words of a refusal.
        changing: True once the handler is about to change a game (:func:`before_change`): a store that doesn't
            answer then means "not saved"; before, only that it isn't answering (a read).
    """

    def __init__(self, interaction: discord.Interaction) -> None:
        self.interaction = interaction
        self.lock = asyncio.Lock()
        self.by_watchdog = False
        self.pending = False
        self.thinking = False
        self.expired = False
        self.move: str | None = None
        self.changing = False
        self.task: asyncio.Task | None = None
        self.timer: asyncio.TimerHandle | None = None


_GUARD: contextvars.ContextVar[Guard | None] = contextvars.ContextVar("interaction_guard", default=None)
#: Acknowledgements in flight (a reference, so that they are not collected before they finish).
_ACKS: set[asyncio.Task] = set()


def age(interaction: discord.Interaction) -> float:
    """Seconds since Discord created ``interaction`` (from its snowflake time, on our clock; at least 0)."""
    return max(0.0, time.time() - discord.utils.snowflake_time(interaction.id).timestamp())


def watch(interaction: discord.Interaction) -> Guard:
    """Start the watchdog of ``interaction`` for the current task (see the module docstring) and its store
    accounting: changes due by :data:`bot.budget.STORE_DEADLINE` after creation (counted from at most
    :data:`bot.budget.ANSWER_BY` ago: a skewed clock never leaves the store less than the rest). Returns its
    :class:`Guard`; the watchdog stops when the task ends."""
    guard = Guard(interaction)
    _GUARD.set(guard)
    elapsed = age(interaction)
    store.fresh_task(time.monotonic() + budget.STORE_DEADLINE - min(elapsed, budget.ANSWER_BY))
    settings.read_once()
    guard.task = asyncio.current_task()
    if guard.task is None:
        return guard
    loop = asyncio.get_running_loop()
    guard.timer = timer = loop.call_later(max(0.0, budget.ANSWER_BY - elapsed), _due, guard)
    guard.task.add_done_callback(lambda _task: timer.cancel())
    return guard


def _due(guard: Guard) -> None:
    if guard.interaction.response.is_done():
        return
    if guard.interaction.type is discord.InteractionType.autocomplete and guard.task is not None:
        guard.task.cancel()  # give up the handler: Discord gets no choices rather than none in time
    task = asyncio.get_running_loop().create_task(_acknowledge(guard), name=f"watchdog-{guard.interaction.id}")
    _ACKS.add(task)
    task.add_done_callback(_ACKS.discard)


async def _acknowledge(guard: Guard) -> None:
    """Acknowledge the interaction if its handler still has not (see the module docstring). Never raises."""
    interaction = guard.interaction
    async with guard.lock:
        if interaction.response.is_done() or guard.expired:  # (expired: its handler was refused 10062 already)
            return
        try:
            if interaction.type is discord.InteractionType.autocomplete:
                await interaction.response.autocomplete([])
                return
            if interaction.type is discord.InteractionType.component:
                await interaction.response.defer()
            else:
                await interaction.response.defer(thinking=True, ephemeral=True)
                guard.pending = True
            guard.by_watchdog = True
        except (discord.HTTPException, aiohttp.ClientError, asyncio.TimeoutError) as exc:
            guard.expired = isinstance(exc, discord.NotFound)
            log.warning("the watchdog could not acknowledge interaction %s (%s)", interaction.id, exc)
            return
    if guard.move is not None:
        FIRST_RESPONSE.observe(age(interaction))
    log.info(
        "interaction %s acknowledged by the watchdog %.2f s after its creation (its handler is still waiting)",
        interaction.id,
        age(interaction),
    )


def _guard(interaction: discord.Interaction) -> Guard | None:
    guard = _GUARD.get()
    return guard if guard is not None and guard.interaction is interaction else None


def _lock(interaction: discord.Interaction):
    guard = _guard(interaction)
    return guard.lock if guard is not None else nullcontext()


def note_move(interaction: discord.Interaction, move: str) -> None:
    """Note the move ``interaction`` makes (a refusal names it; its first response is counted as a move's)."""
    guard = _guard(interaction)
    if guard is not None:
        guard.move = move


def move_of(interaction: discord.Interaction) -> str | None:
    """The move noted with :func:`note_move` for ``interaction``, or None."""
    guard = _guard(interaction)
    return guard.move if guard is not None else None


def will_change(interaction: discord.Interaction) -> None:
    """Note that ``interaction`` sets out to change a game (a move, a button that accepts, resigns …): if the store
    doesn't answer, the player is told nothing was saved."""
    guard = _guard(interaction)
    if guard is not None:
        guard.changing = True


def changing(interaction: discord.Interaction) -> bool:
    """Whether ``interaction`` set out to change a game (:func:`before_change` was called for it)."""
    guard = _guard(interaction)
    return guard is not None and guard.changing


def by_watchdog(interaction: discord.Interaction) -> bool:
    """Whether the watchdog acknowledged ``interaction`` (its handler was slow)."""
    guard = _guard(interaction)
    return guard is not None and guard.by_watchdog


def pending(interaction: discord.Interaction) -> bool:
    """Whether the watchdog's private "thinking…" for ``interaction`` still waits for its answer."""
    guard = _guard(interaction)
    return guard is not None and guard.pending


async def defer(interaction: discord.Interaction, *, thinking: bool = False, ephemeral: bool = False) -> bool:
    """Acknowledge ``interaction`` (``InteractionResponse.defer``) unless it already is (by the watchdog, or
    earlier). True if this call did.

    Raises:
        discord.HTTPException: as ``defer`` (``discord.NotFound``: the interaction expired).
    """
    async with _lock(interaction):
        if interaction.response.is_done():
            return False
        await interaction.response.defer(thinking=thinking, ephemeral=ephemeral)
        guard = _guard(interaction)
        if guard is not None and thinking and interaction.type is not discord.InteractionType.component:
            guard.pending, guard.thinking = ephemeral, not ephemeral
        return True


def before_change(interaction: discord.Interaction, *, private: Callable[[], bool] | None = None) -> None:
    """Answer first: ``interaction`` (a command or button about to change a game) is acknowledged just before the
    change is committed — after the reads and the rules' checks, whose refusals are answered at once as usual — and
    the change is committed only if that acknowledgement went through (:func:`bot.storage.store.gate`; the game layer
    stays Discord-free). The acknowledgement is what the change's answer would start with: a button's deferred
    update; a command's public "thinking…" — or a private one when ``private()`` says so (the boards queue is long:
    the answer is then "busy: saved, the board follows", :func:`bot.interface.posts.answer_first`). Nothing is sent if the
    interaction is already acknowledged (the watchdog did, its store being slow).

    When Discord refuses the acknowledgement — ``10062 Unknown interaction``: it arrived after Discord's 3 s (network
    latency), or it was replayed after a gateway resume — or the callback fails, the change raises
    :class:`bot.core.errors.NotAcknowledged` before anything is written (counted as
    ``hongbot_failures_total{reason="expired"}``, or ``"unacknowledged"``), so the game is as it was and pressing
    again works. Source: Discord, Receiving and Responding ("you must send an initial response within 3 seconds").
    """
    will_change(interaction)

    async def acknowledge() -> None:
        guard = _guard(interaction)
        if guard is not None and guard.expired:  # the watchdog's attempt was refused 10062 already
            _unacknowledged(interaction, "expired", "refused to the watchdog")
        ephemeral = bool(private and private())
        try:
            if interaction.type is discord.InteractionType.component:
                first = await defer(interaction)
            else:
                first = await defer(interaction, thinking=True, ephemeral=ephemeral)
        except discord.NotFound as exc:
            _unacknowledged(interaction, "expired", exc)
        except discord.HTTPException as exc:
            _unacknowledged(interaction, "unacknowledged", exc)
        except (aiohttp.ClientError, asyncio.TimeoutError) as exc:
            _unacknowledged(interaction, "unacknowledged", repr(exc))
        if first and move_of(interaction) is not None:  # the metric is a person's move's (README: Metrics)
            FIRST_RESPONSE.observe(age(interaction))
        if first and interaction.type is discord.InteractionType.application_command and not ephemeral:
            # its public "thinking…" is completed with the board by whoever announces the change (bot.storage.store.reply_to)
            store.reply_to(f"{interaction.application_id}:{interaction.token}")

    store.gate(acknowledge)


def _unacknowledged(interaction: discord.Interaction, reason: str, why) -> None:
    guard = _guard(interaction)
    if guard is not None and reason == "expired":
        guard.expired = True
    FAILURES.labels(reason).inc()
    log.warning(
        "interaction %s (%.1f s old) could not be acknowledged (%s): its change is not made",
        interaction.id,
        age(interaction),
        why,
    )
    raise NotAcknowledged(f"interaction {interaction.id} could not be acknowledged: {why}")


async def send(
    interaction: discord.Interaction,
    content: str | None = None,
    *,
    ephemeral: bool = False,
    confirm: str | None = None,
    **fields,
) -> discord.Message | None:
    """Say ``content`` (with ``fields``: ``file``, ``view``, ``embed``, ``allowed_mentions``…) in answer to
    ``interaction``: its initial response if none was sent yet, else a follow-up. After the watchdog's private
    "thinking…", a private answer replaces it, and a public one first turns it into ``confirm`` (default
    :data:`DONE`, in the current language) and is then posted for the channel.

    Returns:
        The follow-up message, or None when this was the initial response (``interaction.original_response()``).

    Raises:
        discord.HTTPException: as the call made (``discord.NotFound``: the interaction expired).
    """
    async with _lock(interaction):
        if not interaction.response.is_done():
            await interaction.response.send_message(content, ephemeral=ephemeral, **fields)
            return None
    guard = _guard(interaction)
    if guard is not None and guard.pending:
        guard.pending = False
        if not ephemeral:
            await interaction.edit_original_response(content=confirm or _(DONE))
    if guard is not None and guard.thinking:
        guard.thinking = False  # the first follow-up replaces a public "thinking…", and would be as public
        if ephemeral:
            try:
                await interaction.delete_original_response()
            except discord.HTTPException as exc:
                log.warning('could not delete the "thinking…" of interaction %s (%s)', interaction.id, exc)
    # (discord.py's overloads type content as str; its send takes None: no text, as send_message does)
    followup = interaction.followup
    return await followup.send(content, ephemeral=ephemeral, wait=True, **fields)  # type: ignore[call-overload]


async def edit(interaction: discord.Interaction, **fields) -> None:
    """Edit the message whose button was pressed (``fields``: ``content``, ``view``, ``embed``…): as the answer (an
    update), or after the watchdog's deferred update, through the original response (which is that message).

    Raises:
        discord.HTTPException: as the call made.
    """
    async with _lock(interaction):
        if not interaction.response.is_done():
            await interaction.response.edit_message(**fields)
            return
    guard = _guard(interaction)
    if guard is not None:
        guard.thinking = False
    await interaction.edit_original_response(**fields)


__all__ = [
    "DONE",
    "Guard",
    "age",
    "watch",
    "note_move",
    "move_of",
    "by_watchdog",
    "pending",
    "defer",
    "before_change",
    "send",
    "edit",
]
