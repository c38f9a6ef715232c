package browser

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"
)

// BenchmarkRender renders the shop of the test site (40 requests, 30 lazy
// images, a worker, a cross-site frame) page after page in one browser,
// and reports the peak memory of Chromium's processes (proportional set
// size, so shared pages are counted once).
func BenchmarkRender(b *testing.B) {
	br := start(b)
	s := newSite(b)
	opts := PageOptions{Idle: 500 * time.Millisecond}
	var peak int64
	for b.Loop() {
		if _, err := br.Render(context.Background(), s.URL+"/", newFetcher().fetch, opts); err != nil {
			b.Fatal(err)
		}
		peak = max(peak, pss(br.home))
	}
	b.ReportMetric(float64(peak)/(1<<20), "chromium-MiB")
}

// pss sums the proportional set size of the processes naming dir.
func pss(dir string) int64 {
	var n int64
	for _, pid := range processesUsing(dir) {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		for sc.Scan() {
			if f := bytes.Fields(sc.Bytes()); len(f) >= 2 && string(f[0]) == "Pss:" {
				kb, _ := strconv.ParseInt(string(f[1]), 10, 64)
				n += kb << 10
			}
		}
	}
	return n
}
