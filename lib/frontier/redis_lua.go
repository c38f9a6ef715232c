package frontier

import "github.com/redis/go-redis/v9"

// The Lua scripts behind the Redis frontier. ARGV[1] is the key prefix,
// ARGV[2] the epoch this client opened the crawl with: a server that lost
// the crawl (restart without persistence, FLUSHALL) answers STATELOST
// instead of acting on an empty state. Times are the server's, in ms.
const luaPrelude = `
local P = ARGV[1]
local meta = redis.call('HMGET', P..'meta', 'epoch', 'perhost', 'interval', 'stop')
if meta[1] ~= ARGV[2] then return redis.error_reply('STATELOST crawl state not on the server') end
local cap = tonumber(meta[2]) or 1
local ival = tonumber(meta[3]) or 0
local stopped = meta[4] == '1'
local tm = redis.call('TIME')
local now = tonumber(tm[1]) * 1000 + math.floor(tonumber(tm[2]) / 1000)
local function H(host) return P..'h:'..host end
local function fix(host)
  local v = redis.call('HMGET', H(host), 'active', 'next', 'notbefore')
  if (tonumber(v[1]) or 0) < cap and redis.call('ZCARD', P..'q:'..host) > 0 then
    redis.call('ZADD', P..'sched', math.max(tonumber(v[2]) or 0, tonumber(v[3]) or 0), host)
  else
    redis.call('ZREM', P..'sched', host)
  end
end
local function push(host, score, js, ready)
  if ready > now then
    redis.call('ZADD', P..'delayed', ready, host..'\t'..score..'\t'..js)
  else
    redis.call('ZADD', P..'q:'..host, score, js)
    fix(host)
  end
end
local function split(s)
  local a = string.find(s, '\t', 1, true)
  local b = string.find(s, '\t', a + 1, true)
  return string.sub(s, 1, a - 1), string.sub(s, a + 1, b - 1), string.sub(s, b + 1)
end
-- unlease removes lease id and frees its host; it returns host, score, json
local function unlease(id)
  local d = redis.call('HGET', P..'ldata', id)
  if not d then return nil end
  redis.call('ZREM', P..'leases', id)
  redis.call('HDEL', P..'ldata', id)
  local host, score, rest = split(d)
  local w = string.find(rest, '\t', 1, true)
  if redis.call('SREM', P..'freed', id) == 0 then
    redis.call('HINCRBY', H(host), 'active', -1)
  end
  redis.call('HINCRBY', P..'stats', 'leased', -1)
  return host, score, string.sub(rest, w + 1)
end
local function tidy()
  local ex = redis.call('ZRANGEBYSCORE', P..'leases', '-inf', now, 'LIMIT', 0, 100)
  for _, id in ipairs(ex) do
    local host, score, js = unlease(id)
    if host then
      redis.call('HINCRBY', P..'stats', 'queued', 1)
      redis.call('HINCRBY', P..'stats', 'expired', 1)
      redis.call('HINCRBY', H(host), 'queued', 1)
      push(host, score, js, 0)
      fix(host)
    end
  end
  local due = redis.call('ZRANGEBYSCORE', P..'delayed', '-inf', now, 'LIMIT', 0, 100)
  for _, m in ipairs(due) do
    redis.call('ZREM', P..'delayed', m)
    local host, score, js = split(m)
    redis.call('ZADD', P..'q:'..host, score, js)
    fix(host)
  end
end
`

var (
	// ARGV: P, new epoch, shards, perhost, interval ms
	scInit = redis.NewScript(`
local P = ARGV[1]
if redis.call('EXISTS', P..'meta') == 0 then
  redis.call('HSET', P..'meta', 'epoch', ARGV[2], 'shards', ARGV[3], 'perhost', ARGV[4], 'interval', ARGV[5])
end
return redis.call('HMGET', P..'meta', 'epoch', 'shards', 'perhost', 'interval')`)

	// ARGV: P, epoch, then per entry: shard, hash, host, depth, delay ms, json
	scAdd = redis.NewScript(luaPrelude + `
local n = 0
for i = 3, #ARGV, 6 do
  if redis.call('SADD', P..'seen:'..ARGV[i], ARGV[i+1]) == 1 then
    n = n + 1
    local host = ARGV[i+2]
    local seq = redis.call('INCR', P..'seq')
    local score = string.format('%.0f', tonumber(ARGV[i+3]) * 4294967296 + seq)
    redis.call('SADD', P..'hosts', host)
    redis.call('HINCRBY', H(host), 'queued', 1)
    local delay = tonumber(ARGV[i+4])
    local ready = 0
    if delay > 0 then ready = now + delay end
    push(host, score, ARGV[i+5], ready)
  end
end
if n > 0 then
  redis.call('HINCRBY', P..'stats', 'queued', n)
  redis.call('HINCRBY', P..'stats', 'seen', n)
end
return n`)

	// ARGV: P, epoch, lease ms, worker
	scTake = redis.NewScript(luaPrelude + `
tidy()
if stopped then return {'stop'} end
local top = redis.call('ZRANGE', P..'sched', 0, 0, 'WITHSCORES')
if #top == 0 or tonumber(top[2]) > now then
  local st = redis.call('HMGET', P..'stats', 'queued', 'leased')
  if (tonumber(st[1]) or 0) == 0 and (tonumber(st[2]) or 0) == 0 then return {'over'} end
  local at = nil
  if #top > 0 then at = tonumber(top[2]) end
  for _, k in ipairs({'delayed', 'leases'}) do
    local d = redis.call('ZRANGE', P..k, 0, 0, 'WITHSCORES')
    if #d > 0 and (at == nil or tonumber(d[2]) < at) then at = tonumber(d[2]) end
  end
  local w = 1000
  if at then w = math.max(at - now, 1) end
  return {'wait', string.format('%.0f', w)}
end
local host = top[1]
local e = redis.call('ZPOPMIN', P..'q:'..host)
if #e == 0 then -- cannot happen while fix() keeps sched; do not wedge if it does
  redis.call('ZREM', P..'sched', host)
  return {'wait', '1'}
end
local id = tostring(redis.call('INCR', P..'lseq'))
local exp = now + tonumber(ARGV[3])
redis.call('ZADD', P..'leases', exp, id)
redis.call('HSET', P..'ldata', id, host..'\t'..e[2]..'\t'..ARGV[4]..'\t'..e[1])
local hi = tonumber(redis.call('HGET', H(host), 'interval')) or 0
redis.call('HINCRBY', H(host), 'active', 1)
redis.call('HINCRBY', H(host), 'queued', -1)
redis.call('HSET', H(host), 'next', string.format('%.0f', now + math.max(ival, hi)))
redis.call('HINCRBY', P..'stats', 'queued', -1)
redis.call('HINCRBY', P..'stats', 'leased', 1)
fix(host)
return {'lease', id, e[1], string.format('%.0f', exp), host}`)

	// ARGV: P, epoch, id, lease ms
	scRenew = redis.NewScript(luaPrelude + `
if not redis.call('ZSCORE', P..'leases', ARGV[3]) then return false end
local exp = now + tonumber(ARGV[4])
redis.call('ZADD', P..'leases', exp, ARGV[3])
return exp`)

	// ARGV: P, epoch, digest
	scDigest = redis.NewScript(luaPrelude + `
return redis.call('HGET', P..'digests', ARGV[3])`)

	// ARGV: P, epoch, digest, value
	scSetDigest = redis.NewScript(luaPrelude + `
return redis.call('HSETNX', P..'digests', ARGV[3], ARGV[4])`)

	// ARGV: P, epoch, id
	scFree = redis.NewScript(luaPrelude + `
local d = redis.call('HGET', P..'ldata', ARGV[3])
if not d then return 0 end
if redis.call('SADD', P..'freed', ARGV[3]) == 1 then
  local host = split(d)
  redis.call('HINCRBY', H(host), 'active', -1)
  fix(host)
end
return 1`)

	// ARGV: P, epoch, id, failed (0/1)
	scDone = redis.NewScript(luaPrelude + `
local host = unlease(ARGV[3])
if not host then return 0 end
local f = tonumber(ARGV[4])
redis.call('HINCRBY', H(host), 'done', 1)
redis.call('HINCRBY', P..'stats', 'done', 1)
if f == 1 then
  redis.call('HINCRBY', H(host), 'failed', 1)
  redis.call('HINCRBY', P..'stats', 'failed', 1)
end
fix(host)
return 1`)

	// ARGV: P, epoch, id, json, delay ms
	scRelease = redis.NewScript(luaPrelude + `
local host, score, old = unlease(ARGV[3])
if not host then return 0 end
local e = cjson.decode(ARGV[4])
e['u'] = cjson.decode(old)['u'] -- the URL stays the lease's
local js = cjson.encode(e)
redis.call('HINCRBY', H(host), 'queued', 1)
redis.call('HINCRBY', P..'stats', 'queued', 1)
local delay = tonumber(ARGV[5])
local ready = 0
if delay > 0 then ready = now + delay end
push(host, score, js, ready)
fix(host)
return 1`)

	// ARGV: P, epoch, host, ms from now
	scDelay = redis.NewScript(luaPrelude + `
local nb = now + tonumber(ARGV[4])
if nb > (tonumber(redis.call('HGET', H(ARGV[3]), 'notbefore')) or 0) then
  redis.call('HSET', H(ARGV[3]), 'notbefore', string.format('%.0f', nb))
  fix(ARGV[3])
end
return 1`)

	// ARGV: P, epoch, host, interval ms
	scInterval = redis.NewScript(luaPrelude + `
redis.call('HSET', H(ARGV[3]), 'interval', ARGV[4])
return 1`)

	scStop = redis.NewScript(luaPrelude + `
redis.call('HSET', P..'meta', 'stop', '1')
return 1`)

	scOver = redis.NewScript(luaPrelude + `
local st = redis.call('HMGET', P..'stats', 'queued', 'leased')
if (tonumber(st[1]) or 0) == 0 and (tonumber(st[2]) or 0) == 0 then return 1 end
return 0`)

	scStats = redis.NewScript(luaPrelude + `
local g = redis.call('HMGET', P..'stats', 'queued', 'leased', 'done', 'failed', 'seen', 'expired')
for i = 1, 6 do g[i] = tonumber(g[i]) or 0 end
if stopped then g[7] = 1 else g[7] = 0 end
return {g}`)
)
