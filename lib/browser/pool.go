package browser

import (
	"context"
	"errors"
	"sync"
)

// Pool renders pages in at most a given number of tabs of one Chromium,
// started on first use and started again when it dies. A page whose tab
// crashed or hung, or whose browser died, is rendered once more in a new
// tab before its error is returned. Its methods may be called from several
// goroutines.
type Pool struct {
	opts Options
	tabs chan struct{}

	mu       sync.Mutex
	b        *Browser
	starting chan struct{} // closed when a start under way ends
	restarts int
	closed   bool
}

// NewPool returns a pool of tabs tabs (at least 1) of a Chromium started
// with opts.
func NewPool(opts Options, tabs int) *Pool {
	return &Pool{opts: opts, tabs: make(chan struct{}, max(tabs, 1))}
}

// Render renders url as Browser.Render does, waiting for a free tab first.
func (p *Pool) Render(ctx context.Context, url string, fetch FetchFunc, opts PageOptions) (*Page, error) {
	select {
	case p.tabs <- struct{}{}:
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
	defer func() { <-p.tabs }()
	var err error
	for try := 0; try < 2; try++ {
		var b *Browser
		if b, err = p.browser(ctx); err != nil {
			return nil, err
		}
		var pg *Page
		if pg, err = b.Render(ctx, url, fetch, opts); err == nil {
			return pg, nil
		}
		if errors.Is(err, ErrGone) {
			p.drop(b)
		}
		if ctx.Err() != nil || !(errors.Is(err, ErrGone) || errors.Is(err, ErrCrashed) || errors.Is(err, ErrTimeout)) {
			break
		}
	}
	return nil, err
}

// browser returns the running browser, starting one when there is none.
func (p *Pool) browser(ctx context.Context) (*Browser, error) {
	for {
		p.mu.Lock()
		switch {
		case p.closed:
			p.mu.Unlock()
			return nil, ErrGone
		case p.b != nil:
			b := p.b
			p.mu.Unlock()
			return b, nil
		case p.starting != nil:
			wait := p.starting
			p.mu.Unlock()
			select {
			case <-wait:
				continue
			case <-ctx.Done():
				return nil, context.Cause(ctx)
			}
		}
		done := make(chan struct{})
		p.starting = done
		p.mu.Unlock()
		b, err := Start(ctx, p.opts)
		p.mu.Lock()
		p.starting = nil
		close(done)
		if err == nil {
			if p.closed {
				p.mu.Unlock()
				b.Close()
				return nil, ErrGone
			}
			p.b = b
		}
		p.mu.Unlock()
		return b, err
	}
}

// drop closes b, a browser that died, unless it was replaced already.
func (p *Pool) drop(b *Browser) {
	p.mu.Lock()
	if p.b == b {
		p.b = nil
		p.restarts++
	}
	p.mu.Unlock()
	b.Close()
}

// Restarts says how often the browser died and was let go, to be started
// again on the next page.
func (p *Pool) Restarts() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.restarts
}

// Close stops the browser, if one runs; pages under way end with ErrGone.
func (p *Pool) Close() error {
	p.mu.Lock()
	p.closed = true
	b := p.b
	p.b = nil
	p.mu.Unlock()
	if b != nil {
		return b.Close()
	}
	return nil
}
