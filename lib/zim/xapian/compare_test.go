package xapian

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"testing"
)

// docSpec is a document as both arcport's writer and testdata/xapbuild.py
// (Xapian) build it.
type docSpec struct {
	Data   string            `json:"data"`
	Terms  [][3]any          `json:"terms"` // term, wdf, positions
	Values map[string]string `json:"values"`
}

// key1 is latin1ToKey for JSON: bytes as runes U+0000..U+00FF.
func key1(s string) string { return latin1ToKey(s) }

// specOf turns a Document into its JSON form.
func specOf(d *Document) docSpec {
	s := docSpec{Data: key1(string(d.data)), Terms: [][3]any{}, Values: map[string]string{}}
	terms := make([]string, 0, len(d.terms))
	for t := range d.terms {
		terms = append(terms, t)
	}
	sort.Strings(terms)
	for _, t := range terms {
		dt := d.terms[t]
		pos := dt.pos
		if pos == nil {
			pos = []uint32{}
		}
		s.Terms = append(s.Terms, [3]any{key1(t), dt.wdf, pos})
	}
	for slot, v := range d.values {
		s.Values[jsonInt(int(slot))] = key1(string(v))
	}
	return s
}

// TestWriteSameAsXapian: the same documents written by arcport and by
// Xapian (then compacted to a single file as libzim does) read back
// identically through python3-xapian, UUID aside; the postlist and
// position tables hold the same components as Xapian's FULL compaction
// (libzim >= 9.5) makes; arcport's file is at most 1.2 times the size of
// Xapian's (the bound for libzim's indexes).
func TestWriteSameAsXapian(t *testing.T) {
	py := needPyXapian(t)
	for _, noTL := range []bool{false, true} {
		name := "termlists"
		if noTL {
			name = "no-termlists"
		}
		t.Run(name, func(t *testing.T) {
			docs := randomDocs(3000, 5)
			w, _ := NewWriter(WriterOptions{NoTermList: noTL})
			spec := struct {
				Docs       []docSpec         `json:"docs"`
				Metadata   map[string]string `json:"metadata"`
				NoTermList bool              `json:"notermlist"`
			}{Metadata: map[string]string{"language": "eng", "kind": "fulltext"}, NoTermList: noTL}
			for _, d := range docs {
				if _, err := w.Add(d); err != nil {
					t.Fatal(err)
				}
				spec.Docs = append(spec.Docs, specOf(d))
			}
			for k, v := range spec.Metadata {
				w.SetMetadata(k, []byte(v))
			}
			ours := writeDB(t, w)
			theirs := filepath.Join(t.TempDir(), "xapian.glass")
			js, _ := json.Marshal(spec)
			cmd := exec.Command(py, "testdata/xapbuild.py", theirs)
			cmd.Stdin = bytes.NewReader(js)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("xapbuild.py: %v\n%s", err, out)
			}
			xapianCheck(t, ours)
			// the tables whose tags are not deflated (where zlib's bytes and
			// Go's differ) are laid out as Xapian's FULL compaction lays
			// them out: the same tags split into the same components
			da, db := openFile(t, ours), openFile(t, theirs)
			for _, ti := range []int{tPostlist, tPosition} {
				ka, ma, _ := compsOf(t, da, ti)
				kb, mb, _ := compsOf(t, db, ti)
				if len(ka) != len(kb) {
					t.Errorf("%s table: %d keys, Xapian %d", tableNames[ti], len(ka), len(kb))
				}
				n := 0
				for _, k := range ka {
					if !slices.Equal(ma[k], mb[k]) {
						if n++; n <= 5 {
							t.Errorf("%s table: key %q in components of %v bytes, Xapian %v", tableNames[ti], k, ma[k], mb[k])
						}
					}
				}
			}
			a, b := dumpRaw(t, ours), dumpRaw(t, theirs)
			if !bytes.Equal(a, b) {
				t.Errorf("python3-xapian reads the two databases differently (%d vs %d bytes of JSON)", len(a), len(b))
			}
			so, _ := os.Stat(ours)
			st, _ := os.Stat(theirs)
			ratio := float64(so.Size()) / float64(st.Size())
			t.Logf("size: arcport %d bytes, Xapian %d bytes (%.3f)", so.Size(), st.Size(), ratio)
			if ratio > 1.2 {
				t.Errorf("arcport's database is %.2f times Xapian's", ratio)
			}
		})
	}
}

// dumpRaw is xapdump.py's output without the UUID.
func dumpRaw(t *testing.T, path string) []byte {
	t.Helper()
	out, err := exec.Command("/usr/bin/python3", "testdata/xapdump.py", path).Output()
	if err != nil {
		t.Fatalf("xapdump.py %s: %v", path, err)
	}
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "uuid")
	b, _ := json.Marshal(m)
	return b
}
