package frontier

import (
	"container/heap"
	"encoding/binary"
	"encoding/json"
	"strconv"
	"time"
)

// core is the crawl state in memory, the Memory frontier itself and the
// working copy of the Bolt one. It is not safe for concurrent use; its
// callers hold a lock. When log is set, every change that must outlive
// the process is recorded there for the caller to write.
type core struct {
	o        Options
	seen     map[uint64]struct{}
	hosts    map[string]*hostState
	sched    schedHeap // hosts with a queued entry and a free connection, by due time
	delayed  delayHeap // entries whose ReadyAt is ahead
	leases   map[string]*leaseRec
	lexp     leaseHeap // lease expiries, stale items skipped
	robots   map[string]robotsRec
	seq      uint64
	leaseSeq uint64
	queued   int64 // queued and delayed
	done     int64
	failed   int64
	expired  int64
	stopped  bool
	log      *[]mut
}

// qent is a queued or leased entry; seq orders entries of one depth and
// names the entry on disk.
type qent struct {
	seq uint64
	e   Entry
	idx int
}

type hostState struct {
	name      string
	q         entHeap
	delayed   int64
	active    int
	next      time.Time // earliest next take: last take + interval
	notBefore time.Time // Delay
	interval  time.Duration
	done      int64
	failed    int64
	sidx      int // index in sched, -1 when not there
}

type leaseRec struct {
	id      string
	worker  string
	ent     *qent
	expires time.Time
	freed   bool // its host connection was given back by Free
}

type robotsRec struct {
	body    []byte
	expires time.Time
}

// mut is one change to write: key k of bucket b set to v, or deleted.
type mut struct {
	b   string
	k   []byte
	v   []byte
	del bool
}

// Bucket names of the Bolt layout (see doc.go).
const (
	bSeen   = "seen"
	bQueue  = "queue"
	bHosts  = "hosts"
	bMeta   = "meta"
	bRobots = "robots"
)

func newCore(o Options) *core {
	return &core{
		o:      o.withDefaults(),
		seen:   map[uint64]struct{}{},
		hosts:  map[string]*hostState{},
		leases: map[string]*leaseRec{},
		robots: map[string]robotsRec{},
	}
}

func (c *core) record(b string, k, v []byte) {
	if c.log != nil {
		*c.log = append(*c.log, mut{b: b, k: k, v: v})
	}
}

func (c *core) remove(b string, k []byte) {
	if c.log != nil {
		*c.log = append(*c.log, mut{b: b, k: k, del: true})
	}
}

func u64(v uint64) []byte { return binary.BigEndian.AppendUint64(nil, v) }

func (c *core) host(name string) *hostState {
	h := c.hosts[name]
	if h == nil {
		h = &hostState{name: name, sidx: -1}
		c.hosts[name] = h
	}
	return h
}

// hostRec is a host's state on disk.
type hostRec struct {
	Interval  time.Duration `json:"i,omitempty"`
	NotBefore time.Time     `json:"n,omitzero"`
	Done      int64         `json:"d,omitempty"`
	Failed    int64         `json:"f,omitempty"`
}

func (c *core) saveHost(h *hostState) {
	if c.log == nil {
		return
	}
	b, _ := json.Marshal(hostRec{h.interval, h.notBefore, h.done, h.failed})
	c.record(bHosts, []byte(h.name), b)
}

func (c *core) saveEntry(q *qent) {
	if c.log == nil {
		return
	}
	b, _ := json.Marshal(q.e)
	c.record(bQueue, u64(q.seq), b)
}

func (c *core) saveCounters() {
	if c.log == nil {
		return
	}
	c.record(bMeta, []byte("done"), u64(uint64(c.done)))
	c.record(bMeta, []byte("failed"), u64(uint64(c.failed)))
}

func (c *core) due(h *hostState) time.Time {
	if h.notBefore.After(h.next) {
		return h.notBefore
	}
	return h.next
}

// fix puts h in the schedule when it has a queued entry and a free
// connection, and takes it out otherwise.
func (c *core) fix(h *hostState) {
	ok := h.q.Len() > 0 && h.active < c.o.PerHost
	switch {
	case ok && h.sidx < 0:
		heap.Push(&c.sched, h)
	case ok:
		heap.Fix(&c.sched, h.sidx)
	case h.sidx >= 0:
		heap.Remove(&c.sched, h.sidx)
	}
}

// enqueue queues q (ready now or delayed).
func (c *core) enqueue(q *qent, now time.Time) {
	h := c.host(q.e.Host)
	if q.e.ReadyAt.After(now) {
		heap.Push(&c.delayed, q)
		h.delayed++
		return
	}
	heap.Push(&h.q, q)
	c.fix(h)
}

func (c *core) add(now time.Time, entries []Entry) int {
	n := 0
	for _, e := range entries {
		if e.Host == "" {
			e.Host = HostOf(e.URL)
		}
		hv := URLHash(e.URL)
		if _, dup := c.seen[hv]; dup {
			continue
		}
		c.seen[hv] = struct{}{}
		c.record(bSeen, u64(hv), nil)
		c.seq++
		q := &qent{seq: c.seq, e: e}
		c.saveEntry(q)
		c.enqueue(q, now)
		c.queued++
		n++
	}
	return n
}

// tidy reclaims expired leases and moves due retries to their hosts.
func (c *core) tidy(now time.Time) {
	for c.lexp.Len() > 0 && !c.lexp[0].expires.After(now) {
		it := heap.Pop(&c.lexp).(leaseItem)
		l := c.leases[it.id]
		if l == nil || !l.expires.Equal(it.expires) {
			continue // ended or renewed
		}
		delete(c.leases, it.id)
		h := c.host(l.ent.e.Host)
		if !l.freed {
			h.active--
		}
		c.expired++
		c.queued++
		heap.Push(&h.q, l.ent)
		c.fix(h)
	}
	for c.delayed.Len() > 0 && !c.delayed[0].e.ReadyAt.After(now) {
		q := heap.Pop(&c.delayed).(*qent)
		h := c.host(q.e.Host)
		h.delayed--
		heap.Push(&h.q, q)
		c.fix(h)
	}
}

func (c *core) take(now time.Time, worker string) (*Lease, time.Duration, error) {
	c.tidy(now)
	if c.stopped {
		return nil, 0, ErrStopped
	}
	if c.sched.Len() == 0 || c.due(c.sched[0]).After(now) {
		if c.queued == 0 && len(c.leases) == 0 {
			return nil, 0, ErrOver
		}
		var at time.Time
		soon := func(t time.Time) {
			if at.IsZero() || t.Before(at) {
				at = t
			}
		}
		if c.sched.Len() > 0 {
			soon(c.due(c.sched[0]))
		}
		if c.delayed.Len() > 0 {
			soon(c.delayed[0].e.ReadyAt)
		}
		for c.lexp.Len() > 0 {
			it := c.lexp[0]
			if l := c.leases[it.id]; l != nil && l.expires.Equal(it.expires) {
				soon(it.expires)
				break
			}
			heap.Pop(&c.lexp)
		}
		wait := at.Sub(now)
		if wait < time.Millisecond {
			wait = time.Millisecond
		}
		return nil, wait, nil
	}
	h := c.sched[0]
	q := heap.Pop(&h.q).(*qent)
	h.active++
	iv := max(c.o.Interval, h.interval)
	h.next = now.Add(iv)
	c.fix(h)
	c.queued--
	c.leaseSeq++
	l := &leaseRec{id: strconv.FormatUint(c.leaseSeq, 10), worker: worker, ent: q, expires: now.Add(c.o.Lease)}
	c.leases[l.id] = l
	heap.Push(&c.lexp, leaseItem{l.id, l.expires})
	return &Lease{Entry: q.e, ID: l.id, Worker: worker, Expires: l.expires}, 0, nil
}

func (c *core) renew(now time.Time, id string) (time.Time, error) {
	l := c.leases[id]
	if l == nil {
		return time.Time{}, ErrLeaseLost
	}
	l.expires = now.Add(c.o.Lease)
	heap.Push(&c.lexp, leaseItem{l.id, l.expires})
	return l.expires, nil
}

// end removes lease id and frees its host's connection.
func (c *core) end(id string) (*leaseRec, *hostState, error) {
	l := c.leases[id]
	if l == nil {
		return nil, nil, ErrLeaseLost
	}
	delete(c.leases, id)
	h := c.host(l.ent.e.Host)
	if !l.freed {
		h.active--
	}
	c.fix(h)
	return l, h, nil
}

// free gives lease id's host connection back; the lease stays.
func (c *core) free(id string) error {
	l := c.leases[id]
	if l == nil {
		return ErrLeaseLost
	}
	if !l.freed {
		l.freed = true
		h := c.host(l.ent.e.Host)
		h.active--
		c.fix(h)
	}
	return nil
}

func (c *core) finish(id string, o Outcome) error {
	l, h, err := c.end(id)
	if err != nil {
		return err
	}
	c.done++
	h.done++
	if o == Failed {
		c.failed++
		h.failed++
	}
	c.remove(bQueue, u64(l.ent.seq))
	c.saveHost(h)
	c.saveCounters()
	return nil
}

func (c *core) release(now time.Time, id string, e Entry) error {
	l, _, err := c.end(id)
	if err != nil {
		return err
	}
	e.URL, e.Host = l.ent.e.URL, l.ent.e.Host // the seen set and host are the lease's
	l.ent.e = e
	c.saveEntry(l.ent)
	c.queued++
	c.enqueue(l.ent, now)
	return nil
}

func (c *core) delay(host string, until time.Time) {
	h := c.host(host)
	if until.After(h.notBefore) {
		h.notBefore = until
		c.fix(h)
		c.saveHost(h)
	}
}

func (c *core) setInterval(host string, d time.Duration) {
	h := c.host(host)
	if d != h.interval {
		h.interval = d
		c.saveHost(h)
	}
}

func (c *core) setRobots(now time.Time, host string, body []byte, ttl time.Duration) {
	r := robotsRec{body: append([]byte(nil), body...), expires: now.Add(ttl)}
	c.robots[host] = r
	c.record(bRobots, []byte(host), append(u64(uint64(r.expires.UnixNano())), r.body...))
}

func (c *core) getRobots(now time.Time, host string) ([]byte, bool) {
	r, ok := c.robots[host]
	if !ok || !r.expires.After(now) {
		return nil, false
	}
	return append([]byte(nil), r.body...), true
}

func (c *core) stop() {
	c.stopped = true
	c.record(bMeta, []byte("stop"), []byte{1})
}

func (c *core) over() bool { return c.queued == 0 && len(c.leases) == 0 }

func (c *core) stats() Stats {
	s := Stats{Queued: c.queued, Leased: int64(len(c.leases)), Done: c.done, Failed: c.failed,
		Seen: int64(len(c.seen)), Expired: c.expired, Stopped: c.stopped, Hosts: map[string]HostStats{}}
	for name, h := range c.hosts {
		s.Hosts[name] = HostStats{Queued: int64(h.q.Len()) + h.delayed, Leased: int64(h.active), Done: h.done, Failed: h.failed}
	}
	return s
}

type entHeap []*qent

func (h entHeap) Len() int { return len(h) }
func (h entHeap) Less(i, j int) bool {
	if h[i].e.Depth != h[j].e.Depth {
		return h[i].e.Depth < h[j].e.Depth
	}
	return h[i].seq < h[j].seq
}
func (h entHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *entHeap) Push(x any)   { *h = append(*h, x.(*qent)) }
func (h *entHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return x
}

type delayHeap []*qent

func (h delayHeap) Len() int { return len(h) }
func (h delayHeap) Less(i, j int) bool {
	if !h[i].e.ReadyAt.Equal(h[j].e.ReadyAt) {
		return h[i].e.ReadyAt.Before(h[j].e.ReadyAt)
	}
	return h[i].seq < h[j].seq
}
func (h delayHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *delayHeap) Push(x any)   { *h = append(*h, x.(*qent)) }
func (h *delayHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return x
}

type schedHeap []*hostState

func (h schedHeap) Len() int { return len(h) }
func (h schedHeap) Less(i, j int) bool {
	a, b := h[i], h[j]
	da, db := a.next, b.next
	if a.notBefore.After(da) {
		da = a.notBefore
	}
	if b.notBefore.After(db) {
		db = b.notBefore
	}
	return da.Before(db)
}
func (h schedHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].sidx = i
	h[j].sidx = j
}
func (h *schedHeap) Push(x any) {
	hs := x.(*hostState)
	hs.sidx = len(*h)
	*h = append(*h, hs)
}
func (h *schedHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	x.sidx = -1
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return x
}

type leaseItem struct {
	id      string
	expires time.Time
}

type leaseHeap []leaseItem

func (h leaseHeap) Len() int           { return len(h) }
func (h leaseHeap) Less(i, j int) bool { return h[i].expires.Before(h[j].expires) }
func (h leaseHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *leaseHeap) Push(x any)        { *h = append(*h, x.(leaseItem)) }
func (h *leaseHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
