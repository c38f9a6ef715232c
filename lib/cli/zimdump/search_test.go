package zimdump

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestSearchCommand: zimdump search finds what python3-libzim's Searcher
// finds, in the same order, on a ZIM zimdump create indexed; a query
// with accents finds the French page (libzim >= 8.2.1 folds them); a ZIM
// without an index and bad usage fail with one line.
func TestSearchCommand(t *testing.T) {
	site := writeSite(t, map[string]string{
		"index.html": `<html><head><title>Allotment club</title></head><body><p>Roses, roses and more roses.</p></body></html>`,
		"a.html":     `<html><head><title>Climbing roses</title></head><body><p>The pergola carries three climbing roses.</p></body></html>`,
		"b.html":     `<html><head><title>Tools</title></head><body><p>A rose by the shed; gardening tools.</p></body></html>`,
		"c.html":     `<html><head><title>Théâtre</title></head><body><p>Le théâtre des roses.</p></body></html>`,
	})
	dir := t.TempDir()
	out := filepath.Join(dir, "s.zim")
	if r := ours("create", "-q", "-o", out, site); r.rc != 0 {
		t.Fatalf("%+v", r)
	}
	queries := []string{"roses", "rose", "climbing roses", "garden", "pergola", "nothingatall", "theatre"}
	search, _ := libzimSearch(t, out, queries, []string{})
	for _, q := range queries {
		r := ours("search", out, q)
		if r.rc != 0 || r.stderr != "" {
			t.Fatalf("search %q: %+v", q, r)
		}
		var got []string
		for _, l := range strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n") {
			if p, _, ok := strings.Cut(l, "\t"); ok {
				got = append(got, p)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(search[q]) {
			t.Errorf("zimdump search %q: %v, python3-libzim %v", q, got, search[q])
		}
	}
	if r := ours("search", "--limit=1", out, "roses"); strings.Count(r.stdout, "\n") != 1 {
		t.Errorf("--limit=1: %q", r.stdout)
	}
	if r := ours("search", out, "THÉÂTRE"); r.stdout != "c.html\tThéâtre\n" {
		t.Errorf("search THÉÂTRE: %+v", r)
	}
	plain := filepath.Join(dir, "plain.zim")
	if r := ours("create", "-q", "--no-index", "-o", plain, site); r.rc != 0 {
		t.Fatalf("%+v", r)
	}
	for _, tc := range []struct {
		args []string
		rc   int
		msg  string
	}{
		{[]string{"search", plain, "roses"}, 1, "no full-text index"},
		{[]string{"search", out}, 2, "name a ZIM and a query"},
		{[]string{"search", "--limit", "x", out, "a"}, 2, `--limit "x"`},
		{[]string{"search", "--bogus", out, "a"}, 2, "unknown option --bogus"},
		{[]string{"search", filepath.Join(dir, "missing.zim"), "a"}, 1, "missing.zim"},
	} {
		r := ours(tc.args...)
		if r.rc != tc.rc || !strings.Contains(r.stderr, tc.msg) || r.stdout != "" {
			t.Errorf("%q: %+v", tc.args, r)
		}
	}
	var all []string
	for _, q := range queries {
		all = append(all, search[q]...)
	}
	sort.Strings(all)
	if len(all) < 8 {
		t.Errorf("python3-libzim found only %v", all)
	}
}
