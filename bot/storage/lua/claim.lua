-- Leases the due members of a due set (bot.storage.store.DueSet.claim). Each due member is leased (its score moved
-- to now + lease, the lease doubling with every claim) and returned with that score and how many times it has been
-- claimed: a claimer that dies before settling it leaves it to be claimed again when the lease ends. A member whose
-- guild is on a shard of another process (shard = shard key mod shard count) is skipped: that process claims it.
-- Returns member, score, claims, member, score, claims… Prepended with marker_check.lua.
-- KEYS: due, tries, shard_keys
-- ARGV: now, base_lease, longest, limit, shard_count, shards...
--   due: the sorted set of members by due time; tries: its claim counts; shard_keys: its members' shard keys
--   now: the time; base_lease, longest: the first and the longest lease (seconds); limit: how many at most;
--   shard_count: the shard count (0: claim every member); shards...: the shards of the claiming process
local due = KEYS[1]
local tries = KEYS[2]
local shard_keys = KEYS[3]
local now = ARGV[1]
local base_lease = ARGV[2]
local longest = ARGV[3]
local limit = ARGV[4]
local shard_count = ARGV[5]
local shards = 6 -- ARGV[shards...]

local most, count, mine = tonumber(limit), tonumber(shard_count), {}
for i = shards, #ARGV do mine[tonumber(ARGV[i])] = true end
-- read on from the last score seen, past the members skipped at that score (a leased one leaves the range)
local out, from, skipped = {}, '-inf', 0
while #out < 3 * most do
  local found = redis.call('ZRANGEBYSCORE', due, from, now, 'WITHSCORES', 'LIMIT', skipped, math.max(most, 100))
  if #found == 0 then break end
  for i = 1, #found, 2 do
    local member = found[i]
    if found[i + 1] ~= from then from, skipped = found[i + 1], 0 end
    local key = count > 0 and redis.call('HGET', shard_keys, member)
    if key and not mine[math.fmod(tonumber(key), count)] then
      skipped = skipped + 1
    elseif #out < 3 * most then
      local claims = redis.call('HINCRBY', tries, member, 1)
      local lease = math.min(tonumber(base_lease) * 2 ^ (claims - 1), tonumber(longest))
      redis.call('ZADD', due, 'XX', tonumber(now) + lease, member)
      out[#out + 1] = member
      out[#out + 1] = redis.call('ZSCORE', due, member)
      out[#out + 1] = claims
    end
  end
end
return out
