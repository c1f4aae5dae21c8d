-- Removes a claimed member of a due set (bot.storage.store.DueSet.settle) only if nobody re-scheduled it since it
-- was claimed. Returns 1 if removed, else 0. Prepended with marker_check.lua.
-- KEYS: due, tries, shard_keys
-- ARGV: member, leased
--   due: the sorted set of members by due time; tries: its claim counts; shard_keys: its members' shard keys
--   member: the member; leased: the score it was leased with
local due = KEYS[1]
local tries = KEYS[2]
local shard_keys = KEYS[3]
local member = ARGV[1]
local leased = ARGV[2]

local score = redis.call('ZSCORE', due, member)
if score and tonumber(score) ~= tonumber(leased) then return 0 end
redis.call('ZREM', due, member)
redis.call('HDEL', tries, member)
redis.call('HDEL', shard_keys, member)
return 1
