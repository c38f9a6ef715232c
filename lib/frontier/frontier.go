package frontier

import (
	"context"
	"errors"
	"net/url"
	"time"

	"github.com/cespare/xxhash/v2"
)

// Entry is one URL of the crawl with what the crawler keeps about it
// (lib/crawl's item). URL is the canonical URL: the seen set holds its
// hash. Host is the politeness key (scheme://host[:port]); Add fills it
// from URL when empty.
type Entry struct {
	URL       string `json:"u"`
	Host      string `json:"h,omitempty"`
	Depth     int    `json:"d,omitempty"`
	Hops      int    `json:"x,omitempty"`
	Embedded  bool   `json:"e,omitempty"`
	Via       string `json:"v,omitempty"`
	Redirects int    `json:"r,omitempty"`
	Attempt   int    `json:"a,omitempty"`
	Seed      bool   `json:"s,omitempty"`
	FromHost  string `json:"fh,omitempty"`
	FromDepth int    `json:"fd,omitempty"`
	FromHops  int    `json:"fx,omitempty"`
	// ReadyAt, when set and in the future, keeps the entry out of Take
	// until then (a retry after a backoff).
	ReadyAt time.Time `json:"t,omitzero"`
}

// Lease is an entry handed to one worker until Expires. The worker renews
// it while it fetches and ends it with Done or Release; a lease that
// expires goes back to the queue and the next Take by any worker reclaims
// it.
type Lease struct {
	Entry
	// ID names the lease in Renew, Done and Release.
	ID string
	// Worker is the name given to Take.
	Worker string
	// Expires is when the lease ends unless renewed (the frontier's
	// clock: the Redis server's for Redis).
	Expires time.Time
}

// Outcome is how a leased URL ended.
type Outcome int

const (
	// Fetched counts the URL as done.
	Fetched Outcome = iota
	// Failed counts the URL as done and failed (no more retries).
	Failed
)

// Errors returned by frontiers.
var (
	// ErrOver is returned by Take when the crawl is over: no URL queued
	// and no lease outstanding.
	ErrOver = errors.New("frontier: crawl over")
	// ErrStopped is returned by Take once Stop was called.
	ErrStopped = errors.New("frontier: crawl stopped")
	// ErrLeaseLost is returned by Renew, Done and Release for a lease
	// that expired and was reclaimed (its URL may be fetched again by
	// another worker) or that was ended already.
	ErrLeaseLost = errors.New("frontier: lease lost")
	// ErrStateLost is returned by the Redis frontier when the crawl's
	// state vanished from the server under it (a restart of a server
	// that keeps nothing on disk, a FLUSHALL): going on would fetch the
	// crawl again from nothing, or end it as if it were complete.
	ErrStateLost = errors.New("frontier: crawl state lost from the server")
	// ErrClosed is returned after Close.
	ErrClosed = errors.New("frontier: closed")
)

// HostStats are the counters of one host.
type HostStats struct {
	Queued int64 // waiting, retries included
	Leased int64
	Done   int64 // Done calls, failures included
	Failed int64
}

// Stats are the counters of the whole crawl.
type Stats struct {
	Queued  int64 // waiting, retries included
	Leased  int64
	Done    int64 // Done calls, failures included
	Failed  int64
	Seen    int64 // distinct URLs ever added
	Expired int64 // leases that expired and were reclaimed
	Stopped bool
	Hosts   map[string]HostStats
}

// Frontier is the crawl state: the seen set, the queue (by depth, then in
// order of adding), leases, per-host politeness and counters. All methods
// are safe for concurrent use; with Redis, by many processes.
type Frontier interface {
	// Add queues the entries whose URL was never added before and
	// reports how many were new; adding a seen URL is a no-op. When Add
	// returns nil every new entry is stored (on disk for Bolt, on the
	// server for Redis).
	Add(ctx context.Context, entries ...Entry) (int, error)
	// Take leases the next URL that politeness allows to worker. When no
	// URL may be fetched now it returns a nil lease and how long to wait
	// before the next is due (others' Add, Done or Release may make one
	// due sooner). It returns ErrOver when the queue is empty and no
	// lease is outstanding, ErrStopped after Stop.
	Take(ctx context.Context, worker string) (*Lease, time.Duration, error)
	// Renew extends a lease by the lease time from now.
	Renew(ctx context.Context, l *Lease) error
	// Free gives back the host connection l holds, once its fetch is
	// over, while the lease itself stays until Done or Release: a record
	// waiting to become durable (an S3 object not yet complete) holds no
	// politeness slot.
	Free(ctx context.Context, l *Lease) error
	// Done ends a lease and marks its URL done for good; call it once
	// the URL's record is durable.
	Done(ctx context.Context, l *Lease, o Outcome) error
	// Release ends a lease and queues l.Entry again (as changed by the
	// caller, e.g. Attempt+1 and ReadyAt for a retry). The entry keeps
	// its place in the queue.
	Release(ctx context.Context, l *Lease) error
	// Delay keeps host from being taken before until (Retry-After).
	Delay(ctx context.Context, host string, until time.Time) error
	// SetInterval sets host's minimum time between two takes when it is
	// longer than the crawl's (robots.txt Crawl-delay).
	SetInterval(ctx context.Context, host string, d time.Duration) error
	// Robots returns the robots.txt body cached for host, and whether
	// there is one that has not expired.
	Robots(ctx context.Context, host string) ([]byte, bool, error)
	// SetRobots caches host's robots.txt body for ttl.
	SetRobots(ctx context.Context, host string, body []byte, ttl time.Duration) error
	// Stats returns the counters.
	Stats(ctx context.Context) (Stats, error)
	// Stop asks every worker to finish: Take returns ErrStopped from now
	// on, while leases still end with Done or Release.
	Stop(ctx context.Context) error
	// Over reports whether the crawl is over: nothing queued and no
	// lease outstanding.
	Over(ctx context.Context) (bool, error)
	// Close releases the frontier's resources (not its state).
	Close() error
}

// Options are the crawl's settings shared by every implementation.
type Options struct {
	// Lease is how long a taken URL stays with its worker without Renew
	// (default 60 s).
	Lease time.Duration
	// PerHost is the most leases a host may have at once, across all
	// workers (default 1).
	PerHost int
	// Interval is the least time between two takes of the same host
	// (1/--rate); SetInterval may make it longer for one host.
	Interval time.Duration
}

// DefaultLease is the lease time when Options.Lease is zero.
const DefaultLease = 60 * time.Second

func (o Options) withDefaults() Options {
	if o.Lease <= 0 {
		o.Lease = DefaultLease
	}
	if o.PerHost <= 0 {
		o.PerHost = 1
	}
	if o.Interval < 0 {
		o.Interval = 0
	}
	return o
}

// URLHash is the 64-bit hash of a canonical URL kept in the seen set
// (xxHash64): 8 bytes a URL instead of the URL. Two URLs in a crawl of n
// share a hash with probability about n²/2⁶⁵ (3·10⁻⁸ at a million URLs,
// 3·10⁻⁴ at a hundred million); the second would be taken for seen.
func URLHash(canonical string) uint64 { return xxhash.Sum64String(canonical) }

// HostOf returns the politeness key of u: scheme://host[:port].
func HostOf(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.Host == "" {
		return ""
	}
	return p.Scheme + "://" + p.Host
}

// Next waits until f leases a URL to worker, ctx ends, or Take fails
// (ErrOver and ErrStopped included). It sleeps as long as Take says, but
// never more than poll (when positive) since other workers may queue
// URLs in the meantime.
func Next(ctx context.Context, f Frontier, worker string, poll time.Duration) (*Lease, error) {
	for {
		l, wait, err := f.Take(ctx, worker)
		if err != nil || l != nil {
			return l, err
		}
		if poll > 0 && wait > poll {
			wait = poll
		}
		if wait <= 0 {
			wait = time.Millisecond
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}

// BatchDoner is a Frontier that can mark many leases done in one step, all
// or none (Redis: one MULTI/EXEC round trip): a worker that completes an
// output holding many captures then leaves the smallest window in which a
// kill finds the output complete and its URLs not done.
type BatchDoner interface {
	// DoneAll is Done for each lease, with its outcome; errs[i] is
	// ErrLeaseLost for a lease no longer held. err is for the step as a
	// whole (nothing was applied).
	DoneAll(ctx context.Context, ls []*Lease, outs []Outcome) (errs []error, err error)
}
