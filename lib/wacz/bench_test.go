package wacz

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkCreate packs WACZ_BENCH_INPUT (a WARC or ARC file; skipped when
// unset), e.g. the bench.sh input, into a WACZ.
func BenchmarkCreate(b *testing.B) { benchCreate(b, Options{}) }

// BenchmarkCreateVerify is BenchmarkCreate with Options.Verify: every gzip
// member inflated to its end by klauspost/compress (CRC checked) instead of
// skipped once the index has what it needs.
func BenchmarkCreateVerify(b *testing.B) { benchCreate(b, Options{Verify: true}) }

// BenchmarkCreateNoFastPath is BenchmarkCreate with Options.NoFastPath:
// the input read by lib/warc's reader only (klauspost/compress inflating
// every member), with neither the prefix inflater nor the member-end
// heuristic.
func BenchmarkCreateNoFastPath(b *testing.B) { benchCreate(b, Options{NoFastPath: true}) }

func benchCreate(b *testing.B, opts Options) {
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
		opts.TempDir = dir
		w, err := NewWriter(out, opts)
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
