package xapian

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
)

// Document is one document to add: data, terms (with wdf and positions)
// and values, built like Xapian::Document.
type Document struct {
	data   []byte
	terms  map[string]*docTerm
	values map[uint32][]byte
}

type docTerm struct {
	wdf uint32
	pos []uint32 // ascending, no duplicates
}

// NewDocument returns an empty document.
func NewDocument() *Document {
	return &Document{terms: map[string]*docTerm{}, values: map[uint32][]byte{}}
}

// SetData sets the document data (libzim stores the entry path there).
func (d *Document) SetData(b []byte) { d.data = bytes.Clone(b) }

// AddTerm adds term with wdfInc to its within-document frequency, as
// Xapian::Document::add_term.
func (d *Document) AddTerm(term string, wdfInc uint32) {
	t := d.terms[term]
	if t == nil {
		t = &docTerm{}
		d.terms[term] = t
	}
	t.wdf += wdfInc
}

// AddPosting adds term at position pos with wdfInc, as
// Xapian::Document::add_posting.
func (d *Document) AddPosting(term string, pos uint32, wdfInc uint32) {
	d.AddTerm(term, wdfInc)
	t := d.terms[term]
	i, found := slices.BinarySearch(t.pos, pos)
	if !found {
		t.pos = slices.Insert(t.pos, i, pos)
	}
}

// AddValue sets the value in slot (an empty value removes it).
func (d *Document) AddValue(slot uint32, v []byte) {
	if len(v) == 0 {
		delete(d.values, slot)
		return
	}
	d.values[slot] = bytes.Clone(v)
}

// WriterOptions adjust NewWriter.
type WriterOptions struct {
	// BlockSize of the B-trees: a power of two from 2048 to 65536
	// (default 8192, Xapian's default and libzim's).
	BlockSize int
	// UUID of the database; zero means one derived from the content, so
	// the same documents give the same bytes.
	UUID [16]byte
	// NoTermList leaves the termlist table empty, as libzim's indexes
	// are (it opens its databases with Xapian::DB_NO_TERMLIST): smaller,
	// and searching needs no term lists.
	NoTermList bool
}

// Writer builds a single-file glass database in memory and writes it
// with WriteTo. Document ids are 1, 2, 3... in the order of Add.
type Writer struct {
	opt      WriterOptions
	ndocs    uint32
	postings map[string][]Posting
	doclens  []uint32
	docdata  []kv
	termlist []kv
	position []kv
	values   map[uint32][]valueAt
	metadata map[string][]byte
	wdfUpper uint32
	total    uint64
}

type valueAt struct {
	did uint32
	v   []byte
}

// NewWriter returns an empty Writer.
func NewWriter(opt WriterOptions) (*Writer, error) {
	if opt.BlockSize == 0 {
		opt.BlockSize = 8192
	}
	bs := opt.BlockSize
	if bs < minBlockSize || bs > maxBlockSize || bs&(bs-1) != 0 {
		return nil, fmt.Errorf("xapian: block size %d: want a power of two from 2048 to 65536", bs)
	}
	return &Writer{opt: opt, postings: map[string][]Posting{}, values: map[uint32][]valueAt{}, metadata: map[string][]byte{}}, nil
}

// maxTermLen is the longest term, as it is escaped in keys (each NUL
// doubled), that a position or posting key (term, NUL, 2..9 byte docid)
// always has room for within the 255-byte key limit; Xapian refuses longer
// ones when it writes them.
const maxTermLen = 245

// Add adds a document and returns its id.
func (w *Writer) Add(d *Document) (uint32, error) {
	if w.ndocs == 0xffffffff {
		return 0, errors.New("xapian: too many documents")
	}
	terms := make([]string, 0, len(d.terms))
	for t := range d.terms {
		if t == "" {
			return 0, errors.New("xapian: empty term")
		}
		if n := len(t) + strings.Count(t, "\x00"); n > maxTermLen {
			return 0, fmt.Errorf("xapian: term of %d bytes, %d in a key (at most %d)", len(t), n, maxTermLen)
		}
		terms = append(terms, t)
	}
	sort.Strings(terms)
	w.ndocs++
	did := w.ndocs
	var doclen uint64
	for _, t := range terms {
		dt := d.terms[t]
		doclen += uint64(dt.wdf)
		w.wdfUpper = max(w.wdfUpper, dt.wdf)
		w.postings[t] = append(w.postings[t], Posting{did, dt.wdf})
		if len(dt.pos) > 0 {
			w.position = append(w.position, kv{positionKey(did, t), encodePositions(dt.pos)})
		}
	}
	if doclen > 0xffffffff {
		return 0, errors.New("xapian: document length overflows 32 bits")
	}
	w.doclens = append(w.doclens, uint32(doclen))
	w.total += doclen
	if !w.opt.NoTermList {
		w.termlist = append(w.termlist, kv{packUintSort(nil, uint64(did)), termlistTag(uint32(doclen), terms, d.terms)})
	}
	if len(d.data) > 0 {
		w.docdata = append(w.docdata, kv{packUintSort(nil, uint64(did)), d.data})
	}
	if len(d.values) > 0 {
		slots := make([]uint32, 0, len(d.values))
		for s := range d.values {
			slots = append(slots, s)
		}
		slices.Sort(slots)
		var used []byte
		prev := uint32(0xffffffff)
		for _, s := range slots {
			used = packUint(used, uint64(s-prev-1))
			prev = s
			w.values[s] = append(w.values[s], valueAt{did, d.values[s]})
		}
		// the slots a document uses: key docid + NUL in the termlist table
		if !w.opt.NoTermList {
			w.termlist = append(w.termlist, kv{append(packUintSort(nil, uint64(did)), 0), used})
		}
	}
	return did, nil
}

// SetMetadata stores user metadata (an empty value removes it).
func (w *Writer) SetMetadata(key string, value []byte) error {
	if len(key) == 0 || len(key)+2 > 255 {
		return fmt.Errorf("xapian: metadata key of %d bytes (1 to 253)", len(key))
	}
	if len(value) == 0 {
		delete(w.metadata, key)
		return nil
	}
	w.metadata[key] = bytes.Clone(value)
	return nil
}

// termlistTag is GlassTermListTable::set_termlist: doclen, term count,
// then each term as (reuse, suffix) of the previous one with the wdf
// folded into the reuse byte where it fits.
func termlistTag(doclen uint32, terms []string, m map[string]*docTerm) []byte {
	if len(terms) == 0 {
		return nil
	}
	tag := packUint(nil, uint64(doclen))
	tag = packUint(tag, uint64(len(terms)))
	prev := terms[0]
	tag = append(tag, byte(len(prev)))
	tag = append(tag, prev...)
	tag = packUint(tag, uint64(m[prev].wdf))
	for _, t := range terms[1:] {
		reuse := 0
		for reuse < len(prev) && reuse < len(t) && prev[reuse] == t[reuse] {
			reuse++
		}
		wdf := m[t].wdf
		packed := 0
		if wdf < 127 {
			packed = (int(wdf)+1)*(len(prev)+1) + reuse
		}
		if packed > 0 && packed < 256 {
			tag = append(tag, byte(packed), byte(len(t)-reuse))
			tag = append(tag, t[reuse:]...)
		} else {
			tag = append(tag, byte(reuse), byte(len(t)-reuse))
			tag = append(tag, t[reuse:]...)
			tag = packUint(tag, uint64(wdf))
		}
		prev = t
	}
	return tag
}

// chunkSize is CHUNKSIZE (posting lists) and CHUNK_SIZE_THRESHOLD (value
// streams): a chunk is closed once its entries reach this many bytes.
const chunkSize = 2000

// postlistEntries adds a posting list (a term's, or the doclen list for
// term "") to the postlist table, in chunks as PostlistChunkWriter cuts
// them.
func postlistEntries(tb *treeBuilder, term string, ps []Posting, tf uint32, cf uint64) {
	type chunk struct {
		first, last uint32
		body        []byte
	}
	var chunks []chunk
	var c chunk
	for i, p := range ps {
		if i == 0 {
			c = chunk{first: p.DocID}
		} else if len(c.body) >= chunkSize {
			chunks = append(chunks, c)
			c = chunk{first: p.DocID}
		} else {
			c.body = packUint(c.body, uint64(p.DocID-c.last-1))
		}
		c.last = p.DocID
		c.body = packUint(c.body, uint64(p.WDF))
	}
	chunks = append(chunks, c)
	for i, c := range chunks {
		var tag []byte
		if i == 0 {
			tag = packUint(tag, uint64(tf))
			tag = packUint(tag, cf)
			tag = packUint(tag, uint64(c.first-1))
		}
		if i == len(chunks)-1 {
			tag = append(tag, '1')
		} else {
			tag = append(tag, '0')
		}
		tag = packUint(tag, uint64(c.last-c.first))
		tag = append(tag, c.body...)
		tb.add(postlistKey(term, c.first, i == 0), tag)
	}
}

// WriteTo writes the database: block 0 holds the version header, then
// the postlist, docdata, termlist and position tables' blocks follow, as
// xapian-compact --single-file lays them out.
func (w *Writer) WriteTo(out io.Writer) (int64, error) {
	bs := w.opt.BlockSize
	tbs := [numTables]*treeBuilder{}
	compressMin := [numTables]int{0, 18, 18, 0, 18, 18} // compress_min_tab
	for i := range tbs {
		tbs[i] = &treeBuilder{name: tableNames[i], blockSize: bs, compressMin: compressMin[i]}
	}
	pl := tbs[tPostlist]
	var dlLower, dlUpper uint32
	if w.ndocs > 0 {
		dl := make([]Posting, len(w.doclens))
		for i, n := range w.doclens {
			dl[i] = Posting{uint32(i + 1), n}
			if n > 0 && (dlLower == 0 || n < dlLower) {
				dlLower = n
			}
			dlUpper = max(dlUpper, n)
		}
		postlistEntries(pl, "", dl, 0, 0)
	}
	for term, ps := range w.postings {
		var cf uint64
		for _, p := range ps {
			cf += uint64(p.WDF)
		}
		postlistEntries(pl, term, ps, uint32(len(ps)), cf)
	}
	for slot, vs := range w.values {
		lo, hi := vs[0].v, vs[0].v
		var tag []byte
		first := vs[0].did
		var prev uint32
		for _, v := range vs {
			if bytes.Compare(v.v, lo) < 0 {
				lo = v.v
			}
			if bytes.Compare(v.v, hi) > 0 {
				hi = v.v
			}
			if len(tag) == 0 {
				first = v.did
			} else {
				tag = packUint(tag, uint64(v.did-prev-1))
			}
			prev = v.did
			tag = packString(tag, v.v)
			if len(tag) >= chunkSize {
				pl.add(valueChunkKey(slot, first), tag)
				tag = nil
			}
		}
		if len(tag) > 0 {
			pl.add(valueChunkKey(slot, first), tag)
		}
		key := []byte{0, 0xd0}
		for s := slot; s != 0; s >>= 8 {
			key = append(key, byte(s))
		}
		st := packUint(nil, uint64(len(vs)))
		st = packString(st, lo)
		if !bytes.Equal(lo, hi) {
			st = append(st, hi...)
		}
		pl.add(key, st)
	}
	for k, v := range w.metadata {
		pl.add(append([]byte{0, 0xc0}, k...), v)
	}
	tbs[tDocdata].entries = w.docdata
	tbs[tTermlist].entries = w.termlist
	tbs[tPosition].entries = w.position

	// Build the tables into memory blocks (numbered from 1; block 0 is
	// the header).
	var blocks [][]byte
	next := uint32(1)
	emit := func(n uint32, b []byte) error {
		if int(n) != len(blocks)+1 {
			return fmt.Errorf("xapian: internal error: block %d out of order", n)
		}
		blocks = append(blocks, b)
		return nil
	}
	var roots [numTables]rootInfo
	for i, tb := range tbs {
		ri, err := tb.build(&next, emit)
		if err != nil {
			return 0, err
		}
		if !ri.rootIsFake {
			// freelist: revision 1, first unused block, empty fl and flw
			fl := packUint(nil, 1)
			fl = packUint(fl, uint64(next))
			fl = append(fl, 0, 0, 0, 0)
			ri.freelist = fl
		}
		roots[i] = ri
	}

	uuid := w.opt.UUID
	if uuid == ([16]byte{}) {
		h := sha256.New()
		for _, b := range blocks {
			h.Write(b)
		}
		copy(uuid[:], h.Sum(nil))
		uuid[6] = uuid[6]&0x0f | 0x40 // version 4 layout
		uuid[8] = uuid[8]&0x3f | 0x80
	}
	hdr := make([]byte, 0, bs)
	hdr = append(hdr, versionMagic...)
	hdr = append(hdr, byte(formatVersion>>8), byte(formatVersion&0xff))
	hdr = append(hdr, uuid[:]...)
	hdr = packUint(hdr, 1) // revision
	for _, ri := range roots {
		hdr = packUint(hdr, uint64(ri.root))
		val := uint64(ri.level) << 2
		if ri.sequential {
			val |= 2
		}
		if ri.rootIsFake {
			val |= 1
		}
		hdr = packUint(hdr, val)
		hdr = packUint(hdr, ri.numEntries)
		hdr = packUint(hdr, uint64(ri.blockSize>>11))
		hdr = packUint(hdr, uint64(ri.compressMin))
		hdr = packString(hdr, ri.freelist)
	}
	// statistics: doccount, last_docid - doccount, doclen_lbound,
	// wdf_ubound, doclen_ubound - wdf_ubound, oldest_changeset,
	// total_doclen, spelling_wordfreq_ubound
	hdr = packUint(hdr, uint64(w.ndocs))
	hdr = packUint(hdr, 0)
	hdr = packUint(hdr, uint64(dlLower))
	hdr = packUint(hdr, uint64(w.wdfUpper))
	hdr = packUint(hdr, uint64(max(dlUpper, w.wdfUpper)-w.wdfUpper))
	hdr = packUint(hdr, 0)
	hdr = packUint(hdr, w.total)
	hdr = packUint(hdr, 0)
	if len(hdr) > 256 {
		return 0, errors.New("xapian: internal error: version header over 256 bytes")
	}
	hdr = hdr[:bs]
	var n int64
	m, err := out.Write(hdr)
	n += int64(m)
	if err != nil {
		return n, err
	}
	for _, b := range blocks {
		m, err := out.Write(b)
		n += int64(m)
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

func sortKV(es []kv) {
	slices.SortFunc(es, func(a, b kv) int { return bytes.Compare(a.key, b.key) })
}
