package replay

import (
	"bufio"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// metrics are the server's Prometheus metrics, written in the text
// exposition format (version 0.0.4) by hand: requests by route and
// status, their durations (a histogram by route), bytes served, requests
// in flight, open files and resident memory.
type metrics struct {
	inFlight atomic.Int64
	start    time.Time

	mu       sync.Mutex
	requests map[routeCode]uint64
	bytes    map[string]uint64
	hist     map[string]*histogram
}

type routeCode struct {
	route string
	code  int
}

// buckets are the duration histogram's upper bounds, in seconds.
var buckets = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

type histogram struct {
	counts []uint64 // per bucket, not cumulative
	sum    float64
	n      uint64
}

func newMetrics() *metrics {
	return &metrics{start: time.Now(), requests: map[routeCode]uint64{}, bytes: map[string]uint64{}, hist: map[string]*histogram{}}
}

func (m *metrics) observe(route string, code int, d time.Duration, n int64) {
	sec := d.Seconds()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.requests[routeCode{route, code}]++
	m.bytes[route] += uint64(n)
	h := m.hist[route]
	if h == nil {
		h = &histogram{counts: make([]uint64, len(buckets))}
		m.hist[route] = h
	}
	i := sort.SearchFloat64s(buckets, sec)
	if i < len(buckets) {
		h.counts[i]++
	}
	h.sum += sec
	h.n++
}

// openFDs counts the process's open file descriptors (Linux: /proc).
func openFDs() (int, bool) {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return 0, false
	}
	return len(ents), true
}

// residentBytes is the process's resident set size (Linux: /proc).
func residentBytes() (int64, bool) {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0, false
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0, false
	}
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return 0, false
	}
	return pages * int64(os.Getpagesize()), true
}

func fmtFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// serve writes the metrics.
func (m *metrics) serve(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if r.Method == http.MethodHead {
		return
	}
	bw := bufio.NewWriter(w)
	defer bw.Flush()
	m.mu.Lock()
	rcs := make([]routeCode, 0, len(m.requests))
	for k := range m.requests {
		rcs = append(rcs, k)
	}
	sort.Slice(rcs, func(i, j int) bool {
		if rcs[i].route != rcs[j].route {
			return rcs[i].route < rcs[j].route
		}
		return rcs[i].code < rcs[j].code
	})
	fmt.Fprintln(bw, "# HELP arcport_serve_requests_total HTTP requests answered, by route and status.")
	fmt.Fprintln(bw, "# TYPE arcport_serve_requests_total counter")
	for _, k := range rcs {
		fmt.Fprintf(bw, "arcport_serve_requests_total{route=%q,code=\"%d\"} %d\n", k.route, k.code, m.requests[k])
	}
	routes := make([]string, 0, len(m.hist))
	for k := range m.hist {
		routes = append(routes, k)
	}
	sort.Strings(routes)
	fmt.Fprintln(bw, "# HELP arcport_serve_request_duration_seconds Time from a request's arrival to the end of its answer, by route.")
	fmt.Fprintln(bw, "# TYPE arcport_serve_request_duration_seconds histogram")
	for _, rt := range routes {
		h := m.hist[rt]
		cum := uint64(0)
		for i, b := range buckets {
			cum += h.counts[i]
			fmt.Fprintf(bw, "arcport_serve_request_duration_seconds_bucket{route=%q,le=\"%s\"} %d\n", rt, fmtFloat(b), cum)
		}
		fmt.Fprintf(bw, "arcport_serve_request_duration_seconds_bucket{route=%q,le=\"+Inf\"} %d\n", rt, h.n)
		fmt.Fprintf(bw, "arcport_serve_request_duration_seconds_sum{route=%q} %s\n", rt, fmtFloat(h.sum))
		fmt.Fprintf(bw, "arcport_serve_request_duration_seconds_count{route=%q} %d\n", rt, h.n)
	}
	fmt.Fprintln(bw, "# HELP arcport_serve_response_bytes_total Bytes of answer bodies written, by route.")
	fmt.Fprintln(bw, "# TYPE arcport_serve_response_bytes_total counter")
	for _, rt := range routes {
		fmt.Fprintf(bw, "arcport_serve_response_bytes_total{route=%q} %d\n", rt, m.bytes[rt])
	}
	m.mu.Unlock()
	fmt.Fprintln(bw, "# HELP arcport_serve_requests_in_flight Requests being answered.")
	fmt.Fprintln(bw, "# TYPE arcport_serve_requests_in_flight gauge")
	fmt.Fprintf(bw, "arcport_serve_requests_in_flight %d\n", m.inFlight.Load())
	openFiles.Lock()
	nidx := len(openFiles.m)
	openFiles.Unlock()
	fmt.Fprintln(bw, "# HELP arcport_serve_index_files_open Local index files kept open between queries.")
	fmt.Fprintln(bw, "# TYPE arcport_serve_index_files_open gauge")
	fmt.Fprintf(bw, "arcport_serve_index_files_open %d\n", nidx)
	if n, ok := openFDs(); ok {
		fmt.Fprintln(bw, "# HELP process_open_fds Number of open file descriptors.")
		fmt.Fprintln(bw, "# TYPE process_open_fds gauge")
		fmt.Fprintf(bw, "process_open_fds %d\n", n)
	}
	if n, ok := residentBytes(); ok {
		fmt.Fprintln(bw, "# HELP process_resident_memory_bytes Resident memory size in bytes.")
		fmt.Fprintln(bw, "# TYPE process_resident_memory_bytes gauge")
		fmt.Fprintf(bw, "process_resident_memory_bytes %d\n", n)
	}
	fmt.Fprintln(bw, "# HELP process_start_time_seconds Start time of the server since the Unix epoch, in seconds.")
	fmt.Fprintln(bw, "# TYPE process_start_time_seconds gauge")
	fmt.Fprintf(bw, "process_start_time_seconds %s\n", fmtFloat(float64(m.start.UnixNano())/1e9))
	fmt.Fprintln(bw, "# HELP go_goroutines Number of goroutines that currently exist.")
	fmt.Fprintln(bw, "# TYPE go_goroutines gauge")
	fmt.Fprintf(bw, "go_goroutines %d\n", runtime.NumGoroutine())
}
