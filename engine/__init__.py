"""Pure rules engines for the games the bot hosts. No I/O, no Discord, no Redis.

The contract (every game module follows it; python-chess's ``Board`` is the model):

* A game module ``engine.<game>`` declares ``NAME`` (``"hongkong"``, ``"hong"``: the stored ``kind`` and the
  ``"game"`` field of its state) and offers ``new_game(**options)`` and ``from_dict(state)``.
  :mod:`engine.registry` discovers the modules that declare ``NAME`` (``games()``, ``find(name)``,
  ``of(game)``, ``load(state)``); adding a game is adding a module, nothing is listed by hand.
* The game object has ``kind`` (its module's ``NAME``) and:

  - ``play(move: str)``: apply one entry of the move list; raises :class:`IllegalMove` and changes nothing.
  - ``pop() -> str``: undo the last entry of ``moves`` and return it, restoring the state before it exactly;
    ``IndexError`` when there is nothing to undo. ``truncate(n)`` pops until ``len(moves) == n``.
  - ``legal_moves() -> list[str]``: every legal move now, canonical notation; ``[]`` once over.
  - ``to_move`` (0 or 1), ``is_over`` (bool), ``winner`` (0, 1 or None), ``outcome`` (None while playing).
  - ``pending``: what the player to move must finish before the turn passes (Hong's summoned dragon), or None
    (always None in Hong Kong).
  - ``moves``: the moves played, canonical notation, in order; the source of truth for the state.
  - ``copy()``: an independent copy (undo history included).
  - ``to_dict()``: JSON-serialisable state ``{"game": NAME, ..., "moves": [...]}``; ``from_dict(state)`` restores
    it exactly by replaying the moves, or raises :class:`InvalidState`. ``from_dict(state, replay=False)`` loads the
    position the state records without replaying (many times faster; for a state already checked by a replay): its
    shape is still checked (:class:`InvalidState`), not the rules, and its undo history may be missing (Hong's
    ``pop()`` then raises ``IndexError``; load with the replay to undo).

* :mod:`engine.result` says how a game ended off the board (resigned, timed out, aborted);
  :mod:`engine.movetext` writes and reads a finished game's text record; :mod:`engine.ai` chooses moves.
"""


class IllegalMove(ValueError):
    """A move that is malformed or breaks a rule.

    The message is written for a player: it says what was wrong and, where it can, what would be
    legal instead. Raising it never changes the game it was raised for.
    """


class InvalidState(IllegalMove):
    """A saved state that does not restore.

    Raised by every engine's ``from_dict`` (and :func:`engine.registry.load`): not this game, a field missing
    or malformed, an illegal move in it, or a board that disagrees with its moves. An ``IllegalMove`` (so a
    ``ValueError``) for callers that only catch those.
    """


def truncate(game, n: int) -> list[str]:
    """Pop ``game``'s moves until ``len(game.moves) == n``; return the undone moves, oldest first.

    The shared body of every game's ``truncate(n)`` (a takeback to move ``n``): it only calls ``game.pop()``.

    Raises:
        IndexError: ``n`` is not between 0 and ``len(game.moves)``; nothing is undone then.
    """
    if type(n) is not int or not 0 <= n <= len(game.moves):
        raise IndexError(f"Can't go back to move {n}: {len(game.moves)} moves have been played.")
    undone = [game.pop() for _ in range(len(game.moves) - n)]
    undone.reverse()
    return undone


__all__ = ["IllegalMove", "InvalidState", "truncate"]
