package frontier

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
)

// BoltFile is the name of the database file in a state directory.
const BoltFile = "frontier.db"

// Bolt is the frontier of one process kept in a bbolt database in a state
// directory, for a crawl that is stopped and continued. Every call that
// changes what must survive (Add, Done, Release, Delay, SetInterval,
// SetRobots, Stop) has committed and fsynced its bbolt transaction before
// it returns, so a process killed at any moment (SIGKILL, power cut)
// reopens with every acknowledged URL queued or done. Leases are not
// stored: on reopen every URL that was leased and not Done is queued
// again. The working state is also held in memory (the seen set as a map
// of 64-bit hashes), loaded at Open.
type Bolt struct {
	mu      sync.Mutex // the memory state and what follows
	c       *core
	err     error  // a failed write: the memory state is ahead of the disk
	pending []mut  // changes not yet committed, in order
	batch   uint64 // number of the batch pending joins

	commitMu  sync.Mutex // one commit at a time
	committed uint64     // batches below this number are on disk

	db   *bolt.DB
	path string
	now  func() time.Time
}

// OpenBolt opens (creating it if needed) the frontier kept in dir. Only one
// process may have a state directory open; another gets an error at once.
func OpenBolt(dir string, o Options) (*Bolt, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("frontier state %s: %w", dir, err)
	}
	path := filepath.Join(dir, BoltFile)
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		if errors.Is(err, bolt.ErrTimeout) {
			return nil, fmt.Errorf("%s: in use by another process", path)
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	b := &Bolt{db: db, c: newCore(o), path: path, now: time.Now}
	if err := b.load(); err != nil {
		db.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return b, nil
}

func (b *Bolt) load() error {
	c := b.c
	now := b.now()
	return b.db.Update(func(tx *bolt.Tx) error {
		for _, name := range []string{bSeen, bQueue, bHosts, bMeta, bRobots} {
			if _, err := tx.CreateBucketIfNotExists([]byte(name)); err != nil {
				return err
			}
		}
		err := tx.Bucket([]byte(bHosts)).ForEach(func(k, v []byte) error {
			var r hostRec
			if err := json.Unmarshal(v, &r); err != nil {
				return fmt.Errorf("host %q: %w", k, err)
			}
			h := c.host(string(k))
			h.interval, h.notBefore, h.done, h.failed = r.Interval, r.NotBefore, r.Done, r.Failed
			return nil
		})
		if err != nil {
			return err
		}
		err = tx.Bucket([]byte(bSeen)).ForEach(func(k, _ []byte) error {
			if len(k) != 8 {
				return fmt.Errorf("seen key of %d bytes", len(k))
			}
			c.seen[binary.BigEndian.Uint64(k)] = struct{}{}
			return nil
		})
		if err != nil {
			return err
		}
		err = tx.Bucket([]byte(bQueue)).ForEach(func(k, v []byte) error {
			if len(k) != 8 {
				return fmt.Errorf("queue key of %d bytes", len(k))
			}
			q := &qent{seq: binary.BigEndian.Uint64(k)}
			if err := json.Unmarshal(v, &q.e); err != nil {
				return fmt.Errorf("queue entry %d: %w", q.seq, err)
			}
			c.seq = max(c.seq, q.seq)
			c.enqueue(q, now)
			c.queued++
			return nil
		})
		if err != nil {
			return err
		}
		m := tx.Bucket([]byte(bMeta))
		if v := m.Get([]byte("done")); len(v) == 8 {
			c.done = int64(binary.BigEndian.Uint64(v))
		}
		if v := m.Get([]byte("failed")); len(v) == 8 {
			c.failed = int64(binary.BigEndian.Uint64(v))
		}
		c.stopped = m.Get([]byte("stop")) != nil
		return tx.Bucket([]byte(bRobots)).ForEach(func(k, v []byte) error {
			if len(v) >= 8 {
				c.robots[string(k)] = robotsRec{body: append([]byte(nil), v[8:]...),
					expires: time.Unix(0, int64(binary.BigEndian.Uint64(v)))}
			}
			return nil
		})
	})
}

// do runs f on the memory state under the lock and returns once what it
// changed is committed. Changes are committed in the order they were
// made, and the changes of calls made meanwhile share one transaction
// (one fsync): the first caller to get the commit lock writes everything
// pending, the others find theirs written.
func (b *Bolt) do(f func(c *core) error) error {
	b.mu.Lock()
	if b.err != nil {
		b.mu.Unlock()
		return b.err
	}
	if b.c == nil {
		b.mu.Unlock()
		return ErrClosed
	}
	n := len(b.pending)
	b.c.log = &b.pending
	err := f(b.c)
	b.c.log = nil
	mine := b.batch
	changed := len(b.pending) > n
	b.mu.Unlock()
	if !changed {
		return err
	}
	b.commitMu.Lock()
	defer b.commitMu.Unlock()
	if b.committed <= mine {
		b.mu.Lock()
		muts := b.pending
		b.pending = nil
		batch := b.batch
		b.batch++
		b.mu.Unlock()
		werr := b.db.Update(func(tx *bolt.Tx) error {
			for _, m := range muts {
				bk := tx.Bucket([]byte(m.b))
				var err error
				if m.del {
					err = bk.Delete(m.k)
				} else {
					v := m.v
					if v == nil {
						v = []byte{}
					}
					err = bk.Put(m.k, v)
				}
				if err != nil {
					return err
				}
			}
			return nil
		})
		if werr != nil {
			// what is on disk is still whole; this process can no longer
			// say what it holds: refuse everything, --continue from disk
			b.mu.Lock()
			b.err = fmt.Errorf("%s: write failed, reopen to continue: %w", b.path, werr)
			b.mu.Unlock()
		}
		b.committed = batch + 1
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.err != nil {
		return b.err
	}
	return err
}

// Add implements Frontier.
func (b *Bolt) Add(ctx context.Context, entries ...Entry) (int, error) {
	n := 0
	err := b.do(func(c *core) error { n = c.add(b.now(), entries); return nil })
	if err != nil {
		return 0, err
	}
	return n, nil
}

// Take implements Frontier.
func (b *Bolt) Take(ctx context.Context, worker string) (*Lease, time.Duration, error) {
	var l *Lease
	var wait time.Duration
	err := b.do(func(c *core) error {
		var err error
		l, wait, err = c.take(b.now(), worker)
		return err
	})
	return l, wait, err
}

// Renew implements Frontier.
func (b *Bolt) Renew(ctx context.Context, l *Lease) error {
	return b.do(func(c *core) error {
		exp, err := c.renew(b.now(), l.ID)
		if err == nil {
			l.Expires = exp
		}
		return err
	})
}

// Free implements Frontier; like Renew it writes nothing.
func (b *Bolt) Free(ctx context.Context, l *Lease) error {
	return b.do(func(c *core) error { return c.free(l.ID) })
}

// Done implements Frontier.
func (b *Bolt) Done(ctx context.Context, l *Lease, o Outcome) error {
	return b.do(func(c *core) error { return c.finish(l.ID, o) })
}

// Release implements Frontier.
func (b *Bolt) Release(ctx context.Context, l *Lease) error {
	return b.do(func(c *core) error { return c.release(b.now(), l.ID, l.Entry) })
}

// Delay implements Frontier.
func (b *Bolt) Delay(ctx context.Context, host string, until time.Time) error {
	return b.do(func(c *core) error { c.delay(host, until); return nil })
}

// SetInterval implements Frontier.
func (b *Bolt) SetInterval(ctx context.Context, host string, d time.Duration) error {
	return b.do(func(c *core) error { c.setInterval(host, d); return nil })
}

// Robots implements Frontier.
func (b *Bolt) Robots(ctx context.Context, host string) ([]byte, bool, error) {
	var body []byte
	var ok bool
	err := b.do(func(c *core) error { body, ok = c.getRobots(b.now(), host); return nil })
	return body, ok, err
}

// SetRobots implements Frontier.
func (b *Bolt) SetRobots(ctx context.Context, host string, body []byte, ttl time.Duration) error {
	return b.do(func(c *core) error { c.setRobots(b.now(), host, body, ttl); return nil })
}

// Stats implements Frontier.
func (b *Bolt) Stats(ctx context.Context) (Stats, error) {
	var s Stats
	err := b.do(func(c *core) error { s = c.stats(); return nil })
	return s, err
}

// Stop implements Frontier.
func (b *Bolt) Stop(ctx context.Context) error {
	return b.do(func(c *core) error { c.stop(); return nil })
}

// Over implements Frontier.
func (b *Bolt) Over(ctx context.Context) (bool, error) {
	var over bool
	err := b.do(func(c *core) error { over = c.over(); return nil })
	return over, err
}

// Close implements Frontier: it closes the database (everything is on
// disk already).
func (b *Bolt) Close() error {
	b.commitMu.Lock() // after the last commit
	defer b.commitMu.Unlock()
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.c == nil {
		return nil
	}
	b.c = nil
	return b.db.Close()
}
