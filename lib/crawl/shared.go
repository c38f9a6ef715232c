package crawl

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/temoto/robotstxt"

	"github.com/arcport/arcport/lib/frontier"
)

// A crawl with a Frontier (Config.Frontier) keeps no queue of its own: its
// workers lease URLs from the frontier, which also holds the seen set and
// per-host politeness for every process sharing it, and mark each done
// once its capture is durable. The order of one URL's steps is what makes
// a crawl resumable and a killed worker harmless:
//
//  1. Take (lease) the URL, renewed every Lease/3 while it is worked on.
//  2. Fetch it; a retry goes back to the frontier with Release. Free then
//     gives the host's connection back (the lease stays).
//  3. Add the links it holds (the frontier stores them before returning).
//  4. Hand the capture to the sink (written to the output).
//  5. Commit (the output is flushed and synced), then Done.
//
// A process killed between 3 and 5 leaves its URL leased: the lease
// expires (or, for Bolt, the reopened state queues it again) and the URL
// is fetched once more. Config.Recovered lets a resumed crawl skip URLs
// whose captures survived in its output.

// sharedState is what the workers of one process share in a frontier crawl.
type sharedState struct {
	f        frontier.Frontier
	volatile bool // leases are not stored (Memory, Bolt)
	worker   string
	lease    time.Duration
	poll     time.Duration

	ctx     context.Context // the crawl's: done when it is cancelled or failed
	mu      sync.Mutex
	wake    chan struct{} // closed when this process changed the frontier
	pending []doneReq     // captured, waiting for a Commit
	kick    chan struct{}
	errOnce sync.Once
	halt    chan struct{} // closed once a limit says no URL is to be taken
	halted  sync.Once
	warned  time.Time
	lost    int // leases that expired under this process
}

type doneReq struct {
	after func() // Capture.OnDurable
	l     *frontier.Lease
	o     frontier.Outcome
	stop  func()
	ch    chan struct{} // closed once the lease is ended
	epoch int64         // Config.Epoch when it was captured
}

// poke wakes this process's workers waiting for a URL.
func (s *sharedState) poke() {
	s.mu.Lock()
	close(s.wake)
	s.wake = make(chan struct{})
	s.mu.Unlock()
}

func (s *sharedState) waitCh() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.wake
}

// permanent reports frontier errors that retrying cannot cure.
func permanent(err error) bool {
	return errors.Is(err, frontier.ErrOver) || errors.Is(err, frontier.ErrStopped) ||
		errors.Is(err, frontier.ErrStateLost) || errors.Is(err, frontier.ErrLeaseLost) ||
		errors.Is(err, frontier.ErrClosed) || errors.Is(err, context.Canceled) ||
		errors.Is(err, context.DeadlineExceeded)
}

// call runs fn until it succeeds, fails for good, ctx ends, or the frontier
// has failed for Config.FrontierWait: a Redis server being restarted is
// waited for.
func (c *Crawler) call(ctx context.Context, op string, fn func() error) error {
	var since time.Time
	backoff := 50 * time.Millisecond
	for {
		err := fn()
		if err == nil || permanent(err) || ctx.Err() != nil {
			if err != nil && ctx.Err() != nil && !permanent(err) {
				return ctx.Err()
			}
			return err
		}
		now := time.Now()
		if since.IsZero() {
			since = now
		}
		if now.Sub(since) > c.cfg.FrontierWait {
			return fmt.Errorf("frontier %s: %w (gave up after %v)", op, err, c.cfg.FrontierWait)
		}
		s := c.shared
		s.mu.Lock()
		if c.cfg.Logf != nil && now.Sub(s.warned) > 5*time.Second {
			s.warned = now
			s.mu.Unlock()
			c.cfg.Logf("frontier %s: %v; retrying", op, err)
		} else {
			s.mu.Unlock()
		}
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		backoff = min(backoff*2, 2*time.Second)
	}
}

// entryOf is the frontier's form of a queued item.
func entryOf(it *item) frontier.Entry {
	return frontier.Entry{
		URL: it.key, Host: it.u.Scheme + "://" + it.u.Host, Depth: it.depth, Hops: it.hops,
		Embedded: it.embedded, Via: it.via, Redirects: it.redirects, Attempt: it.attempt,
		Seed: it.seed, FromHost: it.fromHost, FromDepth: it.fromDepth, FromHops: it.fromHops,
		ReadyAt: it.readyAt,
	}
}

// itemOf is the item of a leased entry.
func itemOf(e frontier.Entry) (*item, error) {
	u, err := url.Parse(e.URL)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("frontier entry %q: not a URL", e.URL)
	}
	return &item{u: u, key: e.URL, depth: e.Depth, hops: e.Hops, embedded: e.Embedded, via: e.Via,
		redirects: e.Redirects, attempt: e.Attempt, seed: e.Seed, fromHost: e.FromHost,
		fromDepth: e.FromDepth, fromHops: e.FromHops}, nil
}

// DefaultWorker is the default Config.Worker: HOST-PID.
func DefaultWorker() string {
	h, _ := os.Hostname()
	if h == "" {
		h = "worker"
	}
	return h + "-" + strconv.Itoa(os.Getpid())
}

func (c *Crawler) runShared(parent context.Context) error {
	if c.cfg.Lease <= 0 {
		c.cfg.Lease = frontier.DefaultLease
	}
	if c.cfg.FrontierWait <= 0 {
		c.cfg.FrontierWait = 5 * time.Minute
	}
	if c.cfg.Poll <= 0 {
		c.cfg.Poll = 100 * time.Millisecond
	}
	if c.cfg.Worker == "" {
		c.cfg.Worker = DefaultWorker()
	}
	_, mem := c.cfg.Frontier.(*frontier.Memory)
	_, bolt := c.cfg.Frontier.(*frontier.Bolt)
	s := &sharedState{volatile: mem || bolt, f: c.cfg.Frontier, worker: c.cfg.Worker, lease: c.cfg.Lease, poll: c.cfg.Poll,
		wake: make(chan struct{}), kick: make(chan struct{}, 1), halt: make(chan struct{})}
	c.shared = s
	if !s.volatile {
		// Workers in other processes share the hosts' -c: a connection
		// kept idle here would count beside theirs, so none is kept and
		// a host never has more than -c connections open, idle or not.
		c.f.noIdle = true
	}
	ctx, cancel := c.crawlContext(parent)
	defer cancel()
	s.ctx = ctx
	stopWait := context.AfterFunc(ctx, func() {
		c.mu.Lock()
		c.cond.Broadcast() // admit waits on it
		c.mu.Unlock()
	})
	defer stopWait()
	c.mu.Lock()
	c.stats.Started = time.Now()
	c.mu.Unlock()

	seeds := make([]frontier.Entry, 0, len(c.seeds))
	for _, u := range c.seeds {
		seeds = append(seeds, frontier.Entry{URL: u.String(), Seed: true})
	}
	if err := c.call(ctx, "add", func() error { _, err := s.f.Add(ctx, seeds...); return err }); err != nil {
		if parent.Err() != nil {
			return context.Cause(parent)
		}
		return err
	}

	// the queue's length for Stats, from an embedded frontier every 2 s
	// (Redis's Stats reads every host: too much for a progress line)
	go func() {
		if !s.volatile {
			return
		}
		t := time.NewTicker(2 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				sctx, scancel := context.WithTimeout(ctx, time.Second)
				st, err := s.f.Stats(sctx)
				scancel()
				if err == nil {
					c.mu.Lock()
					c.queued = int(st.Queued)
					c.mu.Unlock()
				}
			}
		}
	}()

	// the committer: Commit, then Done for every capture before it
	commitDone := make(chan struct{})
	go func() {
		defer close(commitDone)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case _, ok := <-s.kick:
				if !ok {
					return
				}
			case <-tick.C:
			}
			c.commitPending(false)
		}
	}()

	var wg sync.WaitGroup
	for i := 0; i < c.cfg.Connections; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				if !c.admit(ctx) {
					return
				}
				l, err := c.nextLease(ctx)
				if err == nil && c.halting() {
					// a limit was reached while this worker waited
					c.release(l, l.Entry, false)
					err = errHalted
				}
				if err != nil {
					c.unadmit()
					if errors.Is(err, frontier.ErrOver) || errors.Is(err, frontier.ErrStopped) || errors.Is(err, errHalted) || ctx.Err() != nil {
						return
					}
					c.fail(err)
					cancel()
					return
				}
				c.mu.Lock()
				c.active++
				c.mu.Unlock()
				if err := c.processLease(ctx, l); err != nil {
					c.fail(err)
					cancel()
				}
				c.mu.Lock()
				c.active--
				c.mu.Unlock()
				c.unadmit()
			}
		}()
	}
	wg.Wait()
	close(s.kick)
	<-commitDone
	c.commitPending(true) // what the workers handed over last
	c.f.closeIdle()
	c.mu.Lock()
	err := c.err
	limited := c.limit != ""
	c.mu.Unlock()
	if err != nil {
		return err
	}
	left := true
	if limited && parent.Err() == nil {
		// a limit reached as the last URL ended is no limit
		octx, ocancel := context.WithTimeout(context.Background(), 5*time.Second)
		if over, err := s.f.Over(octx); err == nil && over {
			left = false
		}
		ocancel()
	}
	return c.ending(parent, ctx, left)
}

// errHalted ends a worker once a limit of Config says no URL is to be taken.
var errHalted = errors.New("crawl limit reached")

// admit waits until this process may take another URL under the limits
// of Config: false once a limit is reached (the workers then finish what
// they hold and stop) or ctx is done. Each true is matched by an unadmit.
func (c *Crawler) admit(ctx context.Context) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for {
		if ctx.Err() != nil {
			return false
		}
		if c.noteLimitLocked(); c.limit != "" {
			return false
		}
		if !c.pagesFullLocked() {
			if c.cfg.MaxPages > 0 {
				c.inPages++
			}
			return true
		}
		c.cond.Wait() // for a URL under way to end
	}
}

// unadmit ends what admit allowed.
func (c *Crawler) unadmit() {
	c.mu.Lock()
	if c.cfg.MaxPages > 0 {
		c.inPages--
	}
	c.cond.Broadcast()
	c.mu.Unlock()
}

// halting reports that a limit says no URL is to be taken.
func (c *Crawler) halting() bool {
	select {
	case <-c.shared.halt:
		return true
	default:
		return false
	}
}

// nextLease waits for a URL: Take, else sleep until it is due, until this
// process changes the frontier, or Poll (other processes queue URLs too).
func (c *Crawler) nextLease(ctx context.Context) (*frontier.Lease, error) {
	s := c.shared
	for {
		if c.halting() {
			return nil, errHalted
		}
		wake := s.waitCh()
		var l *frontier.Lease
		var wait time.Duration
		err := c.call(ctx, "take", func() error {
			var err error
			l, wait, err = s.f.Take(ctx, s.worker)
			return err
		})
		if err != nil || l != nil {
			return l, err
		}
		if wait > s.poll || wait <= 0 {
			wait = s.poll
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-s.halt:
			t.Stop()
			return nil, errHalted
		case <-wake:
			t.Stop()
		case <-t.C:
		}
	}
}

// renew keeps l leased until the returned stop is called.
func (c *Crawler) renew(l *frontier.Lease) func() {
	s := c.shared
	done := make(chan struct{})
	var once sync.Once
	go func() {
		t := time.NewTicker(s.lease / 3)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				ctx, cancel := context.WithTimeout(context.Background(), s.lease/3)
				err := s.f.Renew(ctx, l)
				cancel()
				if errors.Is(err, frontier.ErrLeaseLost) {
					s.mu.Lock()
					s.lost++
					s.mu.Unlock()
					return
				}
			}
		}
	}()
	return func() { once.Do(func() { close(done) }) }
}

// release gives l back to the queue (with e's changes), in a context of its
// own: it runs when the crawl's is cancelled too.
func (c *Crawler) release(l *frontier.Lease, e frontier.Entry, interrupted bool) {
	if c.shared.volatile && interrupted {
		// leases of an embedded frontier live in memory only: one left
		// as it was comes back with the next open, and a fsync now
		// would wait for whatever the file system has to write
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	l.Entry = e
	c.call(ctx, "release", func() error { return c.shared.f.Release(ctx, l) })
	c.shared.poke()
}

// finish queues l to be marked done after the next Commit.
//
// Unless Config.CommitAsync is set, the worker then waits for that Commit
// before it takes another URL, so that at most Connections URLs are ever
// leased and not done: all a kill can make the crawl fetch again.
func (c *Crawler) finish(l *frontier.Lease, o frontier.Outcome, stop func()) {
	c.finishThen(l, o, stop, nil)
}

// finishThen is finish, calling after once the URL is done.
func (c *Crawler) finishThen(l *frontier.Lease, o frontier.Outcome, stop, after func()) {
	s := c.shared
	ch := make(chan struct{})
	var epoch int64
	if c.cfg.Epoch != nil {
		epoch = c.cfg.Epoch()
	}
	s.mu.Lock()
	s.pending = append(s.pending, doneReq{after: after, l: l, o: o, stop: stop, ch: ch, epoch: epoch})
	s.mu.Unlock()
	select {
	case s.kick <- struct{}{}:
	default:
	}
	if !c.cfg.CommitAsync {
		select {
		case <-ch:
		case <-s.ctx.Done():
		}
	}
}

// commitPending commits the output and marks the captured URLs done.
func (c *Crawler) commitPending(final bool) {
	s := c.shared
	s.mu.Lock()
	batch := s.pending
	s.pending = nil
	s.mu.Unlock()
	if len(batch) == 0 {
		return
	}
	if c.cfg.Durable != nil {
		next, err := c.cfg.Durable(final)
		if err == nil {
			var wait []doneReq
			n := 0
			for _, d := range batch {
				if d.epoch < next {
					batch[n] = d
					n++
				} else {
					wait = append(wait, d)
				}
			}
			batch = batch[:n]
			if len(wait) > 0 {
				s.mu.Lock()
				s.pending = append(wait, s.pending...)
				s.mu.Unlock()
			}
		} else {
			for _, d := range batch {
				d.stop()
				close(d.ch)
			}
			c.fail(fmt.Errorf("making the output durable: %w", err))
			return
		}
	} else if c.cfg.Commit != nil {
		if err := c.cfg.Commit(final); err != nil {
			// not durable: the leases expire and the URLs are fetched again
			for _, d := range batch {
				d.stop()
				close(d.ch)
			}
			c.fail(fmt.Errorf("making the output durable: %w", err))
			return
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.cfg.FrontierWait+time.Minute)
	defer cancel()
	var errs []error // from one DoneAll, when the frontier has it
	if bd, ok := s.f.(frontier.BatchDoner); ok && len(batch) > 1 {
		ls, outs := make([]*frontier.Lease, len(batch)), make([]frontier.Outcome, len(batch))
		for i, d := range batch {
			ls[i], outs[i] = d.l, d.o
		}
		// all the batch's URLs done in one step: a kill after the output
		// became durable and before this finds them all done or none
		err := c.call(ctx, "done", func() error {
			var err error
			errs, err = bd.DoneAll(ctx, ls, outs)
			return err
		})
		if err != nil {
			errs = make([]error, len(batch))
			for i := range errs {
				errs[i] = err
			}
		}
	}
	for i, d := range batch {
		var err error
		if errs != nil {
			err = errs[i]
		} else {
			err = c.call(ctx, "done", func() error { return s.f.Done(ctx, d.l, d.o) })
		}
		d.stop()
		if err == nil && d.after != nil {
			d.after()
		}
		close(d.ch)
		switch {
		case errors.Is(err, frontier.ErrLeaseLost):
			s.mu.Lock()
			s.lost++
			s.mu.Unlock()
		case err != nil:
			c.fail(err)
		}
	}
	s.poke()
}

// processLease works on one leased URL.
func (c *Crawler) processLease(ctx context.Context, l *frontier.Lease) error {
	s := c.shared
	stop := c.renew(l)
	it, err := itemOf(l.Entry)
	if err != nil {
		c.finish(l, frontier.Failed, stop)
		return nil
	}
	if c.cfg.Recovered != nil && c.cfg.Recovered(it.key) {
		// written by a run that could not mark it done
		c.finish(l, frontier.Fetched, stop)
		return nil
	}
	h := c.localHost(it.u.Scheme + "://" + it.u.Host)
	if c.cfg.Robots {
		fetched, err := c.sharedRobots(ctx, h)
		if err != nil {
			stop()
			c.release(l, l.Entry, ctx.Err() != nil)
			return err
		}
		if fetched {
			// robots.txt took this turn of the host: the URL waits for
			// the next, so that --rate and -c hold for it too
			stop()
			c.release(l, l.Entry, ctx.Err() != nil)
			return nil
		}
		if h.robots != nil && !h.robots.Test(it.u.RequestURI()) {
			c.skip(it.key, "robots.txt")
			c.finish(l, frontier.Fetched, stop)
			return nil
		}
	}
	ex, sp := c.fetch(ctx, it, h, false)
	if ctx.Err() != nil {
		if sp != nil {
			sp.Close()
		}
		stop()
		c.release(l, l.Entry, true)
		return nil
	}
	if r := c.refusal(ex); r != "" {
		sp.Close()
		c.skip(it.key, r)
		c.finish(l, frontier.Fetched, stop)
		return nil
	}
	if again, delay := c.retryable(ex); again && it.attempt < c.cfg.Retries {
		if sp != nil {
			sp.Close()
		}
		e := l.Entry
		e.Attempt++
		if delay > 0 {
			dctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			c.call(dctx, "delay", func() error { return s.f.Delay(dctx, e.Host, time.Now().Add(delay)) })
			cancel()
			e.ReadyAt = time.Time{}
		} else {
			e.ReadyAt = time.Now().Add(c.cfg.RetryBackoff << (e.Attempt - 1))
		}
		stop()
		c.release(l, e, false)
		return nil
	}
	// the exchange is over: the host's connection is free for the next
	// take while this URL's record is written and made durable
	if err := c.call(ctx, "free", func() error { return s.f.Free(ctx, l) }); err != nil && !errors.Is(err, frontier.ErrLeaseLost) && ctx.Err() == nil {
		if sp != nil {
			sp.Close()
		}
		stop()
		return err
	}
	s.poke()
	cp := c.capture(it, ex)
	if ex.head != nil && (ex.err == nil || cutByLimit(ex.err)) {
		found := c.sharedLinks(ctx, it, cp)
		if len(found) > 0 {
			entries := make([]frontier.Entry, len(found))
			for i, n := range found {
				entries[i] = entryOf(n)
			}
			err := c.call(ctx, "add", func() error { _, err := s.f.Add(ctx, entries...); return err })
			if err != nil {
				if cp.Response != nil {
					cp.Response.Close()
				}
				stop()
				if ctx.Err() != nil {
					c.release(l, l.Entry, true)
					return nil
				}
				return err
			}
			s.poke()
		}
	}
	o := frontier.Fetched
	if cp.Err != nil {
		o = frontier.Failed
	}
	if err := c.emit(cp); err != nil {
		stop()
		if ctx.Err() != nil {
			c.release(l, l.Entry, true)
			return nil
		}
		return err
	}
	c.finishThen(l, o, stop, cp.durable()) // set by Prepare or the sink, and by the page's requests
	return nil
}

// sharedLinks is addLinks for a frontier crawl: it returns the links taken
// (scope, filters, depth, traps), new or not, for the frontier to sort out.
func (c *Crawler) sharedLinks(ctx context.Context, it *item, cp *Capture) []*item {
	links := c.findLinks(ctx, it, cp) // (rendering outside linkMu)
	c.linkMu.Lock()
	defer c.linkMu.Unlock()
	c.mu.Lock()
	for i := range links {
		c.decideLocked(it, &links[i])
	}
	cp.Links = links
	found := c.found
	c.found = nil
	c.mu.Unlock()
	return found
}

// localHost is this process's record of a host: robots.txt rules and the
// send pacing of its own requests.
func (c *Crawler) localHost(key string) *host {
	c.mu.Lock()
	defer c.mu.Unlock()
	h := c.hosts[key]
	if h == nil {
		h = &host{key: key, interval: c.interval}
		c.hosts[key] = h
	}
	return h
}

// robotsTTL is how long a robots.txt stays in the frontier's cache.
const robotsTTL = 24 * time.Hour

// sharedRobots makes h's robots.txt rules known: from this process, from
// the frontier's cache, or fetched (and recorded) now, in which case it
// reports true.
func (c *Crawler) sharedRobots(ctx context.Context, h *host) (bool, error) {
	h.robotsMu.Lock()
	defer h.robotsMu.Unlock()
	c.mu.Lock()
	state := h.robotsState
	c.mu.Unlock()
	if state == robotsDone {
		return false, nil
	}
	s := c.shared
	var body []byte
	var ok bool
	err := c.call(ctx, "robots", func() error {
		var err error
		body, ok, err = s.f.Robots(ctx, h.key)
		return err
	})
	if err != nil {
		return false, err
	}
	if ok {
		st, rest, _ := strings.Cut(string(body), "\n")
		code, _ := strconv.Atoi(st)
		var group *robotstxt.Group
		if code != 0 {
			if data, err := robotstxt.FromStatusAndBytes(code, []byte(rest)); err == nil {
				group = data.FindGroup(c.cfg.UserAgent)
			}
		}
		c.mu.Lock()
		h.robots = group
		h.robotsState = robotsDone
		if group != nil && group.CrawlDelay > h.interval {
			h.gateMu.Lock()
			h.interval = min(group.CrawlDelay, 30*time.Second)
			h.gateMu.Unlock()
		}
		c.mu.Unlock()
		return false, nil
	}
	if err := c.fetchRobots(ctx, h); err != nil {
		return true, err
	}
	if ctx.Err() != nil {
		return true, nil
	}
	c.mu.Lock()
	raw := strconv.Itoa(h.robotsStatus) + "\n" + string(h.robotsBody)
	h.robotsBody = nil
	var delay time.Duration
	if h.robots != nil {
		delay = min(h.robots.CrawlDelay, 30*time.Second)
	}
	c.mu.Unlock()
	err = c.call(ctx, "robots", func() error { return s.f.SetRobots(ctx, h.key, []byte(raw), robotsTTL) })
	if err == nil && delay > 0 {
		err = c.call(ctx, "robots", func() error { return s.f.SetInterval(ctx, h.key, delay) })
	}
	return true, err
}

// LostLeases is how many leases of this crawler expired before their URL
// was done (another worker may then have fetched it too).
func (c *Crawler) LostLeases() int {
	if c.shared == nil {
		return 0
	}
	c.shared.mu.Lock()
	defer c.shared.mu.Unlock()
	return c.shared.lost
}
