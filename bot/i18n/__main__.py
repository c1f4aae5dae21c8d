"""``python -m bot.i18n extract``: rebuild the template and merge it into every catalog.

The extractor builds the command tree offline, so it lives with the Discord interface
(:mod:`bot.interface.extract`); this hands over to it as a run, not an import — :mod:`bot.i18n` itself depends on no
other part of the bot.
"""

import runpy

runpy.run_module("bot.interface.extract", run_name="__main__", alter_sys=True)
