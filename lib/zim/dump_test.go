package zim

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/arcport/arcport/lib/internal/zimtest"
)

// TestDumpWorkers: the files of a dump are the same whatever the number of
// decompressing goroutines (1: all in the caller), with batches split at
// batchBytes (a stored cluster of 3 x 5 MiB), zstd and XZ clusters,
// subfolders and redirect pages; each file holds its entry's bytes.
func TestDumpWorkers(t *testing.T) {
	s := zimtest.Spec{Clusters: []zimtest.Cluster{{Comp: 1}, {Comp: 5}, {Comp: 4}, {Comp: 5, Extended: true}}}
	want := map[string][]byte{}
	for i := 0; i < 3; i++ {
		p := fmt.Sprintf("big/%d.bin", i)
		d := bytes.Repeat([]byte{byte('a' + i)}, 5<<20)
		s.Entries = append(s.Entries, zimtest.Entry{NS: 'C', Path: p, Mime: "application/octet-stream", Data: d, Cluster: 0})
		want[p] = d
	}
	for i := 0; i < 300; i++ {
		p := fmt.Sprintf("d%d/page%d.html", i%7, i)
		d := []byte(fmt.Sprintf("<p>page %d</p>", i))
		s.Entries = append(s.Entries, zimtest.Entry{NS: 'C', Path: p, Mime: "text/html", Data: d, Cluster: 1 + i%3})
		want[p] = d
	}
	s.Entries = append(s.Entries, zimtest.Entry{NS: 'C', Path: "go.html", Target: "C/d0/page0.html"})
	want["go.html"] = []byte(RedirectHTML("d0/page0.html"))
	a := openBytes(t, build(t, s))
	for _, w := range []int{1, 2, 8} {
		dir := filepath.Join(t.TempDir(), "out")
		if err := a.Dump(dir, DumpOptions{Workers: w}); err != nil {
			t.Fatalf("workers %d: %v", w, err)
		}
		n := 0
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(dir, p)
			b, err := os.ReadFile(p)
			if err != nil || !bytes.Equal(b, want[rel]) {
				t.Errorf("workers %d: %s: %d bytes, want %d (%v)", w, rel, len(b), len(want[rel]), err)
			}
			n++
			return nil
		})
		if n != len(want) {
			t.Errorf("workers %d: %d files, want %d", w, n, len(want))
		}
	}
}
