package xapian

import (
	"bytes"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
)

// TestReadFixture reads testdata/small.glass (built by python3-xapian 1.4.22
// and xapian-compact --single-file --blocksize=2048; no peer needed).
func TestReadFixture(t *testing.T) {
	db := openFile(t, "testdata/small.glass")
	st := db.Stats()
	if st.DocCount != 3 || st.LastDocID != 3 || st.BlockSize != 2048 || st.DocLenLower != 8 || st.DocLenUpper != 22 {
		t.Errorf("stats %+v", st)
	}
	ps, err := db.Postings("Zrose")
	if err != nil || !slices.Equal(ps, []Posting{{2, 2}}) {
		t.Errorf("Postings(Zrose) = %v %v", ps, err)
	}
	ps, err = db.Postings("the")
	if err != nil || !slices.Equal(ps, []Posting{{1, 2}, {2, 1}}) {
		t.Errorf("Postings(the) = %v %v", ps, err)
	}
	if ps, err := db.Postings("nothere"); err != nil || ps != nil {
		t.Errorf("Postings(nothere) = %v %v", ps, err)
	}
	pos, err := db.Positions(1, "the")
	if err != nil || !slices.Equal(pos, []uint32{1, 7}) {
		t.Errorf("Positions(1, the) = %v %v", pos, err)
	}
	data, err := db.DocData(2)
	if err != nil || !strings.HasPrefix(string(data), "C/page1.html long data") || len(data) != 13+31*10 {
		t.Errorf("DocData(2) = %q %v", data, err)
	}
	v, err := db.Value(3, 0)
	if err != nil || string(v) != "Title 2" {
		t.Errorf("Value(3, 0) = %q %v", v, err)
	}
	m, err := db.Metadata("language")
	if err != nil || string(m) != "en" {
		t.Errorf("Metadata(language) = %q %v", m, err)
	}
	n, ok, err := db.DocLength(2)
	if err != nil || !ok || n != 22 {
		t.Errorf("DocLength(2) = %d %v %v", n, ok, err)
	}
	var terms []string
	db.AllTerms("caf", func(term string, tf uint32, cf uint64) bool { terms = append(terms, term); return true })
	if !slices.Equal(terms, []string{"café"}) {
		t.Errorf("AllTerms(caf) = %q", terms)
	}
}

// TestReadFixtureWithPy compares the fixture with what Xapian reads.
func TestReadFixtureWithPy(t *testing.T) {
	compareWithPy(t, "testdata/small.glass")
}

// exercise runs every read the package offers on db, as a search would.
func exercise(db *DB) error {
	var first error
	keep := func(err error) {
		if err != nil && first == nil {
			first = err
		}
	}
	var terms []string
	keep(db.AllTerms("", func(term string, tf uint32, cf uint64) bool {
		terms = append(terms, term)
		return len(terms) < 50
	}))
	for _, term := range append(terms, "", "the") {
		_, _, err := db.TermFreq(term)
		keep(err)
		n := 0
		keep(db.ScanPostings(term, func(p Posting) bool {
			if n < 5 {
				_, err := db.Positions(p.DocID, term)
				keep(err)
			}
			n++
			return n < 10000
		}))
	}
	for did := uint32(1); did <= 4; did++ {
		_, err := db.DocData(did)
		keep(err)
		_, _, _, err = db.TermList(did)
		keep(err)
		_, err = db.Value(did, 0)
		keep(err)
		_, _, err = db.DocLength(did)
		keep(err)
	}
	_, err := db.ValueStats(0)
	keep(err)
	_, err = db.Metadata("language")
	keep(err)
	return first
}

// FuzzOpen: damaged databases give an error of one line (ErrCorrupt or an
// I/O error), never a panic, and bounded memory (WithMaxTag, block cache).
func FuzzOpen(f *testing.F) {
	seed, err := os.ReadFile("testdata/small.glass")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add(seed[:2048])
	f.Add(seed[:4096+100])
	for _, off := range []int{40, 2048 + 9, 4096 + 11, 6144 + 20} {
		b := bytes.Clone(seed)
		b[off] ^= 0xff
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		db, err := Open(bytes.NewReader(data), int64(len(data)), WithMaxTag(1<<20), WithCacheBlocks(8))
		if err == nil {
			err = exercise(db)
		}
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error of more than one line: %q", err)
			}
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error does not wrap ErrCorrupt: %v", err)
			}
		}
	})
}
