"""Web links: the unguessable tokens of the web companion's pages (:mod:`bot.web`), never a game id.

A link's token is an HMAC-SHA-256 of what it opens — a game (``game:<server>:<game id>:<epoch>``) or a server's
page (``server:<server>:<epoch>``) — with a secret of 32 random bytes kept in Redis (:data:`Keys.WEB_SECRET`,
created once by the first bot process that needs it, from :mod:`secrets`), cut to 128 bits and written in base64url
(22 characters). Nobody without the secret can make or guess one; a game id (about 40 bits, shown to players) is
never the secret part.

The bot writes, beside each token it hands out, what the token opens (:meth:`Keys.web_link`: server, channel, game
id, the server's language then; a server's page also the server's name, which the page is titled with): the web process only reads it (:meth:`WebLinks.resolve`), and checks the token
again against the server's *current* epoch (:attr:`bot.storage.settings.GuildSettings.web_epoch`) and setting
(``/settings web``). Bumping the epoch (:meth:`bot.storage.settings.SettingsStore.revoke_web_links`) revokes every
link of the server at once, without finding or deleting them: each old token stops matching. The entries hold no
person (ids of a server, a channel and a game, a language code, a server's name); they are kept as long as the games
they open.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass

from .decoding import RedisClient, decoded, decoded_hash
from .keys import Keys
from .settings import GuildSettings, SettingsStore
from .store import guarded, writing

#: A token's shape: 128 bits in base64url, unpadded.
TOKEN = re.compile(r"[A-Za-z0-9_-]{22}")
#: Bytes of the HMAC kept (128 bits).
TOKEN_BYTES = 16


@dataclass(frozen=True)
class Link:
    """What a valid token opens: a game (``game_id`` set) or a server's page (``game_id`` ""), the server's
    settings now, the language of its pages (the server's ``/settings language``, else its language in Discord
    when the link was made), and — a server's page — the server's name as Discord showed it then ("" unknown)."""

    guild_id: int
    channel_id: int
    game_id: str
    language: str
    settings: GuildSettings
    name: str = ""


def make_token(secret: bytes, subject: str) -> str:
    """The token of ``subject`` (``"game:<server>:<game id>:<epoch>"`` or ``"server:<server>:<epoch>"``):
    HMAC-SHA-256 with ``secret``, its first :data:`TOKEN_BYTES` in unpadded base64url (22 characters)."""
    mac = hmac.new(secret, subject.encode(), hashlib.sha256).digest()[:TOKEN_BYTES]
    return base64.urlsafe_b64encode(mac).rstrip(b"=").decode()


def game_subject(guild_id: int, game_id: str, epoch: int) -> str:
    """What a game's token is made of (:func:`make_token`)."""
    return f"game:{guild_id}:{game_id}:{epoch}"


def server_subject(guild_id: int, epoch: int) -> str:
    """What a server page's token is made of (:func:`make_token`)."""
    return f"server:{guild_id}:{epoch}"


class WebLinks:
    """Make (the bot) and resolve (the web process) web links on the Redis ``redis``.

    The secret is read once per process (it never changes once made); the link entries this process wrote are
    remembered (at most :data:`REMEMBERED`), so a game's board posts write its entry once per channel it is played
    in (a game moved into its thread, or out of it, points its link at the new channel with its next board).
    """

    #: How many written link entries a process remembers.
    REMEMBERED = 10_000

    def __init__(self, redis: RedisClient) -> None:
        self.redis = redis
        self.settings = SettingsStore(redis)
        self._secret: bytes | None = None
        self._written: dict[str, None] = {}

    async def secret(self, *, create: bool = False) -> bytes | None:
        """The links' secret; with ``create`` (the bot), made once if there is none yet (``SET NX``: the first
        process to ask makes it, every other reads that one). None when there is none and ``create`` is False (the
        web process: then no link resolves)."""
        if self._secret is not None:
            return self._secret
        found = decoded(await self.redis.get(Keys.WEB_SECRET))
        if found is None and create:
            writing()
            await guarded(self.redis, None, ("SET", Keys.WEB_SECRET, secrets.token_hex(32), "NX"))
            found = decoded(await self.redis.get(Keys.WEB_SECRET))
        if found is None:
            return None
        self._secret = bytes.fromhex(found)
        return self._secret

    async def _entry(self, token: str, fields: dict[str, str | int]) -> None:
        # (a game that moved to a thread, or back, is written again; a server's page whose server was renamed too)
        written = f"{token}:{fields['channel']}:{fields.get('name', '')}"
        if written in self._written:
            return
        writing()
        await guarded(self.redis, None, ("HSET", Keys.web_link(token), *[x for kv in fields.items() for x in kv]))
        self._written[written] = None
        if len(self._written) > self.REMEMBERED:
            del self._written[next(iter(self._written))]

    async def game_link(
        self, guild_id: int, channel_id: int, game_id: str, language: str, settings: GuildSettings | None = None
    ) -> str | None:
        """The token of a game's page, its entry written (once), or None when the server's ``/settings web`` is
        off. ``settings``: the server's, if already read (else one read)."""
        settings = settings or await self.settings.get(guild_id)
        if settings.web == "off":
            return None
        secret = await self.secret(create=True)
        assert secret is not None
        token = make_token(secret, game_subject(guild_id, game_id, settings.web_epoch))
        await self._entry(token, {"guild": guild_id, "channel": channel_id, "game": game_id, "lang": language})
        return token

    async def server_link(
        self, guild_id: int, language: str, settings: GuildSettings | None = None, name: str = ""
    ) -> str | None:
        """The token of a server's page (its leaderboard and live games, titled with its ``name``), or None unless
        ``/settings web`` is ``public``."""
        settings = settings or await self.settings.get(guild_id)
        if settings.web != "public":
            return None
        secret = await self.secret(create=True)
        assert secret is not None
        token = make_token(secret, server_subject(guild_id, settings.web_epoch))
        fields: dict[str, str | int] = {"guild": guild_id, "channel": 0, "game": "", "lang": language}
        if name:  # (unknown: the name written before stays)
            fields["name"] = name
        await self._entry(token, fields)
        return token

    async def resolve(self, token: str) -> Link | None:
        """What ``token`` opens, or None — a malformed or unknown token, a server whose ``/settings web`` is off (or
        not ``public``, for a server's page), or a link revoked (made under an older epoch). Reads only: the entry,
        the settings, the secret (once per process)."""
        if not TOKEN.fullmatch(token):
            return None
        entry = decoded_hash(await self.redis.hgetall(Keys.web_link(token)))
        try:
            guild_id, channel_id, game_id = int(entry["guild"]), int(entry["channel"]), entry["game"]
        except (KeyError, ValueError):
            return None
        settings = await self.settings.get(guild_id)
        if settings.web == "off" or (not game_id and settings.web != "public"):
            return None
        secret = await self.secret()
        if secret is None:
            return None
        subject = (
            game_subject(guild_id, game_id, settings.web_epoch)
            if game_id
            else server_subject(guild_id, settings.web_epoch)
        )
        if not hmac.compare_digest(make_token(secret, subject), token):
            return None
        return Link(guild_id, channel_id, game_id, entry.get("lang", "en"), settings, entry.get("name", ""))


__all__ = ["Link", "WebLinks", "TOKEN", "make_token", "game_subject", "server_subject"]
