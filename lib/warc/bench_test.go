package warc

import (
	"bytes"
	"fmt"
	"io"
	"math/rand"
	"testing"

	"github.com/arcport/arcport/lib/internal/compio"
	"github.com/arcport/arcport/lib/record"
)

// benchCorpus returns n HTTP response blocks of 2-30 KB of HTML-like text
// (compressible roughly as real pages are).
func benchCorpus(n int) [][]byte {
	rng := rand.New(rand.NewSource(42))
	words := []string{"<div class=\"item\">", "</div>", "<a href=\"/page/", "\">", "</a>", "the", "archive", "web", "record", "capture", "<p>", "</p>", "lorem", "ipsum", "data", "\n"}
	out := make([][]byte, n)
	for i := range out {
		var b bytes.Buffer
		size := 2000 + rng.Intn(28000)
		fmt.Fprintf(&b, "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: %d\r\nServer: bench\r\n\r\n", size)
		for b.Len() < size {
			b.WriteString(words[rng.Intn(len(words))])
			if rng.Intn(8) == 0 {
				fmt.Fprintf(&b, "%d", rng.Intn(100000))
			}
			b.WriteByte(' ')
		}
		out[i] = b.Bytes()
	}
	return out
}

func benchHeader(i int) record.Header {
	return record.Header{
		{Name: "WARC-Type", Value: "response"},
		{Name: "WARC-Target-URI", Value: fmt.Sprintf("http://example.com/page/%d", i)},
		{Name: "WARC-Date", Value: "2024-01-02T03:04:05Z"},
		{Name: "WARC-IP-Address", Value: "192.0.2.1"},
		{Name: "Content-Type", Value: "application/http; msgtype=response"},
	}
}

// BenchmarkWriter writes one record per op (IDs generated, digests
// computed); MB/s counts block bytes.
func BenchmarkWriter(b *testing.B) {
	corpus := benchCorpus(512)
	var total int64
	for _, c := range corpus {
		total += int64(len(c))
	}
	headers := make([]record.Header, len(corpus))
	for i := range headers {
		headers[i] = benchHeader(i)
	}
	for _, comp := range []compio.Format{compio.Gzip, compio.Zstd, compio.Plain} {
		b.Run(comp.String(), func(b *testing.B) {
			w := NewWriter(io.Discard, WithCompression(comp))
			var rec record.Record
			var br bytes.Reader
			b.SetBytes(total / int64(len(corpus)))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				k := i % len(corpus)
				br.Reset(corpus[k])
				rec.Header, rec.Block = headers[k], &br
				if err := w.WriteRecord(&rec); err != nil {
					b.Fatal(err)
				}
			}
			if err := w.Close(); err != nil {
				b.Fatal(err)
			}
		})
	}
}

// BenchmarkReader reads a whole WARC of 512 records per op, reading every
// block; MB/s counts block bytes, and records/op and allocs/record are
// reported.
func BenchmarkReader(b *testing.B) {
	corpus := benchCorpus(512)
	var total int64
	for _, c := range corpus {
		total += int64(len(c))
	}
	for _, comp := range []compio.Format{compio.Gzip, compio.Zstd, compio.Plain} {
		var file bytes.Buffer
		w := NewWriter(&file, WithCompression(comp))
		for i, c := range corpus {
			if err := w.WriteRecord(&record.Record{Header: benchHeader(i), Block: bytes.NewReader(c)}); err != nil {
				b.Fatal(err)
			}
		}
		w.Close()
		for _, verify := range []bool{false, true} {
			name := comp.String()
			if verify {
				name += "/verify"
			}
			b.Run(name, func(b *testing.B) {
				buf := make([]byte, 32<<10)
				b.SetBytes(total)
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					r, err := NewReader(bytes.NewReader(file.Bytes()), WithVerifyDigests(verify))
					if err != nil {
						b.Fatal(err)
					}
					n := 0
					for {
						rec, err := r.Next()
						if err == io.EOF {
							break
						}
						if err != nil {
							b.Fatal(err)
						}
						for {
							if _, err := rec.Block.Read(buf); err != nil {
								break
							}
						}
						n++
					}
					if n != len(corpus) || r.Problems() != 0 {
						b.Fatalf("%d records, %d problems", n, r.Problems())
					}
				}
			})
		}
	}
}

// BenchmarkWriterLarge writes one 16 MiB resource record per op (spilled
// to a temporary file and compressed inline, in parallel chunks for gzip).
func BenchmarkWriterLarge(b *testing.B) {
	block := bytes.Join(benchCorpus(1200), nil)[:16<<20]
	for _, comp := range []compio.Format{compio.Gzip, compio.Zstd} {
		b.Run(comp.String(), func(b *testing.B) {
			w := NewWriter(io.Discard, WithCompression(comp), WithTempDir(b.TempDir()))
			var br bytes.Reader
			rec := record.Record{}
			b.SetBytes(int64(len(block)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				br.Reset(block)
				rec.Header, rec.Block = benchHeader(i), &br
				if err := w.WriteRecord(&rec); err != nil {
					b.Fatal(err)
				}
			}
			if err := w.Close(); err != nil {
				b.Fatal(err)
			}
		})
	}
}
