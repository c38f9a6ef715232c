package waczpack

import (
	"archive/zip"
	"bytes"
	"crypto/elliptic"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// makeWACZ packs one WARC fixture into dir/name.
func makeWACZ(t *testing.T, dir, name, warcFile string, extra ...string) string {
	t.Helper()
	out := filepath.Join(dir, name)
	args := append([]string{"create", "-q", "-o", out}, extra...)
	if _, se, code := run(t, nil, append(args, warcFixtures+warcFile)...); code != 0 {
		t.Fatalf("create %s: %s", name, se)
	}
	return out
}

func zipEntry(t *testing.T, path, name string) string {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	for _, f := range zr.File {
		if f.Name == name {
			rc, _ := f.Open()
			b, _ := io.ReadAll(rc)
			rc.Close()
			return string(b)
		}
	}
	return ""
}

// TestMerge: three WACZ merged into one validate, every page of each is
// found by get with the bytes get gives from its own WACZ, the WARCs are
// the inputs' bytes, and the index is sorted; a WARC name met twice is
// renamed with its index lines.
func TestMerge(t *testing.T) {
	dir := t.TempDir()
	a := makeWACZ(t, dir, "a.wacz", "example.warc.gz")
	b := makeWACZ(t, dir, "b.wacz", "example-resource.warc.gz", "--title", "B")
	c := makeWACZ(t, dir, "c.wacz", "example-iana.org-chunked.warc")
	all := filepath.Join(dir, "all.wacz")
	_, se, code := run(t, nil, "merge", "-v", "-o", all, a, b, c)
	if code != 0 {
		t.Fatalf("merge: exit %d: %s", code, se)
	}
	t.Log(strings.TrimSpace(se))
	if so, se, code := run(t, nil, "validate", all); code != 0 {
		t.Fatalf("validate: %s %s", so, se)
	}
	for _, c := range []struct{ wacz, url, ts string }{
		{a, "http://example.com/", "20170306040206"},
		{b, "http://example.com/", "20170429013030"},
		{c, "http://www.iana.org/", ""},
	} {
		want, _, code := run(t, nil, "get", c.wacz, c.url, "--ts", c.ts)
		got, se, code2 := run(t, nil, "get", all, c.url, "--ts", c.ts)
		if code != 0 || code2 != 0 || got != want || len(got) == 0 {
			t.Errorf("get %s: exit %d (%s), %d bytes; from its own WACZ %d bytes", c.url, code2, se, len(got), len(want))
		}
	}
	pages := zipEntry(t, all, "pages/pages.jsonl")
	for _, u := range []string{`"url":"http://example.com/","ts":"2017-03-06T04:02:06Z"`, `"url":"http://example.com/","ts":"2017-04-29T01:30:30Z"`, `"url":"http://www.iana.org/"`} {
		if !strings.Contains(pages, u) {
			t.Errorf("pages.jsonl lacks %s:\n%s", u, pages)
		}
	}
	for _, p := range []struct{ in, name string }{{a, "example.warc.gz"}, {b, "example-resource.warc.gz"}, {c, "example-iana.org-chunked.warc.gz"}} {
		if got, want := zipEntry(t, all, "archive/"+p.name), zipEntry(t, p.in, "archive/"+p.name); got != want || got == "" {
			t.Errorf("archive/%s: %d bytes, not the input's %d", p.name, len(got), len(want))
		}
	}
	if dp := zipEntry(t, all, "datapackage.json"); !strings.Contains(dp, `"title": "B"`) {
		t.Errorf("title not taken from the first input that has one:\n%s", dp)
	}
	ls, _, _ := run(t, nil, "ls", "--json", all)
	lines := strings.Split(strings.TrimSpace(ls), "\n")
	for i := 1; i < len(lines); i++ {
		k := func(l string) string {
			var c captureJSON
			json.Unmarshal([]byte(l), &c)
			return c.URLKey + " " + c.Timestamp
		}
		if k(lines[i-1]) > k(lines[i]) {
			t.Errorf("index not sorted at line %d", i)
		}
	}
	if len(lines) != 4 {
		t.Errorf("%d captures, want 4", len(lines))
	}

	// the same WARC name twice: renamed, with its index lines
	twice := filepath.Join(dir, "twice.wacz")
	if _, se, code := run(t, nil, "merge", "-o", twice, a, a); code != 0 || !strings.Contains(se, "renamed archive/example-2.warc.gz") {
		t.Fatalf("merge a a: exit %d: %s", code, se)
	}
	if so, se, code := run(t, nil, "validate", twice); code != 0 {
		t.Fatalf("validate: %s %s", so, se)
	}
	ls, _, _ = run(t, nil, "ls", "--json", twice)
	if strings.Count(ls, `"filename":"example-2.warc.gz"`) != 2 || strings.Count(ls, `"filename":"example.warc.gz"`) != 2 {
		t.Errorf("index after the rename:\n%s", ls)
	}
	if p := zipEntry(t, twice, "pages/pages.jsonl"); strings.Count(p, "\n") != 2 {
		t.Errorf("the page listed twice:\n%s", p)
	}

	// usage
	for _, args := range [][]string{{"merge", a}, {"merge", "-o", all}, {"add", a}} {
		if _, _, code := run(t, nil, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
	if _, se, code := run(t, nil, "merge", "-o", filepath.Join(dir, "x.wacz"), a, filepath.Join(dir, "none.wacz")); code != 1 || !strings.Contains(se, "none.wacz") {
		t.Errorf("missing input: exit %d %q", code, se)
	}
	if _, err := os.Stat(filepath.Join(dir, "x.wacz")); err == nil {
		t.Errorf("output left after a failed merge")
	}
}

// TestAdd: add appends a WARC to a WACZ in place: it validates, keeps its
// own captures and pages, and finds the new ones.
func TestAdd(t *testing.T) {
	dir := t.TempDir()
	a := makeWACZ(t, dir, "a.wacz", "example.warc.gz", "--title", "Site")
	before := zipEntry(t, a, "archive/example.warc.gz")
	_, se, code := run(t, nil, "add", "-v", a, warcFixtures+"example-iana.org-chunked.warc", warcFixtures+"example.warc.gz")
	if code != 0 {
		t.Fatalf("add: exit %d: %s", code, se)
	}
	t.Log(strings.TrimSpace(se))
	if so, se, code := run(t, nil, "validate", a); code != 0 {
		t.Fatalf("validate: %s %s", so, se)
	}
	for _, u := range []string{"http://example.com/", "http://www.iana.org/"} {
		if got, se, code := run(t, nil, "get", a, u); code != 0 || len(got) == 0 {
			t.Errorf("get %s: exit %d: %s", u, code, se)
		}
	}
	if zipEntry(t, a, "archive/example.warc.gz") != before {
		t.Errorf("the WACZ's own WARC changed")
	}
	if zipEntry(t, a, "archive/example-2.warc.gz") == "" || zipEntry(t, a, "archive/example-iana.org-chunked.warc.gz") == "" {
		t.Errorf("added WARCs missing")
	}
	if dp := zipEntry(t, a, "datapackage.json"); !strings.Contains(dp, `"title": "Site"`) {
		t.Errorf("title lost:\n%s", dp)
	}
	pages := zipEntry(t, a, "pages/pages.jsonl")
	if !strings.Contains(pages, "http://www.iana.org/") || strings.Count(pages, `"url":"http://example.com/"`) != 1 {
		t.Errorf("pages:\n%s", pages)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("left behind: %v", entries)
	}
}

// TestMergeSigned: merge and add sign the new manifest with --sign-key,
// and validate reports the signature; the inputs' own signatures are not
// carried over (their manifest is gone).
func TestMergeSigned(t *testing.T) {
	dir := t.TempDir()
	key := writeKey(t, elliptic.P384())
	a := makeWACZ(t, dir, "a.wacz", "example.warc.gz", "--sign-key", key)
	b := makeWACZ(t, dir, "b.wacz", "example-resource.warc.gz")
	all := filepath.Join(dir, "all.wacz")
	if _, se, code := run(t, nil, "merge", "-o", all, a, b, "--sign-key", key); code != 0 {
		t.Fatalf("merge: %d %s", code, se)
	}
	so, se, code := run(t, nil, "validate", all)
	if code != 0 || !strings.Contains(so, all+": signed anonymously by P-384 key") {
		t.Errorf("validate merged: %d %q %q", code, so, se)
	}
	plain := filepath.Join(dir, "plain.wacz")
	if _, se, code := run(t, nil, "merge", "-o", plain, a, b); code != 0 {
		t.Fatalf("merge: %d %s", code, se)
	}
	if so, _, code := run(t, nil, "validate", plain); code != 0 || strings.Contains(so, "signed") {
		t.Errorf("unsigned merge: %d %q", code, so)
	}
	if _, se, code := run(t, nil, "add", b, warcFixtures+"example-iana.org-chunked.warc", "--sign-key", key); code != 0 {
		t.Fatalf("add: %d %s", code, se)
	}
	if so, se, code := run(t, nil, "validate", b); code != 0 || !strings.Contains(so, "signed anonymously") {
		t.Errorf("validate after add: %d %q %q", code, so, se)
	}
}

// TestAddFailureLeavesWACZ: an add that fails (an input that is not a
// WARC, one damaged in the middle, a target that is not a WACZ) exits 1
// naming the problem and leaves the WACZ byte for byte as it was, with no
// journal beside it.
func TestAddFailureLeavesWACZ(t *testing.T) {
	dir := t.TempDir()
	a := makeWACZ(t, dir, "a.wacz", "example.warc.gz")
	orig, _ := os.ReadFile(a)
	notWARC := filepath.Join(dir, "notes.txt")
	os.WriteFile(notWARC, []byte("hello, not an archive\n"), 0o644)
	cut := filepath.Join(dir, "cut.warc.gz")
	gz := mustRead(t, "example.warc.gz")
	os.WriteFile(cut, gz[:len(gz)-700], 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"add", a, warcFixtures + "example-iana.org-chunked.warc", notWARC}, "notes.txt: not a WARC or ARC file"},
		{[]string{"add", a, cut}, "cut.warc.gz: record at offset"},
		{[]string{"add", notWARC, warcFixtures + "example-iana.org-chunked.warc"}, "notes.txt: "},
	} {
		_, se, code := run(t, nil, tc.args...)
		if code != 1 || !strings.Contains(se, tc.want) || strings.Count(se, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q, want one line with %q", tc.args[1:], code, se, tc.want)
		}
		if now, _ := os.ReadFile(a); !bytes.Equal(now, orig) {
			t.Fatalf("%v: the WACZ changed", tc.args[1:])
		}
		entries, _ := os.ReadDir(dir)
		if len(entries) != 3 {
			t.Errorf("%v: left beside the WACZ: %v", tc.args[1:], entries)
		}
	}
	if b, _ := os.ReadFile(notWARC); string(b) != "hello, not an archive\n" {
		t.Error("the file that is not a WACZ was changed")
	}
}
