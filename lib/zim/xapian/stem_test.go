package xapian

import (
	"encoding/json"
	"os/exec"
	"sort"
	"testing"
)

// TestStemEnglishSameAsXapian: for every distinct word of Python's
// standard library sources (about 13000) and the stemmer's special cases,
// StemEnglish gives Xapian::Stem("english")'s stem.
func TestStemEnglishSameAsXapian(t *testing.T) {
	py := needPyXapian(t)
	out, err := exec.Command(py, "testdata/xapstem.py", "english").Output()
	if err != nil {
		t.Fatalf("xapstem.py: %v", err)
	}
	var want map[string]string
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatal(err)
	}
	if len(want) < 1000 {
		t.Fatalf("only %d words", len(want))
	}
	words := make([]string, 0, len(want))
	for w := range want {
		words = append(words, w)
	}
	sort.Strings(words)
	bad := 0
	for _, w := range words {
		if got := StemEnglish(w); got != want[w] {
			bad++
			if bad <= 20 {
				t.Errorf("StemEnglish(%q) = %q, Xapian %q", w, got, want[w])
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d words differ", bad, len(words))
	}
	t.Logf("%d words", len(words))
}
