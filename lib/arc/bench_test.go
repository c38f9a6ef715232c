package arc

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/arcport/arcport/lib/internal/compio"
	"github.com/arcport/arcport/lib/record"
)

// benchARC returns an ARC file of n records of about size bytes each, plain
// or gzip per record, written with Writer.
func benchARC(b *testing.B, n, size int, f compio.Format) []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	var out bytes.Buffer
	w := NewWriter(&out, WithARCCompression(f))
	body := make([]byte, size)
	for i := 0; i < n; i++ {
		head := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n", size)
		for j := range body {
			body[j] = "abcdefgh <p>\n"[rng.IntN(13)]
		}
		blk := append([]byte(head), body...)
		r := &record.Record{Header: record.Header{
			{Name: "WARC-Type", Value: "response"},
			{Name: "WARC-Target-URI", Value: fmt.Sprintf("http://example.com/page/%d.html", i)},
			{Name: "WARC-Date", Value: "2020-01-02T03:04:05Z"},
			{Name: "WARC-IP-Address", Value: "93.184.216.34"},
			{Name: "Content-Length", Value: fmt.Sprint(len(blk))},
		}, Block: bytes.NewReader(blk)}
		if err := w.WriteRecord(r); err != nil {
			b.Fatal(err)
		}
	}
	w.Close()
	return out.Bytes()
}

func benchRead(b *testing.B, f compio.Format) {
	data := benchARC(b, 500, 20000, f)
	var raw int64
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := NewReader(bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		raw = 0
		for {
			rec, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			if rec.Block != nil {
				n, _ := io.Copy(io.Discard, rec.Block)
				raw += n
			}
		}
	}
	b.SetBytes(raw)
}

// BenchmarkReadPlain measures parsing alone (bytes/s of blocks).
func BenchmarkReadPlain(b *testing.B) { benchRead(b, compio.Plain) }

// BenchmarkReadGzip includes gzip decompression.
func BenchmarkReadGzip(b *testing.B) { benchRead(b, compio.Gzip) }

// BenchmarkConvert measures reader + converter (random IDs) on plain input.
func BenchmarkConvert(b *testing.B) {
	data := benchARC(b, 500, 20000, compio.Plain)
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, _ := NewReader(bytes.NewReader(data))
		c := NewConverter(r)
		for {
			rec, err := c.Next()
			if err != nil {
				break
			}
			if rec.Block != nil {
				io.Copy(io.Discard, rec.Block)
			}
		}
	}
}
