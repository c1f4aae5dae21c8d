-- Commits a tournament's document (bot.storage.tournaments.Tournaments.commit) only if its version is still the one
-- it was computed from — and, for a change that pairs a round, if its entrants are still the ones it was paired from
-- (their version) — and in the same step sets the fields the other tournament scripts read, writes the parts given
-- (a whole tournament's, created or moved from the old single-document layout; a round's boards decided as paired;
-- an entry renamed), schedules its next step and lists it among the tournaments over once it
-- is. Returns the new version, or 0 when someone committed
-- in between (nothing written). Prepended with marker_check.lua.
-- KEYS: doc, players, results, boards, games, due, over
-- ARGV: expected, entrants, schema, body, id, phase, round, joins, left, step, step_at, ended, listed, parts
--   doc: the tournament's hash; players, results, boards: its parts (bot.storage.keys.Keys); games: the channel's
--   game id -> '<tournament id> <board>'; due: the bucket's tournament steps; over: the tournaments over
--   expected: the version read (0: a new tournament); entrants: the entrants' version read ('': not checked)
--   schema: the layout's number; body: the document (JSON); id: the tournament's id; phase, round, joins: the
--   fields the scripts read (joins: the round a joiner enters, 0 none); left: the current round's boards still to be
--   played ('': unchanged — set only when a round is paired); step: a due member to schedule ('' for none), at
--   step_at; ended: when it finished or was cancelled ('': it is not over), listed as `listed` (channel:id);
--   parts: JSON of the parts to write ('' for none): players {user: entry}, drop [user], results {board: result},
--   boards {board: where}, games {game: board} (indexed to the tournament), seq (sign-ups so far)
local doc = KEYS[1]
local players = KEYS[2]
local results = KEYS[3]
local boards = KEYS[4]
local games = KEYS[5]
local due = KEYS[6]
local over = KEYS[7]
local expected = ARGV[1]
local entrants = ARGV[2]
local schema = ARGV[3]
local body = ARGV[4]
local id = ARGV[5]
local phase = ARGV[6]
local round = ARGV[7]
local joins = ARGV[8]
local left = ARGV[9]
local step = ARGV[10]
local step_at = ARGV[11]
local ended = ARGV[12]
local listed = ARGV[13]
local parts = ARGV[14]

local version = tonumber(redis.call('HGET', doc, 'v') or '0')
if version ~= tonumber(expected) then return 0 end
if entrants ~= '' and tonumber(redis.call('HGET', doc, 'ev') or '0') ~= tonumber(entrants) then return 0 end
redis.call('HSET', doc, 'v', version + 1, 'doc', body, 'schema', schema, 'phase', phase, 'round', round,
  'joins', joins)
if left ~= '' then redis.call('HSET', doc, 'left', left) end
if parts ~= '' then
  local whole = cjson.decode(parts)
  for _, user in ipairs(whole.drop) do redis.call('HDEL', players, user) end
  for user, entry in pairs(whole.players) do redis.call('HSET', players, user, entry) end
  for board, result in pairs(whole.results) do redis.call('HSET', results, board, result) end
  for board, where in pairs(whole.boards) do redis.call('HSET', boards, board, where) end
  for game, board in pairs(whole.games) do redis.call('HSET', games, game, id .. ' ' .. board) end
  if tonumber(redis.call('HGET', doc, 'seq') or '0') < whole.seq then redis.call('HSET', doc, 'seq', whole.seq) end
  if next(whole.players) ~= nil or #whole.drop > 0 then redis.call('HINCRBY', doc, 'ev', 1) end
end
if step ~= '' then
  redis.call('ZADD', due, step_at, step)
end
if ended ~= '' then
  redis.call('ZADD', over, 'NX', ended, listed)
end
return version + 1
