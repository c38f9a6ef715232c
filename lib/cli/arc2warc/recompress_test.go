package arc2warc

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arcport/arcport/lib/internal/cliutil"
	"github.com/arcport/arcport/lib/record"
	"github.com/arcport/arcport/lib/warc"
)

func runApp(t *testing.T, stdin []byte, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	app := NewApp(bytes.NewReader(stdin), &out, &errb)
	err := app.Run(append([]string{"arc2warc"}, args...))
	code := cliutil.Report("arc2warc", err, &errb)
	return out.String(), errb.String(), code
}

// members splits a gzip file into its members' decompressed contents and
// their compressed offsets.
func members(t *testing.T, data []byte) (contents [][]byte, offsets []int64) {
	t.Helper()
	cr := &countReader{r: bytes.NewReader(data)}
	br := bufio.NewReader(cr)
	for {
		off := cr.n - int64(br.Buffered())
		if _, err := br.Peek(1); err == io.EOF {
			return
		}
		zr, err := gzip.NewReader(br)
		if err != nil {
			t.Fatalf("member at %d: %v", off, err)
		}
		zr.Multistream(false)
		b, err := io.ReadAll(zr)
		if err != nil {
			t.Fatalf("member at %d: %v", off, err)
		}
		contents = append(contents, b)
		offsets = append(offsets, off)
	}
}

// recordsOf splits a plain WARC into its records' bytes (header, block,
// CRLF CRLF), by Content-Length.
func recordsOf(t *testing.T, plain []byte) [][]byte {
	t.Helper()
	var recs [][]byte
	br := bufio.NewReader(bytes.NewReader(plain))
	for {
		if _, err := br.Peek(1); err == io.EOF {
			return recs
		}
		head, n, _, _, err := readWARCHead(br)
		if err != nil {
			t.Fatalf("record %d: %v", len(recs), err)
		}
		rec := append([]byte(nil), head...)
		block := make([]byte, n+4)
		if _, err := io.ReadFull(br, block); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, append(rec, block...))
	}
}

// TestRecompressWholeFileGzip: a WARC gzipped as one member (and the
// fixture that is so) comes out as one gzip member per record, each
// member exactly one record's bytes, the records identical to the input's;
// every record then has its own offset.
func TestRecompressWholeFileGzip(t *testing.T) {
	dir := t.TempDir()
	plain, err := os.ReadFile("../../../testdata/warc/example.warc")
	if err != nil {
		t.Fatal(err)
	}
	var whole bytes.Buffer
	zw := gzip.NewWriter(&whole)
	zw.Write(plain)
	zw.Close()
	fixture, _ := os.ReadFile("../../../testdata/warc/example-bad-non-chunked.warc.gz")
	zr, _ := gzip.NewReader(bytes.NewReader(fixture))
	fixturePlain, _ := io.ReadAll(zr)
	for _, c := range []struct {
		name  string
		in    []byte
		plain []byte
	}{
		{"whole-file gzip", whole.Bytes(), plain},
		{"plain", plain, plain},
		{"example-bad-non-chunked.warc.gz", fixture, fixturePlain},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(dir, "out.warc.gz")
			if _, se, code := runApp(t, c.in, "--recompress", "-o", out, "-"); code != 0 {
				t.Fatalf("exit %d: %s", code, se)
			}
			got, _ := os.ReadFile(out)
			ms, offs := members(t, got)
			want := recordsOf(t, c.plain)
			if len(ms) != len(want) || len(want) < 2 {
				t.Fatalf("%d members for %d records", len(ms), len(want))
			}
			for i := range ms {
				if !bytes.Equal(ms[i], want[i]) {
					t.Errorf("member %d at %d: %d bytes, not the record's %d", i, offs[i], len(ms[i]), len(want[i]))
				}
			}
			if !bytes.Equal(bytes.Join(ms, nil), c.plain) {
				t.Errorf("decompressed output differs from the decompressed input")
			}
			// every record addressable: the reader sees one record a member
			r, _ := warc.NewReader(bytes.NewReader(got))
			var recs []*record.Record
			for {
				rec, err := r.Next()
				if err != nil {
					break
				}
				recs = append(recs, rec)
			}
			for i, rec := range recs {
				if rec.Offset != offs[i] || rec.DiskLength == 0 {
					t.Errorf("record %d: offset %d length %d, member at %d", i, rec.Offset, rec.DiskLength, offs[i])
				}
			}
			t.Logf("%d records, %d members, %d bytes in, %d out", len(want), len(ms), len(c.in), len(got))
		})
	}
	// --recompress refuses what is not WARC
	arcData, _ := os.ReadFile("../../../testdata/arc/example.arc")
	if _, se, code := runApp(t, arcData, "--recompress", "-o", filepath.Join(dir, "x.warc.gz")); code != 1 || !strings.Contains(se, "--recompress takes WARC files, and this is an ARC file") {
		t.Errorf("ARC with --recompress: exit %d, %q", code, se)
	}
}

// bigWARC writes a WARC of about size bytes of incompressible records of
// 10-300 KB, plain, and returns it.
func bigWARC(t *testing.T, size int) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := warc.NewWriter(&buf, warc.WithCompression(0))
	rng := rand.New(rand.NewSource(1))
	for i := 0; buf.Len() < size; i++ {
		block := make([]byte, 10<<10+rng.Intn(290<<10))
		rng.Read(block)
		rec := &record.Record{
			Header: record.Header{
				{Name: record.FieldType, Value: "resource"},
				{Name: record.FieldRecordID, Value: fmt.Sprintf("<urn:uuid:00000000-0000-0000-0000-%012d>", i)},
				{Name: record.FieldDate, Value: "2024-01-02T03:04:05Z"},
				{Name: record.FieldTargetURI, Value: fmt.Sprintf("http://example.com/%d", i)},
				{Name: record.FieldContentType, Value: "application/octet-stream"},
			},
			Block: bytes.NewReader(block),
		}
		if err := w.WriteRecord(rec); err != nil {
			t.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	return buf.Bytes()
}

// TestMaxSize: --max-size 10M cuts a 35 MB WARC into numbered files,
// each starting with a warcinfo record, each at most 10 MiB plus its last
// record (and at least 10 MiB but for the last); their records after the
// warcinfo are the input's, in order, with the same bytes.
func TestMaxSize(t *testing.T) {
	dir := t.TempDir()
	in := bigWARC(t, 35<<20)
	want := recordsOf(t, in)
	if _, se, code := runApp(t, in, "--max-size", "10M", "--deterministic-ids", "-o", filepath.Join(dir, "part.warc.gz"), "-"); code != 0 {
		t.Fatalf("exit %d: %s", code, se)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "part-*.warc.gz"))
	if len(files) != 4 {
		t.Fatalf("files %v, want 4", files)
	}
	var got [][]byte
	for i, f := range files {
		if filepath.Base(f) != fmt.Sprintf("part-%05d.warc.gz", i) {
			t.Errorf("file %d named %s", i, f)
		}
		data, _ := os.ReadFile(f)
		ms, offs := members(t, data)
		last := int64(len(data)) - offs[len(offs)-1]
		t.Logf("%s: %d bytes, %d records, last member %d bytes", filepath.Base(f), len(data), len(ms), last)
		if int64(len(data))-last >= 10<<20 {
			t.Errorf("%s: %d bytes before its last record: the limit was reached before it", f, int64(len(data))-last)
		}
		if i < len(files)-1 && len(data) < 10<<20 {
			t.Errorf("%s: %d bytes, under the limit, yet not the last file", f, len(data))
		}
		if !bytes.HasPrefix(ms[0], []byte("WARC/1.1\r\nWARC-Type: warcinfo\r\n")) || !bytes.Contains(ms[0], []byte("WARC-Filename: "+filepath.Base(f)+"\r\n")) {
			t.Errorf("%s does not start with its warcinfo record: %.200q", f, ms[0])
		}
		got = append(got, ms[1:]...)
	}
	if len(got) != len(want) {
		t.Fatalf("%d records, want %d", len(got), len(want))
	}
	for i := range got {
		if !bytes.Equal(got[i], want[i]) {
			t.Fatalf("record %d differs", i)
		}
	}
	// deterministic: the same run gives the same files
	dir2 := t.TempDir()
	runApp(t, in, "--max-size", "10M", "--deterministic-ids", "-o", filepath.Join(dir2, "part.warc.gz"), "-")
	for _, f := range files {
		a, _ := os.ReadFile(f)
		b, _ := os.ReadFile(filepath.Join(dir2, filepath.Base(f)))
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between two runs", filepath.Base(f))
		}
	}
	// ARC input: converted records rotate too
	arcData, _ := os.ReadFile("../../../testdata/arc/example.arc")
	if _, se, code := runApp(t, arcData, "--max-size", "600", "-o", filepath.Join(dir, "arc.warc.gz")); code != 0 {
		t.Fatalf("ARC: exit %d: %s", code, se)
	}
	arcFiles, _ := filepath.Glob(filepath.Join(dir, "arc-*.warc.gz"))
	if len(arcFiles) < 2 {
		t.Errorf("ARC at 600 bytes: %v", arcFiles)
	}
	for _, f := range arcFiles {
		data, _ := os.ReadFile(f)
		ms, _ := members(t, data)
		if !bytes.Contains(ms[0][:40], []byte("WARC-Type: warcinfo")) {
			t.Errorf("%s does not start with a warcinfo record", f)
		}
	}
	// usage: --max-size needs -o
	if _, se, code := runApp(t, in[:100], "--max-size", "10M"); code != 2 || !strings.Contains(se, "give -o") {
		t.Errorf("--max-size to stdout: %d %q", code, se)
	}
}

// TestMaxSizeWARC10: the warcinfo record made for a file of WARC/1.0
// records is WARC/1.0 too; a warcinfo record of the input starts its file
// itself.
func TestMaxSizeWARC10(t *testing.T) {
	dir := t.TempDir()
	in, _ := os.ReadFile("../../../testdata/warc/example.warc")
	if _, se, code := runApp(t, in, "--max-size", "1", "-o", filepath.Join(dir, "p.warc"), "-"); code != 0 {
		t.Fatalf("exit %d: %s", code, se)
	}
	want := recordsOf(t, in)
	files, _ := filepath.Glob(filepath.Join(dir, "p-*.warc"))
	if len(files) != len(want) {
		t.Fatalf("%d files for %d records", len(files), len(want))
	}
	for i, f := range files {
		data, _ := os.ReadFile(f)
		recs := recordsOf(t, data)
		if bytes.Contains(want[i][:bytes.Index(want[i], []byte("\r\n\r\n"))], []byte("WARC-Type: warcinfo")) {
			// the input's own warcinfo records (the first two) start their files
			if len(recs) != 1 || !bytes.Equal(recs[0], want[i]) {
				t.Errorf("%s: not the input's warcinfo alone", f)
			}
			continue
		}
		if len(recs) != 2 || !bytes.HasPrefix(recs[0], []byte("WARC/1.0\r\nWARC-Type: warcinfo\r\n")) || !bytes.Equal(recs[1], want[i]) {
			t.Errorf("%s: %d records, first %.60q", f, len(recs), recs[0])
		}
	}
}

// TestRecompressTruncated: a block cut short is an error naming the input
// and the record under --strict, and for a record too large to hold whole
// (compressed as it streams), with nothing left under the output's name;
// otherwise the record is left out, reported, and the run exits 1 with the
// rest written. Bytes that are no record are skipped up to the next one.
func TestRecompressTruncated(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		cl     string
		strict bool
		msg    string
		output bool
	}{
		{"100", true, "-: record at decompressed offset 0: block cut short, 97 bytes missing", false},
		{"100", false, "-: record at decompressed offset 0: block cut short, 97 bytes missing: left out (skipped)", true},
		{"99999999", false, "-: record at decompressed offset 0: block cut short, 99999996 bytes missing", false},
	} {
		in := []byte("WARC/1.1\r\nWARC-Type: resource\r\nContent-Length: " + c.cl + "\r\n\r\nabc")
		out := filepath.Join(dir, "t.warc.gz")
		os.Remove(out)
		args := []string{"-o", out, "-"}
		if c.strict {
			args = append(args, "--strict")
		}
		_, se, code := runApp(t, in, args...)
		if code != 1 || !strings.Contains(se, c.msg) {
			t.Errorf("Content-Length %s strict %v: exit %d, %q", c.cl, c.strict, code, se)
		}
		if _, err := os.Stat(out); (err == nil) != c.output {
			t.Errorf("Content-Length %s strict %v: output written %v, want %v", c.cl, c.strict, err == nil, c.output)
		}
	}
	// garbage between records: skipped, the records around it copied
	rec := "WARC/1.1\r\nWARC-Type: resource\r\nContent-Length: 3\r\n\r\nabc\r\n\r\n"
	out := filepath.Join(dir, "g.warc")
	_, se, code := runApp(t, []byte(rec+"garbage\nmore\n"+rec), "-o", out, "-")
	got, _ := os.ReadFile(out)
	if code != 1 || !strings.Contains(se, "-: at decompressed offset 59: 13 bytes that are no WARC record (starting \"garbage\\nmore\\nWAR\") skipped up to the next record (skipped)") || string(got) != rec+rec {
		t.Errorf("garbage: exit %d, %q, output %q", code, se, got)
	}
}

// TestLevel: --level sets the gzip level of the output members (1 gives
// larger members than 9 on the same records, both read back the same) and
// is refused outside its range or without compression.
func TestLevel(t *testing.T) {
	arcData, err := os.ReadFile("../../../testdata/arc/example.arc")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "in.arc")
	if err := os.WriteFile(in, bytes.Repeat(arcData, 1), 0o644); err != nil {
		t.Fatal(err)
	}
	var plain [2][]byte
	var size [2]int
	for i, level := range []string{"1", "9"} {
		out := filepath.Join(dir, "out"+level+".warc.gz")
		if _, stderr, code := runApp(t, nil, "--deterministic-ids", "--level", level, "-o", out, in); code != 0 {
			t.Fatalf("--level %s: exit %d: %s", level, code, stderr)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		size[i] = len(b)
		c, _ := members(t, b)
		for _, m := range c[1:] { // after the warcinfo (it holds the command line)
			plain[i] = append(plain[i], m...)
		}
	}
	if !bytes.Equal(plain[0], plain[1]) || len(plain[0]) == 0 {
		t.Errorf("--level 1 and 9 give different records")
	}
	if size[0] <= size[1] {
		t.Errorf("--level 1: %d bytes, --level 9: %d", size[0], size[1])
	}
	for _, args := range [][]string{{"--level", "0"}, {"--level", "10"}, {"--compress", "zstd", "--level", "23"}, {"--compress", "none", "--level", "3"}} {
		_, stderr, code := runApp(t, nil, append(args, "-o", filepath.Join(dir, "x.warc"), in)...)
		if code != 2 || !strings.Contains(stderr, "--level") || strings.Count(strings.TrimSpace(stderr), "\n") > 1 {
			t.Errorf("%q: exit %d, %q", args, code, stderr)
		}
	}
}
