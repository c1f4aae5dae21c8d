-- The compare-and-set commit of a channel's record with its effects (bot.storage.store.GameStore.commit/finish):
-- applied only if the stored version is the expected one, all of it in one atomic step. Prepended with
-- marker_check.lua. Returns the new version (0 after a delete or finish), -1 if the stored version is another, -2
-- if the deadline has passed (nothing changed: a commit that waited in a stopped server is not applied when it
-- wakes). TIME before writes is allowed: scripts are replicated by their effects (the default from Redis 5, the
-- only way from Redis 7). All the keys are in one hash slot on a Cluster (bot.storage.keys.ClusterKeys).
-- KEYS: game, done, deadlines, outbox, active, finished, deadline_tries, outbox_tries, deadline_shards, outbox_shards, reply
-- ARGV: expected, doc, mode, channel, member, ended, activate, shard, due_by, live, publish, effects...
--   game: the channel's game key; done: the finished record's key (or the game key); deadlines, outbox: the
--   bucket's due sets; active: the server's active set (or the game key); finished: the finished index;
--   deadline_tries, outbox_tries: the due sets' claim counts; deadline_shards, outbox_shards: their members' shard
--   keys (bot.storage.store.DueSet); reply: the reply key of the turn announced (bot.storage.keys.Keys.reply; the
--   game key when none)
--   expected: the expected version; doc: the new doc JSON ("" to delete); mode: "finish" or "put";
--   channel: the channel id; member, ended: the finished index's member and its end time;
--   activate: "1"/"0"/"" add to / remove from / leave the active set; shard: the shard key of the added members
--   ("" if the guild is unknown); due_by: the deadline, Redis time (seconds, TIME) past which the change is refused
--   ("" for none); live: the pub/sub channel told of the change (bot.storage.keys.Keys.live); publish: "PUBLISH",
--   "SPUBLISH" (a Cluster from Redis 7: a shard channel in this slot) or "" (none); effects...: for the deadlines and then for the outbox: n, n members to remove; n, n (member,
--   score) pairs to add; then the interaction to complete ("<application id>:<token>", "" none) and its TTL
--   (seconds), SET in reply
local game = KEYS[1]
local done = KEYS[2]
local deadlines = KEYS[3]
local outbox = KEYS[4]
local active = KEYS[5]
local finished = KEYS[6]
local deadline_tries = KEYS[7]
local outbox_tries = KEYS[8]
local deadline_shards = KEYS[9]
local outbox_shards = KEYS[10]
local reply = KEYS[11]
local expected = ARGV[1]
local doc = ARGV[2]
local mode = ARGV[3]
local channel = ARGV[4]
local member = ARGV[5]
local ended = ARGV[6]
local activate = ARGV[7]
local shard = ARGV[8]
local due_by = ARGV[9]
local live = ARGV[10]
local publish = ARGV[11]
local effects = 12 -- ARGV[effects...]

local v = redis.call('HGET', game, 'v') or '0'
if v ~= expected then
  -- the same change retried after its reply was lost (a dropped connection): report it as done
  if mode == 'finish' and v == '0' and redis.call('GET', done) == doc then return 0 end
  if mode == 'put' and doc ~= '' and tonumber(v) == tonumber(expected) + 1
     and redis.call('HGET', game, 'doc') == doc then return tonumber(v) end
  return -1
end
if due_by ~= '' then
  local now = redis.call('TIME')
  if tonumber(now[1]) + tonumber(now[2]) / 1000000 > tonumber(due_by) then return -2 end
end
local nv = 0
if mode == 'finish' then
  redis.call('SET', done, doc)
  redis.call('DEL', game)
  redis.call('ZADD', finished, ended, member)
elseif doc == '' then
  redis.call('DEL', game)
else
  nv = tonumber(v) + 1
  redis.call('HSET', game, 'v', nv, 'doc', doc)
end
if activate == '1' then
  redis.call('SADD', active, channel)
elseif activate == '0' then
  redis.call('SREM', active, channel)
end
local i = effects
for _, set in ipairs({{deadlines, deadline_tries, deadline_shards}, {outbox, outbox_tries, outbox_shards}}) do
  local key, tries, shards = set[1], set[2], set[3]
  local n = tonumber(ARGV[i])
  i = i + 1
  for j = 0, n - 1 do
    redis.call('ZREM', key, ARGV[i + j])
    redis.call('HDEL', tries, ARGV[i + j])
    redis.call('HDEL', shards, ARGV[i + j])
  end
  i = i + n
  n = tonumber(ARGV[i])
  i = i + 1
  for j = 0, n - 1 do
    redis.call('ZADD', key, ARGV[i + 2 * j + 1], ARGV[i + 2 * j])
    if shard ~= '' then redis.call('HSET', shards, ARGV[i + 2 * j], shard) end
  end
  i = i + 2 * n
end
if ARGV[i] and ARGV[i] ~= '' then redis.call('SET', reply, ARGV[i], 'EX', ARGV[i + 1]) end
-- the web companion's watchers hear each change: the new version ("<version>"), or "end:<old version + 1>" when
-- the record is finished or deleted (bot.storage.live)
if publish ~= '' then
  if nv > 0 then
    redis.call(publish, live, tostring(nv))
  else
    redis.call(publish, live, 'end:' .. tostring(tonumber(v) + 1))
  end
end
return nv
