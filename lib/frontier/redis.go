package frontier

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// RedisOptions are the settings of a Redis frontier.
type RedisOptions struct {
	Options
	// CrawlID names the crawl: every key is under "{CrawlID}:" (one hash
	// tag, so one Redis Cluster slot).
	CrawlID string
	// Shards is how many sets the seen set is spread over (default
	// 4096). Each shard stays in Redis's compact integer-set encoding up
	// to set-max-intset-entries (512) members, 8 bytes a URL; give about
	// one shard per 256 URLs expected.
	Shards int
}

// DefaultShards is the number of seen-set shards when RedisOptions.Shards
// is zero: compact up to about 1.5 million URLs.
const DefaultShards = 4096

// Redis is the frontier shared by many workers through a Redis server.
// The first worker to open a crawl fixes its settings (PerHost, Interval,
// Shards); later ones take them from the server. Every operation is one
// Lua script, atomic on the server, timed by the server's clock.
type Redis struct {
	rdb    redis.UniversalClient
	own    bool
	p      string // key prefix "{crawl}:"
	epoch  string
	shards uint64
	o      Options
	addr   string
}

// DialRedis connects to the server of url (redis://[:PASSWORD@]HOST:PORT/DB)
// and opens crawl ro.CrawlID there; Close closes the connection.
func DialRedis(ctx context.Context, url string, ro RedisOptions) (*Redis, error) {
	opt, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("frontier %s: %w", redactURL(url), err)
	}
	rdb := redis.NewClient(opt)
	r, err := OpenRedis(ctx, rdb, ro)
	if err != nil {
		rdb.Close()
		return nil, err
	}
	r.own = true
	return r, nil
}

// redactURL drops a password from a redis:// URL for messages.
func redactURL(u string) string {
	if i := strings.Index(u, "@"); i >= 0 {
		if j := strings.Index(u, "://"); j >= 0 && j < i {
			return u[:j+3] + "***" + u[i:]
		}
	}
	return u
}

// OpenRedis opens crawl ro.CrawlID on rdb, creating its state when the
// server has none.
func OpenRedis(ctx context.Context, rdb redis.UniversalClient, ro RedisOptions) (*Redis, error) {
	if ro.CrawlID == "" || strings.ContainsAny(ro.CrawlID, "{}") {
		return nil, fmt.Errorf("frontier: bad crawl id %q", ro.CrawlID)
	}
	o := ro.Options.withDefaults()
	shards := ro.Shards
	if shards <= 0 {
		shards = DefaultShards
	}
	var rb [16]byte
	rand.Read(rb[:])
	r := &Redis{rdb: rdb, p: "{" + ro.CrawlID + "}:", o: o, addr: addrOf(rdb)}
	res, err := scInit.Run(ctx, rdb, []string{r.p + "meta"}, r.p, hex.EncodeToString(rb[:]),
		shards, o.PerHost, ceilMs(o.Interval)).StringSlice()
	if err != nil {
		return nil, r.wrap("open", err)
	}
	r.epoch = res[0]
	n, _ := strconv.ParseUint(res[1], 10, 64)
	r.shards = max(n, 1)
	if v, err := strconv.Atoi(res[2]); err == nil {
		r.o.PerHost = v
	}
	if v, err := strconv.ParseInt(res[3], 10, 64); err == nil {
		r.o.Interval = time.Duration(v) * time.Millisecond
	}
	return r, nil
}

func addrOf(rdb redis.UniversalClient) string {
	if c, ok := rdb.(*redis.Client); ok {
		return c.Options().Addr
	}
	return "redis"
}

// Settings returns the crawl's settings as the server holds them.
func (r *Redis) Settings() (Options, int) { return r.o, int(r.shards) }

func (r *Redis) wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	if strings.Contains(err.Error(), "STATELOST") {
		return fmt.Errorf("frontier redis %s %s: %w", r.addr, op, ErrStateLost)
	}
	return fmt.Errorf("frontier redis %s %s: %w", r.addr, op, err)
}

func (r *Redis) run(ctx context.Context, s *redis.Script, op string, args ...any) *redis.Cmd {
	cmd := s.Run(ctx, r.rdb, []string{r.p + "meta"}, append([]any{r.p, r.epoch}, args...)...)
	if err := cmd.Err(); err != nil && !errors.Is(err, redis.Nil) {
		cmd.SetErr(r.wrap(op, err))
	}
	return cmd
}

// msUntil returns the milliseconds until t, rounded up: an entry due at t
// (a server's Retry-After) must not become ready before it.
func msUntil(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return ceilMs(time.Until(t))
}

// ceilMs returns d in whole milliseconds, rounded up, and 0 for d <= 0.
func ceilMs(d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	return int64((d + time.Millisecond - 1) / time.Millisecond)
}

// Add implements Frontier. Entries go in one script call per 500.
func (r *Redis) Add(ctx context.Context, entries ...Entry) (int, error) {
	total := 0
	for len(entries) > 0 {
		n := min(len(entries), 500)
		args, err := r.addArgs(entries[:n])
		if err != nil {
			return total, err
		}
		k, err := r.run(ctx, scAdd, "add", args...).Int()
		if err != nil {
			return total, err
		}
		total += k
		entries = entries[n:]
	}
	return total, nil
}

func (r *Redis) addArgs(entries []Entry) ([]any, error) {
	args := make([]any, 0, 6*len(entries))
	for _, e := range entries {
		if e.Host == "" {
			e.Host = HostOf(e.URL)
		}
		if strings.Contains(e.Host, "\t") {
			return nil, fmt.Errorf("frontier: host %q has a tab", e.Host)
		}
		delay := msUntil(e.ReadyAt)
		host := e.Host
		e.ReadyAt, e.Host = time.Time{}, "" // the host is in the key
		js, err := json.Marshal(e)
		if err != nil {
			return nil, err
		}
		h := URLHash(e.URL)
		args = append(args, strconv.FormatUint(h%r.shards, 10), strconv.FormatInt(int64(h), 10),
			host, min(max(e.Depth, 0), 20000), delay, js)
	}
	return args, nil
}

// Take implements Frontier.
func (r *Redis) Take(ctx context.Context, worker string) (*Lease, time.Duration, error) {
	res, err := r.run(ctx, scTake, "take", r.o.Lease.Milliseconds(), worker).StringSlice()
	if err != nil {
		return nil, 0, err
	}
	switch res[0] {
	case "stop":
		return nil, 0, ErrStopped
	case "over":
		return nil, 0, ErrOver
	case "wait":
		ms, _ := strconv.ParseInt(res[1], 10, 64)
		return nil, time.Duration(max(ms, 1)) * time.Millisecond, nil
	}
	l := &Lease{ID: res[1], Worker: worker}
	if err := json.Unmarshal([]byte(res[2]), &l.Entry); err != nil {
		return nil, 0, fmt.Errorf("frontier redis %s take: lease %s: %w", r.addr, l.ID, err)
	}
	exp, _ := strconv.ParseInt(res[3], 10, 64)
	l.Expires = time.UnixMilli(exp)
	l.Host = res[4]
	return l, 0, nil
}

// Renew implements Frontier.
func (r *Redis) Renew(ctx context.Context, l *Lease) error {
	v, err := r.run(ctx, scRenew, "renew", l.ID, r.o.Lease.Milliseconds()).Int64()
	if errors.Is(err, redis.Nil) {
		return ErrLeaseLost
	}
	if err != nil {
		return err
	}
	l.Expires = time.UnixMilli(v)
	return nil
}

// Digest returns the value stored for payload digest d (by SetDigest), ""
// if none: deduplication across all workers of a crawl. Key {C}:digests,
// a hash: digest -> value.
func (r *Redis) Digest(ctx context.Context, d string) (string, error) {
	v, err := r.run(ctx, scDigest, "digest", d).Text()
	if errors.Is(err, redis.Nil) {
		return "", nil
	}
	return v, err
}

// SetDigest stores value for payload digest d unless one is there: call it
// once the capture value names is durable, so that no revisit refers to a
// record a killed worker never completed.
func (r *Redis) SetDigest(ctx context.Context, d, value string) error {
	return r.run(ctx, scSetDigest, "digest", d, value).Err()
}

// Free implements Frontier.
func (r *Redis) Free(ctx context.Context, l *Lease) error {
	v, err := r.run(ctx, scFree, "free", l.ID).Int()
	if err != nil {
		return err
	}
	if v == 0 {
		return ErrLeaseLost
	}
	return nil
}

// Done implements Frontier.
func (r *Redis) Done(ctx context.Context, l *Lease, o Outcome) error {
	f := 0
	if o == Failed {
		f = 1
	}
	v, err := r.run(ctx, scDone, "done", l.ID, f).Int()
	if err != nil {
		return err
	}
	if v == 0 {
		return ErrLeaseLost
	}
	return nil
}

// DoneAll implements BatchDoner: the done script for every lease inside
// one MULTI/EXEC, so that all apply at once or none does.
func (r *Redis) DoneAll(ctx context.Context, ls []*Lease, outs []Outcome) ([]error, error) {
	if len(ls) != len(outs) {
		return nil, fmt.Errorf("frontier: DoneAll: %d leases, %d outcomes", len(ls), len(outs))
	}
	cmds := make([]*redis.Cmd, len(ls))
	_, err := r.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		for i, l := range ls {
			f := 0
			if outs[i] == Failed {
				f = 1
			}
			cmds[i] = scDone.Eval(ctx, p, []string{r.p + "meta"}, r.p, r.epoch, l.ID, f)
		}
		return nil
	})
	if err != nil {
		// a script's own error (the crawl state lost) shows here too
		for _, c := range cmds {
			if c != nil && c.Err() != nil && !errors.Is(c.Err(), redis.Nil) {
				return nil, r.wrap("done", c.Err())
			}
		}
		return nil, r.wrap("done", err)
	}
	errs := make([]error, len(ls))
	for i, c := range cmds {
		v, err := c.Int()
		switch {
		case err != nil:
			errs[i] = r.wrap("done", err)
		case v == 0:
			errs[i] = ErrLeaseLost
		}
	}
	return errs, nil
}

// Release implements Frontier.
func (r *Redis) Release(ctx context.Context, l *Lease) error {
	e := l.Entry
	delay := msUntil(e.ReadyAt)
	e.ReadyAt, e.Host = time.Time{}, ""
	js, err := json.Marshal(e)
	if err != nil {
		return err
	}
	v, err := r.run(ctx, scRelease, "release", l.ID, js, delay).Int()
	if err != nil {
		return err
	}
	if v == 0 {
		return ErrLeaseLost
	}
	return nil
}

// Delay implements Frontier.
func (r *Redis) Delay(ctx context.Context, host string, until time.Time) error {
	return r.run(ctx, scDelay, "delay", host, msUntil(until)).Err()
}

// SetInterval implements Frontier.
func (r *Redis) SetInterval(ctx context.Context, host string, d time.Duration) error {
	return r.run(ctx, scInterval, "interval", host, ceilMs(d)).Err()
}

// Robots implements Frontier.
func (r *Redis) Robots(ctx context.Context, host string) ([]byte, bool, error) {
	b, err := r.rdb.Get(ctx, r.p+"robots:"+host).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, r.wrap("robots", err)
	}
	return b, true, nil
}

// SetRobots implements Frontier.
func (r *Redis) SetRobots(ctx context.Context, host string, body []byte, ttl time.Duration) error {
	return r.wrap("robots", r.rdb.Set(ctx, r.p+"robots:"+host, body, ttl).Err())
}

// Stats implements Frontier.
func (r *Redis) Stats(ctx context.Context) (Stats, error) {
	res, err := r.run(ctx, scStats, "stats").Slice()
	if err != nil {
		return Stats{}, err
	}
	num := func(v any) int64 {
		switch x := v.(type) {
		case int64:
			return x
		case string:
			n, _ := strconv.ParseInt(x, 10, 64)
			return n
		}
		return 0
	}
	g := res[0].([]any)
	s := Stats{Queued: num(g[0]), Leased: num(g[1]), Done: num(g[2]), Failed: num(g[3]),
		Seen: num(g[4]), Expired: num(g[5]), Stopped: num(g[6]) == 1, Hosts: map[string]HostStats{}}
	// Per-host counters are read outside the script, 1000 hosts a round
	// trip: a script over every host of a large crawl would hold the server
	// (and every worker) for as long as it runs.
	var cursor uint64
	for {
		hosts, next, err := r.rdb.SScan(ctx, r.p+"hosts", cursor, "", 1000).Result()
		if err != nil {
			return Stats{}, r.wrap("stats", err)
		}
		if len(hosts) > 0 {
			pipe := r.rdb.Pipeline()
			cmds := make([]*redis.SliceCmd, len(hosts))
			for i, h := range hosts {
				cmds[i] = pipe.HMGet(ctx, r.p+"h:"+h, "queued", "active", "done", "failed")
			}
			if _, err := pipe.Exec(ctx); err != nil && err != redis.Nil {
				return Stats{}, r.wrap("stats", err)
			}
			for i, h := range hosts {
				v := cmds[i].Val()
				if len(v) < 4 {
					continue
				}
				s.Hosts[h] = HostStats{Queued: num(v[0]), Leased: num(v[1]), Done: num(v[2]), Failed: num(v[3])}
			}
		}
		if cursor = next; cursor == 0 {
			return s, nil
		}
	}
}

// Stop implements Frontier.
func (r *Redis) Stop(ctx context.Context) error {
	return r.run(ctx, scStop, "stop").Err()
}

// Over implements Frontier.
func (r *Redis) Over(ctx context.Context) (bool, error) {
	v, err := r.run(ctx, scOver, "over").Int()
	return v == 1, err
}

// Close implements Frontier; it closes the client when DialRedis made it.
// The crawl's state stays on the server.
func (r *Redis) Close() error {
	if r.own {
		return r.rdb.Close()
	}
	return nil
}

// Prefix returns the key prefix of the crawl ("{crawl}:").
func (r *Redis) Prefix() string { return r.p }

// quietLogger keeps go-redis's own log lines (dial retries) off stderr:
// errors reach the user through the frontier's, one line each.
type quietLogger struct{}

func (quietLogger) Printf(context.Context, string, ...any) {}

func init() { redis.SetLogger(quietLogger{}) }
