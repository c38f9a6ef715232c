package hostile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// streamInput is an ARC or WARC input for the sweeps.
type streamInput struct {
	name  string
	isARC bool
	data  func(t testing.TB) []byte
}

func fixtureInput(rel string, isARC bool) streamInput {
	return streamInput{filepath.Base(rel), isARC, func(t testing.TB) []byte { return fixture(t, rel) }}
}

// zstdPerRecord compresses each record of a plain WARC fixture as its own
// zstd frame (the .warc.zst layout, without a dictionary).
func zstdPerRecord(t testing.TB, rel string) []byte {
	data := fixture(t, rel)
	starts := recordStarts(data, false)
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	var out []byte
	for i := 0; i+1 < len(starts); i++ {
		out = enc.EncodeAll(data[starts[i]:starts[i+1]], out)
	}
	return out
}

// warcInputs are the WARC (plain, gzip, zstd) and ARC inputs of waczpack.
func warcInputs() []streamInput {
	return []streamInput{
		fixtureInput("warc/example.warc", false),
		fixtureInput("warc/example.warc.gz", false),
		{"example.warc.zst", false, func(t testing.TB) []byte {
			p := shared(t, "example.warc.zst", func(t testing.TB, p string) {
				os.WriteFile(p, zstdPerRecord(t, "warc/example.warc"), 0o644)
			})
			b, _ := os.ReadFile(p)
			return b
		}},
		fixtureInput("warc/example-iana.org-chunked.warc", false),
		fixtureInput("arc/example.arc.gz", true),
	}
}

// TestWaczpackTruncated cuts each input at many lengths and runs waczpack
// index (stdout) and waczpack create -o: bounded, no panic; a cut inside a
// record is reported with the file and the offset of that record; create
// fails on it (or repairs it, warning) and a failure leaves nothing (no
// WACZ, no temp file); a WACZ it does write passes waczpack validate.
func TestWaczpackTruncated(t *testing.T) {
	wp := bin(t, "waczpack")
	for _, in := range warcInputs() {
		data := in.data(t)
		starts := recordStarts(data, in.isARC)
		slack := 4
		if in.isARC {
			slack = 2
		}
		for i, cut := range cutOffsets(in.name, len(data), 128, 48, starts) {
			t.Run(fmt.Sprintf("%s/cut%d", in.name, cut), func(t *testing.T) {
				t.Parallel()
				acquire(t)
				c := newCase(t)
				p := c.put(t, in.name, data[:cut])
				c.freeze(t)
				clean := cleanCut(cut, starts, slack)
				e := expect{name: in.name, offset: cut >= 64, mustNotice: !clean}
				if !clean {
					e.at = damagedAt(cut, starts)
					e.atZero = e.at == 0
				}
				what := fmt.Sprintf("%s cut to %d bytes", in.name, cut)
				res := c.cmd(wp, "index", p).exec(t)
				if !check(t, "index: "+what, res, e) || !c.contained(t, "index: "+what, res) {
					return
				}
				// create is strict by default, but may repair a record
				// whose only loss is its trailing CRLF (with a warning).
				out := filepath.Join(c.out, "x.wacz")
				res = c.cmd(wp, "create", "-o", out, p).exec(t)
				if !check(t, "create: "+what, res, e) || !c.contained(t, "create: "+what, res) || !c.atomicOut(t, "create: "+what, res, "x.wacz", "") {
					return
				}
				if res.code == 0 && i%4 == 0 {
					v := c.cmd(wp, "validate", out).exec(t)
					if v.code != 0 {
						t.Errorf("create: %s: the WACZ written does not validate\n  %s", what, v)
					}
				}
			})
		}
	}
}

// onlyDigestLines reports whether every line of stderr is a record digest
// mismatch (a damaged payload carried into the WACZ as it was).
func onlyDigestLines(stderr string) bool {
	n := 0
	for _, l := range strings.Split(strings.TrimSpace(stderr), "\n") {
		if l == "" {
			continue
		}
		if !strings.Contains(l, "-Digest mismatch") && !strings.Contains(l, "problem(s)") {
			return false
		}
		n++
	}
	return n > 0
}

// TestWaczpackBitFlips flips bits in each input: waczpack index and create
// stay bounded and never panic; failures name the file; a WACZ written
// validates, but for digest mismatches of the records the flip damaged.
func TestWaczpackBitFlips(t *testing.T) {
	wp := bin(t, "waczpack")
	for _, in := range warcInputs() {
		data := in.data(t)
		for i, f := range flips(in.name, 0, len(data), 24) {
			t.Run(fmt.Sprintf("%s/flip%d@%d", in.name, i, f.off), func(t *testing.T) {
				t.Parallel()
				acquire(t)
				c := newCase(t)
				p := c.put(t, in.name, f.apply(data))
				c.freeze(t)
				what := fmt.Sprintf("%s with bit %#x of byte %d flipped", in.name, f.bit, f.off)
				e := expect{name: in.name, offset: f.off >= 64}
				res := c.cmd(wp, "index", p).exec(t)
				if !check(t, "index: "+what, res, e) || !c.contained(t, "index: "+what, res) {
					return
				}
				out := filepath.Join(c.out, "x.wacz")
				res = c.cmd(wp, "create", "-o", out, p).exec(t)
				if !check(t, "create: "+what, res, e) || !c.contained(t, "create: "+what, res) || !c.atomicOut(t, "create: "+what, res, "x.wacz", "") {
					return
				}
				if res.code == 0 && i%3 == 0 {
					// the WACZ is whole; a record damaged in the input
					// keeps its damage, which validate now finds by its
					// digests: that, and only that, may fail it
					v := c.cmd(wp, "validate", out).exec(t)
					if v.code != 0 && !onlyDigestLines(v.stderr) {
						t.Errorf("create: %s: the WACZ written does not validate\n  %s", what, v)
					}
				}
			})
		}
	}
}
