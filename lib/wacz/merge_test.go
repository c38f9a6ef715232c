package wacz

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestNumbered(t *testing.T) {
	for _, c := range []struct {
		in   string
		i    int
		want string
	}{
		{"data.warc.gz", 2, "data-2.warc.gz"},
		{"rec-1.warc", 3, "rec-1-3.warc"},
		{"x.warc.zst", 2, "x-2.warc.zst"},
		{"odd.gz", 2, "odd-2.gz"},
		{"noext", 2, "noext-2"},
	} {
		if got := numbered(c.in, c.i); got != c.want {
			t.Errorf("numbered(%q, %d) = %q, want %q", c.in, c.i, got, c.want)
		}
	}
}

func TestRenameInJSON(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"url":"http://x/","offset":"10","filename":"a.warc.gz"}`, `{"url":"http://x/","offset":"10","filename":"a-2.warc.gz"}`},
		{`{"url": "http://x/", "filename": "a.warc.gz", "length": "5"}`, `{"url": "http://x/", "filename": "a-2.warc.gz", "length": "5"}`},
		{`{"filename" : "a.warc.gz","url":"http://x/?a=<b>"}`, `{"filename":"a-2.warc.gz","url":"http://x/?a=<b>"}`},
	} {
		if got := renameInJSON(c.in, "a.warc.gz", "a-2.warc.gz"); got != c.want {
			t.Errorf("renameInJSON(%s) = %s, want %s", c.in, got, c.want)
		}
	}
}

// TestMergeLib: Merge of a WACZ with itself gives a valid WACZ whose
// second WARC is renamed and whose captures are each listed twice, once
// per WARC.
func TestMergeLib(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "a.wacz")
	f, _ := os.Create(src)
	w, err := NewWriter(f, Options{Title: "A"})
	if err != nil {
		t.Fatal(err)
	}
	in, _ := os.Open("../../testdata/warc/example.warc.gz")
	if err := w.AddInput("example.warc.gz", in); err != nil {
		t.Fatal(err)
	}
	in.Close()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	r1, err := OpenFile(src)
	if err != nil {
		t.Fatal(err)
	}
	defer r1.Close()
	r2, _ := OpenFile(src)
	defer r2.Close()
	out := filepath.Join(dir, "m.wacz")
	g, _ := os.Create(out)
	var warns []string
	st, err := Merge(g, []*Reader{r1, r2}, MergeOptions{Warn: func(s string) { warns = append(warns, s) }})
	g.Close()
	if err != nil {
		t.Fatal(err)
	}
	if st.WARCs != 2 || st.Renamed != 1 || st.Captures != 4 || st.Pages != 1 {
		t.Errorf("stats %+v", st)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "renamed archive/example-2.warc.gz") {
		t.Errorf("warnings %q", warns)
	}
	m, err := OpenFile(out)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if err := m.CheckEntries(); err != nil {
		t.Fatal(err)
	}
	if p := m.Validate(); len(p) != 0 {
		t.Fatalf("problems: %v", p)
	}
	files := map[string]int{}
	m.Captures(func(c *Capture) error { files[c.Filename]++; return nil })
	if files["example.warc.gz"] != 2 || files["example-2.warc.gz"] != 2 {
		t.Errorf("captures by file %v", files)
	}
	dp, _ := m.DataPackage()
	if dp.Title != "A" {
		t.Errorf("title %q", dp.Title)
	}
}

// BenchmarkMerge merges four copies of a small WACZ (go test -bench Merge).
func BenchmarkMerge(b *testing.B) {
	dir := b.TempDir()
	src := filepath.Join(dir, "a.wacz")
	f, _ := os.Create(src)
	w, err := NewWriter(f, Options{})
	if err != nil {
		b.Fatal(err)
	}
	in, _ := os.Open("../../testdata/warc/example.warc.gz")
	if err := w.AddInput("example.warc.gz", in); err != nil {
		b.Fatal(err)
	}
	in.Close()
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	var rs []*Reader
	for i := 0; i < 4; i++ {
		r, err := OpenFile(src)
		if err != nil {
			b.Fatal(err)
		}
		defer r.Close()
		rs = append(rs, r)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		g, _ := os.Create(filepath.Join(dir, "m.wacz"))
		if _, err := Merge(g, rs, MergeOptions{TempDir: dir}); err != nil {
			b.Fatal(err)
		}
		g.Close()
	}
}
