package frontier

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"
)

// TestManyWorkers has workers (for Redis: one client each) crawl a tree of
// 1000 URLs over 8 hosts, adding each page's children and some URLs seen
// before, until Take says the crawl is over: every URL is taken exactly
// once and no host ever has more leases out than PerHost.
func TestManyWorkers(t *testing.T) {
	const hosts, perHost, workers, cap = 8, 125, 4, 2
	each(t, Options{PerHost: cap}, func(t *testing.T, f Frontier, client func() Frontier) {
		for h := range hosts {
			mustAdd(t, f, 1, Entry{URL: fmt.Sprintf("http://h%d/p0", h)})
		}
		ctx, cancel := context.WithTimeout(bg, 2*time.Minute) // a guard against a hang, not a timing
		defer cancel()
		var mu sync.Mutex
		taken := map[string]int{}
		active := map[string]int{}
		worst := 0
		var wg sync.WaitGroup
		errs := make(chan error, workers)
		for w := range workers {
			c := client()
			wg.Add(1)
			go func() {
				defer wg.Done()
				name := fmt.Sprintf("w%d", w)
				for {
					l, err := Next(ctx, c, name, 5*time.Millisecond)
					if errors.Is(err, ErrOver) {
						return
					}
					if err != nil {
						errs <- err
						return
					}
					mu.Lock()
					taken[l.URL]++
					active[l.Host]++
					worst = max(worst, active[l.Host])
					mu.Unlock()
					var h, i int
					fmt.Sscanf(l.URL, "http://h%d/p%d", &h, &i)
					var links []Entry
					for _, j := range []int{2*i + 1, 2*i + 2, i, i / 2} {
						if j < perHost {
							links = append(links, Entry{URL: fmt.Sprintf("http://h%d/p%d", h, j), Depth: l.Depth + 1})
						}
					}
					if _, err := c.Add(bg, links...); err != nil {
						errs <- err
						return
					}
					mu.Lock()
					active[l.Host]--
					mu.Unlock()
					if err := c.Done(bg, l, Fetched); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		if len(taken) != hosts*perHost {
			t.Fatalf("%d URLs taken, want %d", len(taken), hosts*perHost)
		}
		for u, n := range taken {
			if n != 1 {
				t.Errorf("%s taken %d times", u, n)
			}
		}
		if worst > cap {
			t.Errorf("a host had %d leases at once, cap %d", worst, cap)
		}
		s, err := f.Stats(bg)
		if err != nil {
			t.Fatal(err)
		}
		if s.Done != hosts*perHost || s.Seen != hosts*perHost || s.Queued != 0 || s.Leased != 0 {
			t.Fatalf("stats %+v", s)
		}
	})
}

// TestIntervalAcrossWorkers: three workers taking from one host with an
// interval: the takes, timed by the frontier's clock (Lease.Expires less
// the lease time), are never closer than the interval.
func TestIntervalAcrossWorkers(t *testing.T) {
	const iv = 50 * time.Millisecond
	each(t, Options{PerHost: 3, Interval: iv}, func(t *testing.T, f Frontier, client func() Frontier) {
		mustAdd(t, f, 12, urls("http://a", 12)...)
		var mu sync.Mutex
		var at []time.Time
		var wg sync.WaitGroup
		for w := range 3 {
			c := client()
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					l, err := Next(bg, c, fmt.Sprint(w), 5*time.Millisecond)
					if err != nil {
						return
					}
					mu.Lock()
					at = append(at, l.Expires)
					mu.Unlock()
					c.Done(bg, l, Fetched)
				}
			}()
		}
		wg.Wait()
		if len(at) != 12 {
			t.Fatalf("%d takes, want 12", len(at))
		}
		sort.Slice(at, func(i, j int) bool { return at[i].Before(at[j]) })
		for i := 1; i < len(at); i++ {
			if d := at[i].Sub(at[i-1]); d < iv {
				t.Errorf("takes %d and %d of one host %v apart, interval %v", i-1, i, d, iv)
			}
		}
	})
}
