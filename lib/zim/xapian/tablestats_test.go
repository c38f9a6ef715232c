package xapian

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// tableStat is what one B-tree of a database holds: blocks by level,
// items, key and tag bytes (tags as stored), classes of postlist keys.
type tableStat struct {
	name          string
	blocks        [maxLevels]int
	items         int
	keyBytes      int
	tagBytes      int
	free          int
	byClass       map[string][2]int // postlist key class -> items, tag bytes
	compressedTag int
}

// statTables walks every table of db from its root.
func statTables(db *DB) ([numTables]tableStat, error) {
	var out [numTables]tableStat
	for i := range db.tables {
		t := &db.tables[i]
		st := &out[i]
		st.name = t.name
		st.byClass = map[string][2]int{}
		if t.ri.rootIsFake {
			continue
		}
		var walk func(n uint32, level int) error
		walk = func(n uint32, level int) error {
			b, err := t.block(n, level)
			if err != nil {
				return err
			}
			st.blocks[level]++
			de := dirEnd(b)
			free := int(b[7])<<8 | int(b[8])
			st.free += free
			for c := dirStart; c < de; c += 2 {
				o := itemAt(b, c)
				if level > 0 {
					if err := walk(branchBlock(b, o), level-1); err != nil {
						return err
					}
					continue
				}
				k := leafKey(b, o)
				ch := leafChunk(b, o)
				st.items++
				st.keyBytes += len(k)
				st.tagBytes += len(ch)
				if b[o]&iCompressed != 0 {
					st.compressedTag += len(ch)
				}
				if i == tPostlist {
					cl := "term"
					switch {
					case len(k) == 0:
						cl = "fake"
					case len(k) >= 2 && k[0] == 0 && k[1] == 0xe0:
						cl = "doclen"
					case len(k) >= 2 && k[0] == 0 && k[1] == 0xd8:
						cl = "value chunk"
					case len(k) >= 2 && k[0] == 0 && k[1] == 0xd0:
						cl = "value stats"
					case len(k) >= 2 && k[0] == 0 && k[1] == 0xc0:
						cl = "metadata"
					}
					v := st.byClass[cl]
					st.byClass[cl] = [2]int{v[0] + 1, v[1] + len(ch)}
				}
			}
			return nil
		}
		if err := walk(t.ri.root, t.ri.level); err != nil {
			return out, err
		}
	}
	return out, nil
}

func (s tableStat) String() string {
	var sb strings.Builder
	nb := 0
	for _, n := range s.blocks {
		nb += n
	}
	fmt.Fprintf(&sb, "%-9s blocks %5d (levels %v) items %7d keys %8d tags %9d (deflated %d) free %8d", s.name, nb, s.blocks[:3], s.items, s.keyBytes, s.tagBytes, s.compressedTag, s.free)
	for k, v := range s.byClass {
		fmt.Fprintf(&sb, "\n    %-12s items %7d tags %9d", k, v[0], v[1])
	}
	return sb.String()
}

// TestTableSizes prints the tables of the databases named in
// XAPIAN_TABLES (space-separated paths): a diagnostic for comparing
// arcport's databases with libzim's.
func TestTableSizes(t *testing.T) {
	paths := strings.Fields(os.Getenv("XAPIAN_TABLES"))
	if len(paths) == 0 {
		t.Skip("XAPIAN_TABLES not set")
	}
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		fi, _ := f.Stat()
		db, err := Open(f, fi.Size(), WithCacheBlocks(4))
		if err != nil {
			t.Fatal(err)
		}
		st, err := statTables(db)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d bytes, %d blocks, stats %+v", p, fi.Size(), fi.Size()/int64(db.blockSize), db.Stats())
		for _, s := range st {
			t.Logf("  %s", s)
		}
	}
}

// compsOf returns the keys of table ti in order, the sizes of each key's
// components (as stored) and the block holding its first component.
func compsOf(t *testing.T, db *DB, ti int) (keys []string, m map[string][]int, blockOf map[string]uint32) {
	m = map[string][]int{}
	blockOf = map[string]uint32{}
	tb := &db.tables[ti]
	var walk func(n uint32, level int)
	walk = func(n uint32, level int) {
		b, err := tb.block(n, level)
		if err != nil {
			t.Fatal(err)
		}
		for c := dirStart; c < dirEnd(b); c += 2 {
			o := itemAt(b, c)
			if level > 0 {
				walk(branchBlock(b, o), level-1)
				continue
			}
			k := string(leafKey(b, o))
			if _, ok := m[k]; !ok {
				keys = append(keys, k)
				blockOf[k] = n
			}
			m[k] = append(m[k], len(leafChunk(b, o)))
		}
	}
	walk(tb.ri.root, tb.ri.level)
	return
}
