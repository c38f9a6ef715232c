package wacz

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/arcport/arcport/lib/record"
	"github.com/arcport/arcport/lib/warc"
)

// urnTextWARC is a crawl as mirrorget --browser writes one: pages (a
// response each) followed by their urn:view: and urn:text: resource
// records; /b has no text record, /c's text record comes before its page,
// /a has a second text record (ignored: the first counts); /a's text
// records carry the title its scripts set (WARC-JSON-Metadata).
func urnTextWARC(t *testing.T) input {
	t.Helper()
	var buf bytes.Buffer
	w := warc.NewWriter(&buf)
	n := 0
	add := func(typ record.Type, uri, ct string, block string, extra ...record.Field) {
		n++
		rec := &record.Record{
			Header: record.Header{
				{Name: record.FieldType, Value: string(typ)},
				{Name: record.FieldRecordID, Value: fmt.Sprintf("<urn:uuid:00000000-0000-0000-0000-%012d>", n)},
				{Name: record.FieldDate, Value: fmt.Sprintf("2024-01-02T03:04:%02dZ", n)},
				{Name: record.FieldTargetURI, Value: uri},
				{Name: record.FieldContentType, Value: ct},
				{Name: record.FieldContentLength, Value: strconv.Itoa(len(block))},
			},
			Block: strings.NewReader(block),
		}
		rec.Header = append(rec.Header, extra...)
		if err := w.WriteRecord(rec); err != nil {
			t.Fatal(err)
		}
	}
	page := func(u, title, body string) {
		html := "<!doctype html><html><head><title>" + title + "</title></head><body>" + body + "</body></html>"
		add(record.Response, u, "application/http;msgtype=response",
			"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: "+strconv.Itoa(len(html))+"\r\n\r\n"+html)
	}
	page("http://a.test/a", "Shell A", "<p>shell a</p>")
	add(record.Resource, "urn:view:http://a.test/a", "image/png", "\x89PNG\r\n\x1a\nnot really")
	add(record.Resource, "urn:text:http://a.test/a", "text/plain; charset=utf-8", "  Rendered A\nfrom JSON\x00 \xff end\n",
		record.Field{Name: record.FieldJSONMetadata, Value: `{"title":"Item A\nset by <script>"}`})
	page("http://a.test/b", "Shell B", "<p>shell b</p>")
	add(record.Resource, "urn:text:http://a.test/c", "text/plain; charset=utf-8", "Rendered C")
	page("http://a.test/c", "Shell C", "<p>shell c</p>")
	add(record.Resource, "urn:text:http://a.test/a", "text/plain; charset=utf-8", "second A",
		record.Field{Name: record.FieldJSONMetadata, Value: `{"title":"second title"}`})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return input{"render.warc.gz", buf.Bytes()}
}

// TestURNText: the text of a page's urn:text: record goes to its
// pages.jsonl entry, with or without Text, and the title in its
// WARC-JSON-Metadata replaces the HTML's (one line); urn:
// records are no pages; a page without one keeps the HTML's title and
// (with Text) text. Read with and without the fast path, and with the
// pages spilled to disk.
func TestURNText(t *testing.T) {
	in := urnTextWARC(t)
	wantA := "Rendered A\nfrom JSON  \uFFFD end"
	for _, c := range []struct {
		name string
		opts Options
	}{
		{"default", Options{}},
		{"text", Options{Text: true}},
		{"nofast", Options{NoFastPath: true}},
		{"nofast-text", Options{NoFastPath: true, Text: true}},
		{"spill", Options{PageMemory: 1}},
		{"seeds", Options{Seeds: []string{"http://a.test/a"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			path, _, err := buildWACZ(t, c.opts, in)
			if err != nil {
				t.Fatal(err)
			}
			r, err := OpenFile(path)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			_, pages, err := r.Pages()
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]*Page{}
			for i := range pages {
				got[pages[i].URL] = &pages[i]
			}
			if len(pages) != 3 {
				t.Errorf("%d pages, want 3: %+v", len(pages), pages)
			}
			if p := got["http://a.test/a"]; p == nil || p.Text != wantA || p.Title != "Item A set by <script>" {
				t.Errorf("page a: %+v", p)
			}
			if p := got["http://a.test/c"]; p == nil || p.Text != "Rendered C" || p.Title != "Shell C" {
				t.Errorf("page c: %+v", p)
			}
			wantB := ""
			if c.opts.Text {
				wantB = "shell b"
			}
			if p := got["http://a.test/b"]; p == nil || p.Text != wantB || p.Title != "Shell B" {
				t.Errorf("page b: %+v", p)
			}
			if probs := r.Validate(); len(probs) > 0 {
				t.Errorf("Validate: %v", probs)
			}
		})
	}
}
