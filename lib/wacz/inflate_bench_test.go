package wacz

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"testing"

	"github.com/klauspost/compress/gzip"
)

// The job the fast path's hand-written parts do, per gzip member of a
// gzip-per-record WARC: decode the start of the member until the WARC
// header and the HTTP head are out (what indexing needs), then find where
// the member ends. BenchmarkMemberHead measures it three ways on the
// members of WACZ_BENCH_INPUT (the first 64 MiB of them; skipped when
// unset), e.g. the bench.sh input (scripts/arcgen -format warc):
//
//   - prefix: prefixInflater (inflate.go) decodes 1 KiB steps, and the
//     member's end is found by looking for the next gzip header
//     (memberEnd's heuristic), as the fast path does;
//   - klauspost-head: klauspost/compress/gzip decodes the head (in 1 KiB
//     reads; its inflater fills up to its 32 KiB window per Read), the
//     end is found with the same heuristic: the inflater replaced, the
//     heuristic kept;
//   - klauspost-full: klauspost/compress/gzip decodes the whole member to
//     learn where it ends (checking its CRC): both replaced.
//
// Run: WACZ_BENCH_INPUT=out/bench/in/warc-20000.warc.gz go test -run '^$' \
// -bench BenchmarkMemberHead ./lib/wacz/
func BenchmarkMemberHead(b *testing.B) {
	in := os.Getenv("WACZ_BENCH_INPUT")
	if in == "" {
		b.Skip("set WACZ_BENCH_INPUT to a gzip-per-record WARC")
	}
	data, starts := benchMembers(b, in, 64<<20)
	b.Run("prefix", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		var pi prefixInflater
		var rd bytes.Reader
		for i := 0; i < b.N; i++ {
			for k, s := range starts[:len(starts)-1] {
				rd.Reset(data[s:])
				if err := pi.reset(&rd); err != nil {
					b.Fatal(err)
				}
				for !headsOut(pi.out) && !pi.ended {
					if err := pi.fill(len(pi.out) + fastStep); err != nil {
						b.Fatal(err)
					}
				}
				if e := nextHeader(data, s); e != starts[k+1] {
					b.Fatalf("member at %d: end %d, want %d", s, e, starts[k+1])
				}
			}
		}
	})
	b.Run("klauspost-head", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		var zr gzip.Reader
		var rd bytes.Reader // an io.ByteReader: read as it is, no bufio copy
		head := make([]byte, 0, 64<<10)
		for i := 0; i < b.N; i++ {
			for k, s := range starts[:len(starts)-1] {
				rd.Reset(data[s:])
				if err := zr.Reset(&rd); err != nil {
					b.Fatal(err)
				}
				zr.Multistream(false)
				head = head[:0]
				for !headsOut(head) {
					n, err := zr.Read(head[len(head):min(len(head)+fastStep, cap(head))])
					head = head[:len(head)+n]
					if err != nil || len(head) == cap(head) {
						break
					}
				}
				if e := nextHeader(data, s); e != starts[k+1] {
					b.Fatalf("member at %d: end %d, want %d", s, e, starts[k+1])
				}
			}
		}
	})
	b.Run("klauspost-full", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		var zr gzip.Reader
		var rd bytes.Reader
		buf := make([]byte, 32<<10)
		for i := 0; i < b.N; i++ {
			for k, s := range starts[:len(starts)-1] {
				rd.Reset(data[s:])
				if err := zr.Reset(&rd); err != nil {
					b.Fatal(err)
				}
				zr.Multistream(false)
				if _, err := io.CopyBuffer(io.Discard, &zr, buf); err != nil {
					b.Fatal(err)
				}
				if e := int64(len(data)) - int64(rd.Len()); e != starts[k+1] {
					b.Fatalf("member at %d: end %d, want %d", s, e, starts[k+1])
				}
			}
		}
	})
}

// headsOut reports whether out holds a WARC header and, after it, an HTTP
// head or 2 KiB of block (the most indexing looks at for other records).
func headsOut(out []byte) bool {
	i := bytes.Index(out, []byte("\r\n\r\n"))
	if i < 0 {
		return false
	}
	rest := out[i+4:]
	return bytes.Contains(rest, []byte("\r\n\r\n")) || len(rest) >= 2<<10
}

// nextHeader is memberEnd's search on an in-memory input: the first
// plausible gzip header after the member at s, or the end of data.
func nextHeader(data []byte, s int64) int64 {
	for pos := s + 18; pos < int64(len(data)); {
		i := bytes.IndexByte(data[pos:], 0x1f)
		if i < 0 {
			break
		}
		c := pos + int64(i)
		if plausibleGzipHeader(data[c:min(c+10, int64(len(data)))]) {
			return c
		}
		pos = c + 1
	}
	return int64(len(data))
}

// benchMembers reads the whole members among the first max bytes of the
// gzip-per-record file at path and returns them with their start offsets
// (and the end of the last one).
func benchMembers(b *testing.B, path string, max int64) ([]byte, []int64) {
	b.Helper()
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max))
	if err != nil {
		b.Fatal(err)
	}
	starts := []int64{0}
	cr := &countReader{r: bytes.NewReader(data)}
	br := bufio.NewReaderSize(cr, 64<<10)
	var zr gzip.Reader
	for {
		s := starts[len(starts)-1]
		if err := zr.Reset(br); err != nil {
			break
		}
		zr.Multistream(false)
		if _, err := io.Copy(io.Discard, &zr); err != nil {
			break // cut by max
		}
		e := cr.n - int64(br.Buffered())
		if nextHeader(data, s) != e {
			b.Fatalf("member at %d: the next gzip header is not at its end %d", s, e)
		}
		starts = append(starts, e)
	}
	data = data[:starts[len(starts)-1]]
	return data, starts
}
