"""A takeback request says which turn it would undo: its move numbers (as /record and the analysis number moves) and
its moves — one move in Hong Kong, a placement and its Great Dragon's action in Hong."""

from __future__ import annotations

from bot.core.record import Player, Record, Status, Takeback
from bot.exts.play._cog import takeback_question
from engine import hong, hongkong

from tests.e2e.test_hong import EXPANSION_SCRIPT, EXPANSION_SEED


def record_of(kind: str, game, by: int) -> Record:
    return Record(
        id="tb000001",
        kind=kind,
        status=Status.ACTIVE,
        guild_id=1,
        channel_id=2,
        challenger=10,
        opponent=11,
        players=(Player(10, "Ann"), Player(11, "Ben")),
        state=game.to_dict(),
        takeback=Takeback(by=by, moves=len(game.moves), expires=1000.0, nonce="abcd"),
    )


def test_a_hong_kong_request_names_the_move_it_undoes():
    game = hongkong.new_game(0)
    for move in ("S@A1", "S@E5", "Q@B2 S@C2"):
        game.play(move)
    text = takeback_question(record_of("hongkong", game, 0), game, 1, "Ann")
    assert (
        text
        == "<@11>, Ann asks to take back their last turn, move 3: `Q@B2 S@C2`. Allow it? (This request closes <t:1000:R>.)"
    )


def test_a_hong_request_names_the_placement_and_the_dragons_action_it_undoes():
    game = hong.new_game("inner", expansion=True, seed=EXPANSION_SEED)
    for move in EXPANSION_SCRIPT[: EXPANSION_SCRIPT.index("D1 swap C3 C6 V") + 1]:
        game.play(move)
    mover = 1 - game.to_move
    text = takeback_question(record_of("hong", game, mover), game, 1 - mover, "Ann")
    n = len(game.moves)
    assert f"their last turn, moves {n - 1}–{n}: `C3H`, `D1 swap C3 C6 V`. Allow it?" in text
