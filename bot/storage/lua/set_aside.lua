-- Moves a channel's unreadable record to a quarantine key (bot.storage.store.GameStore.set_aside), if it is still
-- the one read. Returns 1 if moved, else 0. Prepended with marker_check.lua.
-- KEYS: game, quarantine, index
-- ARGV: version, now
--   game: the channel's game key; quarantine: where it goes; index: the quarantine index (sorted set)
--   version: the version read ("wrongtype" for a key that is not a hash); now: the time, the index's score
local game = KEYS[1]
local quarantine = KEYS[2]
local index = KEYS[3]
local version = ARGV[1]
local now = ARGV[2]

local t = redis.call('TYPE', game).ok
if t == 'none' then return 0 end
if t == 'hash' then
  if (redis.call('HGET', game, 'v') or '0') ~= version then return 0 end
elseif version ~= 'wrongtype' then
  return 0
end
redis.call('RENAME', game, quarantine)
redis.call('ZADD', index, now, quarantine)
return 1
