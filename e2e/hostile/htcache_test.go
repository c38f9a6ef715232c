package hostile

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

const gardenDir = "htcache/garden"

// copyTree copies (hard-links when it can) the tree at src to dst.
func copyTree(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if os.Link(p, target) == nil {
			return nil
		}
		in, err := os.Open(p)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.Create(target)
		if err != nil {
			return err
		}
		_, err = io.Copy(out, in)
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// mirrorWith makes in/garden, a copy of the garden mirror whose
// hts-cache/new.zip is zipData, and returns its path.
func (c *caseDir) mirrorWith(t testing.TB, zipData []byte) string {
	t.Helper()
	root := filepath.Join(c.in, "garden")
	copyTree(t, filepath.Join(repo, "testdata", gardenDir), root)
	z := filepath.Join(root, "hts-cache", "new.zip")
	os.Remove(z) // a hard link: do not write through it
	if err := os.WriteFile(z, zipData, 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

// localStarts returns the offsets of the local headers of a zip (found from
// the data offsets archive/zip reports) and the start of its central
// directory.
func localStarts(t testing.TB, b []byte) (locals []int64, central int64) {
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range zr.File {
		off, err := f.DataOffset()
		if err != nil {
			t.Fatal(err)
		}
		locals = append(locals, int64(bytes.LastIndex(b[:off], []byte("PK\x03\x04"))))
	}
	return locals, int64(bytes.Index(b, []byte("PK\x01\x02")))
}

// htSalvage is the last line htcache export prints when it left damaged
// entries out: it exits 1 but commits the export of everything else
// (docs/damaged-input.md), as arc2warc does.
const htSalvage = "of damaged input: the rest is written to"

// TestHtcacheDamaged truncates and flips bits in the garden cache's
// new.zip and runs htcache export -o, ls and info over the mirror:
// bounded, no panic, nothing written but the -o file; a cut inside an entry
// is reported with that entry's offset; an export that succeeds reads back
// whole with lib/warc (digests verified).
func TestHtcacheDamaged(t *testing.T) {
	ht := bin(t, "htcache")
	data := fixture(t, gardenDir+"/hts-cache/new.zip")
	locals, central := localStarts(t, data)
	type mutation struct {
		label string
		data  []byte
		at    int64 // the damaged entry, -1 for none
	}
	var muts []mutation
	for _, cut := range cutOffsets("new.zip", len(data), 0, 64, append(locals, central)) {
		at := int64(-1)
		if int64(cut) < central {
			at = damagedAt(cut, locals)
			if cleanCut(cut, append(locals, central), 0) {
				at = -1
			}
		}
		muts = append(muts, mutation{fmt.Sprintf("cut%d", cut), data[:cut], at})
	}
	for i, f := range flips("new.zip", 0, len(data), 48) {
		muts = append(muts, mutation{fmt.Sprintf("flip%d@%d", i, f.off), f.apply(data), -1})
	}
	for _, m := range muts {
		t.Run(m.label, func(t *testing.T) {
			t.Parallel()
			acquire(t)
			c := newCase(t)
			root := c.mirrorWith(t, m.data)
			c.freeze(t)
			e := expect{name: "new.zip", offset: len(m.data) > 0, mustNotice: m.at >= 0, at: max(m.at, 0), atZero: m.at == 0}
			out := filepath.Join(c.out, "x.warc.gz")
			res := c.cmd(ht, "export", "-o", out, root).exec(t)
			what := "export " + m.label
			if !check(t, what, res, e) || !c.contained(t, what, res) || !c.atomicOut(t, what, res, "x.warc.gz", htSalvage) {
				return
			}
			if res.code == 0 {
				if _, err := readFileValid(out, false); err != nil {
					t.Errorf("%s: output does not read back: %v\n  %s", what, err, res)
				}
			}
			for _, args := range [][]string{{"ls", "--json", root}, {"info", root}} {
				res := c.cmd(ht, args...).exec(t)
				what := args[0] + " " + m.label
				if !check(t, what, res, expect{name: "new.zip"}) || !c.contained(t, what, res) {
					return
				}
			}
		})
	}
}
