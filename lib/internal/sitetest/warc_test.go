package sitetest

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arcport/arcport/lib/internal/compio"
	"github.com/arcport/arcport/lib/record"
	"github.com/arcport/arcport/lib/warc"
)

type sampleRec struct {
	typ record.Type
	uri string
}

// sample is a small crawl's WARC: a warcinfo, then request and response
// records for four URLs (one of them twice), a revisit and a metadata
// record.
var sample = []sampleRec{
	{record.Warcinfo, ""},
	{record.Request, "http://127.0.0.2:8080/p/0.html"},
	{record.Response, "http://127.0.0.2:8080/p/0.html"},
	{record.Request, "http://127.0.0.3:8080/p/1.html"},
	{record.Response, "http://127.0.0.3:8080/p/1.html"},
	{record.Response, "http://127.0.0.2:8080/robots.txt"},
	{record.Response, "http://127.0.0.3:8080/p/1.html"},
	{record.Revisit, "http://127.0.0.2:8080/p/0.html"},
	{record.Metadata, "http://127.0.0.2:8080/p/0.html"},
	{record.Response, "http://127.0.0.4:8080/img/2.gif"},
}

var sampleWant = map[string]int{
	"http://127.0.0.2:8080/p/0.html":   1,
	"http://127.0.0.3:8080/p/1.html":   2,
	"http://127.0.0.2:8080/robots.txt": 1,
	"http://127.0.0.4:8080/img/2.gif":  1,
}

// writeSample writes sample with lib/warc's writer.
func writeSample(t *testing.T, comp compio.Format) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := warc.NewWriter(&buf, warc.WithCompression(comp))
	for i, s := range sample {
		rec := &record.Record{Header: record.Header{{Name: record.FieldType, Value: string(s.typ)}}}
		var block string
		switch s.typ {
		case record.Warcinfo:
			rec.Header.Add(record.FieldContentType, "application/warc-fields")
			block = "software: sitetest\r\n"
		case record.Request:
			rec.Header.Add(record.FieldContentType, "application/http; msgtype=request")
			block = "GET / HTTP/1.1\r\nHost: x\r\n\r\n"
		case record.Response, record.Revisit:
			rec.Header.Add(record.FieldContentType, "application/http; msgtype=response")
			body := fmt.Sprintf("<html>%s %s</html>\n", Marker(i), strings.Repeat("filler ", 20*i))
			block = fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
			if s.typ == record.Revisit {
				rec.Header.Add(record.FieldProfile, "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest")
				block = "HTTP/1.1 200 OK\r\n\r\n"
			}
		case record.Metadata:
			rec.Header.Add(record.FieldContentType, "application/warc-fields")
			block = "outlink: http://127.0.0.3:8080/p/1.html\r\n"
		}
		if s.uri != "" {
			rec.Header.Add(record.FieldTargetURI, s.uri)
		}
		rec.Block = strings.NewReader(block)
		if err := w.WriteRecord(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// recordEnds returns where each record of data ends (its offset plus its
// length on disk).
func recordEnds(t *testing.T, data []byte) []int64 {
	t.Helper()
	r, err := warc.NewReader(bytes.NewReader(data), warc.WithPolicy(record.Fail))
	if err != nil {
		t.Fatal(err)
	}
	var recs []*record.Record
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
	var ends []int64
	for _, rec := range recs {
		ends = append(ends, rec.Offset+rec.DiskLength)
	}
	if len(ends) != len(sample) || ends[len(ends)-1] != int64(len(data)) {
		t.Fatalf("record ends %v, %d bytes", ends, len(data))
	}
	return ends
}

func TestPagesIn(t *testing.T) {
	dir := t.TempDir()
	for _, comp := range []compio.Format{compio.Gzip, compio.Plain, compio.Zstd} {
		t.Run(fmt.Sprint(comp), func(t *testing.T) {
			data := writeSample(t, comp)
			whole := filepath.Join(dir, fmt.Sprintf("whole-%d.warc", comp))
			if err := os.WriteFile(whole, data, 0o644); err != nil {
				t.Fatal(err)
			}
			if got := PagesIn(t, whole); !maps.Equal(got, sampleWant) {
				t.Errorf("PagesIn: %v", got)
			}
			// two files add up
			twice := PagesIn(t, whole, whole)
			for u, n := range sampleWant {
				if twice[u] != 2*n {
					t.Errorf("two files: %s %d", u, twice[u])
				}
			}
			p := PagesInPartial(t, whole)
			if !maps.Equal(p.Pages, sampleWant) || p.Records != len(sample) || len(p.Cut) != 0 ||
				p.Types[record.Response] != 5 || p.Types[record.Revisit] != 1 || p.Types[record.Request] != 2 {
				t.Errorf("PagesInPartial: %+v", p)
			}

			// cut at every byte near a record's end, and every 11th
			// byte: the records that end before the cut are complete,
			// the one cut is not, and an error says so
			ends := recordEnds(t, data)
			near := func(cut int64) bool {
				for _, e := range append(ends, 0) {
					if cut > e-40 && cut < e+40 {
						return true
					}
				}
				return false
			}
			for cut := range int64(len(data)) + 1 {
				if cut%11 != 0 && !near(cut) {
					continue
				}
				want := 0
				for want < len(ends) && ends[want] <= cut {
					want++
				}
				pages := map[string]int{}
				for _, s := range sample[:want] {
					if s.typ == record.Response {
						pages[s.uri]++
					}
				}
				got, err := countBytes(data[:cut])
				if got.Records != want || !maps.Equal(got.Pages, pages) {
					t.Fatalf("cut at %d of %d (ends %v): %d records %v (%v), want %d %v", cut, len(data), ends, got.Records, got.Pages, err, want, pages)
				}
				// a cut inside a record (its trailing CRLF CRLF included)
				// is an error
				boundary := cut == 0 || want > 0 && ends[want-1] == cut
				if (err == nil) != boundary {
					t.Fatalf("cut at %d (ends %v): err %v", cut, ends, err)
				}
			}

			// a killed writer's file: PagesIn fails, PagesInPartial reads
			// what is whole
			cut := filepath.Join(dir, fmt.Sprintf("cut-%d.warc", comp))
			if err := os.WriteFile(cut, data[:ends[6]+(ends[7]-ends[6])/2], 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := countFile(cut); err == nil || !strings.Contains(err.Error(), cut+": after 7 complete records: ") {
				t.Errorf("PagesIn of a cut file: %v", err)
			}
			p = PagesInPartial(t, cut, whole)
			if p.Records != 7+len(sample) || p.Pages["http://127.0.0.3:8080/p/1.html"] != 4 || p.Pages["http://127.0.0.4:8080/img/2.gif"] != 1 ||
				len(p.Cut) != 1 || !strings.HasPrefix(p.Cut[0], cut+": after 7 complete records: ") {
				t.Errorf("PagesInPartial of a cut file: %+v", p)
			}
		})
	}
}

// countBytes counts the complete records of data as PagesInPartial does.
func countBytes(data []byte) (Partial, error) {
	p := Partial{Pages: map[string]int{}, Types: map[record.Type]int{}}
	r, err := warc.NewReader(bytes.NewReader(data), warc.WithPolicy(record.Fail))
	if err != nil {
		return p, err
	}
	return p, countRecords(r, &p)
}

// TestPagesInEmpty: an empty file (a worker killed before its first
// record) holds no records and is no error.
func TestPagesInEmpty(t *testing.T) {
	f := filepath.Join(t.TempDir(), "empty.warc.gz")
	if err := os.WriteFile(f, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if p := PagesInPartial(t, f); p.Records != 0 || len(p.Cut) != 0 || len(p.Pages) != 0 {
		t.Errorf("%+v", p)
	}
	if got := PagesIn(t, f); len(got) != 0 {
		t.Errorf("%v", got)
	}
}
