package xapian

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// The version file (glass_version.cc), which a single-file database keeps
// at the start of its block 0: the magic "\x0f\x0dXapian Glass" and the
// format version 2016-03-14 as a 2-byte date, a 16-byte UUID, the revision,
// one root info per table, then the database statistics.
var versionMagic = []byte("\x0f\x0dXapian Glass")

// formatVersion is DATE_TO_VERSION(2016,03,14), the only glass format.
const formatVersion = (2016-2014)<<9 | 3<<5 | 14

const (
	minBlockSize = 2048
	maxBlockSize = 65536
)

// ErrCorrupt is wrapped by every error that reports a damaged database.
var ErrCorrupt = errors.New("xapian: corrupt glass database")

// Stats are the database statistics of the version file.
type Stats struct {
	DocCount        uint32 // documents
	LastDocID       uint32 // highest document id used
	DocLenLower     uint32 // lower bound on document length
	DocLenUpper     uint32 // upper bound on document length
	WDFUpper        uint32 // upper bound on within-document frequency
	TotalDocLen     uint64 // sum of document lengths
	OldestChangeset uint32
	SpellingWFUpper uint32 // upper bound on spelling word frequency
	Revision        uint32 // revision of the version file
	UUID            [16]byte
	BlockSize       int
	TableEntries    [numTables]uint64 // items per table (postlist, docdata, termlist, position, spelling, synonym)
}

// DB is an open single-file glass database. It is not safe for
// concurrent use (it caches blocks).
type DB struct {
	r         io.ReaderAt
	size      int64
	blockSize int
	nblocks   uint64
	tables    [numTables]table
	stats     Stats
	cache     map[uint32][]byte
	cacheMax  int
	maxTag    int
	doclens   []uint32 // document lengths by docid, once SearchTerms needs them
}

// Option adjusts Open.
type Option func(*DB)

// WithMaxTag bounds the size of one tag (an entry's value after
// reassembly and inflation; default 64 MiB): a damaged database cannot make
// the reader allocate more than this per entry.
func WithMaxTag(n int) Option { return func(db *DB) { db.maxTag = n } }

// WithCacheBlocks sets how many blocks the reader keeps (default 64).
func WithCacheBlocks(n int) Option { return func(db *DB) { db.cacheMax = max(n, 1) } }

func corrupt(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, a...))
}

// Open reads the version header of the single-file glass database held in
// r's first size bytes (for a database inside a ZIM, an io.SectionReader
// over its blob).
func Open(r io.ReaderAt, size int64, opts ...Option) (*DB, error) {
	db := &DB{r: r, size: size, cacheMax: 64, maxTag: 64 << 20}
	for _, o := range opts {
		o(db)
	}
	db.cache = make(map[uint32][]byte)
	hdr := make([]byte, 256)
	n, err := r.ReadAt(hdr, 0)
	if err != nil && !(err == io.EOF && n > 0) {
		if err == io.EOF {
			return nil, corrupt("empty file")
		}
		return nil, err
	}
	if int64(n) > size {
		n = int(size)
	}
	hdr = hdr[:n]
	if len(hdr) < 16 || !bytes.Equal(hdr[:14], versionMagic) {
		return nil, corrupt("no glass magic at offset 0")
	}
	if v := int(hdr[14])<<8 | int(hdr[15]); v != formatVersion {
		return nil, corrupt("glass format version %d.%02d.%02d, want 2016.03.14", v>>9+2014, v>>5&15, v&31)
	}
	p := hdr[16:]
	if len(p) < 16 {
		return nil, corrupt("version header truncated in the UUID")
	}
	copy(db.stats.UUID[:], p)
	p = p[16:]
	var ok bool
	if db.stats.Revision, p, ok = unpackUint32(p); !ok {
		return nil, corrupt("version header: bad revision")
	}
	for i := range db.tables {
		var ri rootInfo
		if ri, p, err = unserialiseRoot(p); err != nil {
			return nil, corrupt("version header: %s root info: %v", tableNames[i], err)
		}
		db.tables[i] = table{db: db, name: tableNames[i], ri: ri}
		db.stats.TableEntries[i] = ri.numEntries
	}
	bs := db.tables[0].ri.blockSize
	for i := range db.tables {
		if db.tables[i].ri.blockSize != bs {
			return nil, corrupt("tables disagree on the block size (%d, %d)", bs, db.tables[i].ri.blockSize)
		}
	}
	db.blockSize = bs
	db.stats.BlockSize = bs
	db.nblocks = uint64(size) / uint64(bs)
	if err := db.unserialiseStats(p); err != nil {
		return nil, err
	}
	for i := range db.tables {
		ri := &db.tables[i].ri
		if !ri.rootIsFake && (ri.root == 0 || uint64(ri.root) >= db.nblocks) {
			return nil, corrupt("%s table: root block %d outside the file (%d blocks of %d bytes)", tableNames[i], ri.root, db.nblocks, bs)
		}
	}
	return db, nil
}

func unserialiseRoot(p []byte) (ri rootInfo, rest []byte, err error) {
	var root, val, bs, cm uint32
	var ok bool
	if root, p, ok = unpackUint32(p); !ok {
		return ri, nil, errors.New("root")
	}
	if val, p, ok = unpackUint32(p); !ok {
		return ri, nil, errors.New("flags")
	}
	if ri.numEntries, p, ok = unpackUint(p); !ok {
		return ri, nil, errors.New("entry count")
	}
	if bs, p, ok = unpackUint32(p); !ok {
		return ri, nil, errors.New("block size")
	}
	if cm, p, ok = unpackUint32(p); !ok {
		return ri, nil, errors.New("compress_min")
	}
	var fl []byte
	if fl, p, ok = unpackString(p); !ok {
		return ri, nil, errors.New("freelist")
	}
	ri.root = root
	ri.level = int(val >> 2)
	ri.sequential = val&2 != 0
	ri.rootIsFake = val&1 != 0
	if ri.level >= maxLevels {
		return ri, nil, fmt.Errorf("impossibly deep B-tree (level %d)", ri.level)
	}
	if ri.rootIsFake && ri.level > 0 {
		return ri, nil, errors.New("fake root but level > 0")
	}
	if bs > maxBlockSize>>11 {
		return ri, nil, fmt.Errorf("invalid block size %d", uint64(bs)<<11)
	}
	b := int(bs) << 11
	if b < minBlockSize || b > maxBlockSize || b&(b-1) != 0 {
		return ri, nil, fmt.Errorf("invalid block size %d", b)
	}
	ri.blockSize = b
	ri.compressMin = cm
	ri.freelist = fl
	return ri, p, nil
}

func (db *DB) unserialiseStats(p []byte) error {
	s := &db.stats
	if len(p) == 0 {
		return nil
	}
	var v [8]uint64
	for i := range v {
		var ok bool
		if v[i], p, ok = unpackUint(p); !ok {
			return corrupt("version header: bad database statistics")
		}
	}
	// doccount, last_docid - doccount, doclen_lbound, wdf_ubound,
	// doclen_ubound - wdf_ubound, oldest_changeset, total_doclen,
	// spelling_wordfreq_ubound.
	if v[0] > 0xffffffff || v[0]+v[1] > 0xffffffff || v[2] > 0xffffffff || v[3] > 0xffffffff ||
		v[3]+v[4] > 0xffffffff || v[5] > 0xffffffff || v[7] > 0xffffffff {
		return corrupt("version header: database statistics out of range")
	}
	s.DocCount = uint32(v[0])
	s.LastDocID = uint32(v[0] + v[1])
	s.DocLenLower = uint32(v[2])
	s.WDFUpper = uint32(v[3])
	s.DocLenUpper = uint32(v[3] + v[4])
	s.OldestChangeset = uint32(v[5])
	s.TotalDocLen = v[6]
	s.SpellingWFUpper = uint32(v[7])
	return nil
}

// Stats returns the database statistics.
func (db *DB) Stats() Stats { return db.stats }
