package arc

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/arcport/arcport/lib/internal/compio"
	"github.com/arcport/arcport/lib/record"
)

// captures reads the capture records of an ARC file (version blocks left out).
func captures(t *testing.T, data []byte) []got {
	t.Helper()
	recs, probs, err := readAll(t, "x", data)
	if err != nil || len(probs) > 0 {
		t.Fatalf("%v %v", err, probs)
	}
	var out []got
	for _, g := range recs {
		if g.rec.Type() != record.ARCFiledesc {
			out = append(out, g)
		}
	}
	return out
}

// writeARC writes the given records (bodies in got.body) with w's options.
func writeARC(t *testing.T, recs []got, opts ...WriterOption) []byte {
	t.Helper()
	var out bytes.Buffer
	w := NewWriter(&out, opts...)
	for _, g := range recs {
		r := *g.rec
		r.Header = g.rec.Header.Clone()
		r.Block = bytes.NewReader(g.body)
		if err := w.WriteRecord(&r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func TestWriterExactBytes(t *testing.T) {
	in := []byte(v1(recA(len(bodyA)), recB(len(bodyB))))
	out := writeARC(t, captures(t, in), WithARCCompression(compio.Plain), WithARCFilename("out.arc"))
	want := "filedesc://out.arc 0.0.0.0 19961104142103 text/plain 69\n" +
		"1 0 arcport\nURL IP-address Archive-date Content-type Archive-length\n\n" +
		"http://www.dryswamp.edu:80/index.html 127.10.100.2 19961104142103 text/html " + strconv.Itoa(len(bodyA)) + "\n" + bodyA + "\n" +
		"ftp://example.org/b.txt 0.0.0.0 19961104142104 text/plain " + strconv.Itoa(len(bodyB)) + "\n" + bodyB + "\n"
	if string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	// 69 = the two lines after the filedesc line plus the blank line.
	if len("1 0 arcport\nURL IP-address Archive-date Content-type Archive-length\n\n") != 69 {
		t.Fatal("miscounted")
	}
}

func TestWriterRoundTrip(t *testing.T) {
	for _, file := range []string{"example.arc", "example.arc.gz", "example-space-in-url.arc"} {
		for _, f := range []compio.Format{compio.Plain, compio.Gzip} {
			t.Run(file+"/"+f.String(), func(t *testing.T) {
				recs, _, err := readAll(t, file, fixture(t, file))
				if err != nil {
					t.Fatal(err)
				}
				out := writeARC(t, recs, WithARCCompression(f))
				back, probs, err := readAll(t, "out", out)
				if err != nil || len(probs) > 0 {
					t.Fatalf("%v %v", err, probs)
				}
				if len(back) != len(recs) {
					t.Fatalf("%d records back, want %d", len(back), len(recs))
				}
				for i := range recs {
					if hdr(back[i].rec.Header) != hdr(recs[i].rec.Header) || !bytes.Equal(back[i].body, recs[i].body) {
						t.Errorf("record %d:\n%s\nwant\n%s", i, hdr(back[i].rec.Header), hdr(recs[i].rec.Header))
					}
				}
				if f == compio.Gzip {
					// One member per record.
					mr, _ := compio.NewMemberReader(bytes.NewReader(out))
					n := 0
					for {
						if _, err := mr.Next(); err != nil {
							break
						}
						n++
					}
					if n != len(recs) || back[1].rec.Offset != back[0].rec.DiskLength {
						t.Errorf("%d members for %d records; offsets %d/%d", n, len(recs), back[1].rec.Offset, back[0].rec.DiskLength)
					}
				}
			})
		}
	}
}

// TestWriterFromWARCModel writes records made as a WARC reader would give
// them: the ARC content type comes from the HTTP head, the length from
// Content-Length or, when absent, from the block itself.
func TestWriterFromWARCModel(t *testing.T) {
	resp := "HTTP/1.1 200 OK\r\nContent-Type: Text/HTML; charset=utf-8\r\n\r\n<p>hi</p>"
	recs := []*record.Record{
		{Header: record.Header{{Name: "WARC-Type", Value: "warcinfo"}, {Name: "WARC-Date", Value: "2020-01-01T00:00:00Z"}}},
		{Header: record.Header{{Name: "WARC-Type", Value: "response"}, {Name: "WARC-Target-URI", Value: "<http://x.test/a b>"},
			{Name: "WARC-Date", Value: "2020-01-02T03:04:05.123Z"}, {Name: "WARC-IP-Address", Value: "::1"},
			{Name: "Content-Type", Value: "application/http;msgtype=response"}}, Block: strings.NewReader(resp)},
		{Header: record.Header{{Name: "WARC-Type", Value: "resource"}, {Name: "WARC-Target-URI", Value: "urn:x:é"},
			{Name: "WARC-Date", Value: "2020-01-02T03:04:06Z"}, {Name: "Content-Type", Value: "image/png"},
			{Name: "Content-Length", Value: "3"}}, Block: strings.NewReader("PNG")},
	}
	var out bytes.Buffer
	w := NewWriter(&out, WithARCCompression(compio.Plain), WithARCDate(time.Date(2019, 5, 6, 7, 8, 9, 0, time.UTC)), WithOrigin("Test"))
	if err := w.WriteRecord(recs[0]); !errors.Is(err, ErrUnsupportedType) {
		t.Errorf("warcinfo: %v", err)
	}
	for _, r := range recs[1:] {
		if err := w.WriteRecord(r); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	want := "filedesc://arcport.arc 0.0.0.0 20190506070809 text/plain 66\n1 0 Test\nURL IP-address Archive-date Content-type Archive-length\n\n" +
		"http://x.test/a%20b ::1 20200102030405 text/html " + strconv.Itoa(len(resp)) + "\n" + resp + "\n" +
		"urn:x:%C3%A9 0.0.0.0 20200102030406 image/png 3\nPNG\n"
	if out.String() != want {
		t.Errorf("got\n%q\nwant\n%q", out.String(), want)
	}
}

func TestWriterEmpty(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out, WithARCDate(time.Date(2019, 5, 6, 7, 8, 9, 0, time.UTC)))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	recs, probs, err := readAll(t, "x", out.Bytes())
	if err != nil || len(probs) > 0 || len(recs) != 1 || recs[0].rec.Type() != record.ARCFiledesc {
		t.Fatalf("%v %v %v", recs, probs, err)
	}
}

func TestWriterShortBlock(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out, WithARCCompression(compio.Plain))
	err := w.WriteRecord(&record.Record{Header: record.Header{{Name: "WARC-Type", Value: "resource"}, {Name: "WARC-Target-URI", Value: "http://x/"},
		{Name: "WARC-Date", Value: "2020-01-02T03:04:06Z"}, {Name: "Content-Length", Value: "10"}}, Block: strings.NewReader("short")})
	if err == nil || err.Error() != "arc: record http://x/: block has 5 bytes, Content-Length says 10" {
		t.Errorf("error %v", err)
	}
	if w.Close() == nil {
		t.Error("Close after a failed write succeeded")
	}
	_ = io.EOF
}

// TestWriterFlush checks that Flush hands each complete record to the
// underlying writer, so a pipe consumer sees records as they are written.
func TestWriterFlush(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out, WithARCCompression(compio.Plain))
	rec := &record.Record{Header: record.Header{{Name: "WARC-Type", Value: "resource"}, {Name: "WARC-Target-URI", Value: "http://x/"},
		{Name: "WARC-Date", Value: "2020-01-02T03:04:06Z"}, {Name: "Content-Type", Value: "text/plain"}}, Block: strings.NewReader("body")}
	if err := w.WriteRecord(rec); err != nil {
		t.Fatal(err)
	}
	if out.Len() != 0 {
		t.Fatalf("%d bytes reached the writer before Flush: the test needs a buffering writer", out.Len())
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(out.String(), "http://x/ 0.0.0.0 20200102030406 text/plain 4\nbody\n") {
		t.Fatalf("after Flush the stream ends %q", out.String())
	}
}
