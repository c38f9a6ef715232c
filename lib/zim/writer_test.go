package zim

import (
	"bytes"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/arcport/arcport/lib/internal/peertest"
	"github.com/arcport/arcport/lib/zim/xapian"
)

// wentry is an entry a test writes and expects to read back.
type wentry struct {
	path, title, mime string
	data              []byte
	front             bool
	target            string // redirect
}

func testPNG(t testing.TB) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, 48, 48))
	for y := range 48 {
		for x := range 48 {
			img.Set(x, y, color.NRGBA{uint8(x * 5), uint8(y * 5), 90, 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// sampleEntries is a small site: pages linking to each other, CSS, a
// large text file and a large image (each more than a cluster), many
// small pages (several clusters), redirects (one to nothing).
func sampleEntries(t testing.TB) []wentry {
	rnd := rand.New(rand.NewSource(1))
	noise := make([]byte, 300<<10)
	rnd.Read(noise)
	big := strings.Repeat("The garden grows in rows of beans and roses. ", 7000)
	es := []wentry{
		{path: "index.html", title: "Garden home", mime: "text/html", front: true,
			data: []byte(`<html><head><title>Garden home</title><link href="style.css" rel="stylesheet"></head><body><a href="about.html">About</a> <a href="pages/p1.html">p1</a> <img src="img/photo.png"></body></html>`)},
		{path: "about.html", title: "About the club", mime: "text/html", front: true,
			data: []byte(`<html><body><a href="index.html">home</a></body></html>`)},
		{path: "style.css", mime: "text/css", data: []byte("body{color:green}")},
		{path: "img/photo.png", mime: "image/png", data: noise},
		{path: "notes.txt", mime: "text/plain", data: []byte(big)},
		{path: "old.html", title: "Old about", target: "about.html"},
		{path: "nowhere.html", target: "missing.html"},
	}
	for i := range 300 {
		es = append(es, wentry{path: fmt.Sprintf("pages/p%d.html", i), title: fmt.Sprintf("Page number %d", i),
			mime: "text/html", front: true,
			data: []byte(fmt.Sprintf(`<html><body><h1>Page %d</h1><p>%s</p><a href="../index.html">home</a></body></html>`, i,
				strings.Repeat(fmt.Sprintf("word%d ", rnd.Intn(1000)), 60)))})
	}
	return es
}

var sampleMeta = map[string]string{"Title": "Garden", "Language": "eng", "Creator": "Garden Club",
	"Publisher": "arcport", "Date": "2026-11-26", "Description": "A small test garden", "Name": "garden_en_all",
	"Flavour": "test", "Tags": "_category:other;garden"}

func writeSample(t testing.TB, path string, es []wentry, opts ...WriterOption) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := NewWriter(f, opts...)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		if e.target != "" {
			err = w.AddRedirect(e.path, e.title, e.target, false)
		} else {
			err = w.AddEntry(e.path, e.title, e.mime, bytes.NewReader(e.data), e.front)
		}
		if err != nil {
			t.Fatalf("%s: %v", e.path, err)
		}
	}
	keys := make([]string, 0, len(sampleMeta))
	for k := range sampleMeta {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := w.AddMetadata(k, "", strings.NewReader(sampleMeta[k])); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.AddMetadata("Illustration_48x48@1", "image/png", bytes.NewReader(testPNG(t))); err != nil {
		t.Fatal(err)
	}
	w.SetMainPage("index.html")
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestWriterRoundTrip(t *testing.T) {
	es := sampleEntries(t)
	for _, tc := range []struct {
		name string
		opts []WriterOption
	}{
		{"zstd", []WriterOption{WithClusterSize(64 << 10)}},
		{"zstd-default-size", nil},
		{"xz", []WriterOption{WithCompression(CompressionXZ), WithClusterSize(64 << 10), WithWorkers(3)}},
		{"stored", []WriterOption{WithCompression(CompressionNone), WithClusterSize(100 << 10)}},
		{"tiny-clusters", []WriterOption{WithClusterSize(1024), WithWorkers(1)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "w.zim")
			writeSample(t, p, es, append(tc.opts, WithTempDir(t.TempDir()))...)
			a := mustOpen(t, p)
			checkSample(t, a, es)
		})
	}
}

func checkSample(t *testing.T, a *Archive, es []wentry) {
	t.Helper()
	h := a.Header()
	if h.MajorVersion != 6 || h.MinorVersion != 2 || !a.NewNamespaceScheme() {
		t.Fatalf("version %d.%d", h.MajorVersion, h.MinorVersion)
	}
	if err := a.VerifyChecksum(); err != nil {
		t.Fatal(err)
	}
	if ps := a.Check(CheckOptions{Checksum: true, Clusters: true}); len(ps) > 0 {
		t.Fatalf("check: %v", ps)
	}
	items := 0
	for _, e := range es {
		ent, err := a.EntryByPath("C/" + e.path)
		if e.target == "missing.html" {
			if err == nil {
				t.Errorf("redirect to nothing kept: %s", e.path)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", e.path, err)
		}
		if e.title != "" && ent.Title() != e.title {
			t.Errorf("%s: title %q, want %q", e.path, ent.Title(), e.title)
		}
		if e.target != "" {
			r, err := a.Redirect(ent)
			if err != nil || r.Path != e.target {
				t.Errorf("%s: redirect to %v (%v), want %s", e.path, r, err, e.target)
			}
			continue
		}
		items++
		mt, _ := a.MimeType(ent)
		b, err := a.ReadBlob(ent)
		if err != nil || mt != e.mime || !bytes.Equal(b, e.data) {
			t.Errorf("%s: mime %q err %v, %d bytes (want %q, %d bytes)", e.path, mt, err, len(b), e.mime, len(e.data))
		}
	}
	m, err := a.MainEntry()
	if err != nil {
		t.Fatal(err)
	}
	if r, err := a.Resolve(m); err != nil || r.Path != "index.html" {
		t.Errorf("main page %v %v", r, err)
	}
	for k, v := range sampleMeta {
		if got, err := a.Metadata(k); err != nil || string(got) != v {
			t.Errorf("M/%s = %q %v", k, got, err)
		}
	}
	cnt, _ := a.Metadata("Counter")
	if want := fmt.Sprintf("image/png=1;text/css=1;text/html=%d;text/plain=1", items-3); string(cnt) != want {
		t.Errorf("M/Counter %q, want %q", cnt, want)
	}
	if _, err := a.Illustration(48); err != nil {
		t.Error(err)
	}
	n, front := a.TitleIndexCount()
	if !front || int(n) != items-3 {
		t.Errorf("title index: %d entries, front articles %v; want %d", n, front, items-3)
	}
	// titles come in order
	prev := ""
	for i := range n {
		idx, err := a.EntryIndexByTitle(i)
		if err != nil {
			t.Fatal(err)
		}
		e, _ := a.EntryAt(idx)
		if e.Title() < prev {
			t.Errorf("title order: %q after %q", e.Title(), prev)
		}
		prev = e.Title()
	}
}

// TestWriterPeers checks an archive written here with openzim's tools and
// python3-libzim: zimcheck -A finds nothing, zimdump list --details shows
// every entry with our MIME type and size, libzim reads every item's bytes
// and finds pages by title through its suggestion API.
func TestWriterPeers(t *testing.T) {
	zimcheck := peertest.Need(t, "zimcheck", "zim-tools")
	zimdump := peertest.OpenzimZimdump(t) // by its package path, --version naming openzim
	if err := exec.Command("/usr/bin/python3", "-c", "import libzim").Run(); err != nil {
		peertest.Missing(t, "python3-libzim", "import libzim with /usr/bin/python3")
	}
	es := sampleEntries(t)
	for _, tc := range []struct {
		name string
		opts []WriterOption
	}{
		{"zstd", []WriterOption{WithClusterSize(64 << 10)}},
		{"xz", []WriterOption{WithCompression(CompressionXZ)}},
		// the title listing is larger than a cluster: a cluster of its own
		{"tiny-clusters", []WriterOption{WithClusterSize(1024)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "w.zim")
			writeSample(t, p, es, tc.opts...)
			out, err := exec.Command(zimcheck, "-A", p).CombinedOutput()
			if err != nil || bytes.Contains(out, []byte("[ERROR]")) {
				t.Fatalf("zimcheck -A: %v\n%s", err, out)
			}
			// openzim zimdump lists every entry with its MIME type and size
			out, err = exec.Command(zimdump, "list", "--details", p).Output()
			if err != nil {
				t.Fatal(err)
			}
			listed := string(out)
			for _, e := range es {
				switch {
				case e.target == "missing.html":
					if strings.Contains(listed, "path: "+e.path+"\n") {
						t.Errorf("openzim lists the dropped redirect %s", e.path)
					}
				case e.target != "":
					if !strings.Contains(listed, "path: "+e.path+"\n") {
						t.Errorf("openzim does not list %s", e.path)
					}
				default:
					want := fmt.Sprintf("path: %s\n* title:          %s\n", e.path, titleOr(e))
					wantTail := fmt.Sprintf("* type:           item\n* mime-type:      %s\n* item size:      %d\n", e.mime, len(e.data))
					i := strings.Index(listed, want)
					if i < 0 || !strings.Contains(listed[i:min(len(listed), i+400)], wantTail) {
						t.Errorf("openzim list --details: no %q ... %q", want, wantTail)
					}
				}
			}
			// python3-libzim: every item's bytes and MIME type, and a title search
			py := `
import sys, json, hashlib
from libzim.reader import Archive
from libzim.suggestion import SuggestionSearcher
a = Archive(sys.argv[1])
out = {"main": a.main_entry.get_item().path, "count": a.entry_count, "items": {}}
for i in range(a.all_entry_count):
    e = a._get_entry_by_id(i)
    if e.is_redirect:
        continue
    it = e.get_item()
    out["items"][e.path] = [it.mimetype, hashlib.md5(bytes(it.content)).hexdigest()]
s = SuggestionSearcher(a).suggest("Page number 12")
out["suggest"] = list(s.getResults(0, 20))
s = SuggestionSearcher(a).suggest("About the")
out["suggest2"] = list(s.getResults(0, 5))
out["meta"] = {k: bytes(a.get_metadata(k)).decode() for k in ["Title", "Language", "Counter"]}
json.dump(out, sys.stdout)
`
			out, err = exec.Command("/usr/bin/python3", "-c", py, p).Output()
			if err != nil {
				t.Fatalf("python3-libzim: %v", err)
			}
			var got struct {
				Main     string
				Count    int
				Items    map[string][2]string
				Suggest  []string
				Suggest2 []string
				Meta     map[string]string
			}
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatal(err)
			}
			if got.Main != "index.html" {
				t.Errorf("libzim main page %q", got.Main)
			}
			for _, e := range es {
				if e.target != "" {
					continue
				}
				sum := md5.Sum(e.data)
				if g := got.Items[e.path]; g != [2]string{e.mime, hex.EncodeToString(sum[:])} {
					t.Errorf("libzim reads %s as %v", e.path, g)
				}
			}
			// "Page number 12" prefixes 12 and 120-129
			sort.Strings(got.Suggest)
			if len(got.Suggest) != 11 || got.Suggest[0] != "pages/p12.html" || got.Suggest[10] != "pages/p129.html" {
				t.Errorf("libzim suggestions for \"Page number 12\": %v", got.Suggest)
			}
			if len(got.Suggest2) != 1 || got.Suggest2[0] != "about.html" {
				t.Errorf("libzim suggestions for \"About the\": %v", got.Suggest2)
			}
			if got.Meta["Title"] != "Garden" || got.Meta["Language"] != "eng" {
				t.Errorf("libzim metadata %v", got.Meta)
			}
		})
	}
}

func titleOr(e wentry) string {
	if e.title == "" {
		return e.path
	}
	return e.title
}

// TestWriterRedirectLoops: redirects in a loop, and those leading into
// one, are dropped (libzim would write them; zimcheck reports loops), and
// so is a main page among them.
func TestWriterRedirectLoops(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, WithTempDir(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	w.AddEntry("page.html", "Page", "text/html", strings.NewReader("<p>x</p>"), true)
	for _, r := range [][2]string{{"self", "self"}, {"a", "b"}, {"b", "c"}, {"c", "a"}, {"into", "a"}, {"ok1", "ok2"}, {"ok2", "page.html"}} {
		if err := w.AddRedirect(r[0], "", r[1], false); err != nil {
			t.Fatal(err)
		}
	}
	w.SetMainPage("into")
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	a, err := New(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"self", "a", "b", "c", "into"} {
		if _, err := a.EntryByPath("C/" + p); err == nil {
			t.Errorf("C/%s kept", p)
		}
	}
	e, err := a.EntryByPath("C/ok1")
	if err != nil {
		t.Fatal(err)
	}
	if r, err := a.Resolve(e); err != nil || r.Path != "page.html" {
		t.Errorf("ok1 resolves to %v %v", r, err)
	}
	if a.Header().HasMainPage() {
		t.Error("main page kept though it is in a loop")
	}
	if ps := a.Check(CheckOptions{Checksum: true}); len(ps) > 0 {
		t.Error(ps)
	}
}

func TestWriterErrors(t *testing.T) {
	w, err := NewWriter(&bytes.Buffer{}, WithTempDir(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.AddEntry("a.html", "", "text/html", strings.NewReader("x"), true); err != nil {
		t.Fatal(err)
	}
	if err := w.AddEntry("a.html", "", "text/html", strings.NewReader("y"), true); err == nil || !strings.Contains(err.Error(), "C/a.html added twice") {
		t.Errorf("duplicate: %v", err)
	}
	if err := w.AddEntry("", "", "text/html", nil, false); err == nil {
		t.Error("empty path accepted")
	}
	if err := w.AddEntry("b\x00c", "", "text/html", nil, false); err == nil {
		t.Error("NUL in path accepted")
	}
	// an item replaces a redirect of the same path
	if err := w.AddRedirect("r.html", "", "a.html", false); err != nil {
		t.Fatal(err)
	}
	if err := w.AddEntry("r.html", "", "text/html", strings.NewReader("real"), false); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.AddEntry("late.html", "", "text/html", nil, false); err != ErrWriterClosed {
		t.Errorf("after Close: %v", err)
	}
}

// BenchmarkWriter writes 5000 small HTML pages and 500 images (zstd);
// MB/s counts the content added.
func BenchmarkWriter(b *testing.B) {
	pages := make([][]byte, 5000)
	for i := range pages {
		pages[i] = []byte(fmt.Sprintf(`<html><head><title>Article %d</title></head><body><h1>Article %d</h1><p>%s</p></body></html>`,
			i, i, strings.Repeat(fmt.Sprintf("lorem %d ipsum ", i%97), 120)))
	}
	img := make([]byte, 8<<10)
	rand.New(rand.NewSource(2)).Read(img)
	var in int64
	for i, p := range pages {
		in += int64(len(p))
		if i%10 == 0 {
			in += int64(len(img))
		}
	}
	dir := b.TempDir()
	b.SetBytes(in)
	b.ResetTimer()
	for range b.N {
		w, err := NewWriter(io.Discard, WithTempDir(dir))
		if err != nil {
			b.Fatal(err)
		}
		for i, p := range pages {
			w.AddEntry(fmt.Sprintf("A/Article_%d", i), fmt.Sprintf("Article %d", i), "text/html", bytes.NewReader(p), true)
			if i%10 == 0 {
				w.AddEntry(fmt.Sprintf("I/img_%d.png", i), "", "image/png", bytes.NewReader(img), false)
			}
		}
		w.SetMainPage("A/Article_0")
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzWriterRoundTrip writes entries made from arbitrary bytes (paths,
// titles, contents, MIME types, redirects, duplicates) with tiny clusters
// and reads the archive back: whatever the Writer accepts must come back
// as written, and the archive must pass Check (checksum, order, clusters).
func FuzzWriterRoundTrip(f *testing.F) {
	f.Add([]byte("a.html\x00Home\x00<html>hi</html>\x00b.png\x00\x00\x89PNG\x00r\x00>a.html\x00"), uint8(5))
	f.Add([]byte("x\x00\x00\x00x\x00dup\x00y\x00z\x00\x00"+strings.Repeat("long content ", 200)), uint8(4))
	f.Add([]byte("\x00\x00\x00"), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, comp uint8) {
		c := []byte{CompressionZstd, CompressionXZ, CompressionNone}[int(comp)%3]
		var buf bytes.Buffer
		// level 1: the best zstd encoder zeroes 32 MiB of tables per Writer
		w, err := NewWriter(&buf, WithClusterSize(1024), WithCompression(c), WithCompressionLevel(1), WithWorkers(2), WithTempDir(t.TempDir()))
		if err != nil {
			t.Fatal(err)
		}
		parts := bytes.Split(data, []byte{0})
		mimes := []string{"text/html", "image/png", "application/octet-stream", "text/plain"}
		type item struct {
			mime, title string
			data        []byte
		}
		items := map[string]item{}
		redirects := map[string]string{}
		for i := 0; i+2 < len(parts) && i < 600; i += 3 {
			p, title, body := string(parts[i]), string(parts[i+1]), parts[i+2]
			if strings.HasPrefix(title, ">") { // a redirect to the path after ">"
				if err := w.AddRedirect(p, "", title[1:], false); err == nil {
					redirects[p] = title[1:]
				}
				continue
			}
			mime := mimes[len(body)%len(mimes)]
			if err := w.AddEntry(p, title, mime, bytes.NewReader(body), mime == "text/html"); err == nil {
				items[p] = item{mime, title, body}
				delete(redirects, p) // an item replaces a redirect
			}
		}
		w.SetMainPage("a.html")
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		a, err := New(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
		if err != nil {
			t.Fatal(err)
		}
		if ps := a.Check(CheckOptions{Checksum: true, Clusters: true}); len(ps) > 0 {
			t.Fatalf("check: %v", ps)
		}
		for p, it := range items {
			e, err := a.EntryByPath("C/" + p)
			if err != nil {
				t.Fatalf("%q: %v", p, err)
			}
			mt, _ := a.MimeType(e)
			b, err := a.ReadBlob(e)
			if err != nil || mt != it.mime || !bytes.Equal(b, it.data) || e.RawTitle != it.title && !(it.title == p && e.RawTitle == "") {
				t.Fatalf("%q: %q %q %q (%v), want %q %q %q", p, mt, e.RawTitle, b, err, it.mime, it.title, it.data)
			}
		}
		for p, target := range redirects {
			_, isItem := items[target]
			_, isRedir := redirects[target]
			e, err := a.EntryByPath("C/" + p)
			switch {
			case isItem || isRedir:
				// a target that is itself a dropped redirect drops this one
				// too only in chains; items always resolve
				if isItem && (err != nil || !e.IsRedirect()) {
					t.Fatalf("redirect %q -> %q: %v", p, target, err)
				}
			default:
				if err == nil {
					t.Fatalf("redirect %q to nothing kept", p)
				}
			}
		}
	})
}

// TestWriterXapianIndex stores the two Xapian databases of the sample
// (built by xapian.Indexer) with AddXapianIndex: entries X/title/xapian and
// X/fulltext/xapian with libzim's MIME type, in an uncompressed cluster,
// the bytes as given, M/Counter without them; zimcheck -A passes and
// python3-libzim's Searcher and SuggestionSearcher use them.
func TestWriterXapianIndex(t *testing.T) {
	es := sampleEntries(t)[:3]
	es[0].data = []byte(`<html><head><title>Garden home</title><link href="style.css" rel="stylesheet"></head><body><a href="about.html">About</a></body></html>`)
	es[1].data = []byte(`<html><head><title>About the club</title></head><body><p>We meet for gardening on Sundays.</p></body></html>`)
	ix := xapian.NewIndexer("eng", nil)
	for _, e := range es {
		ix.AddItem(e.path, e.title, e.mime, e.data, e.front)
	}
	var full, title bytes.Buffer
	if _, err := ix.WriteFullText(&full); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.WriteTitle(&title); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "x.zim")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	w, err := NewWriter(f, WithTempDir(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		if err := w.AddEntry(e.path, e.title, e.mime, bytes.NewReader(e.data), e.front); err != nil {
			t.Fatal(err)
		}
	}
	for k, v := range sampleMeta {
		if err := w.AddMetadata(k, "", strings.NewReader(v)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.AddMetadata("Illustration_48x48@1", "image/png", bytes.NewReader(testPNG(t))); err != nil {
		t.Fatal(err)
	}
	w.SetMainPage("index.html")
	if err := w.AddXapianIndex("suggest", bytes.NewReader(nil)); err == nil {
		t.Error("kind suggest accepted")
	}
	if err := w.AddXapianIndex("title", bytes.NewReader(title.Bytes())); err != nil {
		t.Fatal(err)
	}
	if err := w.AddXapianIndex("fulltext", bytes.NewReader(full.Bytes())); err != nil {
		t.Fatal(err)
	}
	if err := w.AddXapianIndex("title", bytes.NewReader(title.Bytes())); err == nil || !strings.Contains(err.Error(), "X/title/xapian added twice") {
		t.Errorf("second title index: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()

	a, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	for name, want := range map[string][]byte{"fulltext/xapian": full.Bytes(), "title/xapian": title.Bytes()} {
		idx, found, err := a.Find('X', name)
		if err != nil || !found {
			t.Fatalf("X/%s: %v %v", name, found, err)
		}
		e, err := a.EntryAt(idx)
		if err != nil {
			t.Fatal(err)
		}
		if mt, _ := a.MimeType(e); mt != XapianMime {
			t.Errorf("%s: MIME type %q", name, mt)
		}
		c, err := a.ClusterHeader(e.Cluster)
		if err != nil || c.Info&0x0f != CompressionNone {
			t.Errorf("%s: cluster %d info %#x (%v), want uncompressed", name, e.Cluster, c.Info, err)
		}
		got, err := a.ReadBlob(e)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%s: %d bytes (%v), want the %d given", name, len(got), err, len(want))
		}
		if _, err := xapian.Open(bytes.NewReader(got), int64(len(got))); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if c, _ := a.Metadata("Counter"); string(c) != "text/css=1;text/html=2" {
		t.Errorf("M/Counter %q", c)
	}
	if ps := a.Check(CheckOptions{Checksum: true, Clusters: true}); len(ps) > 0 {
		t.Errorf("check: %v", ps)
	}

	zimcheck := peertest.Need(t, "zimcheck", "zim-tools")
	if out, err := exec.Command(zimcheck, "-A", p).CombinedOutput(); err != nil || bytes.Contains(out, []byte("[ERROR]")) {
		t.Fatalf("zimcheck -A: %v\n%s", err, out)
	}
	if err := exec.Command("/usr/bin/python3", "-c", "import libzim").Run(); err != nil {
		peertest.Missing(t, "python3-libzim", "import libzim with /usr/bin/python3")
	}
	py := `
import sys, json
from libzim.reader import Archive
from libzim.search import Query, Searcher
from libzim.suggestion import SuggestionSearcher
a = Archive(sys.argv[1])
s = Searcher(a)
json.dump([a.has_fulltext_index, a.has_title_index,
  list(s.search(Query().set_query("sunday")).getResults(0, 10)),
  list(s.search(Query().set_query("nowhereword")).getResults(0, 10)),
  list(SuggestionSearcher(a).suggest("club").getResults(0, 10))], sys.stdout)
`
	out, err := exec.Command("/usr/bin/python3", "-c", py, p).Output()
	if err != nil {
		t.Fatalf("python3-libzim: %v", err)
	}
	if got := strings.TrimSpace(string(out)); got != `[true, true, ["about.html"], [], ["about.html"]]` {
		t.Errorf("python3-libzim (has full-text, has title, search sunday, nowhereword, suggest club): %s", got)
	}
}
