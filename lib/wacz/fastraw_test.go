package wacz

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/arcport/arcport/lib/internal/compio"
	"github.com/arcport/arcport/lib/record"
	"github.com/arcport/arcport/lib/warc"
	"github.com/klauspost/compress/gzip"
)

// synthWARC writes n response records (HTML pages and binary bodies of
// growing size) gzip per record with lib/warc's writer.
func synthWARC(t testing.TB, n int, bodySize func(i int) int) []byte {
	t.Helper()
	var b bytes.Buffer
	w := warc.NewWriter(&b, warc.WithCompression(compio.Gzip))
	for i := range n {
		size := bodySize(i)
		var body []byte
		ct := "image/jpeg"
		if i%3 == 0 {
			ct = "text/html; charset=utf-8"
			body = []byte(fmt.Sprintf("<html><head><title>Page %d</title></head><body>%s</body></html>", i, strings.Repeat("text ", size/5)))
		} else {
			body = pseudoRandom(size)
		}
		block := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n", ct, len(body))
		rec := &record.Record{Version: record.WARC11, Header: record.Header{
			{Name: record.FieldType, Value: "response"},
			{Name: record.FieldTargetURI, Value: fmt.Sprintf("http://example.org/%d", i)},
			{Name: record.FieldDate, Value: fmt.Sprintf("2024-01-01T00:%02d:%02dZ", i/60%60, i%60)},
			{Name: record.FieldContentType, Value: "application/http; msgtype=response"},
		}, Block: io.MultiReader(strings.NewReader(block), bytes.NewReader(body))}
		if err := w.WriteRecord(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// gzipMember compresses data as one gzip member with header fields set.
func gzipMember(t testing.TB, data []byte, name string, extra []byte) []byte {
	var b bytes.Buffer
	w, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	w.Name, w.Extra, w.Comment = name, extra, "c"
	w.Write(data)
	w.Close()
	return b.Bytes()
}

// entries reads the files of a WACZ except the manifest (which holds the
// creation time and the hashes of everything).
func entries(t *testing.T, path string) map[string][]byte {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	out := map[string][]byte{}
	for _, f := range zr.File {
		if f.Name == DataPackagePath || f.Name == DataPackageDigestPath {
			continue
		}
		rc, _ := f.Open()
		out[f.Name], _ = io.ReadAll(rc)
		rc.Close()
	}
	return out
}

// TestFastPathSameAsReader packs each input three ways: the fast path,
// the fast path verifying every member, and lib/warc's reader alone. The
// WACZ files must hold the same archive, index and pages.
func TestFastPathSameAsReader(t *testing.T) {
	small := synthWARC(t, 40, func(i int) int { return 10 + i*37 })
	big := synthWARC(t, 12, func(i int) int { return 1000 + i*23000 }) // up to ~250 KB: skipped members
	plain := readTD(t, "example.warc").data
	// members with FNAME, FEXTRA and FCOMMENT, holding one record each
	var odd []byte
	wr, _ := warc.NewReader(bytes.NewReader(plain))
	var recs []*record.Record
	for {
		rec, err := wr.Next()
		if err != nil {
			break
		}
		recs = append(recs, rec)
	}
	for i, rec := range recs {
		chunk := plain[rec.Offset : rec.Offset+rec.DiskLength]
		odd = append(odd, gzipMember(t, chunk, fmt.Sprintf("rec%d.warc", i), []byte{'A', 'B', 2, 0, 'x', 'y'})...)
	}
	// cut small at a member boundary, then a member of many records
	cut := bytes.LastIndex(small[:len(small)/2], []byte{0x1f, 0x8b, 8})
	multi := append(bytes.Clone(small[:cut]), readTD(t, "example-bad-non-chunked.warc.gz").data...)
	multi = append(multi, big...)
	padded := append(append(bytes.Clone(small), make([]byte, 512)...), big...)

	cases := []struct {
		name string
		data []byte
	}{
		{"example.warc.gz", readTD(t, "example.warc.gz").data},
		{"wget.warc.gz", readTD(t, "example-wget-bad-target-uri.warc.gz").data},
		{"post.warc.gz", readTD(t, "post-test.warc.gz").data},
		{"wrong-chunks.warc.gz", readTD(t, "example-wrong-chunks.warc.gz").data},
		{"small.warc.gz", small},
		{"big.warc.gz", big},
		{"odd-headers.warc.gz", odd},
		{"multi.warc.gz", multi},
		{"padded.warc.gz", padded},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := input{c.name, c.data}
			var got []map[string][]byte
			var stats []Stats
			// the fast path in parallel (fastpar.go), then sequential
			defer func(m int64, d bool) { parMinSize, parDisabled = m, d }(parMinSize, parDisabled)
			for i, opts := range []Options{{}, {Verify: true}, {NoFastPath: true}, {}, {Verify: true}, {}, {}} {
				parMinSize, parDisabled = 0, i >= 3 && i != 5
				opts.Frames = i < 5 // the last two: titles only, parallel then sequential
				// wrong-chunks is damaged (a block continues in the next
				// member: waczpack index fails on it): packed with Lenient
				opts.Lenient = c.name == "wrong-chunks.warc.gz"
				path, st, err := buildWACZ(t, opts, in)
				if err != nil {
					t.Fatalf("%+v: %v", opts, err)
				}
				checkCaptures(t, path)
				got = append(got, entries(t, path))
				stats = append(stats, st)
			}
			for i, name := range []string{"verify", "reader", "sequential", "sequential verify", "titles only, parallel"} {
				a, b := got[0], got[i+1]
				if i == 4 {
					a, b = got[6], got[5]
				}
				for k, v := range a {
					if !bytes.Equal(v, b[k]) {
						t.Errorf("%s differs between the fast path and the %s path", k, name)
					}
				}
				if len(a) != len(b) {
					t.Errorf("%d files vs %d with the %s path", len(a), len(b), name)
				}
			}
			if stats[5].Parallel == 0 && stats[0].Parallel != 0 {
				t.Errorf("titles only: nothing in parallel")
			}
			t.Logf("fast path: %d skipped, %d handovers, %d re-encoded, %d parallel", stats[0].Skipped, stats[0].Handovers, stats[0].Reencoded, stats[0].Parallel)
			if stats[3].Parallel != 0 || stats[4].Parallel != 0 {
				t.Errorf("sequential runs: %d, %d parallel", stats[3].Parallel, stats[4].Parallel)
			}
			if stats[0].Records != stats[3].Records || stats[0].Captures != stats[3].Captures || stats[0].Pages != stats[3].Pages {
				t.Errorf("parallel %+v, sequential %+v", stats[0], stats[3])
			}
			switch c.name {
			case "big.warc.gz":
				if stats[0].Parallel != int64(stats[0].Records) || stats[1].Parallel != int64(stats[1].Records) {
					t.Errorf("big: %d and %d of %d records in parallel", stats[0].Parallel, stats[1].Parallel, stats[0].Records)
				}
				if stats[0].Skipped < 5 || stats[0].Handovers != 0 {
					t.Errorf("big records: %d skipped, %d handovers", stats[0].Skipped, stats[0].Handovers)
				}
			case "small.warc.gz", "odd-headers.warc.gz", "example.warc.gz":
				if stats[0].Handovers != 0 {
					t.Errorf("%d handovers", stats[0].Handovers)
				}
			case "padded.warc.gz":
				if stats[0].Handovers != 0 {
					t.Errorf("%d handovers", stats[0].Handovers)
				}
			case "multi.warc.gz", "wrong-chunks.warc.gz":
				if stats[0].Handovers != 1 {
					t.Errorf("%d handovers, want 1", stats[0].Handovers)
				}
			}
		})
	}
}

// TestFastPathDamage: a corrupted member is not copied silently. Inside a
// member the fast path inflates, gzip's CRC catches it; in a member whose
// end is found by its trailer, --verify (or the page worker) does.
func TestFastPathDamage(t *testing.T) {
	data := synthWARC(t, 6, func(i int) int { return 300000 })
	// damage the middle of the third member's deflate data
	starts := []int{}
	for i := 0; ; {
		j := bytes.Index(data[i:], []byte{0x1f, 0x8b, 8, 0})
		if j < 0 {
			break
		}
		starts = append(starts, i+j)
		i += j + 1
	}
	if len(starts) < 4 {
		t.Fatalf("%d members", len(starts))
	}
	bad := bytes.Clone(data)
	mid := (starts[2] + starts[3]) / 2
	bad[mid] ^= 0xff
	_, _, err := buildWACZ(t, Options{Verify: true}, input{"bad.warc.gz", bad})
	if err == nil || !strings.Contains(err.Error(), "bad.warc.gz") {
		t.Errorf("verify: damaged member: err %v", err)
	}
}

// TestCreateZstd: a .warc.zst input (one zstd frame per record) is read
// through lib/warc and written gzip per record; every record is kept.
func TestCreateZstd(t *testing.T) {
	_, zst := exampleZstd(t)
	in := input{"example.warc.zst", zst}
	path, st, err := buildWACZ(t, Options{}, in)
	if err != nil {
		t.Fatal(err)
	}
	if st.Reencoded != st.Records || st.Records != 6 {
		t.Errorf("stats %+v", st)
	}
	sameRecords(t, "archive/", archiveRecords(t, path), inputRecords(t, in))
	if n := checkCaptures(t, path); n != 2 {
		t.Errorf("%d captures", n)
	}
}

// exampleZstd returns the example.warc.gz sample and the same records
// written as a .warc.zst (one zstd frame per record).
func exampleZstd(t *testing.T) (input, []byte) {
	t.Helper()
	gz := readTD(t, "example.warc.gz")
	wr, err := warc.NewReader(bytes.NewReader(gz.data))
	if err != nil {
		t.Fatal(err)
	}
	var zst bytes.Buffer
	w := warc.NewWriter(&zst, warc.WithCompression(compio.Zstd), warc.WithVersion(record.WARC10))
	for {
		rec, err := wr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := w.WriteRecord(rec); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	return gz, zst.Bytes()
}

// TestFastPathTrailerDamage: a record not followed by CRLF CRLF inside its
// gzip member is damage (waczpack index fails on it): the fast path fails
// with the very error lib/warc's reader gives (the NoFastPath run), for
// small members (inflated to their end), for members whose rest is
// inflated, and for large ones whose end the ISIZE field would give (such
// a member is handed over to lib/warc's reader unless ISIZE counts the 4
// bytes of CRLF CRLF; which 4 bytes they are is checked by inflating them:
// Verify). With Lenient both go on, report the same problem once through
// Damage, count it, and write the same WACZ. Before, the fast path warned
// ("N line-end bytes after it") and create exited 0.
func TestFastPathTrailerDamage(t *testing.T) {
	rec := func(i, size int, tail string) []byte {
		body := string(pseudoRandom(size))
		return []byte(fmt.Sprintf("WARC/1.1\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-%012d>\r\nWARC-Target-URI: http://a.test/%d\r\nWARC-Date: 2020-01-01T00:00:00Z\r\nContent-Type: application/octet-stream\r\nContent-Length: %d\r\n\r\n%s%s", i, i, len(body), body, tail))
	}
	for _, size := range []int{100, 6 << 10, 300 << 10} {
		for _, tail := range []string{"", "\r\n", "\n\n\n\n", "\r\n\r\n"} {
			t.Run(fmt.Sprintf("%d/%q", size, tail), func(t *testing.T) {
				var data []byte
				var off int
				for i := range 3 {
					tl := "\r\n\r\n"
					if i == 1 {
						off, tl = len(data), tail
					}
					data = append(data, gzipMember(t, rec(i, size, tl), "", nil)...)
				}
				want := ""
				if tail != "\r\n\r\n" {
					want = fmt.Sprintf("in.warc.gz: record at offset %d: record not followed by CRLF CRLF (found %q)", off, tail)
				}
				fast := Options{}
				if tail == "\n\n\n\n" {
					// four bytes, as ISIZE says: which ones is only seen
					// by inflating them, as the CRC is (--verify)
					fast.Verify = true
				}
				for k, opts := range []Options{fast, {NoFastPath: true}} {
					name := []string{"fast path", "reader"}[k]
					_, _, err := buildWACZ(t, opts, input{"in.warc.gz", data})
					if got := fmt.Sprint(err); want == "" && err != nil || want != "" && got != want {
						t.Errorf("%s: error %v, want %q", name, err, want)
					}
				}
				var damage [2][]string
				var entriesOf [2]map[string][]byte
				for k, opts := range []Options{fast, {NoFastPath: true}} {
					opts.Lenient = true
					opts.Warn = func(s string) { t.Errorf("warning %q", s) }
					opts.Damage = func(err error) { damage[k] = append(damage[k], err.Error()) }
					path, st, err := buildWACZ(t, opts, input{"in.warc.gz", data})
					if err != nil {
						t.Fatal(err)
					}
					if st.Damaged != len(damage[k]) {
						t.Errorf("Stats.Damaged %d, %d reported", st.Damaged, len(damage[k]))
					}
					entriesOf[k] = entries(t, path)
				}
				for k, name := range []string{"fast path", "reader"} {
					if want == "" && len(damage[k]) != 0 || want != "" && (len(damage[k]) != 1 || damage[k][0] != want) {
						t.Errorf("%s, lenient: damage %q, want %q", name, damage[k], want)
					}
				}
				for n, v := range entriesOf[0] {
					if !bytes.Equal(v, entriesOf[1][n]) {
						t.Errorf("%s differs between the fast path and the reader", n)
					}
				}
			})
		}
	}
}

// TestTitlesOnlyDeterministic: without Frames or Text a page is read up to
// its </title>, and what lies after it in the same piece of input must not
// count: an <iframe> declared after the title (its target stays a page) and
// a Windows-1252 byte after it (the UTF-8 title stays as written). The
// parallel fast path (4 KiB pieces), the sequential one (1 KiB steps) and
// the reader path agree.
func TestTitlesOnlyDeterministic(t *testing.T) {
	var b bytes.Buffer
	w := warc.NewWriter(&b, warc.WithCompression(compio.Gzip))
	page := func(i int, body string) {
		block := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
		rec := &record.Record{Version: record.WARC11, Header: record.Header{
			{Name: record.FieldType, Value: "response"},
			{Name: record.FieldTargetURI, Value: fmt.Sprintf("http://example.org/%d", i)},
			{Name: record.FieldDate, Value: fmt.Sprintf("2024-01-01T00:00:%02dZ", i)},
			{Name: record.FieldContentType, Value: "application/http; msgtype=response"},
		}, Block: strings.NewReader(block)}
		if err := w.WriteRecord(rec); err != nil {
			t.Fatal(err)
		}
	}
	pad := strings.Repeat("<p>filler text</p>\n", 100) // about 2 KiB
	page(0, "<html><head><title>Caf\u00e9 one</title></head><body>"+pad[:1500]+"<iframe src=\"http://example.org/1\"></iframe>"+pad+"</body></html>")
	page(1, "<html><head><title>Framed</title></head><body>"+pad+"</body></html>")
	page(2, "<html><head><title>Caf\u00e9 two</title></head><body>"+pad[:1500]+"caf\xe9"+pad+"</body></html>")
	for i := 3; i < 40; i++ { // enough members for the parallel path
		page(i, fmt.Sprintf("<html><head><title>Page %d</title></head><body>%s</body></html>", i, pad))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	in := input{"titles.warc.gz", b.Bytes()}
	defer func(m int64, d bool) { parMinSize, parDisabled = m, d }(parMinSize, parDisabled)
	var pages []string
	for _, c := range []struct {
		name        string
		min         int64
		off, noFast bool
	}{{"parallel", 0, false, false}, {"sequential", 0, true, false}, {"reader", 0, false, true}} {
		parMinSize, parDisabled = c.min, c.off
		path, st, err := buildWACZ(t, Options{NoFastPath: c.noFast}, in)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if c.name == "parallel" && st.Parallel == 0 {
			t.Fatalf("parallel: nothing in parallel")
		}
		pages = append(pages, string(entries(t, path)[PagesPath]))
		p := pages[len(pages)-1]
		for _, want := range []string{`"title":"Café one"`, `"title":"Café two"`, `"url":"http://example.org/1"`} {
			if !strings.Contains(p, want) {
				t.Errorf("%s: pages.jsonl lacks %s:\n%.600s", c.name, want, p)
			}
		}
	}
	if pages[0] != pages[1] || pages[0] != pages[2] {
		t.Errorf("pages differ:\nparallel:\n%.500s\nsequential:\n%.500s\nreader:\n%.500s", pages[0], pages[1], pages[2])
	}
}
