"""The web companion's listening socket: what a connection may cost before any page sees it.

aiohttp alone keeps an idle or half-sent connection about an hour (its keep-alive default, 3,630 s) and takes as
many as the operating system lets it. Here:

- a connection must have sent a whole request within :data:`IDLE` seconds of opening, or of the previous answer
  (aiohttp's keep-alive timer, which a trickle of bytes doesn't restart), else it is closed: idle and half-sent
  connections cost a socket for seconds, not an hour;
- one client address holds at most :data:`PER_ADDRESS` connections at once (the one more is answered 429 and
  closed before it is read), except the reverse proxies the operator trusts (``web_trusted_proxies``, when
  ``web_proxies`` is set: every client behind them shares their address);
- the process holds at most :data:`CONNECTIONS` at once, and never more than its open-file limit leaves room for
  (the one more is answered 503 and closed);
- no answer names the server's software (``Server: Python/3.11 aiohttp/…``): every one says ``Server: hongbot``,
  also the 400 aiohttp itself gives a request it can't parse.

Beyond these a reverse proxy that buffers requests (README) is what stands between the pages and the open internet.
"""

from __future__ import annotations

import asyncio
import resource
from typing import Any, Callable

from aiohttp import web
from aiohttp.web_protocol import RequestHandler

from .limits import client_key

#: Seconds a connection may stay open without a whole request: from its opening or from the end of its last answer.
IDLE = 10.0
#: Connections one client address may hold open at once in one web process (a browser opens about 6, and each
#: live page one more: :data:`bot.web.limits.STREAMS` at most).
PER_ADDRESS = 64
#: Connections a web process holds open at once, at most.
CONNECTIONS = 10_000
#: File descriptors kept free of connections under the process's open-file limit (Redis, logs, the renderer).
SPARE_FILES = 64
#: What every answer says in its ``Server`` header.
SERVER = "hongbot"


def files_limit() -> int:
    """The process's open-file limit, raised to its hard limit first (a connection is a file descriptor)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
        except (ValueError, OSError):
            pass
    return soft if soft != resource.RLIM_INFINITY else CONNECTIONS + SPARE_FILES


class Gate:
    """The connections open now, per client address (:func:`bot.web.limits.client_key`) and in all.

    Args:
        per_address: at most this many from one address (:data:`PER_ADDRESS`).
        total: at most this many in all (:data:`CONNECTIONS`; lowered to the open-file limit less
            :data:`SPARE_FILES`).
        exempt: addresses not counted per address (the trusted proxies; they count in the total).
    """

    def __init__(
        self,
        per_address: int = PER_ADDRESS,
        total: int = CONNECTIONS,
        exempt: Callable[[str], bool] = lambda address: False,
    ) -> None:
        self.per_address = per_address
        self.total = max(1, min(total, files_limit() - SPARE_FILES))
        self.exempt = exempt
        self.open = 0
        self._by_address: dict[str, int] = {}

    def enter(self, address: str) -> int:
        """Count one more connection from ``address`` (the peer's IP address): 0 if it may stay, else the status
        it is refused with (429: its address holds :attr:`per_address`; 503: the process holds :attr:`total`)."""
        if self.open >= self.total:
            return 503
        client = client_key(address)
        if not self.exempt(address) and self._by_address.get(client, 0) >= self.per_address:
            return 429
        self.open += 1
        self._by_address[client] = self._by_address.get(client, 0) + 1
        return 0

    def leave(self, address: str) -> None:
        """A connection counted by :meth:`enter` closed."""
        client = client_key(address)
        self.open -= 1
        left = self._by_address.get(client, 0) - 1
        if left > 0:
            self._by_address[client] = left
        else:
            self._by_address.pop(client, None)

    def count(self, address: str) -> int:
        """The connections ``address``'s client holds now."""
        return self._by_address.get(client_key(address), 0)


def refusal(status: int) -> bytes:
    """The whole answer a refused connection gets before it is closed (nothing of it was read)."""
    line, text = {
        429: ("429 Too Many Requests", "Too many connections from your address: close some and try again.\n"),
        503: ("503 Service Unavailable", "Too many connections: try again in a moment.\n"),
    }[status]
    body = text.encode()
    return (
        f"HTTP/1.1 {line}\r\nServer: {SERVER}\r\nContent-Type: text/plain; charset=utf-8\r\n"
        f"Content-Length: {len(body)}\r\nRetry-After: 5\r\nCache-Control: private, no-store\r\n"
        "Connection: close\r\n\r\n"
    ).encode() + body


class Handler(RequestHandler):
    """aiohttp's connection handler, counted by a :class:`Gate` (refused at once past its caps) and answering
    its own errors (a request it can't parse) with ``Server:`` :data:`SERVER`."""

    def __init__(self, manager: Any, *, gate: Gate, **options: Any) -> None:
        super().__init__(manager, **options)
        self.gate = gate
        self.address: str | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        peer = transport.get_extra_info("peername")
        address = str(peer[0]) if isinstance(peer, (tuple, list)) and peer else "?"
        refused = self.gate.enter(address)
        if refused:
            writer: Any = transport
            writer.write(refusal(refused))
            transport.close()
            return
        self.address = address
        super().connection_made(transport)

    def connection_lost(self, exc: BaseException | None) -> None:
        if self.address is None:  # refused: never counted, never handled
            return
        self.gate.leave(self.address)
        self.address = None
        super().connection_lost(exc)

    def handle_error(
        self, request: Any, status: int = 500, exc: BaseException | None = None, message: str | None = None
    ):
        response = super().handle_error(request, status, exc, message)
        response.headers["Server"] = SERVER
        return response


class GatedSite(web.BaseSite):
    """A TCP site whose connections are :class:`Handler`\\ s of ``gate``, idle ones closed after ``idle`` s."""

    def __init__(self, runner: web.BaseRunner, host: str | None, port: int, gate: Gate, idle: float = IDLE) -> None:
        super().__init__(runner)
        self.host, self.port, self.gate, self.idle = host, port, gate, idle

    @property
    def name(self) -> str:
        return f"http://{self.host or '0.0.0.0'}:{self.port}"

    async def start(self) -> None:
        await super().start()
        loop = asyncio.get_running_loop()
        server = self._runner.server
        assert server is not None

        def connection() -> Handler:
            return Handler(server, loop=loop, gate=self.gate, keepalive_timeout=self.idle, access_log=None)

        self._server = await loop.create_server(connection, self.host, self.port, backlog=1024)


async def server_header(_request: web.Request, response: web.StreamResponse) -> None:
    """An ``on_response_prepare`` signal: ``Server:`` :data:`SERVER` on the pages' answers."""
    response.headers["Server"] = SERVER


__all__ = ["Gate", "GatedSite", "Handler", "IDLE", "PER_ADDRESS", "CONNECTIONS", "SERVER", "server_header"]
