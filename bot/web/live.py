"""Live pages: every viewer of a game in this process shares one :class:`Topic` (per link token), refreshed when
the commit script's message is heard (:class:`bot.storage.live.LiveFeed`) and, as a safety net for a lost pub/sub
message, by a slow re-read of every watched game (:attr:`Hub.poll` seconds). A refresh reads the game once, builds
its state once (the event every viewer is sent, already encoded) and wakes the viewers; nothing of it is kept
beyond the viewers' lifetime, so any number of web processes can serve the same games.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass
from typing import Awaitable, Callable

from ..storage.live import LiveFeed, parse

log = logging.getLogger(__name__)

#: Seconds between two re-reads of every watched game (the safety net).
POLL = 10.0
#: Seconds between two keep-alive comments on every event stream.
KEEP_ALIVE = 15.0


@dataclass(frozen=True)
class State:
    """A game's state as sent to its viewers: its version (the SSE event id), whether it is over, the event's
    bytes (``id:``, ``event:``, ``data:`` lines), and the channel it is played in now (None: unchanged)."""

    version: int
    finished: bool
    event: bytes
    channel_id: int | None = None


class Topic:
    """The viewers of one link in this process, and the latest :class:`State` (None until first read, or when the
    game can no longer be shown: the viewers are then told to reload).

    Viewers wait on one shared future (:meth:`next`), resolved by a new state (``"state"``) or by the hub's
    keep-alive tick (``"tick"``): waking 10,000 viewers costs 10,000 callbacks, no task or timer each.
    """

    def __init__(self, token: str, channel_id: int) -> None:
        self.token = token
        self.channel_id = channel_id
        self.state: State | None = None
        self.viewers = 0
        self.gone = False
        self.future: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self._dirty = False
        self._refreshing: asyncio.Task | None = None

    async def next(self, future: asyncio.Future[str]) -> str:
        """Wait for ``future`` (the topic's :attr:`future` taken *before* reading :attr:`state`, so nothing
        published in between is missed): ``"state"`` or ``"tick"``."""
        return await asyncio.shield(future)

    def _wake(self, why: str) -> None:
        future, self.future = self.future, asyncio.get_running_loop().create_future()
        future.set_result(why)

    def tick(self) -> None:
        """Wake the viewers to send a keep-alive."""
        self._wake("tick")

    def publish(self, state: State | None) -> None:
        """Make ``state`` the latest (None: gone) and wake every viewer waiting."""
        if state is None:
            self.gone = True
        elif self.state is not None and state.version == self.state.version and state.finished == self.state.finished:
            return
        self.state = state if state is not None else self.state
        self._wake("state")


class Hub:
    """The topics of this process: ``build(token, known version)`` reads a game and returns its :class:`State`
    (None: it can't be shown any more). ``feed``: the process's :class:`LiveFeed` (its ``on_change`` is
    :meth:`heard`)."""

    def __init__(
        self, build: Callable[[str, int], Awaitable[State | None]], poll: float = POLL, keep_alive: float = KEEP_ALIVE
    ) -> None:
        self.build = build
        self.poll = poll
        self.keep_alive = keep_alive
        self.topics: dict[str, Topic] = {}
        self.channels: dict[int, set[str]] = {}
        self.feed: LiveFeed | None = None
        self._poller: asyncio.Task | None = None
        self._ticker: asyncio.Task | None = None

    def start(self, feed: LiveFeed) -> None:
        """Listen with ``feed`` and start the slow re-read."""
        self.feed = feed
        feed.start()
        self._poller = asyncio.create_task(self._poll(), name="live-poll")
        self._ticker = asyncio.create_task(self._tick(), name="live-keep-alive")

    async def close(self) -> None:
        """Stop listening and re-reading."""
        for task in (self._poller, self._ticker):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        if self.feed is not None:
            await self.feed.close()
        for topic in self.topics.values():
            topic.publish(None)

    async def join(self, token: str, channel_id: int) -> Topic:
        """A viewer joins the topic of ``token`` (made, watched and read on the first viewer)."""
        topic = self.topics.get(token)
        if topic is None:
            topic = self.topics[token] = Topic(token, channel_id)
            self.channels.setdefault(channel_id, set()).add(token)
            if self.feed is not None:
                await self.feed.watch(channel_id)
        topic.viewers += 1
        if topic.state is None and not topic.gone:
            await self.refresh(topic)
        return topic

    async def leave(self, topic: Topic) -> None:
        """A viewer leaves; the last one takes the topic (and, if it was the channel's last, the watch) away."""
        topic.viewers -= 1
        if topic.viewers > 0 or self.topics.get(topic.token) is not topic:
            return
        del self.topics[topic.token]
        tokens = self.channels.get(topic.channel_id, set())
        tokens.discard(topic.token)
        if not tokens:
            self.channels.pop(topic.channel_id, None)
            if self.feed is not None:
                await self.feed.unwatch(topic.channel_id)

    def heard(self, channel_id: int, message: str) -> None:
        """The feed heard a commit of ``channel_id`` (``message``: its version, ``""``: maybe missed): refresh its
        topics whose state is older."""
        try:
            version = parse(message)[0] if message else None
        except ValueError:
            version = None
        for token in list(self.channels.get(channel_id, ())):
            topic = self.topics.get(token)
            if topic is None:
                continue
            if version is not None and topic.state is not None and topic.state.version >= version:
                continue
            self._schedule(topic)

    def _schedule(self, topic: Topic) -> None:
        """Refresh ``topic`` soon; one refresh at a time per topic, and one more after it if asked meanwhile."""
        if topic._refreshing is not None and not topic._refreshing.done():
            topic._dirty = True
            return
        topic._refreshing = asyncio.create_task(self._refresh_loop(topic))

    async def _refresh_loop(self, topic: Topic) -> None:
        while True:
            topic._dirty = False
            await self.refresh(topic)
            if not topic._dirty:
                return

    async def refresh(self, topic: Topic) -> None:
        """Read the topic's game again and publish its state if it changed (a read that fails is logged and
        left for the next message or re-read)."""
        known = topic.state.version if topic.state is not None else 0
        try:
            state = await self.build(topic.token, known)
        except Exception:
            log.exception("could not read the game of a watched link")
            return
        if state is not None and state.channel_id is not None and state.channel_id != topic.channel_id:
            await self._moved(topic, state.channel_id)
        topic.publish(state)

    async def _moved(self, topic: Topic, channel_id: int) -> None:
        """The topic's game is played in another channel now (moved into its thread, or out): hear that one."""
        old = topic.channel_id
        tokens = self.channels.get(old, set())
        tokens.discard(topic.token)
        if not tokens:
            self.channels.pop(old, None)
            if self.feed is not None:
                await self.feed.unwatch(old)
        topic.channel_id = channel_id
        self.channels.setdefault(channel_id, set()).add(topic.token)
        if self.feed is not None:
            await self.feed.watch(channel_id)

    async def _tick(self) -> None:
        while True:
            await asyncio.sleep(self.keep_alive)
            for topic in list(self.topics.values()):
                topic.tick()

    async def _poll(self) -> None:
        while True:
            await asyncio.sleep(self.poll)
            for topic in list(self.topics.values()):
                if not topic.gone and not (topic.state is not None and topic.state.finished):
                    self._schedule(topic)


__all__ = ["Hub", "Topic", "State", "POLL", "KEEP_ALIVE"]
