package mirrorget

import (
	"fmt"
	"io"
	"time"

	"github.com/arcport/arcport/lib/crawl"
)

// progress prints one refreshed status line on stderr (a terminal): URLs
// done and queued, bytes received and the current rate.
type progress struct {
	done chan struct{}
	end  chan struct{}
}

func startProgress(c *crawl.Crawler, w io.Writer) *progress {
	p := &progress{done: make(chan struct{}), end: make(chan struct{})}
	go func() {
		defer close(p.end)
		t := time.NewTicker(500 * time.Millisecond)
		defer t.Stop()
		var lastBytes int64
		last := time.Now()
		rate := 0.0
		for {
			select {
			case <-p.done:
				fmt.Fprint(w, "\r\033[K")
				return
			case now := <-t.C:
				s := c.Stats()
				if dt := now.Sub(last).Seconds(); dt > 0 {
					r := float64(s.Bytes-lastBytes) / dt
					rate = 0.7*rate + 0.3*r
				}
				lastBytes, last = s.Bytes, now
				fmt.Fprintf(w, "\r\033[K%d done, %d queued, %d active, %s, %s/s", s.Done, s.Queued, s.Active, human(float64(s.Bytes)), human(rate))
			}
		}
	}()
	return p
}

func (p *progress) stop() {
	close(p.done)
	<-p.end
}

func human(n float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	i := 0
	for n >= 1024 && i < len(units)-1 {
		n /= 1024
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%.0f %s", n, units[i])
	}
	return fmt.Sprintf("%.1f %s", n, units[i])
}
