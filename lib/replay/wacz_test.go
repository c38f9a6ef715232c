package replay

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/arcport/arcport/lib/cdx"
	"github.com/arcport/arcport/lib/store"
	"github.com/arcport/arcport/lib/store/s3test"
	"github.com/arcport/arcport/lib/wacz"
)

// makeWACZ packs sample WARCs into a WACZ with lib/wacz (a ZipNum index:
// indexes/index.idx + index.cdx.gz, warcio.js keys).
func makeWACZ(t testing.TB, names ...string) string {
	t.Helper()
	sa := sampleArchive(t)
	p := filepath.Join(t.TempDir(), "site.wacz")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	ww, err := wacz.NewWriter(f, wacz.Options{Title: "replay test"})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		in, err := os.Open(filepath.Join(sa, "warcs", n))
		if err != nil {
			t.Fatal(err)
		}
		if err := ww.AddInput(n, in); err != nil {
			t.Fatal(err)
		}
		in.Close()
	}
	if err := ww.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return p
}

// waczCaptures are the index lines of a WACZ as lib/wacz reads them.
func waczCaptures(t testing.TB, p string) []*wacz.Capture {
	t.Helper()
	r, err := wacz.OpenFile(p)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out []*wacz.Capture
	if err := r.Captures(func(c *wacz.Capture) error { out = append(out, c); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

// checkWACZFinds asks base's collection w, for every GET capture of the
// WACZ, for its URL closest to its time-stamp, limit 1, and wants that
// capture (its offset), the ones whose URL ends in "/" too.
func checkWACZFinds(t *testing.T, base string, caps []*wacz.Capture) {
	t.Helper()
	found := 0
	for _, c := range caps {
		if strings.Contains(c.URLKey, "__wb_method=") {
			continue
		}
		v := url.Values{"url": {c.URL}, "closest": {c.Timestamp}, "limit": {"1"}, "output": {"json"}, "fl": {"urlkey,timestamp,offset"}}
		a := fetch(t, base+"/w/cdx?"+v.Encode())
		want := `{"urlkey": "` + c.URLKey + `", "timestamp": "` + c.Timestamp + `", "offset": "` + strconv.FormatInt(c.Offset, 10) + `"}` + "\n"
		if a.code != 200 || a.body != want {
			// same URL, same second: another capture may come first
			if a.code == 200 && strings.Contains(a.body, `"timestamp": "`+c.Timestamp+`"`) {
				found++
				continue
			}
			t.Errorf("%s at %s: %d %q, want %q", c.URL, c.Timestamp, a.code, a.body, want)
			continue
		}
		found++
	}
	if found == 0 {
		t.Fatal("no capture found")
	}
	t.Logf("%d captures found at their time-stamp", found)
}

func serveOne(t *testing.T, name, src string) *httptest.Server {
	t.Helper()
	return serveOneStore(t, name, src, nil)
}

// serveOneStore serves src through st (nil: store.Default); an S3 test
// makes its own Store, after pointing the environment at its server.
func serveOneStore(t *testing.T, name, src string, st *store.Store) *httptest.Server {
	t.Helper()
	c, err := Open(context.Background(), name, src, Options{CacheDir: t.TempDir(), Store: st})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	s, err := NewServer(c)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return ts
}

// TestWACZLocal: a WACZ read in place through its ZipNum index finds
// every capture of its index at its time-stamp.
func TestWACZLocal(t *testing.T) {
	p := makeWACZ(t, "iana.warc.gz", "example.warc.gz", "dupes.warc.gz")
	caps := waczCaptures(t, p)
	ts := serveOne(t, "w", p)
	checkWACZFinds(t, ts.URL, caps)
	// a trailing-slash path is found (warcio.js keys keep the slash)
	a := fetch(t, ts.URL+"/w/cdx?url=http://www.iana.org/domains/root/db/&fl=url&output=text")
	if a.code != 200 || !strings.Contains(a.body, "http://www.iana.org/domains/root/db/\n") {
		t.Errorf("trailing slash: %d %q", a.code, a.body)
	}
	// source naming: the collection's name
	a = fetch(t, ts.URL+"/w/cdx?url=example.com&limit=1&fl=source,source-coll&output=text")
	if a.body != "w w\n" {
		t.Errorf("source: %q", a.body)
	}
}

// TestWACZHTTP: the same WACZ over http:// (ranged GETs, lib/store),
// same answers as the local file.
func TestWACZHTTP(t *testing.T) {
	p := makeWACZ(t, "iana.warc.gz", "example.warc.gz")
	var gets int
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gets++
		http.ServeFile(w, r, p)
	}))
	defer origin.Close()
	remote := serveOne(t, "w", origin.URL+"/site.wacz")
	local := serveOne(t, "w", p)
	for _, q := range []string{"url=http://www.iana.org/", "url=*.iana.org&output=json", "url=example.com*&output=text", "url=www.iana.org/_css/*&limit=5&sort=reverse", "url=http://www.iana.org/domains/example&closest=2014"} {
		r, l := fetch(t, remote.URL+"/w/cdx?"+q), fetch(t, local.URL+"/w/cdx?"+q)
		if r != l || r.code != 200 || r.body == "" {
			t.Errorf("%s: remote %d %q, local %d %q", q, r.code, clip(r.body), l.code, clip(l.body))
		}
	}
	t.Logf("%d requests to the origin", gets)
}

// TestWACZS3: the same WACZ as s3://bucket/key on a real S3 server
// (versitygw on loopback).
func TestWACZS3(t *testing.T) {
	srv := s3test.Start(t)
	srv.Bucket(t, "coll")
	srv.Setenv(t, srv.URL)
	p := makeWACZ(t, "iana.warc.gz", "example.warc.gz")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(srv.Dir, "coll", "site.wacz"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	ts := serveOneStore(t, "w", "s3://coll/site.wacz", store.New(store.Options{}))
	checkWACZFinds(t, ts.URL, waczCaptures(t, p))
}

// TestWARCFolderRefresh: a folder of WARCs is indexed into the cache
// once (a second Open reuses the index), and a WARC added while serving
// is found by the next query a second later, without a restart.
func TestWARCFolderRefresh(t *testing.T) {
	sa := sampleArchive(t)
	dir, cache := t.TempDir(), t.TempDir()
	cp := func(n string) {
		b, err := os.ReadFile(filepath.Join(sa, "warcs", n))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, n), b, 0o644)
	}
	cp("example.warc.gz")
	c, err := Open(context.Background(), "f", dir, Options{CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	idx, _ := filepath.Glob(filepath.Join(cache, "*", "index.cdxj"))
	if len(idx) != 1 {
		t.Fatalf("cache: %q", idx)
	}
	st1, _ := os.Stat(idx[0])
	if _, err := Open(context.Background(), "f", dir, Options{CacheDir: cache}); err != nil {
		t.Fatal(err)
	}
	if st2, _ := os.Stat(idx[0]); !st2.ModTime().Equal(st1.ModTime()) {
		t.Error("the index was made again for an unchanged folder")
	}
	s, err := NewServer(c)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	defer ts.Close()
	if a := fetch(t, ts.URL+"/f/cdx?url=http://www.iana.org/&output=text&fl=filename"); a.body != "" {
		t.Fatalf("before: %q", a.body)
	}
	cp("iana.warc.gz")
	time.Sleep(refreshEvery + 100*time.Millisecond)
	if a := fetch(t, ts.URL+"/f/cdx?url=http://www.iana.org/&output=text&fl=filename"); a.body != "iana.warc.gz\n" {
		t.Errorf("after adding iana.warc.gz: %q", a.body)
	}
	if a := fetch(t, ts.URL+"/f/cdx?url=http://www.iana.org/&output=text&fl=source"); a.body != "f:index.cdxj\n" {
		t.Errorf("source: %q", a.body)
	}
}

// TestClusterS3: a ZipNum cluster and its WARCs on a real S3 server
// (versitygw on loopback), served from s3://coll/cluster/: the CDX API
// answers as for the same cluster on disk, and captures replay from the
// WARCs beside it (s3://coll/warcs/).
func TestClusterS3(t *testing.T) {
	srv := s3test.Start(t)
	srv.Bucket(t, "coll")
	srv.Setenv(t, srv.URL)
	sa := sampleArchive(t)
	local := filepath.Join(t.TempDir(), "cluster")
	os.MkdirAll(local, 0o755)
	warcs := filepath.Join(srv.Dir, "coll", "warcs")
	remote := filepath.Join(srv.Dir, "coll", "cluster")
	os.MkdirAll(warcs, 0o755)
	os.MkdirAll(remote, 0o755)
	var lines []string
	for _, n := range []string{"iana.warc.gz", "example.warc.gz", "dupes.warc.gz"} {
		b, err := os.ReadFile(filepath.Join(sa, "warcs", n))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(warcs, n), b, 0o644)
		if err := indexArchive(filepath.Join(warcs, n), func(l []byte) error { lines = append(lines, strings.TrimRight(string(l), "\n")); return nil }); err != nil {
			t.Fatal(err)
		}
	}
	sort.Strings(lines)
	w := cdx.NewClusterWriter(clusterDir(local), 2, int64(len(lines)), cdx.ClusterOptions{BlockLines: 7})
	for _, l := range lines {
		w.WriteLine([]byte(l))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(local)
	for _, e := range ents {
		b, _ := os.ReadFile(filepath.Join(local, e.Name()))
		os.WriteFile(filepath.Join(remote, e.Name()), b, 0o644)
	}
	rs := serveOneStore(t, "c", "s3://coll/cluster/", store.New(store.Options{}))
	ls := serveOne(t, "c", filepath.Join(local, "cluster.idx"))
	n := 0
	for _, q := range []string{"url=http://www.iana.org/", "url=*.iana.org&output=json", "url=iana.org&matchType=domain&showNumPages=1",
		"url=iana.org&matchType=domain&page=1&pageSize=2", "url=www.iana.org/_css/*&resolveRevisits=1&output=text", "url=example.com*&closest=2014",
		"url=http://www.iana.org/domains/example&sort=reverse", "url=iana.org&matchType=domain&showPagedIndex=1&output=text"} {
		r, l := fetch(t, rs.URL+"/c/cdx?"+q), fetch(t, ls.URL+"/c/cdx?"+q)
		if r != l || r.code != 200 || r.body == "" {
			t.Errorf("%s: s3 %d %q, local %d %q", q, r.code, clip(r.body), l.code, clip(l.body))
		}
		n++
	}
	for _, p := range []string{"/c/20140126200624id_/http://www.iana.org/", "/c/20140127171238id_/http://www.iana.org/", "/c/20140126200625id_/http://www.iana.org/_css/2013.1/screen.css"} {
		a := fetchReplay(t, rs.URL, p)
		if a.code != 200 || len(a.body) < 1000 || !strings.Contains(a.headers, "memento-datetime") {
			t.Errorf("%s from s3: %d, %d bytes", p, a.code, len(a.body))
		}
	}
	t.Logf("%d CDX queries equal from s3:// and from disk; 3 captures replayed from s3://coll/warcs/", n)
}
