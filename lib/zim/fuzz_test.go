package zim

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzReader opens arbitrary bytes as an archive and, when that works,
// visits every entry, blob, cluster and index and runs Check: no input may
// panic, hang or allocate beyond the limits. Seeds: every fixture under
// 100 KB and the synthetic archives of the tests.
func FuzzReader(f *testing.F) {
	files, _ := filepath.Glob(fx("*/*.zim*"))
	for _, p := range files {
		if st, err := os.Stat(p); err == nil && st.Size() < 100<<10 {
			b, err := os.ReadFile(p)
			if err == nil {
				f.Add(b)
			}
		}
	}
	for _, c := range []struct {
		comp byte
		ext  bool
	}{{1, false}, {4, false}, {5, true}} {
		s := synthetic(c.comp, c.ext)
		s.Entries[1].Data = []byte("small") // keep seeds small
		f.Add(build(f, s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		// small limits keep each run short: decompression work is bounded
		// by the data, not the claims, but a zstd stream can expand a lot.
		lim := func(o *options) { o.xzMaxDict, o.maxInMemory = 8<<20, 1<<20 }
		a, err := New(bytes.NewReader(b), int64(len(b)), WithName("fuzz.zim"), lim)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		visitAll(a, 64)
		a.Check(CheckOptions{Checksum: true})
	})
}
