package cdx

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/arcport/arcport/lib/arc"
	"github.com/arcport/arcport/lib/internal/peertest"
	"github.com/arcport/arcport/lib/internal/samples"
	"github.com/arcport/arcport/lib/record"
	"github.com/arcport/arcport/lib/warc"
)

// fixture is the path of a sample file: the quirks.* files made for this
// package (testdata/cdx), or the ARC and WARC samples lib/arc and lib/warc
// test with (package samples).
func fixture(name string) string {
	if strings.HasPrefix(name, "quirks.") {
		return filepath.Join("../../testdata/cdx", name)
	}
	return samples.Path(name)
}

// peerIndex runs `warcio cdx-index` on path and more arguments.
func peerIndex(t testing.TB, path string, more ...string) []string {
	node, cli := peertest.WarcioCLI(t)
	cmd := exec.Command(node, append([]string{cli, "cdx-index", path}, more...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("warcio cdx-index %s: %v\n%s", path, err, stderr.String())
	}
	return splitLines(string(out))
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// openRecords opens a fixture with lib/warc or lib/arc by its name.
func openRecords(t testing.TB, path string) (record.Reader, *os.File) {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Base(path)
	var r record.Reader
	if strings.Contains(name, ".arc") {
		r, err = arc.NewReader(f, arc.WithName(name), arc.WithPolicy(record.Ignore))
	} else {
		r, err = warc.NewReader(f, warc.WithFilename(name), warc.WithPolicy(record.Ignore))
	}
	if err != nil {
		t.Fatal(err)
	}
	return r, f
}

// ourIndex indexes path with an Indexer and returns CDXJ or CDX-11 lines.
func ourIndex(t testing.TB, path string, cdx11 bool) []string {
	r, f := openRecords(t, path)
	defer f.Close()
	ix := NewIndexer(r, filepath.Base(path), WithSource(f))
	var out []string
	for {
		e, err := ix.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		var b []byte
		if cdx11 {
			b = e.AppendCDX11(nil)
		} else {
			b = e.AppendCDXJ(nil)
		}
		out = append(out, string(b[:len(b)-1]))
	}
	return out
}

// warcFixtures are the WARC files whose index must equal warcio.js's
// byte for byte. example-bad-non-chunked.warc.gz is one gzip member for
// the whole file: no record has an offset of its own there, and warcio.js
// reports the member's end as offset and its size as length; we report
// the member (offset 0) — see TestWholeFileGzipOffsets.
var warcFixtures = []string{
	"example.warc", "example.warc.gz", "example-digest.warc", "example-iana.org-chunked.warc",
	"example-resource.warc.gz", "example-space-in-target-uri.warc.gz", "example-trunc.warc",
	"example-wget-bad-target-uri.warc.gz", "example-wrong-chunks.warc.gz", "post-test.warc.gz",
	"quirks.warc", "quirks.warc.gz",
}

// knownDiffs lists where we deliberately differ from warcio.js: fixture,
// line (0 for all) and fields.
//
//   - example-wrong-chunks.warc.gz splits its response record over two
//     gzip members (0-516, 516-1130); warcio.js reports the size of the
//     member where the record's content ends (614) as the length, which
//     does not cover the record from its offset, so a ranged read of it
//     fails; we report 1130, from the record's offset to the end of the
//     member holding its trailer.
//   - quirks.warc line 47: the record before it has an HTTP head with bare
//     LF line ends; in an uncompressed file warcio.js then reads that
//     record's trailer as part of the head, finds "WARC/" where it expects
//     blank lines, and keeps the previous record's offset for this one
//     (33643, with a length spanning both records). We give the record's
//     own offset and length (33816, 155). (In quirks.warc.gz both agree.)
var knownDiffs = []struct {
	file   string
	line   int
	fields []string
}{
	{"example-wrong-chunks.warc.gz", 0, []string{FieldLength}},
	{"quirks.warc", 47, []string{FieldOffset, FieldLength}},
}

// ignoreKnown blanks the fields of knownDiffs in both sets of lines.
func ignoreKnown(t *testing.T, name string, got, want []string) ([]string, []string) {
	for _, k := range knownDiffs {
		if k.file != name {
			continue
		}
		for _, lines := range [][]string{got, want} {
			for i := range lines {
				if k.line != 0 && i+1 != k.line {
					continue
				}
				e, err := ParseCDXJ([]byte(lines[i]))
				if err != nil {
					t.Fatal(err)
				}
				for _, f := range k.fields {
					e.Set(f, "")
				}
				lines[i] = e.String()
			}
		}
	}
	return got, want
}

func hasKnownDiffs(name string) bool {
	for _, k := range knownDiffs {
		if k.file == name {
			return true
		}
	}
	return false
}

var (
	peerOnce sync.Once
	peerCDXJ map[string][]string
	peerCDX  map[string][]string
)

// peerAll runs warcio.js cdx-index once per format over all fixtures and
// splits its output by file.
func peerAll(t *testing.T) (cdxj, cdx map[string][]string) {
	peertest.WarcioCLI(t)
	peerOnce.Do(func() {
		var paths []string
		for _, name := range warcFixtures {
			paths = append(paths, fixture(name))
		}
		peerCDXJ = map[string][]string{}
		for _, line := range peerIndex(t, paths[0], paths[1:]...) {
			e, err := ParseCDXJ([]byte(line))
			if err != nil {
				t.Fatalf("warcio.js line %q: %v", line, err)
			}
			fn, _ := e.Get(FieldFilename)
			peerCDXJ[fn] = append(peerCDXJ[fn], line)
		}
		peerCDX = map[string][]string{}
		for _, line := range peerIndex(t, paths[0], append(paths[1:], "--format", "cdx")...) {
			fn := line[strings.LastIndexByte(line, ' ')+1:]
			peerCDX[fn] = append(peerCDX[fn], line)
		}
	})
	if peerCDXJ == nil {
		t.Fatal("warcio.js failed")
	}
	return peerCDXJ, peerCDX
}

// TestIndexEqualsWarcio compares, line by line and byte for byte, the CDXJ
// of every fixture WARC with what warcio.js cdx-index prints (fields in
// knownDiffs aside).
func TestIndexEqualsWarcio(t *testing.T) {
	cdxj, _ := peerAll(t)
	for _, name := range warcFixtures {
		t.Run(name, func(t *testing.T) {
			got := ourIndex(t, fixture(name), false)
			want := append([]string(nil), cdxj[name]...)
			got, want = ignoreKnown(t, name, got, want)
			compareLines(t, got, want)
		})
	}
}

// TestCDX11EqualsWarcio does the same for warcio.js --format cdx.
func TestCDX11EqualsWarcio(t *testing.T) {
	_, cdx := peerAll(t)
	for _, name := range warcFixtures {
		if hasKnownDiffs(name) {
			continue
		}
		t.Run(name, func(t *testing.T) {
			got := ourIndex(t, fixture(name), true)
			compareLines(t, got, cdx[name])
		})
	}
}

func compareLines(t *testing.T, got, want []string) {
	t.Helper()
	if len(want) == 0 && len(got) == 0 {
		return
	}
	for i := 0; i < len(got) || i < len(want); i++ {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			t.Errorf("line %d:\n got  %.600s\n want %.600s", i+1, g, w)
		}
	}
}

// TestIndexFixtureValues pins values checked by hand on the fixtures, so
// the indexer is tested where node is missing too.
func TestIndexFixtureValues(t *testing.T) {
	for _, c := range []struct {
		file string
		want []string
	}{
		{"example.warc.gz", []string{
			`com,example)/ 20170306040206 {"url":"http://example.com/","mime":"text/html","status":"200","digest":"G7HRM7BGOKSKMSXZAHMUQTTV53QOFSMK","length":"1228","offset":"784","filename":"example.warc.gz"}`,
			`com,example)/ 20170306040348 {"url":"http://example.com/","mime":"warc/revisit","status":"200","digest":"G7HRM7BGOKSKMSXZAHMUQTTV53QOFSMK","length":"586","offset":"2621","filename":"example.warc.gz"}`,
		}},
		{"example.warc", []string{
			`com,example)/ 20170306040206 {"url":"http://example.com/","mime":"text/html","status":"200","digest":"G7HRM7BGOKSKMSXZAHMUQTTV53QOFSMK","length":"1365","offset":"1197","filename":"example.warc"}`,
			`com,example)/ 20170306040348 {"url":"http://example.com/","mime":"warc/revisit","status":"200","digest":"G7HRM7BGOKSKMSXZAHMUQTTV53QOFSMK","length":"942","offset":"3370","filename":"example.warc"}`,
		}},
		{"post-test.warc.gz", []string{
			`org,httpbin)/post?__wb_method=post&foo=bar&test=abc 20140610000859 {"url":"http://httpbin.org/post","mime":"application/json","status":"200","digest":"M532K5WS4GY2H4OVZO6HRPOP47A7KDWU","length":"720","offset":"0","filename":"post-test.warc.gz","method":"POST","requestBody":"foo=bar&test=abc"}`,
			`org,httpbin)/post?__wb_method=post&a=1&b=[]&c=3 20140610001151 {"url":"http://httpbin.org/post","mime":"application/json","status":"200","digest":"M7YCTM7HS3YKYQTAWQVMQSQZBNEOXGU2","length":"723","offset":"1196","filename":"post-test.warc.gz","method":"POST","requestBody":"A=1&B=[]&C=3"}`,
			`org,httpbin)/post?__wb_method=post&data=^&foo=bar 20140610001255 {"url":"http://httpbin.org/post?foo=bar","mime":"application/json","status":"200","digest":"B6E5P6JUZI6UPDTNO4L2BCHMGLTNCUAJ","length":"723","offset":"2395","filename":"post-test.warc.gz","method":"POST","requestBody":"data=^"}`,
		}},
		{"example-digest.warc", nil}, // requests only
	} {
		got := ourIndex(t, fixture(c.file), false)
		if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%s:\n got  %q\n want %q", c.file, got, c.want)
		}
	}
}

// TestWholeFileGzipOffsets: in a file gzipped as one member the records
// have no offsets of their own; every entry points at the member.
func TestWholeFileGzipOffsets(t *testing.T) {
	got := ourIndex(t, fixture("example-bad-non-chunked.warc.gz"), false)
	if len(got) != 2 {
		t.Fatalf("got %d entries, want 2: %q", len(got), got)
	}
	for _, line := range got {
		e, err := ParseCDXJ([]byte(line))
		if err != nil {
			t.Fatal(err)
		}
		if off, _ := e.Offset(); off != 0 {
			t.Errorf("offset %d, want 0: %s", off, line)
		}
	}
	// Everything but offset and length matches warcio.js.
	want := peerIndex(t, fixture("example-bad-non-chunked.warc.gz"))
	for i := range want {
		w, _ := ParseCDXJ([]byte(want[i]))
		g, _ := ParseCDXJ([]byte(got[i]))
		w.Set(FieldOffset, "")
		w.Set(FieldLength, "")
		g.Set(FieldOffset, "")
		g.Set(FieldLength, "")
		if w.String() != g.String() {
			t.Errorf("entry %d:\n got  %s\n want %s", i, g.String(), w.String())
		}
	}
}

// readAllLines is a helper for tests that read files of lines.
func readAllLines(t testing.TB, r io.Reader) []string {
	var out []string
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}

// TestARCIndex checks the entries of ARC files. warcio.js cannot read ARC,
// so the peer is warcio.js indexing the same captures converted to WARC by
// lib/arc's Converter (written out plainly by the test): key, timestamp,
// url, mime and status must agree. The digest, which ARC lacks and the
// Indexer computes, must be the SHA-1 of the entity body; for example.com's
// page it is the WARC-Payload-Digest other tools wrote for the same body
// (example-wrong-chunks.warc.gz, example-wget-bad-target-uri... use it).
func TestARCIndex(t *testing.T) {
	want := map[string][]string{
		"example.arc": {
			`com,example)/ 20140216050221 {"url":"http://example.com/","mime":"text/html","status":"200","digest":"B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A","length":"1657","offset":"151","filename":"example.arc"}`,
		},
		"example.arc.gz": {
			`com,example)/ 20140216050221 {"url":"http://example.com/","mime":"text/html","status":"200","digest":"B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A","length":"856","offset":"171","filename":"example.arc.gz"}`,
		},
		"example-space-in-url.arc": {
			`com,example)/index.cfm?emailtitle=examples%20from%20the%20live%20web&fuseaction=email&ispopup=false 20140216050221 {"url":"http://example.com/index.cfm?FuseAction=Email&EmailTitle=Examples%20From%20The%20Live%20Web&IsPopUp=False","mime":"text/html","status":"200","digest":"B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A","length":"1722","offset":"151","filename":"example-space-in-url.arc"}`,
		},
		// Zero-length and one-byte bodies: the digests of "" and "\n".
		"bad.arc": {
			`com,example)/ 20140401000000 {"url":"http://example.com/","mime":"text/html","digest":"3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ","length":"68","offset":"134","filename":"bad.arc"}`,
			`com,example)/ 20140102000000 {"url":"http://example.com/","mime":"text/plain","digest":"VXEDWGPHSNERWHDOUD6YWRWNT4ZOLEX4","length":"60","offset":"202","filename":"bad.arc"}`,
			`com,example)/ 20140401000000 {"url":"http://example.com/","mime":"text/html","digest":"3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ","length":"69","offset":"262","filename":"bad.arc"}`,
		},
	}
	ours := map[string][]string{}
	for name, w := range want {
		ours[name] = ourIndex(t, fixture(name), false)
		compareLines(t, ours[name], w)
	}

	// The same captures through ARC -> WARC, indexed by warcio.js (the
	// expected lines above are checked first: a missing peer skips only
	// this part locally, and fails the test under CI).
	peertest.WarcioCLI(t)
	for name := range want {
		path, got := fixture(name), ours[name]
		r, f := openRecords(t, path)
		conv := arc.NewConverter(r, arc.WithSourceName(name))
		var buf bytes.Buffer
		for {
			rec, err := conv.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			var body []byte
			if rec.Block != nil {
				body, _ = io.ReadAll(rec.Block)
			}
			buf.WriteString("WARC/1.1\r\n")
			for _, fl := range rec.Header {
				if fl.Name != record.FieldContentLength {
					buf.WriteString(fl.Name + ": " + fl.Value + "\r\n")
				}
			}
			fmt.Fprintf(&buf, "Content-Length: %d\r\n\r\n", len(body))
			buf.Write(body)
			buf.WriteString("\r\n\r\n")
		}
		f.Close()
		tmp := filepath.Join(t.TempDir(), name+".warc")
		if err := os.WriteFile(tmp, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		var peer []string
		for _, l := range peerIndex(t, tmp) {
			e, _ := ParseCDXJ([]byte(l))
			if u, _ := e.Get(FieldURL); strings.HasPrefix(u, "http") {
				peer = append(peer, l)
			}
		}
		if len(peer) != len(got) {
			t.Errorf("%s: warcio.js indexes %d captures of the converted WARC, we index %d of the ARC", name, len(peer), len(got))
			continue
		}
		for i := range got {
			g, _ := ParseCDXJ([]byte(got[i]))
			p, _ := ParseCDXJ([]byte(peer[i]))
			for _, f := range []string{FieldURL, FieldMIME, FieldStatus} {
				gv, gok := g.Get(f)
				pv, pok := p.Get(f)
				if gv != pv || gok != pok {
					t.Errorf("%s entry %d %s: ours %q (%v), warcio.js on the WARC %q (%v)", name, i, f, gv, gok, pv, pok)
				}
			}
			if g.URLKey != p.URLKey || g.Timestamp != p.Timestamp {
				t.Errorf("%s entry %d: ours %s %s, warcio.js %s %s", name, i, g.URLKey, g.Timestamp, p.URLKey, p.Timestamp)
			}
		}
	}
}

func TestWarcioTimestamp(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"2017-03-06T04:02:06Z", "20170306040206"},
		{"2017-03-06T04:02:06.123456Z", "20170306040206"},
		{"2021", "2021"},
		{"", ""},
		{"20170306040206123", "20170306040206"},
		{"2017-03-06 04:02", "20170306 0402"},
		{"é-2017-03-06T04:02:06Z", "é2017030604020"},
		{"20170306040😀", "20170306040😀"},
		{"2017030604021😀", "2017030604021\xed\xa0\xbd"}, // cut inside a surrogate pair
	} {
		if got := warcioTimestamp(c.in); got != c.want {
			t.Errorf("warcioTimestamp(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// FuzzIndexer feeds arbitrary bytes through lib/warc into the Indexer:
// no panic, no hang, entries always serialize to parseable CDXJ.
func FuzzIndexer(f *testing.F) {
	for _, name := range []string{"example.warc", "post-test.warc.gz", "quirks.warc"} {
		b, err := os.ReadFile(fixture(name))
		if err == nil {
			if len(b) > 3000 {
				b = b[:3000]
			}
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := warc.NewReader(bytes.NewReader(data), warc.WithPolicy(record.Ignore))
		if err != nil {
			return
		}
		ix := NewIndexer(r, "fuzz.warc", WithSource(bytes.NewReader(data)), WithMaxRequestBody(1<<16))
		for i := 0; i < 10000; i++ {
			e, err := ix.Next()
			if err != nil {
				return
			}
			line := e.AppendCDXJ(nil)
			if _, err := ParseCDXJ(line); err != nil && e.URLKey != "" && !bytes.ContainsAny([]byte(e.URLKey), "\n\r") {
				t.Fatalf("entry %q does not parse back: %v", line, err)
			}
		}
	})
}

// TestPlainWithoutSource: without WithSource, an uncompressed record's
// length is its on-disk length less the CRLF CRLF trailer, which is what
// warcio.js reports for records followed by exactly that trailer.
func TestPlainWithoutSource(t *testing.T) {
	for _, c := range []struct {
		file string
		want []string // lengths
	}{
		{"example.warc", []string{"1365", "942"}},
		{"example-iana.org-chunked.warc", []string{"7970"}},
	} {
		r, f := openRecords(t, fixture(c.file))
		ix := NewIndexer(r, c.file)
		var got []string
		for {
			e, err := ix.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			l, _ := e.Get(FieldLength)
			got = append(got, l)
		}
		f.Close()
		if strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("%s: lengths %v, want %v", c.file, got, c.want)
		}
	}
}

// TestInfoKeys: info's field names are the lower-case names jsHeaders
// keeps for the record fields it reads.
func TestInfoKeys(t *testing.T) {
	for k, f := range map[string]string{
		keyType: record.FieldType, keyTargetURI: record.FieldTargetURI, keyDate: record.FieldDate,
		keyContentType: record.FieldContentType, keyPayloadDigest: record.FieldPayloadDigest,
		keyProfile: record.FieldProfile, keyContentLength: record.FieldContentLength,
	} {
		if l := lowerToken(f); l != k {
			t.Errorf("%s: key %q, jsHeaders holds %q", f, k, l)
		}
	}
}

// TestLowerToken: lowerToken is strings.ToLower for header names, the
// common ones (found through lowerCache or the map) and others.
func TestLowerToken(t *testing.T) {
	names := []string{"X-Custom-Thing", "ETAG", "content-type", "A", "Content-Typf", "WARC-TYPE", "x"}
	for n := range commonLower {
		names = append(names, n, strings.ToUpper(n))
	}
	for _, n := range names {
		if got := lowerToken(n); got != strings.ToLower(n) {
			t.Errorf("lowerToken(%q) = %q", n, got)
		}
	}
}
