package replay

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"
)

// TestWARCFolderIncremental: WARCs added to a served folder are indexed
// alone into add-N.cdxj (index.cdxj untouched) and answered at once,
// merged as a full index answers; a changed or removed file remakes
// index.cdxj from every file; a new server on the same cache reads the
// manifest and indexes nothing.
func TestWARCFolderIncremental(t *testing.T) {
	sa := sampleArchive(t)
	dir, cache := t.TempDir(), t.TempDir()
	cp := func(n string) {
		b, err := os.ReadFile(filepath.Join(sa, "warcs", n))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, n), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cp("example.warc.gz")
	c, err := Open(context.Background(), "f", dir, Options{CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := NewServer(c)
	ts := httptest.NewServer(s)
	defer ts.Close()
	segs := func() []string {
		m, _ := filepath.Glob(filepath.Join(cache, "*", "*.cdxj"))
		var out []string
		for _, p := range m {
			out = append(out, filepath.Base(p))
		}
		sort.Strings(out)
		return out
	}
	idx, _ := filepath.Glob(filepath.Join(cache, "*", "index.cdxj"))
	st0, _ := os.Stat(idx[0])
	queries := []string{"url=http://www.iana.org/", "url=http://example.com/", "url=*.iana.org&limit=50", "url=http://www.iana.org/_css/*&fl=url,filename,source&output=json",
		"url=http://example.com/&sort=reverse", "url=http://www.iana.org/&closest=20140127000000&sort=closest"}
	// a fresh index of the folder as it is: what every answer must equal
	fresh := func() *httptest.Server {
		c2, err := Open(context.Background(), "f", dir, Options{CacheDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		s2, _ := NewServer(c2)
		ts2 := httptest.NewServer(s2)
		t.Cleanup(ts2.Close)
		return ts2
	}
	same := func(step string) {
		t.Helper()
		f := fresh()
		for _, q := range queries {
			got, want := fetch(t, ts.URL+"/f/cdx?"+q), fetch(t, f.URL+"/f/cdx?"+q)
			if got != want {
				t.Errorf("%s: %s:\nserved: %q\nfresh:  %q", step, q, clip(got.body), clip(want.body))
			}
		}
	}
	if a := fetch(t, ts.URL+"/f/cdx?url=http://www.iana.org/&output=text&fl=filename"); a.body != "" {
		t.Fatalf("before: %q", a.body)
	}
	cp("iana.warc.gz")
	time.Sleep(refreshEvery + 100*time.Millisecond)
	if a := fetch(t, ts.URL+"/f/cdx?url=http://www.iana.org/&output=text&fl=filename,source"); a.body != "iana.warc.gz f:index.cdxj\n" {
		t.Errorf("after adding iana.warc.gz: %q", a.body)
	}
	if got := segs(); len(got) != 2 || got[0] != "add-1.cdxj" || got[1] != "index.cdxj" {
		t.Errorf("indexes: %q", got)
	}
	if st, _ := os.Stat(idx[0]); !st.ModTime().Equal(st0.ModTime()) {
		t.Error("index.cdxj made again for an added file")
	}
	same("one added")
	cp("dupes.warc.gz")
	time.Sleep(refreshEvery + 100*time.Millisecond)
	fetch(t, ts.URL+"/f/cdx?url=http://example.com/")
	if got := segs(); len(got) != 3 {
		t.Errorf("indexes: %q", got)
	}
	same("two added")
	// a new server on the same cache: the manifest, nothing indexed
	before := segs()
	c3, err := Open(context.Background(), "f", dir, Options{CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	if w := c3.src.(*warcFolder); len(w.segments) != 3 || len(w.files) != 3 {
		t.Errorf("reopened: %q %v", w.segments, w.files)
	}
	if st, _ := os.Stat(idx[0]); !st.ModTime().Equal(st0.ModTime()) || len(segs()) != len(before) {
		t.Error("reopening indexed again")
	}
	// a changed file: everything again, into index.cdxj
	time.Sleep(10 * time.Millisecond)
	cp("example.warc.gz")
	os.Chtimes(filepath.Join(dir, "example.warc.gz"), time.Now(), time.Now().Add(time.Hour))
	time.Sleep(refreshEvery + 100*time.Millisecond)
	fetch(t, ts.URL+"/f/cdx?url=http://example.com/")
	if got := segs(); len(got) != 1 || got[0] != "index.cdxj" {
		t.Errorf("after a change: %q", got)
	}
	same("changed")
	// a removed file: its captures are gone
	os.Remove(filepath.Join(dir, "iana.warc.gz"))
	time.Sleep(refreshEvery + 100*time.Millisecond)
	if a := fetch(t, ts.URL+"/f/cdx?url=http://www.iana.org/&output=text&fl=filename"); a.body != "dupes.warc.gz\ndupes.warc.gz\n" {
		t.Errorf("after removing iana.warc.gz: %q", a.body)
	}
	same("removed")
}
