package frontier

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/arcport/arcport/lib/frontier/redistest"
)

// impl opens a fresh frontier of one kind; client opens one more client
// of the same crawl (another worker), or the same frontier where there is
// only one process.
type impl struct {
	name string
	open func(t *testing.T, o Options) (f Frontier, client func() Frontier)
}

var crawlSeq int

func impls() []impl {
	return []impl{
		{"memory", func(t *testing.T, o Options) (Frontier, func() Frontier) {
			f := NewMemory(o)
			t.Cleanup(func() { f.Close() })
			return f, func() Frontier { return f }
		}},
		{"bolt", func(t *testing.T, o Options) (Frontier, func() Frontier) {
			f, err := OpenBolt(filepath.Join(t.TempDir(), "state"), o)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { f.Close() })
			return f, func() Frontier { return f }
		}},
		{"redis", func(t *testing.T, o Options) (Frontier, func() Frontier) {
			srv := redistest.Start(t, redistest.Options{})
			crawlSeq++
			id := fmt.Sprintf("test-%d", crawlSeq)
			dial := func() Frontier {
				f, err := DialRedis(context.Background(), "redis://"+srv.Addr+"/0", RedisOptions{Options: o, CrawlID: id})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { f.Close() })
				return f
			}
			return dial(), dial
		}},
	}
}

// each runs test against every implementation.
func each(t *testing.T, o Options, test func(t *testing.T, f Frontier, client func() Frontier)) {
	for _, im := range impls() {
		t.Run(im.name, func(t *testing.T) {
			f, client := im.open(t, o)
			test(t, f, client)
		})
	}
}

var bg = context.Background()

func mustAdd(t *testing.T, f Frontier, want int, es ...Entry) {
	t.Helper()
	n, err := f.Add(bg, es...)
	if err != nil {
		t.Fatal(err)
	}
	if n != want {
		t.Fatalf("Add: %d new, want %d", n, want)
	}
}

func mustTake(t *testing.T, f Frontier, worker string) *Lease {
	t.Helper()
	l, wait, err := f.Take(bg, worker)
	if err != nil {
		t.Fatalf("Take: %v", err)
	}
	if l == nil {
		t.Fatalf("Take: nothing, wait %v", wait)
	}
	return l
}

func mustWait(t *testing.T, f Frontier) time.Duration {
	t.Helper()
	l, wait, err := f.Take(bg, "w")
	if err != nil {
		t.Fatalf("Take: %v", err)
	}
	if l != nil {
		t.Fatalf("Take: got %s, want nothing ready", l.URL)
	}
	if wait <= 0 {
		t.Fatalf("Take: wait %v, want > 0", wait)
	}
	return wait
}

func urls(host string, n int) []Entry {
	var es []Entry
	for i := range n {
		es = append(es, Entry{URL: fmt.Sprintf("%s/p%d", host, i)})
	}
	return es
}

func TestAddSeen(t *testing.T) {
	each(t, Options{PerHost: 10}, func(t *testing.T, f Frontier, _ func() Frontier) {
		mustAdd(t, f, 2, Entry{URL: "http://a/1"}, Entry{URL: "http://a/2"}, Entry{URL: "http://a/1"})
		mustAdd(t, f, 0, Entry{URL: "http://a/2"})
		l := mustTake(t, f, "w")
		if err := f.Done(bg, l, Fetched); err != nil {
			t.Fatal(err)
		}
		// a done URL is still seen
		mustAdd(t, f, 0, Entry{URL: l.URL})
		s, err := f.Stats(bg)
		if err != nil {
			t.Fatal(err)
		}
		if s.Seen != 2 || s.Queued != 1 || s.Done != 1 || s.Leased != 0 {
			t.Fatalf("stats %+v", s)
		}
		if h := s.Hosts["http://a"]; h.Queued != 1 || h.Done != 1 {
			t.Fatalf("host stats %+v", s.Hosts)
		}
	})
}

func TestEntryRoundTrip(t *testing.T) {
	each(t, Options{}, func(t *testing.T, f Frontier, _ func() Frontier) {
		e := Entry{URL: "https://x.example/a?b=1", Depth: 3, Hops: 1, Embedded: true, Via: "https://y/", Redirects: 2,
			Attempt: 1, Seed: true, FromHost: "y", FromDepth: 2, FromHops: 1}
		mustAdd(t, f, 1, e)
		l := mustTake(t, f, "w1")
		e.Host = "https://x.example"
		if l.Entry != e {
			t.Fatalf("took %+v, want %+v", l.Entry, e)
		}
		if l.Worker != "w1" || l.ID == "" || l.Expires.IsZero() {
			t.Fatalf("lease %+v", l)
		}
	})
}

func TestDepthOrder(t *testing.T) {
	each(t, Options{PerHost: 100}, func(t *testing.T, f Frontier, _ func() Frontier) {
		mustAdd(t, f, 5,
			Entry{URL: "http://a/d2a", Depth: 2}, Entry{URL: "http://a/d0a"}, Entry{URL: "http://a/d1a", Depth: 1},
			Entry{URL: "http://a/d0b"}, Entry{URL: "http://a/d2b", Depth: 2})
		var got []string
		for range 5 {
			got = append(got, mustTake(t, f, "w").URL)
		}
		want := []string{"http://a/d0a", "http://a/d0b", "http://a/d1a", "http://a/d2a", "http://a/d2b"}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("order %v, want %v", got, want)
		}
	})
}

func TestOver(t *testing.T) {
	each(t, Options{PerHost: 10}, func(t *testing.T, f Frontier, _ func() Frontier) {
		if _, _, err := f.Take(bg, "w"); !errors.Is(err, ErrOver) {
			t.Fatalf("empty frontier: Take %v, want ErrOver", err)
		}
		mustAdd(t, f, 2, urls("http://a", 2)...)
		l1, l2 := mustTake(t, f, "w"), mustTake(t, f, "w")
		// queue empty but leases out: wait, not over (they may add links)
		mustWait(t, f)
		if over, err := f.Over(bg); err != nil || over {
			t.Fatalf("Over = %v, %v with leases out", over, err)
		}
		if err := f.Done(bg, l1, Fetched); err != nil {
			t.Fatal(err)
		}
		if err := f.Done(bg, l2, Failed); err != nil {
			t.Fatal(err)
		}
		if err := f.Done(bg, l2, Failed); !errors.Is(err, ErrLeaseLost) {
			t.Fatalf("second Done: %v, want ErrLeaseLost", err)
		}
		if over, err := f.Over(bg); err != nil || !over {
			t.Fatalf("Over = %v, %v at the end", over, err)
		}
		if _, _, err := f.Take(bg, "w"); !errors.Is(err, ErrOver) {
			t.Fatalf("Take %v, want ErrOver", err)
		}
		s, _ := f.Stats(bg)
		if s.Done != 2 || s.Failed != 1 || s.Hosts["http://a"].Failed != 1 {
			t.Fatalf("stats %+v", s)
		}
	})
}

func TestPerHostCap(t *testing.T) {
	each(t, Options{PerHost: 2}, func(t *testing.T, f Frontier, client func() Frontier) {
		mustAdd(t, f, 5, urls("http://a", 5)...)
		mustAdd(t, f, 1, urls("http://b", 1)...)
		g := client()
		var a []*Lease
		hosts := map[string]int{}
		for _, c := range []Frontier{f, g, f} {
			l := mustTake(t, c, "w")
			hosts[l.Host]++
			if l.Host == "http://a" {
				a = append(a, l)
			}
		}
		if hosts["http://a"] != 2 || hosts["http://b"] != 1 {
			t.Fatalf("took %v, want 2 of a and 1 of b", hosts)
		}
		mustWait(t, g)
		if err := g.Done(bg, a[0], Fetched); err != nil {
			t.Fatal(err)
		}
		if l := mustTake(t, g, "w"); l.Host != "http://a" {
			t.Fatalf("took %s", l.URL)
		}
		mustWait(t, f)
	})
}

// TestFree: Free gives a lease's host connection back at once; the lease
// stays (Done and Release still work on it, and do not give the
// connection back twice), and it still expires.
func TestFree(t *testing.T) {
	each(t, Options{PerHost: 1, Lease: 2 * time.Second}, func(t *testing.T, f Frontier, client func() Frontier) {
		mustAdd(t, f, 4, urls("http://a", 4)...)
		g := client()
		l1 := mustTake(t, f, "w")
		mustWait(t, g)
		if err := f.Free(bg, l1); err != nil {
			t.Fatal(err)
		}
		if err := g.Free(bg, l1); err != nil { // twice: a no-op
			t.Fatal(err)
		}
		l2 := mustTake(t, g, "w") // the connection l1 gave back
		mustWait(t, f)
		if err := f.Done(bg, l1, Fetched); err != nil {
			t.Fatal(err)
		}
		mustWait(t, f) // l1's Done gives nothing back: l2 holds the host
		if err := g.Done(bg, l2, Fetched); err != nil {
			t.Fatal(err)
		}
		l3 := mustTake(t, f, "w")
		if err := f.Free(bg, l3); err != nil {
			t.Fatal(err)
		}
		l4 := mustTake(t, g, "w")
		if err := g.Release(bg, l3); err != nil { // freed, then released: queued again
			t.Fatal(err)
		}
		mustWait(t, f) // l4 holds the host
		if err := f.Done(bg, l4, Fetched); err != nil {
			t.Fatal(err)
		}
		l5 := mustTake(t, f, "w")
		if l5.URL != l3.URL {
			t.Fatalf("took %s, want the released %s", l5.URL, l3.URL)
		}
		if err := f.Free(bg, l5); err != nil {
			t.Fatal(err)
		}
		// a freed lease still expires: its URL comes back
		time.Sleep(2500 * time.Millisecond)
		l6 := mustTake(t, g, "w")
		if l6.URL != l3.URL {
			t.Fatalf("after expiry took %s, want %s", l6.URL, l3.URL)
		}
		if err := f.Done(bg, l5, Fetched); !errors.Is(err, ErrLeaseLost) {
			t.Fatalf("Done of an expired freed lease: %v", err)
		}
		if err := g.Done(bg, l6, Fetched); err != nil {
			t.Fatal(err)
		}
		if over, _ := f.Over(bg); !over {
			st, _ := f.Stats(bg)
			t.Fatalf("not over: %+v", st)
		}
		if st, _ := f.Stats(bg); st.Hosts["http://a"].Leased != 0 {
			t.Fatalf("host a still has %d connections in use", st.Hosts["http://a"].Leased)
		}
	})
}

func TestInterval(t *testing.T) {
	each(t, Options{PerHost: 5, Interval: time.Hour}, func(t *testing.T, f Frontier, client func() Frontier) {
		mustAdd(t, f, 2, urls("http://a", 2)...)
		mustAdd(t, f, 1, urls("http://b", 1)...)
		g := client()
		l := mustTake(t, f, "w")
		if err := f.Done(bg, l, Fetched); err != nil {
			t.Fatal(err)
		}
		// the other host is served; the same host waits out the interval,
		// whichever client asks
		l2 := mustTake(t, g, "w")
		if l2.Host == l.Host {
			t.Fatalf("took %s right after %s", l2.URL, l.URL)
		}
		if err := g.Done(bg, l2, Fetched); err != nil { // no lease to wait for
			t.Fatal(err)
		}
		if w := mustWait(t, g); w < 59*time.Minute || w > time.Hour {
			t.Fatalf("wait %v, want about an hour", w)
		}
	})
}

func TestSetIntervalAndDelay(t *testing.T) {
	each(t, Options{PerHost: 5}, func(t *testing.T, f Frontier, client func() Frontier) {
		mustAdd(t, f, 2, urls("http://a", 2)...)
		mustAdd(t, f, 2, urls("http://b", 2)...)
		g := client()
		if err := f.SetInterval(bg, "http://a", 2*time.Hour); err != nil {
			t.Fatal(err)
		}
		if err := f.Delay(bg, "http://b", time.Now().Add(3*time.Hour)); err != nil {
			t.Fatal(err)
		}
		l := mustTake(t, g, "w")
		if l.Host != "http://a" {
			t.Fatalf("took %s from a delayed host", l.URL)
		}
		if err := g.Done(bg, l, Fetched); err != nil {
			t.Fatal(err)
		}
		w := mustWait(t, g)
		if w < 119*time.Minute || w > 2*time.Hour {
			t.Fatalf("wait %v, want about 2 h (crawl delay of a)", w)
		}
	})
}

func TestReleaseRetry(t *testing.T) {
	each(t, Options{PerHost: 5}, func(t *testing.T, f Frontier, _ func() Frontier) {
		mustAdd(t, f, 1, urls("http://a", 1)...)
		l := mustTake(t, f, "w")
		l.Attempt++
		l.ReadyAt = time.Now().Add(time.Hour)
		if err := f.Release(bg, l); err != nil {
			t.Fatal(err)
		}
		if err := f.Release(bg, l); !errors.Is(err, ErrLeaseLost) {
			t.Fatalf("second Release: %v", err)
		}
		if w := mustWait(t, f); w < 59*time.Minute {
			t.Fatalf("retry due in %v, want about 1 h", w)
		}
		s, _ := f.Stats(bg)
		if s.Queued != 1 || s.Leased != 0 || s.Hosts["http://a"].Queued != 1 {
			t.Fatalf("stats %+v", s)
		}
		if over, _ := f.Over(bg); over {
			t.Fatal("over with a retry waiting")
		}
		// a retry due at once is taken again, with what the caller changed
		mustAdd(t, f, 1, urls("http://b", 1)...)
		lb := mustTake(t, f, "w")
		orig := lb.URL
		lb.Attempt = 2
		lb.URL = "http://elsewhere/x" // ignored: the URL is the lease's
		if err := f.Release(bg, lb); err != nil {
			t.Fatal(err)
		}
		lb2 := mustTake(t, f, "w")
		if lb2.URL != orig || lb2.Host != "http://b" || lb2.Attempt != 2 {
			t.Fatalf("retook %+v", lb2.Entry)
		}
	})
}

func TestLeaseExpiry(t *testing.T) {
	each(t, Options{PerHost: 1, Lease: 300 * time.Millisecond}, func(t *testing.T, f Frontier, client func() Frontier) {
		mustAdd(t, f, 1, urls("http://a", 1)...)
		l := mustTake(t, f, "dies")
		g := client()
		// nobody renews: after the lease another worker gets the URL
		ctx, cancel := context.WithTimeout(bg, time.Minute) // a guard, not a timing
		defer cancel()
		l2, err := Next(ctx, g, "lives", 50*time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		if l2.URL != l.URL || l2.Worker != "lives" {
			t.Fatalf("reclaimed %+v", l2)
		}
		if err := f.Done(bg, l, Fetched); !errors.Is(err, ErrLeaseLost) {
			t.Fatalf("Done of an expired lease: %v, want ErrLeaseLost", err)
		}
		if err := f.Renew(bg, l); !errors.Is(err, ErrLeaseLost) {
			t.Fatalf("Renew of an expired lease: %v, want ErrLeaseLost", err)
		}
		if err := g.Done(bg, l2, Fetched); err != nil {
			t.Fatal(err)
		}
		s, _ := g.Stats(bg)
		if s.Expired != 1 || s.Done != 1 {
			t.Fatalf("stats %+v", s)
		}
	})
}

func TestRenew(t *testing.T) {
	each(t, Options{PerHost: 1, Lease: time.Second}, func(t *testing.T, f Frontier, client func() Frontier) {
		mustAdd(t, f, 1, urls("http://a", 1)...)
		l := mustTake(t, f, "w")
		first := l.Expires
		time.Sleep(600 * time.Millisecond)
		if err := f.Renew(bg, l); err != nil {
			t.Fatal(err)
		}
		if !l.Expires.After(first) {
			t.Fatalf("Renew: expires %v, was %v", l.Expires, first)
		}
		time.Sleep(600 * time.Millisecond) // past the first expiry
		mustWait(t, client())
		if err := f.Done(bg, l, Fetched); err != nil {
			t.Fatalf("Done after renewing: %v", err)
		}
	})
}

func TestStop(t *testing.T) {
	each(t, Options{PerHost: 5}, func(t *testing.T, f Frontier, client func() Frontier) {
		mustAdd(t, f, 3, urls("http://a", 3)...)
		l := mustTake(t, f, "w")
		g := client()
		if err := g.Stop(bg); err != nil {
			t.Fatal(err)
		}
		if _, _, err := f.Take(bg, "w"); !errors.Is(err, ErrStopped) {
			t.Fatalf("Take after Stop: %v", err)
		}
		if err := f.Done(bg, l, Fetched); err != nil {
			t.Fatalf("Done after Stop: %v", err)
		}
		s, _ := f.Stats(bg)
		if !s.Stopped || s.Queued != 2 {
			t.Fatalf("stats %+v", s)
		}
	})
}

func TestRobotsCache(t *testing.T) {
	each(t, Options{}, func(t *testing.T, f Frontier, client func() Frontier) {
		if _, ok, err := f.Robots(bg, "http://a"); ok || err != nil {
			t.Fatalf("Robots of an unknown host: %v %v", ok, err)
		}
		if err := f.SetRobots(bg, "http://a", []byte("User-agent: *\nDisallow: /x\n"), time.Hour); err != nil {
			t.Fatal(err)
		}
		if err := f.SetRobots(bg, "http://b", []byte("x"), 100*time.Millisecond); err != nil {
			t.Fatal(err)
		}
		b, ok, err := client().Robots(bg, "http://a")
		if err != nil || !ok || string(b) != "User-agent: *\nDisallow: /x\n" {
			t.Fatalf("Robots: %q %v %v", b, ok, err)
		}
		time.Sleep(300 * time.Millisecond)
		if _, ok, _ := f.Robots(bg, "http://b"); ok {
			t.Fatal("robots.txt cached past its TTL")
		}
	})
}

// sorted returns the keys of m in order.
func sorted(m map[string]int) []string {
	var s []string
	for k := range m {
		s = append(s, k)
	}
	sort.Strings(s)
	return s
}

// The Redis frontier marks many leases done in one step (one MULTI/EXEC
// round trip): renaming or changing Redis.DoneAll breaks the build of these
// tests.
var _ BatchDoner = (*Redis)(nil)

// batchDoners says which implementations are BatchDoners: the crawler
// calls DoneAll on those and Done per lease on the others.
var batchDoners = map[string]bool{"memory": false, "bolt": false, "redis": true}

// TestDoneAll: a frontier that marks leases done in one step does what
// Done does for each, says which lease was lost, and a lost one changes
// nothing. The Redis frontier must be one; memory and bolt are not, and
// Done per lease (what lib/crawl does for them) gives the same result.
func TestDoneAll(t *testing.T) {
	each(t, Options{PerHost: 4, Lease: 2 * time.Second}, func(t *testing.T, f Frontier, client func() Frontier) {
		name := t.Name()[strings.LastIndexByte(t.Name(), '/')+1:]
		want, known := batchDoners[name]
		if !known {
			t.Fatalf("%s: say in batchDoners whether it is a BatchDoner", name)
		}
		bd, ok := f.(BatchDoner)
		if ok != want {
			t.Fatalf("%T: BatchDoner %v, want %v", f, ok, want)
		}
		doneAll := func(ls []*Lease, outs []Outcome) ([]error, error) {
			if ok {
				return bd.DoneAll(bg, ls, outs)
			}
			errs := make([]error, len(ls))
			for i, l := range ls {
				errs[i] = f.Done(bg, l, outs[i])
			}
			return errs, nil
		}
		mustAdd(t, f, 4, urls("http://a", 4)...)
		var ls []*Lease
		for range 3 {
			ls = append(ls, mustTake(t, f, "w"))
		}
		if err := client().Done(bg, ls[1], Fetched); err != nil { // done already: lost for DoneAll
			t.Fatal(err)
		}
		errs, err := doneAll(ls, []Outcome{Fetched, Fetched, Failed})
		if err != nil {
			t.Fatal(err)
		}
		if len(errs) != 3 || errs[0] != nil || !errors.Is(errs[1], ErrLeaseLost) || errs[2] != nil {
			t.Fatalf("errs %v", errs)
		}
		st, err := f.Stats(bg)
		if err != nil {
			t.Fatal(err)
		}
		if st.Done != 3 || st.Failed != 1 || st.Leased != 0 || st.Queued != 1 {
			t.Fatalf("stats %+v", st)
		}
		if ok {
			if _, err := bd.DoneAll(bg, ls[:1], nil); err == nil {
				t.Fatal("DoneAll with outcomes missing: no error")
			}
		}
	})
}

// TestStatsManyHosts: Stats lists every host of a crawl with more hosts
// than one round of Redis's host scan (1000), with its counters.
func TestStatsManyHosts(t *testing.T) {
	each(t, Options{PerHost: 1}, func(t *testing.T, f Frontier, _ func() Frontier) {
		var es []Entry
		for i := range 2500 {
			es = append(es, Entry{URL: fmt.Sprintf("http://h%d.example/", i)}, Entry{URL: fmt.Sprintf("http://h%d.example/2", i)})
		}
		mustAdd(t, f, len(es), es...)
		l := mustTake(t, f, "w")
		if err := f.Done(bg, l, Failed); err != nil {
			t.Fatal(err)
		}
		s, err := f.Stats(bg)
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Hosts) != 2500 || s.Queued != 4999 || s.Done != 1 {
			t.Fatalf("%d hosts, %d queued, %d done; want 2500, 4999, 1", len(s.Hosts), s.Queued, s.Done)
		}
		for i := range 2500 {
			h := s.Hosts[fmt.Sprintf("http://h%d.example", i)]
			if h.Queued+h.Done != 2 {
				t.Fatalf("host %d: %+v", i, h)
			}
		}
	})
}
