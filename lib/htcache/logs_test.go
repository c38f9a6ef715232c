package htcache

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestReadTxtTimes: old.txt lines dated back from the end of their crawl,
// across midnight; the last fetch of a URL wins; lines that are not
// fetches are ignored.
func TestReadTxtTimes(t *testing.T) {
	p := filepath.Join(t.TempDir(), "old.txt")
	txt := "date\tsize'/'remotesize\tflags\tstatuscode\tstatus\tMIME\tEtag|Date\tURL\tlocalfile\t(from URL)\n" +
		"23:59:58\t10/10\t---M--\t200\tadded ('OK')\ttext/html\tdate:x\thttp://h/a\th/a\t(from )\n" +
		"00:00:03\t10/10\t---M--\t200\tadded ('OK')\ttext/html\tdate:x\thttp://h/b\th/b\t(from http://h/a)\n" +
		"00:00:04\t10/10\t---M--\t200\tadded ('OK')\ttext/html\tdate:x\thttp://h/a\th/a\t(from )\n" +
		"not a line\n"
	if err := os.WriteFile(p, []byte(txt), 0o644); err != nil {
		t.Fatal(err)
	}
	end := time.Date(2026, 3, 2, 0, 0, 5, 0, time.UTC) // old.zip closed
	got := readTxtTimes(os.DirFS(filepath.Dir(p)), filepath.Base(p), end, time.UTC)
	want := map[string]time.Time{
		"http://h/a": time.Date(2026, 3, 2, 0, 0, 4, 0, time.UTC),
		"http://h/b": time.Date(2026, 3, 2, 0, 0, 3, 0, time.UTC),
	}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for u, w := range want {
		if !got[u].Equal(w) {
			t.Errorf("%s: %v, want %v", u, got[u], w)
		}
	}
	// the line before midnight, when it is the last of its URL
	got = readTxtTimes(os.DirFS(filepath.Dir(p)), filepath.Base(p), time.Date(2026, 3, 2, 0, 0, 3, 0, time.UTC), time.UTC)
	if w := time.Date(2026, 3, 2, 0, 0, 4, 0, time.UTC); !got["http://h/a"].Equal(w) {
		t.Errorf("a within the minute of slack: %v, want %v", got["http://h/a"], w)
	}
	os.WriteFile(p, []byte("23:59:58\t1/1\t---\t200\tok\tt\tx\thttp://h/z\th/z\t()\n"), 0o644)
	if got := readTxtTimes(os.DirFS(filepath.Dir(p)), filepath.Base(p), end, time.UTC); !got["http://h/z"].Equal(time.Date(2026, 3, 1, 23, 59, 58, 0, time.UTC)) {
		t.Errorf("before midnight: %v", got["http://h/z"])
	}
}

// TestInferOffsetIgnoresLastModified: new.txt's "date:" column holds
// Last-Modified when a response has one and no ETag; an old date whose
// time of day happens to sit near a quarter hour from the log's clock must
// not set the crawl's zone. Server dates of the crawl day still do.
func TestInferOffsetIgnoresLastModified(t *testing.T) {
	ref := time.Date(2026, 11, 22, 13, 29, 0, 0, time.UTC)
	lastMod := []txtRow{{clock: "13:29:31", gmt: "Fri, 01 Mar 2024 12:00:00 GMT"}, {clock: "13:29:32", gmt: "Fri, 01 Mar 2024 12:00:00 GMT"}}
	if off, ok := inferOffset(lastMod, ref); ok {
		t.Errorf("Last-Modified dates gave offset %d", off)
	}
	if off, ok := inferOffset(lastMod, time.Time{}); !ok || off != 5400 {
		t.Errorf("without a crawl date the rows are taken as they are: %d %v", off, ok)
	}
	server := []txtRow{{clock: "14:29:31", gmt: "Sun, 22 Nov 2026 13:29:30 GMT"}}
	if off, ok := inferOffset(append(lastMod, server...), ref); !ok || off != 3600 {
		t.Errorf("server dates: offset %d %v, want 3600", off, ok)
	}
}
