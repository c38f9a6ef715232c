package wacz

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkCreate packs WACZ_BENCH_INPUT (a WARC or ARC file; skipped when
// unset), e.g. the bench.sh input, into a WACZ.
func BenchmarkCreate(b *testing.B) {
	in := os.Getenv("WACZ_BENCH_INPUT")
	if in == "" {
		b.Skip("set WACZ_BENCH_INPUT to a WARC or ARC file")
	}
	st, err := os.Stat(in)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	dir := b.TempDir()
	for i := 0; i < b.N; i++ {
		src, err := os.Open(in)
		if err != nil {
			b.Fatal(err)
		}
		out, err := os.Create(filepath.Join(dir, "bench.wacz"))
		if err != nil {
			b.Fatal(err)
		}
		w, err := NewWriter(out, Options{TempDir: dir})
		if err != nil {
			b.Fatal(err)
		}
		if err := w.AddInput(in, src); err != nil {
			b.Fatal(err)
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
		src.Close()
		out.Close()
	}
}

// BenchmarkCreateFixture packs example.warc.gz (raw copy path).
func BenchmarkCreateFixture(b *testing.B) {
	in := readTD(b, "example.warc.gz")
	b.SetBytes(int64(len(in.data)))
	for i := 0; i < b.N; i++ {
		if _, _, err := buildWACZ(b, Options{}, in); err != nil {
			b.Fatal(err)
		}
	}
}
