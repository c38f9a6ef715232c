package zim

import (
	"bufio"
	"container/list"
	"encoding/binary"
	"errors"
	"io"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// Cluster compression types (low 4 bits of the cluster information byte).
const (
	CompressionDefault = 0 // obsolete code for none
	CompressionNone    = 1
	CompressionZlib    = 2 // removed from the format
	CompressionBzip2   = 3 // removed from the format
	CompressionXZ      = 4
	CompressionZstd    = 5
)

// Cluster is the blob offset table of a cluster and, for a compressed
// cluster small enough, its decompressed data.
type Cluster struct {
	a        *Archive
	Index    uint32
	Offset   uint64 // archive offset of the cluster information byte
	Info     byte   // the cluster information byte
	offsets  []uint64
	base     uint64 // offset of data[0] in the decompressed cluster
	data     []byte // compressed clusters <= maxInMemory; nil otherwise
	hasData  bool
	dataSize int64
}

// Compression returns the compression type (low 4 bits of Info).
func (c *Cluster) Compression() byte { return c.Info & 0x0F }

// Extended reports whether blob offsets are 8 bytes wide.
func (c *Cluster) Extended() bool { return c.Info&0x10 != 0 }

func (c *Cluster) compressed() bool { return c.Compression() > CompressionNone }

// BlobCount returns the number of blobs.
func (c *Cluster) BlobCount() uint32 { return uint32(len(c.offsets) - 1) }

// BlobSize returns the size of blob i.
func (c *Cluster) BlobSize(i uint32) (int64, error) {
	if uint64(i)+1 >= uint64(len(c.offsets)) {
		return 0, c.a.errf(int64(c.Offset), "blob index out of range")
	}
	return int64(c.offsets[i+1] - c.offsets[i]), nil
}

// DataSize is the size of the cluster once decompressed (the last offset).
func (c *Cluster) DataSize() uint64 { return c.offsets[len(c.offsets)-1] }

// OpenBlob returns a reader of blob i. For an uncompressed cluster it reads
// the archive directly; for a compressed one it reads the cached data or,
// for a cluster too large to be held in memory, streams it out of a fresh
// decompressor.
func (c *Cluster) OpenBlob(i uint32) (io.ReadCloser, error) {
	size, err := c.BlobSize(i)
	if err != nil {
		return nil, err
	}
	a := c.a
	start := c.offsets[i]
	if !c.compressed() {
		off := c.Offset + 1 + start
		if !a.canRead(off, uint64(size)) {
			return nil, a.errf(int64(off), "cluster %d at offset %d: blob %d (%d bytes) extends beyond the end of the archive (%d bytes)", c.Index, c.Offset, i, size, a.size)
		}
		return io.NopCloser(io.NewSectionReader(a.r, int64(off), size)), nil
	}
	if c.hasData {
		return io.NopCloser(newBytesReader(c.data[start-c.base : start-c.base+uint64(size)])), nil
	}
	s, err := a.openClusterStream(c.Index, c.Offset, c.Info)
	if err != nil {
		return nil, err
	}
	if _, err := io.CopyN(io.Discard, s, int64(start)); err != nil {
		s.Close()
		return nil, a.passf(noEOF(err), int64(c.Offset), "cluster %d at offset %d: decompressing to blob %d", c.Index, c.Offset, i)
	}
	return &blobStream{Reader: io.LimitReader(s, size), s: s, c: c, left: size}, nil
}

type blobStream struct {
	io.Reader
	s    io.Closer
	c    *Cluster
	left int64
}

func (b *blobStream) Read(p []byte) (int, error) {
	n, err := b.Reader.Read(p)
	b.left -= int64(n)
	if err == io.EOF && b.left > 0 {
		return n, b.c.a.errf(int64(b.c.Offset), "cluster %d at offset %d: decompressed data truncated (%d bytes missing)", b.c.Index, b.c.Offset, b.left)
	}
	if err != nil && err != io.EOF {
		err = b.c.a.passf(err, int64(b.c.Offset), "cluster %d at offset %d", b.c.Index, b.c.Offset)
	}
	return n, err
}

func (b *blobStream) Close() error { return b.s.Close() }

type bytesReader struct {
	b []byte
	i int
}

func newBytesReader(b []byte) *bytesReader { return &bytesReader{b: b} }

func (r *bytesReader) Read(p []byte) (int, error) {
	if r.i >= len(r.b) {
		return 0, io.EOF
	}
	n := copy(p, r.b[r.i:])
	r.i += n
	return n, nil
}

// WriteTo lets io.Copy write the blob in one call.
func (r *bytesReader) WriteTo(w io.Writer) (int64, error) {
	n, err := w.Write(r.b[r.i:])
	r.i += n
	return int64(n), err
}

// Bytes returns the blob held in memory (compressed clusters kept in
// memory only), without copying; ok is false otherwise.
func (c *Cluster) Bytes(i uint32) (b []byte, ok bool) {
	if !c.hasData || uint64(i)+1 >= uint64(len(c.offsets)) {
		return nil, false
	}
	s, e := c.offsets[i]-c.base, c.offsets[i+1]-c.base
	return c.data[s:e], true
}

func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// ---- decompression ----

var zstdPool sync.Pool

type clusterStream struct {
	io.Reader
	release func()
}

func (s *clusterStream) Close() error {
	if s.release != nil {
		s.release()
		s.release = nil
	}
	return nil
}

// openClusterStream returns the cluster contents after the information
// byte, decompressed.
func (a *Archive) openClusterStream(idx uint32, off uint64, info byte) (*clusterStream, error) {
	src := io.NewSectionReader(a.r, int64(off)+1, a.size-int64(off)-1)
	switch info & 0x0F {
	case CompressionDefault, CompressionNone:
		return &clusterStream{Reader: src}, nil
	case CompressionZlib:
		return nil, a.errf(int64(off), "zlib not enabled in this library")
	case CompressionBzip2:
		return nil, a.errf(int64(off), "bzip2 not enabled in this library")
	case CompressionXZ:
		r, err := a.openXZ(idx, off, src)
		if err != nil {
			return nil, err
		}
		return &clusterStream{Reader: &errWrap{r: r, a: a, off: off, idx: idx}}, nil
	case CompressionZstd:
		d, _ := zstdPool.Get().(*zstd.Decoder)
		if d == nil {
			var err error
			d, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(256<<20), zstd.WithDecoderLowmem(false))
			if err != nil {
				return nil, err
			}
		}
		if err := d.Reset(bufio.NewReaderSize(src, 64<<10)); err != nil {
			zstdPool.Put(d)
			return nil, a.errf(int64(off), "cluster %d at offset %d: zstd: %v", idx, off, err)
		}
		return &clusterStream{Reader: &errWrap{r: d, a: a, off: off, idx: idx}, release: func() {
			d.Reset(nil)
			zstdPool.Put(d)
		}}, nil
	}
	return nil, a.errf(int64(off), "Invalid compression flag")
}

type errWrap struct {
	r   io.Reader
	a   *Archive
	off uint64
	idx uint32
}

func (w *errWrap) Read(p []byte) (int, error) {
	n, err := w.r.Read(p)
	if err != nil && err != io.EOF {
		var fe *FormatError
		if !errors.As(err, &fe) {
			err = w.a.errf(int64(w.off), "cluster %d at offset %d: decompressing: %v", w.idx, w.off, err)
		}
	}
	return n, err
}

// readOffsets reads the blob offset table from the start of the
// decompressed cluster stream r.
func (a *Archive) readOffsets(idx uint32, off uint64, info byte, r io.Reader) ([]uint64, uint64, error) {
	osz := uint64(4)
	if info&0x10 != 0 {
		osz = 8
	}
	var fb [8]byte
	if _, err := io.ReadFull(r, fb[:osz]); err != nil {
		return nil, 0, a.passf(noEOF(err), int64(off), "cluster %d at offset %d: reading the blob offset table", idx, off)
	}
	first := binary.LittleEndian.Uint64(fb[:])
	if osz == 4 {
		first = uint64(binary.LittleEndian.Uint32(fb[:]))
	}
	if first < osz {
		return nil, 0, a.errf(int64(off), "cluster %d at offset %d: first blob offset %d is smaller than the offset size %d", idx, off, first, osz)
	}
	n := first / osz // number of offsets
	if n-1 > uint64(a.hdr.EntryCount) {
		// More blobs than entries: libzim reads such a cluster (blobs no
		// entry refers to), so do we, as long as the table is bounded by
		// the cluster: it must lie inside it when stored, and when
		// compressed claim at most one blob per compressed byte (8 bytes
		// of memory per byte of the file).
		ext := a.clusterExtent(idx, off)
		switch {
		case n-1 > 1<<32-1:
			return nil, 0, a.errf(int64(off), "cluster %d at offset %d: blob offset table of %d bytes claims %d blobs, more than 32-bit blob numbers reach", idx, off, first, n-1)
		case info&0x0F <= CompressionNone && n*osz > ext:
			return nil, 0, a.errf(int64(off), "cluster %d at offset %d: blob offset table of %d bytes claims %d blobs, more than the %d entries of the archive, and runs past the %d bytes of the cluster", idx, off, first, n-1, a.hdr.EntryCount, ext)
		case info&0x0F > CompressionNone && n-1 > ext:
			return nil, 0, a.errf(int64(off), "cluster %d at offset %d: blob offset table of %d bytes claims %d blobs, more than the %d entries of the archive and the %d bytes of the compressed cluster", idx, off, first, n-1, a.hdr.EntryCount, ext)
		}
	}
	if info&0x0F <= CompressionNone && !a.canRead(off+1, n*osz) {
		return nil, 0, a.errf(int64(off), "cluster %d at offset %d: blob offset table of %d bytes extends beyond the end of the archive (%d bytes)", idx, off, n*osz, a.size)
	}
	offsets := make([]uint64, 1, min(n, 1<<16))
	offsets[0] = first
	buf := make([]byte, min((n-1)*osz, 64<<10))
	prev := first
	for left := (n - 1) * osz; left > 0; {
		k := min(left, uint64(len(buf)))
		if _, err := io.ReadFull(r, buf[:k]); err != nil {
			return nil, 0, a.passf(noEOF(err), int64(off), "cluster %d at offset %d: reading the blob offset table", idx, off)
		}
		for p := uint64(0); p < k; p += osz {
			var v uint64
			if osz == 4 {
				v = uint64(binary.LittleEndian.Uint32(buf[p:]))
			} else {
				v = binary.LittleEndian.Uint64(buf[p:])
			}
			if v < prev {
				return nil, 0, a.errf(int64(off), "cluster %d at offset %d: blob offset #%d (%d) is smaller than the previous one (%d)", idx, off, len(offsets), v, prev)
			}
			if v > 1<<62 {
				return nil, 0, a.errf(int64(off), "cluster %d at offset %d: blob offset #%d (%d) is absurd", idx, off, len(offsets), v)
			}
			offsets = append(offsets, v)
			prev = v
		}
		left -= k
	}
	return offsets, n * osz, nil
}

// clusterExtent bounds the size of the cluster at off (information byte
// excluded): up to the nearest structure after it that the header or the
// next cluster pointer locates, or the end of the archive.
func (a *Archive) clusterExtent(idx uint32, off uint64) uint64 {
	h := &a.hdr
	end := uint64(a.size)
	ends := []uint64{h.PathPtrPos, h.TitlePtrPos, h.ClusterPtrPos, h.MimeListPos}
	if h.HasChecksum() {
		ends = append(ends, h.ChecksumPos)
	}
	if idx+1 < h.ClusterCount {
		if next, err := a.ClusterOffset(idx + 1); err == nil {
			ends = append(ends, next)
		}
	}
	for _, e := range ends {
		if e > off && e < end {
			end = e
		}
	}
	if end <= off+1 {
		return 0
	}
	return end - off - 1
}

// loadCluster reads cluster idx: its offset table and, when withData and
// the cluster is compressed and not larger than maxInMemory, its data.
// buf, if large enough, receives the data.
func (a *Archive) loadCluster(idx uint32, withData bool, buf []byte) (*Cluster, error) {
	off, err := a.ClusterOffset(idx)
	if err != nil {
		return nil, err
	}
	if off >= uint64(a.size) {
		return nil, a.errf(int64(a.hdr.ClusterPtrPos)+8*int64(idx), "cluster %d: offset %d beyond the end of the archive (%d bytes)", idx, off, a.size)
	}
	var ib [1]byte
	if err := a.readFull(ib[:], int64(off), "cluster information byte"); err != nil {
		return nil, err
	}
	s, err := a.openClusterStream(idx, off, ib[0])
	if err != nil {
		return nil, err
	}
	defer s.Close()
	offsets, pos, err := a.readOffsets(idx, off, ib[0], s)
	if err != nil {
		return nil, err
	}
	c := &Cluster{a: a, Index: idx, Offset: off, Info: ib[0], offsets: offsets}
	if !withData || !c.compressed() || c.DataSize() > uint64(a.opt.maxInMemory) {
		return c, nil
	}
	if _, err := io.CopyN(io.Discard, s, int64(offsets[0]-pos)); err != nil {
		return nil, a.passf(noEOF(err), int64(off), "cluster %d at offset %d: decompressed data truncated", idx, off)
	}
	total := c.DataSize() - offsets[0]
	data := buf[:0]
	if uint64(cap(buf)) < total {
		data = make([]byte, 0, min(total, 8<<20))
	}
	for uint64(len(data)) < total {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		k := min(uint64(cap(data)-len(data)), total-uint64(len(data)))
		n, err := io.ReadFull(s, data[len(data):len(data)+int(k)])
		data = data[:len(data)+n]
		if err != nil {
			return nil, a.passf(noEOF(err), int64(off), "cluster %d at offset %d: decompressed data truncated at %d of %d bytes", idx, off, len(data), total)
		}
	}
	c.base, c.data, c.hasData, c.dataSize = offsets[0], data, true, int64(len(data))
	return c, nil
}

// ---- cache ----

type clusterStore struct {
	a        *Archive
	mu       sync.Mutex
	hdr      *lru // offset tables, bounded by number of offsets
	dat      *lru // clusters with data, bounded by count and bytes
	inflight map[flightKey]*flight
}

type flightKey struct {
	idx  uint32
	data bool
}

type flight struct {
	wg  sync.WaitGroup
	c   *Cluster
	err error
}

func newClusterStore(a *Archive) *clusterStore {
	return &clusterStore{
		a:        a,
		hdr:      newLRU(1<<30, 4<<20),
		dat:      newLRU(a.opt.cacheCount, a.opt.cacheBytes),
		inflight: map[flightKey]*flight{},
	}
}

// header returns cluster idx with at least its offset table.
func (s *clusterStore) header(idx uint32) (*Cluster, error) {
	return s.get(idx, false)
}

// full returns cluster idx with its data loaded when it is compressed and
// small enough.
func (s *clusterStore) full(idx uint32) (*Cluster, error) {
	return s.get(idx, true)
}

func (s *clusterStore) get(idx uint32, data bool) (*Cluster, error) {
	s.mu.Lock()
	if v, ok := s.dat.get(idx); ok {
		s.mu.Unlock()
		return v.(*Cluster), nil
	}
	if !data {
		if v, ok := s.hdr.get(idx); ok {
			s.mu.Unlock()
			return v.(*Cluster), nil
		}
	} else if v, ok := s.hdr.get(idx); ok && !v.(*Cluster).compressed() {
		s.mu.Unlock()
		return v.(*Cluster), nil
	}
	k := flightKey{idx, data}
	if f, ok := s.inflight[k]; ok {
		s.mu.Unlock()
		f.wg.Wait()
		return f.c, f.err
	}
	f := &flight{}
	f.wg.Add(1)
	s.inflight[k] = f
	s.mu.Unlock()

	f.c, f.err = s.a.loadCluster(idx, data, nil)

	s.mu.Lock()
	delete(s.inflight, k)
	if f.err == nil {
		hc := *f.c
		hc.data, hc.hasData = nil, false
		s.hdr.put(idx, &hc, int64(len(hc.offsets)))
		if f.c.hasData {
			s.dat.put(idx, f.c, f.c.dataSize+int64(8*len(f.c.offsets)))
		}
	}
	s.mu.Unlock()
	f.wg.Done()
	return f.c, f.err
}

type lru struct {
	maxN    int
	maxCost int64
	cost    int64
	l       *list.List
	m       map[uint32]*list.Element
}

type lruItem struct {
	k    uint32
	v    any
	cost int64
}

func newLRU(maxN int, maxCost int64) *lru {
	return &lru{maxN: maxN, maxCost: maxCost, l: list.New(), m: map[uint32]*list.Element{}}
}

func (c *lru) get(k uint32) (any, bool) {
	if e, ok := c.m[k]; ok {
		c.l.MoveToFront(e)
		return e.Value.(*lruItem).v, true
	}
	return nil, false
}

func (c *lru) put(k uint32, v any, cost int64) {
	if c.maxN <= 0 || cost > c.maxCost {
		return
	}
	if e, ok := c.m[k]; ok {
		it := e.Value.(*lruItem)
		c.cost += cost - it.cost
		it.v, it.cost = v, cost
		c.l.MoveToFront(e)
	} else {
		c.m[k] = c.l.PushFront(&lruItem{k, v, cost})
		c.cost += cost
	}
	for c.l.Len() > c.maxN || c.cost > c.maxCost {
		e := c.l.Back()
		it := e.Value.(*lruItem)
		c.l.Remove(e)
		delete(c.m, it.k)
		c.cost -= it.cost
	}
}
