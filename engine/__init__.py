"""Pure rules engines for the games the bot hosts.

One module per game (``engine.hongkong``, ``engine.hong``); each offers the same contract
(``new_game``, ``from_dict`` and a game object with ``play``, ``legal_moves``, ``to_move``,
``is_over``, ``winner``, ``to_dict``). No I/O, no Discord, no Redis.
"""


class IllegalMove(ValueError):
    """A move that is malformed or breaks a rule.

    The message is written for a player: it says what was wrong and, where it can, what would be
    legal instead. Raising it never changes the game it was raised for.
    """


__all__ = ["IllegalMove"]
