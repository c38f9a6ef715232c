package wacz

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/arcport/arcport/lib/arc"
	"github.com/arcport/arcport/lib/internal/samples"
	"github.com/arcport/arcport/lib/record"
	"github.com/arcport/arcport/lib/warc"
	"github.com/klauspost/compress/gzip"
	"gopkg.in/yaml.v3"
)

type input struct {
	name string
	data []byte
}

func readTD(t testing.TB, name string) input {
	t.Helper()
	b, err := os.ReadFile(samples.Path(name))
	if err != nil {
		t.Fatal(err)
	}
	return input{name, b}
}

func buildWACZ(t testing.TB, opts Options, inputs ...input) (string, Stats, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "out.wacz")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if opts.Created.IsZero() {
		opts.Created = time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	}
	opts.TempDir = t.TempDir()
	w, err := NewWriter(f, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range inputs {
		if err := w.AddInput(in.name, bytes.NewReader(in.data)); err != nil {
			w.Close()
			return path, w.Stats(), err
		}
	}
	err = w.Close()
	return path, w.Stats(), err
}

// recordDigest identifies a record by its WARC-Record-ID (or type+URI+date)
// and the sha256 of its block.
type recordDigest struct{ id, block string }

func digestRecords(t testing.TB, rd record.Reader) []recordDigest {
	t.Helper()
	var out []recordDigest
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.New()
		if rec.Block != nil {
			if _, err := io.Copy(h, rec.Block); err != nil {
				t.Fatal(err)
			}
		}
		id := rec.ID()
		if id == "" {
			id = string(rec.Type()) + " " + rec.TargetURI() + " " + rec.Header.Get(record.FieldDate)
		}
		out = append(out, recordDigest{id, hex.EncodeToString(h.Sum(nil))})
	}
	return out
}

// inputRecords reads the records of an input as waczpack should keep them.
func inputRecords(t testing.TB, in input) []recordDigest {
	t.Helper()
	br := bytes.NewReader(in.data)
	if strings.Contains(in.name, ".arc") {
		ar, err := arc.NewReader(br, arc.WithPolicy(record.Ignore))
		if err != nil {
			t.Fatal(err)
		}
		return digestRecords(t, arc.NewConverter(ar, arc.WithSourceName(in.name), arc.WithSoftware("arcport waczpack")))
	}
	wr, err := warc.NewReader(br, warc.WithPolicy(record.Ignore))
	if err != nil {
		t.Fatal(err)
	}
	return digestRecords(t, wr)
}

// archiveRecords reads every record of every archive/ WARC in the WACZ,
// checking that each gzip member holds exactly one record.
func archiveRecords(t testing.TB, path string) []recordDigest {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var out []recordDigest
	for _, f := range zr.File {
		if !strings.HasPrefix(f.Name, ArchiveDir) {
			continue
		}
		rc, _ := f.Open()
		var problems []string
		wr, err := warc.NewReader(rc, warc.WithProblemFunc(func(p *record.Problem) { problems = append(problems, p.Error()) }))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, digestRecords(t, wr)...)
		rc.Close()
		if len(problems) > 0 {
			t.Errorf("%s: %v", f.Name, problems)
		}
	}
	return out
}

func sameRecords(t *testing.T, what string, got, want []recordDigest) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d records, want %d", what, len(got), len(want))
		return
	}
	for i := range got {
		// the ARC converter makes fresh record IDs: compare blocks only then
		if got[i].block != want[i].block {
			t.Errorf("%s: record %d (%s) block differs", what, i, want[i].id)
		}
	}
}

// checkCaptures resolves every index line with a ranged read and checks it
// lands on a record of that URL and time.
func checkCaptures(t *testing.T, path string) int {
	t.Helper()
	r, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if probs := r.Validate(); len(probs) > 0 {
		t.Errorf("Validate: %v", probs)
	}
	n := 0
	err = r.Captures(func(c *Capture) error {
		n++
		rec, err := r.Record(c)
		if err != nil {
			return err
		}
		if rec.TargetURI() != c.URL {
			t.Errorf("capture %s at %s:%d: record is %s", c.URL, c.Filename, c.Offset, rec.TargetURI())
		}
		d, _ := rec.Date()
		if record.Timestamp14(d) != c.Timestamp {
			t.Errorf("capture %s: record date %s, index %s", c.URL, record.Timestamp14(d), c.Timestamp)
		}
		// the member holds this record and nothing else
		f := r.File(ArchiveDir + c.Filename)
		off, _ := f.DataOffset()
		gz, err := gzip.NewReader(io.NewSectionReader(r.ra, off+c.Offset, c.Length))
		if err != nil {
			return err
		}
		b, err := io.ReadAll(gz)
		if err != nil {
			return fmt.Errorf("%s:%d: %v", c.Filename, c.Offset, err)
		}
		if bytes.Count(b, []byte("\r\nWARC-Type:")) != 1 && bytes.Count(b, []byte("\nWARC-Type:")) != 1 {
			t.Errorf("%s:%d+%d holds %d records", c.Filename, c.Offset, c.Length, bytes.Count(b, []byte("WARC-Type:")))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestCreate(t *testing.T) {
	cases := []struct {
		inputs    []string
		raw       bool // every input gzip per record: copied byte for byte
		captures  int
		reencoded int
		pages     []string
	}{
		{[]string{"example.warc.gz"}, true, 2, 0, []string{"http://example.com/"}},
		{[]string{"example-resource.warc.gz"}, true, 1, 0, []string{"http://example.com/"}},
		{[]string{"example-wget-bad-target-uri.warc.gz"}, true, 3, 0, []string{"http://example.com/"}},
		{[]string{"post-test.warc.gz"}, true, 3, 0, nil},
		{[]string{"example-space-in-target-uri.warc.gz"}, true, 0, 0, nil},
		{[]string{"example-bad-non-chunked.warc.gz"}, false, 2, 6, []string{"http://example.com/"}},
		{[]string{"example.warc"}, false, 2, 6, []string{"http://example.com/"}},
		{[]string{"example-iana.org-chunked.warc"}, false, 1, 3, []string{"http://www.iana.org/"}},
		{[]string{"example.arc"}, false, 1, 3, []string{"http://example.com/"}},
		{[]string{"example.arc.gz"}, false, 1, 3, []string{"http://example.com/"}},
		{[]string{"example.warc.gz", "example.arc.gz", "example-resource.warc.gz"}, false, 4, 3, []string{"http://example.com/"}},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.inputs, "+"), func(t *testing.T) {
			var ins []input
			for _, n := range c.inputs {
				ins = append(ins, readTD(t, n))
			}
			path, st, err := buildWACZ(t, Options{}, ins...)
			if err != nil {
				t.Fatal(err)
			}
			if st.Reencoded != c.reencoded {
				t.Errorf("%d records compressed again, want %d", st.Reencoded, c.reencoded)
			}
			var want []recordDigest
			for _, in := range ins {
				want = append(want, inputRecords(t, in)...)
			}
			sameRecords(t, "archive/", archiveRecords(t, path), want)
			if c.raw {
				zr, _ := zip.OpenReader(path)
				for i, f := range zr.File[:len(ins)] {
					rc, _ := f.Open()
					b, _ := io.ReadAll(rc)
					rc.Close()
					if !bytes.Equal(b, ins[i].data) {
						t.Errorf("%s is not a byte copy of %s", f.Name, ins[i].name)
					}
				}
				zr.Close()
			}
			if n := checkCaptures(t, path); n < c.captures {
				t.Errorf("%d captures, want at least %d", n, c.captures)
			}
			r, _ := OpenFile(path)
			defer r.Close()
			_, pages, err := r.Pages()
			if err != nil {
				t.Fatal(err)
			}
			var urls []string
			for _, p := range pages {
				urls = append(urls, p.URL)
			}
			if strings.Join(urls, " ") != strings.Join(c.pages, " ") {
				t.Errorf("pages %v, want %v", urls, c.pages)
			}
		})
	}
}

// TestCreateMixedMembers feeds one stream whose first part is gzip per
// record and whose second part is one gzip member for many records: the
// first part is copied as is, the rest compressed again, and no record is
// lost or changed.
func TestCreateMixedMembers(t *testing.T) {
	a, b := readTD(t, "example.warc.gz"), readTD(t, "example-bad-non-chunked.warc.gz")
	mixed := input{"mixed.warc.gz", append(append([]byte{}, a.data...), b.data...)}
	path, st, err := buildWACZ(t, Options{}, mixed)
	if err != nil {
		t.Fatal(err)
	}
	if st.Reencoded != 6 || st.CopiedRaw == 0 {
		t.Errorf("reencoded %d, copied %d bytes raw: want 6 and the first file", st.Reencoded, st.CopiedRaw)
	}
	sameRecords(t, "archive/", archiveRecords(t, path), inputRecords(t, mixed))
	if n := checkCaptures(t, path); n != 4 {
		t.Errorf("%d captures, want 4", n)
	}
	// the raw part is a byte prefix of the input
	zr, _ := zip.OpenReader(path)
	defer zr.Close()
	rc, _ := zr.File[0].Open()
	got, _ := io.ReadAll(rc)
	if !bytes.HasPrefix(got, a.data) {
		t.Error("first file's members were not copied as they are")
	}
}

func TestCreateSplit(t *testing.T) {
	a, b, c := readTD(t, "example.warc.gz"), readTD(t, "example-bad-non-chunked.warc.gz"), readTD(t, "example.arc.gz")
	mixed := input{"mixed.warc.gz", append(append([]byte{}, a.data...), b.data...)}
	for _, split := range []int64{1, 1500, 4000, 1 << 20} {
		t.Run(fmt.Sprint(split), func(t *testing.T) {
			path, _, err := buildWACZ(t, Options{Split: split}, mixed, c)
			if err != nil {
				t.Fatal(err)
			}
			want := append(inputRecords(t, mixed), inputRecords(t, c)...)
			sameRecords(t, "archive/", archiveRecords(t, path), want)
			checkCaptures(t, path)
			zr, _ := zip.OpenReader(path)
			defer zr.Close()
			parts := 0
			for _, f := range zr.File {
				if !strings.HasPrefix(f.Name, ArchiveDir) {
					continue
				}
				parts++
				rc, _ := f.Open()
				recs := 0
				wr, _ := warc.NewReader(rc)
				for {
					if _, err := wr.Next(); err != nil {
						break
					}
					recs++
				}
				rc.Close()
				if int64(f.UncompressedSize64) > split && recs > 1 {
					t.Errorf("%s: %d bytes > %d with %d records", f.Name, f.UncompressedSize64, split, recs)
				}
			}
			if split == 1 && parts != len(want) {
				t.Errorf("split 1: %d parts for %d records", parts, len(want))
			}
			if split == 1<<20 && parts != 2 {
				t.Errorf("split 1M: %d parts, want 2", parts)
			}
		})
	}
}

func TestCreateBadInput(t *testing.T) {
	good := readTD(t, "example.warc.gz").data
	plain := readTD(t, "example.warc").data
	cases := []struct {
		name string
		data []byte
		want string // in the error
	}{
		{"empty", nil, "empty input"},
		{"garbage", []byte("this is not an archive\n\x00\x01"), "not a WARC or ARC file"},
		{"bad-gzip", []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff, 1, 2, 3}, "cut.warc.gz"},
		{"cut.warc.gz", good[:len(good)-700], "cut.warc.gz: record at offset"},
		{"cut.warc", plain[:len(plain)-300], "truncated"},
		{"zip.wacz", []byte("PK\x03\x04rest of a zip"), "not a WARC or ARC file"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := buildWACZ(t, Options{}, input{c.name, c.data})
			if err == nil {
				t.Fatal("no error")
			}
			if c.name == "bad-gzip" {
				c.want = "bad-gzip"
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not contain %q", err, c.want)
			}
		})
	}
	// Lenient keeps what can be kept
	path, _, err := buildWACZ(t, Options{Lenient: true}, input{"cut.warc", plain[:len(plain)-300]})
	if err != nil {
		t.Fatalf("lenient: %v", err)
	}
	checkCaptures(t, path)
}

func TestCreatePagesOptions(t *testing.T) {
	in := readTD(t, "example.warc.gz")
	list := "# pages\nhttp://example.com/\nhttps://example.com/missing\n"
	_, reqs, err := ParsePageList(strings.NewReader(list), "list")
	if err != nil {
		t.Fatal(err)
	}
	var warnings []string
	path, st, err := buildWACZ(t, Options{
		Title: "Example", Description: "An *example*", Seeds: []string{"https://example.com"},
		PageList: reqs, Text: true, HashAlg: "md5", DraftFiles: true,
		Warn: func(s string) { warnings = append(warnings, s) },
	}, in)
	if err != nil {
		t.Fatal(err)
	}
	if st.Pages != 1 {
		t.Errorf("%d pages, want 1 (seed and list name the same capture)", st.Pages)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "https://example.com/missing") {
		t.Errorf("warnings %q", warnings)
	}
	r, _ := OpenFile(path)
	defer r.Close()
	dp, err := r.DataPackage()
	if err != nil {
		t.Fatal(err)
	}
	if dp.Title != "Example" || dp.Description != "An *example*" || dp.MainPageURL != "http://example.com/" ||
		dp.MainPageDate != "2017-03-06T04:02:06Z" || dp.Created != "2024-05-06T07:08:09Z" || dp.WACZVersion != "1.1.1" {
		t.Errorf("datapackage %+v", dp)
	}
	for _, res := range dp.Resources {
		if !strings.HasPrefix(res.Hash, "md5:") || len(res.Hash) != 36 {
			t.Errorf("%s: hash %s", res.Path, res.Hash)
		}
	}
	hdr, pages, _ := r.Pages()
	if hdr == nil || !hdr.HasText || hdr.Format != PagesFormat {
		t.Errorf("header %+v", hdr)
	}
	if len(pages) != 1 || pages[0].Title != "Example Domain" || !strings.HasPrefix(pages[0].Text, "Example Domain This domain is established") || !pages[0].Seed {
		t.Errorf("pages %+v", pages)
	}
	if probs := r.Validate(); len(probs) > 0 {
		t.Errorf("Validate: %v", probs)
	}
	read := func(name string) []byte {
		rc, err := r.File(name).Open()
		if err != nil {
			t.Fatal(err)
		}
		defer rc.Close()
		b, _ := io.ReadAll(rc)
		return b
	}
	if got, want := string(read(PagesCSVPath)), "url,date,title,id\nhttp://example.com/,2017-03-06T04:02:06Z,Example Domain,5125a1c9bd1ad3fa\n"; got != want {
		t.Errorf("pages.csv:\n%s\nwant:\n%s", got, want)
	}
	// webarchive.yaml as a YAML parser reads it
	var y WebArchiveYAML
	if err := yaml.Unmarshal(read(WebArchiveYAMLPath), &y); err != nil {
		t.Fatalf("webarchive.yaml: %v", err)
	}
	wantY := WebArchiveYAML{
		Title: "Example", Desc: "An *example*",
		Pages:     []YAMLPage{{URL: "http://example.com/", Date: "2017-03-06T04:02:06Z", Title: "Example Domain", ID: "5125a1c9bd1ad3fa"}},
		PageLists: []YAMLPList{{Title: "Seeds", ID: "seeds", PageIDs: []string{"5125a1c9bd1ad3fa"}}},
	}
	if !reflect.DeepEqual(y, wantY) {
		t.Errorf("webarchive.yaml reads as %+v, want %+v", y, wantY)
	}
}

// TestWebArchiveYAMLQuoting: titles with YAML-special characters survive.
func TestWebArchiveYAMLQuoting(t *testing.T) {
	pages := []*Page{{URL: "http://x/a?b=1#c", TS: "2020-01-01T00:00:00Z", Title: "- a: b # c\n\"q\" 'é' \\ \u2028 @x", ID: "007"}}
	var b bytes.Buffer
	if err := WriteWebArchiveYAML(&b, "yes", "null: ~", pages); err != nil {
		t.Fatal(err)
	}
	var y WebArchiveYAML
	if err := yaml.Unmarshal(b.Bytes(), &y); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	if y.Title != "yes" || y.Desc != "null: ~" || len(y.Pages) != 1 || y.Pages[0].Title != pages[0].Title || y.Pages[0].ID != "007" || y.Pages[0].URL != pages[0].URL {
		t.Errorf("read back %+v", y)
	}
}

func TestFind(t *testing.T) {
	path, _, err := buildWACZ(t, Options{}, readTD(t, "example.warc.gz"))
	if err != nil {
		t.Fatal(err)
	}
	r, _ := OpenFile(path)
	defer r.Close()
	cases := []struct {
		url, ts string
		want    string // timestamp of the capture found ("" : not found)
	}{
		{"http://example.com/", "", "20170306040206"},               // latest is a revisit: its original
		{"http://example.com/", "20170306040348", "20170306040206"}, // same
		{"https://www.example.com", "2017", "20170306040206"},       // SURT: scheme and www ignored
		{"http://example.com/other", "", ""},
	}
	for _, c := range cases {
		var ts time.Time
		if c.ts != "" {
			ts, _ = ParseTS(c.ts)
		}
		cp, err := r.Find(c.url, ts)
		if c.want == "" {
			if err == nil {
				t.Errorf("%s: found %s", c.url, cp.Timestamp)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.url, err)
			continue
		}
		if cp.Timestamp != c.want {
			t.Errorf("%s %s: found %s, want %s", c.url, c.ts, cp.Timestamp, c.want)
		}
		rec, err := r.Record(cp)
		if err != nil {
			t.Fatal(err)
		}
		body, head, err := Payload(rec, true)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(body)
		if head.StatusCode != 200 || len(b) != 1270 || !bytes.Contains(b, []byte("<title>Example Domain</title>")) {
			t.Errorf("payload: status %d, %d bytes", head.StatusCode, len(b))
		}
	}
}

func sortedNames(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
