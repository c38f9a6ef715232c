package wacz

import (
	"bytes"
	"runtime"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
)

// Regression tests for defects found by e2e/hostile (each named after the
// TestKnown* test there).

// hostileInfo is a warcinfo record (the start of the hostile inputs).
const hostileInfo = "WARC/1.1\r\nWARC-Type: warcinfo\r\nWARC-Record-ID: <urn:uuid:6f1a5bd2-7a4b-4f30-9a49-000000000011>\r\n" +
	"WARC-Date: 2020-01-01T00:00:00Z\r\nContent-Type: application/warc-fields\r\nContent-Length: 17\r\n\r\nsoftware: hostile\r\n\r\n"

// TestCreateGzHugeLine (TestKnownCreateGzHugeLine): one gzip member holding
// a warcinfo record and then a header line of 64 MiB. The fast path once
// inflated the whole member into memory to check that nothing but line
// ends followed the first record; now it stops a few bytes past the record
// and hands the member over to lib/warc, which refuses the header at
// MaxHeaderSize. The bytes allocated stay far below the line's size.
func TestCreateGzHugeLine(t *testing.T) {
	const line = 64 << 20
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestSpeed)
	zw.Write([]byte(hostileInfo + "WARC/1.1\r\nWARC-Type: resource\r\nX-Long: "))
	chunk := bytes.Repeat([]byte("a"), 1<<20)
	for range line >> 20 {
		zw.Write(chunk)
	}
	zw.Close()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, _, err := buildWACZ(t, Options{}, input{"huge-line.warc.gz", b.Bytes()})
	runtime.ReadMemStats(&after)
	want := "huge-line.warc.gz: record at offset 0: WARC header larger than"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("err %v, want %q", err, want)
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("%d MiB allocated", alloc>>20)
	if alloc > line/2 {
		t.Errorf("%d MiB allocated for a %d MiB header line", alloc>>20, line>>20)
	}
}
