-- script
-- Numbers and publishes one topic message. KEYS[1]: the generation key of
-- the topic's bucket (its cache lives while it holds "<n>"); KEYS[2]: the
-- topic's hash (gen, node, page, seq); KEYS[3]: its stream of recent
-- messages, all in one slot. ARGV[1]: the topic's channel (same slot);
-- ARGV[2]: the message ("<t|b><publisher length>:<publisher><value>");
-- ARGV[3]: how many messages the stream keeps; ARGV[4]: how long an idle
-- topic's keys stay, in ms; ARGV[5]: SPUBLISH (a cluster) or PUBLISH (one
-- node).
--
-- The numbering starts again at 1 on a new, larger page when the topic is
-- new, when its cache was flushed or made again since (another
-- generation), or when the node's replication history changed (a replica
-- took over, or the node restarted empty): the new node may have lost the
-- last numbers handed out, and must never hand them out again.
--
-- Returns 0 if the cache does not exist, else {page, seq}.
local generation = redis.call('GET', KEYS[1])
if not generation or string.byte(generation, 1) == 45 then -- 45 is '-'
  return 0
end
local info = redis.call('INFO', 'replication')
local node = string.match(info, 'master_replid:(%w+)') or ''
local held = redis.call('HMGET', KEYS[2], 'gen', 'node', 'page', 'seq')
local page, seq
if held[1] == generation and held[2] == node and held[3] and held[4] then
  page = held[3]
  seq = tonumber(held[4]) + 1
else
  local now = redis.call('TIME')
  local fresh = tonumber(now[1]) * 1000000 + tonumber(now[2])
  local old = tonumber(held[3] or '0')
  if fresh <= old then
    fresh = old + 1
  end
  page = string.format('%d', fresh)
  seq = 1
  redis.call('DEL', KEYS[3])
  redis.call('HSET', KEYS[2], 'gen', generation, 'node', node, 'page', page)
end
redis.call('HSET', KEYS[2], 'seq', seq)
redis.call('XADD', KEYS[3], 'MAXLEN', ARGV[3], seq .. '-1', 'm', ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[4])
redis.call('PEXPIRE', KEYS[3], ARGV[4])
redis.call(ARGV[5], ARGV[1], page .. ':' .. seq .. ':' .. ARGV[2])
return { page, seq }
