package htcache

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchCache writes a cache of n HTML entries of about 8 KiB each.
func benchCache(b *testing.B, n int) (string, int64) {
	b.Helper()
	p := filepath.Join(b.TempDir(), "new.zip")
	f, err := os.Create(p)
	if err != nil {
		b.Fatal(err)
	}
	zw := NewWriter(f)
	var total int64
	for i := 0; i < n; i++ {
		body := []byte(fmt.Sprintf("<html><body><h1>Page %d</h1>%s</body></html>", i, strings.Repeat(fmt.Sprintf("<p>paragraph %d of page %d</p>\n", i%97, i), 300)))
		m := Meta{InCache: true, StatusCode: 200, StatusMessage: "OK", Size: int64(len(body)), ContentType: "text/html",
			Charset: "utf-8", ETag: fmt.Sprintf(`"%x"`, i), Addr: "example.com", Fil: fmt.Sprintf("/p/%d.html", i),
			Save: fmt.Sprintf("example.com/p/%d.html", i)}
		if err := zw.Add("http://example.com/p/"+fmt.Sprint(i)+".html", &m, bytes.NewReader(body)); err != nil {
			b.Fatal(err)
		}
		total += int64(len(body))
	}
	zw.Close()
	f.Close()
	return p, total
}

// BenchmarkZipScan: scanning local headers only (ls, info).
func BenchmarkZipScan(b *testing.B) {
	p, _ := benchCache(b, 2000)
	f, _ := os.Open(p)
	defer f.Close()
	st, _ := f.Stat()
	b.SetBytes(st.Size())
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		z, err := NewZipReader(f, st.Size(), p)
		if err != nil {
			b.Fatal(err)
		}
		for {
			if _, err := z.Next(); err != nil {
				break
			}
		}
	}
}

// BenchmarkRecords: entries to records with bodies read (export without the
// WARC writer), bytes counted uncompressed.
func BenchmarkRecords(b *testing.B) {
	p, total := benchCache(b, 2000)
	b.SetBytes(total)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c, err := Open(p)
		if err != nil {
			b.Fatal(err)
		}
		rr, _ := NewRecordReader(c)
		for {
			r, err := rr.Next()
			if err != nil {
				break
			}
			io.Copy(io.Discard, r.Block)
		}
		c.Close()
	}
}

// BenchmarkWriter: writing a cache zip (deflate included).
func BenchmarkWriter(b *testing.B) {
	body := []byte(strings.Repeat("<p>some html text for the cache</p>\n", 230))
	m := Meta{InCache: true, StatusCode: 200, StatusMessage: "OK", Size: int64(len(body)), ContentType: "text/html"}
	b.SetBytes(int64(len(body)))
	zw := NewWriter(io.Discard)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := zw.Add("http://example.com/x", &m, bytes.NewReader(body)); err != nil {
			b.Fatal(err)
		}
	}
	zw.Close()
}
