"""What a security test of the web companion found (issue 37), each kind held by a test against a real Redis and
real sockets: numbers read strictly, names shown as written, the board cache bounded and out of the game store,
idle and half-sent connections closed, per-address and global caps, ``/healthz`` cheap and rate-limited, caching
headers that leave no board in a shared cache, ``X-Forwarded-For`` believed only from trusted proxies, no
``Server`` banner, no link token in the log."""

from __future__ import annotations

import asyncio
import html
import json
import logging
import random
import time

from bot import i18n
from bot.core.session import Person
from bot.games.hongkong import HONGKONG
from bot.storage.settings import SettingsStore
from bot.storage.weblinks import WebLinks
from aiohttp.test_utils import TestClient, TestServer

from bot.web.app import HEALTH_EVERY, WEB, Web, make_app, serve
from bot.web.boards import Boards, draw
from bot.web.limits import Networks, RateLimiter, StreamCounter
from bot.web.sockets import Gate

from tests.conftest import Clock
from tests.storage.contents import contents
from tests.web.conftest import ANN, BEN, CH, link_of, start_game
from tests.web.test_browser import free_port
from tests.web.test_pages import read_event

#: What a request may carry where a number belongs, none of them one: superscripts and other scripts' digits
#: (``str.isdigit`` says yes, ``int`` says no), signs, spaces, underscores, exponents, huge.
NOT_NUMBERS = ["²", "¹2", "٣", "１", "߁", "-1", "+1", " 1", "1 ", "1_0", "1e3", "0x1", "abc", "9" * 40, "1.0"]


async def raw_get(client, path: str, *headers: str, read: int = 4096) -> tuple[str, str]:
    """GET ``path`` with ``headers`` written as raw UTF-8 (as a hand-made client would, not as aiohttp's client
    encodes them); the answer's head and the first bytes of its body, as text."""
    reader, writer = await asyncio.open_connection(client.host, client.port)
    lines = [f"GET {path} HTTP/1.1", "Host: x", *headers, "", ""]
    writer.write("\r\n".join(lines).encode())
    await writer.drain()
    answer = b""
    while b"\r\n\r\n" not in answer or len(answer.partition(b"\r\n\r\n")[2]) < 40:
        chunk = await asyncio.wait_for(reader.read(read), 10)
        if not chunk:
            break
        answer += chunk
    writer.close()
    head, _sep, body = answer.decode(errors="replace").partition("\r\n\r\n")
    return head, body


async def test_every_number_a_request_carries_is_read_strictly(layer, redis, web_client):
    """``?ply=``, ``?page=``, ``Last-Event-ID``, ``?since=`` and a board's ply: never a 500, always what a wrong
    number means there (a clear 400 page, the first page, the state now, 404)."""
    record, _game = await start_game(layer)
    await layer.play(HONGKONG, CH, ANN.id, "Q@B2 S@B3")
    token = await link_of(redis, record, mode="public")
    server = await WebLinks(redis).server_link(record.guild_id, "en")
    html = await (await web_client.get(f"/g/{token}")).text()
    board = html.split('id="board" src="')[1].split('"')[0]
    for bad in NOT_NUMBERS:
        page = await web_client.get(f"/g/{token}", params={"ply": bad})
        assert page.status == 400 and "choose a number from 0" in await page.text(), bad
        for path in ("/leaderboard/hongkong", f"/s/{server}"):
            listed = await web_client.get(path, params={"page": bad})
            assert listed.status == 200, (path, bad)
        stream = await web_client.get(f"/g/{token}/events", params={"since": bad})
        assert stream.status == 200, bad
        assert (await read_event(stream))["id"] == "3"  # unreadable: the state now
        stream.close()
        head, first = await raw_get(web_client, f"/g/{token}/events", f"Last-Event-ID: {bad.strip()}")
        assert head.startswith("HTTP/1.1 200") and "id: 3" in first, (bad, head)
        forged = board.replace("/1-", f"/{bad}-")
        assert (await web_client.get(forged)).status == 404, bad
    stream = await web_client.get(f"/g/{token}/events", params={"since": " 3"})
    assert (await read_event(stream))["id"] == "3"
    stream.close()
    assert (await web_client.get(f"/g/{token}", params={"ply": "1"})).status == 200


async def test_names_are_shown_as_written_escaped_for_html_not_markdown(layer, redis, web_client):
    """A player named ```Plain``` playing "Plain": the page says "`Plain` 0 – Plain 0", never "Plain 0 – Plain 0"
    (markdown marks stripped from an unescaped name); and a name of markdown and markup shows as typed, as text."""
    code, plain_name = Person(11, "`Plain`"), Person(12, "Plain")
    record = await layer.challenge(
        HONGKONG, guild_id=9, channel_id=CH, challenger=code, opponent=plain_name, options={"first": "me"}
    )
    record, _game = await layer.accept(CH, record.id, plain_name)
    await layer.play(HONGKONG, CH, code.id, "Q@B2 S@B3")
    await layer.resign(HONGKONG, CH, plain_name.id)
    token = await link_of(redis, record)
    text = html.unescape(await (await web_client.get(f"/g/{token}")).text())
    assert "Buildings: `Plain` 2 – Plain 0" in text and "`Plain` takes the lead, 2–0" in text
    assert "Plain resigned: `Plain` wins." in text
    assert "`Plain` vs Plain" in text and "Plain vs Plain" not in text

    odd = Person(13, r"**b**\_x_ @everyone <i>")
    record = await layer.challenge(HONGKONG, guild_id=9, channel_id=CH + 1, challenger=odd, opponent=BEN, options={})
    record, _game = await layer.accept(CH + 1, record.id, BEN)
    token = await link_of(redis, record)
    raw = await (await web_client.get(f"/g/{token}")).text()
    assert "<i>" not in raw and "&lt;i&gt;" in raw  # escaped for HTML
    assert r"Buildings: **b**\_x_ @everyone <i> 0 – Ben 0" in html.unescape(raw)  # not for markdown


async def test_page_traffic_cannot_grow_the_game_store(layer, redis, web_client):
    """Every board of a finished game asked in every language, twice: the store is byte for byte as it was (the
    images are kept in the web process's memory); a board is served in the game's language only (one image a
    ply, not seven), the others are 404."""
    record, game = await start_game(layer)
    rng = random.Random(3)
    while not game.is_over:
        game = (await layer.play(HONGKONG, CH, record.player(game.to_move).id, rng.choice(game.legal_moves()))).game
    token = await link_of(redis, record, language="de")
    before, memory = await contents(redis), (await redis.info("memory"))["used_memory"]
    html = await (await web_client.get(f"/g/{token}")).text()
    sources = [part.split('"')[0] for part in html.split('data-src="')[1:]]
    assert len(sources) == len(game.moves) + 1 and all("/b/de/" in src for src in sources)
    statuses: dict[str, set[int]] = {}
    for _round in range(2):
        for language in i18n.languages():
            for src in sources:
                answer = await web_client.get(src.replace("/b/de/", f"/b/{language}/"))
                statuses.setdefault(language, set()).add(answer.status)
    assert statuses.pop("de") == {200} and set(map(frozenset, statuses.values())) == {frozenset({404})}
    assert await contents(redis) == before
    assert (await redis.info("memory"))["used_memory"] - memory < 200_000  # (no key grew: the pages' own reads)
    boards = web_client.app[WEB].boards
    assert len(boards) == len(sources) and boards.size <= boards.limit


async def test_the_board_cache_is_bounded_in_bytes_and_age(layer):
    """The cache keeps at most its byte limit (the least recently used go first) and draws a board again once it
    is older than its age."""
    record, game = await start_game(layer)
    for move in ("Q@B2 S@B3", "S@D4", "S@A1"):
        game = (await layer.play(HONGKONG, CH, record.player(game.to_move).id, move)).game
    record = (await layer.store.get(CH)).record
    clock = Clock(0.0)
    first = draw(HONGKONG, record, 0, "en")
    boards = Boards(limit=len(first) * 5 // 2, age=60, clock=clock)
    pngs = [await boards.png(f"{record.id}:en:{ply}", HONGKONG, record, ply, "en") for ply in range(4)]
    assert boards.size <= boards.limit and len(boards) == 2  # two fit: the two most recent
    assert boards.cached(f"{record.id}:en:0") is None and boards.cached(f"{record.id}:en:3") == pngs[3]
    clock.advance(61)
    assert boards.cached(f"{record.id}:en:3") is None and len(boards) == 1
    await boards.png(f"{record.id}:en:1", HONGKONG, record, 1, "en")  # a new board sweeps the stale ones
    assert len(boards) == 1 and boards.size == len(pngs[1])


async def test_no_shared_cache_keeps_a_page_or_a_board(layer, redis, web_client):
    """Every answer says how it may be cached: pages, the live stream and errors by nobody (``private,
    no-store``); a board by the reader's browser only (``private``: a CDN would keep it a year after a revoke,
    ``web:off``, a takeback or ``/privacy forget``); the versioned script and style by anyone. Where the language
    comes from ``Accept-Language``, ``Vary`` says so."""
    record, _game = await start_game(layer)
    await layer.play(HONGKONG, CH, ANN.id, "Q@B2 S@B3")
    token = await link_of(redis, record, mode="public")
    server = await WebLinks(redis).server_link(record.guild_id, "en")
    page = await web_client.get(f"/g/{token}")
    html_text = await page.text()
    board = html_text.split('id="board" src="')[1].split('"')[0]
    script = html_text.split('<script src="')[1].split('"')[0]
    pages = [f"/g/{token}", f"/g/{token}?ply=0", f"/g/{token}?ply=99", f"/g/{token}/live", f"/s/{server}"]
    pages += ["/leaderboard/hongkong", "/g/AAAAAAAAAAAAAAAAAAAAAA", "/nothing", "/healthz"]
    for path in pages:
        answer = await web_client.get(path)
        assert answer.headers["Cache-Control"] == "private, no-store", path
    stream = await web_client.get(f"/g/{token}/events")
    assert stream.headers["Cache-Control"] == "private, no-store"
    stream.close()
    image = await web_client.get(board)
    assert image.status == 200 and image.headers["Cache-Control"].startswith("private,")
    assert "public" not in image.headers["Cache-Control"]
    static = await web_client.get(script)
    assert static.status == 200 and static.headers["Cache-Control"] == "public, max-age=31536000, immutable"
    for path, language, words in (
        ("/nothing", "de", "Hier ist nichts"),
        ("/leaderboard/hongkong", "fr", "classement global"),
    ):
        answer = await web_client.get(path, headers={"Accept-Language": language})
        assert answer.headers["Vary"] == "Accept-Language" and words in await answer.text(), path
    assert "Vary" not in page.headers  # (a game's page is in its server's language, whoever reads it)
    await SettingsStore(redis).revoke_web_links(record.guild_id)
    gone = await web_client.get(board)
    assert gone.status == 404 and gone.headers["Cache-Control"] == "private, no-store"


async def test_healthz_is_rate_limited_and_pings_redis_once_a_second_at_most(layer, redis):
    """A flood of ``/healthz`` from one client: 429 past its rate like any page; and however many checks arrive
    (at once or one after another), Redis is asked at most once per :data:`bot.web.app.HEALTH_EVERY` seconds."""
    state = Web(redis, "http://localhost", limiter=RateLimiter(capacity=30, rate=0.01))
    client = TestClient(TestServer(make_app(state)))
    await client.start_server()
    try:
        await redis.config_resetstat()
        started = time.monotonic()
        together = await asyncio.gather(*(client.get("/healthz") for _ in range(20)))
        one_by_one = [await client.get("/healthz") for _ in range(20)]
        took = time.monotonic() - started
        statuses = [answer.status for answer in together + one_by_one]
        assert statuses.count(200) == 30 and statuses.count(429) == 10 and statuses[:20] == [200] * 20
        pings = int((await redis.info("commandstats")).get("cmdstat_ping", {}).get("calls", 0))
        assert 1 <= pings <= 1 + int(took / HEALTH_EVERY), (pings, took)
    finally:
        await client.close()


async def served(state: Web, **options) -> tuple[object, int]:
    """``state`` served on a free local port as ``python -m bot.web`` serves it (:func:`bot.web.app.serve`)."""
    port = free_port()
    return await serve(state, port, "127.0.0.1", **options), port


async def closed_within(reader: asyncio.StreamReader, seconds: float) -> bytes:
    """What the server sent before closing the connection (fails if it is still open after ``seconds``)."""
    data = b""
    async with asyncio.timeout(seconds):
        while chunk := await reader.read(4096):
            data += chunk
    return data


async def test_idle_and_half_sent_connections_are_closed(layer, redis):
    """A connection that sends nothing, one that trickles a request's headers a byte at a time, and one idle after
    its answer: each closed ``idle`` seconds on (aiohttp alone keeps them an hour)."""
    state = Web(redis, "http://localhost")
    runner, port = await served(state, idle=0.5)
    try:
        silent = await asyncio.open_connection("127.0.0.1", port)
        trickle = await asyncio.open_connection("127.0.0.1", port)
        kept = await asyncio.open_connection("127.0.0.1", port)
        kept[1].write(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        started = time.monotonic()

        async def dribble() -> None:
            for byte in b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 200:
                if trickle[1].is_closing():
                    return
                trickle[1].write(bytes([byte]))
                await asyncio.sleep(0.05)

        dribbling = asyncio.create_task(dribble())  # (all of it would take 12 s)
        assert await closed_within(trickle[0], 15) == b""
        assert time.monotonic() - started < 10 and not dribbling.done()  # closed while it was still sending
        assert await closed_within(silent[0], 15) == b""
        answered = await closed_within(kept[0], 15)
        assert answered.startswith(b"HTTP/1.1 200") and b"ok" in answered
        dribbling.cancel()
        for _reader, writer in (silent, trickle, kept):
            writer.close()
    finally:
        await runner.cleanup()


async def test_connections_are_capped_per_address_and_in_all(layer, redis):
    """Past its addresses' cap a connection is answered 429 before it is read; past the process's, 503; a closed
    one frees its place; a trusted proxy's address is capped only by the total. No answer names the software."""
    state = Web(redis, "http://localhost")
    gate = Gate(per_address=3, total=5, exempt=lambda address: address == "127.0.0.9")
    runner, port = await served(state, gate=gate)
    opened = []

    async def connect(source: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        pair = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
        opened.append(pair)
        return pair

    async def answer(pair) -> bytes:
        pair[1].write(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        return await asyncio.wait_for(pair[0].read(4096), 10)

    try:
        first = [await connect("127.0.0.1") for _ in range(3)]
        over = await connect("127.0.0.1")
        refused = await closed_within(over[0], 10)
        assert refused.startswith(b"HTTP/1.1 429") and b"Server: hongbot\r\n" in refused
        assert b"Too many connections from your address" in refused
        assert (await answer(first[0])).startswith(b"HTTP/1.1 200")
        proxy = [await connect("127.0.0.9") for _ in range(2)]  # exempt from the 3, not from the 5
        assert (await answer(proxy[1])).startswith(b"HTTP/1.1 200")
        full = await connect("127.0.0.2")
        assert (await closed_within(full[0], 10)).startswith(b"HTTP/1.1 503")
        first[2][1].close()
        for _ in range(100):
            if gate.open < 5:
                break
            await asyncio.sleep(0.05)
        again = await connect("127.0.0.2")
        served_again = await answer(again)
        assert served_again.startswith(b"HTTP/1.1 200") and b"Server: hongbot\r\n" in served_again
        assert b"aiohttp" not in served_again and b"Python" not in served_again
    finally:
        for _reader, writer in opened:
            writer.close()
        await runner.cleanup()


async def test_the_server_header_names_no_software(layer, redis, web_client):
    """Pages, 404s, 429s and the 400 aiohttp gives a request it can't parse: ``Server: hongbot``."""
    record, _game = await start_game(layer)
    token = await link_of(redis, record)
    for path in (f"/g/{token}", "/nothing", "/healthz"):
        assert (await web_client.get(path)).headers["Server"] == "hongbot", path
    state = Web(redis, "http://localhost")
    runner, port = await served(state)
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET /g/\xff\xfe HTTP/1.1\r\nHost: x\r\nBroken header\r\n\r\n")
        garbled = await closed_within(reader, 10)
        writer.close()
    finally:
        await runner.cleanup()
    assert (
        garbled.startswith((b"HTTP/1.0 400", b"HTTP/1.1 400"))
        and b"Server: hongbot\r\n" in garbled
        and b"aiohttp" not in garbled
    )


async def test_live_streams_are_capped_in_all(layer, redis):
    """Past the process's cap on live streams (whoever opens them) a stream is answered 503; the pages go on."""
    record, _game = await start_game(layer)
    token = await link_of(redis, record)
    state = Web(
        redis, "http://localhost", limiter=RateLimiter(capacity=1000, rate=1000), streams=StreamCounter(total=3)
    )
    client = TestClient(TestServer(make_app(state)))
    await client.start_server()
    try:
        streams = [await client.get(f"/g/{token}/events") for _ in range(3)]
        assert [s.status for s in streams] == [200] * 3
        refused = await client.get(f"/g/{token}/events")
        assert refused.status == 503 and "try again in a moment" in await refused.text()
        assert (await client.get(f"/g/{token}")).status == 200
        for stream in streams:
            stream.close()
    finally:
        await client.close()


async def test_page_traffic_takes_at_most_its_share_of_the_redis_pool(layer, redis, redis_server):
    """A crowd opening pages and live streams at once (here 150, many games) reads the store through
    ``reads`` turns: the pool opens no more connections than those and the live feed's, every request is served,
    and the pool always has room for the live pages' own refreshes."""
    import redis.asyncio as aioredis

    tokens = []
    for n in range(5):
        record, _game = await start_game(layer, channel=CH + 10 + n)
        tokens.append(await link_of(redis, record))
    pool = aioredis.BlockingConnectionPool(
        connection_class=redis.connection_pool.connection_class,
        max_connections=20,
        timeout=5,
        client_name="t37-pages",
        **{k: v for k, v in redis.connection_pool.connection_kwargs.items() if k != "client_name"},
    )
    pages_redis = aioredis.Redis(connection_pool=pool)
    state = Web(pages_redis, "http://localhost", limiter=RateLimiter(capacity=10_000, rate=1000), reads=3)
    state.streams = StreamCounter(limit=1000)
    client = TestClient(TestServer(make_app(state)))
    await client.start_server()
    try:
        paths = [f"/g/{tokens[n % 5]}" + ("/events" if n % 3 == 0 else "") for n in range(150)]
        answers = await asyncio.gather(*(client.get(path) for path in paths))
        assert [a.status for a in answers] == [200] * 150
        names = [line for line in (await redis.client_list()) if line.get("name") == "t37-pages"]
        assert len(names) <= 3 + 2, len(names)  # the reads' turns, the feed's subscription (and one spare)
        assert await asyncio.wait_for(pages_redis.ping(), 2)
        for answer in answers:
            answer.close()
    finally:
        await client.close()
        await pages_redis.aclose()


async def test_x_forwarded_for_is_believed_only_from_trusted_proxies(layer, redis):
    """With ``web_proxies = 1`` and the port reachable directly, a client writing a new ``X-Forwarded-For`` each
    time is still limited by its own address; the same requests from a trusted proxy are counted by the address
    the proxy saw; a chain of two is believed only when the nearer proxy's entry is trusted too."""
    record, _game = await start_game(layer)
    token = await link_of(redis, record)

    async def statuses(trusted: Networks, proxies: int, forwarded: list[str]) -> list[int]:
        state = Web(redis, "http://localhost", limiter=RateLimiter(3, 0.01), proxies=proxies, trusted_proxies=trusted)
        client = TestClient(TestServer(make_app(state)))
        await client.start_server()
        try:
            return [(await client.get(f"/g/{token}", headers={"X-Forwarded-For": value})).status for value in forwarded]
        finally:
            await client.close()

    rotating = [f"198.51.100.{n}" for n in range(6)]
    assert await statuses(Networks(["192.0.2.0/24"]), 1, rotating) == [200, 200, 200, 429, 429, 429]  # direct
    assert await statuses(Networks(["127.0.0.1"]), 1, rotating) == [200] * 6  # from the proxy: 6 clients
    chain = [f"198.51.100.{n}, 203.0.113.5" for n in range(6)]  # the nearer proxy's entry: not trusted
    assert await statuses(Networks(["127.0.0.1"]), 2, chain) == [200, 200, 200, 429, 429, 429]
    assert await statuses(Networks(["127.0.0.1", "203.0.113.5"]), 2, chain) == [200] * 6


async def test_no_log_line_holds_a_link_token(layer, redis, web_client, caplog):
    """A page that fails (a damaged game: 500 and a traceback), a request line aiohttp can't parse with the token
    in it, and a store that doesn't answer: the log says which page (``/g/…``), never its token."""
    record, _game = await start_game(layer)
    token = await link_of(redis, record)
    raw = await layer.store.raw(CH)
    doc = json.loads(raw["doc"])
    doc["state"]["moves"] = ["Z@Z9"]  # (reads as a record; its moves don't replay)
    await redis.hset(layer.store.keys.game(CH), "doc", json.dumps(doc))
    with caplog.at_level(logging.INFO):
        assert (await web_client.get(f"/g/{token}/live")).status == 500
        head, _body = await raw_get(web_client, f"/g/{token}\x01?ply=\u0663")
        assert " 400 " in head
        state = Web(redis, "http://localhost", reads=1)
        state.read_wait = 0.2
        client = TestClient(TestServer(make_app(state)))
        await client.start_server()
        try:
            async with state.reading():  # (every turn taken: the page waits, then 503)
                assert (await client.get(f"/s/{token}")).status == 503
        finally:
            await client.close()
    logged = caplog.text
    assert "the web page /g/…/live failed" in logged and "IllegalMove" in logged  # the traceback is there
    assert "the web page /s/…: the store did not answer" in logged and "refused with 400" in logged
    assert token not in logged
