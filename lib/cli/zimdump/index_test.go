package zimdump

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/arcport/arcport/lib/zim"
)

// zimContents maps the long path of every entry of a ZIM to a digest of
// its content (items) or "-> target" (redirects).
func zimContents(t *testing.T, file string) map[string]string {
	t.Helper()
	a, err := zim.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	out := map[string]string{}
	err = a.Entries(0, a.EntryCount(), func(e *zim.Entry) error {
		switch e.Kind {
		case zim.KindRedirect:
			t, err := a.Redirect(e)
			if err != nil {
				return err
			}
			out[e.LongPath()] = "-> " + t.LongPath()
		case zim.KindItem:
			b, err := a.ReadBlob(e)
			if err != nil {
				return err
			}
			mt, _ := a.MimeType(e)
			out[e.LongPath()] = fmt.Sprintf("%s %q %x", mt, e.Title(), sha256.Sum256(b))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.VerifyChecksum(); err != nil {
		t.Errorf("%s: %v", file, err)
	}
	return out
}

// sameEntries: after has the entries of before (their content, titles,
// MIME types and redirects), plus the two indexes; the title listings
// may be new.
func sameEntries(t *testing.T, before, after map[string]string) {
	t.Helper()
	for p, v := range before {
		if strings.HasPrefix(p, "X/listing/") || strings.HasSuffix(p, "/xapian") {
			continue
		}
		if after[p] != v {
			t.Errorf("%s: %q, was %q", p, after[p], v)
		}
	}
	var extra []string
	for p := range after {
		if _, ok := before[p]; !ok {
			extra = append(extra, p)
		}
	}
	sort.Strings(extra)
	for _, p := range extra {
		if p != "X/fulltext/xapian" && p != "X/title/xapian" && !strings.HasPrefix(p, "X/listing/") {
			t.Errorf("new entry %s", p)
		}
	}
	if !strings.HasPrefix(after["X/title/xapian"], zim.XapianMime) || !strings.HasPrefix(after["X/fulltext/xapian"], zim.XapianMime) {
		t.Errorf("indexes: %q, %q", after["X/title/xapian"], after["X/fulltext/xapian"])
	}
}

// rawClusters returns the stored bytes of each cluster of a ZIM but the
// last (up to the next cluster).
func rawClusters(t *testing.T, file string) [][]byte {
	t.Helper()
	a, err := zim.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for i := uint32(0); i+1 < a.ClusterCount(); i++ {
		s, _ := a.ClusterOffset(i)
		e, _ := a.ClusterOffset(i + 1)
		out = append(out, b[s:e])
	}
	return out
}

// TestIndex: zimdump index of a ZIM written by create --no-index writes
// the very indexes create writes (the same bytes), copies the clusters as
// they are, keeps every entry, and the result passes zimcheck -A, its MD5,
// python3-libzim's Searcher and SuggestionSearcher and kiwix-search; a
// ZIM with an index is refused without --force and replaced with it.
func TestIndex(t *testing.T) {
	site := writeSite(t, indexSite)
	dir := t.TempDir()
	withIdx := filepath.Join(dir, "created.zim")
	plain := filepath.Join(dir, "plain.zim")
	out := filepath.Join(dir, "indexed.zim")
	for _, args := range [][]string{{"create", "-o", withIdx, "--date", "2026-11-27", site},
		{"create", "--no-index", "-o", plain, "--date", "2026-11-27", site}} {
		if r := ours(args...); r.rc != 0 || r.stderr != "" {
			t.Fatalf("%v: %+v", args, r)
		}
	}
	if r := viaMain(t, "index", plain, "-o", out); r.rc != 0 || r.stderr != "" || r.stdout != "" {
		t.Fatalf("index: %+v", r)
	}
	want, got := xapianBlobs(t, withIdx), xapianBlobs(t, out)
	for _, kind := range []string{"fulltext", "title"} {
		if len(got[kind]) == 0 || !bytes.Equal(got[kind], want[kind]) {
			t.Errorf("X/%s/xapian: %d bytes, create's %d bytes differ", kind, len(got[kind]), len(want[kind]))
		}
	}
	sameEntries(t, zimContents(t, plain), zimContents(t, out))
	outBytes, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range rawClusters(t, plain) {
		if !bytes.Contains(outBytes, c) {
			t.Errorf("cluster %d (%d bytes) not copied as it is", i, len(c))
		}
	}
	zimcheckA(t, out)
	for kind, b := range got {
		xapianCheck(t, kind, b)
	}
	queries := []string{"pergola", "gardening", "weather", "scriptsecret", "nothingatall"}
	wantSearch := map[string]string{"pergola": "[roses.html]", "gardening": "[tools.html]", "weather": "[notes.html]",
		"scriptsecret": "[]", "nothingatall": "[]"}
	search, sugg := libzimSearch(t, out, queries, []string{"clim", "allotment"})
	for _, q := range queries {
		if fmt.Sprint(search[q]) != wantSearch[q] {
			t.Errorf("python3-libzim Searcher %q: %v, want %s", q, search[q], wantSearch[q])
		}
	}
	if fmt.Sprint(sugg["clim"]) != "[roses.html]" || fmt.Sprint(sugg["allotment"]) != "[index.html]" {
		t.Errorf("python3-libzim SuggestionSearcher: %v", sugg)
	}
	if got := kiwixSearch(t, out, "pergola", false); fmt.Sprint(got) != "[Climbing_roses]" {
		t.Errorf("kiwix-search pergola: %v", got)
	}
	// openzim's zimdump lists the same entries
	list := func(f string) string {
		r := openzim(t, "list", "--details", f)
		if r.rc != 0 {
			t.Fatalf("openzim zimdump list %s: %+v", f, r)
		}
		return r.stdout
	}
	strip := func(s string) string {
		var keep []string
		for _, l := range strings.Split(s, "\n") {
			if !strings.Contains(l, "* idx:") && !strings.Contains(l, "* cluster") && !strings.Contains(l, "* blob") {
				keep = append(keep, l)
			}
		}
		return strings.Join(keep, "\n")
	}
	if a, b := strip(list(plain)), strip(list(out)); a != b {
		t.Errorf("openzim zimdump list --details differs:\n%s\n---\n%s", a, b)
	}

	// an index already there: refused, then replaced with --force
	again := filepath.Join(dir, "again.zim")
	if r := ours("index", out, "-o", again); r.rc != 1 || r.stderr != "zimdump: "+out+" already has X/fulltext/xapian and X/title/xapian (--force replaces it)\n" {
		t.Errorf("index of an indexed ZIM: %+v", r)
	}
	if _, err := os.Stat(again); err == nil {
		t.Errorf("%s written", again)
	}
	if r := ours("index", "--force", out, "-o", again); r.rc != 0 || !strings.Contains(r.stderr, "replacing its X/fulltext/xapian and X/title/xapian") {
		t.Errorf("index --force: %+v", r)
	}
	for kind, b := range xapianBlobs(t, again) {
		if !bytes.Equal(b, want[kind]) {
			t.Errorf("--force: X/%s/xapian differs", kind)
		}
	}
	sameEntries(t, zimContents(t, plain), zimContents(t, again))
	if r := ours("index", "-q", "--force", out, "-o", again); r.rc != 0 || r.stderr != "" {
		t.Errorf("index -q --force: %+v", r)
	}
	// --language: stems in another language
	fra := filepath.Join(dir, "fra.zim")
	if r := ours("index", "--language", "fra", plain, "-o", fra); r.rc != 0 {
		t.Fatalf("--language fra: %+v", r)
	}
	if b := xapianBlobs(t, fra); !bytes.Contains(b["fulltext"], []byte("fra")) || bytes.Equal(b["fulltext"], want["fulltext"]) {
		t.Errorf("--language fra: the full-text index is not French")
	}
	for _, bad := range [][]string{{"index", plain}, {"index", "-o", again}, {"index", "--bogus", plain, "-o", again},
		{"index", "--force=1", plain, "-o", again}, {"index", plain, plain, "-o", again}} {
		if r := ours(bad...); r.rc != 2 || !strings.Contains(r.stderr, "Try: zimdump index --help") {
			t.Errorf("%v: %+v", bad, r)
		}
	}
}

// TestIndexFixtures: openzim-testing-suite ZIMs (new namespace scheme
// with an illustration and a title index already, the old scheme without
// an illustration, the old scheme with both indexes already): the output
// keeps every entry and its content, passes zimcheck -A and its MD5, and
// kiwix-search finds pages by their words.
func TestIndexFixtures(t *testing.T) {
	const fix = "../../../testdata/zim" // openzim/zim-testing-suite's files
	for _, tc := range []struct {
		file, query, title string
		force              bool
	}{
		// M/Language "en": "test" is one of libzim's English stop words
		{"nons/small.zim", "zim", "Test_ZIM_file", true},
		{"nons/wikibooks_be_all_nopic_2017-02.zim", "кухня", "Іспанская_кухня", true},
		{"withns/wikibooks_be_all_nopic_2017-02.zim", "кухня", "Іспанская_кухня", false},
		{"withns/small.zim", "test", "Test_ZIM_file", true},
	} {
		t.Run(tc.file, func(t *testing.T) {
			in := filepath.Join(fix, tc.file)
			out := filepath.Join(t.TempDir(), "out.zim")
			args := []string{"index", in, "-o", out}
			if tc.force {
				args = append(args, "--force")
			}
			r := ours(args...)
			if r.rc != 0 {
				t.Fatalf("%+v", r)
			}
			if tc.force != (r.stderr != "") {
				t.Errorf("stderr %q", r.stderr)
			}
			sameEntries(t, zimContents(t, in), zimContents(t, out))
			zimcheckA(t, out)
			if got := kiwixSearch(t, out, tc.query, false); !contains(got, tc.title) {
				t.Errorf("kiwix-search %q: %v, want %s among them", tc.query, got, tc.title)
			}
		})
	}
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// TestIndexHostile: a truncated or damaged ZIM fails with one line naming
// the file and the offset, and nothing is written.
func TestIndexHostile(t *testing.T) {
	site := writeSite(t, indexSite)
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain.zim")
	if r := ours("create", "--no-index", "-o", plain, site); r.rc != 0 {
		t.Fatalf("%+v", r)
	}
	b, err := os.ReadFile(plain)
	if err != nil {
		t.Fatal(err)
	}
	flipped := append([]byte(nil), b...)
	flipped[3000] ^= 0xff
	cases := map[string][]byte{"truncated.zim": b[:len(b)/2], "short.zim": b[:50], "flipped.zim": flipped}
	for name, data := range cases {
		in := filepath.Join(dir, name)
		if err := os.WriteFile(in, data, 0o644); err != nil {
			t.Fatal(err)
		}
		outDir := t.TempDir()
		r := ours("index", in, "-o", filepath.Join(outDir, "out.zim"))
		if r.rc != 1 || strings.Count(r.stderr, "\n") != 1 || !strings.HasPrefix(r.stderr, "zimdump: "+in+": ") {
			t.Errorf("%s: %+v", name, r)
		}
		if name != "short.zim" && !strings.Contains(r.stderr, ": offset ") {
			t.Errorf("%s: no offset in %q", name, r.stderr)
		}
		if left, _ := os.ReadDir(outDir); len(left) != 0 {
			t.Errorf("%s: %d files left in the output folder", name, len(left))
		}
	}
}
