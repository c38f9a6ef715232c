package cdx

import (
	"bytes"
	"fmt"
	"io"
	"testing"

	"github.com/arcport/arcport/lib/record"
	"github.com/arcport/arcport/lib/warc"
	"github.com/klauspost/compress/gzip"
)

// benchWARC builds a WARC of n request/response pairs (gzip per record
// when gz), with bodies of about 8 KiB, as crawlers write them.
func benchWARC(n int, gz bool) []byte {
	var out bytes.Buffer
	body := bytes.Repeat([]byte("<p>lorem ipsum dolor sit amet</p>\n"), 240)
	add := func(rec []byte) {
		if !gz {
			out.Write(rec)
			return
		}
		w := gzip.NewWriter(&out)
		w.Write(rec)
		w.Close()
	}
	for i := 0; i < n; i++ {
		url := fmt.Sprintf("http://www.example.com/section%d/page%d.html?id=%d&b=2", i%17, i, i)
		http := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: %d\r\nServer: bench\r\n\r\n", len(body))
		block := append([]byte(http), body...)
		add([]byte(fmt.Sprintf("WARC/1.1\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:%08d-0000-0000-0000-000000000000>\r\nWARC-Target-URI: %s\r\nWARC-Date: 2024-01-02T03:04:05Z\r\nContent-Type: application/http; msgtype=response\r\nWARC-Payload-Digest: sha1:AAAABBBBCCCCDDDDEEEEFFFFGGGGHHHH\r\nContent-Length: %d\r\n\r\n%s\r\n\r\n", i, url, len(block), block)))
		req := fmt.Sprintf("GET /section%d/page%d.html HTTP/1.1\r\nHost: www.example.com\r\nUser-Agent: bench\r\n\r\n", i%17, i)
		add([]byte(fmt.Sprintf("WARC/1.1\r\nWARC-Type: request\r\nWARC-Record-ID: <urn:uuid:%08d-1111-0000-0000-000000000000>\r\nWARC-Target-URI: %s\r\nWARC-Date: 2024-01-02T03:04:05Z\r\nContent-Type: application/http; msgtype=request\r\nContent-Length: %d\r\n\r\n%s\r\n\r\n", i, url, len(req), req)))
	}
	return out.Bytes()
}

// BenchmarkIndexer measures indexing throughput (records/s, MB/s of
// input) over a gzip-per-record WARC read by lib/warc.
func BenchmarkIndexer(b *testing.B) {
	for _, gz := range []bool{true, false} {
		name := "plain"
		if gz {
			name = "gzip"
		}
		data := benchWARC(2000, gz)
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			records := 0
			for i := 0; i < b.N; i++ {
				r, err := warc.NewReader(bytes.NewReader(data), warc.WithPolicy(record.Ignore))
				if err != nil {
					b.Fatal(err)
				}
				ix := NewIndexer(r, "bench.warc.gz")
				var line []byte
				for {
					e, err := ix.Next()
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
					line = e.AppendCDXJ(line[:0])
				}
				records += 4000
			}
			b.ReportMetric(float64(records)/b.Elapsed().Seconds(), "records/s")
		})
	}
}

// BenchmarkSorter measures sorting 200k index lines with spills to disk.
func BenchmarkSorter(b *testing.B) {
	lines := randomLines(200000, 9)
	n := 0
	for _, l := range lines {
		n += len(l) + 1
	}
	b.SetBytes(int64(n))
	for i := 0; i < b.N; i++ {
		s := NewSorter(WithChunkSize(4<<20), WithTempDir(b.TempDir()))
		for _, l := range lines {
			s.Add([]byte(l))
		}
		if _, err := s.WriteTo(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPostToGet measures building a POST key.
func BenchmarkPostToGet(b *testing.B) {
	for i := 0; i < b.N; i++ {
		postToGet("http://example.com/p?q=1", "POST", &jsHeaders{names: []string{"content-type"}, values: []string{"application/x-www-form-urlencoded"}}, []byte("a=1&b=2&c=%20"))
	}
}
