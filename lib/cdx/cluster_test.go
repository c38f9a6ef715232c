package cdx

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestSearchRange checks the examples of pywb's calc_search_range (its
// doctests), keyed as warcio.js keys URLs.
func TestSearchRange(t *testing.T) {
	for _, c := range []struct{ url, match, from, to string }{
		{"http://example.com/path/file.html", "exact", "com,example)/path/file.html", "com,example)/path/file.html!"},
		{"http://example.com/path/file.html", "prefix", "com,example)/path/file.html", "com,example)/path/file.htmm"},
		{"http://example.com/path/", "prefix", "com,example)/path/", "com,example)/path0"},
		{"http://example.com/path?", "prefix", "com,example)/path?", "com,example)/path@"},
		{"http://example.com/path/file.html", "host", "com,example)/", "com,example*"},
		{"http://example.com/path/file.html", "domain", "com,example)/", "com,example-"},
		{"com", "domain", "com,", "com-"},
		{"*.example.com", "", "com,example)/", "com,example-"},
		{"example.com/pa*", "", "com,example)/pa", "com,example)/pb"},
		{"https://www.Example.com", "", "com,example)/", "com,example)/!"},
	} {
		from, to, err := SearchRange(c.url, c.match)
		if err != nil || from != c.from || to != c.to {
			t.Errorf("%s %s: %q %q %v, want %q %q", c.url, c.match, from, to, err, c.from, c.to)
		}
	}
	if _, _, err := SearchRange("http://example.com/", "blah"); err == nil {
		t.Error("match type blah accepted")
	}
}

// TestTimestampSeconds: warcio's timestamp_to_sec completes and clamps.
func TestTimestampSeconds(t *testing.T) {
	for ts, want := range map[string]string{
		"2014":           "2014-01-01T00:00:00Z",
		"20140230":       "2014-02-28T00:00:00Z",
		"201413":         "2014-12-01T00:00:00Z",
		"20140126200624": "2014-01-26T20:06:24Z",
		"20141301996199": "2014-12-01T23:59:59Z",
	} {
		if got := time.Unix(timestampSeconds(ts), 0).UTC().Format(time.RFC3339); got != want {
			t.Errorf("%s: %s, want %s", ts, got, want)
		}
	}
}

// TestSortLinesByClosest: closest first, equally far in index order.
func TestSortLinesByClosest(t *testing.T) {
	lines := [][]byte{
		[]byte(`a 20200101000000 {"n":"1"}`),
		[]byte(`a 20200102000000 {"n":"2"}`),
		[]byte(`a 20200103000000 {"n":"3"}`),
		[]byte("a 20200104000000 http://a/ text/html 200 X - - 1 2 f.warc.gz"),
	}
	SortLinesByClosest(lines, "20200102120000")
	var got []string
	for _, l := range lines {
		got = append(got, LineTimestamp(l)[6:8])
	}
	if want := []string{"02", "03", "01", "04"}; !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
}

// memDir is a ClusterDir in memory.
type memDir struct{ files map[string][]byte }

type memFile struct {
	d    *memDir
	name string
	bytes.Buffer
}

func (f *memFile) Commit() error { f.d.files[f.name] = bytes.Clone(f.Bytes()); return nil }
func (f *memFile) Abort()        {}

func (d *memDir) Create(name string) (ClusterFile, error) { return &memFile{d: d, name: name}, nil }
func (d *memDir) Open(name string) (io.ReadCloser, error) {
	b, ok := d.files[name]
	if !ok {
		return nil, fs.ErrNotExist
	}
	return io.NopCloser(bytes.NewReader(b)), nil
}
func (d *memDir) List() ([]string, error) {
	var out []string
	for n := range d.files {
		out = append(out, n)
	}
	return out, nil
}

func genLines(n int) []string {
	var out []string
	for i := range n {
		out = append(out, fmt.Sprintf(`com,example)/%03d 2020%04d {"url":"http://example.com/%03d"}`, i/3, i, i/3))
	}
	return out
}

// TestClusterWriter: the parts hold the lines in order, a URL's captures
// in one part, and cluster.idx numbers the blocks across parts, in the
// exact layout of pywb's sample cluster.
func TestClusterWriter(t *testing.T) {
	d := &memDir{files: map[string][]byte{}}
	lines := genLines(20)
	w := NewClusterWriter(d, 3, int64(len(lines)), ClusterOptions{BlockLines: 4})
	for _, l := range lines {
		if err := w.WriteLine([]byte(l)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	loc := string(d.files[ClusterLocName])
	if loc != "cdx-00000.gz\tcdx-00000.gz\ncdx-00001.gz\tcdx-00001.gz\ncdx-00002.gz\tcdx-00002.gz\n" {
		t.Errorf("loc %q", loc)
	}
	idx := d.files[ClusterIdxName]
	// part 1 starts at line 20/3 = 6 (a new URL: /002), part 2 at the
	// first new URL from line 13 on (/004 runs on to 14, so 15)
	wantKeys := []string{"com,example)/000 20200000\tcdx-00000.gz\t0\t", "com,example)/001 20200004\tcdx-00000.gz\t",
		"com,example)/002 20200006\tcdx-00001.gz\t0\t", "com,example)/003 20200010\tcdx-00001.gz\t", "com,example)/004 20200014\tcdx-00001.gz\t",
		"com,example)/005 20200015\tcdx-00002.gz\t0\t", "com,example)/006 20200019\tcdx-00002.gz\t"}
	got := strings.Split(strings.TrimSuffix(string(idx), "\n"), "\n")
	if len(got) != len(wantKeys) {
		t.Fatalf("idx:\n%s", idx)
	}
	for i, g := range got {
		if !strings.HasPrefix(g, wantKeys[i]) || !strings.HasSuffix(g, fmt.Sprintf("\t%d", i+1)) {
			t.Errorf("idx line %d %q, want %q...\t%d", i+1, g, wantKeys[i], i+1)
		}
	}
	// read back through OpenCluster
	z := OpenCluster(bytes.NewReader(idx), int64(len(idx)), func(part string) (io.ReaderAt, error) {
		return bytes.NewReader(d.files[part]), nil
	})
	var all []string
	z.RangeLines("", "", func(_ Block, l []byte) error { all = append(all, string(l)); return nil })
	if !slices.Equal(all, lines) {
		t.Errorf("read back %d lines", len(all))
	}
	es, err := z.Lookup("com,example)/004", "")
	if err != nil || len(es) != 3 || es[0].Timestamp != "20200012" {
		t.Errorf("lookup: %v %v", es, err)
	}
	// parts that overlap are refused by JoinParts
	d.files[PartSummaryName(2)] = bytes.ReplaceAll(d.files[PartSummaryName(0)], []byte(PartName(0)), []byte(PartName(2)))
	if err := JoinParts(d, 3); err == nil || !strings.Contains(err.Error(), "parts overlap") {
		t.Errorf("overlap: %v", err)
	}
	// a part beyond the count is refused
	if err := JoinParts(d, 2); err == nil || !strings.Contains(err.Error(), "cdx-00002.part is there") {
		t.Errorf("extra part: %v", err)
	}
}

type sizedBytes struct{ *bytes.Reader }

func (s sizedBytes) Size() int64 { return s.Reader.Size() }

// TestSampleSplits: the splits do not depend on the order of the runs,
// cut the lines into parts of about equal size at URL boundaries, and
// ClusterWriter with them writes what per-part writers write from
// ShardRange.
func TestSampleSplits(t *testing.T) {
	lines := genLines(3000)
	var runs []SizedReaderAt
	for r := range 10 { // 10 runs, lines dealt round-robin
		var b bytes.Buffer
		for i := r; i < len(lines); i += 10 {
			b.WriteString(lines[i] + "\n")
		}
		runs = append(runs, sizedBytes{bytes.NewReader(b.Bytes())})
	}
	s1, err := SampleSplits(runs, 4, 0)
	if err != nil {
		t.Fatal(err)
	}
	rev := slices.Clone(runs)
	slices.Reverse(rev)
	s2, _ := SampleSplits(rev, 4, 0)
	if !slices.Equal(s1, s2) || len(s1) != 3 {
		t.Fatalf("splits %q vs %q", s1, s2)
	}
	for k := range 4 {
		from, to := ShardRange(s1, k)
		n := 0
		for _, l := range lines {
			if l >= from && (to == "" || l < to) {
				n++
			}
		}
		if n < 600 || n > 900 {
			t.Errorf("part %d: %d of 3000 lines (%q..%q)", k, n, from, to)
		}
		if k > 0 && !strings.HasSuffix(from, " ") {
			t.Errorf("split %q is not a urlkey", from)
		}
	}
	// few keys, many parts: the last parts are empty
	few, _ := SampleSplits(runs[:1], 2000, 0)
	if len(few) != 1999 || few[len(few)-1] != "\xff" {
		t.Errorf("%d splits, last %q", len(few), few[len(few)-1])
	}
	// AddRunRange over the runs gives each part its lines
	for k := range 4 {
		from, to := ShardRange(s1, k)
		s := NewSorter(WithTempDir(t.TempDir()))
		for _, r := range runs {
			rr, err := RunFrom(r, from)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.AddRunRange(rr, from, to); err != nil {
				t.Fatal(err)
			}
		}
		var got []string
		s.Each(func(l []byte) error { got = append(got, string(l)); return nil })
		var want []string
		for _, l := range lines {
			if l >= from && (to == "" || l < to) {
				want = append(want, l)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("part %d: %d lines, want %d", k, len(got), len(want))
		}
	}
}

// TestAddRun: sorted runs merge with lines added one by one; a run out of
// order is refused naming the line.
func TestAddRun(t *testing.T) {
	dir := t.TempDir()
	s := NewSorter(WithTempDir(dir), WithFanIn(2))
	s.Add([]byte("b 2"))
	for _, r := range []string{"a 1\nc 3\n", "", "\n", "a 0\nb 1\r\nz 9"} {
		if err := s.AddRun(strings.NewReader(r)); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	s.Each(func(l []byte) error { got = append(got, string(l)); return nil })
	if want := []string{"a 0", "a 1", "b 1", "b 2", "c 3", "z 9"}; !slices.Equal(got, want) {
		t.Errorf("got %q", got)
	}
	s = NewSorter(WithTempDir(dir))
	defer s.Close()
	err := s.AddRun(strings.NewReader("a\nc\nb\n"))
	if !errors.Is(err, ErrNotSorted) || err.Error() != "line 3: not sorted: it sorts before the line above it" {
		t.Errorf("err %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("left in the temp dir: %v", ents)
	}
}
