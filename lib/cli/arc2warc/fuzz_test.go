package arc2warc

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/arcport/arcport/lib/internal/compio"
	"github.com/arcport/arcport/lib/record"
)

// FuzzRecompress: recompress never panics or hangs, and when it succeeds
// its output is gzip holding records each followed by CRLF CRLF.
func FuzzRecompress(f *testing.F) {
	files, _ := filepath.Glob("../../../testdata/warc/*.warc*")
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil && len(b) < 64<<10 {
			f.Add(b)
		}
	}
	f.Add([]byte("WARC/1.1\r\nContent-Length: 3\r\n\r\nabc\r\n\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var out bytes.Buffer
		s := newSink(options{version: record.WARC11, compression: compio.Gzip}, "", &out, 0)
		n, _, err := recompress(bytes.NewReader(data), "fuzz", s, func(string) {})
		if cerr := s.Close(); err == nil && cerr != nil {
			t.Fatalf("close: %v", cerr)
		}
		if err != nil {
			return
		}
		if n == 0 {
			return
		}
		zr, err := gzip.NewReader(&out)
		if err != nil {
			t.Fatalf("%d records but output not gzip: %v", n, err)
		}
		plain, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(plain, []byte("WARC/")) || !bytes.HasSuffix(plain, []byte("\r\n\r\n")) || bytes.Count(plain, []byte("\r\n\r\n")) < n {
			t.Fatalf("%d records: output %.100q", n, plain)
		}
	})
}
