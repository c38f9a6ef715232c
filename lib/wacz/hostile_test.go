package wacz

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"
)

// Regression tests for defects found by e2e/hostile (each named after the
// TestKnown* test there).

// hostileInfo is a warcinfo record (the start of the hostile inputs).
const hostileInfo = "WARC/1.1\r\nWARC-Type: warcinfo\r\nWARC-Record-ID: <urn:uuid:6f1a5bd2-7a4b-4f30-9a49-000000000011>\r\n" +
	"WARC-Date: 2020-01-01T00:00:00Z\r\nContent-Type: application/warc-fields\r\nContent-Length: 17\r\n\r\nsoftware: hostile\r\n\r\n"

// TestCreateGzHugeLine (TestKnownCreateGzHugeLine): one gzip member holding
// a warcinfo record and then a header line of 64 MiB. The fast path once
// inflated the whole member into memory to check that nothing but line
// ends followed the first record; now it stops a few bytes past the record
// and hands the member over to lib/warc, which refuses the header at
// MaxHeaderSize. The bytes allocated stay far below the line's size.
func TestCreateGzHugeLine(t *testing.T) {
	const line = 64 << 20
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestSpeed)
	zw.Write([]byte(hostileInfo + "WARC/1.1\r\nWARC-Type: resource\r\nX-Long: "))
	chunk := bytes.Repeat([]byte("a"), 1<<20)
	for range line >> 20 {
		zw.Write(chunk)
	}
	zw.Close()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, _, err := buildWACZ(t, Options{}, input{"huge-line.warc.gz", b.Bytes()})
	runtime.ReadMemStats(&after)
	want := "huge-line.warc.gz: record at offset 0: WARC header larger than"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("err %v, want %q", err, want)
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("%d MiB allocated", alloc>>20)
	if alloc > line/2 {
		t.Errorf("%d MiB allocated for a %d MiB header line", alloc>>20, line>>20)
	}
}

// responseRecord is a plain WARC response record for uri holding an HTTP
// response with the given head fields and body.
func responseRecord(uri, head string, body []byte) string {
	blk := "HTTP/1.1 200 OK\r\n" + head + "\r\n" + string(body)
	return fmt.Sprintf("WARC/1.1\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:6f1a5bd2-7a4b-4f30-9a49-%012x>\r\n"+
		"WARC-Date: 2020-01-01T00:00:00Z\r\nWARC-Target-URI: %s\r\nContent-Type: application/http; msgtype=response\r\n"+
		"Content-Length: %d\r\n\r\n%s\r\n\r\n", len(uri), uri, len(blk), blk)
}

// pagesLines returns the lines of pages/pages.jsonl.
func pagesLines(t *testing.T, path string) []string {
	t.Helper()
	b := entries(t, path)[PagesPath]
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// TestCreateTextBomb (TestKnownTextLine): create --text on a page whose
// gzip content coding inflates to 256 MiB of NULs. The text kept is what a
// reader sees (control characters are not text; they once made a 1.5 MB
// pages.jsonl line of "\u0000" escapes), the inflation stops at
// textScanLimit, and the WACZ validates.
func TestCreateTextBomb(t *testing.T) {
	var body bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&body, gzip.BestSpeed)
	zw.Write([]byte("<html><head><title>bo\x00mb\x7f</title></head><body><p>hello\x01\x02 world"))
	zeros := make([]byte, 1<<20)
	for range 256 {
		zw.Write(zeros)
	}
	zw.Write([]byte("never reached</p></body></html>"))
	zw.Close()
	warcText := hostileInfo + responseRecord("http://a.test/page", "Content-Type: text/html\r\nContent-Encoding: gzip\r\n", body.Bytes())
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	path, st, err := buildWACZ(t, Options{Text: true}, input{"bomb.warc", []byte(warcText)})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 128<<20 && !raceEnabled {
		t.Errorf("%d MiB allocated for a page inflating to 256 MiB", alloc>>20)
	}
	if st.Pages != 1 {
		t.Fatalf("%d pages", st.Pages)
	}
	lines := pagesLines(t, path)
	want := `{"id":"` + PageID("2020-01-01T00:00:00Z", "http://a.test/page") + `","url":"http://a.test/page","ts":"2020-01-01T00:00:00Z","title":"bo` + "\ufffd" + `mb","text":"hello world"}`
	if len(lines) != 2 || lines[1] != want {
		t.Errorf("pages.jsonl:\n%s\nwant line 2:\n%s", strings.Join(lines, "\n"), want)
	}
	r, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if probs := r.Validate(); len(probs) > 0 {
		t.Errorf("Validate: %v", probs)
	}
}

// TestValidateLongPagesLine (TestKnownTextLine): a pages.jsonl line longer
// than the index line bound (MaxIndexLine), here a --pages entry carrying 3
// MiB of text, is written by create and accepted by Validate and Pages.
func TestValidateLongPagesLine(t *testing.T) {
	text := strings.Repeat(`quote " and back\slash `, (3<<20)/23)
	in := readTD(t, "example.warc.gz")
	path, _, err := buildWACZ(t, Options{PageList: []PageRequest{{URL: "http://example.com/", Text: text}}}, in)
	if err != nil {
		t.Fatal(err)
	}
	lines := pagesLines(t, path)
	if len(lines) != 2 || len(lines[1]) <= MaxIndexLine {
		t.Fatalf("%d lines, the page's of %d bytes", len(lines), len(lines[len(lines)-1]))
	}
	r, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if probs := r.Validate(); len(probs) > 0 {
		t.Errorf("Validate: %v", probs)
	}
	_, pages, err := r.Pages()
	if err != nil || len(pages) != 1 || pages[0].Text != text {
		t.Errorf("Pages: %d pages, err %v", len(pages), err)
	}
}

// TestCreateBadFields (TestKnownCreateBareCR): a header field name holding
// a bare CR is damage lib/warc's reader repairs and reports, as waczpack
// index does: create fails with the file and the record's offset, and
// with Lenient goes on, reports it once through Damage (counted in
// Stats.Damaged) and packs and indexes the record. A record without
// WARC-Type fails create likewise, also after the fast path handed a
// .warc.gz over to lib/warc inside a member holding two records. (Before,
// the repaired field was a warning and create exited 0 while waczpack
// index exited 1 on the same file.)
func TestCreateBadFields(t *testing.T) {
	bareCR := strings.Replace(responseRecord("http://a.test/", "Content-Type: text/plain\r\n", []byte("hello")), "WARC-Target-URI", "WARC-Target\rURI", 1)
	noType := strings.Replace(responseRecord("http://b.test/", "Content-Type: text/plain\r\n", []byte("hello")), "WARC-Type: response\r\n", "", 1)
	good := responseRecord("http://a.test/", "Content-Type: text/plain\r\n", []byte("hello"))
	at := len(hostileInfo)
	gzMember := func(s string) []byte {
		var b bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&b, gzip.BestSpeed)
		zw.Write([]byte(s))
		zw.Close()
		return b.Bytes()
	}
	first := gzMember(hostileInfo)
	cases := []struct {
		name, data string
		err        string
	}{
		{"bare-cr.warc", hostileInfo + bareCR,
			fmt.Sprintf(`bare-cr.warc: record at offset %d: bad field name "WARC-Target\rURI": read as "WARC-Target-URI"`, at)},
		{"bare-cr.warc.gz", string(first) + string(gzMember(bareCR)),
			fmt.Sprintf(`bare-cr.warc.gz: record at offset %d: bad field name "WARC-Target\rURI": read as "WARC-Target-URI"`, len(first))},
		{"no-type.warc", hostileInfo + good + noType, fmt.Sprintf("no-type.warc: record at offset %d: missing WARC-Type", at+len(good))},
		{"no-type.warc.gz", string(first) + string(gzMember(good+noType)),
			fmt.Sprintf("no-type.warc.gz: record at offset %d: missing WARC-Type", len(first))},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := buildWACZ(t, Options{Warn: func(s string) { t.Errorf("warning %q", s) }}, input{c.name, []byte(c.data)})
			if err == nil || err.Error() != c.err {
				t.Errorf("err %v, want %s", err, c.err)
			}
			if strings.HasPrefix(c.name, "no-type") {
				return // a record without a type cannot be packed, even leniently
			}
			var damage []string
			path, st, err := buildWACZ(t, Options{Lenient: true, Damage: func(err error) { damage = append(damage, err.Error()) }},
				input{c.name, []byte(c.data)})
			if err != nil {
				t.Fatal(err)
			}
			if len(damage) != 1 || damage[0] != c.err || st.Damaged != 1 {
				t.Errorf("lenient: damage %q (Stats.Damaged %d), want %q", damage, st.Damaged, c.err)
			}
			if st.Captures < 1 {
				t.Errorf("%d captures", st.Captures)
			}
			r, err := OpenFile(path)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			cp, err := r.Find("http://a.test/", time.Time{})
			if err != nil {
				t.Fatalf("Find: %v", err)
			}
			if strings.HasSuffix(c.name, ".gz") {
				return // the member is copied as it is, bare CR included
			}
			rec, err := r.Record(cp)
			if err != nil || rec.Header.Get("WARC-Target-URI") != "http://a.test/" {
				t.Errorf("Record: %v", err)
			}
		})
	}
}

// TestCreateNoCaptures (TestKnownCreateNoCaptures): a WARC holding only its
// warcinfo record packs into a WACZ whose index is empty but valid: the
// .cdx.gz is one empty gzip member (it was 0 bytes, which is not gzip and
// which Validate rejected) and the .idx has its !meta line and no blocks
// (ReplayWeb.page reads a .cdx.gz only through the blocks of its .idx).
// create warns that there is nothing to index.
func TestCreateNoCaptures(t *testing.T) {
	in := readTD(t, "example.warc.gz")
	in.data = in.data[:784] // its two warcinfo records
	var warnings []string
	path, st, err := buildWACZ(t, Options{Warn: func(s string) { warnings = append(warnings, s) }}, in)
	if err != nil {
		t.Fatal(err)
	}
	want := "warning: example.warc.gz: no records to index: the WACZ's index is empty"
	if len(warnings) != 1 || warnings[0] != want || st.Captures != 0 || st.Records != 2 {
		t.Errorf("warnings %q, stats %+v", warnings, st)
	}
	files := entries(t, path)
	if got, want := string(files["indexes/index.idx"]), `!meta 0 {"format": "cdxj-gzip-1.0", "filename": "index.cdx.gz"}`+"\n"; got != want {
		t.Errorf("index.idx %q, want %q", got, want)
	}
	zr, err := gzip.NewReader(bytes.NewReader(files["indexes/index.cdx.gz"]))
	if err != nil {
		t.Fatalf("index.cdx.gz: %v", err)
	}
	if b, err := io.ReadAll(zr); err != nil || len(b) != 0 {
		t.Errorf("index.cdx.gz: %q, %v", b, err)
	}
	r, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if probs := r.Validate(); len(probs) > 0 {
		t.Errorf("Validate: %v", probs)
	}
	if _, err := r.Find("http://example.com/", time.Time{}); !errors.Is(err, ErrNotFound) {
		t.Errorf("Find: %v", err)
	}
}

// firstOffset returns the first "offset N" of s, or -1.
func firstOffset(s string) int64 {
	m := offsetRE.FindStringSubmatch(s)
	if m == nil {
		return -1
	}
	n, _ := strconv.ParseInt(m[1], 10, 64)
	return n
}

var offsetRE = regexp.MustCompile(`offset (\d+)`)

// indexErr runs NewFileIndexer over data to its end and returns its error.
func indexErr(name string, data []byte) error {
	ix, err := NewFileIndexer(bytes.NewReader(data), bytes.NewReader(data), name)
	if err != nil {
		return err
	}
	for {
		if _, err := ix.Next(); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
	}
}

// TestCreateOffsetsAsIndex (TestKnownCreateGzOffset): example.warc.gz and
// its .warc.zst (a frame per record), cut short or with a bit flipped:
// where index fails, the first problem create reports (its error, or a
// warning when it repairs) gives the offset index gives, the start of the
// damaged record's member or frame (create once said "offset 0" for a
// .warc.gz and an offset inside the frame for a .warc.zst).
func TestCreateOffsetsAsIndex(t *testing.T) {
	gz, zst := exampleZstd(t)
	for _, in := range []input{gz, {"example.warc.zst", zst}} {
		var damaged []input
		for n := 1; n < len(in.data); n += 97 {
			damaged = append(damaged, input{fmt.Sprintf("cut %d", n), in.data[:n]})
		}
		for off := 0; off < len(in.data); off += 29 {
			b := bytes.Clone(in.data)
			b[off] ^= 1 << (off % 8)
			damaged = append(damaged, input{fmt.Sprintf("bit %d of byte %d", off%8, off), b})
		}
		checked := 0
		for _, d := range damaged {
			ierr := indexErr(in.name, d.data)
			if ierr == nil {
				continue
			}
			if strings.Contains(ierr.Error(), "data after the last gzip member") {
				// index (lib/warc under Fail) reports where a member whose
				// deflate data a flipped bit ends early stops, before its
				// CRC error: not a record's offset (create names the member)
				continue
			}
			want := firstOffset(ierr.Error())
			var first string
			_, _, cerr := buildWACZ(t, Options{Warn: func(s string) {
				if first == "" {
					first = s
				}
			}}, input{in.name, d.data})
			if first == "" && cerr != nil {
				first = cerr.Error()
			}
			if first == "" {
				continue // create took it (a CRC error index sees, create does not read)
			}
			checked++
			if got := firstOffset(first); got != want || !strings.Contains(first, in.name) {
				t.Errorf("%s, %s:\n  index:  %v\n  create: %s", in.name, d.name, ierr, first)
			}
		}
		if checked < len(damaged)/4 {
			t.Errorf("%s: only %d of %d damaged inputs compared", in.name, checked, len(damaged))
		}
	}
}

// flipInEntry flips one bit of the data of a STORED entry of the zip at
// path, off bytes into the entry, and returns the new file's path.
func flipInEntry(t *testing.T, path, entry string, off int64) string {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	for _, f := range zr.File {
		if f.Name != entry {
			continue
		}
		start, err := f.DataOffset()
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		b[start+off] ^= 0x10
		out := filepath.Join(t.TempDir(), "damaged.wacz")
		if err := os.WriteFile(out, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return out
	}
	t.Fatalf("no %s in %s", entry, path)
	return ""
}

// TestRecordErrors: Reader.Record names the WACZ, the WARC in it and the
// record's offset in the WARC, in its own errors and in those of the
// block's reads (which used to name the WARC alone, at "offset 0"), and
// checks the gzip trailer at the block's end (a flipped bit in the body of
// a capture was returned as the capture).
func TestRecordErrors(t *testing.T) {
	in := readTD(t, "example.warc.gz")
	path, _, err := buildWACZ(t, Options{}, in)
	if err != nil {
		t.Fatal(err)
	}
	ts := time.Date(2017, 3, 6, 4, 2, 6, 0, time.UTC)
	read := func(p string) ([]byte, error) {
		r, err := OpenFile(p)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		cp, err := r.Find("http://example.com/", ts)
		if err != nil || cp.Offset != 784 {
			t.Fatalf("Find: %+v %v", cp, err)
		}
		rec, err := r.Record(cp)
		if err != nil {
			return nil, err
		}
		return io.ReadAll(rec.Block)
	}
	good, err := read(path)
	if err != nil || len(good) != 975 || !bytes.HasPrefix(good, []byte("HTTP/1.1 200 OK\r\n")) {
		t.Fatalf("undamaged: %d bytes, %v", len(good), err)
	}
	for _, c := range []struct {
		off  int64 // in the WARC
		want string
	}{
		{784 + 3, "record at offset 784: "},   // the member's header: Next fails
		{784 + 400, "record at offset 784: "}, // its deflate data: the CRC at the block's end
	} {
		_, err := read(flipInEntry(t, path, "archive/example.warc.gz", c.off))
		want := "damaged.wacz: archive/example.warc.gz: " + c.want
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("bit flipped at %d: err %v, want %q", c.off, err, want)
		}
	}
}

// TestValidateUnsafeNames: zip entry names and resource paths that could
// leave the directory a tool unpacks into are flagged, backslash forms
// included (`..\x` was taken for a plain name).
func TestValidateUnsafeNames(t *testing.T) {
	good, err := os.ReadFile(goodWACZ(t))
	if err != nil {
		t.Fatal(err)
	}
	// withEntry copies the good WACZ and adds an entry named name, listing
	// it in datapackage.json under that path when listed is set.
	withEntry := func(name string, listed bool) string {
		zr, _ := zip.NewReader(bytes.NewReader(good), int64(len(good)))
		out := filepath.Join(t.TempDir(), "names.wacz")
		f, _ := os.Create(out)
		defer f.Close()
		zw := zip.NewWriter(f)
		for _, e := range zr.File {
			if e.Name != DataPackagePath || !listed {
				zw.Copy(e)
				continue
			}
			rc, _ := e.Open()
			raw, _ := io.ReadAll(rc)
			rc.Close()
			var dp DataPackage
			if err := json.Unmarshal(raw, &dp); err != nil {
				t.Fatal(err)
			}
			dp.Resources = append(dp.Resources, Resource{Name: "x", Path: name, Hash: "sha256:2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881", Bytes: 1})
			raw, _ = dp.Marshal()
			w, _ := zw.Create(DataPackagePath)
			w.Write(raw)
		}
		w, _ := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store})
		w.Write([]byte("x"))
		zw.Close()
		return out
	}
	for _, c := range []struct{ name, why string }{
		{`..\x`, `a ".." element`},
		{`archive\..\..\x`, `a ".." element`},
		{`\abs\x`, "absolute"},
		{"C:/x", "drive letter"},
		{`c:\x`, "drive letter"},
		{"../x", `a ".." element`},
		{"archive/../../x", `a ".." element`},
		{"/abs/x", "absolute"},
		{`archive\x.warc.gz`, "a backslash"},
		{"extra/..x/ok", ""},
		{"x..", ""},
	} {
		probs := validateFile(t, withEntry(c.name, false))
		unsafe := hasProblem(probs, c.name, `^unsafe entry name \(`+regexp.QuoteMeta(c.why)+`\)$`)
		if unsafe != (c.why != "") || c.why == "" && len(probs) != 1 { // "not listed in datapackage.json"
			t.Errorf("entry %q: problems %v, want unsafe (%s): %v", c.name, probs, c.why, c.why != "")
		}
		probs = validateFile(t, withEntry(c.name, true))
		unsafe = hasProblem(probs, DataPackagePath, `unsafe path "`+regexp.QuoteMeta(strings.ReplaceAll(c.name, `\`, `\\`))+`" \(`+regexp.QuoteMeta(c.why)+`\)$`)
		if unsafe != (c.why != "") {
			t.Errorf("resource %q: problems %v, want unsafe (%s): %v", c.name, probs, c.why, c.why != "")
		}
	}
}
