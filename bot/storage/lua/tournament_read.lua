-- Reads a tournament whole, at one moment (bot.storage.tournaments.Tournaments.get): its hash and its parts, so the
-- document, its entrants, results and boards always agree. Returns four flat lists of field, value pairs.
-- KEYS: doc, players, results, boards
-- ARGV:
--   doc: the tournament's hash; players, results, boards: its parts (bot.storage.keys.Keys)
local doc = KEYS[1]
local players = KEYS[2]
local results = KEYS[3]
local boards = KEYS[4]

return {
  redis.call('HGETALL', doc),
  redis.call('HGETALL', players),
  redis.call('HGETALL', results),
  redis.call('HGETALL', boards),
}
