"""The bot's features, each a discord.py extension (``async def setup(bot)`` adding one cog), loaded by
:class:`bot.interface.client.HongBot` from its ``EXTENSIONS`` tuple:

- :mod:`bot.exts.play` — the ``/<game>`` commands, ``/takeback``, challenges, threads, rematches, the computer
  opponent and the turn timers;
- :mod:`bot.exts.stats` — finished games: ``/leaderboard``, ``/stats``, ``/history``, ``/replay``, ``/record``,
  recording and rating each game when it ends;
- :mod:`bot.exts.admin` — ``/settings``, ``/game abort``, ``/games``.

Features share services through the bot (``bot.layer``, ``bot.core.kinds``) and talk through events: a finished
game is ``bot.dispatch("game_finished", record)``, handled by ``on_game_finished`` listeners.
"""
