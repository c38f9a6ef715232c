package xapian

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestParseHTML(t *testing.T) {
	for _, tc := range []struct{ html, title, dump, keywords string }{
		{"<html><head><title>T &amp; U</title><meta name=keywords content='k1, k2'></head><body><p>Hello <b>wor</b>ld</p><div>next</div></body>after",
			"T & U", "Hello world next", "k1, k2"},
		{"<body>a<script>var x = 'scripted'; if (a<b) {}</script>b<style>.styled{}</style>c<!-- commented -->d</body>", "", "abcd", ""},
		{"<body><a href='attributeword' title=\"attr\">link</a> caf&eacute; &#233;t&#xE9; &unknown; &#0; &amp;lt;</body>", "", "link café été &unknown; &#0; &lt;", ""},
		{"text before body<body>kept<br>broken<img src=x>up", "", "kept broken up", ""},
		{"<body><!--htdig_noindex-->hidden<!--/htdig_noindex-->shown", "", "shown", ""},
	} {
		h := ParseHTML(tc.html)
		if h.Title != tc.title || h.Dump != tc.dump || h.Keywords != tc.keywords {
			t.Errorf("ParseHTML(%q) = title %q dump %q keywords %q, want %q %q %q", tc.html, h.Title, h.Dump, h.Keywords, tc.title, tc.dump, tc.keywords)
		}
	}
	if h := ParseHTML(`<meta name="robots" content="NOINDEX"><body>x`); h.IndexingAllowed {
		t.Error("robots noindex not honoured")
	}
	if h := ParseHTML(`<meta name="geo.position" content="48.85;2.35">`); !h.HasGeo || h.Lat != 48.85 || h.Lon != 2.35 {
		t.Errorf("geo: %+v", h)
	}
}

// libzimPages are HTML pages for the comparison with libzim's indexer.
var libzimPages = []struct{ Path, Title, HTML string }{
	{"index.html", "Garden Roses", `<html><head><title>Garden Roses</title><meta name="keywords" content="flowers, Gardening"></head>
<body><h1>Roses</h1><p>Gardening with roses in the garden: the gardeners' guide.</p>
<script>var hiddenscriptword = "<b>nope</b>";</script><style>.hiddenstyleword{color:red}</style>
<!-- hiddencommentword --><a href="hiddenattributeword.html" title="hiddentitleattr">Read more</a>
<ul><li>one</li><li>two</li></ul>Caf&eacute; &amp; th&eacute; &#8212; naïve été</body></html>`},
	{"cafe.html", "Le Café", `<html><body><p>Un café au lait en été, s'il vous plaît.</p><p>AT&amp;T C++ 3.14 U.S.A.</p></body></html>`},
	{"long.html", "Long Page", "<html><body>" + strings.Repeat("<p>The quick brown foxes were jumping over lazy dogs repeatedly.</p>\n", 40) + "</body></html>"},
	{"noindex.html", "Robots", `<html><head><meta name="robots" content="noindex"></head><body>secret words</body></html>`},
	{"empty.html", "Empty", `<html><body>   </body></html>`},
	{"tricky.html", "Tricky <Page>", `<!DOCTYPE html><?xml-stylesheet x?><html><head><title>ignored head title</title></head><body class=main id='x' data-x="a>b">
<table><tr><td>cell1</td><td>cell2</td></tr></table>unquoted<br/>after<hr>rule<h2>Heading</h2>
<p>Numbers: 1,000,000 and 3.14159; dates 2024-01-02; emails someone@example.org; URLs https://example.org/path?q=1&amp;r=2</p>
<p>Apostrophes: don't, it’s, l’été; quotes “double” «French»; dashes – and —; ellipsis…</p>
<p>Accents: Ærøskøbing, São Paulo, Zürich, İstanbul, naïveté, Ελληνικά, Русский</p>
<!-- a comment with <b>tags</b> --><![CDATA[ cdata text ]]>
<p>a<b</p><p>x > y</p><textarea>typed text</textarea><select><option>opt1<option>opt2</select>
</body></html>`},
	{"geo.html", "Paris", `<html><head><meta name="geo.position" content="48.8566;2.3522"></head><body>Paris is a city.</body></html>`},
	{"geo2.html", "South", `<html><head><meta name="geo.position" content=" -33.9;-70.65 "></head><body>Santiago de Chile.</body></html>`},
	{"words.html", "Many Words", "<html><body><p>" + strings.Join(strings.Fields(strings.Repeat("gardening gardens gardened gardener roses rose rosy blooming bloomed flowers flowering generously communication nationalization relational hopefully happiness ", 3)), " ") + "</p></body></html>"},
}

// TestLibzimFullTextSameAsLibzim: the ZIM that libzim's own Creator
// (python3-libzim, indexing on, English) writes for some HTML pages holds
// in X/fulltext/xapian, per document, exactly the terms and wdfs, data and
// values that LibzimFullText makes for the same pages with StemEnglish and
// the stop words libzim stored in the database.
func TestLibzimFullTextSameAsLibzim(t *testing.T) {
	const py = "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import libzim.writer").Run(); err != nil {
		needPyLibzim(t)
	}
	zimPath := filepath.Join(t.TempDir(), "pages.zim")
	js, _ := json.Marshal(libzimPagesJSON())
	cmd := exec.Command(py, "testdata/libzimmake.py", zimPath, "eng")
	cmd.Stdin = bytes.NewReader(js)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("libzimmake.py: %v\n%s", err, out)
	}
	b := readIndex(t, zimPath, "fulltext")
	db, err := Open(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	// the stop words libzim used are in the metadata (Debian's libzim 8.1
	// stores none for "eng")
	sw, _ := db.Metadata("stopwords")
	stops := map[string]bool{}
	for _, w := range strings.Split(string(sw), "\n") {
		if w != "" {
			stops[w] = true
		}
	}
	// libzim's documents: terms by inverting every posting list
	type doc struct {
		data   string
		terms  map[string]uint32
		values [3]string
	}
	docs := map[uint32]*doc{}
	for did := uint32(1); did <= db.Stats().LastDocID; did++ {
		data, _ := db.DocData(did)
		v0, _ := db.Value(did, 0)
		v1, _ := db.Value(did, 1)
		v2, _ := db.Value(did, 2)
		docs[did] = &doc{data: string(data), terms: map[string]uint32{}, values: [3]string{string(v0), string(v1), string(v2)}}
	}
	err = db.AllTerms("", func(term string, tf uint32, cf uint64) bool {
		ps, err := db.Postings(term)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ps {
			docs[p.DocID].terms[term] = p.WDF
		}
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	byData := map[string]*doc{}
	for _, d := range docs {
		byData[d.data] = d
	}
	compared := 0
	defer func() {
		if compared < 40 {
			t.Errorf("only %d terms compared", compared)
		}
		t.Logf("%d terms of %d documents compared", compared, len(byData))
	}()
	for _, pg := range libzimPages {
		want, indexed := byData["C/"+pg.Path]
		got, ok := LibzimFullText(pg.Path, pg.Title, pg.HTML, StemEnglish, func(w string) bool { return stops[w] })
		if ok != indexed {
			t.Errorf("%s: arcport indexes it: %v, libzim: %v", pg.Path, ok, indexed)
			continue
		}
		if !ok {
			continue
		}
		if string(got.values[0]) != want.values[0] || string(got.values[1]) != want.values[1] || string(got.values[2]) != want.values[2] {
			t.Errorf("%s: values %q %q %x, libzim %q %q %x", pg.Path, got.values[0], got.values[1], got.values[2], want.values[0], want.values[1], want.values[2])
		}
		gt := map[string]uint32{}
		for term, dt := range got.terms {
			gt[term] = dt.wdf
		}
		for term, w := range want.terms {
			compared++
			if gt[term] != w {
				t.Errorf("%s: term %q wdf %d, libzim %d", pg.Path, term, gt[term], w)
			}
		}
		for term, g := range gt {
			if _, ok := want.terms[term]; !ok {
				t.Errorf("%s: term %q (wdf %d) not in libzim's index", pg.Path, term, g)
			}
		}
	}
	for _, hidden := range []string{"hiddenscriptword", "hiddenstyleword", "hiddencommentword", "hiddenattributeword", "hiddentitleattr", "secret"} {
		if ps, _ := db.Postings(hidden); len(ps) > 0 {
			t.Errorf("libzim indexed %q", hidden)
		}
	}
}

func libzimPagesJSON() []map[string]string {
	var out []map[string]string
	for _, p := range libzimPages {
		out = append(out, map[string]string{"path": p.Path, "title": p.Title, "html": p.HTML})
	}
	return out
}

func needPyLibzim(t *testing.T) {
	t.Helper()
	peertestMissing(t, "python3-libzim", "/usr/bin/python3 cannot import libzim.writer")
}

// TestLibzimTitleSameAsLibzim: X/title/xapian of the same ZIM holds, per
// document, the terms, wdfs, positions and values LibzimTitle makes.
func TestLibzimTitleSameAsLibzim(t *testing.T) {
	const py = "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import libzim.writer").Run(); err != nil {
		needPyLibzim(t)
	}
	zimPath := filepath.Join(t.TempDir(), "pages.zim")
	js, _ := json.Marshal(libzimPagesJSON())
	cmd := exec.Command(py, "testdata/libzimmake.py", zimPath, "eng")
	cmd.Stdin = bytes.NewReader(js)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("libzimmake.py: %v\n%s", err, out)
	}
	b := readIndex(t, zimPath, "title")
	db, err := Open(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	type posting struct {
		wdf uint32
		pos []uint32
	}
	docs := map[string]map[string]posting{}
	dataOf := map[uint32]string{}
	for did := uint32(1); did <= db.Stats().LastDocID; did++ {
		data, _ := db.DocData(did)
		dataOf[did] = string(data)
		docs[string(data)] = map[string]posting{}
	}
	db.AllTerms("", func(term string, tf uint32, cf uint64) bool {
		ps, _ := db.Postings(term)
		for _, p := range ps {
			pos, _ := db.Positions(p.DocID, term)
			docs[dataOf[p.DocID]][term] = posting{p.WDF, pos}
		}
		return true
	})
	compared := 0
	for _, pg := range libzimPages {
		want, ok := docs["C/"+pg.Path]
		if !ok {
			t.Errorf("%s: not in libzim's title index", pg.Path)
			continue
		}
		got := LibzimTitle(pg.Path, pg.Title, "", StemEnglish)
		if len(got.terms) != len(want) {
			t.Errorf("%s: %d terms, libzim %d", pg.Path, len(got.terms), len(want))
		}
		for term, w := range want {
			compared++
			g, ok := got.terms[term]
			if !ok || g.wdf != w.wdf || !slices.Equal(g.pos, w.pos) && len(g.pos)+len(w.pos) > 0 {
				t.Errorf("%s: term %q: %v, libzim wdf %d positions %v", pg.Path, term, g, w.wdf, w.pos)
			}
		}
	}
	if compared < 15 {
		t.Errorf("only %d terms compared", compared)
	}
	t.Logf("%d terms of %d title documents compared", compared, len(docs))
}

// TestLibzimFullTextSearchSameAsLibzim: the full-text database arcport
// writes from the pages (LibzimFullText, NoTermList) and the one libzim
// wrote answer Xapian's queries with the same documents and the same
// weights (BM25 over identical statistics).
func TestLibzimFullTextSearchSameAsLibzim(t *testing.T) {
	const py = "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import libzim.writer").Run(); err != nil {
		needPyLibzim(t)
	}
	needPyXapian(t)
	dir := t.TempDir()
	zimPath := filepath.Join(dir, "pages.zim")
	js, _ := json.Marshal(libzimPagesJSON())
	cmd := exec.Command(py, "testdata/libzimmake.py", zimPath, "eng")
	cmd.Stdin = bytes.NewReader(js)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("libzimmake.py: %v\n%s", err, out)
	}
	theirs := filepath.Join(dir, "libzim.glass")
	if err := os.WriteFile(theirs, readIndex(t, zimPath, "fulltext"), 0o644); err != nil {
		t.Fatal(err)
	}
	w, _ := NewWriter(WriterOptions{NoTermList: true})
	for _, pg := range libzimPages {
		if d, ok := LibzimFullText(pg.Path, pg.Title, pg.HTML, StemEnglish, nil); ok {
			w.Add(d)
		}
	}
	w.SetMetadata("valuesmap", []byte("title:0;wordcount:1;geo.position:2"))
	w.SetMetadata("kind", []byte("fulltext"))
	w.SetMetadata("data", []byte("fullPath"))
	w.SetMetadata("language", []byte("eng"))
	ours := writeDB(t, w)
	xapianCheck(t, ours)
	queries := []string{"garden", "rose", "cafe", "ete", "quick", "fox", "gener", "flower", "the", "garden OR rose", "bloom AND flower", "nation", "zzzz"}
	type result struct {
		Query   string    `json:"query"`
		Data    []string  `json:"data"`
		Weights []float64 `json:"weights"`
	}
	run := func(db string) map[string]result {
		out, err := exec.Command(py, append([]string{"testdata/xapquery.py", db}, queries...)...).Output()
		if err != nil {
			t.Fatalf("xapquery.py %s: %v", db, err)
		}
		res := map[string]result{}
		for _, line := range bytes.Split(bytes.TrimSpace(out), []byte("\n")) {
			var r result
			json.Unmarshal(line, &r)
			res[r.Query] = r
		}
		return res
	}
	a, b := run(ours), run(theirs)
	found := 0
	for _, q := range queries {
		ra, rb := a[q], b[q]
		ka, kb := map[string]float64{}, map[string]float64{}
		for i, d := range ra.Data {
			ka[d] = ra.Weights[i]
		}
		for i, d := range rb.Data {
			kb[d] = rb.Weights[i]
		}
		if !maps.Equal(ka, kb) {
			t.Errorf("query %q: arcport's index gives %v, libzim's %v", q, ka, kb)
		}
		found += len(ka)
	}
	if found < 10 {
		t.Errorf("only %d hits in all", found)
	}
}

// TestSerialiseLatLongSameAsXapian compares with LatLongCoord.serialise().
func TestSerialiseLatLongSameAsXapian(t *testing.T) {
	py := needPyXapian(t)
	coords := [][2]float64{{0, 0}, {48.8566, 2.3522}, {-33.9, -70.65}, {90, 45}, {-90, 10}, {12.345678, 359.99999999}, {1e-9, -1e-9}, {45.5, 720.25}, {-0.000001, 180}}
	r := rand.New(rand.NewSource(3))
	for i := 0; i < 200; i++ {
		coords = append(coords, [2]float64{r.Float64()*180 - 90, r.Float64()*1000 - 500})
	}
	js, _ := json.Marshal(coords)
	cmd := exec.Command(py, "-c", `
import json, sys, xapian
for lat, lon in json.load(sys.stdin):
    print(xapian.LatLongCoord(lat, lon).serialise().hex())`)
	cmd.Stdin = bytes.NewReader(js)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Fields(string(out)) {
		got, ok := SerialiseLatLong(coords[i][0], coords[i][1])
		if !ok || fmt.Sprintf("%x", got) != line {
			t.Errorf("SerialiseLatLong(%v) = %x %v, Xapian %s", coords[i], got, ok, line)
		}
	}
	if _, ok := SerialiseLatLong(91, 0); ok {
		t.Error("latitude 91 accepted")
	}
}
