-- Records a board's thread, then its game (bot.storage.tournaments.Tournaments.open_board / start_board): the board's
-- own write, never a rewrite of the tournament. A thread is recorded once (the one recorded first stays) and only on a
-- board without a result; a game once, with the game indexed to the board and to the tournament. Prepended with
-- marker_check.lua. Returns the board's thread id (as recorded), 'decided' (the board has its result: no game),
-- 'game <id>' (a game is recorded already), 'ok' (the game recorded), or 'legacy' (the old layout, or gone).
-- KEYS: doc, results, boards, games
-- ARGV: schema, board, thread, game, id
--   doc: the tournament's hash; results, boards: its parts; games: the channel's game id -> '<tournament id> <board>'
--   schema: the layout's number; board: '<round>.<index>'; thread: the thread's id; game: its game ('': record the
--   thread); id: the tournament's id
local doc = KEYS[1]
local results = KEYS[2]
local boards = KEYS[3]
local games = KEYS[4]
local schema = ARGV[1]
local board = ARGV[2]
local thread = ARGV[3]
local game = ARGV[4]
local id = ARGV[5]

if redis.call('HGET', doc, 'schema') ~= schema then return 'legacy' end
local where = redis.call('HGET', boards, board)
if game == '' then
  if where then return string.match(where, '^(%d+)') end
  if redis.call('HEXISTS', results, board) == 1 then return 'decided' end
  redis.call('HSET', boards, board, thread)
  return thread
end
local started = where and string.match(where, '^%d+ (.+)$')
if started then return 'game ' .. started end
redis.call('HSET', boards, board, thread .. ' ' .. game)
redis.call('HSET', games, game, id .. ' ' .. board)
return 'ok'
