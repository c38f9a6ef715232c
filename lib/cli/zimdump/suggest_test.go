package zimdump

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arcport/arcport/lib/internal/peertest"
)

// suggestTitles are the titles of the pages of TestSuggestSameAsLibzim:
// shared words, prefixes of each other, stems (garden, gardens,
// gardening), accents, titles of the same length and words (ties broken
// by title), the same title twice.
var suggestTitles = []string{
	"Garden", "Gardens", "Gardening", "The garden", "Garden roses", "Roses of the garden",
	"Gardening tools", "Gardener's handbook", "Climbing roses", "Roses", "Rose garden of Paris",
	"Paris gardens", "Café garden", "Cafés of Paris", "Garde manger", "Guarded gate", "Tools and sheds",
	"Sheds", "A garden in winter", "Winter roses", "Gardens of Europe", "Europe", "The tool shed",
	"Gard", "Compost heaps", "Composting in the garden", "Roses and garden tools", "Garden roses",
}

// libzimSuggest runs python3-libzim's SuggestionSearcher and returns the
// paths of all its suggestions for each query, in its order.
func libzimSuggest(t *testing.T, zimFile string, queries []string) map[string][]string {
	t.Helper()
	if err := exec.Command("/usr/bin/python3", "-c", "import libzim").Run(); err != nil {
		peertest.Missing(t, "python3-libzim", "import libzim with /usr/bin/python3")
	}
	py := `
import sys, json
from libzim.reader import Archive
from libzim.suggestion import SuggestionSearcher
a = Archive(sys.argv[1])
s = SuggestionSearcher(a)
json.dump({q: list(s.suggest(q).getResults(0, 1000)) for q in json.loads(sys.argv[2])}, sys.stdout)
`
	qj, _ := json.Marshal(queries)
	out, err := exec.Command("/usr/bin/python3", "-c", py, zimFile, string(qj)).Output()
	if err != nil {
		t.Fatalf("python3-libzim: %v", err)
	}
	var res map[string][]string
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("python3-libzim: %v: %s", err, out)
	}
	return res
}

// TestSuggestSameAsLibzim: zimdump suggest gives the suggestions of
// python3-libzim's SuggestionSearcher, in its order, on the title index
// zimdump create writes, for partial words, whole words, several words,
// accents, words in no title, a last word with more than 100 completions,
// and on a ZIM indexed by zimdump index.
func TestSuggestSameAsLibzim(t *testing.T) {
	site := t.TempDir()
	rng := rand.New(rand.NewSource(27))
	var links []string
	for i, title := range suggestTitles {
		name := fmt.Sprintf("p%02d.html", i)
		links = append(links, fmt.Sprintf(`<a href="%s">%d</a>`, name, i))
		body := fmt.Sprintf("<html><head><title>%s</title></head><body><p>page %d %d</p></body></html>", title, i, rng.Intn(1000))
		if err := os.WriteFile(filepath.Join(site, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// "Item 0" ... "Item 229": "item 1" completes to 111 terms, more
	// than the 100 QueryParser keeps (the most frequent; of equal
	// frequencies, those libstdc++'s nth_element leaves in front)
	for i := range 230 {
		name := fmt.Sprintf("item%03d.html", i)
		links = append(links, fmt.Sprintf(`<a href="%s">i%d</a>`, name, i))
		body := fmt.Sprintf("<html><head><title>Item %d</title></head><body><p>item</p></body></html>", i)
		if err := os.WriteFile(filepath.Join(site, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	index := `<html lang="en"><head><title>Allotment club</title></head><body>` + strings.Join(links, " ") + `</body></html>`
	if err := os.WriteFile(filepath.Join(site, "index.html"), []byte(index), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	created := filepath.Join(dir, "created.zim")
	if r := ours("create", "-o", created, site); r.rc != 0 || r.stderr != "" {
		t.Fatalf("%+v", r)
	}
	plain := filepath.Join(dir, "plain.zim")
	indexed := filepath.Join(dir, "indexed.zim")
	if r := ours("create", "--no-index", "-o", plain, site); r.rc != 0 {
		t.Fatalf("%+v", r)
	}
	if r := ours("index", plain, "-o", indexed); r.rc != 0 {
		t.Fatalf("%+v", r)
	}
	queries := []string{"gard", "garden", "gardens", "gardening", "Garden ro", "garden roses", "roses of", "rose",
		"ros", "the", "the gar", "cafe", "café", "CAFÉS", "paris", "par", "europe gar", "g", "tool", "tools ",
		"winter", "compost", "zzz", "gardener", "garden of paris", "shed", "a garden",
		"item 1", "item 2", "item 12", "item", "1", "2", "item 1 "}
	for _, zf := range []string{created, indexed} {
		want := libzimSuggest(t, zf, queries)
		for _, q := range queries {
			r := ours("suggest", "--limit", "0", zf, q)
			if r.rc != 0 {
				t.Fatalf("suggest %q: %+v", q, r)
			}
			var got []string
			for _, l := range strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n") {
				if p, _, ok := strings.Cut(l, "\t"); ok {
					got = append(got, p)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(want[q]) {
				t.Errorf("%s: suggest %q:\n  ours   %v\n  libzim %v", filepath.Base(zf), q, got, want[q])
			}
		}
	}
	// the default limit, titles, bad usage, no index
	r := ours("suggest", created, "climbing")
	if r.rc != 0 || r.stdout != "p08.html\tClimbing roses\n" {
		t.Errorf("suggest climbing: %+v", r)
	}
	if r := ours("suggest", created, "g"); r.rc != 0 || strings.Count(r.stdout, "\n") != 10 {
		t.Errorf("suggest g: %d lines, want 10", strings.Count(r.stdout, "\n"))
	}
	// without a title index: libzim's titles that start with the query
	noIdx := []string{"Garden", "Gard", "gard", "Roses", "Item 1", "Item 22", "Z", "Caf"}
	want := libzimSuggest(t, plain, noIdx)
	for _, q := range noIdx {
		r := ours("suggest", "--limit", "0", plain, q)
		var got []string
		for _, l := range strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n") {
			if p, _, ok := strings.Cut(l, "\t"); ok {
				got = append(got, p)
			}
		}
		if r.rc != 0 || fmt.Sprint(got) != fmt.Sprint(want[q]) {
			t.Errorf("no title index: suggest %q: %v (%+v), libzim %v", q, got, r, want[q])
		}
	}
	for _, bad := range [][]string{{"suggest", created}, {"suggest", "--limit", "x", created, "g"}, {"suggest", "--nope", created, "g"}} {
		if r := ours(bad...); r.rc != 2 || !strings.Contains(r.stderr, "Try: zimdump suggest --help") {
			t.Errorf("%v: %+v", bad, r)
		}
	}
}
