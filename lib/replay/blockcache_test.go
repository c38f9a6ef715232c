package replay

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// zipQuery runs a CDX query on a ZipNum source and returns its lines.
func zipQuery(t testing.TB, z *zipNumSource, params map[string]string) string {
	p := map[string]string{"nosource": "true"}
	for k, v := range params {
		p[k] = v
	}
	q := &query{params: p, done: new([]func())}
	defer func() {
		for _, f := range *q.done {
			f()
		}
	}()
	it, err := runQuery(z, q)
	if err != nil {
		return "error: " + err.Error()
	}
	var b strings.Builder
	for {
		c, err := it()
		if err != nil {
			b.WriteString("error: " + err.Error())
			break
		}
		if c == nil {
			break
		}
		b.Write(c.toJSON(nil, nil))
		b.WriteByte('\n')
	}
	return b.String()
}

// zipQueries are queries on the sample cluster: exact, prefix and
// domain lookups, pages of them, over one block and several.
func zipQueries() []map[string]string {
	var qs []map[string]string
	for _, u := range []string{"http://www.iana.org/_css/2013.1/screen.css", "http://iana.org/domains/example", "http://www.iana.org/", "http://example.com/", "http://www.iana.org/about/"} {
		qs = append(qs, map[string]string{"url": u}, map[string]string{"url": u, "matchType": "prefix"})
	}
	for p := 0; p < 10; p++ {
		qs = append(qs, map[string]string{"url": "*.iana.org", "pageSize": "4", "page": fmt.Sprint(p)})
	}
	qs = append(qs, map[string]string{"url": "iana.org", "matchType": "domain"}, map[string]string{"url": "*.iana.org", "showNumPages": "true"})
	return qs
}

// TestZipNumBlockCacheConcurrent: many requests for the same blocks and
// different ones at once, with a cache small enough to evict, answer as
// an uncached source does; requests that want one block at the same time
// inflate it once.
func TestZipNumBlockCacheConcurrent(t *testing.T) {
	sa := sampleArchive(t)
	idx := filepath.Join(sa, "zipcdx", "zipnum-sample.idx")
	open := func(c *blockCache) *zipNumSource {
		z, err := newZipNumSource(nil, idx, "")
		if err != nil {
			t.Fatal(err)
		}
		z.blocks = c
		return z
	}
	qs := zipQueries()
	plain := open(newBlockCache(0))
	want := make([]string, len(qs))
	for i, q := range qs {
		want[i] = zipQuery(t, plain, q)
		if want[i] == "" || strings.HasPrefix(want[i], "error") {
			t.Fatalf("%v: %q", q, want[i])
		}
	}
	if _, n, _ := plain.blocks.stats(); n != 0 {
		t.Fatalf("a cache of 0 bytes holds %d blocks", n)
	}
	// a cache of ~7 blocks (of ~1.1 KB): most queries evict
	for _, size := range []int64{8 << 10, 32 << 20} {
		z := open(newBlockCache(size))
		var wg sync.WaitGroup
		for g := 0; g < 16; g++ {
			wg.Add(1)
			go func(g int) {
				defer wg.Done()
				r := rand.New(rand.NewSource(int64(g)))
				for n := 0; n < 40; n++ {
					i := r.Intn(len(qs))
					if g%2 == 0 {
						i = n % 3 // the same blocks
					}
					if got := zipQuery(t, z, qs[i]); got != want[i] {
						t.Errorf("cache %d, %v: %q, want %q", size, qs[i], got, want[i])
						return
					}
				}
			}(g)
		}
		wg.Wait()
		used, n, inflates := z.blocks.stats()
		if used > size {
			t.Errorf("cache %d holds %d bytes", size, used)
		}
		t.Logf("cache %d: %d bytes in %d blocks, %d inflates", size, used, n, inflates)
	}
	// one inflate per block for requests arriving together
	for i, q := range qs {
		seq := open(newBlockCache(32 << 20))
		zipQuery(t, seq, q)
		_, _, once := seq.blocks.stats()
		z := open(newBlockCache(32 << 20))
		start := make(chan struct{})
		var wg sync.WaitGroup
		for g := 0; g < 8; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				if got := zipQuery(t, z, q); got != want[i] {
					t.Errorf("%v: %q, want %q", q, got, want[i])
				}
			}()
		}
		close(start)
		wg.Wait()
		if _, _, n := z.blocks.stats(); n != once {
			t.Errorf("%v: 8 requests at once inflated %d blocks, one request %d", q, n, once)
		}
	}
}

// BenchmarkZipNumCluster measures exact lookups on the cluster of
// $ARCPORT_ZIPNUM_CLUSTER (a folder with cluster.idx and keys.txt, as
// scripts/bench.d/serve.sh makes with servebench cluster), two workers,
// with the block cache of $ARCPORT_ZIPNUM_CACHE bytes (default 32 MiB; 0:
// none), keys in turn (KEYS=cycle, every block in turn) or drawn from a
// Zipf law (KEYS=zipf); it reports lookups/s and p99.
func BenchmarkZipNumCluster(b *testing.B) {
	dir := os.Getenv("ARCPORT_ZIPNUM_CLUSTER")
	if dir == "" {
		b.Skip("ARCPORT_ZIPNUM_CLUSTER unset")
	}
	raw, err := os.ReadFile(filepath.Join(dir, "keys.txt"))
	if err != nil {
		b.Fatal(err)
	}
	keys := strings.Fields(string(raw))
	size := int64(zipNumCacheBytes)
	if v := os.Getenv("ARCPORT_ZIPNUM_CACHE"); v != "" {
		fmt.Sscan(v, &size)
	}
	z, err := newZipNumSource(nil, filepath.Join(dir, "cluster.idx"), "")
	if err != nil {
		b.Fatal(err)
	}
	z.blocks = newBlockCache(size)
	zipf := os.Getenv("KEYS") == "zipf"
	var mu sync.Mutex
	var lat []time.Duration
	var next int64
	b.SetParallelism(1)
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		r := rand.New(rand.NewSource(time.Now().UnixNano()))
		zf := rand.NewZipf(r, 1.1, 1, uint64(len(keys)-1))
		var mine []time.Duration
		for pb.Next() {
			var k string
			if zipf {
				k = keys[zf.Uint64()]
			} else {
				mu.Lock()
				k = keys[next%int64(len(keys))]
				next++
				mu.Unlock()
			}
			t0 := time.Now()
			if out := zipQuery(b, z, map[string]string{"url": k}); out == "" || strings.HasPrefix(out, "error") {
				b.Errorf("%s: %q", k, out)
				return
			}
			mine = append(mine, time.Since(t0))
		}
		mu.Lock()
		lat = append(lat, mine...)
		mu.Unlock()
	})
	el := time.Since(start)
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	if len(lat) > 0 {
		b.ReportMetric(float64(len(lat))/el.Seconds(), "lookups/s")
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
		used, n, inflates := z.blocks.stats()
		b.ReportMetric(float64(inflates)/float64(len(lat)), "inflates/lookup")
		b.Logf("cache %d: %d bytes, %d blocks", size, used, n)
	}
}
