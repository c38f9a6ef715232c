package frontier

import (
	"fmt"
	"testing"
)

// BenchmarkTakeDone measures Take+Done pairs of the Memory and Bolt
// frontiers from 4×GOMAXPROCS goroutines (Bolt commits the Dones made
// meanwhile in one transaction, one fsync), URLs over 100 hosts.
func BenchmarkTakeDone(b *testing.B) {
	for _, kind := range []string{"memory", "bolt"} {
		b.Run(kind, func(b *testing.B) {
			o := Options{PerHost: 1000}
			var f Frontier
			dir := b.TempDir()
			if kind == "memory" {
				f = NewMemory(o)
			} else {
				bf, err := OpenBolt(dir, o)
				if err != nil {
					b.Fatal(err)
				}
				f = bf
			}
			defer f.Close()
			var es []Entry
			for i := range b.N {
				es = append(es, Entry{URL: fmt.Sprintf("https://www.host%d.example.com/section/%d/page-%d.html", i%100, i/1000, i)})
			}
			if _, err := f.Add(bg, es...); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			b.SetParallelism(4) // 4×GOMAXPROCS workers, as a crawler's connections
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					l, _, err := f.Take(bg, "w")
					if err != nil || l == nil {
						b.Errorf("Take: %v %v", l, err)
						return
					}
					if err := f.Done(bg, l, Fetched); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "takedone/s")
		})
	}
}
