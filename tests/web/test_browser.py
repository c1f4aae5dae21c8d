"""The web companion in a real browser: the emulator, the bot and ``python -m bot.web`` (a process of its own) on one
Redis; a game started in Discord, its **Watch live** URL read from the posted board, opened in headless Chromium
(Debian's ``chromium`` + ``chromium-driver``, driven by Selenium); each move played through the emulator must
appear within 2 s (the move list, ``data-version``, the board loaded); then the replay slider and a leaderboard.
Screenshots (a phone's screen) are saved under ``artifacts/web/``. Skipped, saying why, where there is no Chromium.
"""

from __future__ import annotations

import asyncio
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import aiohttp
import pytest

import engine.hongkong as hk
from bot.storage.settings import SettingsStore

from tests.bot.harness import place_options, resign, start_bot

pytestmark = pytest.mark.timeout(240)

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts" / "web"
CHROMIUM, DRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
#: A phone's screen (CSS pixels): what most people will watch on.
PHONE = (412, 915)
#: How soon a move must show on the page (seconds).
LIVE_WITHIN = 2.0


def browser(phone: tuple[int, int] | None = None):
    """A headless Chromium through Selenium, or skip saying why there is none. ``phone``: a touch screen of that
    many CSS pixels (Chromium's mobile emulation: touch events, a coarse pointer and no hover, as a phone's
    browser), else a desktop window of :data:`PHONE`'s size (resize it with ``set_window_size``)."""
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError as exc:
        pytest.skip(f"selenium is not installed ({exc})")
    if not (os.path.exists(CHROMIUM) and os.path.exists(DRIVER)):
        pytest.skip(f"no Chromium here ({CHROMIUM}, {DRIVER}): apt-get install chromium chromium-driver")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    profile = tempfile.mkdtemp(prefix="hongbot-chromium-")
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        f"--user-data-dir={profile}",
        f"--window-size={PHONE[0]},{PHONE[1]}",
    ):
        options.add_argument(flag)
    if phone is not None:
        metrics = {"width": phone[0], "height": phone[1], "pixelRatio": 2.0, "touch": True, "mobile": True}
        options.add_experimental_option("mobileEmulation", {"deviceMetrics": metrics})
    try:
        driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    except Exception as exc:  # the binaries exist but can't start here
        shutil.rmtree(profile, ignore_errors=True)
        pytest.skip(f"Chromium does not start here: {str(exc).splitlines()[0]}")
    driver.profile = profile
    return driver


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def redis_url(redis_server) -> str:
    return redis_server["url"] if "url" in redis_server else f"unix://{redis_server['unix_socket_path']}"


async def start_web(redis_server, port: int) -> subprocess.Popen:
    """``python -m bot.web`` on ``port``, over the test's Redis, with no Discord token in its environment."""
    env = {k: v for k, v in os.environ.items() if k != "DISCORD_TOKEN"}
    env.update(REDIS_URL=redis_url(redis_server), HONGBOT_PUBLIC_URL=f"http://127.0.0.1:{port}", HONGBOT_CONFIG="")
    env.update(HONGBOT_WEB_GLOBAL_LEADERBOARD="1")  # the operator serves the global leaderboards
    process = subprocess.Popen(
        [sys.executable, "-m", "bot.web", "--port", str(port), "--host", "127.0.0.1"], cwd=ROOT, env=env
    )
    async with aiohttp.ClientSession() as session:
        for _ in range(150):
            try:
                async with session.get(f"http://127.0.0.1:{port}/healthz") as answer:
                    if answer.status == 200:
                        return process
            except aiohttp.ClientError:
                pass
            await asyncio.sleep(0.1)
    process.kill()
    raise AssertionError("python -m bot.web did not start")


def page_state(driver) -> dict:
    """What the page shows now: its version, the moves listed, the board shown and whether it loaded."""
    return driver.execute_script(
        """
        const game = document.getElementById('game'), img = document.getElementById('board');
        return {version: Number(game.dataset.version), moves: document.querySelectorAll('#moves li').length - 1,
                text: document.getElementById('moves').innerText, finished: game.dataset.finished,
                src: img.getAttribute('src'), alt: img.alt, loaded: img.complete && img.naturalWidth > 0,
                last: (document.querySelector('#moves li:last-child') || {}).dataset.src,
                ply: Number(game.dataset.ply), slider: document.getElementById('slider').value,
                url: location.href};
        """
    )


async def wait_for(driver, check, within: float) -> tuple[dict, float]:
    """Poll the page until ``check(state)``; returns the state and the seconds it took (fails past ``within`` × 3)."""
    started = time.monotonic()
    while True:
        state = await asyncio.to_thread(page_state, driver)
        if check(state):
            return state, time.monotonic() - started
        if time.monotonic() - started > within * 3:
            raise AssertionError(f"the page did not show it in {within * 3:.0f} s: {state}")
        await asyncio.sleep(0.05)


async def shoot(driver, name: str) -> Path:
    path = ARTIFACTS / f"{name}.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    await asyncio.to_thread(driver.save_screenshot, str(path))
    return path


async def test_watch_a_game_live_then_replay_it_in_a_browser(emu, world, redis_server, redis):
    driver = await asyncio.to_thread(browser)
    port = free_port()
    web = await start_web(redis_server, port)
    bot = await start_bot(
        emu, redis_server, guild=world.guild, rng=random.Random(3), public_url=f"http://127.0.0.1:{port}"
    )
    try:
        await SettingsStore(redis).update(world.guild, web="link")
        it = await emu.slash(world.ann, world.channel, "hongkong challenge", opponent=world.ben)
        challenge = await it.wait_done()
        click = await emu.click(world.ben, challenge, challenge.button("Accept")["custom_id"])
        first_board = (await click.wait_followups(1))[0]
        url = first_board.button("Watch live")["url"]
        assert url.startswith(f"http://127.0.0.1:{port}/g/")
        await asyncio.to_thread(driver.get, url)
        state, _took = await wait_for(driver, lambda s: s["loaded"], 5)
        assert state["moves"] == 0 and state["version"] == 2
        await shoot(driver, "1-start")

        game, rng, users = hk.new_game(0), random.Random(7), [world.ann, world.ben]
        delays = []
        for _ in range(4):
            turn = rng.choice(game.legal_moves())
            it = await emu.slash(users[game.to_move], world.channel, "hongkong place", **place_options(turn))
            await it.wait_followups(1)
            game.play(turn)
            moves, before = len(game.moves), state["version"]
            state, took = await wait_for(
                driver,
                lambda s: s["moves"] == moves and s["version"] > before and s["loaded"] and s["src"] == s["last"],
                LIVE_WITHIN,
            )
            assert turn in state["text"]
            delays.append(took)
        print("seconds from the move's post to the page:", ", ".join(f"{d:.2f}" for d in delays))
        assert max(delays) <= LIVE_WITHIN
        await shoot(driver, "2-live")
        clock = await asyncio.to_thread(driver.execute_script, "return document.querySelector('.clock').innerText")
        assert clock.startswith("Time left: ") and "(→ " in clock  # the default 24 h timer, and when, locally
        await asyncio.to_thread(driver.execute_script, "document.getElementById('live').scrollIntoView()")
        await shoot(driver, "2-live-moves")

        await resign(emu, world.ben, world.channel)
        state, _took = await wait_for(driver, lambda s: s["finished"] == "true", LIVE_WITHIN)
        await shoot(driver, "3-finished")

        # the replay: the slider and the arrow keys, ?ply=N links, the neighbouring frames prefetched
        await asyncio.to_thread(driver.get, url)
        state, _took = await wait_for(driver, lambda s: s["loaded"], 5)
        assert state["slider"] == "4"
        from selenium.webdriver.common.by import By
        from selenium.webdriver.common.keys import Keys

        body = await asyncio.to_thread(driver.find_element, By.TAG_NAME, "body")
        await asyncio.to_thread(body.send_keys, Keys.ARROW_LEFT)
        await asyncio.to_thread(body.send_keys, Keys.ARROW_LEFT)
        state, _took = await wait_for(driver, lambda s: s["ply"] == 2 and s["loaded"], 2)
        assert state["url"].endswith("?ply=2") and state["slider"] == "2"
        await asyncio.to_thread(
            driver.execute_script,
            "const s = document.getElementById('slider'); s.value = 1; s.dispatchEvent(new Event('input'));",
        )
        state, _took = await wait_for(driver, lambda s: s["ply"] == 1 and s["loaded"], 2)
        assert state["url"].endswith("?ply=1")
        await shoot(driver, "4-replay")
        await asyncio.to_thread(driver.execute_script, "document.getElementById('replay').scrollIntoView()")
        await shoot(driver, "4-replay-controls")
        await asyncio.to_thread(driver.set_window_size, 1280, 900)
        await shoot(driver, "6-desktop")
        await asyncio.to_thread(driver.set_window_size, *PHONE)

        await asyncio.to_thread(driver.get, f"http://127.0.0.1:{port}/leaderboard/hongkong")
        text = await asyncio.to_thread(lambda: driver.find_element(By.TAG_NAME, "table").text)
        assert "ann" in text and "ben" in text
        await shoot(driver, "5-leaderboard")
        assert emu.errors == []
    finally:
        await asyncio.to_thread(driver.quit)
        shutil.rmtree(driver.profile, ignore_errors=True)
        await bot.stop()
        web.terminate()
        web.wait(10)


async def test_a_broken_stream_shows_reconnecting_then_live_again(layer, redis_server, redis):
    """The web process stopped under an open page: the badge turns to "Reconnecting…" (the page's words, from the
    catalogs) and back to "Live" once the process is up again and the stream flows."""
    from tests.web.conftest import link_of, start_game

    driver = await asyncio.to_thread(browser)
    port = free_port()
    web = await start_web(redis_server, port)
    try:
        record, _game = await start_game(layer)
        token = await link_of(redis, record)
        await asyncio.to_thread(driver.get, f"http://127.0.0.1:{port}/g/{token}")

        async def badge(text: str) -> str:
            started = time.monotonic()
            while True:
                shown = await asyncio.to_thread(
                    driver.execute_script, "return document.querySelector('#headline .live-badge').textContent"
                )
                if shown == text or time.monotonic() - started > 15:
                    return shown
                await asyncio.sleep(0.1)

        assert await badge("● Live") == "● Live"
        web.terminate()
        await asyncio.to_thread(web.wait, 10)
        assert await badge("● Reconnecting…") == "● Reconnecting…"
        await shoot(driver, "4-reconnecting")
        web = await start_web(redis_server, port)
        assert await badge("● Live") == "● Live"
    finally:
        web.kill()
        await asyncio.to_thread(driver.quit)
        shutil.rmtree(driver.profile, ignore_errors=True)


#: What a page looks like in the browser now: no sideways scrolling, the board's width, the keys hint shown or not,
#: the headline, the back button, the moves list and its current item, the favicon.
LOOK = """
const board = document.getElementById('board'), moves = document.getElementById('moves');
const hint = document.querySelector('.keys-hint'), back = document.getElementById('back');
const current = document.querySelector('#moves li.current'), caption = document.getElementById('caption');
const visible = (el) => { if (!el) return false; const r = el.getBoundingClientRect();
                          return r.width > 0 && r.top >= 0 && r.bottom <= innerHeight; };
const inBox = (el, box) => { if (!el || !box) return false; const r = el.getBoundingClientRect(),
                             b = box.getBoundingClientRect(); return r.top >= b.top - 1 && r.bottom <= b.bottom + 1; };
return {overflow: document.documentElement.scrollWidth - innerWidth,
        board: board ? board.getBoundingClientRect().width : null, loaded: board ? board.naturalWidth > 0 : null,
        hint: hint ? getComputedStyle(hint).display !== 'none' : null,
        headline: (document.getElementById('headline-status') || {}).textContent,
        back: back ? !back.hidden : null, ply: Number((document.getElementById('game') || {dataset: {}}).dataset.ply),
        status: current ? current.dataset.status : null, currentInBox: inBox(current, moves),
        captionVisible: visible(caption), last: moves ? moves.children.length - 1 : null,
        icon: (document.querySelector('link[rel=icon]') || {}).href, title: document.title,
        h1: (document.querySelector('h1') || {}).textContent,
        ratingsOnOneLine: [...document.querySelectorAll('.ratings td.rating')].every((td) => {
            const range = document.createRange(); range.selectNodeContents(td);
            const rects = [...range.getClientRects()].filter((r) => r.width > 0), first = rects[0];
            return rects.every((r) => r.top < first.bottom && r.bottom > first.top); }),  // (one line: all overlap)
        ratings: document.querySelectorAll('.ratings td.rating').length,
        group: (document.querySelector('.ratings tr.group') || {}).textContent || '',
        recent: document.querySelectorAll('.recent .games li').length};
"""


async def look(driver, url: str, name: str, width: int) -> dict:
    """Open ``url``, wait for its board (if any), save a screenshot ``pages/<name>-<width>.png``; what it shows."""
    await asyncio.to_thread(driver.get, url)
    started = time.monotonic()
    while True:
        seen = await asyncio.to_thread(driver.execute_script, LOOK)
        if seen["loaded"] is not False or time.monotonic() - started > 10:
            break
        await asyncio.sleep(0.1)
    await shoot(driver, f"pages/{name}-{width}")
    return seen


async def test_every_page_at_a_phones_and_a_desktops_width(redis_server, redis):
    """One design for every page, at 390 px (a phone: touch, no hover) and 1280 px: nothing scrolls sideways; the
    server's page is titled with its name, lists live and recent games and ratings that don't wrap (provisional ones
    under their own heading); the game page's board uses the room on a desktop, the newest move is in sight on a
    phone (under the board, and the move list scrolled to it), the arrow-keys hint shows only where there are keys,
    scrubbing back makes the headline say what the board says and offers "Back to live". Screenshots:
    artifacts/web/pages/."""
    from tests.web import scenes

    scene = await scenes.seed(redis)
    port = free_port()
    web = await start_web(redis_server, port)
    phone = await asyncio.to_thread(browser, (390, 844))
    desktop = await asyncio.to_thread(browser)
    base = f"http://127.0.0.1:{port}"
    try:
        await asyncio.to_thread(desktop.set_window_size, 1280, 900)
        pages = {
            "live": f"/g/{scene.live_hong}",
            "scrubbed": f"/g/{scene.live_hong}?ply=10",
            "live-hongkong": f"/g/{scene.live_hongkong}",
            "finished": f"/g/{scene.finished}",
            "server": f"/s/{scene.server}",
            "leaderboard": "/leaderboard/hongkong",
            "missing": "/g/AAAAAAAAAAAAAAAAAAAAAA",
        }
        seen = {}
        for width, driver in ((390, phone), (1280, desktop)):
            for name, path in pages.items():
                seen[name, width] = await look(driver, base + path, name, width)
                assert seen[name, width]["overflow"] <= 0, (name, width, seen[name, width])
                assert seen[name, width]["icon"].endswith(".svg") or "favicon.svg" in seen[name, width]["icon"]
        for width in (390, 1280):
            live, scrubbed = seen["live", width], seen["scrubbed", width]
            assert live["ply"] == live["last"] == 44 and live["currentInBox"] and not live["back"], (width, live)
            assert live["headline"] == live["status"] and "(emperor) to move." in live["headline"]
            assert scrubbed["ply"] == 10 and scrubbed["back"] and scrubbed["headline"] == scrubbed["status"]
            server = seen["server", width]
            assert server["h1"].startswith(scenes.SERVER_NAME) and server["title"].startswith(scenes.SERVER_NAME)
            assert server["recent"] >= 5 and server["ratings"] >= 2 and server["ratingsOnOneLine"]
            board = seen["leaderboard", width]
            assert board["ratingsOnOneLine"] and board["ratings"] == 6 and "Provisional" in board["group"]
        assert seen["live", 390]["captionVisible"] and not seen["live", 390]["hint"]  # a phone: no keys to press
        assert seen["live", 1280]["hint"] and seen["live", 1280]["board"] >= 560  # (it was about 400)
        assert seen["live", 390]["board"] >= 340

        # scrubbing back on the phone, then back to live
        await asyncio.to_thread(phone.get, base + pages["live"])
        await asyncio.to_thread(
            phone.execute_script,
            "const s = document.getElementById('slider'); s.value = 7; s.dispatchEvent(new Event('input'));",
        )
        now = await asyncio.to_thread(phone.execute_script, LOOK)
        assert now["ply"] == 7 and now["back"] and now["headline"] == now["status"] != seen["live", 390]["headline"]
        await shoot(phone, "pages/scrubbed-back-390")
        await asyncio.to_thread(phone.execute_script, "document.getElementById('back').click()")
        now = await asyncio.to_thread(phone.execute_script, LOOK)
        assert now["ply"] == 44 and not now["back"] and now["headline"] == seen["live", 390]["headline"]
        async with aiohttp.ClientSession() as session:
            async with session.get(f"{base}/favicon.ico") as icon:
                assert icon.status == 200 and icon.headers["Content-Type"] == "image/svg+xml"
    finally:
        for driver in (phone, desktop):
            await asyncio.to_thread(driver.quit)
            shutil.rmtree(driver.profile, ignore_errors=True)
        web.terminate()
        web.wait(10)
