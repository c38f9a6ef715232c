package xapian

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// writeDB writes w to a file in t's temp dir.
func writeDB(t *testing.T, w *Writer) string {
	t.Helper()
	var buf bytes.Buffer
	if _, err := w.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "w.glass")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestWriteSmallest: three documents with terms, positions, data and one
// value; xapian-check finds no error and Xapian reads back exactly what
// was written.
func TestWriteSmallest(t *testing.T) {
	w, err := NewWriter(WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i, text := range []string{"the quick brown fox jumps over the lazy dog", "gardening with roses", "café été"} {
		d := NewDocument()
		for j, word := range bytes.Fields([]byte(text)) {
			d.AddPosting(string(word), uint32(j+1), 1)
		}
		d.AddTerm("Zgarden", uint32(i))
		d.SetData([]byte(fmt.Sprintf("C/page%d.html", i)))
		d.AddValue(0, []byte(fmt.Sprintf("Title %d", i)))
		if _, err := w.Add(d); err != nil {
			t.Fatal(err)
		}
	}
	w.SetMetadata("language", []byte("en"))
	p := writeDB(t, w)
	xapianCheck(t, p)
	compareWithPy(t, p)
	db := openFile(t, p)
	if pos, err := db.Positions(1, "the"); err != nil || !slices.Equal(pos, []uint32{1, 7}) {
		t.Errorf("Positions(1, the) = %v %v", pos, err)
	}
}

// randomWriter fills a Writer with randomDocs(n, seed) and metadata.
func randomWriter(t *testing.T, n int, seed int64, bs int) *Writer {
	t.Helper()
	w, err := NewWriter(WriterOptions{BlockSize: bs})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range randomDocs(n, seed) {
		if _, err := w.Add(d); err != nil {
			t.Fatal(err)
		}
	}
	w.SetMetadata("language", []byte("eng"))
	w.SetMetadata("valuesmap", []byte("title:0;wordcount:1"))
	return w
}

// randomDocs makes n documents of random words (some long data, several
// value slots, many positions, terms with NUL bytes and of 204 bytes).
func randomDocs(n int, seed int64) []*Document {
	r := rand.New(rand.NewSource(seed))
	words := []string{"garden", "rose", "the", "a", "café", "xapian", "glass", "kiwix", "\x00nul", "long" + string(bytes.Repeat([]byte("x"), 200))}
	for i := 0; i < 400; i++ {
		words = append(words, fmt.Sprintf("w%d", i))
	}
	var docs []*Document
	for i := 0; i < n; i++ {
		d := NewDocument()
		nw := r.Intn(80)
		for j := 0; j < nw; j++ {
			word := words[r.Intn(len(words))]
			if r.Intn(5) == 0 {
				d.AddTerm("Z"+word, 1)
			} else {
				d.AddPosting(word, uint32(j+1+r.Intn(3)), 1)
			}
		}
		if i%9 == 0 {
			for j := 0; j < 300; j++ {
				d.AddPosting("dense", uint32(j*2+1), 1)
			}
		}
		data := fmt.Sprintf("C/page%d.html", i)
		if i%40 == 5 {
			long := make([]byte, r.Intn(30000))
			for k := range long {
				long[k] = byte('a' + r.Intn(26))
			}
			data += string(long)
		}
		if i%97 == 1 {
			data = ""
		}
		d.SetData([]byte(data))
		d.AddValue(0, []byte(fmt.Sprintf("Title %d", i)))
		if i%3 == 0 {
			d.AddValue(1, []byte{byte(i), byte(i >> 8)})
		}
		if i%5 == 0 {
			d.AddValue(300, bytes.Repeat([]byte("v"), i%13+1))
		}
		docs = append(docs, d)
	}
	return docs
}

// TestWriteRandom grows the database: thousands of documents, so every
// table has several levels, posting lists and value streams several
// chunks, tags several components (compressed and not); for two block
// sizes. xapian-check must pass and Xapian must read it back exactly.
func TestWriteRandom(t *testing.T) {
	for _, tc := range []struct{ n, bs int }{{50, 2048}, {3000, 8192}, {1500, 2048}} {
		t.Run(fmt.Sprintf("%d-docs-%d", tc.n, tc.bs), func(t *testing.T) {
			p := writeDB(t, randomWriter(t, tc.n, int64(tc.n), tc.bs))
			xapianCheck(t, p)
			compareWithPy(t, p)
			if tc.n >= 1500 {
				db := openFile(t, p)
				for _, tab := range []int{tPostlist, tDocdata, tTermlist, tPosition} {
					if db.tables[tab].ri.level == 0 {
						t.Errorf("%s table has one level: the test should grow it", tableNames[tab])
					}
				}
				if tc.bs == 2048 && db.tables[tPosition].ri.level < 2 {
					t.Errorf("position table has %d levels, want 3 or more", db.tables[tPosition].ri.level+1)
				}
			}
		})
	}
}

// TestWriteEmpty: a database without documents passes xapian-check.
func TestWriteEmpty(t *testing.T) {
	w, _ := NewWriter(WriterOptions{})
	p := writeDB(t, w)
	xapianCheck(t, p)
	compareWithPy(t, p)
}

// TestWriteDeterministic: the same documents give the same bytes.
func TestWriteDeterministic(t *testing.T) {
	var a, b bytes.Buffer
	randomWriter(t, 200, 3, 8192).WriteTo(&a)
	randomWriter(t, 200, 3, 8192).WriteTo(&b)
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("two writes of the same documents differ")
	}
}

// TestWriteLibzimShape writes the two databases libzim puts in a ZIM, as
// its writer makes them (xapianIndexer.cpp, xapianWorker.cpp): no term
// lists (DB_NO_TERMLIST); the full-text one without positions, data
// "C/<path>", values title (0) and word count (1, decimal), metadata
// valuesmap/kind/data/language/stopwords; the title one with positions
// and the anchor term "0posanchor" at position 1. xapian-check passes and
// Xapian reads back the same postings, data, values and positions.
func TestWriteLibzimShape(t *testing.T) {
	pages := []struct{ path, title, body string }{
		{"index.html", "Garden roses", "gardening with roses in the garden"},
		{"café.html", "Café", "un café au lait en été"},
		{"dog.html", "Lazy dog", "the quick brown fox jumps over the lazy dog"},
	}
	full, _ := NewWriter(WriterOptions{NoTermList: true})
	title, _ := NewWriter(WriterOptions{NoTermList: true})
	for _, p := range pages {
		d := NewDocument()
		words := bytes.Fields([]byte(p.body))
		for _, w := range words {
			d.AddTerm(string(w), 1)
		}
		d.SetData([]byte("C/" + p.path))
		d.AddValue(0, []byte(p.title))
		d.AddValue(1, []byte(fmt.Sprint(len(words))))
		if _, err := full.Add(d); err != nil {
			t.Fatal(err)
		}
		td := NewDocument()
		td.AddPosting("0posanchor", 1, 1)
		for i, w := range bytes.Fields(bytes.ToLower([]byte(p.title))) {
			td.AddPosting(string(w), uint32(i+2), 1)
		}
		td.SetData([]byte("C/" + p.path))
		td.AddValue(0, []byte(p.title))
		td.AddValue(1, []byte(p.path))
		if _, err := title.Add(td); err != nil {
			t.Fatal(err)
		}
	}
	full.SetMetadata("valuesmap", []byte("title:0;wordcount:1;geo.position:2"))
	full.SetMetadata("kind", []byte("fulltext"))
	title.SetMetadata("valuesmap", []byte("title:0;targetPath:1"))
	title.SetMetadata("kind", []byte("title"))
	for _, w := range []*Writer{full, title} {
		w.SetMetadata("data", []byte("fullPath"))
		w.SetMetadata("language", []byte("eng"))
	}
	for name, w := range map[string]*Writer{"fulltext": full, "title": title} {
		t.Run(name, func(t *testing.T) {
			p := writeDB(t, w)
			out := xapianCheck(t, p)
			if !bytes.Contains([]byte(out), []byte("termlist:\nblocksize=8K items=0")) {
				t.Errorf("termlist table not empty:\n%s", out)
			}
			compareWithPy(t, p)
		})
	}
}

// TestWriteSearchedByXapian: Xapian's matcher (Enquire, QueryParser)
// searches a database arcport wrote: a term finds exactly the documents
// of its posting list, a phrase finds only the document where the words
// are adjacent (positions), a word in no document finds nothing.
func TestWriteSearchedByXapian(t *testing.T) {
	w, _ := NewWriter(WriterOptions{})
	texts := []string{"the quick brown fox", "brown quick dogs", "a quick brown dog", "nothing here"}
	for _, text := range texts {
		d := NewDocument()
		for i, word := range bytes.Fields([]byte(text)) {
			d.AddPosting(string(word), uint32(i+1), 1)
		}
		d.SetData([]byte(text))
		w.Add(d)
	}
	big := randomWriter(t, 2000, 9, 8192)
	p := writeDB(t, w)
	pbig := writeDB(t, big)
	py := needPyXapian(t)
	run := func(db string, qs ...string) map[string][]uint32 {
		out, err := exec.Command(py, append([]string{"testdata/xapquery.py", db}, qs...)...).Output()
		if err != nil {
			t.Fatalf("xapquery.py: %v", err)
		}
		res := map[string][]uint32{}
		for _, line := range bytes.Split(bytes.TrimSpace(out), []byte("\n")) {
			var r struct {
				Query  string   `json:"query"`
				DocIDs []uint32 `json:"docids"`
			}
			if err := json.Unmarshal(line, &r); err != nil {
				t.Fatal(err)
			}
			res[r.Query] = r.DocIDs
		}
		return res
	}
	res := run(p, "quick", `"quick brown"`, `"brown quick"`, "zebra")
	sorted := func(v []uint32) []uint32 { v = slices.Clone(v); slices.Sort(v); return v }
	for q, want := range map[string][]uint32{"quick": {1, 2, 3}, `"quick brown"`: {1, 3}, `"brown quick"`: {2}, "zebra": nil} {
		if got := sorted(res[q]); !slices.Equal(got, want) {
			t.Errorf("Xapian query %s on arcport's database: %v, want %v", q, got, want)
		}
	}
	db := openFile(t, pbig)
	qs := []string{"garden", "w17", "dense", "rose"}
	res = run(pbig, qs...)
	for _, q := range qs {
		ps, _ := db.Postings(q)
		var want []uint32
		for _, p := range ps {
			want = append(want, p.DocID)
		}
		if got := sorted(res[q]); len(want) == 0 || !slices.Equal(got, want) {
			t.Errorf("Xapian query %s: %d documents, posting list has %d", q, len(got), len(want))
		}
	}
}

// itemFlags counts a table's leaf items that are compressed and that are
// continuation components (a tag split over several items).
func itemFlags(t *testing.T, db *DB, tab int) (compressed, continuations int) {
	t.Helper()
	cur := cursor{t: &db.tables[tab]}
	if _, err := cur.seek(nil); err != nil {
		t.Fatal(err)
	}
	for {
		ok, err := cur.next()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return
		}
		b := cur.blk[0]
		o := itemAt(b, cur.c[0])
		if b[o]&iCompressed != 0 {
			compressed++
		}
		if b[o]&iFirst == 0 {
			continuations++
		}
	}
}

// TestWriteTagShapes: the random databases do exercise compressed tags
// (docdata, termlist) and tags split into several components.
func TestWriteTagShapes(t *testing.T) {
	var buf bytes.Buffer
	if _, err := randomWriter(t, 1500, 1500, 2048).WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	db, err := Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	dc, dm := itemFlags(t, db, tDocdata)
	tc, _ := itemFlags(t, db, tTermlist)
	_, pm := itemFlags(t, db, tPostlist)
	if dc == 0 || tc == 0 || dm == 0 || pm == 0 {
		t.Errorf("docdata: %d compressed, %d continuations; termlist: %d compressed; postlist: %d continuations (want all > 0)", dc, dm, tc, pm)
	}
	// and arcport's reader reads its own output without any peer
	ps, err := db.Postings("dense")
	if err != nil || len(ps) != 167 {
		t.Errorf("Postings(dense): %d %v", len(ps), err)
	}
	pos, err := db.Positions(1, "dense")
	if err != nil || len(pos) != 300 || pos[299] != 599 {
		t.Errorf("Positions(1, dense): %d %v", len(pos), err)
	}
}
