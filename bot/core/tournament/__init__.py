"""Tournaments, pure of Discord and Redis: pairing (:mod:`.pairing`: Berger tables, the Swiss by the Dutch system's
principles with networkx's matching), the event as data and its steps (:mod:`.event`), standings and tie-breaks
(:mod:`.standings`). The rules we follow, with every ruling: ``RULES.md`` beside this file."""
