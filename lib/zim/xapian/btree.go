package xapian

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"fmt"
	"io"
)

// Block layout (glass_table.h/.cc): every block starts with an 11-byte
// header - revision (4 bytes, big-endian), level (1), MAX_FREE (2),
// TOTAL_FREE (2), DIR_END (2) - followed by a directory of 2-byte offsets
// to the items, in key order. Leaf item: I(2) K(1) key [X(2)] tag, where
// the top three bits of I flag compressed/last/first component and X (the
// component number) is left out of a first component. Branch item:
// block(4) K(1) key X(2).
const (
	dirStart      = 11
	levelFreelist = 254
	maxLevels     = 10 // GLASS_BTREE_CURSOR_LEVELS
	iCompressed   = 0x80
	iLast         = 0x40
	iFirst        = 0x20
	itemSizeMask  = 0x1fff
)

// Table numbers, in the order of the version file's root infos.
const (
	tPostlist = iota
	tDocdata
	tTermlist
	tPosition
	tSpelling
	tSynonym
	numTables
)

var tableNames = [numTables]string{"postlist", "docdata", "termlist", "position", "spelling", "synonym"}

// rootInfo is Glass::RootInfo as the version file serialises it.
type rootInfo struct {
	root        uint32
	level       int
	numEntries  uint64
	rootIsFake  bool
	sequential  bool
	blockSize   int
	compressMin uint32
	freelist    []byte
}

// table reads one B-tree of a single-file database.
type table struct {
	db   *DB
	name string
	ri   rootInfo
}

// block reads block n and checks its level.
func (t *table) block(n uint32, level int) ([]byte, error) {
	db := t.db
	if uint64(n) >= db.nblocks || n == 0 {
		return nil, corrupt("%s table: block %d outside the file (%d blocks)", t.name, n, db.nblocks)
	}
	if b, ok := db.cache[n]; ok {
		if int(b[4]) != level {
			return nil, corrupt("%s table: block %d is level %d, want %d", t.name, n, b[4], level)
		}
		return b, nil
	}
	b := make([]byte, db.blockSize)
	off := int64(n) * int64(db.blockSize)
	if _, err := db.r.ReadAt(b, off); err != nil {
		return nil, fmt.Errorf("%s table: block %d at offset %d: %w", t.name, n, off, err)
	}
	if int(b[4]) != level {
		return nil, corrupt("%s table: block %d (offset %d) is level %d, want %d", t.name, n, off, b[4], level)
	}
	dirEnd := int(binary.BigEndian.Uint16(b[9:]))
	if dirEnd < dirStart || dirEnd > len(b) || (dirEnd-dirStart)%2 != 0 {
		return nil, corrupt("%s table: block %d (offset %d): bad directory end %d", t.name, n, off, dirEnd)
	}
	// Check every item lies inside the block once, so that the accessors
	// below need no bounds checks of their own.
	for c := dirStart; c < dirEnd; c += 2 {
		o := int(binary.BigEndian.Uint16(b[c:]))
		if o < dirEnd || o+3 > len(b) {
			return nil, corrupt("%s table: block %d (offset %d): item offset %d out of range", t.name, n, off, o)
		}
		var size int
		if level == 0 {
			size = int(binary.BigEndian.Uint16(b[o:]))&itemSizeMask + 3
			kl := int(b[o+2])
			hdr := 3 + kl
			if b[o]&iFirst == 0 {
				hdr += 2
			}
			if size < hdr {
				return nil, corrupt("%s table: block %d (offset %d): item at %d shorter than its key", t.name, n, off, o)
			}
		} else {
			if o+5 > len(b) {
				return nil, corrupt("%s table: block %d (offset %d): item offset %d out of range", t.name, n, off, o)
			}
			size = int(b[o+4]) + 4 + 1 + 2
		}
		if o+size > len(b) {
			return nil, corrupt("%s table: block %d (offset %d): item at %d runs past the block", t.name, n, off, o)
		}
	}
	if len(db.cache) >= db.cacheMax {
		for k := range db.cache {
			delete(db.cache, k)
			break
		}
	}
	db.cache[n] = b
	return b, nil
}

func dirEnd(b []byte) int        { return int(binary.BigEndian.Uint16(b[9:])) }
func itemAt(b []byte, c int) int { return int(binary.BigEndian.Uint16(b[c:])) }

// leaf item accessors (o = item offset).
func leafKey(b []byte, o int) []byte { kl := int(b[o+2]); return b[o+3 : o+3+kl] }
func leafComp(b []byte, o int) int {
	if b[o]&iFirst != 0 {
		return 1
	}
	kl := int(b[o+2])
	return int(binary.BigEndian.Uint16(b[o+3+kl:]))
}
func leafChunk(b []byte, o int) []byte {
	size := int(binary.BigEndian.Uint16(b[o:]))&itemSizeMask + 3
	cd := 3 + int(b[o+2])
	if b[o]&iFirst == 0 {
		cd += 2
	}
	return b[o+cd : o+size]
}

// branch item accessors.
func branchKey(b []byte, o int) []byte { kl := int(b[o+4]); return b[o+5 : o+5+kl] }
func branchComp(b []byte, o int) int {
	kl := int(b[o+4])
	return int(binary.BigEndian.Uint16(b[o+5+kl:]))
}
func branchBlock(b []byte, o int) uint32 { return binary.BigEndian.Uint32(b[o:]) }

// cmpKey orders (key, component) pairs as glass's compare() does.
func cmpKey(k1 []byte, c1 int, k2 []byte, c2 int) int {
	if d := bytes.Compare(k1, k2); d != 0 {
		return d
	}
	return c1 - c2
}

// cursor is a position in a table: one (block, directory offset) per level.
type cursor struct {
	t     *table
	blk   [maxLevels][]byte
	c     [maxLevels]int
	valid bool
	steps uint64 // blocks entered by next/prev: a sound tree needs fewer than the file has
}

// step counts one block entered while walking; a damaged tree whose
// branches point at the same blocks again would otherwise walk for ever.
func (cur *cursor) step() error {
	cur.steps++
	if cur.steps > cur.t.db.nblocks {
		return corrupt("%s table: B-tree walk enters more blocks than the file has", cur.t.name)
	}
	return nil
}

// seek positions the cursor at the last item whose (key, component) is <=
// (key, 1), or before the first item (c == dirStart-2 at the leaf). It
// reports whether the item found has exactly that key as a first component.
func (cur *cursor) seek(key []byte) (exact bool, err error) {
	t := cur.t
	cur.valid = false
	if t.ri.rootIsFake {
		return false, nil
	}
	n := t.ri.root
	for j := t.ri.level; j > 0; j-- {
		b, err := t.block(n, j)
		if err != nil {
			return false, err
		}
		de := dirEnd(b)
		if de == dirStart {
			return false, corrupt("%s table: empty branch block %d", t.name, n)
		}
		// the first branch item is never compared: it stands for -inf.
		i, k := dirStart, de
		for k-i > 2 {
			m := i + ((k-i)/4)*2
			o := itemAt(b, m)
			if cmpKey(key, 1, branchKey(b, o), branchComp(b, o)) < 0 {
				k = m
			} else {
				i = m
			}
		}
		cur.blk[j], cur.c[j] = b, i
		n = branchBlock(b, itemAt(b, i))
	}
	b, err := t.block(n, 0)
	if err != nil {
		return false, err
	}
	i, k := dirStart-2, dirEnd(b)
	for k-i > 2 {
		m := i + ((k-i)/4)*2
		o := itemAt(b, m)
		r := cmpKey(key, 1, leafKey(b, o), leafComp(b, o))
		if r < 0 {
			k = m
		} else {
			i = m
			if r == 0 {
				exact = true
				break
			}
		}
	}
	cur.blk[0], cur.c[0] = b, i
	cur.valid = true
	return exact, nil
}

// next moves to the next leaf item; false at the end of the table.
func (cur *cursor) next() (bool, error) {
	if !cur.valid {
		return false, nil
	}
	return cur.nextAt(0)
}

func (cur *cursor) nextAt(j int) (bool, error) {
	t := cur.t
	b := cur.blk[j]
	c := cur.c[j] + 2
	if c >= dirEnd(b) {
		if j == t.ri.level {
			cur.valid = false
			return false, nil
		}
		ok, err := cur.nextAt(j + 1)
		if !ok || err != nil {
			cur.valid = false
			return false, err
		}
		pb := cur.blk[j+1]
		nb, err := t.block(branchBlock(pb, itemAt(pb, cur.c[j+1])), j)
		if err != nil {
			cur.valid = false
			return false, err
		}
		if dirEnd(nb) == dirStart {
			cur.valid = false
			return false, corrupt("%s table: empty block at level %d", t.name, j)
		}
		if err := cur.step(); err != nil {
			cur.valid = false
			return false, err
		}
		cur.blk[j], cur.c[j] = nb, dirStart
		return true, nil
	}
	cur.c[j] = c
	return true, nil
}

// key returns the key of the current leaf item.
func (cur *cursor) key() []byte {
	return leafKey(cur.blk[0], itemAt(cur.blk[0], cur.c[0]))
}

// atItem reports whether the cursor is on an item (not before the first).
func (cur *cursor) atItem() bool { return cur.valid && cur.c[0] >= dirStart }

// readTag assembles the tag whose first component the cursor is on,
// inflating it when compressed, and leaves the cursor on its last
// component. The tag may be at most max bytes (inflated).
func (cur *cursor) readTag(max int) ([]byte, error) {
	t := cur.t
	b := cur.blk[0]
	o := itemAt(b, cur.c[0])
	if b[o]&iFirst == 0 {
		return nil, corrupt("%s table: tag for key %q does not start with its first component", t.name, leafKey(b, o))
	}
	key := append([]byte(nil), leafKey(b, o)...)
	compressed := b[o]&iCompressed != 0
	var raw []byte
	for comp := 1; ; comp++ {
		b = cur.blk[0]
		o = itemAt(b, cur.c[0])
		if !bytes.Equal(leafKey(b, o), key) || leafComp(b, o) != comp {
			return nil, corrupt("%s table: tag for key %q: component %d missing", t.name, key, comp)
		}
		raw = append(raw, leafChunk(b, o)...)
		if len(raw) > max {
			return nil, corrupt("%s table: tag for key %q larger than %d bytes", t.name, key, max)
		}
		if b[o]&iLast != 0 {
			break
		}
		ok, err := cur.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, corrupt("%s table: tag for key %q: table ends inside it", t.name, key)
		}
	}
	if !compressed {
		return raw, nil
	}
	zr := flate.NewReader(bytes.NewReader(raw))
	out, err := io.ReadAll(io.LimitReader(zr, int64(max)+1))
	if err != nil {
		return nil, corrupt("%s table: tag for key %q: inflate: %v", t.name, key, err)
	}
	if len(out) > max {
		return nil, corrupt("%s table: tag for key %q inflates past %d bytes", t.name, key, max)
	}
	return out, nil
}

// get returns the tag stored under key, or found=false.
func (t *table) get(key []byte) (tag []byte, found bool, err error) {
	cur := cursor{t: t}
	exact, err := cur.seek(key)
	if err != nil || !exact {
		return nil, false, err
	}
	tag, err = cur.readTag(t.db.maxTag)
	return tag, err == nil, err
}

// scan calls fn for every key >= from, in order, until fn returns false.
func (t *table) scan(from []byte, fn func(key, tag []byte) (bool, error)) error {
	cur := cursor{t: t}
	exact, err := cur.seek(from)
	if err != nil {
		return err
	}
	if !cur.valid {
		return nil
	}
	if !exact {
		if ok, err := cur.next(); !ok || err != nil {
			return err
		}
	}
	for {
		b := cur.blk[0]
		o := itemAt(b, cur.c[0])
		if b[o]&iFirst == 0 {
			// a continuation not preceded by its first component
			return corrupt("%s table: orphan continuation of key %q", t.name, leafKey(b, o))
		}
		key := append([]byte(nil), cur.key()...)
		tag, err := cur.readTag(t.db.maxTag)
		if err != nil {
			return err
		}
		more, err := fn(key, tag)
		if err != nil || !more {
			return err
		}
		if ok, err := cur.next(); !ok || err != nil {
			return err
		}
	}
}

// prev moves to the previous leaf item; false before the start.
func (cur *cursor) prev() (bool, error) {
	if !cur.valid {
		return false, nil
	}
	return cur.prevAt(0)
}

func (cur *cursor) prevAt(j int) (bool, error) {
	t := cur.t
	c := cur.c[j]
	if c <= dirStart {
		if j == t.ri.level {
			cur.valid = false
			return false, nil
		}
		ok, err := cur.prevAt(j + 1)
		if !ok || err != nil {
			cur.valid = false
			return false, err
		}
		pb := cur.blk[j+1]
		nb, err := t.block(branchBlock(pb, itemAt(pb, cur.c[j+1])), j)
		if err != nil {
			cur.valid = false
			return false, err
		}
		if dirEnd(nb) == dirStart {
			cur.valid = false
			return false, corrupt("%s table: empty block at level %d", t.name, j)
		}
		if err := cur.step(); err != nil {
			cur.valid = false
			return false, err
		}
		cur.blk[j], cur.c[j] = nb, dirEnd(nb)-2
		return true, nil
	}
	cur.c[j] = c - 2
	return true, nil
}

// seekLE positions the cursor on the first component of the last tag whose
// key is <= key; false when there is none.
func (cur *cursor) seekLE(key []byte) (exact, ok bool, err error) {
	exact, err = cur.seek(key)
	if err != nil || !cur.valid {
		return false, false, err
	}
	if !cur.atItem() {
		if ok, err := cur.prev(); !ok || err != nil {
			return false, false, err
		}
	}
	// back up over continuation components to the first one
	for i := 0; ; i++ {
		b := cur.blk[0]
		if b[itemAt(b, cur.c[0])]&iFirst != 0 {
			return exact, true, nil
		}
		if i > 1<<16 {
			return false, false, corrupt("%s table: too many components", cur.t.name)
		}
		if ok, err := cur.prev(); !ok || err != nil {
			if err == nil {
				err = corrupt("%s table: continuation at the start of the table", cur.t.name)
			}
			return false, false, err
		}
	}
}
