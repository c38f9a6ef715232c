package hostile

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// a2wSalvage is the last line arc2warc prints when it skipped damaged
// records: it exits 1 but commits the WARC of everything else (its
// documented contract, e2e/arc2warc_test.go TestArc2warcSkips).
const a2wSalvage = "made records or bytes be skipped"

// arcInputs are the ARC fixtures the sweeps start from.
var arcInputs = []string{"arc/example.arc", "arc/example.arc.gz", "arc/example-space-in-url.arc"}

// TestArc2warcTruncated cuts each ARC fixture at many lengths and converts
// it with -o: every run ends in bounded time and memory without a panic; a
// cut inside a record is reported (repaired or skipped, exit 0 with a
// warning naming the file and offset, or exit 1); a failed run leaves no
// file; a successful one leaves exactly the WARC, which reads back whole
// with digests verified.
func TestArc2warcTruncated(t *testing.T) {
	a2w := bin(t, "arc2warc")
	for _, rel := range arcInputs {
		data := fixture(t, rel)
		name := filepath.Base(rel)
		starts := recordStarts(data, true)
		for _, cut := range cutOffsets(name, len(data), 256, 96, starts) {
			t.Run(fmt.Sprintf("%s/cut%d", name, cut), func(t *testing.T) {
				t.Parallel()
				acquire(t)
				c := newCase(t)
				in := c.put(t, name, data[:cut])
				c.freeze(t)
				res := c.cmd(a2w, "-o", filepath.Join(c.out, "x.warc.gz"), in).exec(t)
				clean := cleanCut(cut, starts, 2)
				e := expect{name: name, offset: cut > 0, mustNotice: !clean}
				if !clean {
					e.at = damagedAt(cut, starts)
					e.atZero = e.at == 0
				}
				what := fmt.Sprintf("%s cut to %d bytes", name, cut)
				if !check(t, what, res, e) || !c.contained(t, what, res) || !c.atomicOut(t, what, res, "x.warc.gz", a2wSalvage) {
					return
				}
				if strings.Contains(res.stderr, name+":") && !offsetRE.MatchString(res.stderr) {
					t.Errorf("%s: warning without an offset\n  %s", what, res)
				}
				if len(c.outFiles(t)) > 0 {
					if _, err := readFileValid(filepath.Join(c.out, "x.warc.gz"), false); err != nil {
						t.Errorf("%s: output does not read back: %v\n  %s", what, err, res)
					}
				}
			})
		}
	}
}

// TestArc2warcBitFlips flips single bits of each ARC fixture and converts it
// to stdout: bounded, no panic, a reason naming the file on failure, and a
// stdout that reads back whole (records are written whole or not at all).
func TestArc2warcBitFlips(t *testing.T) {
	a2w := bin(t, "arc2warc")
	for _, rel := range arcInputs {
		data := fixture(t, rel)
		name := filepath.Base(rel)
		for i, f := range flips(name, 0, len(data), 48) {
			t.Run(fmt.Sprintf("%s/flip%d@%d", name, i, f.off), func(t *testing.T) {
				t.Parallel()
				acquire(t)
				c := newCase(t)
				in := c.put(t, name, f.apply(data))
				c.freeze(t)
				res := c.cmd(a2w, in).exec(t)
				what := fmt.Sprintf("%s with bit %#x of byte %d flipped", name, f.bit, f.off)
				if !check(t, what, res, expect{name: name, offset: f.off >= 64}) || !c.contained(t, what, res) {
					return
				}
				if _, err := readValid(res.out, false); err != nil && res.outN > 0 {
					t.Errorf("%s: stdout does not read back: %v\n  %s", what, err, res)
				}
			})
		}
	}
}
