-- The first lines of every script that writes (prepended by bot/storage/scripts.py to a Script made with
-- marked=True, its OWN_KEYS then the count of the script's own keys): called with one more key than its own
-- (the last: the identity marker of the slot, bot.storage.store.marker), refuse — before anything is read or
-- written — when the marker is gone (the store was flushed or restarted empty).
if #KEYS > OWN_KEYS and redis.call('EXISTS', KEYS[#KEYS]) == 0 then
  return redis.error_reply('HONGBOT_STORE_LOST ' .. KEYS[#KEYS])
end
