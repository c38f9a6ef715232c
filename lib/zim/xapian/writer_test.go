package xapian

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// writeDB writes w to a file in t's temp dir.
func writeDB(t *testing.T, w *Writer) string {
	t.Helper()
	var buf bytes.Buffer
	if _, err := w.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "w.glass")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestWriteSmallest: three documents with terms, positions, data and one
// value; xapian-check finds no error and Xapian reads back exactly what
// was written.
func TestWriteSmallest(t *testing.T) {
	w, err := NewWriter(WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i, text := range []string{"the quick brown fox jumps over the lazy dog", "gardening with roses", "café été"} {
		d := NewDocument()
		for j, word := range bytes.Fields([]byte(text)) {
			d.AddPosting(string(word), uint32(j+1), 1)
		}
		d.AddTerm("Zgarden", uint32(i))
		d.SetData([]byte(fmt.Sprintf("C/page%d.html", i)))
		d.AddValue(0, []byte(fmt.Sprintf("Title %d", i)))
		if _, err := w.Add(d); err != nil {
			t.Fatal(err)
		}
	}
	w.SetMetadata("language", []byte("en"))
	p := writeDB(t, w)
	xapianCheck(t, p)
	compareWithPy(t, p)
	db := openFile(t, p)
	if pos, err := db.Positions(1, "the"); err != nil || !slices.Equal(pos, []uint32{1, 7}) {
		t.Errorf("Positions(1, the) = %v %v", pos, err)
	}
}

// randomWriter fills a Writer with n documents of random words (some
// long data, several value slots, many positions) and returns it.
func randomWriter(t *testing.T, n int, seed int64, bs int) *Writer {
	t.Helper()
	r := rand.New(rand.NewSource(seed))
	w, err := NewWriter(WriterOptions{BlockSize: bs})
	if err != nil {
		t.Fatal(err)
	}
	words := []string{"garden", "rose", "the", "a", "café", "xapian", "glass", "kiwix", "\x00nul", "long" + string(bytes.Repeat([]byte("x"), 200))}
	for i := 0; i < 400; i++ {
		words = append(words, fmt.Sprintf("w%d", i))
	}
	for i := 0; i < n; i++ {
		d := NewDocument()
		nw := r.Intn(80)
		for j := 0; j < nw; j++ {
			word := words[r.Intn(len(words))]
			if r.Intn(5) == 0 {
				d.AddTerm("Z"+word, 1)
			} else {
				d.AddPosting(word, uint32(j+1+r.Intn(3)), 1)
			}
		}
		if i%9 == 0 {
			for j := 0; j < 300; j++ {
				d.AddPosting("dense", uint32(j*2+1), 1)
			}
		}
		data := fmt.Sprintf("C/page%d.html", i)
		if i%40 == 5 {
			data += string(bytes.Repeat([]byte{byte('a' + i%26)}, r.Intn(30000)))
		}
		if i%97 == 1 {
			data = ""
		}
		d.SetData([]byte(data))
		d.AddValue(0, []byte(fmt.Sprintf("Title %d", i)))
		if i%3 == 0 {
			d.AddValue(1, []byte{byte(i), byte(i >> 8)})
		}
		if i%5 == 0 {
			d.AddValue(300, bytes.Repeat([]byte("v"), i%13+1))
		}
		if _, err := w.Add(d); err != nil {
			t.Fatal(err)
		}
	}
	w.SetMetadata("language", []byte("eng"))
	w.SetMetadata("valuesmap", []byte("title:0;wordcount:1"))
	return w
}

// TestWriteRandom grows the database: thousands of documents, so every
// table has several levels, posting lists and value streams several
// chunks, tags several components (compressed and not); for two block
// sizes. xapian-check must pass and Xapian must read it back exactly.
func TestWriteRandom(t *testing.T) {
	for _, tc := range []struct{ n, bs int }{{50, 2048}, {3000, 8192}, {1500, 2048}} {
		t.Run(fmt.Sprintf("%d-docs-%d", tc.n, tc.bs), func(t *testing.T) {
			p := writeDB(t, randomWriter(t, tc.n, int64(tc.n), tc.bs))
			xapianCheck(t, p)
			compareWithPy(t, p)
			if tc.n >= 1500 {
				db := openFile(t, p)
				for _, tab := range []int{tPostlist, tDocdata, tTermlist, tPosition} {
					if db.tables[tab].ri.level == 0 {
						t.Errorf("%s table has one level: the test should grow it", tableNames[tab])
					}
				}
				if tc.bs == 2048 && db.tables[tPosition].ri.level < 2 {
					t.Errorf("position table has %d levels, want 3 or more", db.tables[tPosition].ri.level+1)
				}
			}
		})
	}
}

// TestWriteEmpty: a database without documents passes xapian-check.
func TestWriteEmpty(t *testing.T) {
	w, _ := NewWriter(WriterOptions{})
	p := writeDB(t, w)
	xapianCheck(t, p)
	compareWithPy(t, p)
}

// TestWriteDeterministic: the same documents give the same bytes.
func TestWriteDeterministic(t *testing.T) {
	var a, b bytes.Buffer
	randomWriter(t, 200, 3, 8192).WriteTo(&a)
	randomWriter(t, 200, 3, 8192).WriteTo(&b)
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("two writes of the same documents differ")
	}
}
