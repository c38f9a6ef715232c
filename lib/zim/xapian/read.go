package xapian

import (
	"bytes"
	"fmt"
)

// Posting is one entry of a posting list.
type Posting struct {
	DocID uint32
	WDF   uint32 // within-document frequency (for the doclen list: the length)
}

// TermEntry is one entry of a document's term list.
type TermEntry struct {
	Term string
	WDF  uint32
}

// postlistKey is GlassPostListTable::make_key: the first chunk's key is
// the term alone (the empty term - the document length list - is
// "\x00\xe0"); later chunks add the first docid of the chunk.
func postlistKey(term string, did uint32, first bool) []byte {
	var k []byte
	if term == "" {
		k = []byte{0, 0xe0}
		if !first {
			k = packUintSort(k, uint64(did))
		}
		return k
	}
	if first {
		return packStringSort(nil, []byte(term), true)
	}
	return packUintSort(packStringSort(nil, []byte(term), false), uint64(did))
}

// TermFreq returns a term's document frequency and collection frequency
// (0, 0 for a term that is not in the database).
func (db *DB) TermFreq(term string) (tf uint32, cf uint64, err error) {
	if term == "" {
		return 0, 0, nil
	}
	tag, found, err := db.tables[tPostlist].get(postlistKey(term, 0, true))
	if err != nil || !found {
		return 0, 0, db.fail(err)
	}
	v, p, ok := unpackUint32(tag)
	if !ok {
		return 0, 0, corrupt("postlist for %q: bad term frequency", term)
	}
	c, _, ok := unpackUint(p)
	if !ok {
		return 0, 0, corrupt("postlist for %q: bad collection frequency", term)
	}
	return v, c, nil
}

// ScanPostings calls fn for each posting of term in docid order until fn
// returns false. The empty term walks the document length list.
func (db *DB) ScanPostings(term string, fn func(Posting) bool) error {
	t := &db.tables[tPostlist]
	cur := cursor{t: t}
	exact, err := cur.seek(postlistKey(term, 0, true))
	if err != nil || !exact {
		return db.fail(err)
	}
	tag, err := cur.readTag(db.maxTag)
	if err != nil {
		return db.fail(err)
	}
	p := tag
	var ok bool
	if _, p, ok = unpackUint(p); !ok { // term frequency
		return corrupt("postlist for %q: bad first chunk header", term)
	}
	if _, p, ok = unpackUint(p); !ok { // collection frequency
		return corrupt("postlist for %q: bad first chunk header", term)
	}
	var did0 uint32
	if did0, p, ok = unpackUint32(p); !ok || did0 == 0xffffffff {
		return corrupt("postlist for %q: bad first docid", term)
	}
	first := did0 + 1
	prefix := []byte{0, 0xe0}
	if term != "" {
		prefix = packStringSort(nil, []byte(term), false)
	}
	for {
		last, isLast, rest, err := chunkHeader(p, first)
		if err != nil {
			return corrupt("postlist for %q: chunk at docid %d: %v", term, first, err)
		}
		more, err := walkChunk(rest, first, last, fn)
		if err != nil {
			return corrupt("postlist for %q: chunk at docid %d: %v", term, first, err)
		}
		if !more || isLast {
			return nil
		}
		ok, err := cur.next()
		if err != nil {
			return db.fail(err)
		}
		if !ok {
			return corrupt("postlist for %q: table ends before the last chunk", term)
		}
		k := cur.key()
		if !bytes.HasPrefix(k, prefix) {
			return corrupt("postlist for %q: chunk after docid %d missing", term, last)
		}
		d, r, ok := unpackUintSort(k[len(prefix):])
		if !ok || len(r) != 0 || d <= uint64(last) || d > 0xffffffff {
			return corrupt("postlist for %q: bad chunk key after docid %d", term, last)
		}
		first = uint32(d)
		if p, err = cur.readTag(db.maxTag); err != nil {
			return db.fail(err)
		}
	}
}

// chunkHeader reads a chunk's is-last flag ('0' or '1') and the increase
// from its first to its last docid.
func chunkHeader(p []byte, first uint32) (last uint32, isLast bool, rest []byte, err error) {
	if len(p) == 0 || p[0]&^1 != '0' {
		return 0, false, nil, fmt.Errorf("bad is-last flag")
	}
	isLast = p[0] == '1'
	inc, p, ok := unpackUint(p[1:])
	if !ok || uint64(first)+inc > 0xffffffff {
		return 0, false, nil, fmt.Errorf("bad last docid")
	}
	return first + uint32(inc), isLast, p, nil
}

// walkChunk decodes wdf, (docid increase - 1, wdf)... from first to last.
func walkChunk(p []byte, first, last uint32, fn func(Posting) bool) (bool, error) {
	did := uint64(first)
	for {
		wdf, r, ok := unpackUint32(p)
		if !ok {
			return false, fmt.Errorf("bad wdf after docid %d", did)
		}
		p = r
		if !fn(Posting{uint32(did), wdf}) {
			return false, nil
		}
		if len(p) == 0 {
			if did != uint64(last) {
				return false, fmt.Errorf("chunk ends at docid %d, header says %d", did, last)
			}
			return true, nil
		}
		inc, r, ok := unpackUint(p)
		if !ok {
			return false, fmt.Errorf("bad docid increase after docid %d", did)
		}
		p = r
		did += inc + 1
		if did > uint64(last) {
			return false, fmt.Errorf("docid %d past the chunk's last %d", did, last)
		}
	}
}

// Postings returns the posting list of term (nil when absent).
func (db *DB) Postings(term string) ([]Posting, error) {
	var ps []Posting
	err := db.ScanPostings(term, func(p Posting) bool { ps = append(ps, p); return true })
	return ps, err
}

// DocLength returns the length of document did, ok=false when there is no
// such document. It reads only the doclen chunk that holds did.
func (db *DB) DocLength(did uint32) (n uint32, ok bool, err error) {
	t := &db.tables[tPostlist]
	cur := cursor{t: t}
	_, found, err := cur.seekLE(postlistKey("", did, false))
	if err != nil || !found {
		return 0, false, err
	}
	key := cur.key()
	if !bytes.HasPrefix(key, []byte{0, 0xe0}) {
		return 0, false, nil
	}
	tag, err := cur.readTag(db.maxTag)
	if err != nil {
		return 0, false, err
	}
	var first uint32
	p := tag
	if len(key) == 2 { // the first chunk: dummy tf and cf, first docid - 1
		var d0 uint32
		var ok1, ok2, ok3 bool
		_, p, ok1 = unpackUint(p)
		if ok1 {
			_, p, ok2 = unpackUint(p)
		}
		if ok2 {
			d0, p, ok3 = unpackUint32(p)
		}
		if !ok3 || d0 == 0xffffffff {
			return 0, false, corrupt("doclen list: bad first chunk header")
		}
		first = d0 + 1
	} else {
		d, r, ok := unpackUintSort(key[2:])
		if !ok || len(r) != 0 || d > 0xffffffff {
			return 0, false, corrupt("doclen list: bad chunk key %q", key)
		}
		first = uint32(d)
	}
	last, _, rest, err := chunkHeader(p, first)
	if err != nil {
		return 0, false, corrupt("doclen list: chunk at docid %d: %v", first, err)
	}
	if did < first || did > last {
		return 0, false, nil
	}
	_, err = walkChunk(rest, first, last, func(p Posting) bool {
		if p.DocID >= did {
			n, ok = p.WDF, p.DocID == did
			return false
		}
		return true
	})
	if err != nil {
		return 0, false, corrupt("doclen list: chunk at docid %d: %v", first, err)
	}
	return n, ok, nil
}

// DocData returns the data of document did (empty for a document with
// none, or no such document).
func (db *DB) DocData(did uint32) ([]byte, error) {
	tag, _, err := db.tables[tDocdata].get(packUintSort(nil, uint64(did)))
	return tag, db.fail(err)
}

// Metadata returns the user metadata stored under key.
func (db *DB) Metadata(key string) ([]byte, error) {
	tag, _, err := db.tables[tPostlist].get(append([]byte{0, 0xc0}, key...))
	return tag, db.fail(err)
}

// TermList returns the length of document did and its terms in byte
// order with their wdf; found is false when the document has no term list.
func (db *DB) TermList(did uint32) (doclen uint32, terms []TermEntry, found bool, err error) {
	tag, found, err := db.tables[tTermlist].get(packUintSort(nil, uint64(did)))
	if err != nil || !found {
		return 0, nil, false, db.fail(err)
	}
	if len(tag) == 0 {
		return 0, nil, true, nil
	}
	p := tag
	var ok bool
	var n uint32
	if doclen, p, ok = unpackUint32(p); !ok {
		return 0, nil, true, corrupt("termlist of document %d: bad length", did)
	}
	if n, p, ok = unpackUint32(p); !ok {
		return 0, nil, true, corrupt("termlist of document %d: bad term count", did)
	}
	var cur []byte
	for len(p) > 0 {
		var wdf uint32
		wdfInReuse := false
		if len(terms) > 0 {
			reuse := int(p[0])
			p = p[1:]
			if reuse > len(cur) {
				wdfInReuse = true
				div := len(cur) + 1
				wdf = uint32(reuse/div - 1)
				reuse %= div
			}
			cur = cur[:reuse]
		}
		if len(p) == 0 || int(p[0]) > len(p)-1 {
			return 0, nil, true, corrupt("termlist of document %d: truncated term", did)
		}
		al := int(p[0])
		cur = append(cur, p[1:1+al]...)
		p = p[1+al:]
		if !wdfInReuse {
			if wdf, p, ok = unpackUint32(p); !ok {
				return 0, nil, true, corrupt("termlist of document %d: bad wdf", did)
			}
		}
		terms = append(terms, TermEntry{string(cur), wdf})
		if uint32(len(terms)) > n {
			return 0, nil, true, corrupt("termlist of document %d: more terms than its count %d", did, n)
		}
	}
	if uint32(len(terms)) != n {
		return 0, nil, true, corrupt("termlist of document %d: %d terms, count says %d", did, len(terms), n)
	}
	return doclen, terms, true, nil
}

// positionKey is GlassPositionListTable::make_key.
func positionKey(did uint32, term string) []byte {
	return packUintSort(packStringSort(nil, []byte(term), false), uint64(did))
}

// Positions returns the positions of term in document did (nil when it
// has none).
func (db *DB) Positions(did uint32, term string) ([]uint32, error) {
	tag, found, err := db.tables[tPosition].get(positionKey(did, term))
	if err != nil || !found {
		return nil, db.fail(err)
	}
	// a term has at most wdf positions, and no wdf exceeds the bound the
	// version header keeps; dense lists take no bits per position, so a
	// damaged tag could otherwise claim millions.
	limit := db.maxTag / 4
	if w := int64(db.stats.WDFUpper); w < int64(limit) {
		limit = int(w)
	}
	ps, err := decodePositions(tag, limit)
	if err != nil {
		return nil, corrupt("positions of %q in document %d: %v", term, did, err)
	}
	return ps, nil
}

// ValueStats are a value slot's frequency and bounds.
type ValueStats struct {
	Freq         uint32
	Lower, Upper []byte
}

// ValueStats returns the statistics of a value slot.
func (db *DB) ValueStats(slot uint32) (ValueStats, error) {
	var vs ValueStats
	key := []byte{0, 0xd0}
	for s := slot; s != 0; s >>= 8 { // pack_uint_last
		key = append(key, byte(s))
	}
	tag, found, err := db.tables[tPostlist].get(key)
	if err != nil || !found {
		return vs, db.fail(err)
	}
	var ok bool
	p := tag
	if vs.Freq, p, ok = unpackUint32(p); !ok {
		return vs, corrupt("value stats of slot %d: bad frequency", slot)
	}
	if vs.Lower, p, ok = unpackString(p); !ok {
		return vs, corrupt("value stats of slot %d: bad lower bound", slot)
	}
	vs.Upper = p
	if len(p) == 0 {
		vs.Upper = vs.Lower
	}
	return vs, nil
}

func valueChunkKey(slot, did uint32) []byte {
	return packUintSort(packUint([]byte{0, 0xd8}, uint64(slot)), uint64(did))
}

// Value returns the value in slot of document did (nil when unset).
func (db *DB) Value(did, slot uint32) ([]byte, error) {
	t := &db.tables[tPostlist]
	cur := cursor{t: t}
	_, ok, err := cur.seekLE(valueChunkKey(slot, did))
	if err != nil || !ok {
		return nil, db.fail(err)
	}
	key := append([]byte(nil), cur.key()...)
	prefix := packUint([]byte{0, 0xd8}, uint64(slot))
	if !bytes.HasPrefix(key, prefix) {
		return nil, nil
	}
	d, r, ok := unpackUintSort(key[len(prefix):])
	if !ok || len(r) != 0 || d > 0xffffffff {
		return nil, corrupt("bad value chunk key %q", key)
	}
	tag, err := cur.readTag(db.maxTag)
	if err != nil {
		return nil, db.fail(err)
	}
	var val []byte
	err = walkValues(tag, uint32(d), func(vd uint32, v []byte) bool {
		if vd >= did {
			if vd == did {
				val = v
			}
			return false
		}
		return true
	})
	return val, err
}

// walkValues decodes a value stream chunk: the first value, then (docid
// increase - 1, value)....
func walkValues(p []byte, did uint32, fn func(uint32, []byte) bool) error {
	d := uint64(did)
	for first := true; len(p) > 0 || first; first = false {
		if !first {
			inc, r, ok := unpackUint(p)
			if !ok || d+inc+1 > 0xffffffff {
				return corrupt("value chunk: bad docid after %d", d)
			}
			d += inc + 1
			p = r
		}
		v, r, ok := unpackString(p)
		if !ok {
			return corrupt("value chunk: bad value for docid %d", d)
		}
		p = r
		if !fn(uint32(d), v) {
			return nil
		}
	}
	return nil
}

// AllTerms calls fn for every term (in byte order) with prefix, with its
// term frequency and collection frequency, until fn returns false.
func (db *DB) AllTerms(prefix string, fn func(term string, tf uint32, cf uint64) bool) error {
	t := &db.tables[tPostlist]
	from := []byte(prefix)
	if prefix == "" {
		from = []byte{0, 0xff} // the first term key after the special keys
	} else {
		from = packStringSort(nil, from, true)
	}
	err := t.scan(from, func(key, tag []byte) (bool, error) {
		if len(key) > 0 && key[0] == 0 && (len(key) < 2 || key[1] != 0xff) {
			return true, nil // special key
		}
		term, rest := unpackStringSort(key)
		if rest != nil {
			return true, nil // a later chunk
		}
		if !bytes.HasPrefix(term, []byte(prefix)) {
			return false, nil
		}
		tf, p, ok := unpackUint32(tag)
		if !ok {
			return false, corrupt("postlist for %q: bad term frequency", term)
		}
		cf, _, ok := unpackUint(p)
		if !ok {
			return false, corrupt("postlist for %q: bad collection frequency", term)
		}
		return fn(string(term), tf, cf), nil
	})
	return db.fail(err)
}

// fail passes on a table walk's error: corruption already wraps
// ErrCorrupt, I/O errors stay as they are.
func (db *DB) fail(err error) error { return err }
