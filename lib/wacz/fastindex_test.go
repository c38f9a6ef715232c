package wacz

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arcport/arcport/lib/cdx"
	"github.com/arcport/arcport/lib/internal/samples"
	"github.com/arcport/arcport/lib/internal/warcgen"
)

// indexLines indexes path with NewFileIndexer (fast or careful path) and
// returns its CDXJ and the error it ended with.
func indexLines(t *testing.T, path string, fast bool) (string, string) {
	t.Helper()
	return indexLinesAs(t, path, fast, false)
}

// indexLinesAs is indexLines; with pyForm the lines are those of waczpack
// index --cdxj-indexer (cdx options WithFullDigest and WithARCDigests
// given to NewFileIndexer, lines from cdx.AppendCdxjIndexer).
func indexLinesAs(t *testing.T, path string, fast, pyForm bool) (string, string) {
	t.Helper()
	old := fastIndex
	fastIndex = fast
	defer func() { fastIndex = old }()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var opts []cdx.Option
	if pyForm {
		opts = []cdx.Option{cdx.WithFullDigest(true), cdx.WithARCDigests(false)}
	}
	ix, err := NewFileIndexer(f, f, path, opts...)
	if err != nil {
		return "", err.Error()
	}
	var out []byte
	for {
		e, err := ix.Next()
		if err == io.EOF {
			return string(out), ""
		}
		if err != nil {
			return string(out), err.Error()
		}
		if pyForm {
			out = cdx.AppendCdxjIndexer(out, e, false)
		} else {
			out = e.AppendCDXJ(out)
		}
	}
}

// gzMember compresses b as one gzip member at level.
func gzMember(b []byte, level int) []byte {
	var out bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&out, level)
	zw.Write(b)
	zw.Close()
	return out.Bytes()
}

// TestFastIndexEqualsCareful: the fast path of `waczpack index` gives the
// careful path's lines and errors, byte for byte, on every gzip fixture
// and on generated files that take each of its branches: small records
// (decoded to their end), records whose rest is skipped (next member found
// by its ISIZE), records larger than the prefix inflater and the read
// window (read on with compress/flate), POST requests whose body is read,
// and the cases it hands over to lib/warc: two records in one member, a
// trailer other than CRLF CRLF, garbage or NULs between members, a cut
// member, an ISIZE that lies.
func TestFastIndexEqualsCareful(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for _, n := range []string{"example.warc.gz", "example-resource.warc.gz", "example-space-in-target-uri.warc.gz",
		"example-wget-bad-target-uri.warc.gz", "example-wrong-chunks.warc.gz", "example-bad-non-chunked.warc.gz", "post-test.warc.gz"} {
		paths = append(paths, samples.Path(n))
	}
	paths = append(paths, filepath.Join(filepath.Dir(samples.Path("x.warc")), "..", "cdx", "quirks.warc.gz"))

	rec := func(i int, body []byte) []byte {
		msg, _ := warcgen.HTTP(body, false)
		return warcgen.Record(warcgen.Fields(
			"WARC-Type", "response",
			"WARC-Record-ID", fmt.Sprintf("<urn:uuid:%08d-0000-4000-8000-000000000000>", i),
			"WARC-Date", fmt.Sprintf("2024-01-02T03:04:%02dZ", i%60),
			"WARC-Target-URI", fmt.Sprintf("http://example.com/%d", i),
			"Content-Type", "application/http;msgtype=response",
			"WARC-Payload-Digest", warcgen.B32("sha1", "sha1", body)), msg)
	}
	post := warcgen.Record(warcgen.Fields(
		"WARC-Type", "request",
		"WARC-Record-ID", "<urn:uuid:00000099-0000-4000-8000-000000000000>",
		"WARC-Date", "2024-01-02T03:04:05Z",
		"WARC-Target-URI", "http://example.com/1",
		"Content-Type", "application/http;msgtype=request"),
		[]byte("POST /1 HTTP/1.1\r\nHost: example.com\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 7\r\n\r\na=1&b=2"))
	small := []byte("<html>small</html>")
	mid := []byte(samples.Text(30 << 10)) // past piFinish: the rest is skipped
	big := []byte(samples.Text(3 << 20))  // past piMax and the 1 MiB window
	var random []byte                     // hex digits: 0x1f never appears in them, only in the compressed form
	for i := 0; len(random) < 700<<10; i++ {
		random = fmt.Appendf(random, "%08x", uint32(i)*2654435761)
	}
	cases := map[string][]byte{}
	var all []byte
	for i, b := range [][]byte{small, mid, big, random, small} {
		all = append(all, gzMember(rec(i, b), 6)...)
	}
	all = append(all, gzMember(post, 6)...)
	all = append(all, gzMember(rec(7, small), 6)...)
	// a POST body past the prefix inflater's reach (read on with
	// compress/flate) and past what the indexer reads of it (skipped)
	long := samples.Text(200 << 10)
	bigPost := warcgen.Record(warcgen.Fields(
		"WARC-Type", "request",
		"WARC-Record-ID", "<urn:uuid:00000098-0000-4000-8000-000000000000>",
		"WARC-Date", "2024-01-02T03:04:05Z",
		"WARC-Target-URI", "http://example.com/0",
		"Content-Type", "application/http;msgtype=request"),
		[]byte(fmt.Sprintf("POST /0 HTTP/1.1\r\nHost: example.com\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n%s", len(long), long)))
	all = append(all, gzMember(bigPost, 6)...)
	all = append(all, gzMember(rec(0, small), 6)...)
	cases["mixed.warc.gz"] = all
	cases["stored.warc.gz"] = append(gzMember(rec(1, mid), 0), gzMember(rec(2, big), 0)...)
	two := append(rec(1, small), rec(2, mid)...)
	cases["two-in-one.warc.gz"] = append(gzMember(rec(0, mid), 6), gzMember(two, 6)...)
	noTrailer := bytes.TrimSuffix(rec(1, mid), []byte("\r\n\r\n"))
	cases["no-trailer.warc.gz"] = append(append(gzMember(rec(0, mid), 6), gzMember(noTrailer, 6)...), gzMember(rec(2, small), 6)...)
	cases["garbage.warc.gz"] = append(append(gzMember(rec(0, mid), 6), "garbage\n"...), gzMember(rec(1, small), 6)...)
	cases["nuls.warc.gz"] = append(append(gzMember(rec(0, mid), 6), make([]byte, 512)...), gzMember(rec(1, small), 6)...)
	m := gzMember(rec(1, mid), 6)
	cases["cut.warc.gz"] = append(gzMember(rec(0, small), 6), m[:len(m)/2]...)
	lie := bytes.Clone(m)
	lie[len(lie)-1] ^= 1 // ISIZE says another size
	cases["isize.warc.gz"] = append(append(gzMember(rec(0, small), 6), lie...), gzMember(rec(2, mid), 6)...)
	noID := bytes.Replace(rec(1, mid), []byte("WARC-Record-ID"), []byte("WARC-Record-Xx"), 1)
	cases["no-id.warc.gz"] = append(gzMember(rec(0, mid), 6), gzMember(noID, 6)...)
	plus := bytes.Replace(rec(1, small), []byte("Content-Length: "), []byte("Content-Length: +"), 1)
	cases["plus-length.warc.gz"] = append(gzMember(rec(0, mid), 6), gzMember(plus, 6)...)
	// a gzip header inside a stored block: the end search finds it first,
	// its ISIZE does not match, and lib/warc reads on from that member
	fake := []byte(samples.Text(30 << 10))
	copy(fake[20<<10:], "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff")
	cases["fake-header.warc.gz"] = append(append(gzMember(rec(0, fake), 0), gzMember(rec(1, small), 6)...), gzMember(rec(2, mid), 6)...)
	for name, b := range cases {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	defer func(m int64, d bool) { parMinSize, parDisabled = m, d }(parMinSize, parDisabled)
	for _, p := range paths {
		parMinSize, parDisabled = 0, true
		fast, fastErr := indexLines(t, p, true)
		careful, carefulErr := indexLines(t, p, false)
		if fast != careful || fastErr != carefulErr {
			t.Errorf("%s: fast path differs: fast %d bytes of lines, error %q; careful %d bytes, error %q", filepath.Base(p), len(fast), fastErr, len(careful), carefulErr)
		}
		// the parallel phase in front (parRecords)
		parDisabled = false
		par, parErr := indexLines(t, p, true)
		if par != careful || parErr != carefulErr {
			t.Errorf("%s: parallel path differs: %d bytes of lines, error %q; careful %d bytes, error %q", filepath.Base(p), len(par), parErr, len(careful), carefulErr)
		}
		if careful == "" && carefulErr == "" {
			t.Errorf("%s: nothing indexed", p)
		}
		// the lines of --cdxj-indexer (cdx options through NewFileIndexer)
		// on the three paths
		parMinSize, parDisabled = 0, true
		pyFast, pyFastErr := indexLinesAs(t, p, true, true)
		pyCareful, pyCarefulErr := indexLinesAs(t, p, false, true)
		parDisabled = false
		pyPar, pyParErr := indexLinesAs(t, p, true, true)
		if pyFast != pyCareful || pyFastErr != pyCarefulErr || pyPar != pyCareful || pyParErr != pyCarefulErr {
			t.Errorf("%s: --cdxj-indexer lines differ: fast %d bytes %q, parallel %d bytes %q, careful %d bytes %q", filepath.Base(p), len(pyFast), pyFastErr, len(pyPar), pyParErr, len(pyCareful), pyCarefulErr)
		}
		if pyCarefulErr == "" && careful != "" && (pyCareful == careful || !strings.Contains(pyCareful, `"digest": "sha1:`) && strings.Contains(careful, `"digest":"`)) {
			t.Errorf("%s: the cdx options did not reach the indexer:\n%.300s", filepath.Base(p), pyCareful)
		}
		if testing.Verbose() {
			t.Logf("%s: %d lines, error %q", filepath.Base(p), strings.Count(careful, "\n"), carefulErr)
		}
	}
	// the generated file takes the fast path to its end: the rests of
	// the larger records are skipped, nothing is handed over
	f, err := os.Open(filepath.Join(dir, "mixed.warc.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	fr := newFastRecords(f, st.Size(), "mixed.warc.gz")
	ix := cdx.NewIndexer(fr, "mixed.warc.gz")
	n := 0
	for {
		if _, err := ix.Next(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 7 || fr.wr != nil || fr.skipped < 3 {
		t.Errorf("mixed: %d entries, handed over %v, %d rests skipped", n, fr.wr != nil, fr.skipped)
	}
}

// FuzzFastIndex: on any input the fast path does not panic; when it
// fails, the careful path fails the same way; when both succeed, their
// lines are equal. (The fast path may succeed where the careful one fails:
// damage inside a rest it skips, which only inflating would find.)
func FuzzFastIndex(f *testing.F) {
	for _, n := range []string{"example.warc.gz", "post-test.warc.gz", "example-resource.warc.gz"} {
		b, err := os.ReadFile(samples.Path(n))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	msg, _ := warcgen.HTTP([]byte(samples.Text(6000)), false)
	rec := warcgen.Record(warcgen.Fields("WARC-Type", "response", "WARC-Record-ID", "<urn:uuid:1>",
		"WARC-Date", "2024-01-02T03:04:05Z", "WARC-Target-URI", "http://example.com/"), msg)
	f.Add(append(gzMember(rec, 6), gzMember(rec, 0)...))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(dir, "f.warc.gz")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		fast, fastErr := indexLines(t, p, true)
		careful, carefulErr := indexLines(t, p, false)
		if fastErr != "" && fastErr != carefulErr {
			t.Errorf("fast path error %q, careful %q", fastErr, carefulErr)
		}
		if fastErr == "" && carefulErr == "" && fast != careful {
			t.Errorf("lines differ:\nfast:\n%s\ncareful:\n%s", fast, careful)
		}
	})
}
