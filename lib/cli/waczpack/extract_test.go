package waczpack

import (
	"bytes"
	"compress/gzip"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/arcport/arcport/lib/internal/compio"
	"github.com/arcport/arcport/lib/internal/peertest"
	"github.com/arcport/arcport/lib/record"
	"github.com/arcport/arcport/lib/warc"
)

const warcFixtures = "../../../testdata/warc/"

// recordOffsets lists the offsets of the records of a WARC that can be
// addressed one by one (not those inside a member holding several).
func recordOffsets(t *testing.T, path string) []int64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := warc.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var recs []*int64
	var lens []*int64
	for {
		rec, err := r.Next()
		if err != nil {
			break
		}
		recs = append(recs, &rec.Offset)
		lens = append(lens, &rec.DiskLength)
	}
	var offs []int64
	for i := range recs {
		if *lens[i] > 0 {
			offs = append(offs, *recs[i])
		}
	}
	return offs
}

// TestExtractAgainstWarcio compares `waczpack extract` with what Python
// warcio's `warcio extract` prints, made with warcio.js (the same parser
// family; warciojs-extract.cjs), for every record of every fixture:
// the whole record, --headers, --payload (against warcio's raw payload,
// or its decoded content for chunked records) and --payload --decode
// (against warcio's --payload). warcio.js strips <...> around
// WARC-Target-URI, which extract prints as stored.
func TestExtractAgainstWarcio(t *testing.T) {
	node, dir := peertest.Warcio(t)
	mods := filepath.Dir(dir)
	angle := regexp.MustCompile(`(?m)^(WARC-Target-URI: )<([^>\r\n]*)>`)
	files, _ := filepath.Glob(warcFixtures + "*.warc*")
	compared := 0
	for _, f := range files {
		name := filepath.Base(f)
		if strings.Contains(name, "trunc") || strings.Contains(name, "wrong-chunks") || strings.Contains(name, "bad-non-chunked") {
			continue // damaged on purpose: warcio.js and extract disagree by design
		}
		for _, off := range recordOffsets(t, f) {
			peer := func(mode string) string {
				cmd := exec.Command(node, warcFixtures+"warciojs-extract.cjs", f, strconv.FormatInt(off, 10), mode)
				cmd.Env = append(os.Environ(), "NODE_PATH="+mods)
				out, err := cmd.Output()
				if err != nil {
					t.Fatalf("%s %d %s: warcio.js: %v", name, off, mode, err)
				}
				return string(out)
			}
			ours := func(args ...string) string {
				so, se, code := run(t, nil, append([]string{"extract", f, strconv.FormatInt(off, 10)}, args...)...)
				if code != 0 {
					t.Fatalf("%s %d %v: exit %d: %s", name, off, args, code, se)
				}
				return angle.ReplaceAllString(so, "$1$2")
			}
			check := func(what, got, want string) {
				if got != want {
					t.Errorf("%s at %d, %s: %d bytes differ from warcio's %d\n got %.300q\nwant %.300q", name, off, what, len(got), len(want), got, want)
				}
				compared++
			}
			check("record", ours(), peer("all"))
			headers := ours("--headers")
			check("--headers", headers, peer("headers"))
			payload := peer("raw")
			if strings.Contains(strings.ToLower(headers), "transfer-encoding: chunked") {
				if !strings.Contains(strings.ToLower(headers), "content-encoding") {
					check("--payload (chunked)", ours("--payload"), peer("content"))
				}
			} else {
				check("--payload", ours("--payload"), payload)
			}
			check("--payload --decode", ours("--payload", "--decode"), peer("content"))
		}
	}
	if compared < 40 {
		t.Errorf("only %d comparisons", compared)
	}
	t.Logf("%d outputs equal to warcio's", compared)
}

// TestExtractErrors: an offset inside a record, past the end or not a
// number, and a damaged member, are one-line errors naming file and offset.
func TestExtractErrors(t *testing.T) {
	f := warcFixtures + "example.warc.gz"
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{f, "785"}, 1, f + ": record at offset 785: no WARC record starts here"},
		{[]string{f, "999999"}, 1, f + ": offset 999999 is at or past the end"},
		{[]string{f, "x"}, 2, `bad OFFSET "x"`},
		{[]string{f}, 2, "extract needs FILE and OFFSET"},
		{[]string{f, "0", "--headers", "--payload"}, 2, "exclude each other"},
		{[]string{warcFixtures + "example.warc", "0"}, 0, ""},
		{[]string{"../../../testdata/arc/example.arc", "0"}, 1, "record at offset 0: an ARC record: extract reads WARC records only"},
	} {
		so, se, code := run(t, nil, append([]string{"extract"}, c.args...)...)
		if code != c.code || !strings.Contains(se, c.msg) || strings.Count(se, "\n") > 1 {
			t.Errorf("extract %v: exit %d, stderr %q; want %d and %q", c.args, code, se, c.code, c.msg)
		}
		if c.code == 0 && !strings.HasPrefix(so, "WARC/1.0\r\n") {
			t.Errorf("extract %v: %.40q", c.args, so)
		}
	}

	// a record whose gzip member is cut short or has a bad CRC
	rec := "WARC/1.1\r\nWARC-Type: resource\r\nWARC-Target-URI: http://x/\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello\r\n\r\n"
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(rec))
	zw.Close()
	dir := t.TempDir()
	good := filepath.Join(dir, "good.warc.gz")
	os.WriteFile(good, gz.Bytes(), 0o644)
	if so, se, code := run(t, nil, "extract", good, "0", "--payload"); code != 0 || so != "hello" {
		t.Fatalf("good: %d %q %s", code, so, se)
	}
	short := filepath.Join(dir, "short.warc.gz")
	os.WriteFile(short, gz.Bytes()[:gz.Len()-12], 0o644)
	badCRC := filepath.Join(dir, "crc.warc.gz")
	b := append([]byte(nil), gz.Bytes()...)
	b[len(b)-6] ^= 1
	os.WriteFile(badCRC, b, 0o644)
	for _, p := range []string{short, badCRC} {
		if _, se, code := run(t, nil, "extract", p, "0"); code != 1 || !strings.Contains(se, p+": record at offset 0: ") {
			t.Errorf("%s: exit %d, %q", filepath.Base(p), code, se)
		}
	}
}

// TestExtractZstdDict: a record of a .warc.zst whose frames use the
// dictionary at the file's start is extracted at its own offset.
func TestExtractZstdDict(t *testing.T) {
	dict := bytes.Repeat([]byte("WARC/1.1\r\nWARC-Type: resource\r\nContent-Type: text/plain\r\n"), 20)
	var buf bytes.Buffer
	var offs []int64
	w := warc.NewWriter(&buf, warc.WithCompression(compio.Zstd), warc.WithZstdDict(dict), warc.OnWritten(func(_ *record.Record, off, _ int64) { offs = append(offs, off) }))
	for i, body := range []string{"first body", "second body"} {
		w.WriteRecord(&record.Record{Header: record.Header{
			{Name: record.FieldType, Value: "resource"},
			{Name: record.FieldTargetURI, Value: "http://x/" + strconv.Itoa(i)},
			{Name: record.FieldContentType, Value: "text/plain"},
		}, Block: strings.NewReader(body)})
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "d.warc.zst")
	os.WriteFile(p, buf.Bytes(), 0o644)
	if len(offs) != 2 || offs[0] <= 8 {
		t.Fatalf("offsets %v", offs)
	}
	for i, want := range []string{"first body", "second body"} {
		so, se, code := run(t, nil, "extract", p, strconv.FormatInt(offs[i], 10), "--payload")
		if code != 0 || so != want {
			t.Errorf("record %d at %d: exit %d %q %s", i, offs[i], code, so, se)
		}
	}
}

// FuzzExtract: ExtractTo never panics or hangs on any input, in any mode,
// and the whole record it prints starts with the WARC header it read.
func FuzzExtract(f *testing.F) {
	files, _ := filepath.Glob(warcFixtures + "*.warc*")
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil && len(b) < 64<<10 {
			f.Add(b, uint8(0))
		}
	}
	f.Add([]byte("WARC/1.1\r\nWARC-Type: response\r\nContent-Type: application/http\r\nContent-Length: 60\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		var out bytes.Buffer
		err := ExtractTo(&out, bytes.NewReader(data), ExtractMode(mode%3), mode&4 != 0)
		if err == nil && ExtractMode(mode%3) == ExtractRecord && !bytes.HasPrefix(out.Bytes(), []byte("WARC/")) {
			t.Fatalf("record printed without its header: %.40q", out.Bytes())
		}
	})
}
