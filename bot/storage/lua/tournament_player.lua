-- Joins or leaves a tournament (bot.storage.tournaments.Tournaments.join / leave): one entrant's own write, never a
-- rewrite of the tournament, so any number at once all go through, each in O(1). Every change bumps the entrants'
-- version (`ev`), so a round being paired from the entrants as they were commits only if they are still so.
-- Prepended with marker_check.lua. Returns, for 'join': 'in <round>' (joined: paired from that round), 'joined'
-- (already in), 'withdrawn' (withdrew before), 'closed' (nobody can join now); for 'leave': 'removed' (off the sign-up
-- list), 'out <round>' (withdrawn: not paired from that round on), 'not_in', 'withdrawn' (already), 'over' (finished
-- or cancelled), 'moved' (the tournament is no longer in round `round`: read it again); for both 'legacy' (the old
-- layout, or gone).
-- KEYS: doc, players
-- ARGV: schema, action, user, name, round
--   doc: the tournament's hash; players: its entrants
--   schema: the layout's number; action: 'join' or 'leave'; user: the player's id; name: their name (join);
--   round: the round the caller read (leave)
local doc = KEYS[1]
local players = KEYS[2]
local schema = ARGV[1]
local action = ARGV[2]
local user = ARGV[3]
local name = ARGV[4]
local round = ARGV[5]

if redis.call('HGET', doc, 'schema') ~= schema then return 'legacy' end
local raw = redis.call('HGET', players, user)
local entry = raw and cjson.decode(raw)
local withdrawn = entry and entry.withdrawn ~= nil and entry.withdrawn ~= cjson.null
if action == 'join' then
  if entry then
    if withdrawn then return 'withdrawn' end
    return 'joined'
  end
  local joins = tonumber(redis.call('HGET', doc, 'joins') or '0')
  if joins == 0 then return 'closed' end
  local seq = redis.call('HINCRBY', doc, 'seq', 1)
  redis.call('HSET', players, user, cjson.encode({name = name, seq = seq, joined = joins}))
  redis.call('HINCRBY', doc, 'ev', 1)
  return 'in ' .. joins
end
if not entry then return 'not_in' end
local phase = redis.call('HGET', doc, 'phase')
if withdrawn then return 'withdrawn' end
if phase == 'finished' or phase == 'cancelled' then return 'over' end
if phase == 'signup' then
  redis.call('HDEL', players, user)
  redis.call('HINCRBY', doc, 'ev', 1)
  return 'removed'
end
local now = tonumber(redis.call('HGET', doc, 'round') or '0')
if now ~= tonumber(round) then return 'moved' end
entry.withdrawn = now + 1
redis.call('HSET', players, user, cjson.encode(entry))
redis.call('HINCRBY', doc, 'ev', 1)
return 'out ' .. (now + 1)
