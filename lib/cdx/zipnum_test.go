package cdx

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/arcport/arcport/lib/surt"
)

// buildZipNum sorts lines and writes them as a ZipNum index.
func buildZipNum(t *testing.T, lines []string, opts ...ZipNumOption) (data, idx []byte, sorted []string) {
	t.Helper()
	sorted = append([]string(nil), lines...)
	sort.Strings(sorted)
	var d, i bytes.Buffer
	z := NewZipNumWriter(&d, &i, opts...)
	for _, l := range sorted {
		if err := z.WriteLine([]byte(l)); err != nil {
			t.Fatal(err)
		}
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return d.Bytes(), i.Bytes(), sorted
}

func openZipNum(t *testing.T, data, idx []byte) *ZipNum {
	t.Helper()
	z, err := OpenZipNum(bytes.NewReader(idx), int64(len(idx)), func(name string) (io.ReaderAt, error) {
		if name != "index.cdx.gz" {
			return nil, fmt.Errorf("unexpected data file %q", name)
		}
		return bytes.NewReader(data), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return z
}

// TestZipNumFormat checks the files byte by byte where the format fixes
// them: the idx lines as cdxj-indexer writes them, each member a whole gzip
// stream of N lines at the offset and length given, with its sha256.
func TestZipNumFormat(t *testing.T) {
	lines := readAllLines(t, mustOpen(t, "testdata/quirks.cdxj"))
	data, idx, sorted := buildZipNum(t, lines, WithBlockLines(7))
	idxLines := strings.Split(strings.TrimSuffix(string(idx), "\n"), "\n")
	if idxLines[0] != `!meta 0 {"format": "cdxj-gzip-1.0", "filename": "index.cdx.gz"}` {
		t.Errorf("meta line %q", idxLines[0])
	}
	wantBlocks := (len(sorted) + 6) / 7
	if len(idxLines)-1 != wantBlocks {
		t.Fatalf("%d idx lines, want %d", len(idxLines)-1, wantBlocks)
	}
	re := regexp.MustCompile(`^(.*) \{"offset": (\d+), "length": (\d+), "digest": "sha256:([0-9a-f]{64})"\}$`)
	var off int
	for bi, l := range idxLines[1:] {
		m := re.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("idx line %q does not match the cdxj-indexer layout", l)
		}
		var o, n int
		fmt.Sscan(m[2], &o)
		fmt.Sscan(m[3], &n)
		if o != off {
			t.Errorf("block %d at offset %d, want %d", bi, o, off)
		}
		member := data[o : o+n]
		sum := sha256.Sum256(member)
		if hex.EncodeToString(sum[:]) != m[4] {
			t.Errorf("block %d digest mismatch", bi)
		}
		zr, err := gzip.NewReader(bytes.NewReader(member))
		if err != nil {
			t.Fatal(err)
		}
		zr.Multistream(false)
		text, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		first := bi * 7
		want := strings.Join(sorted[first:min(first+7, len(sorted))], "\n") + "\n"
		if string(text) != want {
			t.Errorf("block %d holds other lines", bi)
		}
		e, _ := ParseCDXJ([]byte(sorted[first]))
		if m[1] != e.URLKey+" "+e.Timestamp {
			t.Errorf("block %d key %q, want %q", bi, m[1], e.URLKey+" "+e.Timestamp)
		}
		off += n
	}
	if off != len(data) {
		t.Errorf("blocks cover %d of %d bytes", off, len(data))
	}
	// The whole data file is a valid multi-member gzip of all the lines.
	zr, _ := gzip.NewReader(bytes.NewReader(data))
	all, _ := io.ReadAll(zr)
	if string(all) != strings.Join(sorted, "\n")+"\n" {
		t.Error("data file does not decompress to the sorted index")
	}
}

func mustOpen(t *testing.T, path string) io.Reader {
	b, err := readFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.NewReader(b)
}

// TestZipNumLookup checks Lookup, Prefix and Range against a brute-force
// scan, with block sizes that put a key's captures across blocks.
func TestZipNumLookup(t *testing.T) {
	lines := randomLines(3000, 3)
	for _, per := range []int{1, 5, 64, 1024, 5000} {
		data, idx, sorted := buildZipNum(t, lines, WithBlockLines(per))
		z := openZipNum(t, data, idx)
		z.VerifyDigests = true
		keys := map[string]bool{}
		for _, l := range sorted {
			e, _ := ParseCDXJ([]byte(l))
			keys[e.URLKey] = true
		}
		keys["com,example)/nothing"] = true
		keys["a"] = true
		keys["zzz"] = true
		checked := 0
		for k := range keys {
			if checked++; checked > 60 {
				break
			}
			got, err := z.Lookup(k, "")
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, l := range sorted {
				if strings.HasPrefix(l, k+" ") {
					want = append(want, l)
				}
			}
			if len(got) != len(want) {
				t.Fatalf("lines/block %d: Lookup(%q) found %d, want %d", per, k, len(got), len(want))
			}
			for i := range got {
				if got[i].String() != want[i] {
					t.Errorf("Lookup(%q)[%d] = %s, want %s", k, i, got[i].String(), want[i])
				}
			}
		}
		for _, p := range []string{"com,example)/", "com,example)/p1", "de,", "dns:", "org,iana)/p49/z", "zz"} {
			var got []string
			err := z.Prefix(p, func(e *Entry) error { got = append(got, e.String()); return nil })
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, l := range sorted {
				if strings.HasPrefix(l, p) {
					want = append(want, l)
				}
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("lines/block %d: Prefix(%q) found %d, want %d", per, p, len(got), len(want))
			}
		}
		// The same through a plain sorted CDXJ file.
		plain := []byte(strings.Join(sorted, "\n") + "\n")
		var got []string
		err := SearchCDXJ(bytes.NewReader(plain), int64(len(plain)), "com,example)/p2", "com,example)/p3", func(e *Entry) error {
			got = append(got, e.String())
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, l := range sorted {
			if l >= "com,example)/p2" && l < "com,example)/p3" {
				want = append(want, l)
			}
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("SearchCDXJ found %d, want %d", len(got), len(want))
		}
	}
}

func TestLookupClosest(t *testing.T) {
	lines := []string{
		`com,example)/ 20100101000000 {"url":"http://example.com/","offset":"1"}`,
		`com,example)/ 20150101000000 {"url":"http://example.com/","offset":"2"}`,
		`com,example)/ 20200101000000 {"url":"http://example.com/","offset":"3"}`,
		`com,example)/a 20160101000000 {"url":"http://example.com/a","offset":"4"}`,
	}
	data, idx, _ := buildZipNum(t, lines, WithBlockLines(2))
	z := openZipNum(t, data, idx)
	for _, c := range []struct {
		ts   string
		want string
	}{
		{"", "1 2 3"},
		{"2016", "2 3 1"},
		{"20190601", "3 2 1"},
		{"2000", "1 2 3"},
	} {
		es, err := z.Lookup("com,example)/", c.ts)
		if err != nil {
			t.Fatal(err)
		}
		var offs []string
		for _, e := range es {
			o, _ := e.Get(FieldOffset)
			offs = append(offs, o)
		}
		if strings.Join(offs, " ") != c.want {
			t.Errorf("Lookup at %q: %v, want %s", c.ts, offs, c.want)
		}
	}
}

func TestZipNumCorruption(t *testing.T) {
	lines := randomLines(200, 4)
	data, idx, _ := buildZipNum(t, lines, WithBlockLines(10))
	bad := append([]byte(nil), data...)
	bad[len(bad)/2] ^= 0xff
	z := openZipNum(t, bad, idx)
	z.VerifyDigests = true
	err := z.Blocks(func(b Block) error { return z.ReadBlock(b, func([]byte) error { return nil }) })
	if err == nil || !strings.Contains(err.Error(), "index.cdx.gz: block at offset") {
		t.Errorf("corrupt block: %v", err)
	}
	// A summary pointing past the data.
	idx2 := bytes.Replace(idx, []byte(`"offset": 0,`), []byte(`"offset": 99999999,`), 1)
	z = openZipNum(t, data, idx2)
	err = z.Blocks(func(b Block) error { return z.ReadBlock(b, func([]byte) error { return nil }) })
	if err == nil {
		t.Error("block past the end of the data file was read without error")
	}
	if _, err := OpenZipNum(bytes.NewReader([]byte("!meta 0 {bad\n")), 13, nil); err == nil {
		t.Error("bad meta line accepted")
	}
}

func TestZipNumEmpty(t *testing.T) {
	data, idx, _ := buildZipNum(t, nil)
	if len(data) != 0 || string(idx) != "!meta 0 {\"format\": \"cdxj-gzip-1.0\", \"filename\": \"index.cdx.gz\"}\n" {
		t.Errorf("empty index: data %d bytes, idx %q", len(data), idx)
	}
	z := openZipNum(t, data, idx)
	es, err := z.Lookup("com,example)/", "")
	if err != nil || len(es) != 0 {
		t.Errorf("lookup in empty index: %v %v", es, err)
	}
}

func readFile(path string) ([]byte, error) { return os.ReadFile(path) }

// TestZipNumFromIndexer runs the whole chain on the fixtures: Indexer,
// Sorter (spilling), ZipNumWriter, then LookupURL finds every capture by
// its URL, as ReplayWeb.page looks it up.
func TestZipNumFromIndexer(t *testing.T) {
	s := NewSorter(WithChunkSize(2<<10), WithTempDir(t.TempDir()))
	var all []string
	for _, name := range []string{"example.warc.gz", "post-test.warc.gz", "quirks.warc.gz", "example-wget-bad-target-uri.warc.gz"} {
		for _, l := range ourIndex(t, fixture(name), false) {
			all = append(all, l)
			if err := s.Add([]byte(l)); err != nil {
				t.Fatal(err)
			}
		}
	}
	var data, idx bytes.Buffer
	z := NewZipNumWriter(&data, &idx, WithBlockLines(5))
	if err := s.Each(func(l []byte) error { return z.WriteLine(l) }); err != nil {
		t.Fatal(err)
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	if s.Runs() < 2 {
		t.Errorf("the sort did not spill (%d runs)", s.Runs())
	}
	zn := openZipNum(t, data.Bytes(), idx.Bytes())
	for _, url := range []string{"http://example.com/", "http://www.example.com/", "http://example.com/h8", "http://example.com/post1?__wb_method=POST&q=hello+world&r=café"} {
		es, err := zn.LookupURL(url, "")
		if err != nil {
			t.Fatal(err)
		}
		key := surt.Key(url)
		n := 0
		for _, l := range all {
			if strings.HasPrefix(l, key+" ") {
				n++
			}
		}
		if len(es) != n || n == 0 {
			t.Errorf("LookupURL(%q): %d entries, index has %d", url, len(es), n)
		}
	}
}

// FuzzZipNum feeds arbitrary idx and data bytes to OpenZipNum and every query:
// errors are fine, panics, hangs and out-of-range reads are not.
func FuzzZipNum(f *testing.F) {
	lines := []string{
		`com,example)/ 20140216050221 {"url":"http://example.com/","mime":"text/html","status":"200","length":"1107","offset":"860","filename":"a.warc.gz"}`,
		`com,example)/about 20140216050222 {"url":"http://example.com/about","mime":"text/html","status":"200","length":"900","offset":"1967","filename":"a.warc.gz"}`,
		`org,iana)/ 20140216050223 {"url":"http://iana.org/","mime":"text/html","status":"301","length":"500","offset":"2867","filename":"a.warc.gz"}`,
	}
	var data, idx bytes.Buffer
	w := NewZipNumWriter(&data, &idx, WithBlockLines(2))
	for _, l := range lines {
		if err := w.WriteLine([]byte(l)); err != nil {
			f.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		f.Fatal(err)
	}
	f.Add(idx.Bytes(), data.Bytes())
	f.Add([]byte("!meta 0 {\"format\": \"cdxj-gzip-1.0\"}\n"), []byte{})
	f.Fuzz(func(t *testing.T, idxb, datab []byte) {
		open := func(string) (io.ReaderAt, error) { return bytes.NewReader(datab), nil }
		z, err := OpenZipNum(bytes.NewReader(idxb), int64(len(idxb)), open)
		if err != nil {
			return
		}
		count := func(*Entry) error { return nil }
		z.Lookup("com,example)/", "20140216050221")
		z.LookupURL("http://example.com/about", "")
		z.Prefix("com,", count)
		z.Range("a", "z", count)
		z.Blocks(func(b Block) error {
			return z.ReadBlock(b, func([]byte) error { return nil })
		})
	})
}

// TestZipNumBlockPastEnd: a summary line whose offset or length points past
// the end of the data file (2^63-1, offset+length just one byte too many)
// is an ErrBadIndex error naming the block's offset, not a short gzip read.
func TestZipNumBlockPastEnd(t *testing.T) {
	lines := readAllLines(t, mustOpen(t, "testdata/quirks.cdxj"))
	data, idx, _ := buildZipNum(t, lines, WithBlockLines(1000))
	z := openZipNum(t, data, idx)
	var b Block
	if err := z.Blocks(func(x Block) error { b = x; return nil }); err != nil {
		t.Fatal(err)
	}
	size := int64(len(data))
	for _, c := range []struct{ off, n int64 }{
		{b.Offset, 1<<63 - 1},
		{1<<63 - 1, b.Length},
		{1<<63 - 1, 1<<63 - 1},
		{b.Offset, size - b.Offset + 1},
		{size + 1, 0},
	} {
		bb := b
		bb.Offset, bb.Length = c.off, c.n
		err := z.ReadBlock(bb, func([]byte) error { return nil })
		if err == nil || !strings.Contains(err.Error(), "past the end") || !strings.Contains(err.Error(), fmt.Sprintf("block at offset %d", c.off)) {
			t.Errorf("offset %d length %d: %v", c.off, c.n, err)
		}
	}
	if err := z.ReadBlock(b, func([]byte) error { return nil }); err != nil {
		t.Errorf("the real block: %v", err)
	}
}

// TestZipNumCompressors: blocks compressed on several goroutines give the
// same data file and summary as blocks compressed one after another, WACZ
// and cluster layouts, whatever the number of blocks; a write error shows
// at Close at the latest, and Close waits for the blocks under way.
func TestZipNumCompressors(t *testing.T) {
	var lines []string
	for i := range 5000 {
		lines = append(lines, fmt.Sprintf("com,example)/page/%d 2020010203%04d {\"url\": \"http://example.com/page/%d\", \"length\": %d}", i*7919%5000, i, i, i*31))
	}
	for _, n := range []int{0, 1, 5, 99, 100, 101, 1000, 5000} {
		for _, layout := range [][]ZipNumOption{nil, {WithClusterPart("part-00", 1), WithBlockDigests(false)}} {
			opts := append([]ZipNumOption{WithBlockLines(100)}, layout...)
			d1, i1, _ := buildZipNum(t, lines[:n], opts...)
			for _, c := range []int{2, 3, 8} {
				d2, i2, _ := buildZipNum(t, lines[:n], append(opts, WithCompressors(c))...)
				if !bytes.Equal(d1, d2) || !bytes.Equal(i1, i2) {
					t.Fatalf("%d lines, cluster %v, %d compressors: data %d/%d bytes, summary %d/%d bytes, not the same", n, layout != nil, c, len(d1), len(d2), len(i1), len(i2))
				}
			}
		}
	}
	// a data file that fails after its first block
	fw := &failAfter{n: 1}
	z := NewZipNumWriter(fw, io.Discard, WithBlockLines(10), WithCompressors(4))
	var err error
	for _, l := range lines[:1000] {
		if err = z.WriteLine([]byte(l)); err != nil {
			break
		}
	}
	if cerr := z.Close(); err == nil {
		err = cerr
	}
	if err == nil || fw.writes != 2 {
		t.Errorf("write error: %v after %d writes, want the error after 2", err, fw.writes)
	}
}

type failAfter struct{ n, writes int }

func (f *failAfter) Write(p []byte) (int, error) {
	f.writes++
	if f.writes > f.n {
		return 0, errors.New("disk full")
	}
	return len(p), nil
}
