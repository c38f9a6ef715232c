package zimdump

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/arcport/arcport/lib/internal/peertest"
	"github.com/arcport/arcport/lib/zim"
	"github.com/arcport/arcport/lib/zim/xapian"
)

// indexSite is a small folder of English pages: words that appear only in
// one page's body (pergola, gardening, weather), and words that appear
// only in a style, a script, a comment or attributes (…secret).
var indexSite = map[string]string{
	"index.html": `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Allotment club</title></head>
<body><h1>Welcome</h1><p>Pages: <a href="tools.html">tools</a>, <a href="roses.html">roses</a>, <a href="notes.html">notes</a>.</p></body></html>`,
	"tools.html": `<html><head><title>Tools and sheds</title></head><body><p>Our members talk about gardening every week,
and the wheelbarrow is shared.</p><a href="index.html">home</a></body></html>`,
	"roses.html": `<html><head><title>Climbing roses</title></head><body><p>The pergola carries three climbing roses.</p>
<a href="index.html">home</a></body></html>`,
	"notes.html": `<html><head><title>Notes</title><style>.stylesecret { color: red }</style>
<script>var scriptsecret = "scriptsecret";</script></head>
<body><!-- commentsecret --><p data-x="attrsecret" title="attrsecret">Plain notes about the weather.</p>
<a href="index.html" title="linksecret">home</a></body></html>`,
	"style.css":     `body { color: green }`,
	"untitled.html": `<html><body><p>A page without a title, about compost heaps.</p></body></html>`,
}

// frenchSite is one French page, written with --language fra.
var frenchSite = map[string]string{
	"index.html": `<html><head><meta charset="utf-8"><title>Le club de théâtre</title></head>
<body><p>Les élèves répètent chaque jeudi à la salle des fêtes.</p></body></html>`,
}

func writeSite(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// xapianBlobs returns the X/fulltext/xapian and X/title/xapian blobs of a
// ZIM (nil when absent).
func xapianBlobs(t *testing.T, zimFile string) map[string][]byte {
	t.Helper()
	a, err := zim.Open(zimFile)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	out := map[string][]byte{}
	for _, kind := range []string{"fulltext", "title"} {
		idx, found, err := a.Find('X', kind+"/xapian")
		if err != nil {
			t.Fatal(err)
		}
		if !found {
			continue
		}
		e, err := a.EntryAt(idx)
		if err != nil {
			t.Fatal(err)
		}
		if mt, _ := a.MimeType(e); mt != zim.XapianMime {
			t.Errorf("X/%s/xapian: MIME type %q", kind, mt)
		}
		if c, err := a.ClusterHeader(e.Cluster); err != nil || c.Info&0x0f != zim.CompressionNone {
			t.Errorf("X/%s/xapian: cluster %d not stored uncompressed (%v)", kind, e.Cluster, err)
		}
		if out[kind], err = a.ReadBlob(e); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// libzimSearch runs python3-libzim's Searcher on each query and its
// SuggestionSearcher on each suggestion, and returns the paths found.
func libzimSearch(t *testing.T, zimFile string, queries, suggest []string) (search, sugg map[string][]string) {
	t.Helper()
	if err := exec.Command("/usr/bin/python3", "-c", "import libzim").Run(); err != nil {
		peertest.Missing(t, "python3-libzim", "import libzim with /usr/bin/python3")
	}
	py := `
import sys, json
from libzim.reader import Archive
from libzim.search import Query, Searcher
from libzim.suggestion import SuggestionSearcher
a = Archive(sys.argv[1])
qs, ss = json.loads(sys.argv[2]), json.loads(sys.argv[3])
s = Searcher(a)
json.dump([{q: list(s.search(Query().set_query(q)).getResults(0, 10)) for q in qs},
  {q: list(SuggestionSearcher(a).suggest(q).getResults(0, 10)) for q in ss}], sys.stdout)
`
	qj, _ := json.Marshal(queries)
	sj, _ := json.Marshal(suggest)
	out, err := exec.Command("/usr/bin/python3", "-c", py, zimFile, string(qj), string(sj)).Output()
	if err != nil {
		t.Fatalf("python3-libzim: %v", err)
	}
	var res [2]map[string][]string
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("python3-libzim: %v: %s", err, out)
	}
	return res[0], res[1]
}

// kiwixSearch runs kiwix-search (kiwix-tools) and returns the titles it
// prints, sorted.
func kiwixSearch(t *testing.T, zimFile, query string, suggest bool) []string {
	t.Helper()
	ks := peertest.Need(t, "kiwix-search", "kiwix-tools")
	args := []string{zimFile, query}
	if suggest {
		args = append([]string{"--suggestion"}, args...)
	}
	out, err := exec.Command(ks, args...).Output()
	if err != nil {
		t.Fatalf("kiwix-search %v: %v", args, err)
	}
	titles := strings.Fields(strings.ReplaceAll(strings.TrimSpace(string(out)), " ", "_"))
	sort.Strings(titles)
	return titles
}

// ownSearch searches a full-text blob with arcport's reader as libzim's
// searcher would (LibzimQueryTerms, all terms) and returns the paths.
func ownSearch(t *testing.T, blob []byte, lang, query string) []string {
	t.Helper()
	db, err := xapian.Open(bytes.NewReader(blob), int64(len(blob)))
	if err != nil {
		t.Fatal(err)
	}
	res, err := db.SearchTerms(xapian.LibzimQueryTerms(query, xapian.StemmerFor(lang), nil), true, 10)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, r := range res {
		d, err := db.DocData(r.DocID)
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, strings.TrimPrefix(string(d), "C/"))
	}
	return paths
}

// sameAsIndexer: the indexes zimdump create wrote page by page are the
// bytes xapian.Indexer (TestIndexerSameAsLibzim) writes for the HTML
// pages the ZIM holds, a page without a title under its path in the title
// index (libzim's Dirent::getTitle).
func sameAsIndexer(t *testing.T, zimFile, lang string, blobs map[string][]byte) {
	t.Helper()
	a, err := zim.Open(zimFile)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	ix := xapian.NewLibzimIndexer(lang)
	begin, end, err := a.NamespaceRange('C')
	if err != nil {
		t.Fatal(err)
	}
	for i := begin; i < end; i++ {
		e, err := a.EntryAt(i)
		if err != nil {
			t.Fatal(err)
		}
		mt, _ := a.MimeType(e)
		if e.IsRedirect() || !strings.HasPrefix(mt, "text/html") {
			continue
		}
		b, err := a.ReadBlob(e)
		if err != nil {
			t.Fatal(err)
		}
		if e.RawTitle == "" {
			ix.AddItem(e.Path, "", mt, b, false)
			ix.AddRedirect(e.Path, e.Path, "", true)
		} else {
			ix.AddItem(e.Path, e.RawTitle, mt, b, true)
		}
	}
	for kind, write := range map[string]func(io.Writer) (int64, error){"fulltext": ix.WriteFullText, "title": ix.WriteTitle} {
		var buf bytes.Buffer
		if _, err := write(&buf); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf.Bytes(), blobs[kind]) {
			t.Errorf("X/%s/xapian: %d bytes, xapian.Indexer's %d bytes differ", kind, len(blobs[kind]), buf.Len())
		}
	}
}

// kiwixServe serves zimFile with kiwix-serve on a free loopback port
// until the test ends and returns its base URL.
func kiwixServe(t *testing.T, zimFile string) string {
	t.Helper()
	kiwix := peertest.Need(t, "kiwix-serve", "kiwix-tools")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	var log bytes.Buffer
	ks := exec.Command(kiwix, "--address", "127.0.0.1", "--port", fmt.Sprint(port), zimFile)
	ks.Stdout, ks.Stderr = &log, &log
	if err := ks.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ks.Process.Kill(); ks.Wait() })
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if resp, err := http.Get(base + "/catalog/v2/entries"); err == nil {
			resp.Body.Close()
			return base
		}
	}
	t.Fatalf("kiwix-serve did not answer on %s:\n%s", base, log.String())
	return ""
}

func httpGet(t *testing.T, u string) string {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %v", u, resp.StatusCode, err)
	}
	return string(b)
}

// xapianCheck runs xapian-check on a database extracted from a ZIM.
func xapianCheck(t *testing.T, name string, blob []byte) {
	t.Helper()
	xc := peertest.Need(t, "xapian-check", "xapian-tools")
	p := filepath.Join(t.TempDir(), name+".glass")
	if err := os.WriteFile(p, blob, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(xc, p).CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("No errors found")) {
		t.Errorf("xapian-check %s: %v\n%s", name, err, out)
	}
}

// TestCreateIndex: zimdump create writes both search indexes by default,
// and python3-libzim's Searcher and SuggestionSearcher, kiwix-search and
// arcport's own reader find pages by words of their bodies, by stemmed
// forms, by French words without their accents, and find nothing for
// words only in scripts, styles, comments or attributes or in no page;
// zimcheck -A and xapian-check pass; the indexes are the same bytes from
// one run to the next; --no-index writes neither.
func TestCreateIndex(t *testing.T) {
	site := writeSite(t, indexSite)
	dir := t.TempDir()
	out := filepath.Join(dir, "club.zim")
	if r := viaMain(t, "create", "-o", out, "--date", "2026-11-27", site); r.rc != 0 || r.stderr != "" {
		t.Fatalf("%+v", r)
	}
	blobs := xapianBlobs(t, out)
	if len(blobs["fulltext"]) == 0 || len(blobs["title"]) == 0 {
		t.Fatalf("indexes: full-text %d bytes, title %d bytes", len(blobs["fulltext"]), len(blobs["title"]))
	}
	want := map[string][]string{
		"pergola": {"roses.html"}, "garden": {"tools.html"}, "gardening": {"tools.html"},
		"wheelbarrows": {"tools.html"}, "weather": {"notes.html"}, "Pergola carries": {"roses.html"},
		"stylesecret": nil, "scriptsecret": nil, "commentsecret": nil, "attrsecret": nil, "linksecret": nil,
		"nothingatall": nil, "composting": {"untitled.html"},
	}
	var queries []string
	for q := range want {
		queries = append(queries, q)
	}
	sort.Strings(queries)
	for _, q := range queries {
		if got := ownSearch(t, blobs["fulltext"], "eng", q); fmt.Sprint(got) != fmt.Sprint(want[q]) {
			t.Errorf("arcport's reader, %q: %v, want %v", q, got, want[q])
		}
	}
	wantSugg := map[string][]string{"clim": {"roses.html"}, "Tools": {"tools.html"}, "allotment": {"index.html"},
		"pergola": nil, "untitled": {"untitled.html"}}
	var suggs []string
	for q := range wantSugg {
		suggs = append(suggs, q)
	}
	sort.Strings(suggs)

	sameAsIndexer(t, out, "eng", blobs)
	zimcheckA(t, out)
	for kind, b := range blobs {
		xapianCheck(t, kind, b)
	}
	search, sugg := libzimSearch(t, out, queries, suggs)
	for _, q := range queries {
		if fmt.Sprint(search[q]) != fmt.Sprint(want[q]) {
			t.Errorf("python3-libzim Searcher, %q: %v, want %v", q, search[q], want[q])
		}
	}
	for _, q := range suggs {
		if fmt.Sprint(sugg[q]) != fmt.Sprint(wantSugg[q]) {
			t.Errorf("python3-libzim SuggestionSearcher, %q: %v, want %v", q, sugg[q], wantSugg[q])
		}
	}
	titleOf := map[string]string{"roses.html": "Climbing_roses", "tools.html": "Tools_and_sheds",
		"notes.html": "Notes", "index.html": "Allotment_club"}
	for _, q := range []string{"pergola", "gardening", "garden", "scriptsecret", "attrsecret", "nothingatall"} {
		var w []string
		for _, p := range want[q] {
			w = append(w, titleOf[p])
		}
		if got := kiwixSearch(t, out, q, false); fmt.Sprint(got) != fmt.Sprint(w) {
			t.Errorf("kiwix-search %q: %v, want %v", q, got, w)
		}
	}
	if got := kiwixSearch(t, out, "clim", true); fmt.Sprint(got) != "[Climbing_roses]" {
		t.Errorf("kiwix-search --suggestion clim: %v", got)
	}
	// kiwix-serve's /search and /suggest on loopback
	base := kiwixServe(t, out)
	hrefs := regexp.MustCompile(`<a href="/club/([^"]+)">`)
	for _, q := range []string{"pergola", "gardening", "scriptsecret", "attrsecret", "nothingatall"} {
		page := httpGet(t, base+"/search?books.name=club&pattern="+url.QueryEscape(q))
		var got []string
		for _, m := range hrefs.FindAllStringSubmatch(page, -1) {
			got = append(got, m[1])
		}
		if fmt.Sprint(got) != fmt.Sprint(want[q]) {
			t.Errorf("kiwix-serve /search %q: %v, want %v", q, got, want[q])
		}
	}
	if s := httpGet(t, base+"/suggest?content=club&term=clim"); !strings.Contains(s, `"path" : "roses.html"`) {
		t.Errorf("kiwix-serve /suggest clim: %s", s)
	}

	// the same input, the same index bytes
	out2 := filepath.Join(dir, "club2.zim")
	if r := viaMain(t, "create", "-o", out2, "--date", "2026-11-27", site); r.rc != 0 {
		t.Fatalf("%+v", r)
	}
	for kind, b := range xapianBlobs(t, out2) {
		if !bytes.Equal(b, blobs[kind]) {
			t.Errorf("X/%s/xapian differs between two runs", kind)
		}
	}

	// --no-index: neither index, nor their MIME type
	plain := filepath.Join(dir, "plain.zim")
	if r := viaMain(t, "create", "--no-index", "-o", plain, site); r.rc != 0 || r.stderr != "" {
		t.Fatalf("%+v", r)
	}
	if b := xapianBlobs(t, plain); len(b) != 0 {
		t.Errorf("--no-index: %d indexes", len(b))
	}
	a, err := zim.Open(plain)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range a.MimeTypes() {
		if m == zim.XapianMime {
			t.Errorf("--no-index: MIME type %s listed", m)
		}
	}
	a.Close()
	zimcheckA(t, plain)
	if r := ours("create", "--no-index=yes", "-o", plain, site); r.rc != 2 || !strings.Contains(r.stderr, "--no-index=yes takes no value") {
		t.Errorf("--no-index=yes: %+v", r)
	}
}

// TestCreateIndexFrench: with --language fra (M/Language fra) the words
// are stemmed by the French stemmer and found without their accents, and
// with them by arcport's reader, which folds a query's accents as libzim
// >= 8.2.1 does.
func TestCreateIndexFrench(t *testing.T) {
	site := writeSite(t, frenchSite)
	out := filepath.Join(t.TempDir(), "theatre.zim")
	if r := viaMain(t, "create", "-o", out, "--language", "fra", site); r.rc != 0 || r.stderr != "" {
		t.Fatalf("%+v", r)
	}
	a, err := zim.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	if l, _ := a.Metadata("Language"); string(l) != "fra" {
		t.Errorf("M/Language %q", l)
	}
	a.Close()
	blobs := xapianBlobs(t, out)
	db, err := xapian.Open(bytes.NewReader(blobs["fulltext"]), int64(len(blobs["fulltext"])))
	if err != nil {
		t.Fatal(err)
	}
	if l, _ := db.Metadata("language"); string(l) != "fra" {
		t.Errorf("full-text index language %q", l)
	}
	hit := []string{"index.html"}
	want := map[string][]string{"theatre": hit, "théâtre": hit, "eleves": hit, "élève": hit, "repetent": hit,
		"fetes": hit, "jeudis": hit, "opera": nil}
	var queries []string
	for q := range want {
		queries = append(queries, q)
	}
	sort.Strings(queries)
	for _, q := range queries {
		if got := ownSearch(t, blobs["fulltext"], "fra", q); fmt.Sprint(got) != fmt.Sprint(want[q]) {
			t.Errorf("arcport's reader, %q: %v, want %v", q, got, want[q])
		}
	}
	sameAsIndexer(t, out, "fra", blobs)
	zimcheckA(t, out)
	for kind, b := range blobs {
		xapianCheck(t, kind, b)
	}
	// libzim folds the accents of a query since 8.2.1 (openzim/libzim
	// a83edfe, #804); Debian's libzim 8.1.1, which python3-libzim and
	// kiwix-search use here, does not: "théâtre" finds nothing there, on
	// libzim's own indexes as on ours. The peers get the folded forms.
	var folded []string
	for _, q := range queries {
		if xapian.RemoveAccents(q) == strings.ToLower(q) {
			folded = append(folded, q)
		}
	}
	search, sugg := libzimSearch(t, out, folded, []string{"theatre", "club de"})
	for _, q := range folded {
		if fmt.Sprint(search[q]) != fmt.Sprint(want[q]) {
			t.Errorf("python3-libzim Searcher, %q: %v, want %v", q, search[q], want[q])
		}
	}
	for q, got := range sugg {
		if fmt.Sprint(got) != fmt.Sprint(hit) {
			t.Errorf("python3-libzim SuggestionSearcher, %q: %v, want %v", q, got, hit)
		}
	}
	for _, q := range []string{"theatre", "eleves"} {
		if got := kiwixSearch(t, out, q, false); fmt.Sprint(got) != "[Le_club_de_théâtre]" {
			t.Errorf("kiwix-search %q: %v", q, got)
		}
	}
}

// TestCreateIndexStopWords: with a two-letter --language (fr) the full-text
// index leaves out libzim's stop words for it and stores the list as its
// "stopwords" metadata, as libzim's Creator does for the same language
// (xapian's TestIndexerSameAsLibzim compares the Indexer with it); the
// other words are found, and the bytes are the Indexer's.
func TestCreateIndexStopWords(t *testing.T) {
	site := writeSite(t, frenchSite)
	out := filepath.Join(t.TempDir(), "fr.zim")
	if r := viaMain(t, "create", "-o", out, "--language", "fr", site); r.rc != 0 || r.stderr != "" {
		t.Fatalf("%+v", r)
	}
	blobs := xapianBlobs(t, out)
	db, err := xapian.Open(bytes.NewReader(blobs["fulltext"]), int64(len(blobs["fulltext"])))
	if err != nil {
		t.Fatal(err)
	}
	sw, _ := db.Metadata("stopwords")
	if want := strings.Join(xapian.LibzimStopWords("fr"), "\n"); string(sw) != want || len(want) == 0 {
		t.Errorf("stopwords metadata: %d bytes, want libzim's fr list (%d bytes)", len(sw), len(want))
	}
	hit := []string{"index.html"}
	for q, want := range map[string][]string{"les": nil, "des": nil, "chaque": nil, "salle": hit, "eleves": hit} {
		if got := ownSearch(t, blobs["fulltext"], "fr", q); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%q: %v, want %v", q, got, want)
		}
	}
	sameAsIndexer(t, out, "fr", blobs)
}
