package xapian

import (
	"bytes"
	"encoding/json"
	"math"
	"os/exec"
	"testing"
)

// TestSearchTermsSameAsXapian: on a 3000-document database arcport wrote,
// SearchTerms ranks the same documents in the same order with the same
// BM25 weights as Xapian's Enquire, for AND and OR queries of one to
// three terms (some repeated, some absent).
func TestSearchTermsSameAsXapian(t *testing.T) {
	py := needPyXapian(t)
	p := writeDB(t, randomWriter(t, 3000, 11, 8192))
	db := openFile(t, p)
	type q struct {
		Terms []string `json:"terms"`
		All   bool     `json:"all"`
	}
	var qs []q
	for _, terms := range [][]string{{"garden"}, {"rose"}, {"w1"}, {"dense"}, {"garden", "rose"}, {"w10", "w20", "w30"},
		{"the", "dense"}, {"garden", "nothere"}, {"café", "w5"}, {"Zgarden", "w7"}, {"w3", "w3"}, {"nothere"}} {
		qs = append(qs, q{terms, true}, q{terms, false})
	}
	enc := make([]q, len(qs))
	for i, x := range qs {
		enc[i] = q{All: x.All}
		for _, term := range x.Terms {
			enc[i].Terms = append(enc[i].Terms, latin1ToKey(term))
		}
	}
	js, _ := json.Marshal(enc)
	cmd := exec.Command(py, "testdata/xapsearch.py", p)
	cmd.Stdin = bytes.NewReader(js)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("xapsearch.py: %v", err)
	}
	lines := bytes.Split(bytes.TrimSpace(out), []byte("\n"))
	total := 0
	for i, x := range qs {
		var want [][2]float64
		json.Unmarshal(lines[i], &want)
		got, err := db.SearchTerms(x.Terms, x.All, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Errorf("%v (all %v): %d results, Xapian %d", x.Terms, x.All, len(got), len(want))
			continue
		}
		for j := range got {
			if float64(got[j].DocID) != want[j][0] || math.Abs(got[j].Weight-want[j][1]) > 1e-9*math.Max(1, want[j][1]) {
				t.Errorf("%v (all %v) #%d: doc %d weight %.12f, Xapian doc %v weight %.12f", x.Terms, x.All, j, got[j].DocID, got[j].Weight, want[j][0], want[j][1])
				break
			}
		}
		total += len(got)
	}
	if total < 1000 {
		t.Errorf("only %d results in all", total)
	}
	t.Logf("%d ranked results compared", total)
}

// TestLibzimQuerySameAsXapian: plain-word queries turned into terms by
// LibzimQueryTerms and ranked by SearchTerms give what Xapian's
// QueryParser (set up as libzim's searcher) and Enquire give.
func TestLibzimQuerySameAsXapian(t *testing.T) {
	py := needPyXapian(t)
	w, _ := NewWriter(WriterOptions{NoTermList: true})
	for _, d := range randomDocs(2000, 13) {
		// the random documents' words stemmed, as libzim indexes
		sd := NewDocument()
		for term, dt := range d.terms {
			sd.AddTerm(StemEnglish(term), dt.wdf)
		}
		w.Add(sd)
	}
	p := writeDB(t, w)
	db := openFile(t, p)
	queries := []string{"garden", "gardens", "Gardening roses", "the rose", "the", "w1 w2", "W10 w20 w30", "roses of the garden", "cafe", "nothing here", "w5 w5", "a the of"}
	js, _ := json.Marshal(queries)
	cmd := exec.Command(py, "testdata/xaplibzimquery.py", p)
	cmd.Stdin = bytes.NewReader(js)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("xaplibzimquery.py: %v", err)
	}
	stop := func(w string) bool { return w == "the" || w == "a" || w == "of" }
	lines := bytes.Split(bytes.TrimSpace(out), []byte("\n"))
	total := 0
	for i, q := range queries {
		var want [][2]float64
		json.Unmarshal(lines[i], &want)
		got, err := db.SearchTerms(LibzimQueryTerms(q, StemEnglish, stop), true, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Errorf("%q (terms %q): %d results, Xapian %d", q, LibzimQueryTerms(q, StemEnglish, stop), len(got), len(want))
			continue
		}
		for j := range got {
			if float64(got[j].DocID) != want[j][0] || math.Abs(got[j].Weight-want[j][1]) > 1e-9*math.Max(1, want[j][1]) {
				t.Errorf("%q #%d: doc %d weight %.12f, Xapian doc %v weight %.12f", q, j, got[j].DocID, got[j].Weight, want[j][0], want[j][1])
				break
			}
		}
		total += len(got)
	}
	t.Logf("%d ranked results compared", total)
}
