package zim

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
)

// Archive is an open ZIM archive. Its methods are safe for concurrent use.
type Archive struct {
	r      io.ReaderAt
	size   int64
	name   string
	closer io.Closer
	parts  []string

	hdr   Header
	mimes []string
	newNS bool

	startUser, endUser uint32
	grid               *lookupGrid

	// title index in use: X/listing/titleOrdered/v1 or the header's list
	titleOff      int64
	titleCount    uint32
	frontArticles bool

	nsMu    sync.Mutex
	nsCache map[byte]uint32

	clusters *clusterStore

	orderOnce sync.Once
	order     []uint32
	orderErr  error

	opt options
}

type options struct {
	name         string
	cacheCount   int
	cacheBytes   int64
	maxInMemory  int64
	xzMaxDict    int64
	lookupSample uint32
}

// Option configures New and Open.
type Option func(*options)

// WithName sets the name used in error messages (default: the file name,
// or "zim" for New).
func WithName(name string) Option { return func(o *options) { o.name = name } }

// WithClusterCache bounds the cache of decompressed clusters to n clusters
// and bytes bytes in all (defaults: 16 clusters, 256 MiB).
func WithClusterCache(n int, bytes int64) Option {
	return func(o *options) { o.cacheCount, o.cacheBytes = n, bytes }
}

// WithMaxInMemoryCluster sets the decompressed size above which a
// compressed cluster is never held in memory: its blobs are streamed out
// of the decompressor instead (default 64 MiB).
func WithMaxInMemoryCluster(n int64) Option { return func(o *options) { o.maxInMemory = n } }

// WithLookupSample sets how many dirents opening the archive reads to
// build libzim's lookup grid (NarrowDown; default 1024, at least 1). Each
// is a read at a different place in the file: an archive read by ranged
// requests wants few (a lookup then binary-searches more of the pointer
// list instead), at the cost of checking fewer dirents' order at open.
func WithLookupSample(n uint32) Option {
	return func(o *options) { o.lookupSample = max(n, 1) }
}

func defaultOptions() options {
	return options{name: "zim", cacheCount: 16, cacheBytes: 256 << 20, maxInMemory: 64 << 20,
		xzMaxDict: 128 << 20, lookupSample: 1024}
}

// Open opens the archive in file name. When name does not exist, the parts
// name+"aa", name+"ab", ... are read as one archive (libzim's rule); a name
// ending in ".zimaa" is opened as the split archive it starts.
func Open(name string, opts ...Option) (*Archive, error) {
	o := append([]Option{WithName(name)}, opts...)
	if f, err := os.Open(name); err == nil {
		st, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, err
		}
		if !strings.HasSuffix(name, ".zimaa") {
			a, err := New(f, st.Size(), o...)
			if err != nil {
				f.Close()
				return nil, err
			}
			a.closer = f
			a.parts = []string{name}
			return a, nil
		}
		f.Close()
		name = strings.TrimSuffix(name, "aa")
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	mr, names, err := openParts(name)
	if err != nil {
		return nil, err
	}
	a, err := New(mr, mr.size, o...)
	if err != nil {
		mr.Close()
		return nil, err
	}
	a.closer = mr
	a.parts = names
	return a, nil
}

// OpenEmbedded opens an archive of size bytes stored at offset inside file
// name. With size <= 0 the size is taken from the header (checksum
// position + 16) when it has a checksum, else up to the end of the file.
func OpenEmbedded(name string, offset, size int64, opts ...Option) (*Archive, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if offset < 0 || offset > st.Size() || size > st.Size()-offset {
		f.Close()
		return nil, fmt.Errorf("%s: embedded archive at offset %d size %d outside the file (%d bytes)", name, offset, size, st.Size())
	}
	if size <= 0 {
		size = st.Size() - offset
		var hb [HeaderSize]byte
		if _, err := f.ReadAt(hb[:], offset); err == nil {
			if h, msg := parseHeader(hb[:]); msg == "" && h.HasChecksum() && size >= 16 && h.ChecksumPos <= uint64(size-16) {
				size = int64(h.ChecksumPos) + 16
			}
		}
	}
	a, err := New(io.NewSectionReader(f, offset, size), size, append([]Option{WithName(name)}, opts...)...)
	if err != nil {
		f.Close()
		return nil, err
	}
	a.closer = f
	a.parts = []string{name}
	return a, nil
}

// New reads the archive of size bytes readable through r (for example a
// remote object read by ranges).
func New(r io.ReaderAt, size int64, opts ...Option) (*Archive, error) {
	o := defaultOptions()
	for _, f := range opts {
		f(&o)
	}
	a := &Archive{r: r, size: size, name: o.name, opt: o, nsCache: map[byte]uint32{}}
	a.clusters = newClusterStore(a)
	if err := a.init(); err != nil {
		return nil, err
	}
	return a, nil
}

// NewCloser is New for an r that Close must close (closed as well when
// NewCloser fails).
func NewCloser(r interface {
	io.ReaderAt
	io.Closer
}, size int64, opts ...Option) (*Archive, error) {
	a, err := New(r, size, opts...)
	if err != nil {
		r.Close()
		return nil, err
	}
	a.closer = r
	return a, nil
}

// Close releases the files opened by Open.
func (a *Archive) Close() error {
	if a.closer != nil {
		return a.closer.Close()
	}
	return nil
}

// Name returns the archive's name used in messages.
func (a *Archive) Name() string { return a.name }

// Parts returns the files the archive was read from (several for a split
// archive).
func (a *Archive) Parts() []string { return a.parts }

// Size returns the size of the archive in bytes.
func (a *Archive) Size() int64 { return a.size }

// Header returns the archive header.
func (a *Archive) Header() Header { return a.hdr }

// MimeTypes returns the MIME type list.
func (a *Archive) MimeTypes() []string { return append([]string(nil), a.mimes...) }

// NewNamespaceScheme reports whether the archive uses the C/M/W/X scheme.
func (a *Archive) NewNamespaceScheme() bool { return a.newNS }

// EntryCount returns the number of entries in the path pointer list.
func (a *Archive) EntryCount() uint32 { return a.hdr.EntryCount }

// ClusterCount returns the number of clusters.
func (a *Archive) ClusterCount() uint32 { return a.hdr.ClusterCount }

// UserRange returns the indices [start, end) of the user entries: the C
// namespace in the new scheme, all entries in the old one.
func (a *Archive) UserRange() (start, end uint32) { return a.startUser, a.endUser }

// UserEntryCount is the number of user entries (libzim getEntryCount).
func (a *Archive) UserEntryCount() uint32 { return a.endUser - a.startUser }

// canRead reports whether [off, off+n) lies inside the archive.
func (a *Archive) canRead(off, n uint64) bool {
	return off <= uint64(a.size) && n <= uint64(a.size)-off
}

// ptrOff is the offset to name for a fault at pointer v read from the
// header field at field: v itself, or the field when v is too large to be
// an offset.
func ptrOff(v uint64, field int64) int64 {
	if v > 1<<63-1 {
		return field
	}
	return int64(v)
}

// readFull reads len(b) bytes at off or fails with an error naming what.
func (a *Archive) readFull(b []byte, off int64, what string) error {
	if off < 0 || !a.canRead(uint64(off), uint64(len(b))) {
		return a.errf(off, "%s (%d bytes) beyond the end of the archive (%d bytes)", what, len(b), a.size)
	}
	n, err := a.r.ReadAt(b, off)
	if n == len(b) {
		return nil
	}
	if err == nil || err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return a.errf(off, "reading %s: %v", what, err)
}

func (a *Archive) init() error {
	if a.size < HeaderSize {
		return a.errf(-1, "zim-file is too small to contain a header")
	}
	var hb [HeaderSize]byte
	if err := a.readFull(hb[:], 0, "header"); err != nil {
		return err
	}
	h, msg := parseHeader(hb[:])
	if msg != "" {
		return a.errf(0, "%s", msg)
	}
	a.hdr = h
	if !a.canRead(h.PathPtrPos, 8*uint64(h.EntryCount)) {
		return a.errf(ptrOff(h.PathPtrPos, 32), "Dirent pointer table outside (or not fully inside) ZIM file.")
	}
	if !a.canRead(h.ClusterPtrPos, 8*uint64(h.ClusterCount)) {
		return a.errf(ptrOff(h.ClusterPtrPos, 48), "Cluster pointer table outside (or not fully inside) ZIM file.")
	}
	if h.ClusterCount > 0 {
		last, err := a.ClusterOffset(h.ClusterCount - 1)
		if err != nil {
			return err
		}
		if last > uint64(a.size) {
			return a.errf(int64(h.ClusterPtrPos)+8*int64(h.ClusterCount-1), "last cluster offset larger than file size; file corrupt")
		}
	}
	if h.HasChecksum() && h.ChecksumPos != uint64(a.size)-16 {
		return a.errf(72, "Checksum position is not valid")
	}
	grid, err := a.buildGrid()
	if err != nil {
		return err
	}
	a.grid = grid
	if err := a.initTitleIndex(); err != nil {
		return err
	}
	if err := a.readMimeTypes(); err != nil {
		return err
	}
	a.newNS = h.NewNamespaceScheme()
	if a.newNS {
		if a.startUser, err = a.namespaceBegin('C'); err != nil {
			return err
		}
		if a.endUser, err = a.namespaceBegin('D'); err != nil {
			return err
		}
	} else {
		a.endUser = h.EntryCount
	}
	return nil
}

// initTitleIndex selects X/listing/titleOrdered/v1 when it is stored
// uncompressed, the header's title pointer list otherwise (libzim's rule).
func (a *Archive) initTitleIndex() error {
	const v1 = "listing/titleOrdered/v1"
	idx, found, err := a.Find('X', v1)
	if err != nil {
		return err
	}
	if found {
		e, err := a.EntryAt(idx)
		if err != nil {
			return err
		}
		if e.Kind != KindRedirect {
			if e.Cluster >= a.hdr.ClusterCount {
				return a.errf(e.Offset, "cluster index out of range")
			}
			c, err := a.clusters.header(e.Cluster)
			if err != nil {
				return err
			}
			if !c.compressed() {
				if uint64(e.Blob)+1 >= uint64(len(c.offsets)) {
					return a.errf(e.Offset, "blob index out of range")
				}
				off := c.Offset + 1 + c.offsets[e.Blob]
				n := c.offsets[e.Blob+1] - c.offsets[e.Blob]
				if !a.canRead(off, n) || n/4 > 1<<32-1 {
					return a.errf(ptrOff(off, e.Offset), "Title index table%s outside (or not fully inside) ZIM file.", v1)
				}
				a.titleOff, a.titleCount, a.frontArticles = int64(off), uint32(n/4), true
				return nil
			}
		}
	}
	if !a.canRead(a.hdr.TitlePtrPos, 4*uint64(a.hdr.EntryCount)) {
		return a.errf(ptrOff(a.hdr.TitlePtrPos, 40), "Title index table outside (or not fully inside) ZIM file.")
	}
	a.titleOff, a.titleCount = int64(a.hdr.TitlePtrPos), a.hdr.EntryCount
	return nil
}

const maxMimeList = 1 << 20

func (a *Archive) readMimeTypes() error {
	h := &a.hdr
	end := min(h.PathPtrPos, h.TitlePtrPos, h.ClusterPtrPos)
	if h.EntryCount != 0 {
		d, err := a.DirentOffset(0)
		if err != nil {
			return err
		}
		c, err := a.ClusterOffset(0)
		if err != nil {
			return err
		}
		end = min(end, d, c)
	}
	if end <= h.MimeListPos {
		return a.errf(int64(h.MimeListPos), "Bad ZIM archive")
	}
	end = min(end, uint64(a.size), h.MimeListPos+maxMimeList)
	var (
		buf  []byte
		pos  = h.MimeListPos
		last = h.MimeListPos
	)
	chunk := make([]byte, 1024)
	for {
		// parse complete strings in buf
		for {
			i := indexByte(buf, 0)
			if i < 0 {
				break
			}
			if i == 0 {
				return nil
			}
			a.mimes = append(a.mimes, string(buf[:i]))
			buf = buf[i+1:]
			last += uint64(i) + 1
		}
		if pos >= end {
			return a.errf(int64(last), "Error getting mimelists.")
		}
		n := min(uint64(len(chunk)), end-pos)
		if err := a.readFull(chunk[:n], int64(pos), "MIME type list"); err != nil {
			return err
		}
		buf = append(buf, chunk[:n]...)
		pos += n
	}
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}

// DirentOffset returns the offset of dirent idx from the path pointer list.
func (a *Archive) DirentOffset(idx uint32) (uint64, error) {
	if idx >= a.hdr.EntryCount {
		return 0, ErrOutOfRange
	}
	var b [8]byte
	if err := a.readFull(b[:], int64(a.hdr.PathPtrPos)+8*int64(idx), "path pointer"); err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(b[:]), nil
}

// ClusterOffset returns the offset of cluster idx from the cluster pointer
// list.
func (a *Archive) ClusterOffset(idx uint32) (uint64, error) {
	if idx >= a.hdr.ClusterCount {
		return 0, a.errf(-1, "cluster index out of range")
	}
	var b [8]byte
	if err := a.readFull(b[:], int64(a.hdr.ClusterPtrPos)+8*int64(idx), "cluster pointer"); err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(b[:]), nil
}

// EntryAt returns the entry at index idx of the path pointer list.
func (a *Archive) EntryAt(idx uint32) (*Entry, error) {
	off, err := a.DirentOffset(idx)
	if err != nil {
		return nil, err
	}
	if off >= uint64(a.size) {
		return nil, a.errf(int64(a.hdr.PathPtrPos)+8*int64(idx), "Invalid dirent pointer")
	}
	dr := newDirentReader(a, 512)
	e, err := dr.read(int64(off))
	if err != nil {
		return nil, err
	}
	e.Index = idx
	return &e, nil
}

// entryCursor reads entries by index for mostly increasing indices: the
// path pointers a block at a time, the dirents through a window.
type entryCursor struct {
	a        *Archive
	ptrs     []byte
	ptrStart uint32
	ptrN     uint32
	dr       *direntReader
}

func (a *Archive) newEntryCursor() *entryCursor {
	return &entryCursor{a: a, ptrs: make([]byte, 8*1024), dr: newDirentReader(a, 16<<10)}
}

// at returns entry idx.
func (c *entryCursor) at(idx uint32) (*Entry, error) {
	a := c.a
	if idx >= a.hdr.EntryCount {
		return nil, ErrOutOfRange
	}
	if idx < c.ptrStart || idx >= c.ptrStart+c.ptrN {
		n := min(a.hdr.EntryCount-idx, uint32(len(c.ptrs)/8))
		if err := a.readFull(c.ptrs[:8*n], int64(a.hdr.PathPtrPos)+8*int64(idx), "path pointer list"); err != nil {
			return nil, err
		}
		c.ptrStart, c.ptrN = idx, n
	}
	off := binary.LittleEndian.Uint64(c.ptrs[8*(idx-c.ptrStart):])
	if off >= uint64(a.size) {
		return nil, a.errf(int64(a.hdr.PathPtrPos)+8*int64(idx), "Invalid dirent pointer")
	}
	e, err := c.dr.read(int64(off))
	if err != nil {
		return nil, err
	}
	e.Index = idx
	return &e, nil
}

// Entries calls fn for the entries start..end-1 of the path pointer list in
// order, reading pointers and dirents in large blocks. It stops at the
// first error of its own or of fn.
func (a *Archive) Entries(start, end uint32, fn func(*Entry) error) error {
	if end > a.hdr.EntryCount {
		end = a.hdr.EntryCount
	}
	const block = 4096
	ptrs := make([]byte, 8*block)
	dr := newDirentReader(a, 64<<10)
	for i := start; i < end; {
		n := min(end-i, block)
		if err := a.readFull(ptrs[:8*n], int64(a.hdr.PathPtrPos)+8*int64(i), "path pointer list"); err != nil {
			return err
		}
		for k := uint32(0); k < n; k++ {
			off := binary.LittleEndian.Uint64(ptrs[8*k:])
			if off >= uint64(a.size) {
				return a.errf(int64(a.hdr.PathPtrPos)+8*int64(i+k), "Invalid dirent pointer")
			}
			e, err := dr.read(int64(off))
			if err != nil {
				return err
			}
			e.Index = i + k
			if err := fn(&e); err != nil {
				return err
			}
		}
		i += n
	}
	return nil
}

// PathOf returns the path libzim shows for e: without namespace in the new
// scheme, "N/path" in the old one.
func (a *Archive) PathOf(e *Entry) string {
	if a.newNS {
		return e.Path
	}
	return e.LongPath()
}

// MimeType returns the MIME type of item e.
func (a *Archive) MimeType(e *Entry) (string, error) {
	if int(e.MimeIndex) >= len(a.mimes) {
		return "", a.errf(e.Offset, "unknown mime type code %d", e.MimeIndex)
	}
	return a.mimes[e.MimeIndex], nil
}

// Redirect returns the entry a redirect points to (one step).
func (a *Archive) Redirect(e *Entry) (*Entry, error) {
	if e.Kind != KindRedirect {
		return nil, a.errf(e.Offset, "Entry %s is not a redirect entry.", a.PathOf(e))
	}
	return a.EntryAt(e.RedirectIndex)
}

// Resolve follows redirects from e (at most 50, like libzim) and returns
// the item reached.
func (a *Archive) Resolve(e *Entry) (*Entry, error) {
	cur := e
	for n := 0; cur.Kind == KindRedirect; n++ {
		if n == 50 {
			return nil, a.errf(e.Offset, "Entry %s is a redirect entry.", a.PathOf(cur))
		}
		next, err := a.Redirect(cur)
		if err != nil {
			return nil, err
		}
		cur = next
	}
	return cur, nil
}

// Find looks up namespace ns and path with libzim's lookup. found tells
// whether the entry exists; idx is its index or, when not found, the index
// where it would be inserted.
func (a *Archive) Find(ns byte, path string) (idx uint32, found bool, err error) {
	return a.grid.find(a, ns, path)
}

// FindLong looks up "N/path" (a leading "/" is allowed).
func (a *Archive) FindLong(longPath string) (uint32, bool, error) {
	ns, p, ok := ParseLongPath(longPath)
	if !ok {
		return 0, false, nil
	}
	return a.Find(ns, p)
}

// ParseLongPath splits "N/path" or "/N/path" into namespace and path like
// libzim's parseLongPath; ok is false when it cannot be parsed.
func ParseLongPath(s string) (ns byte, path string, ok bool) {
	i := 0
	if len(s) > 0 && s[0] == '/' {
		i = 1
	}
	if i+1 > len(s) || s[i] == '/' || (i+1 < len(s) && s[i+1] != '/') {
		return 0, "", false
	}
	return s[i], s[min(i+2, len(s)):], true
}

// EntryByPath finds an entry the way libzim's Archive::getEntryByPath does:
// in the new scheme path is looked up in C (then with a namespace prefix
// removed), in the old scheme path must carry its namespace ("A/foo"), with
// A, I, J and - tried as fallbacks.
func (a *Archive) EntryByPath(path string) (*Entry, error) {
	try := func(ns byte, p string) (*Entry, error) {
		idx, found, err := a.Find(ns, p)
		if err != nil || !found {
			return nil, err
		}
		return a.EntryAt(idx)
	}
	if a.newNS {
		if e, err := try('C', path); e != nil || err != nil {
			return e, err
		}
		if _, p, ok := ParseLongPath(path); ok {
			if e, err := try('C', p); e != nil || err != nil {
				return e, err
			}
		}
	} else {
		if ns, p, ok := ParseLongPath(path); ok {
			if e, err := try(ns, p); e != nil || err != nil {
				return e, err
			}
		}
		for _, ns := range []byte{'A', 'I', 'J', '-'} {
			if e, err := try(ns, path); e != nil || err != nil {
				return e, err
			}
		}
	}
	return nil, ErrNotFound
}

// FindByPrefix returns the index range [begin, end) of the entries whose
// path starts with prefix, as libzim's Archive::findByPath computes it (in
// the old scheme prefix carries the namespace: "A/" or "A").
func (a *Archive) FindByPrefix(prefix string) (begin, end uint32, err error) {
	if prefix == "" || prefix == "/" {
		return a.startUser, a.endUser, nil
	}
	var ns byte = 'C'
	p := prefix
	if !a.newNS {
		var ok bool
		if ns, p, ok = ParseLongPath(prefix); !ok {
			return 0, 0, nil
		}
	}
	if begin, _, err = a.Find(ns, p); err != nil {
		return 0, 0, err
	}
	if p == "" {
		ns++
	} else {
		b := []byte(p)
		b[len(b)-1]++
		p = string(b)
	}
	end, _, err = a.Find(ns, p)
	return begin, end, err
}

// MainEntry returns the main page entry (W/mainPage, else the header's
// main page), not resolved. It returns ErrNotFound when there is none.
func (a *Archive) MainEntry() (*Entry, error) {
	idx, found, err := a.Find('W', "mainPage")
	if err != nil {
		return nil, err
	}
	if found {
		return a.EntryAt(idx)
	}
	if !a.hdr.HasMainPage() {
		return nil, ErrNotFound
	}
	return a.EntryAt(a.hdr.MainPage)
}

// Illustration returns the item of the size x size illustration
// (M/Illustration_<size>x<size>@1, not resolved: a redirect is an error as
// in libzim); for size 48 the old favicon (-/favicon, I/favicon.png, ...)
// is the fallback, resolved. ErrNotFound when there is none.
func (a *Archive) Illustration(size int) (*Entry, error) {
	idx, found, err := a.Find('M', fmt.Sprintf("Illustration_%dx%d@1", size, size))
	if err != nil {
		return nil, err
	}
	if found {
		e, err := a.EntryAt(idx)
		if err != nil {
			return nil, err
		}
		if e.Kind == KindRedirect {
			return nil, a.errf(e.Offset, "Entry %s is a redirect entry.", a.PathOf(e))
		}
		return e, nil
	}
	if size != 48 {
		return nil, ErrNotFound
	}
	for _, ns := range []byte{'-', 'I'} {
		for _, p := range []string{"favicon", "favicon.png"} {
			idx, found, err := a.Find(ns, p)
			if err != nil {
				return nil, err
			}
			if found {
				e, err := a.EntryAt(idx)
				if err != nil {
					return nil, err
				}
				return a.Resolve(e)
			}
		}
	}
	return nil, ErrNotFound
}

// IllustrationSizes lists the sizes of the M/Illustration_NxN@1 entries,
// with 48 added when an old favicon exists.
func (a *Archive) IllustrationSizes() ([]int, error) {
	begin, end, err := a.namespaceRange('M')
	if err != nil {
		return nil, err
	}
	var sizes []int
	err = a.Entries(begin, end, func(e *Entry) error {
		var w, h int
		var rest string
		if n, _ := fmt.Sscanf(e.Path, "Illustration_%dx%d@%s", &w, &h, &rest); n == 3 && w == h && rest == "1" && w >= 0 {
			sizes = append(sizes, w)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if !containsInt(sizes, 48) {
		if _, err := a.Illustration(48); err == nil {
			sizes = append(sizes, 48)
		}
	}
	sort.Ints(sizes)
	return sizes, nil
}

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// namespaceRange returns the index range of namespace ns.
func (a *Archive) namespaceRange(ns byte) (uint32, uint32, error) {
	b, err := a.namespaceBegin(ns)
	if err != nil {
		return 0, 0, err
	}
	e, err := a.namespaceBegin(ns + 1)
	return b, e, err
}

// NamespaceRange returns the indices [begin, end) of namespace ns.
func (a *Archive) NamespaceRange(ns byte) (begin, end uint32, err error) {
	if a.hdr.EntryCount == 0 {
		return 0, 0, nil
	}
	return a.namespaceRange(ns)
}

// namespaceBegin is libzim's getNamespaceBeginOffset, quirks included.
func (a *Archive) namespaceBegin(ns byte) (uint32, error) {
	a.nsMu.Lock()
	v, ok := a.nsCache[ns]
	a.nsMu.Unlock()
	if ok {
		return v, nil
	}
	d0, err := a.EntryAt(0)
	if err != nil {
		return 0, err
	}
	lower, upper := uint32(0), a.hdr.EntryCount
	for upper-lower > 1 {
		m := lower + (upper-lower)/2
		d, err := a.EntryAt(m)
		if err != nil {
			return 0, err
		}
		if d.Namespace >= ns {
			upper = m
		} else {
			lower = m
		}
	}
	ret := lower
	if d0.Namespace < ns {
		ret = upper
	}
	a.nsMu.Lock()
	a.nsCache[ns] = ret
	a.nsMu.Unlock()
	return ret, nil
}

// Metadata returns the value of M/name, ErrNotFound when absent.
func (a *Archive) Metadata(name string) ([]byte, error) {
	idx, found, err := a.Find('M', name)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, ErrNotFound
	}
	e, err := a.EntryAt(idx)
	if err != nil {
		return nil, err
	}
	if e, err = a.Resolve(e); err != nil {
		return nil, err
	}
	return a.ReadBlob(e)
}

// MetadataEntries returns the entries of the M namespace in path order.
func (a *Archive) MetadataEntries() ([]*Entry, error) {
	if a.hdr.EntryCount == 0 {
		return nil, nil
	}
	begin, end, err := a.namespaceRange('M')
	if err != nil {
		return nil, err
	}
	var out []*Entry
	err = a.Entries(begin, end, func(e *Entry) error {
		c := *e
		out = append(out, &c)
		return nil
	})
	return out, err
}

// TitleIndexCount returns the number of entries in the title index in use
// (X/listing/titleOrdered/v1 when present, else the header's list) and
// whether it is the v1 front-article listing.
func (a *Archive) TitleIndexCount() (n uint32, frontArticles bool) {
	return a.titleCount, a.frontArticles
}

// EntryIndexByTitle returns the path-list index stored at position i of
// the title index in use.
func (a *Archive) EntryIndexByTitle(i uint32) (uint32, error) {
	if i >= a.titleCount {
		return 0, ErrOutOfRange
	}
	var b [4]byte
	if err := a.readFull(b[:], a.titleOff+4*int64(i), "title pointer"); err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(b[:]), nil
}
