package frontier

import (
	"fmt"
	"log"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/arcport/arcport/lib/frontier/redistest"
)

func TestMain(m *testing.M) {
	log.SetOutput(os.Stderr)
	os.Exit(m.Run())
}

func usedMemory(t testing.TB, rdb *redis.Client) int64 {
	t.Helper()
	info, err := rdb.Info(bg, "memory").Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(line, "used_memory:"); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatal("INFO memory: no used_memory")
	return 0
}

// TestRedisMemory adds a million distinct URLs (100 hosts) in pipelined
// batches of 500 and measures the server's used_memory: in all, while
// queued, and for the seen set alone (what stays once the URLs are done:
// the queues deleted). Skipped with -short.
func TestRedisMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a million URLs")
	}
	const n, batch, perPipe = 1_000_000, 500, 10 * 500
	srv := redistest.Start(t, redistest.Options{})
	// a pipeline of 10,000 URLs may take seconds on a loaded machine
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr, ReadTimeout: 5 * time.Minute})
	defer rdb.Close()
	f, err := OpenRedis(bg, rdb, RedisOptions{CrawlID: "mem"})
	if err != nil {
		t.Fatal(err)
	}
	if err := scAdd.Load(bg, rdb).Err(); err != nil {
		t.Fatal(err)
	}
	before := usedMemory(t, rdb)
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				start := next.Add(perPipe) - perPipe
				if start >= n {
					return
				}
				pipe := rdb.Pipeline()
				for b := start; b < min(start+perPipe, n); b += batch {
					var es []Entry
					for i := b; i < b+batch; i++ {
						es = append(es, Entry{URL: fmt.Sprintf("https://www.host%d.example.com/section/%d/page-%d.html", i%100, i/1000, i), Depth: int(i % 5)})
					}
					args, _ := f.addArgs(es)
					scAdd.EvalSha(bg, pipe, []string{f.p + "meta"}, append([]any{f.p, f.epoch}, args...)...)
				}
				cmds, err := pipe.Exec(bg)
				if err != nil {
					errs <- err
					return
				}
				for _, c := range cmds {
					if v, _ := c.(*redis.Cmd).Int(); v != batch {
						errs <- fmt.Errorf("batch added %d of %d", v, batch)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	s, err := f.Stats(bg)
	if err != nil {
		t.Fatal(err)
	}
	if s.Seen != n || s.Queued != n {
		t.Fatalf("stats %+v", s)
	}
	all := usedMemory(t, rdb)
	keys, err := rdb.Keys(bg, f.p+"q:*").Result()
	if err != nil {
		t.Fatal(err)
	}
	if err := rdb.Del(bg, keys...).Err(); err != nil {
		t.Fatal(err)
	}
	seenOnly := usedMemory(t, rdb)
	enc, _ := rdb.ObjectEncoding(bg, f.p+"seen:0").Result()
	t.Logf("%d URLs: used_memory +%d B in all (%.1f B/URL with the queue holding every URL); seen set and counters alone +%d B (%.1f B/URL, shards encoded %s)",
		n, all-before, float64(all-before)/n, seenOnly-before, float64(seenOnly-before)/n, enc)
	if per := float64(seenOnly-before) / n; per > 100 {
		t.Errorf("seen set costs %.1f B/URL, goal at most 100", per)
	}
}

// BenchmarkRedisTakeDone measures Take+Done pairs on one Redis server, URLs
// over 100 hosts, from one client and from 8 goroutines at once.
func BenchmarkRedisTakeDone(b *testing.B) {
	for _, par := range []int{1, 8} {
		b.Run(fmt.Sprintf("clients=%d", par), func(b *testing.B) {
			srv := redistest.Start(b, redistest.Options{})
			f, err := DialRedis(bg, "redis://"+srv.Addr+"/0", RedisOptions{CrawlID: "bench", Options: Options{PerHost: 1000}})
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			var es []Entry
			for i := range b.N {
				es = append(es, Entry{URL: fmt.Sprintf("https://h%d.example/p%d", i%100, i)})
			}
			if _, err := f.Add(bg, es...); err != nil {
				b.Fatal(err)
			}
			var next atomic.Int64
			b.ResetTimer()
			var wg sync.WaitGroup
			for w := range par {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for next.Add(1) <= int64(b.N) {
						l, _, err := f.Take(bg, strconv.Itoa(w))
						if err != nil || l == nil {
							b.Errorf("Take: %v %v", l, err)
							return
						}
						if err := f.Done(bg, l, Fetched); err != nil {
							b.Error(err)
							return
						}
					}
				}()
			}
			wg.Wait()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "takedone/s")
		})
	}
}

// TestRedisKeysUnderCrawlID: every key a crawl writes is under its
// "{crawl}:" prefix (one hash tag: one Redis Cluster slot), and two crawls
// on one server do not see each other.
func TestRedisKeysUnderCrawlID(t *testing.T) {
	srv := redistest.Start(t, redistest.Options{})
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr})
	defer rdb.Close()
	a, err := OpenRedis(bg, rdb, RedisOptions{CrawlID: "a", Options: Options{PerHost: 2}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := OpenRedis(bg, rdb, RedisOptions{CrawlID: "b"})
	if err != nil {
		t.Fatal(err)
	}
	mustAdd(t, a, 3, urls("http://x", 3)...)
	mustAdd(t, b, 3, urls("http://x", 3)...)
	l := mustTake(t, a, "w")
	a.Done(bg, l, Failed)
	l = mustTake(t, a, "w")
	l.ReadyAt = time.Now().Add(time.Hour)
	a.Release(bg, l)
	mustTake(t, a, "w")
	a.Delay(bg, "http://x", time.Now().Add(time.Minute))
	a.SetInterval(bg, "http://x", time.Second)
	a.SetRobots(bg, "http://x", []byte("r"), time.Hour)
	a.Stop(bg)
	keys, err := rdb.Keys(bg, "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if !strings.HasPrefix(k, "{a}:") && !strings.HasPrefix(k, "{b}:") {
			t.Errorf("key %q outside the crawl prefixes", k)
		}
	}
	sb, _ := b.Stats(bg)
	if sb.Queued != 3 || sb.Done != 0 || sb.Stopped {
		t.Fatalf("crawl b sees crawl a: %+v", sb)
	}
	// the second opener of a crawl takes the first one's settings
	a2, err := OpenRedis(bg, rdb, RedisOptions{CrawlID: "a", Options: Options{PerHost: 9}, Shards: 3})
	if err != nil {
		t.Fatal(err)
	}
	if o, shards := a2.Settings(); o.PerHost != 2 || shards != DefaultShards {
		t.Fatalf("second opener settings %+v, %d shards", o, shards)
	}
	t.Logf("keys of a crawl: %v", keys)
}
