-- Runs a few plain writes atomically (bot.storage.store.guarded), refused (nothing written) when the identity
-- marker is gone. A reply that is nil (SET NX refused, GETDEL of nothing) comes back as 0.
-- KEYS: marker, targets...
-- ARGV: check, commands...
--   marker: the identity marker (bot.storage.store.marker), or the first command's key when nothing is checked
--   targets...: each command's key
--   check: "1" to check that the marker exists first
--   commands...: per command its name, n, and its n arguments after the key
local marker = KEYS[1]
local targets = 2 -- KEYS[targets...]
local check = ARGV[1]
local commands = 2 -- ARGV[commands...]

if check == '1' and redis.call('EXISTS', marker) == 0 then
  return redis.error_reply('HONGBOT_STORE_LOST ' .. marker)
end
local out, i = {}, commands
for k = targets, #KEYS do
  local n = tonumber(ARGV[i + 1])
  local r = redis.call(ARGV[i], KEYS[k], unpack(ARGV, i + 2, i + 1 + n))
  if r == false or r == nil then r = 0 end
  out[#out + 1] = r
  i = i + 2 + n
end
return out
