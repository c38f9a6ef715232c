package htcache

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arcport/arcport/lib/record"
)

// ndxEntry is one entry for writeNdx.
type ndxEntry struct {
	adr, fil, save      string
	status              int
	msg, ctype, charset string
	lastmod, etag, loc  string
	cdispo, headers     string
	body                []byte
	inCache             bool
}

// writeNdx writes a pre-3.31 cache pair the way HTTrack's cache_add did
// (htscache.c before commit 7a02d5e4, "CACHE-1.x" branch): cache_wstr writes
// "<len>\n<bytes>", numbers are strings, the index entry is
// cache_wstr(adr "\n" fil "\n") followed by "<pos>\n", pos negated when the
// body is not in the .dat.
func writeNdx(version int, date string, entries []ndxEntry) (ndx, dat []byte) {
	var n, d bytes.Buffer
	wstr := func(b *bytes.Buffer, s string) { fmt.Fprintf(b, "%d\n%s", len(s), s) }
	v := fmt.Sprintf("CACHE-1.%d", version)
	wstr(&d, v)
	wstr(&n, v)
	wstr(&n, date)
	for _, e := range entries {
		pos := d.Len()
		wstr(&d, fmt.Sprint(e.status))
		wstr(&d, fmt.Sprint(len(e.body)))
		wstr(&d, e.msg)
		wstr(&d, e.ctype)
		if version >= 3 {
			wstr(&d, e.charset)
		}
		wstr(&d, e.lastmod)
		wstr(&d, e.etag)
		wstr(&d, e.loc)
		if version >= 2 {
			wstr(&d, e.cdispo)
		}
		if version >= 4 {
			wstr(&d, e.adr)
			wstr(&d, e.fil)
			wstr(&d, e.save)
		}
		if version >= 5 {
			wstr(&d, e.headers)
		}
		wstr(&d, "HTS")
		if e.inCache {
			wstr(&d, fmt.Sprint(len(e.body)))
			d.Write(e.body)
		} else {
			wstr(&d, "0")
			pos = -pos
		}
		wstr(&n, e.adr+"\n"+e.fil+"\n")
		fmt.Fprintf(&n, "%d\n", pos)
	}
	return n.Bytes(), d.Bytes()
}

var ndxSample = []ndxEntry{
	{adr: "www.example.com", fil: "/", save: "www.example.com/index.html", status: 200, msg: "OK",
		ctype: "text/html", charset: "iso-8859-1", lastmod: "Fri, 01 Mar 2024 12:00:00 GMT", etag: `"abc"`,
		headers: "HTTP/1.0 200 OK\r\nServer: old\r\nContent-Type: text/html\r\n", body: []byte("<html>caf\xe9</html>"), inCache: true},
	{adr: "www.example.com", fil: "/logo.gif", save: "www.example.com/logo.gif", status: 200, msg: "OK",
		ctype: "image/gif", lastmod: "Fri, 01 Mar 2024 12:00:00 GMT", body: []byte("GIF89a"), inCache: false},
	{adr: "www.example.com", fil: "/dl", save: "www.example.com/dl.zip", status: 200, msg: "OK",
		ctype: "application/zip", cdispo: `attachment; filename="x.zip"`, body: nil, inCache: true},
	{adr: "www.example.com", fil: "/missing.html", save: "www.example.com/missing.html", status: 404, msg: "Not Found",
		ctype: "text/html", body: []byte("<h1>404</h1>"), inCache: true},
}

func TestNdxReaderVersions(t *testing.T) {
	for version := 1; version <= 5; version++ {
		t.Run(fmt.Sprintf("CACHE-1.%d", version), func(t *testing.T) {
			ndx, dat := writeNdx(version, "Fri, 01 Mar 2024 12:00:00 GMT", ndxSample)
			r, err := NewNdxReader(bytes.NewReader(ndx), bytes.NewReader(dat), "new.ndx", WithPolicy(record.Fail))
			if err != nil {
				t.Fatal(err)
			}
			if r.Version() != version || r.Date != "Fri, 01 Mar 2024 12:00:00 GMT" {
				t.Errorf("version %d date %q", r.Version(), r.Date)
			}
			for i, w := range ndxSample {
				e, err := r.Next()
				if err != nil {
					t.Fatalf("entry %d: %v", i, err)
				}
				m := e.Meta
				if e.Name != "http://"+w.adr+w.fil || m.StatusCode != w.status || m.StatusMessage != w.msg || m.ContentType != w.ctype ||
					m.LastModified != w.lastmod || m.ETag != w.etag {
					t.Errorf("entry %d: %q %+v", i, e.Name, m)
				}
				if m.InCache != w.inCache {
					t.Errorf("entry %d: InCache %v", i, m.InCache)
				}
				wantCharset, wantCdispo, wantSave := "", "", ""
				if version >= 3 {
					wantCharset = w.charset
				}
				if version >= 2 {
					wantCdispo = w.cdispo
				}
				if version >= 4 {
					wantSave = w.save
				}
				if m.Charset != wantCharset || m.ContentDisposition != wantCdispo || m.Save != wantSave {
					t.Errorf("entry %d: charset %q cdispo %q save %q", i, m.Charset, m.ContentDisposition, m.Save)
				}
				if version >= 5 && i == 0 && (m.Proto != "HTTP/1.0" || m.Original.Get("Server") != "old") {
					t.Errorf("entry 0: proto %q original %v", m.Proto, m.Original)
				}
				rc, _ := e.OpenStored()
				b, _ := io.ReadAll(rc)
				want := w.body
				if !m.InCache {
					want = nil
				}
				if !bytes.Equal(b, want) {
					t.Errorf("entry %d: body %q", i, b)
				}
			}
			if _, err := r.Next(); err != io.EOF {
				t.Errorf("end: %v", err)
			}
		})
	}
}

func TestNdxRefused(t *testing.T) {
	dat := []byte("9\nCACHE-1.5")
	for _, c := range []struct{ ndx, want string }{
		{"29\nFri, 01 Mar 2024 12:00:00 GMT", "CACHE-1.0 layout"},
		{"9\nCACHE-1.7", `"CACHE-1.7"`},
		{"9\nCACHE-2.0", `"CACHE-2.0"`},
		{"99999999\nx", "bad index header"},
	} {
		_, err := NewNdxReader(strings.NewReader(c.ndx), bytes.NewReader(dat), "new.ndx")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v", c.ndx, err)
		}
		if strings.Contains(c.want, "CACHE") && !errors.Is(err, ErrNdxVersion) {
			t.Errorf("%q: not ErrNdxVersion", c.ndx)
		}
	}
}

// TestNdxDamaged: a truncated data file, a record whose header does not end
// with "HTS", a length over HTTrack's 32768 cap: the entry is skipped and
// reported, the others are read.
func TestNdxDamaged(t *testing.T) {
	ndx, dat := writeNdx(5, "Fri, 01 Mar 2024 12:00:00 GMT", ndxSample)
	i := bytes.Index(dat, []byte("3\nHTS"))
	badHTS := append([]byte(nil), dat...)
	copy(badHTS[i:], "3\nXTS")
	k := bytes.Index(dat, []byte("9\nNot Found"))
	bigLen := append(append(append([]byte(nil), dat[:k]...), "99999\nNot Found"...), dat[k+len("9\nNot Found"):]...)
	for _, c := range []struct {
		name    string
		dat     []byte
		entries int
		problem string
	}{
		{"no HTS", badHTS, 3, `header does not end with "HTS"`},
		{"truncated body", dat[:len(dat)-5], 3, "runs past the end of the data file"},
		{"huge length", bigLen, 3, `bad string length "99999\n"`},
	} {
		var problems []*record.Problem
		r, err := NewNdxReader(bytes.NewReader(ndx), bytes.NewReader(c.dat), "new.ndx",
			WithProblemFunc(func(p *record.Problem) { problems = append(problems, p) }))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for {
			_, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			n++
		}
		if n != c.entries || len(problems) != 1 || !strings.Contains(problems[0].Msg, c.problem) {
			t.Errorf("%s: %d entries, problems %v", c.name, n, problems)
		}
	}
}

// TestNdxCache: Cache opens a mirror holding only new.ndx/new.dat, finds the
// external body through a pre-3.40-style absolute X-Save, and exports.
func TestNdxCache(t *testing.T) {
	root := filepath.Join(t.TempDir(), "mirror")
	os.MkdirAll(filepath.Join(root, "hts-cache"), 0o755)
	os.MkdirAll(filepath.Join(root, "www.example.com"), 0o755)
	os.WriteFile(filepath.Join(root, "www.example.com", "logo.gif"), []byte("GIF89a"), 0o644)
	entries := append([]ndxEntry(nil), ndxSample...)
	entries[1].save = "/old/machine/mirror/www.example.com/logo.gif"
	ndx, dat := writeNdx(5, "Fri, 01 Mar 2024 12:00:00 GMT", entries)
	os.WriteFile(filepath.Join(root, "hts-cache", "new.ndx"), ndx, 0o644)
	os.WriteFile(filepath.Join(root, "hts-cache", "new.dat"), dat, 0o644)
	c, err := Open(root, WithPolicy(record.Fail))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.Format != FormatNdx {
		t.Fatalf("format %s", c.Format)
	}
	rr, err := NewRecordReader(c)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for {
		r, err := rr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(r.Block)
		_, body, _ := bytes.Cut(b, []byte("\r\n\r\n"))
		got = append(got, fmt.Sprintf("%s %q", r.TargetURI(), body))
	}
	want := []string{
		`http://www.example.com/ "<html>caf\xe9</html>"`,
		`http://www.example.com/logo.gif "GIF89a"`,
		`http://www.example.com/dl ""`,
		`http://www.example.com/missing.html "<h1>404</h1>"`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("records:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestNdxHTTrackImport checks the reconstructed layout against the real
// httrack 3.49, which still imports pre-3.31 caches: a mirror whose only
// cache is a new.ndx/new.dat pair written by writeNdx is updated with
// httrack --update. httrack must send our ETags back as If-None-Match (it
// parsed our .dat headers), rebuild page.html from our .dat body after the
// 304 (it found the body at the indexed position), and its new zip cache must
// hold the same bodies our NdxReader reads.
func TestNdxHTTrackImport(t *testing.T) {
	needHTTrack(t)
	s := newSite(t)
	dir := t.TempDir()
	host := strings.TrimPrefix(s.srv.URL, "http://")
	local := strings.ReplaceAll(host, ":", "_")
	var entries []ndxEntry
	for _, p := range []string{"/", "/page.html", "/style.css", "/img/a.gif", "/img/b.gif", "/files/data.bin"} {
		save := local + p
		if p == "/" {
			save = local + "/index.html"
		}
		ct := s.types[p]
		charset := ""
		if i := strings.Index(ct, "; charset="); i >= 0 {
			ct, charset = ct[:i], ct[i+len("; charset="):]
		}
		html := strings.HasPrefix(ct, "text/")
		if !html {
			os.MkdirAll(filepath.Dir(filepath.Join(dir, save)), 0o755)
			os.WriteFile(filepath.Join(dir, save), s.files[p], 0o644)
		}
		entries = append(entries, ndxEntry{adr: host, fil: p, save: filepath.Join(dir, save), status: 200, msg: "OK",
			ctype: ct, charset: charset, lastmod: siteModified.Format(http1123), etag: s.etag(p),
			headers: "HTTP/1.1 200 OK\r\n", body: s.files[p], inCache: html})
	}
	ndx, dat := writeNdx(5, siteModified.Format(http1123), entries)
	os.MkdirAll(filepath.Join(dir, "hts-cache"), 0o755)
	os.WriteFile(filepath.Join(dir, "hts-cache", "new.ndx"), ndx, 0o644)
	os.WriteFile(filepath.Join(dir, "hts-cache", "new.dat"), dat, 0o644)
	os.WriteFile(filepath.Join(dir, "hts-cache", "doit.log"), []byte(s.srv.URL+"/ -O "+dir+" -q -%v0 -c4 -%! -s0\n"+
		"File generated automatically on Fri, 01 Mar 2024 12:00:00, do NOT edit\n"), 0o644)

	// Our reader first.
	c, err := Open(dir, WithPolicy(record.Fail))
	if err != nil {
		t.Fatal(err)
	}
	ourBodies := map[string][]byte{}
	er, _ := c.Entries()
	for {
		e, err := er.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		rc, _, err := c.Body(e)
		if err != nil {
			t.Fatal(err)
		}
		ourBodies[e.URI()], _ = io.ReadAll(rc)
		rc.Close()
	}
	c.Close()
	if len(ourBodies) != len(entries) {
		t.Fatalf("read %d entries", len(ourBodies))
	}

	out := runHTTrack(t, dir, s.srv.URL+"/", "-O", dir, "-q", "-%v0", "-c4", "-%!", "-s0", "--update")
	reqs := s.requests()
	t.Logf("httrack requests:\n%s", strings.Join(reqs, "\n"))
	for _, e := range entries {
		want := "GET " + e.fil + " If-None-Match=" + e.etag
		found := false
		for _, r := range reqs {
			found = found || r == want
		}
		if !found {
			t.Errorf("httrack did not send our ETag for %s (%s)\n%s", e.fil, want, out)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, local, "page.html")); err != nil || !bytes.Contains(b, []byte("A page.")) {
		t.Errorf("page.html not rebuilt from our .dat: %v %q", err, b)
	}
	after := map[string][]byte{}
	c2, err := Open(dir, WithPolicy(record.Fail))
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	if c2.Format != FormatZip {
		t.Fatalf("httrack left no zip cache: %s", c2.Path)
	}
	er, _ = c2.Entries()
	for {
		e, err := er.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		rc, _, err := c2.Body(e)
		if err == nil {
			after[e.URI()], _ = io.ReadAll(rc)
			rc.Close()
		}
	}
	for u, b := range ourBodies {
		if !bytes.Equal(after[u], b) {
			t.Errorf("%s: httrack's cache after import holds %d bytes, our reader read %d", u, len(after[u]), len(b))
		}
	}
}

const http1123 = "Mon, 02 Jan 2006 15:04:05 GMT"
