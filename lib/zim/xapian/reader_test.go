package xapian

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"testing"
)

// compareWithPy checks that arcport's reader returns exactly what Xapian's
// own library returns for the database at path: statistics, every term's
// frequencies and postings, every document's data, length, values, term
// list and positions, value statistics and metadata.
func compareWithPy(t *testing.T, path string) {
	t.Helper()
	want := dumpPy(t, path)
	db := openFile(t, path)
	st := db.Stats()
	if st.DocCount != want.DocCount || st.LastDocID != want.LastDocID || st.TotalDocLen != want.TotalLength {
		t.Errorf("stats: got %d docs, last %d, total length %d; Xapian says %d, %d, %d",
			st.DocCount, st.LastDocID, st.TotalDocLen, want.DocCount, want.LastDocID, want.TotalLength)
	}
	if want.DocCount > 0 && (st.DocLenLower != want.DocLenLower || st.DocLenUpper != want.DocLenUpper) {
		t.Errorf("doclen bounds: got %d..%d, Xapian says %d..%d", st.DocLenLower, st.DocLenUpper, want.DocLenLower, want.DocLenUpper)
	}
	if u := fmt.Sprintf("%x-%x-%x-%x-%x", st.UUID[:4], st.UUID[4:6], st.UUID[6:8], st.UUID[8:10], st.UUID[10:]); u != want.UUID {
		t.Errorf("uuid %s, Xapian says %s", u, want.UUID)
	}
	// all terms, in order, with frequencies
	var terms []string
	err := db.AllTerms("", func(term string, tf uint32, cf uint64) bool {
		terms = append(terms, term)
		w, ok := want.Terms[latin1ToKey(term)]
		if !ok {
			t.Errorf("term %q not in Xapian's list", term)
			return true
		}
		if tf != w.TF || cf != w.CF {
			t.Errorf("term %q: tf %d cf %d, Xapian says %d %d", term, tf, cf, w.TF, w.CF)
		}
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(terms) != len(want.Terms) {
		t.Errorf("%d terms, Xapian lists %d", len(terms), len(want.Terms))
	}
	if !slices.IsSorted(terms) {
		t.Errorf("terms not in byte order")
	}
	for key, w := range want.Terms {
		term := latin1(key)
		tf, cf, err := db.TermFreq(term)
		if err != nil || tf != w.TF || cf != w.CF {
			t.Errorf("TermFreq(%q) = %d %d %v, Xapian says %d %d", term, tf, cf, err, w.TF, w.CF)
		}
		ps, err := db.Postings(term)
		if err != nil {
			t.Fatalf("Postings(%q): %v", term, err)
		}
		got := make([][2]uint32, len(ps))
		for i, p := range ps {
			got[i] = [2]uint32{p.DocID, p.WDF}
		}
		if !slices.Equal(got, w.Postings) {
			t.Errorf("Postings(%q): %d postings, Xapian has %d (first diff at %d)", term, len(got), len(w.Postings), firstDiff(got, w.Postings))
		}
	}
	// the document length list
	var doclens []Posting
	if err := db.ScanPostings("", func(p Posting) bool { doclens = append(doclens, p); return true }); err != nil {
		t.Fatal(err)
	}
	if len(doclens) != len(want.Docs) {
		t.Errorf("doclen list has %d documents, Xapian %d", len(doclens), len(want.Docs))
	}
	for _, p := range doclens {
		w, ok := want.Docs[strconv.Itoa(int(p.DocID))]
		if !ok || w.DocLen != p.WDF {
			t.Errorf("doclen of %d: %d, Xapian %d (present %v)", p.DocID, p.WDF, w.DocLen, ok)
		}
		if n, ok, err := db.DocLength(p.DocID); err != nil || !ok || n != p.WDF {
			t.Errorf("DocLength(%d) = %d %v %v, doclen list says %d", p.DocID, n, ok, err, p.WDF)
		}
	}
	if _, ok, err := db.DocLength(st.LastDocID + 1); ok || err != nil {
		t.Errorf("DocLength(last+1) = %v %v", ok, err)
	}
	for k, w := range want.Docs {
		did64, _ := strconv.ParseUint(k, 10, 32)
		did := uint32(did64)
		data, err := db.DocData(did)
		if err != nil || string(data) != latin1(w.Data) {
			t.Errorf("DocData(%d) = %d bytes %v, Xapian has %d", did, len(data), err, len(latin1(w.Data)))
		}
		for slot, v := range w.Values {
			s, _ := strconv.Atoi(slot)
			got, err := db.Value(did, uint32(s))
			if err != nil || string(got) != latin1(v) {
				t.Errorf("Value(%d, %d) = %q %v, Xapian %q", did, s, got, err, latin1(v))
			}
		}
		if got, err := db.Value(did, 77); err != nil || got != nil {
			t.Errorf("Value(%d, 77) = %q %v, want none", did, got, err)
		}
		doclen, tl, found, err := db.TermList(did)
		if w.Terms == nil { // Xapian has no term list for it (DB_NO_TERMLIST)
			if err != nil || found {
				t.Errorf("TermList(%d): found %v %v, Xapian has none", did, found, err)
			}
			continue
		}
		if err != nil || !found || doclen != w.DocLen || len(tl) != len(w.Terms) {
			t.Errorf("TermList(%d): doclen %d, %d terms, %v %v; Xapian %d, %d terms", did, doclen, len(tl), found, err, w.DocLen, len(w.Terms))
			continue
		}
		for i, e := range w.Terms {
			var term string
			var wdf uint32
			var pos []uint32
			json.Unmarshal(e[0], &term)
			json.Unmarshal(e[1], &wdf)
			json.Unmarshal(e[2], &pos)
			term = latin1(term)
			if tl[i].Term != term || tl[i].WDF != wdf {
				t.Errorf("TermList(%d)[%d] = %q %d, Xapian %q %d", did, i, tl[i].Term, tl[i].WDF, term, wdf)
			}
			got, err := db.Positions(did, term)
			if err != nil || !slices.Equal(got, pos) && !(len(got) == 0 && len(pos) == 0) {
				t.Errorf("Positions(%d, %q) = %v %v, Xapian %v", did, term, got, err, pos)
			}
		}
	}
	for slot, w := range want.ValueStats {
		s, _ := strconv.Atoi(slot)
		var freq uint32
		var lo, hi string
		json.Unmarshal(w[0], &freq)
		json.Unmarshal(w[1], &lo)
		json.Unmarshal(w[2], &hi)
		vs, err := db.ValueStats(uint32(s))
		if err != nil || vs.Freq != freq || string(vs.Lower) != latin1(lo) || string(vs.Upper) != latin1(hi) {
			t.Errorf("ValueStats(%d) = %d %q %q %v, Xapian %d %q %q", s, vs.Freq, vs.Lower, vs.Upper, err, freq, latin1(lo), latin1(hi))
		}
	}
	for k, v := range want.Metadata {
		got, err := db.Metadata(latin1(k))
		if err != nil || string(got) != latin1(v) {
			t.Errorf("Metadata(%q) = %q %v, Xapian %q", k, got, err, v)
		}
	}
}

// latin1ToKey is the inverse of latin1: bytes as the runes xapdump.py's
// JSON keys carry.
func latin1ToKey(s string) string {
	r := make([]rune, len(s))
	for i := 0; i < len(s); i++ {
		r[i] = rune(s[i])
	}
	return string(r)
}

func firstDiff(a, b [][2]uint32) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestReadXapianSmall: a three-document database made by Xapian itself
// and compacted to a single file reads back exactly as Xapian reads it.
func TestReadXapianSmall(t *testing.T) {
	compareWithPy(t, genGlass(t, 3, 7))
}

// TestReadXapianLarge: 3000 documents - multi-level B-trees, posting
// lists in several chunks, compressed and multi-component tags (doc data
// up to 20 kB), values in three slots.
func TestReadXapianLarge(t *testing.T) {
	path := genGlass(t, 3000, 1)
	compareWithPy(t, path)
	db := openFile(t, path)
	if db.tables[tPostlist].ri.level == 0 || db.tables[tPosition].ri.level == 0 {
		t.Errorf("expected multi-level B-trees")
	}
}
