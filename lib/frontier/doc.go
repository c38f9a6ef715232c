// Package frontier is the crawl state of mirrorget behind one interface,
// Frontier: the seen set, the queue (by depth, then in order of adding),
// leases, per-host politeness (connections in use, next allowed time from
// the crawl's rate and robots.txt Crawl-delay, Retry-After), counters, a
// stop flag and a robots.txt cache. It follows no file format spec; the
// model is browsertrix-crawler's Redis crawl state (src/util/state.ts),
// with what lib/crawl keeps per URL (Entry) and per host.
//
// # Protocol
//
// A worker calls Take to lease a URL (Next waits for one), Renew while it
// fetches, and Done once the URL's record is durable, or Release to queue
// it again (a retry, with Attempt and ReadyAt set by the caller). A lease
// not renewed in time (Options.Lease, 60 s by default) goes back to the
// queue, and the next Take by any worker reclaims it: a worker that dies
// loses nothing, and duplicates are at most its leases. Take respects
// per-host politeness for all workers together: at most Options.PerHost
// leases of a host at once, and takes of a host at least its interval
// apart (the larger of Options.Interval and SetInterval's). When nothing
// may be taken, Take says how long until something is due; ErrOver means
// nothing is queued and no lease is out, ErrStopped that Stop was called.
// The seen set holds the 64-bit xxHash of each canonical URL (URLHash),
// not the URL.
//
// # Implementations
//
// Memory is the state of one process in memory (a plain run).
//
// Bolt keeps it in a bbolt database (go.etcd.io/bbolt) in a state
// directory: every call that changes what must survive returns only once
// its change is committed and fsynced, so after SIGKILL or a power cut a
// reopen finds every acknowledged URL queued or done; leases are not
// stored (a URL leased and not done is queued again on reopen), so Take
// and Renew write nothing. Changes made by concurrent calls while a
// commit runs share the next transaction, in the order they were made
// (group commit: one fsync for many workers). bbolt
// rather than Pebble: the state is small (bytes per URL), writes are one
// small transaction per call, and bbolt is one pure-Go file with a file
// lock that keeps a second process out, where Pebble is a log-structured
// tree of many files with compactions in the background, built for write
// volumes a crawler's frontier does not have. Layout, one bucket each:
//
//	seen    8-byte big-endian URL hash -> empty
//	queue   8-byte sequence -> Entry as JSON (queued and leased URLs; deleted at Done)
//	hosts   host -> {interval, notBefore, done, failed} as JSON
//	meta    done, failed (8 bytes each), stop
//	robots  host -> 8-byte expiry (Unix ns) + body
//
// Redis is shared by any number of workers in any number of processes
// (github.com/redis/go-redis/v9, Redis 5 or later). Every operation is one
// Lua script, so atomic on the server, and timed by the server's clock
// (TIME), so workers need not agree on the time. All keys of crawl C are
// under "{C}:", one hash tag, so that one script may touch them all in
// Redis Cluster too (one slot per crawl):
//
//	{C}:meta          hash: epoch, shards, perhost, interval (ms), stop
//	{C}:stats         hash: queued, leased, done, failed, seen, expired
//	{C}:seen:N        set of signed 64-bit URL hashes, N = hash mod shards
//	{C}:q:HOST        sorted set: Entry JSON (host left out), score depth·2³² + sequence
//	{C}:delayed       sorted set: HOST \t score \t JSON, score = ready time (ms)
//	{C}:sched         sorted set: hosts with a URL queued and a connection free, score = next allowed time (ms)
//	{C}:h:HOST        hash: active, next, notbefore, interval, queued, done, failed
//	{C}:hosts         set of hosts (for Stats)
//	{C}:leases        sorted set: lease id, score = expiry (ms)
//	{C}:ldata         hash: lease id -> HOST \t score \t worker \t JSON
//	{C}:freed         set of lease ids whose host connection Free gave back
//	{C}:digests       hash: payload digest -> its first durable capture (Digest, SetDigest)
//	{C}:seq, {C}:lseq counters of entries and leases
//	{C}:robots:HOST   robots.txt body with a TTL
//
// The first worker to open a crawl fixes PerHost, Interval and the number
// of seen shards in {C}:meta with a random epoch; every script checks the
// epoch first. A server that lost the crawl (restarted with --save ""
// and no append-only file, flushed) answers every call with ErrStateLost
// rather than passing for a finished crawl (an empty queue, no lease),
// which would make every worker exit 0 with the crawl half done. Run the
// server with an append-only file (appendfsync everysec or always) for a
// crawl that must survive a restart of Redis; while it is down, calls
// fail with an error naming the server and work again once it is back.
//
// # Throughput
//
// BenchmarkTakeDone and BenchmarkRedisTakeDone, on 2 shared cores: Memory
// about 600,000 Take+Done pairs a second; Bolt about 1,700 from 8
// goroutines (600 from one: an fsync each); Redis 7.0 on loopback about
// 9,000 from one client and 15,000 from 8.
//
// # Memory in Redis
//
// Measured by TestRedisMemory on Redis 7.0 (INFO used_memory, one million
// URLs of about 55 bytes over 100 hosts, added in pipelined batches of
// 500): the seen set costs 9.7 bytes per URL, because each of the 4096
// shards holds a few hundred integers and Redis keeps such a set as a
// sorted integer array (intset, 8 bytes a member, up to
// set-max-intset-entries = 512 members). While a URL is queued it costs
// about 185 bytes more (its JSON in a sorted set): 195 bytes per URL with
// all million queued. A shard that grows past 512 members becomes a hash
// table (about 50-60 bytes a member), so give RedisOptions.Shards about
// one shard per 256 URLs expected: 400,000 shards for 100 million URLs
// keep the seen set near 1 GB. Past one server, the crawl's keys live in
// one Redis Cluster slot by design (one script sees the whole schedule);
// to spread a 100-million-URL crawl, move the seen shards and queues to
// per-host hash tags ({C:HOST}) with the schedule in {C}, at the price of
// an enqueue that is no longer one atomic step, or run one crawl id per
// group of hosts.
//
// Two URLs hash alike with probability about n²/2⁶⁵ in a crawl of n URLs
// (3·10⁻⁸ at a million, 3·10⁻⁴ at a hundred million); the second is then
// taken for seen and not fetched.
package frontier
