package zim

import (
	"os"
	"path/filepath"
	"testing"
)

// benchFile is the archive the benchmarks read: $ZIM_BENCH_FILE (for
// instance out/bench/in/zim-100000.zim, built by scripts/bench.sh) or the wikibooks fixture.
func benchFile() string {
	if f := os.Getenv("ZIM_BENCH_FILE"); f != "" {
		return f
	}
	return fx("nons/wikibooks_be_all_nopic_2017-02.zim")
}

// BenchmarkListDetails reads every user entry with its MIME type and blob
// size, as `zimdump list --details` does.
func BenchmarkListDetails(b *testing.B) {
	for i := 0; i < b.N; i++ {
		a := mustOpen(b, benchFile())
		start, end := a.UserRange()
		err := a.Entries(start, end, func(e *Entry) error {
			if e.Kind == KindItem {
				if _, err := a.MimeType(e); err != nil {
					return err
				}
				_, err := a.BlobSize(e)
				return err
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		a.Close()
	}
}

// BenchmarkDump extracts the archive into a temporary folder.
func BenchmarkDump(b *testing.B) {
	a := mustOpen(b, benchFile())
	for i := 0; i < b.N; i++ {
		dir := filepath.Join(b.TempDir(), "out")
		if err := a.Dump(dir, DumpOptions{}); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		os.RemoveAll(dir)
		b.StartTimer()
	}
}

// BenchmarkReadAllBlobs decompresses every cluster and reads every blob.
func BenchmarkReadAllBlobs(b *testing.B) {
	for i := 0; i < b.N; i++ {
		a := mustOpen(b, benchFile())
		order, err := a.EfficientOrder()
		if err != nil {
			b.Fatal(err)
		}
		for _, idx := range order {
			e, err := a.EntryAt(idx)
			if err != nil {
				b.Fatal(err)
			}
			if e.Kind == KindItem {
				if _, err := a.ReadBlob(e); err != nil {
					b.Fatal(err)
				}
			}
		}
		a.Close()
	}
}
