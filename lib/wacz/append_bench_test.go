package wacz

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
)

// writeBenchWARC writes a gzip-per-record WARC of about size bytes:
// responses of 10 KiB of random bytes under distinct URLs, so that the
// WACZ made of it has an index of realistic size (one line per 10 KiB).
func writeBenchWARC(b *testing.B, path string, size int64) {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	rnd := rand.New(rand.NewSource(1))
	body := make([]byte, 10<<10)
	gz, _ := gzip.NewWriterLevel(bw, gzip.HuffmanOnly)
	var rec bytes.Buffer
	for i, n := 0, int64(0); n < size; i++ {
		rnd.Read(body)
		http := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: %d\r\n\r\n", len(body))
		rec.Reset()
		fmt.Fprintf(&rec, "WARC/1.1\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:%08x-0000-4000-8000-000000000000>\r\nWARC-Date: 2022-01-01T00:00:00Z\r\nWARC-Target-URI: http://bench.example/%d/file-%d.bin\r\nContent-Type: application/http; msgtype=response\r\nContent-Length: %d\r\n\r\n%s",
			i, i%97, i, len(http)+len(body), http)
		rec.Write(body)
		rec.WriteString("\r\n\r\n")
		gz.Reset(bw)
		gz.Write(rec.Bytes())
		gz.Close()
		n += int64(rec.Len())
	}
	if err := bw.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
}

// procWritten returns the bytes this process has passed to write(2) so
// far (wchar of /proc/self/io: the journal, temp files and the WACZ).
func procWritten(b *testing.B) int64 {
	raw, err := os.ReadFile("/proc/self/io")
	if err != nil {
		b.Skip("no /proc/self/io")
	}
	for _, l := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(l, "wchar: "); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	b.Skip("no wchar in /proc/self/io")
	return 0
}

// BenchmarkAppendSmall adds example.warc.gz (3.8 KB) to a WACZ of
// APPEND_BENCH_MB MiB (default 200) and reports the bytes written per add
// (everything the process wrote: the journal, the index sort, the new
// tail of the WACZ), the journal's size and the WACZ's growth.
func BenchmarkAppendSmall(b *testing.B) {
	mb := int64(200)
	if s := os.Getenv("APPEND_BENCH_MB"); s != "" {
		mb, _ = strconv.ParseInt(s, 10, 64)
	}
	dir := b.TempDir()
	in := filepath.Join(dir, "big.warc.gz")
	writeBenchWARC(b, in, mb<<20)
	path := filepath.Join(dir, "site.wacz")
	out, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w, err := NewWriter(out, Options{TempDir: dir})
	if err != nil {
		b.Fatal(err)
	}
	src, _ := os.Open(in)
	if err := w.AddInput(in, src); err != nil {
		b.Fatal(err)
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	src.Close()
	out.Close()
	os.Remove(in)
	small := readTD(b, "example.warc.gz")
	var written, journal, growth, size int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		before := procWritten(b)
		a, err := OpenAppend(path, Options{TempDir: dir})
		if err != nil {
			b.Fatal(err)
		}
		if err := a.AddInput("small.warc.gz", bytes.NewReader(small.data)); err != nil {
			b.Fatal(err)
		}
		if err := a.Close(); err != nil {
			b.Fatal(err)
		}
		written += procWritten(b) - before
		st := a.Stats()
		journal += st.Journal
		growth += st.NewSize - st.OldSize
		size = st.NewSize
	}
	b.ReportMetric(float64(written)/float64(b.N), "written-B/op")
	b.ReportMetric(float64(journal)/float64(b.N), "journal-B/op")
	b.ReportMetric(float64(growth)/float64(b.N), "growth-B/op")
	b.ReportMetric(float64(size), "wacz-B")
}
