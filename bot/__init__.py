"""The Discord bot: configuration, Redis store, the shared game layer, and each game's commands.

Glue only — the rules live in :mod:`engine`, the drawing in :mod:`render`.
"""
