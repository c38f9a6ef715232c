package xapian

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// docView is a document as seen through its data: values and terms (wdf,
// positions), independent of docids.
type docView struct {
	values [3]string
	terms  map[string]string
}

func viewOf(t *testing.T, db *DB) map[string]docView {
	t.Helper()
	byDid := map[uint32]*docView{}
	dataOf := map[uint32]string{}
	for did := uint32(1); did <= db.Stats().LastDocID; did++ {
		data, err := db.DocData(did)
		if err != nil {
			t.Fatal(err)
		}
		v := &docView{terms: map[string]string{}}
		for slot := range 3 {
			b, _ := db.Value(did, uint32(slot))
			v.values[slot] = string(b)
		}
		byDid[did], dataOf[did] = v, string(data)
	}
	err := db.AllTerms("", func(term string, tf uint32, cf uint64) bool {
		ps, _ := db.Postings(term)
		for _, p := range ps {
			pos, _ := db.Positions(p.DocID, term)
			byDid[p.DocID].terms[term] = fmt.Sprint(p.WDF, pos)
		}
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]docView{}
	for did, v := range byDid {
		out[dataOf[did]] = *v
	}
	return out
}

// TestIndexerSameAsLibzim: for the same pages and a front redirection,
// the full-text and title databases Indexer writes hold the same
// documents (data, values, terms, wdfs, positions), metadata and
// statistics as those libzim's Creator (python3-libzim) puts in its ZIM,
// and pass xapian-check. The language as given to the Creator: "eng" (no
// stop words in libzim), "en" and "fr" (libzim's English and French stop
// words, dropped from the full-text index and stored as metadata).
func TestIndexerSameAsLibzim(t *testing.T) {
	const py = "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import libzim.writer").Run(); err != nil {
		needPyLibzim(t)
	}
	for _, lang := range []string{"eng", "en", "fr"} {
		t.Run(lang, func(t *testing.T) { indexerSameAsLibzim(t, py, lang) })
	}
}

func indexerSameAsLibzim(t *testing.T, py, lang string) {
	items := libzimPagesJSON()
	items = append(items, map[string]string{"path": "roses.html", "title": "Roses (redirect)", "target": "index.html"})
	dir := t.TempDir()
	zimPath := filepath.Join(dir, "pages.zim")
	js, _ := json.Marshal(items)
	cmd := exec.Command(py, "testdata/libzimmake.py", zimPath, lang)
	cmd.Stdin = bytes.NewReader(js)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("libzimmake.py: %v\n%s", err, out)
	}
	ix := NewLibzimIndexer(lang)
	if stops := LibzimStopWords(lang); (lang == "eng") != (len(stops) == 0) {
		t.Errorf("LibzimStopWords(%q): %d words", lang, len(stops))
	}
	for _, it := range items {
		if target, ok := it["target"]; ok {
			ix.AddRedirect(it["path"], it["title"], target, true)
		} else {
			ix.AddItem(it["path"], it["title"], "text/html", []byte(it["html"]), true)
		}
	}
	for name, write := range map[string]func(*bytes.Buffer) error{
		"fulltext": func(b *bytes.Buffer) error { _, err := ix.WriteFullText(b); return err },
		"title":    func(b *bytes.Buffer) error { _, err := ix.WriteTitle(b); return err },
	} {
		t.Run(name, func(t *testing.T) {
			var ours bytes.Buffer
			if err := write(&ours); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(dir, name+".glass")
			writeFile(t, p, ours.Bytes())
			xapianCheck(t, p)
			theirsB := readIndex(t, zimPath, name)
			a, err := Open(bytes.NewReader(ours.Bytes()), int64(ours.Len()))
			if err != nil {
				t.Fatal(err)
			}
			b, err := Open(bytes.NewReader(theirsB), int64(len(theirsB)))
			if err != nil {
				t.Fatal(err)
			}
			sa, sb := a.Stats(), b.Stats()
			if sa.DocCount != sb.DocCount || sa.TotalDocLen != sb.TotalDocLen || sa.DocLenLower != sb.DocLenLower || sa.DocLenUpper != sb.DocLenUpper || sa.WDFUpper != sb.WDFUpper {
				t.Errorf("stats: arcport %+v\nlibzim %+v", sa, sb)
			}
			for _, k := range []string{"kind", "valuesmap", "data", "language", "stopwords"} {
				ma, _ := a.Metadata(k)
				mb, _ := b.Metadata(k)
				if !bytes.Equal(ma, mb) {
					t.Errorf("metadata %s: %q, libzim %q", k, ma, mb)
				}
			}
			va, vb := viewOf(t, a), viewOf(t, b)
			if len(va) != len(vb) {
				t.Errorf("%d documents, libzim %d", len(va), len(vb))
			}
			n := 0
			for data, want := range vb {
				got, ok := va[data]
				if !ok {
					t.Errorf("document %s missing", data)
					continue
				}
				if got.values != want.values {
					t.Errorf("%s: values %q, libzim %q", data, got.values, want.values)
				}
				for term, w := range want.terms {
					n++
					if got.terms[term] != w {
						t.Errorf("%s: term %q: %q, libzim %q", data, term, got.terms[term], w)
					}
				}
				if len(got.terms) != len(want.terms) {
					keys := slices.Sorted(func(yield func(string) bool) {
						for k := range got.terms {
							if _, ok := want.terms[k]; !ok && !yield(k) {
								return
							}
						}
					})
					t.Errorf("%s: %d terms, libzim %d (extra %q)", data, len(got.terms), len(want.terms), keys)
				}
			}
			t.Logf("%d documents, %d terms compared", len(vb), n)
		})
	}
}
