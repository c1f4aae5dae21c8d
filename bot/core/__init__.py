"""The game layer: games, records and their rules of play — imports neither discord nor redis."""
