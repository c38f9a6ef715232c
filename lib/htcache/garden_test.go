package htcache

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/arcport/arcport/lib/record"
)

// The garden fixture: a real HTTrack 3.49-4 mirror of a small site served on
// 127.0.0.1:8766, and the files that server served (garden-origin).
var (
	gardenDir    = filepath.Join("..", "..", "testdata", "htcache", "garden")
	gardenOrigin = filepath.Join("..", "..", "testdata", "htcache", "garden-origin")
	gardenZip    = filepath.Join(gardenDir, "hts-cache", "new.zip")
)

// gardenWant describes every entry of garden's new.zip, in zip order.
// origin is the served file the body must equal ("" for no body); fetched is
// the time new.txt gives (hh:mm:ss on 2026-11-22, UTC).
var gardenWant = []struct {
	uri      string
	status   int
	msg      string
	src      BodySource
	origin   string
	size     int64 // X-Size, -1 when absent
	location string
	ctype    string // Content-Type with charset
	fetched  string
}{
	{"http://127.0.0.1:8766/robots.txt", 404, "Not Found", BodyInCache, "", 35, "", "text/html", "09:34:55"},
	{"http://127.0.0.1:8766/", 200, "OK", BodyInCache, "index.html", 402, "", "text/html; charset=utf-8", "09:34:55"},
	{"http://127.0.0.1:8766/style.css", 200, "OK", BodyInCache, "style.css", 34, "", "text/css", "09:34:56"},
	{"http://127.0.0.1:8766/img/rose.gif", 200, "OK", BodyExternal, "img/rose.gif", 43, "", "image/gif", "09:34:57"},
	{"http://127.0.0.1:8766/news/2024.html", 200, "OK", BodyInCache, "news/2024.html", 109, "", "text/html; charset=utf-8", "09:34:58"},
	{"http://127.0.0.1:8766/news/2025.html", 200, "OK", BodyInCache, "news/2025.html", 109, "", "text/html; charset=utf-8", "09:34:59"},
	{"http://127.0.0.1:8766/members.html?sort=name", 200, "OK", BodyInCache, "members.html", 71, "", "text/html; charset=utf-8", "09:35:00"},
	{"http://127.0.0.1:8766/old-page", 301, "Moved Permanently", BodyNone, "", -1, "/new-page.html", "text/html", "09:35:01"},
	{"http://127.0.0.1:8766/new-page.html", 200, "OK", BodyInCache, "new-page.html", 72, "", "text/html; charset=utf-8", "09:35:02"},
	{"http://127.0.0.1:8766/gone.html", 404, "Not Found", BodyNone, "", 35, "", "text/html", "09:35:03"},
	{"http://127.0.0.1:8766/files/report.pdf", 200, "OK", BodyExternal, "files/report.pdf", 300009, "", "application/octet-stream", "09:35:04"},
	{"http://127.0.0.1:8766/r%C3%A9sum%C3%A9.html", 200, "OK", BodyInCache, "résumé.html", 64, "", "text/html; charset=utf-8", "09:35:05"},
	{"http://127.0.0.1:8766/img/leaf.gif", 200, "OK", BodyExternal, "img/leaf.gif", 43, "", "image/gif", "09:35:06"},
	{"http://127.0.0.1:8766/index.html", 200, "OK", BodyInCache, "index.html", 402, "", "text/html; charset=utf-8", "09:35:07"},
}

func openGarden(t *testing.T, opts ...Option) *Cache {
	t.Helper()
	c, err := Open(gardenDir, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func readAll(t *testing.T, r io.Reader) []byte {
	t.Helper()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestGardenEntries(t *testing.T) {
	var problems []string
	c := openGarden(t, WithProblemFunc(func(p *record.Problem) { problems = append(problems, p.Error()) }))
	if c.Format != FormatZip || filepath.Base(c.Path) != "new.zip" || c.Root != gardenDir {
		t.Fatalf("Open: format %s path %s root %s", c.Format, c.Path, c.Root)
	}
	er, err := c.Entries()
	if err != nil {
		t.Fatal(err)
	}
	day := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	for i, w := range gardenWant {
		e, err := er.Next()
		if err != nil {
			t.Fatalf("entry %d: %v", i, err)
		}
		if got := e.URI(); got != w.uri {
			t.Errorf("entry %d: URI %q, want %q", i, got, w.uri)
		}
		m := e.Meta
		if m.StatusCode != w.status || m.StatusMessage != w.msg || m.Size != w.size || m.Location != w.location {
			t.Errorf("%s: status %d %q size %d location %q, want %d %q %d %q", w.uri,
				m.StatusCode, m.StatusMessage, m.Size, m.Location, w.status, w.msg, w.size, w.location)
		}
		if got := ContentType(&m); got != w.ctype {
			t.Errorf("%s: Content-Type %q, want %q", w.uri, got, w.ctype)
		}
		src, _, size := c.Locate(e)
		if src != w.src {
			t.Errorf("%s: body source %v, want %v", w.uri, src, w.src)
		}
		body, n, err := c.Body(e)
		if err != nil {
			t.Fatalf("%s: %v", w.uri, err)
		}
		got := readAll(t, body)
		body.Close()
		if int64(len(got)) != n || n != size {
			t.Errorf("%s: body %d bytes, Body said %d, Locate %d", w.uri, len(got), n, size)
		}
		if w.origin != "" {
			want, err := os.ReadFile(filepath.Join(gardenOrigin, w.origin))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s: body differs from garden-origin/%s (%d vs %d bytes)", w.uri, w.origin, len(got), len(want))
			}
		} else if w.src == BodyNone && len(got) != 0 {
			t.Errorf("%s: body %q, want none", w.uri, got)
		}
		ft, exact := c.FetchTime(e)
		clock, _ := time.Parse("15:04:05", w.fetched)
		want := day.Add(time.Duration(clock.Hour())*time.Hour + time.Duration(clock.Minute())*time.Minute + time.Duration(clock.Second())*time.Second)
		if !exact || !ft.Equal(want) {
			t.Errorf("%s: fetched %v (exact %v), want %v", w.uri, ft, exact, want)
		}
	}
	if _, err := er.Next(); err != io.EOF {
		t.Fatalf("after last entry: %v, want io.EOF", err)
	}
	s := c.ScanSummary()
	if s.Entries != 14 || s.CentralEntries != 14 || !s.CentralDirectory || s.Recovered || s.Skipped != 0 || s.DataBytes != 1298 {
		t.Errorf("summary %+v", s)
	}
	if !strings.HasPrefix(s.Comment, "HTTrack Website Copier/3.49-4 mirror complete in 14 seconds") {
		t.Errorf("comment %q", s.Comment)
	}
	if len(problems) != 0 {
		t.Errorf("problems: %q", problems)
	}
}

func TestGardenRawNames(t *testing.T) {
	c := openGarden(t)
	e, err := c.Find("http://127.0.0.1:8766/r%c3%a9sum%c3%a9.html") // as new.txt writes it
	if err != nil {
		t.Fatal(err)
	}
	if e.Name != "http://127.0.0.1:8766/r\xc3\xa9sum\xc3\xa9.html" || e.Meta.Fil != "/r\xc3\xa9sum\xc3\xa9.html" {
		t.Errorf("name %q fil %q: raw bytes not kept", e.Name, e.Meta.Fil)
	}
	for _, q := range []string{"http://127.0.0.1:8766/résumé.html", "127.0.0.1:8766/résumé.html", "http://127.0.0.1:8766/r%C3%A9sum%C3%A9.html"} {
		if e2, err := c.Find(q); err != nil || e2.Offset != e.Offset {
			t.Errorf("Find(%q): %v", q, err)
		}
	}
	if _, err := c.Find("http://127.0.0.1:8766/nope"); err == nil {
		t.Error("Find of an absent URL succeeded")
	}
}

func TestGardenLog(t *testing.T) {
	c := openGarden(t)
	l := c.Log
	if l.Version != "3.49-4" || l.VersionInfo != "HTTrack3.49-4+libhtsjava.so.2" {
		t.Errorf("version %q %q", l.Version, l.VersionInfo)
	}
	if l.CommandLine != "httrack http://127.0.0.1:8766/ -q -%v0 -c8 -%c50 -A100000000" {
		t.Errorf("command line %q", l.CommandLine)
	}
	if !l.Launched.Equal(time.Date(2026, 11, 22, 9, 34, 54, 0, time.UTC)) {
		t.Errorf("launched %v", l.Launched)
	}
	// new.txt's robots.txt, old-page and gone.html lines carry the server's
	// GMT Date one second or less from the local clock: zone UTC.
	if !l.ZoneInferred || l.Location != time.UTC {
		t.Errorf("zone %v inferred %v", l.Location, l.ZoneInferred)
	}
	if l.FetchedCount() != 14 {
		t.Errorf("new.txt dates %d URLs, want 14", l.FetchedCount())
	}
	if !strings.HasPrefix(l.Summary, "HTTrack Website Copier/3.49-4 mirror complete in 14 seconds") {
		t.Errorf("summary %q", l.Summary)
	}
}

func TestGardenRecords(t *testing.T) {
	c := openGarden(t)
	rr, err := NewRecordReader(c, WithWarcinfo("arcport-htcache/test"))
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Close()
	info, err := rr.Next()
	if err != nil {
		t.Fatal(err)
	}
	if info.Type() != record.Warcinfo {
		t.Fatalf("first record %s", info.Type())
	}
	ib := string(readAll(t, info.Block))
	for _, want := range []string{
		"software: HTTrack Website Copier/3.49-4\r\n",
		"software: arcport-htcache/test\r\n",
		"httrack-version: HTTrack3.49-4+libhtsjava.so.2\r\n",
		"httrack-command: httrack http://127.0.0.1:8766/ -q -%v0 -c8 -%c50 -A100000000\r\n",
		"httrack-launched: 2026-11-22T09:34:54Z\r\n",
	} {
		if !strings.Contains(ib, want) {
			t.Errorf("warcinfo lacks %q:\n%s", want, ib)
		}
	}
	if info.ContentLength() != int64(len(ib)) {
		t.Errorf("warcinfo Content-Length %d, block %d", info.ContentLength(), len(ib))
	}
	heads := map[string]string{
		"http://127.0.0.1:8766/old-page": "HTTP/1.1 301 Moved Permanently\r\nContent-Type: text/html\r\n" +
			"Last-Modified: Sun, 22 Nov 2026 09:35:01 GMT\r\nLocation: /new-page.html\r\nContent-Length: 0\r\n\r\n",
		"http://127.0.0.1:8766/gone.html": "HTTP/1.1 404 Not Found\r\nContent-Type: text/html\r\n" +
			"Last-Modified: Sun, 22 Nov 2026 09:35:03 GMT\r\nContent-Length: 0\r\n\r\n",
		"http://127.0.0.1:8766/r%C3%A9sum%C3%A9.html": "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n" +
			"Last-Modified: Tue, 14 Nov 2023 22:13:20 GMT\r\nETag: \"4a57c01c488d94b6\"\r\nContent-Length: 64\r\n\r\n",
		"http://127.0.0.1:8766/files/report.pdf": "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n" +
			"Last-Modified: Tue, 14 Nov 2023 22:13:20 GMT\r\nETag: \"5e597aba640f1fac\"\r\nContent-Length: 300009\r\n\r\n",
	}
	ids := map[string]bool{}
	for i, w := range gardenWant {
		r, err := rr.Next()
		if err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		if r.Type() != record.Response || r.TargetURI() != w.uri {
			t.Errorf("record %d: %s %s, want response %s", i, r.Type(), r.TargetURI(), w.uri)
		}
		if got := r.Header.Get(record.FieldDate); got != "2026-11-22T"+w.fetched+"Z" {
			t.Errorf("%s: WARC-Date %s, want crawl day at %s", w.uri, got, w.fetched)
		}
		if r.Header.Get(record.FieldWarcinfoID) != info.ID() {
			t.Errorf("%s: WARC-Warcinfo-ID %q", w.uri, r.Header.Get(record.FieldWarcinfoID))
		}
		if ids[r.ID()] {
			t.Errorf("%s: duplicate record ID %s", w.uri, r.ID())
		}
		ids[r.ID()] = true
		block := readAll(t, r.Block)
		if int64(len(block)) != r.ContentLength() {
			t.Errorf("%s: block %d bytes, Content-Length %d", w.uri, len(block), r.ContentLength())
		}
		head, body, ok := bytes.Cut(block, []byte("\r\n\r\n"))
		if !ok {
			t.Fatalf("%s: no end of HTTP head", w.uri)
		}
		if want, ok := heads[w.uri]; ok && string(head)+"\r\n\r\n" != want {
			t.Errorf("%s: head\n%q\nwant\n%q", w.uri, string(head)+"\r\n\r\n", want)
		}
		if w.origin != "" {
			want, _ := os.ReadFile(filepath.Join(gardenOrigin, w.origin))
			if !bytes.Equal(body, want) {
				t.Errorf("%s: record body differs from garden-origin/%s", w.uri, w.origin)
			}
		}
		wantTrunc := ""
		if w.uri == "http://127.0.0.1:8766/gone.html" {
			wantTrunc = "unspecified" // X-Size 35, body not kept by HTTrack
		}
		if got := r.Header.Get(record.FieldTruncated); got != wantTrunc {
			t.Errorf("%s: WARC-Truncated %q, want %q", w.uri, got, wantTrunc)
		}
	}
	if _, err := rr.Next(); err != io.EOF {
		t.Fatalf("after last record: %v", err)
	}
	if s := rr.Stats; s.Records != 14 || s.NoBody != 2 || s.Missing != 0 || s.Truncated != 1 || s.BodyBytes != 301393 {
		t.Errorf("stats %+v", s)
	}
}
