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
	if len(terms) > 0 {
		_, err := db.SearchTerms(terms[:min(3, len(terms))], false, 10)
		keep(err)
		_, err = db.SearchTerms(terms[:min(2, len(terms))], true, 10)
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

// FuzzWriteRoundTrip: documents made from arbitrary bytes (terms of any
// bytes, positions, data, values) are written, and arcport's reader
// returns exactly them; the writer refuses only terms too long for a key.
func FuzzWriteRoundTrip(f *testing.F) {
	f.Add([]byte("hello world\x00hello\xffpos"), uint16(3), uint16(2048))
	f.Add(bytes.Repeat([]byte("abc "), 600), uint16(40), uint16(8192))
	f.Fuzz(func(t *testing.T, seed []byte, ndocs, bs uint16) {
		if len(seed) == 0 {
			return
		}
		bsz := 2048 << (bs % 3)
		n := int(ndocs%64) + 1
		w, err := NewWriter(WriterOptions{BlockSize: bsz})
		if err != nil {
			t.Fatal(err)
		}
		type want struct {
			data   []byte
			terms  map[string][]uint32
			values map[uint32][]byte
		}
		var wants []want
		for i := 0; i < n; i++ {
			d := NewDocument()
			wt := want{terms: map[string][]uint32{}, values: map[uint32][]byte{}}
			// split the seed into terms at spaces, rotated per document
			rot := append(bytes.Clone(seed[i%len(seed):]), seed[:i%len(seed)]...)
			for j, term := range bytes.Split(rot, []byte(" ")) {
				if len(term) == 0 || len(term) > 120 {
					continue
				}
				pos := uint32(j*(i+1) + 1)
				d.AddPosting(string(term), pos, 1)
				if ps := wt.terms[string(term)]; len(ps) == 0 || ps[len(ps)-1] != pos {
					wt.terms[string(term)] = append(ps, pos)
				}
			}
			wt.data = rot[:len(rot)/(i+1)]
			d.SetData(wt.data)
			if len(rot) > 0 {
				slot := uint32(rot[0]) * uint32(i+1)
				d.AddValue(slot, rot[:1+len(rot)%7])
				wt.values[slot] = rot[:1+len(rot)%7]
			}
			if _, err := w.Add(d); err != nil {
				t.Fatal(err)
			}
			wants = append(wants, wt)
		}
		var buf bytes.Buffer
		if _, err := w.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		db, err := Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
		if err != nil {
			t.Fatal(err)
		}
		for i, wt := range wants {
			did := uint32(i + 1)
			data, err := db.DocData(did)
			if err != nil || !bytes.Equal(data, wt.data) {
				t.Fatalf("DocData(%d) = %q %v, want %q", did, data, err, wt.data)
			}
			for slot, v := range wt.values {
				got, err := db.Value(did, slot)
				if err != nil || !bytes.Equal(got, v) {
					t.Fatalf("Value(%d, %d) = %q %v, want %q", did, slot, got, err, v)
				}
			}
			_, tl, _, err := db.TermList(did)
			if err != nil || len(tl) != len(wt.terms) {
				t.Fatalf("TermList(%d): %d terms %v, want %d", did, len(tl), err, len(wt.terms))
			}
			for _, e := range tl {
				pos, err := db.Positions(did, e.Term)
				if err != nil || !slices.Equal(pos, wt.terms[e.Term]) || e.WDF != uint32(len(pos)) {
					t.Fatalf("Positions(%d, %q) = %v %v, want %v (wdf %d)", did, e.Term, pos, err, wt.terms[e.Term], e.WDF)
				}
				ps, err := db.Postings(e.Term)
				if err != nil || !slices.ContainsFunc(ps, func(p Posting) bool { return p.DocID == did && p.WDF == e.WDF }) {
					t.Fatalf("Postings(%q) lacks document %d: %v %v", e.Term, did, ps, err)
				}
			}
		}
	})
}
