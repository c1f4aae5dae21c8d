"""The Lua scripts' loader (bot/storage/scripts.py): names mapped to KEYS/ARGV positions, a script's declaration
held to its locals, and every file of bot/storage/lua/ loaded by some script."""

from __future__ import annotations

import re
from importlib import resources

import pytest

from bot.storage import scripts
from bot.storage.scripts import LOST_REPLY, Script, ScriptMismatch, declared

GOOD = """\
-- KEYS: game, done
-- ARGV: expected, doc, effects...
local game = KEYS[1]
local done = KEYS[2]
local expected = ARGV[1]
local doc = ARGV[2]
local effects = 3 -- ARGV[effects...]
return redis.call('GET', game)
"""


def every_script() -> list[Script]:
    return [value for value in vars(scripts).values() if isinstance(value, Script)]


def test_a_declaration_and_its_locals_give_the_names_in_order():
    assert declared("good", GOOD) == (("game", "done"), ("expected", "doc", "effects..."))


def test_a_script_may_declare_no_arguments_but_not_read_one():
    reading = "-- KEYS: game\n-- ARGV:\nlocal game = KEYS[1]\nreturn redis.call('HGETALL', game)\n"
    assert declared("read", reading) == (("game",), ())
    with pytest.raises(ScriptMismatch, match="by its number"):
        declared("read", reading + "return ARGV[1]\n")


@pytest.mark.parametrize(
    "change",
    [
        ("local done = KEYS[2]\n", "local done = KEYS[3]\n"),  # at another position
        ("local game = KEYS[1]\nlocal done = KEYS[2]\n", "local done = KEYS[1]\nlocal game = KEYS[2]\n"),  # swapped
        ("local doc = ARGV[2]\n", ""),  # a declared name never read
        ("local doc = ARGV[2]\n", "local doc = ARGV[2]\nlocal extra = ARGV[4]\n"),  # read, not declared
        ("-- ARGV: expected, doc, effects...", "-- ARGV: expected, document, effects..."),  # renamed on one side
        ("local effects = 3 -- ARGV[effects...]", "local effects = 4 -- ARGV[effects...]"),  # a tail elsewhere
        ("local effects = 3 -- ARGV[effects...]", "local effects = ARGV[3]"),  # a tail read as one value
        ("return redis.call('GET', game)", "return redis.call('GET', KEYS[1])"),  # the body by number
        ("return redis.call('GET', game)", "return ARGV[2]"),
        ("-- ARGV: expected, doc, effects...", "-- ARGV: expected, effects..., doc"),  # a tail not last
        ("-- ARGV: expected, doc, effects...", "-- ARGV: expected, doc, doc, effects..."),  # a name twice
        ("-- ARGV: expected, doc, effects...", "-- ARGV: expected, game, effects..."),  # a key's name as an argument
        ("-- KEYS: game, done\n", ""),  # no declaration
        ("-- KEYS: game, done\n", "-- KEYS: game, done\n-- KEYS: game, done\n"),  # two
    ],
)
def test_a_declaration_that_disagrees_with_the_locals_is_refused(change):
    old, new = change
    assert old in GOOD
    with pytest.raises(ScriptMismatch, match=r"^bad\.lua: "):
        declared("bad", GOOD.replace(old, new))


def test_names_go_to_their_positions_and_the_marker_last():
    keys = {name: f"key:{name}" for name in ("due", "tries", "shard_keys")}
    args = {"now": 5.5, "base_lease": 30, "longest": 3600, "limit": 10, "shard_count": 3, "shards": [0, 2]}
    positions = ["key:due", "key:tries", "key:shard_keys"], [5.5, 30, 3600, 10, 3, 0, 2]
    assert scripts.CLAIM.positions({**keys, "marker": None}, args) == positions
    assert scripts.CLAIM.positions({"marker": "m", **keys}, {**args, "shards": []}) == (
        [*positions[0], "m"],
        positions[1][:5],
    )
    assert scripts.GUARDED.positions(
        {"targets": ["a", "b"], "marker": "m"}, {"commands": ["DEL", 0], "check": "1"}
    ) == (["m", "a", "b"], ["1", "DEL", 0])


@pytest.mark.parametrize(
    "keys, args, message",
    [
        ({"due": 1, "tries": 2, "shard_keys": 3}, {"member": "x", "leased": 1}, "missing key(s) marker"),
        ({"due": 1, "tries": 2, "marker": None}, {"member": "x", "leased": 1}, "missing key(s) shard_keys"),
        (
            {"due": 1, "tries": 2, "shard_keys": 3, "marker": None, "other": 4},
            {"member": "x", "leased": 1},
            "unknown key(s) other",
        ),
        ({"due": 1, "tries": 2, "shard_keys": 3, "marker": None}, {"member": "x"}, "missing argument(s) leased"),
        (
            {"due": 1, "tries": 2, "shard_keys": 3, "marker": None},
            {"member": "x", "leased": 1, "score": 1},
            "unknown argument(s) score",
        ),
    ],
)
def test_a_missing_or_unknown_name_is_refused(keys, args, message):
    with pytest.raises(TypeError, match="^" + re.escape(f"settle.lua: {message}")):
        scripts.SETTLE.positions(keys, args)


def test_a_tail_is_a_list():
    with pytest.raises(TypeError, match=r"^guarded\.lua: the keys targets\.\.\. are a list"):
        scripts.GUARDED.positions({"marker": "m", "targets": "ab"}, {"check": "1", "commands": []})


def test_every_lua_file_is_loaded_by_a_script():
    folder = resources.files("bot.storage") / "lua"
    files = {entry.name.removesuffix(".lua") for entry in folder.iterdir() if entry.name.endswith(".lua")}
    assert files == scripts.LOADED
    assert files - {"marker_check"} == {script.name for script in every_script()}


def test_a_marked_script_checks_its_marker_first():
    """The scripts that write start by refusing when the marker (one key past their own) is gone."""
    for script in every_script():
        first = script.source.splitlines()
        check = next(line for line in first if not line.startswith("--"))
        if script.marked:
            assert check == f"if #KEYS > {len(script.keys)} and redis.call('EXISTS', KEYS[#KEYS]) == 0 then"
        assert (LOST_REPLY in script.source) == (script.marked or script is scripts.GUARDED)


async def test_a_script_runs_by_name_and_a_wrong_name_sends_nothing(redis):
    settle = scripts.SETTLE.register(redis)
    await redis.zadd("due", {"m": 5})
    await redis.hset("due:tries", "m", 2)
    keys = {"due": "due", "tries": "due:tries", "shard_keys": "due:shards", "marker": None}
    assert await settle(keys=keys, args={"member": "m", "leased": 6}) == 0  # scheduled anew: stays
    with pytest.raises(TypeError):
        await settle(keys=keys, args={"member": "m", "score": 5})
    assert await redis.zscore("due", "m") == 5
    assert await settle(keys=keys, args={"member": "m", "leased": 5}) == 1
    assert await redis.exists("due", "due:tries") == 0
    await redis.set("marker", "1")
    assert await settle(keys={**keys, "marker": "marker"}, args={"member": "m", "leased": 5}) == 1
    with pytest.raises(Exception, match=LOST_REPLY):
        await settle(keys={**keys, "marker": "gone"}, args={"member": "m", "leased": 5})
