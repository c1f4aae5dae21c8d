"""engine.registry: the games are discovered from the engine package, found by name, by game object and by
saved state; unknown names are refused with a message naming the games."""

from __future__ import annotations

import importlib
import pkgutil
import types

import pytest

import engine
import engine.ai
from engine import InvalidState, registry
from engine import hong, hongkong


def test_games_are_discovered_from_the_modules_that_declare_name():
    games = registry.games()
    assert {"hong", "hongkong"} <= set(games)  # and any game added since: tests/contract runs over them all
    assert games["hong"] == registry.EngineEntry("hong", hong, "engine.ai.hong")
    assert games["hongkong"].module is hongkong and games["hongkong"].ai_module_name == "engine.ai.hongkong"
    modules = [entry.module.__name__ for entry in games.values()]
    assert modules == sorted(modules) and all(m == f"engine.{m.rpartition('.')[2]}" for m in modules)
    everything = dict(games)
    games.clear()  # a copy: the registry is unchanged
    assert registry.games() == everything


def test_find_and_its_refusal():
    assert registry.find("hongkong").module is hongkong
    listed = ", ".join(registry.games())
    assert "hong, hongkong" in listed
    for bad in ("chess", "Hong", "", None, ["hong"]):
        with pytest.raises(ValueError, match=f"unknown game .*: the games are {listed}$"):
            registry.find(bad)


def test_a_module_that_declares_name_but_is_no_game_module_is_refused(monkeypatch):
    """A module in engine/ with NAME must offer new_game and from_dict (engine.contract.GameModule)."""
    half = types.ModuleType("engine.half")
    half.NAME = "half"
    half.new_game = lambda: None  # and no from_dict
    found = list(pkgutil.iter_modules(engine.__path__))
    monkeypatch.setattr(
        registry.pkgutil, "iter_modules", lambda path: [*found, pkgutil.ModuleInfo(None, "half", False)]
    )
    real = importlib.import_module
    monkeypatch.setattr(registry.importlib, "import_module", lambda name: half if name == "engine.half" else real(name))
    with pytest.raises(TypeError, match="engine.half declares NAME = 'half' but is no game module"):
        registry._discover.__wrapped__()


def test_of_reads_the_kind_of_a_game_object():
    assert registry.of(hongkong.new_game()).name == "hongkong"
    assert registry.of(hong.new_game("inner", seed=1)).name == "hong"
    for bad in ("hong", object(), hongkong):
        with pytest.raises(TypeError, match="not a game of any engine"):
            registry.of(bad)


def test_entry_new_game_and_load_round_trip():
    entry = registry.find("hong")
    game = entry.new_game(board="inner", seed=4, expansion=True)
    game.play(game.legal_moves()[3])
    assert registry.load(game.to_dict()).to_dict() == game.to_dict() == entry.load(game.to_dict()).to_dict()
    hk = registry.find("hongkong").new_game(first=1)
    hk.play("S@A1")
    assert registry.load(hk.to_dict()).moves == ["S@A1"]


@pytest.mark.parametrize("state", [None, [], {}, {"game": "chess"}, {"game": 3}, {"game": "hongkong", "moves": 1}])
def test_load_refuses_what_no_engine_restores(state):
    with pytest.raises(InvalidState):
        registry.load(state)


def test_every_game_has_an_ai_model_with_settings_for_each_level():
    for name, entry in registry.games().items():
        assert set(engine.ai.SETTINGS[name]) == set(engine.ai.LEVELS)
        assert callable(engine.ai._model(entry).choose)
