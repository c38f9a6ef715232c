package frontier

import (
	"testing"
	"time"
)

// TestCeilMs: delays go to Redis in whole milliseconds rounded up, so an
// entry due in 999.93 ms (a Retry-After of 1 s, less the time spent since
// the response) is not ready before it: truncating made TestSharedRedis
// see a retry 67 µs early.
func TestCeilMs(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want int64
	}{
		{-time.Second, 0}, {0, 0}, {1, 1}, {time.Millisecond, 1}, {time.Millisecond + 1, 2},
		{999930 * time.Microsecond, 1000}, {time.Second, 1000}, {90 * time.Minute, 5400000},
	} {
		if got := ceilMs(c.d); got != c.want {
			t.Errorf("ceilMs(%v) = %d, want %d", c.d, got, c.want)
		}
	}
	due := time.Now().Add(999930 * time.Microsecond)
	if ms := msUntil(due); time.Now().Add(time.Duration(ms) * time.Millisecond).Before(due) {
		t.Errorf("msUntil: %d ms from now is before the due time", ms)
	}
}
