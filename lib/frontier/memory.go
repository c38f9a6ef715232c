package frontier

import (
	"context"
	"sync"
	"time"
)

// Memory is the frontier of one process that keeps nothing: what the
// crawler does for a plain run. Its seen set costs about 8 bytes of hash
// and the Go map's overhead per URL.
type Memory struct {
	mu     sync.Mutex
	c      *core
	closed bool
	now    func() time.Time
}

// NewMemory returns an empty in-memory frontier.
func NewMemory(o Options) *Memory {
	return &Memory{c: newCore(o), now: time.Now}
}

func (m *Memory) lock() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return ErrClosed
	}
	return nil
}

// Add implements Frontier.
func (m *Memory) Add(ctx context.Context, entries ...Entry) (int, error) {
	if err := m.lock(); err != nil {
		return 0, err
	}
	defer m.mu.Unlock()
	return m.c.add(m.now(), entries), nil
}

// Take implements Frontier.
func (m *Memory) Take(ctx context.Context, worker string) (*Lease, time.Duration, error) {
	if err := m.lock(); err != nil {
		return nil, 0, err
	}
	defer m.mu.Unlock()
	return m.c.take(m.now(), worker)
}

// Renew implements Frontier.
func (m *Memory) Renew(ctx context.Context, l *Lease) error {
	if err := m.lock(); err != nil {
		return err
	}
	defer m.mu.Unlock()
	exp, err := m.c.renew(m.now(), l.ID)
	if err == nil {
		l.Expires = exp
	}
	return err
}

// Free implements Frontier.
func (m *Memory) Free(ctx context.Context, l *Lease) error {
	if err := m.lock(); err != nil {
		return err
	}
	defer m.mu.Unlock()
	return m.c.free(l.ID)
}

// Done implements Frontier.
func (m *Memory) Done(ctx context.Context, l *Lease, o Outcome) error {
	if err := m.lock(); err != nil {
		return err
	}
	defer m.mu.Unlock()
	return m.c.finish(l.ID, o)
}

// Release implements Frontier.
func (m *Memory) Release(ctx context.Context, l *Lease) error {
	if err := m.lock(); err != nil {
		return err
	}
	defer m.mu.Unlock()
	return m.c.release(m.now(), l.ID, l.Entry)
}

// Delay implements Frontier.
func (m *Memory) Delay(ctx context.Context, host string, until time.Time) error {
	if err := m.lock(); err != nil {
		return err
	}
	defer m.mu.Unlock()
	m.c.delay(host, until)
	return nil
}

// SetInterval implements Frontier.
func (m *Memory) SetInterval(ctx context.Context, host string, d time.Duration) error {
	if err := m.lock(); err != nil {
		return err
	}
	defer m.mu.Unlock()
	m.c.setInterval(host, d)
	return nil
}

// Robots implements Frontier.
func (m *Memory) Robots(ctx context.Context, host string) ([]byte, bool, error) {
	if err := m.lock(); err != nil {
		return nil, false, err
	}
	defer m.mu.Unlock()
	b, ok := m.c.getRobots(m.now(), host)
	return b, ok, nil
}

// SetRobots implements Frontier.
func (m *Memory) SetRobots(ctx context.Context, host string, body []byte, ttl time.Duration) error {
	if err := m.lock(); err != nil {
		return err
	}
	defer m.mu.Unlock()
	m.c.setRobots(m.now(), host, body, ttl)
	return nil
}

// Stats implements Frontier.
func (m *Memory) Stats(ctx context.Context) (Stats, error) {
	if err := m.lock(); err != nil {
		return Stats{}, err
	}
	defer m.mu.Unlock()
	return m.c.stats(), nil
}

// Stop implements Frontier.
func (m *Memory) Stop(ctx context.Context) error {
	if err := m.lock(); err != nil {
		return err
	}
	defer m.mu.Unlock()
	m.c.stop()
	return nil
}

// Over implements Frontier.
func (m *Memory) Over(ctx context.Context) (bool, error) {
	if err := m.lock(); err != nil {
		return false, err
	}
	defer m.mu.Unlock()
	return m.c.over(), nil
}

// Close implements Frontier.
func (m *Memory) Close() error {
	m.mu.Lock()
	m.closed = true
	m.mu.Unlock()
	return nil
}
