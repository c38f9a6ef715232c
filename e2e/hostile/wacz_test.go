package hostile

import (
	"archive/zip"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// sampleWACZ is a WACZ made by waczpack create from two warcio fixtures
// (stored WARCs and index, deflated JSON and YAML).
func sampleWACZ(t testing.TB) []byte {
	wp := bin(t, "waczpack")
	p := shared(t, "sample.wacz", func(t testing.TB, p string) {
		dir := filepath.Dir(p)
		out := filepath.Join(dir, "sample-create.wacz")
		r := &run{bin: wp, dir: dir, args: []string{"create", "-o", out,
			filepath.Join(repo, "testdata/warc/example.warc.gz"), filepath.Join(repo, "testdata/warc/example-iana.org-chunked.warc")}}
		if res := r.exec(t); res.code != 0 {
			t.Fatalf("making the sample WACZ: %s", res)
		}
		if err := os.Rename(out, p); err != nil {
			t.Fatal(err)
		}
	})
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// zipSpan is the byte range of one member's data in a zip.
type zipSpan struct {
	name       string
	start, end int64
}

func zipSpans(t testing.TB, b []byte) []zipSpan {
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	var out []zipSpan
	for _, f := range zr.File {
		off, err := f.DataOffset()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, zipSpan{f.Name, off, off + int64(f.CompressedSize64)})
	}
	return out
}

// TestWACZDamaged truncates and flips bits in a WACZ and runs waczpack
// validate, ls and get on it: bounded, no panic, nothing written but the -o
// file; validate fails on every truncation (the zip directory is at the
// end) and on every flip inside a member's data (datapackage.json hashes
// them all), naming the WACZ.
func TestWACZDamaged(t *testing.T) {
	wp := bin(t, "waczpack")
	data := sampleWACZ(t)
	spans := zipSpans(t, data)
	type mutation struct {
		label    string
		data     []byte
		mustFail bool
	}
	var muts []mutation
	var interesting []int64
	for _, s := range spans {
		interesting = append(interesting, s.start, s.end)
	}
	for _, cut := range cutOffsets("sample.wacz", len(data), 0, 40, interesting) {
		muts = append(muts, mutation{fmt.Sprintf("cut%d", cut), data[:cut], true})
	}
	for i, f := range flips("sample.wacz", 0, len(data), 40) {
		inData := false
		for _, s := range spans {
			inData = inData || int64(f.off) >= s.start && int64(f.off) < s.end
		}
		muts = append(muts, mutation{fmt.Sprintf("flip%d@%d", i, f.off), f.apply(data), inData})
	}
	for _, m := range muts {
		t.Run(m.label, func(t *testing.T) {
			t.Parallel()
			acquire(t)
			c := newCase(t)
			p := c.put(t, "sample.wacz", m.data)
			c.freeze(t)
			e := expect{name: "sample.wacz", mustFail: m.mustFail}
			res := c.cmd(wp, "validate", p).exec(t)
			if !check(t, "validate "+m.label, res, e) || !c.contained(t, "validate "+m.label, res) {
				return
			}
			e.mustFail = false
			res = c.cmd(wp, "ls", "--json", p).exec(t)
			if !check(t, "ls "+m.label, res, e) || !c.contained(t, "ls "+m.label, res) {
				return
			}
			// get names the WARC inside the WACZ, or the URL it misses.
			e.orName = []string{"archive/", "http://www.iana.org/"}
			out := filepath.Join(c.out, "body")
			res = c.cmd(wp, "get", "-o", out, p, "http://www.iana.org/").exec(t)
			if check(t, "get "+m.label, res, e) && c.contained(t, "get "+m.label, res) {
				c.atomicOut(t, "get "+m.label, res, "body", "")
			}
		})
	}
}
