-- Commits a tournament's document (bot.storage.tournaments.Tournaments.commit) only if its version is still the one
-- it was computed from, and in the same step indexes its new games and schedules its next step. Returns the new
-- version, or 0 when someone committed in between (nothing written). Prepended with marker_check.lua.
-- KEYS: doc, games, due
-- ARGV: expected, body, id, step, step_at, game_ids...
--   doc: the tournament's hash (v, doc); games: game id -> tournament id; due: the bucket's tournament steps
--   expected: the version read (0: a new tournament); body: the document (JSON); id: the tournament's id
--   step: a due member to schedule ('' for none), at step_at; game_ids...: game ids to index to this tournament
local doc = KEYS[1]
local games = KEYS[2]
local due = KEYS[3]
local expected = ARGV[1]
local body = ARGV[2]
local id = ARGV[3]
local step = ARGV[4]
local step_at = ARGV[5]
local game_ids = 6 -- ARGV[game_ids...]

local version = tonumber(redis.call('HGET', doc, 'v') or '0')
if version ~= tonumber(expected) then return 0 end
redis.call('HSET', doc, 'v', version + 1, 'doc', body)
for i = game_ids, #ARGV do
  redis.call('HSET', games, ARGV[i], id)
end
if step ~= '' then
  redis.call('ZADD', due, step_at, step)
end
return version + 1
