package xapian

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"fmt"
)

// Building a B-tree in one pass from keys in ascending order, as
// xapian-compact does: leaf items are packed into blocks in key order, each
// full block gets a separating key in the level above, and levels are
// added until one block (the root) remains. Block numbers are handed out
// from a counter shared by all the tables of the single file.

// blockCapacity is Glass::BLOCK_CAPACITY: max_item_size lets at least
// four items share a block.
const blockCapacity = 4

type kv struct{ key, tag []byte }

// treeBuilder collects one table's entries and writes its blocks.
type treeBuilder struct {
	name        string
	blockSize   int
	compressMin int
	entries     []kv
}

// add records key -> tag; keys may come in any order (build sorts them).
func (tb *treeBuilder) add(key, tag []byte) {
	tb.entries = append(tb.entries, kv{key, tag})
}

// branchRef is a separating key for one child block.
type branchRef struct {
	key   []byte
	comp  int
	block uint32
}

// build writes the table's blocks through emit (block number, bytes) using
// numbers from *next, and returns the table's root info.
func (tb *treeBuilder) build(next *uint32, emit func(n uint32, b []byte) error) (rootInfo, error) {
	ri := rootInfo{blockSize: tb.blockSize, compressMin: uint32(tb.compressMin)}
	if len(tb.entries) == 0 {
		ri.rootIsFake, ri.sequential = true, true
		return ri, nil
	}
	es := tb.entries
	sortKV(es)
	for i := 1; i < len(es); i++ {
		if bytes.Equal(es[i-1].key, es[i].key) {
			return ri, fmt.Errorf("xapian: %s table: key %q added twice", tb.name, es[i].key)
		}
	}
	bs := tb.blockSize
	maxItem := (bs - dirStart - blockCapacity*2) / blockCapacity
	if maxItem > itemSizeMask+3 {
		maxItem = itemSizeMask + 3
	}
	var flate *flateBuf
	if tb.compressMin > 0 {
		flate = &flateBuf{}
	}

	// Level 0.
	lw := newBlockWriter(bs, 0)
	var refs []branchRef
	var prevKey []byte
	flush := func(firstKey []byte, firstComp int) error {
		n := *next
		*next++
		if err := emit(n, lw.finish()); err != nil {
			return err
		}
		refs = append(refs, branchRef{firstKey, firstComp, n})
		return nil
	}
	var blockFirstKey []byte
	blockFirstComp := 0
	// The leftmost leaf starts with an item with the empty key and no tag
	// (fake_root_item): Xapian's cursors stand on it before the first entry.
	lw.add(leafItem(nil, nil, false, 1, 1))
	for _, e := range es {
		if len(e.key) > 255 {
			return ri, fmt.Errorf("xapian: %s table: key of %d bytes (at most 255): %q", tb.name, len(e.key), e.key)
		}
		tag := e.tag
		compressed := false
		if flate != nil && len(tag) > tb.compressMin {
			if c := flate.deflate(tag); len(c) < len(tag) {
				tag, compressed = c, true
			}
		}
		// GlassTable::add with full_compaction (Compactor::FULL, what
		// libzim >= 9.5 asks for): a tag too long for one item starts in
		// the free space left in the current block when that saves an item
		// or leaves room worth using (n >= key length + 34).
		cd := len(e.key) + 1 + 2 + 2
		L := maxItem - cd
		firstL := L + 2
		if len(tag) <= firstL {
			firstL = len(tag)
		} else if n := (lw.low - lw.dir) % (maxItem + 2); n > 2+cd {
			n -= 2 + cd
			if last := (len(tag) - 2) % L; n >= last || n >= len(e.key)+34 {
				firstL = n + 2
			}
		}
		m := (len(tag)-firstL+L-1)/L + 1
		if m >= 1<<16 {
			return ri, fmt.Errorf("xapian: %s table: tag of %d bytes too large for %d-byte blocks", tb.name, len(tag), bs)
		}
		o := 0
		for i := 1; i <= m; i++ {
			l := L
			if i == m {
				l = len(tag) - o
			} else if i == 1 {
				l = firstL
			}
			item := leafItem(e.key, tag[o:o+l], compressed, i, m)
			o += l
			if !lw.fits(len(item)) {
				// separator: the new block's first key, cut to one byte
				// past where it differs from the previous key.
				if err := flush(blockFirstKey, blockFirstComp); err != nil {
					return ri, err
				}
				lw = newBlockWriter(bs, 0)
				blockFirstKey, blockFirstComp = truncateKey(prevKey, e.key), i
			}
			lw.add(item)
			prevKey = e.key
		}
	}
	if err := flush(blockFirstKey, blockFirstComp); err != nil {
		return ri, err
	}

	// Branch levels.
	level := 0
	for len(refs) > 1 {
		level++
		if level >= maxLevels {
			return ri, fmt.Errorf("xapian: %s table: B-tree deeper than %d levels", tb.name, maxLevels)
		}
		var up []branchRef
		bw := newBlockWriter(bs, level)
		var first branchRef
		for i, r := range refs {
			item := branchItem(r)
			if !bw.fits(len(item)) {
				n := *next
				*next++
				if err := emit(n, bw.finish()); err != nil {
					return ri, err
				}
				up = append(up, branchRef{first.key, first.comp, n})
				bw = newBlockWriter(bs, level)
			}
			if bw.count == 0 {
				first = r
				if i == 0 {
					first = branchRef{nil, 0, r.block}
				}
			}
			bw.add(item)
		}
		n := *next
		*next++
		if err := emit(n, bw.finish()); err != nil {
			return ri, err
		}
		up = append(up, branchRef{first.key, first.comp, n})
		refs = up
	}
	ri.root = refs[0].block
	ri.level = level
	ri.numEntries = uint64(len(es))
	return ri, nil
}

// truncateKey is enter_key_above_leaf's separator: newKey cut to one byte
// past the first difference from prevKey (whole when equal).
func truncateKey(prevKey []byte, newKey []byte) []byte {
	i := 0
	for i < len(newKey) && i < len(prevKey) && prevKey[i] == newKey[i] {
		i++
	}
	if i < len(newKey) {
		i++
	}
	return newKey[:i]
}

// leafItem builds I K key [X] tag for component i of m.
func leafItem(key, chunk []byte, compressed bool, i, m int) []byte {
	cd := 3 + len(key)
	if i > 1 {
		cd += 2
	}
	it := make([]byte, cd+len(chunk))
	size := len(it) - 3
	binary.BigEndian.PutUint16(it, uint16(size))
	if compressed {
		it[0] |= iCompressed
	}
	if i == m {
		it[0] |= iLast
	}
	if i == 1 {
		it[0] |= iFirst
	}
	it[2] = byte(len(key))
	copy(it[3:], key)
	if i > 1 {
		binary.BigEndian.PutUint16(it[3+len(key):], uint16(i))
	}
	copy(it[cd:], chunk)
	return it
}

// branchItem builds block(4) K key X.
func branchItem(r branchRef) []byte {
	it := make([]byte, 4+1+len(r.key)+2)
	binary.BigEndian.PutUint32(it, r.block)
	it[4] = byte(len(r.key))
	copy(it[5:], r.key)
	binary.BigEndian.PutUint16(it[5+len(r.key):], uint16(r.comp))
	return it
}

// blockWriter fills one block: directory from the front, items from the
// back, so the free space is one gap (MAX_FREE == TOTAL_FREE).
type blockWriter struct {
	b     []byte
	dir   int // DIR_END
	low   int // lowest item offset
	count int
}

func newBlockWriter(bs, level int) *blockWriter {
	b := make([]byte, bs)
	binary.BigEndian.PutUint32(b, 1) // revision 1, as xapian-compact writes
	b[4] = byte(level)
	return &blockWriter{b: b, dir: dirStart, low: bs}
}

func (w *blockWriter) fits(n int) bool { return w.low-w.dir >= n+2 }

func (w *blockWriter) add(item []byte) {
	w.low -= len(item)
	copy(w.b[w.low:], item)
	binary.BigEndian.PutUint16(w.b[w.dir:], uint16(w.low))
	w.dir += 2
	w.count++
}

func (w *blockWriter) finish() []byte {
	free := w.low - w.dir
	binary.BigEndian.PutUint16(w.b[5:], uint16(free)) // MAX_FREE
	binary.BigEndian.PutUint16(w.b[7:], uint16(free)) // TOTAL_FREE
	binary.BigEndian.PutUint16(w.b[9:], uint16(w.dir))
	return w.b
}

// flateBuf deflates tags as raw deflate streams (zlib windowBits -15, as
// common/compression_stream.cc); Xapian inflates any such stream.
type flateBuf struct {
	buf bytes.Buffer
	w   *flate.Writer
}

func (f *flateBuf) deflate(p []byte) []byte {
	f.buf.Reset()
	if f.w == nil {
		f.w, _ = flate.NewWriter(&f.buf, flate.DefaultCompression)
	} else {
		f.w.Reset(&f.buf)
	}
	f.w.Write(p)
	f.w.Close()
	return bytes.Clone(f.buf.Bytes())
}
