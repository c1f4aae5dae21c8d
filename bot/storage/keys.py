"""Every Redis key name of the bot, here and nowhere else: :class:`Keys` on one Redis server,
:class:`ClusterKeys` on a Redis Cluster (a commit's keys in one hash slot), :func:`keys_for` a client.
"""

from __future__ import annotations

import itertools
import re
import zlib

from redis.asyncio.cluster import RedisCluster
from redis.crc import key_slot


PREFIX = "hongbot"


class Keys:
    """Every Redis key name of the bot, as laid out on one Redis server (:class:`ClusterKeys`: on a Redis Cluster).

    Keys of one channel share the hash tag ``{ch:<id>}``, of one server ``{g:<id>}``, of one leaderboard
    ``{rt:<kind>:<scope>}``. The sets a commit writes beside a channel's record (deadlines, outbox, finished index,
    a server's active channels) are per *bucket* of channels (:meth:`bucket`): here there is one bucket, and each
    is one key; on a Cluster there are :attr:`BUCKETS`, each in the slot of its channels' records, so that every
    multi-key step stays in one hash slot.
    """

    #: How many buckets the channels are spread over (see :meth:`bucket`).
    BUCKETS = 1

    #: Sorted set ``<channel id>:<game id>`` → end time: every finished game.
    FINISHED = f"{PREFIX}:finished"
    #: Sorted set of deadline members (see :mod:`bot.storage.deadlines`) → due time.
    DEADLINES = f"{PREFIX}:deadlines"
    #: Hash game id → channel id: find a finished game by its id alone.
    GAME_INDEX = f"{PREFIX}:gameidx"
    #: Set of ``<channel id>:<game id>`` whose indexing and rating are complete.
    RECORDS_DONE = f"{PREFIX}:records:done"
    #: Sorted set of announcements still to make (see :mod:`bot.storage.outbox`) → when one may be retried.
    OUTBOX = f"{PREFIX}:outbox"
    #: Sorted set quarantine key → when a damaged record was set aside there.
    QUARANTINE = f"{PREFIX}:quarantine"
    #: A short lock: the process holding it runs the periodic check of every game's deadlines.
    REARM_LOCK = f"{PREFIX}:rearm-lock"
    #: A short lock: the process holding it runs the periodic sweep of finished records past their retention.
    RETENTION_LOCK = f"{PREFIX}:retention-lock"
    #: The store's identity marker (:mod:`bot.storage.guard`): hash ``id``, ``created`` (and ``accepted`` after an operator
    #: accepted an emptied store).
    IDENTITY = f"{PREFIX}:store:identity"
    #: Sorted set of tournament steps due (see :mod:`bot.storage.tournaments`) → when.
    TOURNAMENT_DUE = f"{PREFIX}:tournaments:due"
    #: The secret web links are made with (:mod:`bot.storage.weblinks`): 32 random bytes, hex, created once.
    WEB_SECRET = f"{PREFIX}:web:secret"
    #: SCAN patterns for the channels' records and the finished records.
    GAME_PATTERN = f"{PREFIX}:{{ch:*}}:game"
    FINISHED_PATTERN = f"{PREFIX}:{{ch:*}}:done:*"
    #: SCAN pattern for the tournaments' documents (:meth:`tournament`).
    TOURNAMENT_PATTERN = f"{PREFIX}:{{ch:*}}:tourn:*"

    @classmethod
    def identity_keys(cls) -> list[str]:
        """The keys of the store's identity marker (:mod:`bot.storage.guard`): one here; on a Cluster one per bucket, in the
        bucket's slot, so that every primary holding games holds one."""
        return [cls.IDENTITY]

    @classmethod
    def channel(cls, channel_id: int) -> str:
        """The prefix of every key of a channel (its hash tag included)."""
        return f"{PREFIX}:{{ch:{channel_id}}}"

    @classmethod
    def bucket(cls, channel_id: int) -> int:
        """The bucket of a channel's keys (0 ≤ bucket < :attr:`BUCKETS`)."""
        return 0

    @classmethod
    def deadlines(cls, bucket: int) -> str:
        """A bucket's deadlines (:mod:`bot.storage.deadlines`)."""
        return cls.DEADLINES

    @classmethod
    def outbox(cls, bucket: int) -> str:
        """A bucket's announcements still to make (:mod:`bot.storage.outbox`)."""
        return cls.OUTBOX

    @classmethod
    def finished_index(cls, bucket: int) -> str:
        """A bucket's finished games: sorted set ``<channel id>:<game id>`` → end time."""
        return cls.FINISHED

    @classmethod
    def tournament_due(cls, bucket: int) -> str:
        """A bucket's tournament steps due (:mod:`bot.storage.tournaments`): sorted set member → when."""
        return cls.TOURNAMENT_DUE

    @classmethod
    def tournament(cls, channel_id: int, tournament_id: str) -> str:
        """A tournament run from ``channel_id`` (hash ``v``, ``doc``: :class:`bot.core.tournament.event.Tournament`)."""
        return f"{cls.channel(channel_id)}:tourn:{tournament_id}"

    @classmethod
    def tournament_games(cls, channel_id: int) -> str:
        """Hash game id → tournament id: the games of the tournaments run from ``channel_id``."""
        return f"{cls.channel(channel_id)}:tourn-games"

    @staticmethod
    def guild_tournaments(guild_id: int) -> str:
        """Hash tournament id → the channel it is run from: a server's tournaments."""
        return f"{PREFIX}:{{g:{guild_id}}}:tournaments"

    @classmethod
    def quarantine_index(cls, bucket: int) -> str:
        """A bucket's damaged records set aside: sorted set quarantine key → when."""
        return cls.QUARANTINE

    @classmethod
    def game(cls, channel_id: int) -> str:
        """The channel's open challenge or running game (hash ``v``, ``doc``)."""
        return f"{cls.channel(channel_id)}:game"

    @classmethod
    def finished(cls, channel_id: int, game_id: str) -> str:
        """A finished game's record (JSON string)."""
        return f"{cls.channel(channel_id)}:done:{game_id}"

    @classmethod
    def live(cls, channel_id: int) -> str:
        """The pub/sub channel the commit script publishes the channel's new version on (``PUBLISH``; ``SPUBLISH`` on
        a Redis Cluster from Redis 7: a shard channel in the slot of the channel's keys), for the web companion's
        watchers (:mod:`bot.storage.live`). Not a key: nothing is stored under it."""
        return f"{cls.channel(channel_id)}:live"

    @staticmethod
    def web_link(token: str) -> str:
        """What a web link's token (:mod:`bot.storage.weblinks`) points at: hash ``guild``, ``channel``, ``game``
        (the game id; empty for a server's page) and ``lang`` (the server's language when the link was made)."""
        return f"{PREFIX}:web:link:{token}"

    @classmethod
    def reply(cls, channel_id: int, member: str) -> str:
        """The interaction whose change a turn announcement (outbox ``member``) announces, while Discord lets it be
        completed: ``<application id>:<interaction token>``, with a TTL of :data:`REPLY_TTL` (see :func:`reply_to`)."""
        return f"{cls.channel(channel_id)}:reply:{member}"

    @classmethod
    def challenge_message(cls, channel_id: int, game_id: str) -> str:
        return f"{cls.channel(channel_id)}:msg:{game_id}"

    @classmethod
    def takeback_message(cls, channel_id: int, game_id: str) -> str:
        """The message of a game's takeback request: ``<nonce>:<message id>`` (one request at a time)."""
        return f"{cls.channel(channel_id)}:tbmsg:{game_id}"

    @classmethod
    def rematch_votes(cls, channel_id: int, game_id: str) -> str:
        return f"{cls.channel(channel_id)}:rematch:{game_id}"

    @classmethod
    def rematch_message(cls, channel_id: int, game_id: str) -> str:
        """The message that asked a finished game's other player for a rematch (its id), retired when it starts."""
        return f"{cls.channel(channel_id)}:rmmsg:{game_id}"

    @classmethod
    def quarantine(cls, channel_id: int, when: float) -> str:
        """Where a damaged record of the channel is kept for inspection."""
        return f"{cls.channel(channel_id)}:quarantine:{when:.6f}"

    @staticmethod
    def tries(key: str) -> str:
        """Hash member → claims so far, beside a sorted set of leased members (:class:`DueSet`)."""
        return f"{key}:tries"

    @staticmethod
    def shards(key: str) -> str:
        """Hash member → ``guild id >> 22`` (what a guild's gateway shard is computed from), beside a sorted set of
        leased members: a process claims only the members of its shards' guilds (:class:`DueSet`)."""
        return f"{key}:shard"

    @staticmethod
    def commands(application_id: int, guild_id: int | None) -> str:
        """A hash of the command definitions last synced to Discord for the application (in one server, or
        ``global``): commands are synced again only when theirs changes (see :mod:`bot.interface.client`)."""
        return f"{PREFIX}:commands:{application_id}:{guild_id or 'global'}"

    @staticmethod
    def command_ids(application_id: int, guild_id: int | None) -> str:
        """The ids Discord gave the application's top-level commands at the last sync (in one server, or
        ``global``): a hash, command name → id, for command mentions (:mod:`bot.interface.mentions`)."""
        return f"{PREFIX}:commands:{application_id}:{guild_id or 'global'}:ids"

    @classmethod
    def active(cls, guild_id: int, bucket: int = 0) -> str:
        """Set of the server's channel ids (of one bucket) with a running game."""
        return f"{PREFIX}:{{g:{guild_id}}}:active"

    @staticmethod
    def settings(guild_id: int) -> str:
        """Hash of the server's settings."""
        return f"{PREFIX}:{{g:{guild_id}}}:settings"

    @staticmethod
    def guild_games(guild_id: int) -> str:
        """Sorted set game id → end time: the server's history."""
        return f"{PREFIX}:{{g:{guild_id}}}:games"

    @staticmethod
    def user_games(guild_id: int, user_id: int) -> str:
        """Sorted set game id → end time: one player's games in a server."""
        return f"{PREFIX}:{{g:{guild_id}}}:u:{user_id}:games"

    @staticmethod
    def analysis(game_id: str) -> str:
        """String: a finished game's analysis as JSON (:mod:`bot.storage.analyses`), kept 30 days."""
        return f"{PREFIX}:analysis:{game_id}"

    #: Hash interaction id → the analyses answered "Analysing…" and not yet edited in (:mod:`bot.storage.analyses`):
    #: what a restarted bot needs to finish them (game id, application id, interaction token, language, until when).
    ANALYSES_PENDING = f"{PREFIX}:analysis:pending"

    @staticmethod
    def hints(game_id: str) -> str:
        """Hash seat → hints that seat's player asked for in the game (:mod:`bot.storage.analyses`)."""
        return f"{PREFIX}:hints:{game_id}"

    @staticmethod
    def user_games_pattern(user_id: int) -> str:
        """SCAN pattern of one player's :meth:`user_games` in every server."""
        return f"{PREFIX}:{{g:*}}:u:{user_id}:games"

    @staticmethod
    def rating_pattern(part: str) -> str:
        """SCAN pattern of one ``part`` (see :meth:`rating`) of every leaderboard."""
        return f"{PREFIX}:{{rt:*}}:{part}"

    @classmethod
    def rematch_pattern(cls) -> str:
        """SCAN pattern of every finished game's rematch votes (:meth:`rematch_votes`; its ``:started`` claim too)."""
        return cls.GAME_PATTERN.replace(":game", ":rematch:*")

    @staticmethod
    def rating(kind: str, scope: str, part: str) -> str:
        """A leaderboard's key: ``part`` is ``board``, ``rated`` or ``p:<user id>``."""
        return f"{PREFIX}:{{rt:{kind}:{scope}}}:{part}"

    @staticmethod
    def channel_of(key: str) -> int:
        """The channel id in a key built by :meth:`game` or :meth:`finished` (of either layout)."""
        found = re.search(r"ch:(\d+)", key)
        if found is None:
            raise ValueError(f"the key {key} names no channel")
        return int(found.group(1))


def _bucket_tags(count: int) -> tuple[str, ...]:
    """Hash tags for ``count`` buckets: bucket k's is the first ``b<k>.<i>`` whose Cluster hash slot lies in the k-th
    ``count``-th of the 16,384 slots, so that any even split of the slots among primaries spreads the buckets evenly."""
    width = 16384 / count
    return tuple(
        next(tag for i in itertools.count() if int(key_slot((tag := f"b{k}.{i}").encode()) // width) == k)
        for k in range(count)
    )


class ClusterKeys(Keys):
    """The key layout on a Redis Cluster: the channels are spread over :attr:`BUCKETS` buckets (by a CRC-32 of the
    channel id); every key of a channel, and its bucket's deadlines, outbox, finished index, quarantine index and
    each server's active set, carry the bucket's hash tag (:data:`BUCKET_TAGS`), so a commit — the record and all
    it changes besides — touches one hash slot. The other keys are as on one server."""

    BUCKETS = 16
    GAME_PATTERN = f"{PREFIX}:{{*}}:ch:*:game"
    FINISHED_PATTERN = f"{PREFIX}:{{*}}:ch:*:done:*"
    TOURNAMENT_PATTERN = f"{PREFIX}:{{*}}:ch:*:tourn:*"

    @classmethod
    def bucket(cls, channel_id: int) -> int:
        return zlib.crc32(str(channel_id).encode()) % cls.BUCKETS

    @classmethod
    def _tag(cls, bucket: int) -> str:
        return f"{PREFIX}:{{{BUCKET_TAGS[bucket]}}}"

    @classmethod
    def identity_keys(cls) -> list[str]:
        return [f"{cls._tag(bucket)}:store:identity" for bucket in range(cls.BUCKETS)]

    @classmethod
    def channel(cls, channel_id: int) -> str:
        return f"{cls._tag(cls.bucket(channel_id))}:ch:{channel_id}"

    @classmethod
    def deadlines(cls, bucket: int) -> str:
        return f"{cls._tag(bucket)}:deadlines"

    @classmethod
    def outbox(cls, bucket: int) -> str:
        return f"{cls._tag(bucket)}:outbox"

    @classmethod
    def finished_index(cls, bucket: int) -> str:
        return f"{cls._tag(bucket)}:finished"

    @classmethod
    def quarantine_index(cls, bucket: int) -> str:
        return f"{cls._tag(bucket)}:quarantine"

    @classmethod
    def tournament_due(cls, bucket: int) -> str:
        return f"{cls._tag(bucket)}:tournaments:due"

    @classmethod
    def active(cls, guild_id: int, bucket: int = 0) -> str:
        return f"{cls._tag(bucket)}:g:{guild_id}:active"


#: The hash tags of :class:`ClusterKeys`' buckets (a test pins them: changing one would orphan stored keys).
BUCKET_TAGS = _bucket_tags(ClusterKeys.BUCKETS)


def keys_for(redis) -> type[Keys]:
    """The key layout for a client: :class:`ClusterKeys` for a ``redis.asyncio.cluster.RedisCluster``, else
    :class:`Keys`."""
    return ClusterKeys if isinstance(redis, RedisCluster) else Keys


__all__ = ["PREFIX", "Keys", "ClusterKeys", "BUCKET_TAGS", "keys_for"]
