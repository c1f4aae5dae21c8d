-- Records one board's result (bot.storage.tournaments.Tournaments.record / forfeit): its own write, never a rewrite
-- of the tournament, so any number of results at once are all kept, each in O(1) whatever the tournament's size.
-- The same result twice counts once; a different second one is refused. The round's last result schedules the round
-- step (which pairs the next round) at `now`, once. Prepended with marker_check.lua.
-- Returns 'kept', 'last' (kept, and it completed the round), 'same' (recorded already), 'other <result>' (the board
-- has another result: refused), 'no_board' (no board plays this game), 'started' (a forfeit refused: the board's
-- game is being started, its own result decides), 'legacy' (the tournament is in the old layout, or gone).
-- KEYS: doc, results, boards, games, due
-- ARGV: schema, id, game, board, result, now, step
--   doc: the tournament's hash; results, boards: its parts; games: the channel's game id -> '<tournament id>
--   <board>'; due: the bucket's tournament steps
--   schema: the layout's number; id: the tournament's id; game: the game whose result it is ('': a forfeit of
--   `board`, a board whose game has not started); result: the result (bot.core.tournament.event.RESULTS); now: when
--   the round step is due; step: the round step's member without its round number ('round|<channel>|<id>|')
local doc = KEYS[1]
local results = KEYS[2]
local boards = KEYS[3]
local games = KEYS[4]
local due = KEYS[5]
local schema = ARGV[1]
local id = ARGV[2]
local game = ARGV[3]
local board = ARGV[4]
local result = ARGV[5]
local now = ARGV[6]
local step = ARGV[7]

if redis.call('HGET', doc, 'schema') ~= schema then return 'legacy' end
local at = board
if game ~= '' then
  local owner, found = string.match(redis.call('HGET', games, game) or '', '^(%S+) (%d+%.%d+)$')
  if owner ~= id then return 'no_board' end
  at = found
elseif redis.call('HEXISTS', boards, at) == 1 then
  return 'started'
end
local before = redis.call('HGET', results, at)
if before then
  if before == result then return 'same' end
  return 'other ' .. before
end
redis.call('HSET', results, at, result)
local number = tonumber(string.match(at, '^(%d+)%.'))
if number == tonumber(redis.call('HGET', doc, 'round') or '0') then
  if redis.call('HINCRBY', doc, 'left', -1) == 0 then
    redis.call('ZADD', due, now, step .. (number + 1))
    return 'last'
  end
end
return 'kept'
