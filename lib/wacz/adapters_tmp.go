package wacz

// TEMPORARY scaffolding until lib/warc's Writer and lib/cdx land: a plain
// gzip-per-record serializer and a minimal CDXJ line builder, so the
// pipeline can be exercised. To be replaced by the shared packages.

import (
	"bytes"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/arcport/arcport/lib/record"
	"github.com/klauspost/compress/gzip"
)

type recordWriter interface {
	WriteRecord(*record.Record) error
	Close() error
}

type tmpWriter struct {
	w   io.Writer
	off int64
	fn  func(*record.Record, int64, int64)
	gz  *gzip.Writer
}

func newRecordWriter(w io.Writer, fn func(*record.Record, int64, int64)) recordWriter {
	return &tmpWriter{w: w, fn: fn}
}

func (t *tmpWriter) WriteRecord(rec *record.Record) error {
	var body bytes.Buffer
	if rec.Block != nil {
		if _, err := io.Copy(&body, rec.Block); err != nil {
			return err
		}
	}
	cw := &countWriter{w: t.w}
	if t.gz == nil {
		t.gz = gzip.NewWriter(cw)
	} else {
		t.gz.Reset(cw)
	}
	v := rec.Version
	if !strings.HasPrefix(v, "WARC/") {
		v = "WARC/1.1"
	}
	fmt.Fprintf(t.gz, "%s\r\n", v)
	rec.Header.Set(record.FieldContentLength, fmt.Sprint(body.Len()))
	for _, f := range rec.Header {
		fmt.Fprintf(t.gz, "%s: %s\r\n", f.Name, f.Value)
	}
	t.gz.Write([]byte("\r\n"))
	t.gz.Write(body.Bytes())
	t.gz.Write([]byte("\r\n\r\n"))
	if err := t.gz.Close(); err != nil {
		return err
	}
	t.fn(rec, t.off, cw.n)
	t.off += cw.n
	return nil
}

func (t *tmpWriter) Close() error { return nil }

type limitedBuffer struct {
	b *bytes.Buffer
	n int
}

func (lb limitedBuffer) Write(p []byte) (int, error) {
	if room := lb.n - lb.b.Len(); room > 0 {
		lb.b.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

type indexSet struct {
	lines []string
}

func newIndexSet(tmpDir string) *indexSet { return &indexSet{} }

func (s *indexSet) add(line string) error { s.lines = append(s.lines, line); return nil }

func (s *indexSet) cleanup() {}

func (s *indexSet) write(zw *ZipWriter, hashAlg string) ([]Resource, error) {
	sort.Strings(s.lines)
	e, err := zw.Create(IndexesDir+"index.cdx", Deflate, hashAlg)
	if err != nil {
		return nil, err
	}
	for _, l := range s.lines {
		io.WriteString(e, l+"\n")
	}
	if err := e.Close(); err != nil {
		return nil, err
	}
	return []Resource{{Name: "index.cdx", Path: e.Name(), Hash: e.Hash(), Bytes: e.Size()}}, nil
}
