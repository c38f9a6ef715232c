package xapian

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/arcport/arcport/lib/zim"
)

// libzimZim is a ZIM that libzim wrote with both indexes (openzim's
// zim-testing-suite small.zim, an older libzim: term lists kept, no
// anchor term).
const libzimZim = "../../../testdata/zim/withns/small.zim"

// readIndex returns the bytes of X/<name>/xapian in a ZIM.
func readIndex(t *testing.T, zimPath, name string) []byte {
	t.Helper()
	a, err := zim.Open(zimPath)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	idx, found, err := a.Find('X', name+"/xapian")
	if err != nil || !found {
		t.Fatalf("%s: X/%s/xapian: found %v %v", zimPath, name, found, err)
	}
	e, err := a.EntryAt(idx)
	if err != nil {
		t.Fatal(err)
	}
	b, err := a.ReadBlob(e)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestReadLibzimIndexes: the full-text and title databases libzim stored
// in a real ZIM read the same with arcport's reader as with Xapian's.
func TestReadLibzimIndexes(t *testing.T) {
	for _, name := range []string{"fulltext", "title"} {
		t.Run(name, func(t *testing.T) {
			b := readIndex(t, libzimZim, name)
			db, err := Open(bytes.NewReader(b), int64(len(b)))
			if err != nil {
				t.Fatal(err)
			}
			kind, err := db.Metadata("kind")
			if err != nil || string(kind) != name {
				t.Errorf("metadata kind = %q %v", kind, err)
			}
			if db.Stats().DocCount == 0 {
				t.Error("no documents")
			}
			if name == "title" {
				// an older libzim's title index: "Test ZIM file" with positions,
				// data in the old namespace scheme
				if pos, err := db.Positions(1, "zim"); err != nil || !slices.Equal(pos, []uint32{2}) {
					t.Errorf("Positions(1, zim) = %v %v", pos, err)
				}
				if d, err := db.DocData(1); err != nil || string(d) != "A/main.html" {
					t.Errorf("DocData(1) = %q %v", d, err)
				}
			}
			p := filepath.Join(t.TempDir(), name+".glass")
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
			xapianCheck(t, p)
			compareWithPy(t, p)
		})
	}
}
