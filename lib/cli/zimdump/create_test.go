package zimdump

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arcport/arcport/lib/internal/peertest"
	"github.com/arcport/arcport/lib/store/s3test"
	"github.com/arcport/arcport/lib/wacz"
	"github.com/arcport/arcport/lib/zim"
)

// warcRecord returns one WARC/1.1 record holding an HTTP response.
func warcRecord(uri, httpHead string, body []byte) []byte {
	block := append([]byte(strings.ReplaceAll(httpHead, "\n", "\r\n")+"\r\n"), body...)
	return []byte(fmt.Sprintf("WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: %s\r\n"+
		"WARC-Date: 2026-01-02T03:04:05Z\r\nWARC-Record-ID: <urn:uuid:%08d-0000-4000-8000-000000000000>\r\n"+
		"Content-Type: application/http;msgtype=response\r\nContent-Length: %d\r\n\r\n%s\r\n\r\n",
		uri, len(uri)+len(body), len(block), block))
}

func gz(t testing.TB, b []byte) []byte {
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	zw.Write(b)
	zw.Close()
	return out.Bytes()
}

const gardenURL = "http://garden.test"

// indexPage links to every case link rewriting has to handle: a page with
// a query string, a file name with "&" and an accent, an HTML-escaped
// link, a link broken over lines, a redirect, a 404, a page never
// captured, an image never captured, a fragment, an empty href, a <base>.
const indexPage = `<!DOCTYPE html>
<html lang="fr"><head><meta charset="utf-8"><title>Le jardin partagé</title>
<base href="http://garden.test/">
<link href="style.css" rel="stylesheet"></head><body>
<a href="list.cgi?page=2&amp;sort=name">list</a>
<a href="a&amp;b.html">and</a>
<a href="r%C3%A9sum%C3%A9.html#top">resume</a>
<a href="about
.html">about, broken over lines</a>
<a href="old">old about (redirect)</a>
<a href="gone.html">gone (404)</a>
<a href="http://garden.test/never.html">never captured</a>
<a href="https://elsewhere.example/x?a=1&amp;b=2">elsewhere</a>
<a href="">self</a> <a href="#frag">frag</a>
<img src="img/rose.png"> <img src="img/missing.png">
</body></html>`

func sampleWARC(t testing.TB) []byte {
	png := []byte("\x89PNG\r\n\x1a\n fake png bytes for the test")
	var w bytes.Buffer
	add := func(b []byte) { w.Write(gz(t, b)) }
	html := "HTTP/1.1 200 OK\nContent-Type: text/html; charset=utf-8\n"
	add(warcRecord(gardenURL+"/", html+fmt.Sprintf("Content-Length: %d\n", len(indexPage)), []byte(indexPage)))
	about := `<html><head><title>About the garden</title></head><body><a href="/">home</a></body></html>`
	// gzip content coding and chunked transfer coding: stored decoded
	zb := gz(t, []byte(about))
	add(warcRecord(gardenURL+"/about.html", html+"Content-Encoding: gzip\nTransfer-Encoding: chunked\n",
		[]byte(fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", len(zb), zb))))
	list := `<html><head><title>Members list</title></head><body><a href="list.cgi?page=1">1</a> <a href="./">home</a></body></html>`
	add(warcRecord(gardenURL+"/list.cgi?page=2&sort=name", html, []byte(list)))
	add(warcRecord(gardenURL+"/a&b.html", html, []byte(`<html><head><title>A and B</title></head><body>ab</body></html>`)))
	add(warcRecord(gardenURL+"/r%C3%A9sum%C3%A9.html", html, []byte(`<html><head><title>Résumé</title></head><body><p id="top">cv</p></body></html>`)))
	add(warcRecord(gardenURL+"/style.css", "HTTP/1.1 200 OK\nContent-Type: text/css\n",
		[]byte(`body{background:url("img/rose.png")} h1{background:url(img/none.png)}`)))
	add(warcRecord(gardenURL+"/img/rose.png", "HTTP/1.1 200 OK\nContent-Type: image/png\n", png))
	// Latin-1, declared in the HTTP head only: stored with its charset
	add(warcRecord(gardenURL+"/latin.html", "HTTP/1.1 200 OK\nContent-Type: text/html; charset=ISO-8859-1\n",
		[]byte("<html><head><title>Caf\xe9</title></head><body>cr\xe8me <a href=\"/\">home</a></body></html>")))
	add(warcRecord(gardenURL+"/old", "HTTP/1.1 301 Moved Permanently\nLocation: /about.html\n", nil))
	add(warcRecord(gardenURL+"/gone.html", "HTTP/1.1 404 Not Found\nContent-Type: text/html\n", []byte("<html><body>not found</body></html>")))
	// a second capture of the index: the first one wins
	add(warcRecord(gardenURL+"/", html, []byte("<html><body>later</body></html>")))
	return w.Bytes()
}

// zimcheckA runs zimcheck -A and fails t on any error it reports.
func zimcheckA(t *testing.T, zimFile string) {
	t.Helper()
	zc := peertest.Need(t, "zimcheck", "zim-tools")
	out, err := exec.Command(zc, "-A", zimFile).CombinedOutput()
	if err != nil || bytes.Contains(out, []byte("[ERROR]")) {
		t.Fatalf("zimcheck -A %s: %v\n%s", zimFile, err, out)
	}
}

func readEntry(t *testing.T, a *zim.Archive, p string) (string, string) {
	t.Helper()
	e, err := a.EntryByPath("C/" + p)
	if err != nil {
		t.Fatalf("C/%s: %v", p, err)
	}
	e, err = a.Resolve(e)
	if err != nil {
		t.Fatal(err)
	}
	mt, _ := a.MimeType(e)
	b, err := a.ReadBlob(e)
	if err != nil {
		t.Fatal(err)
	}
	return mt, string(b)
}

// TestCreateFromWARC writes a ZIM from a WARC (and the same WARC inside a
// WACZ) and checks every rewritten link, the entries, the metadata
// defaults, zimcheck -A and a title search through python3-libzim.
func TestCreateFromWARC(t *testing.T) {
	dir := t.TempDir()
	warcFile := filepath.Join(dir, "crawl.warc.gz")
	if err := os.WriteFile(warcFile, sampleWARC(t), 0o644); err != nil {
		t.Fatal(err)
	}
	waczFile := filepath.Join(dir, "crawl.wacz")
	f, err := os.Create(waczFile)
	if err != nil {
		t.Fatal(err)
	}
	ww, err := wacz.NewWriter(f, wacz.Options{Title: "garden"})
	if err != nil {
		t.Fatal(err)
	}
	if err := ww.AddInput("crawl.warc.gz", bytes.NewReader(sampleWARC(t))); err != nil {
		t.Fatal(err)
	}
	if err := ww.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	for _, in := range []string{warcFile, waczFile} {
		t.Run(filepath.Ext(in), func(t *testing.T) { checkCreateFromCrawl(t, in) })
	}
}

func checkCreateFromCrawl(t *testing.T, in string) {
	out := filepath.Join(t.TempDir(), "garden.zim")
	r := viaMain(t, "create", "-o", out, "--main-page", gardenURL+"/", "-v", in)
	if r.rc != 0 {
		t.Fatalf("%+v", r)
	}
	if !strings.Contains(r.stderr, "8 entries (6 pages, 1 redirects)") {
		t.Errorf("summary: %q", r.stderr)
	}
	zimcheckA(t, out)
	a, err := zim.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	m, _ := a.MainEntry()
	if m, _ = a.Resolve(m); m.Path != "garden.test/index.html" {
		t.Errorf("main page %s", m.Path)
	}
	mt, idx := readEntry(t, a, "garden.test/index.html")
	if mt != "text/html" || m.Title() != "Le jardin partagé" {
		t.Errorf("index: %s %q", mt, m.Title())
	}
	for _, want := range []string{
		`<base href="index.html">`,
		`<link href="style.css" rel="stylesheet">`,
		`<a href="list86e8.html">list</a>`,
		`<a href="a%26b.html">and</a>`,
		`<a href="r%C3%A9sum%C3%A9.html#top">resume</a>`,
		`<a href="about.html">about, broken over lines</a>`,
		`<a href="about.html">old about (redirect)</a>`,
		`<a href="http://garden.test/gone.html">gone (404)</a>`,
		`<a href="http://garden.test/never.html">never captured</a>`,
		`<a href="https://elsewhere.example/x?a=1&amp;b=2">elsewhere</a>`,
		`<a href="#">self</a> <a href="#frag">frag</a>`,
		`<img src="img/rose.png"> <img src="data:,">`,
	} {
		if !strings.Contains(idx, want) {
			t.Errorf("index.html lacks %s in\n%s", want, idx)
		}
	}
	if mt, css := readEntry(t, a, "garden.test/style.css"); mt != "text/css" || css != `body{background:url("img/rose.png")} h1{background:url(data:,)}` {
		t.Errorf("style.css: %s %q", mt, css)
	}
	if _, about := readEntry(t, a, "garden.test/about.html"); !strings.Contains(about, `<a href="index.html">home</a>`) {
		t.Errorf("about.html (gzip + chunked, decoded): %q", about)
	}
	if mt, _ := readEntry(t, a, "garden.test/img/rose.png"); mt != "image/png" {
		t.Errorf("rose.png: %s", mt)
	}
	mt, latin := readEntry(t, a, "garden.test/latin.html")
	if e, _ := a.EntryByPath("C/garden.test/latin.html"); mt != "text/html;charset=iso-8859-1" || e.Title() != "Café" ||
		latin != "<html><head><title>Caf\xe9</title></head><body>cr\xe8me <a href=\"index.html\">home</a></body></html>" {
		t.Errorf("latin.html: %s %q %q", mt, e.Title(), latin)
	}
	// the redirect is an entry of its own
	e, err := a.EntryByPath("C/garden.test/old.html")
	if err != nil || !e.IsRedirect() {
		t.Errorf("C/garden.test/old.html: %v %v", e, err)
	}
	if _, err := a.EntryByPath("C/garden.test/gone.html"); err == nil {
		t.Error("the 404 page is an entry")
	}
	for k, v := range map[string]string{"Title": "Le jardin partagé", "Language": "fra", "Creator": "garden.test",
		"Publisher": "arcport", "Name": "garden", "Description": "Offline copy of garden.test"} {
		if got, _ := a.Metadata(k); string(got) != v {
			t.Errorf("M/%s = %q, want %q", k, got, v)
		}
	}
	if _, err := a.Illustration(48); err != nil {
		t.Error(err)
	}
	if ps := a.Check(zim.CheckOptions{Checksum: true, Clusters: true}); len(ps) > 0 {
		t.Errorf("zimdump check: %v", ps)
	}
	// python3-libzim finds the pages by title
	if err := exec.Command("/usr/bin/python3", "-c", "import libzim").Run(); err != nil {
		peertest.Missing(t, "python3-libzim", "import libzim with /usr/bin/python3")
	}
	py := `
import sys, json
from libzim.reader import Archive
from libzim.suggestion import SuggestionSearcher
a = Archive(sys.argv[1])
json.dump({q: list(SuggestionSearcher(a).suggest(q).getResults(0, 10)) for q in ["About", "Members", "Le jardin"]}, sys.stdout)
`
	o, err := exec.Command("/usr/bin/python3", "-c", py, out).Output()
	if err != nil {
		t.Fatal(err)
	}
	var got map[string][]string
	json.Unmarshal(o, &got)
	want := map[string][]string{"About": {"garden.test/about.html"}, "Members": {"garden.test/list86e8.html"},
		"Le jardin": {"garden.test/index.html"}}
	for q, w := range want {
		if fmt.Sprint(got[q]) != fmt.Sprint(w) {
			t.Errorf("libzim suggestions for %q: %v, want %v", q, got[q], w)
		}
	}
}

// TestCreateFromMirror writes ZIMs from the real HTTrack mirror (the
// folder, and its hts-cache) and checks them with zimcheck -A and
// openzim's zimdump.
func TestCreateFromMirror(t *testing.T) {
	garden := "../../../testdata/htcache/garden"
	for _, tc := range []struct {
		in, main string
		n        int
	}{
		{garden, "index.html", 15},
		{garden + "/hts-cache", "127.0.0.1_8766/index.html", 12}, // + the redirect old-page.html
	} {
		out := filepath.Join(t.TempDir(), "g.zim")
		r := viaMain(t, "create", "-o", out, "-q", tc.in, "--title", "Garden", "--compression", "xz")
		if r.rc != 0 || r.stderr != "" {
			t.Fatalf("%s: %+v", tc.in, r)
		}
		zimcheckA(t, out)
		a, err := zim.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		if a.UserEntryCount() != uint32(tc.n) {
			t.Errorf("%s: %d entries, want %d", tc.in, a.UserEntryCount(), tc.n)
		}
		m, _ := a.MainEntry()
		if m, _ = a.Resolve(m); m.Path != tc.main {
			t.Errorf("%s: main page %s", tc.in, m.Path)
		}
		// files that are not the site stay out
		for _, p := range []string{"hts-log.txt", "hts-cache/new.zip"} {
			if _, err := a.EntryByPath("C/" + p); err == nil {
				t.Errorf("%s: C/%s in the ZIM", tc.in, p)
			}
		}
		// bytes of a stored file are the file's
		want, _ := os.ReadFile(garden + "/127.0.0.1_8766/files/report.pdf")
		if mt, got := readEntry(t, a, "127.0.0.1_8766/files/report.pdf"); mt != "application/pdf" || got != string(want) {
			t.Errorf("%s: report.pdf %s, %d bytes (want %d)", tc.in, mt, len(got), len(want))
		}
		a.Close()
		// openzim's zimdump lists what ours lists
		oz := peertest.OpenzimZimdump(t) // by its package path, --version naming openzim
		theirs, err := exec.Command(oz, "list", "--details", out).Output()
		if err != nil {
			t.Fatal(err)
		}
		if r := ours("list", "--details", out); r.stdout != string(theirs) {
			t.Errorf("%s: list --details differs from openzim's:\n%s\n---\n%s", tc.in, r.stdout, theirs)
		}
	}
}

func TestCreateErrors(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "x.zim")
	bad := filepath.Join(dir, "bad.warc")
	os.WriteFile(bad, []byte("this is not a WARC\n"), 0o644)
	empty := filepath.Join(dir, "empty")
	os.Mkdir(empty, 0o755)
	for _, tc := range []struct {
		args []string
		rc   int
		msg  string
	}{
		{[]string{"create", dir}, 2, "-o FILE.zim is required"},
		{[]string{"create", "-o", out}, 2, "missing INPUT"},
		{[]string{"create", "-o", out, "--bogus", "1", dir}, 2, "unknown option --bogus"},
		{[]string{"create", "-o", out, "--date", "yesterday", dir}, 2, `--date "yesterday"`},
		{[]string{"create", "-o", out, bad}, 1, "bad.warc: not a WARC or ARC file"},
		{[]string{"create", "-o", out, empty}, 1, "nothing to put in a ZIM"},
		{[]string{"create", "-o", out, "--main-page", "nope.html", "../../../testdata/htcache/garden"}, 1, `--main-page "nope.html": no such entry`},
		{[]string{"create", "-o", out, filepath.Join(dir, "absent")}, 1, "no such file"},
	} {
		r := viaMain(t, tc.args...)
		if r.rc != tc.rc || !strings.Contains(r.stderr, tc.msg) || (tc.rc == 1 && strings.Count(r.stderr, "\n") != 1) {
			t.Errorf("%v: rc %d, stderr %q; want %d and %q", tc.args, r.rc, r.stderr, tc.rc, tc.msg)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("%v: %s written", tc.args, out)
		}
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), ".") || strings.Contains(e.Name(), "tmp") {
				t.Errorf("%v: left %s", tc.args, e.Name())
			}
		}
	}
}

// TestCreateSpoolMax: a capture body larger than --spool-max once decoded
// (a decompression bomb) is skipped with a warning naming the record's
// offset; the rest is written, and the exit status is 1.
func TestCreateSpoolMax(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "crawl.warc.gz")
	if err := os.WriteFile(in, sampleWARC(t), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "small.zim")
	r := viaMain(t, "create", "-o", out, "--spool-max", "200", in)
	if r.rc != 1 || !strings.Contains(r.stderr, "crawl.warc.gz: record at offset 0 (http://garden.test/): record block larger than the spool limit of 200") {
		t.Fatalf("%+v", r)
	}
	a, err := zim.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	// the first capture of the index is over 200 bytes: the second is taken
	if _, body := readEntry(t, a, "garden.test/index.html"); body != "<html><body>later</body></html>" {
		t.Errorf("index.html: %q", body)
	}
	if _, err := a.EntryByPath("C/garden.test/about.html"); err != nil {
		t.Errorf("about.html (under 200 bytes): %v", err)
	}
}

// TestCreateIllustration: --illustration takes a PNG of any size and
// stores it as 48x48; anything else is refused before a ZIM is written.
func TestCreateIllustration(t *testing.T) {
	dir := t.TempDir()
	img := image.NewNRGBA(image.Rect(0, 0, 16, 16))
	for i := range img.Pix {
		img.Pix[i] = uint8(i)
	}
	var b bytes.Buffer
	png.Encode(&b, img)
	icon := filepath.Join(dir, "icon.png")
	os.WriteFile(icon, b.Bytes(), 0o644)
	out := filepath.Join(dir, "g.zim")
	garden := "../../../testdata/htcache/garden"
	if r := viaMain(t, "create", "-o", out, "--illustration", icon, garden); r.rc != 0 {
		t.Fatalf("%+v", r)
	}
	a, err := zim.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	e, err := a.Illustration(48)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := a.ReadBlob(e)
	got, err := png.Decode(bytes.NewReader(data))
	if err != nil || got.Bounds().Dx() != 48 || got.Bounds().Dy() != 48 {
		t.Fatalf("illustration: %v %v", got.Bounds(), err)
	}
	if mt, _ := a.MimeType(e); mt != "image/png" {
		t.Errorf("illustration MIME %s", mt)
	}
	// not a PNG
	out2 := filepath.Join(dir, "h.zim")
	r := viaMain(t, "create", "-o", out2, "--illustration", filepath.Join(garden, "backblue.gif"), garden)
	if r.rc != 1 || !strings.Contains(r.stderr, "backblue.gif: --illustration must be a PNG") {
		t.Errorf("%+v", r)
	}
	if _, err := os.Stat(out2); err == nil {
		t.Error("ZIM written with a bad illustration")
	}
	if r := viaMain(t, "create", "--version"); r.rc != 0 || !strings.HasPrefix(r.stdout, "arcport ") {
		t.Errorf("--version: %+v", r)
	}
}

// TestCreateS3: a WARC and a WACZ read from s3:// (a real versitygw), the
// ZIM written to s3:// (a multipart upload completed only when whole).
// zimdump runs in a child process: the store client is made once per
// process, from the environment of the first s3:// use.
func TestCreateS3(t *testing.T) {
	srv := s3test.Start(t)
	srv.Bucket(t, "coll")
	srv.Setenv(t, srv.URL)
	local := t.TempDir()
	warcFile := filepath.Join(local, "crawl.warc.gz")
	os.WriteFile(warcFile, sampleWARC(t), 0o644)
	os.WriteFile(filepath.Join(srv.Dir, "coll", "crawl.warc.gz"), sampleWARC(t), 0o644)
	want := filepath.Join(local, "garden.zim") // the same M/Name
	if r := ours("create", "-q", "-o", want, "--main-page", gardenURL+"/", warcFile); r.rc != 0 {
		t.Fatalf("%+v", r)
	}
	if r := viaMain(t, "create", "-q", "-o", "s3://coll/garden.zim", "--main-page", gardenURL+"/", "s3://coll/crawl.warc.gz"); r.rc != 0 {
		t.Fatalf("%+v", r)
	}
	got := filepath.Join(srv.Dir, "coll", "garden.zim")
	zimcheckA(t, got)
	// a WACZ in s3:// is read in place, by ranges
	f, err := os.Create(filepath.Join(srv.Dir, "coll", "crawl.wacz"))
	if err != nil {
		t.Fatal(err)
	}
	ww, err := wacz.NewWriter(f, wacz.Options{Title: "garden"})
	if err == nil {
		err = ww.AddInput("crawl.warc.gz", bytes.NewReader(sampleWARC(t)))
	}
	if err == nil {
		err = ww.Close()
	}
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if r := viaMain(t, "create", "-q", "-o", "s3://coll/fromwacz.zim", "--main-page", gardenURL+"/", "s3://coll/crawl.wacz"); r.rc != 0 {
		t.Fatalf("%+v", r)
	}
	zimcheckA(t, filepath.Join(srv.Dir, "coll", "fromwacz.zim"))
	// the same entries, bytes and metadata as from the local file (the UUID
	// and Date aside)
	la, err := zim.Open(want)
	if err != nil {
		t.Fatal(err)
	}
	defer la.Close()
	ra, err := zim.Open(got)
	if err != nil {
		t.Fatal(err)
	}
	defer ra.Close()
	if la.EntryCount() != ra.EntryCount() || la.EntryCount() < 10 {
		t.Fatalf("entries: s3 %d, local %d", ra.EntryCount(), la.EntryCount())
	}
	for i := range la.EntryCount() {
		le, _ := la.EntryAt(i)
		re, _ := ra.EntryAt(i)
		if le.LongPath() != re.LongPath() || le.Kind != re.Kind {
			t.Fatalf("entry %d: s3 %s, local %s", i, re.LongPath(), le.LongPath())
		}
		if le.Kind == zim.KindItem && le.Path != "Illustration_48x48@1" {
			lb, _ := la.ReadBlob(le)
			rb, _ := ra.ReadBlob(re)
			if !bytes.Equal(lb, rb) {
				t.Errorf("%s differs", le.LongPath())
			}
		}
	}
}

// TestCreateSymlink: a symbolic link in the folder is not followed (it
// could lead anywhere on the machine): reported, left out, exit status 1,
// the rest written.
func TestCreateSymlink(t *testing.T) {
	dir := t.TempDir()
	site := filepath.Join(dir, "site")
	os.MkdirAll(filepath.Join(site, "sub"), 0o755)
	os.WriteFile(filepath.Join(site, "index.html"), []byte(`<html><head><title>Home</title></head><body><a href="sub/a.html">a</a></body></html>`), 0o644)
	os.WriteFile(filepath.Join(site, "sub", "a.html"), []byte(`<html><head><title>A</title></head><body><a href="../index.html">home</a></body></html>`), 0o644)
	secret := filepath.Join(dir, "secret.txt")
	os.WriteFile(secret, []byte("not for the ZIM"), 0o644)
	os.Symlink(secret, filepath.Join(site, "leak.txt"))
	out := filepath.Join(dir, "s.zim")
	r := viaMain(t, "create", "-o", out, site)
	if r.rc != 1 || !strings.Contains(r.stderr, "leak.txt: symbolic link not followed (skipped)") {
		t.Fatalf("%+v", r)
	}
	a, err := zim.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, err := a.EntryByPath("C/leak.txt"); err == nil {
		t.Error("the symbolic link was followed")
	}
	if a.UserEntryCount() != 2 {
		t.Errorf("%d entries, want 2", a.UserEntryCount())
	}
	zimcheckA(t, out)
}
