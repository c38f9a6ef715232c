package arc

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/arcport/arcport/lib/record"
)

// FuzzReader feeds arbitrary bytes to the reader and the converter under both
// policies: no panic, no hang, and never more block bytes than the input
// holds (for plain input).
func FuzzReader(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(fixtures, "*"))
	for _, name := range files {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(v1(recA(len(bodyA)+40), recB(len(bodyB)-3))))
	f.Add([]byte(recA(-1) + "\n" + recB(len(bodyB))))
	f.Add(gz(f, v1Filedesc(len(v1Lines))+"\n", recA(len(bodyA))+"\n", "junk"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, p := range []record.Policy{record.Warn, record.Fail} {
			r, err := NewReader(bytes.NewReader(data), WithPolicy(p), WithBufferSize(minBufSize))
			if err != nil {
				return
			}
			c := NewConverter(r)
			var total int64
			for i := 0; ; i++ {
				rec, err := c.Next()
				if err != nil {
					break
				}
				if rec.Block != nil {
					n, _ := io.Copy(io.Discard, rec.Block)
					total += n
				}
				if i > len(data)+10 {
					t.Fatal("more records than input bytes")
				}
			}
			if r.Format().String() == "plain" && total > 2*int64(len(data))+1024 {
				// Metadata records repeat the version block line, and
				// warcinfo bodies are generated: allow for both.
				t.Fatalf("%d block bytes from %d input bytes", total, len(data))
			}
		}
	})
}
