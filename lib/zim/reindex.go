package zim

import (
	"bufio"
	"crypto/md5"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"io"
	"sort"
	"strings"
)

// NewItem is an entry Rewrite adds, stored alone in an uncompressed
// cluster (as libzim stores its Xapian databases).
type NewItem struct {
	Namespace byte
	Path      string
	Title     string
	Mime      string
	Size      int64
	// Open returns the content (exactly Size bytes). It is called once,
	// while the archive is written.
	Open func() (io.Reader, error)
}

// RewriteOptions configures Archive.Rewrite.
type RewriteOptions struct {
	// Drop leaves an entry out (for instance an index being replaced).
	// A cluster no entry is left in is left out too. A redirect to a
	// dropped entry is an error.
	Drop func(e *Entry) bool
	// Add are the new entries; an entry of the same namespace and path
	// must be dropped.
	Add []NewItem
	// Front tells the front articles of the X/listing/titleOrdered/v1
	// listing (new namespace scheme only; nil: FrontArticles' choice).
	Front func(e *Entry) bool
	// UUID of the new archive (zero: a random one).
	UUID [16]byte
}

// FrontArticles reports, for each entry index, whether it is a front
// article: a member of X/listing/titleOrdered/v1 when the archive has one
// in use; otherwise (ok false) nil.
func (a *Archive) FrontArticles() (front []bool, ok bool, err error) {
	if !a.frontArticles {
		return nil, false, nil
	}
	front = make([]bool, a.hdr.EntryCount)
	buf := make([]byte, 4*4096)
	for i := uint32(0); i < a.titleCount; {
		n := min(a.titleCount-i, 4096)
		if err := a.readFull(buf[:4*n], a.titleOff+4*int64(i), "title pointer list"); err != nil {
			return nil, false, err
		}
		for k := uint32(0); k < n; k++ {
			idx := binary.LittleEndian.Uint32(buf[4*k:])
			if idx >= a.hdr.EntryCount {
				return nil, false, a.errf(a.titleOff+4*int64(i+k), "title index entry %d out of range", idx)
			}
			front[idx] = true
		}
		i += n
	}
	return front, true, nil
}

// rentry is an entry of the rewritten archive.
type rentry struct {
	e       Entry // source entry (Index: source index), or the new item's fields
	add     int   // index in RewriteOptions.Add, -1 for a source entry
	front   bool
	newIdx  uint32
	cluster uint32 // new cluster number (items)
	blob    uint32
	mime    uint16
}

func (r *rentry) title() string {
	if r.e.RawTitle == "" {
		return r.e.Path
	}
	return r.e.RawTitle
}

// rcluster is a cluster of the rewritten archive: a source cluster copied
// byte for byte, or a new uncompressed one.
type rcluster struct {
	srcOff, size uint64   // copied: source offset and length (information byte included)
	blobs        [][]byte // new: small blobs in memory (the listings)
	item         int      // new: RewriteOptions.Add index of its only blob, or -1
	itemSize     int64
}

// sizes are the blob sizes of a new cluster.
func (c *rcluster) sizes() []uint64 {
	if c.item >= 0 {
		return []uint64{uint64(c.itemSize)}
	}
	s := make([]uint64, len(c.blobs))
	for i, b := range c.blobs {
		s[i] = uint64(len(b))
	}
	return s
}

// table is the offset size of a new cluster and its information byte.
func (c *rcluster) table() (osz uint64, info byte) {
	total := uint64(0)
	s := c.sizes()
	for _, n := range s {
		total += n
	}
	if 4*uint64(len(s)+1)+total > 0xFFFFFFFF {
		return 8, CompressionNone | 0x10
	}
	return 4, CompressionNone
}

func (c *rcluster) newSize() uint64 {
	if c.blobs == nil && c.item < 0 {
		return c.size
	}
	osz, _ := c.table()
	s := c.sizes()
	n := 1 + osz*uint64(len(s)+1)
	for _, k := range s {
		n += k
	}
	return n
}

// Rewrite writes to w a copy of the archive with the entries o.Drop
// leaves out removed and o.Add added: the clusters still used are copied
// byte for byte (no recompression), the new items get an uncompressed
// cluster each; the dirents, the path pointer list, the title listings
// (X/listing/titleOrdered/v0 and v1 in the new namespace scheme, the
// header's title pointer list in the old one), the cluster pointer list,
// the header (the same format version, a new UUID) and the MD5 checksum
// are written anew. The source should have been checked (VerifyChecksum):
// only what Rewrite reads is validated.
func (a *Archive) Rewrite(w io.Writer, o RewriteOptions) error {
	h := a.hdr
	var ents []rentry
	var front []bool
	if a.newNS {
		var err error
		if o.Front == nil {
			if front, _, err = a.FrontArticles(); err != nil {
				return err
			}
		}
	}
	dropped := make([]bool, h.EntryCount)
	boundaries := []uint64{h.PathPtrPos, h.ClusterPtrPos, h.MimeListPos, uint64(a.size)}
	if h.HasChecksum() {
		boundaries = append(boundaries, h.ChecksumPos)
	}
	titleInCluster := false
	err := a.Entries(0, h.EntryCount, func(e *Entry) error {
		boundaries = append(boundaries, uint64(e.Offset))
		if a.newNS && e.Namespace == 'X' && (e.Path == "listing/titleOrdered/v0" || e.Path == "listing/titleOrdered/v1") {
			if e.Path == "listing/titleOrdered/v0" {
				titleInCluster = true
			}
			dropped[e.Index] = true
			return nil // written anew
		}
		if o.Drop != nil && o.Drop(e) {
			dropped[e.Index] = true
			return nil
		}
		r := rentry{e: *e, add: -1, mime: e.MimeIndex}
		if a.newNS {
			switch {
			case o.Front != nil:
				r.front = o.Front(e)
			case front != nil:
				r.front = front[e.Index]
			}
		}
		ents = append(ents, r)
		return nil
	})
	if err != nil {
		return err
	}
	if !titleInCluster {
		boundaries = append(boundaries, h.TitlePtrPos)
	}

	// MIME types: the source's list, then the new ones
	mimes := append([]string(nil), a.mimes...)
	mimeIdx := func(m string) (uint16, error) {
		for i, v := range mimes {
			if v == m {
				return uint16(i), nil
			}
		}
		if len(mimes) >= mimeDeleted || m == "" || strings.IndexByte(m, 0) >= 0 {
			return 0, fmt.Errorf("zim: cannot add MIME type %q", m)
		}
		mimes = append(mimes, m)
		return uint16(len(mimes) - 1), nil
	}

	// clusters still used, in their source order
	used := map[uint32]bool{}
	for i := range ents {
		if ents[i].e.Kind == KindItem {
			if ents[i].e.Cluster >= h.ClusterCount {
				return a.errf(ents[i].e.Offset, "cluster index out of range")
			}
			used[ents[i].e.Cluster] = true
		}
	}
	starts := make([]uint64, 0, h.ClusterCount)
	srcOff := make([]uint64, h.ClusterCount)
	for i := uint32(0); i < h.ClusterCount; i++ {
		off, err := a.ClusterOffset(i)
		if err != nil {
			return err
		}
		if off < h.MimeListPos || off >= uint64(a.size) {
			return a.errf(int64(h.ClusterPtrPos)+8*int64(i), "cluster %d: offset %d outside the archive", i, off)
		}
		srcOff[i] = off
		starts = append(starts, off)
	}
	boundaries = append(boundaries, starts...)
	sort.Slice(boundaries, func(i, j int) bool { return boundaries[i] < boundaries[j] })
	var clusters []rcluster
	remap := make([]uint32, h.ClusterCount)
	for i := uint32(0); i < h.ClusterCount; i++ {
		if !used[i] {
			continue
		}
		off := srcOff[i]
		k := sort.Search(len(boundaries), func(j int) bool { return boundaries[j] > off })
		end := uint64(a.size)
		if k < len(boundaries) {
			end = boundaries[k]
		}
		c, err := a.ClusterHeader(i)
		if err != nil {
			return err
		}
		if !c.compressed() {
			// a stored cluster: exactly its offset table and data
			exact := 1 + c.DataSize() // the offsets count from the table's start
			if off+exact > uint64(a.size) {
				return a.errf(int64(off), "cluster %d at offset %d: %d bytes run past the end of the archive", i, off, exact)
			}
			end = off + exact
		}
		if end <= off+1 {
			return a.errf(int64(off), "cluster %d at offset %d: no room for its data", i, off)
		}
		remap[i] = uint32(len(clusters))
		clusters = append(clusters, rcluster{srcOff: off, size: end - off, item: -1})
	}

	// new entries
	for k, it := range o.Add {
		if it.Path == "" || strings.IndexByte(it.Path, 0) >= 0 || strings.IndexByte(it.Title, 0) >= 0 || it.Size < 0 {
			return fmt.Errorf("zim: bad new entry %c/%q", it.Namespace, it.Path)
		}
		mi, err := mimeIdx(it.Mime)
		if err != nil {
			return err
		}
		r := rentry{e: Entry{Kind: KindItem, Namespace: it.Namespace, Path: it.Path, RawTitle: it.Title, Index: ^uint32(0)},
			add: k, mime: mi, cluster: uint32(len(clusters))}
		clusters = append(clusters, rcluster{item: k, itemSize: it.Size})
		ents = append(ents, r)
	}
	v1 := -1
	nFront := 0
	for i := range ents {
		if ents[i].front {
			nFront++
		}
	}
	listCluster := -1
	if a.newNS {
		lm, err := mimeIdx(listingMime)
		if err != nil {
			return err
		}
		listCluster = len(clusters)
		clusters = append(clusters, rcluster{item: -1, blobs: [][]byte{}})
		ents = append(ents, rentry{e: Entry{Kind: KindItem, Namespace: 'X', Path: "listing/titleOrdered/v0", Index: ^uint32(0)},
			add: -1, mime: lm, cluster: uint32(listCluster), blob: 0})
		if nFront > 0 {
			v1 = len(ents)
			ents = append(ents, rentry{e: Entry{Kind: KindItem, Namespace: 'X', Path: "listing/titleOrdered/v1", Index: ^uint32(0)},
				add: -1, mime: lm, cluster: uint32(listCluster), blob: 1})
		}
	}
	if len(ents) >= 1<<32-1 || len(clusters) >= 1<<32-1 {
		return fmt.Errorf("zim: too many entries or clusters")
	}

	// path order
	order := make([]int32, len(ents))
	for i := range order {
		order[i] = int32(i)
	}
	sort.SliceStable(order, func(i, j int) bool {
		x, y := &ents[order[i]].e, &ents[order[j]].e
		if x.Namespace != y.Namespace {
			return x.Namespace < y.Namespace
		}
		return x.Path < y.Path
	})
	for i := 1; i < len(order); i++ {
		x, y := &ents[order[i-1]].e, &ents[order[i]].e
		if x.Namespace == y.Namespace && x.Path == y.Path {
			return fmt.Errorf("zim: %c/%s twice", x.Namespace, x.Path)
		}
	}
	oldToNew := make([]uint32, h.EntryCount)
	for i := range oldToNew {
		oldToNew[i] = ^uint32(0)
	}
	for i, k := range order {
		ents[k].newIdx = uint32(i)
		if ents[k].add < 0 && ents[k].e.Index != ^uint32(0) {
			oldToNew[ents[k].e.Index] = uint32(i)
		}
	}
	for i := range ents {
		r := &ents[i]
		switch {
		case r.add >= 0 || r.e.Index == ^uint32(0):
		case r.e.Kind == KindItem:
			r.cluster, r.blob = remap[r.e.Cluster], r.e.Blob
		case r.e.Kind == KindRedirect:
			if r.e.RedirectIndex >= h.EntryCount {
				return a.errf(r.e.Offset, "redirect target %d out of range", r.e.RedirectIndex)
			}
			if dropped[r.e.RedirectIndex] {
				return a.errf(r.e.Offset, "redirect %s leads to a dropped entry", r.e.LongPath())
			}
		}
	}

	// title order
	titles := append([]int32(nil), order...)
	sort.SliceStable(titles, func(i, j int) bool {
		x, y := &ents[titles[i]], &ents[titles[j]]
		if x.e.Namespace != y.e.Namespace {
			return x.e.Namespace < y.e.Namespace
		}
		if c := strings.Compare(x.title(), y.title()); c != 0 {
			return c < 0
		}
		return x.e.Path < y.e.Path
	})
	listing := func(frontOnly bool) []byte {
		b := make([]byte, 0, 4*len(titles))
		for _, k := range titles {
			if frontOnly && !ents[k].front {
				continue
			}
			b = binary.LittleEndian.AppendUint32(b, ents[k].newIdx)
		}
		return b
	}
	if listCluster >= 0 {
		clusters[listCluster].blobs = append(clusters[listCluster].blobs, listing(false))
		if v1 >= 0 {
			clusters[listCluster].blobs = append(clusters[listCluster].blobs, listing(true))
		}
	}

	// layout
	var mimeList []byte
	for _, m := range mimes {
		mimeList = append(mimeList, m...)
		mimeList = append(mimeList, 0)
	}
	mimeList = append(mimeList, 0)
	base := uint64(clusterBase)
	if HeaderSize+uint64(len(mimeList)) > base {
		base = HeaderSize + uint64(len(mimeList))
	}
	pos := base
	clOff := make([]uint64, len(clusters))
	for i := range clusters {
		clOff[i] = pos
		pos += clusters[i].newSize()
	}
	direntSize := func(r *rentry) uint64 {
		n := uint64(16)
		switch r.e.Kind {
		case KindRedirect:
			n = 12
		case KindDeprecated:
			n = 8
		}
		n += uint64(len(r.e.Path)) + 2
		if r.e.RawTitle != r.e.Path {
			n += uint64(len(r.e.RawTitle))
		}
		return n
	}
	direntOff := make([]uint64, len(order))
	for i, k := range order {
		direntOff[i] = pos
		pos += direntSize(&ents[k])
	}
	pathPtrPos := pos
	pos += 8 * uint64(len(order))
	var titlePtrPos uint64
	if a.newNS {
		// the v0 listing's blob: first blob of the listing cluster
		c := &clusters[listCluster]
		osz, _ := c.table()
		titlePtrPos = clOff[listCluster] + 1 + osz*uint64(len(c.blobs)+1)
	} else {
		titlePtrPos = pos
		pos += 4 * uint64(len(titles))
	}
	clusterPtrPos := pos
	pos += 8 * uint64(len(clusters))
	checksumPos := pos

	mapIdx := func(old uint32) uint32 {
		if old == NoPage || old >= h.EntryCount {
			return NoPage
		}
		return oldToNew[old]
	}
	uuid := o.UUID
	if uuid == ([16]byte{}) {
		if _, err := rand.Read(uuid[:]); err != nil {
			return err
		}
		uuid[6] = uuid[6]&0x0f | 0x40
		uuid[8] = uuid[8]&0x3f | 0x80
	}
	le := binary.LittleEndian
	hb := make([]byte, HeaderSize)
	le.PutUint32(hb[0:], Magic)
	le.PutUint16(hb[4:], h.MajorVersion)
	le.PutUint16(hb[6:], h.MinorVersion)
	copy(hb[8:24], uuid[:])
	le.PutUint32(hb[24:], uint32(len(order)))
	le.PutUint32(hb[28:], uint32(len(clusters)))
	le.PutUint64(hb[32:], pathPtrPos)
	le.PutUint64(hb[40:], titlePtrPos)
	le.PutUint64(hb[48:], clusterPtrPos)
	le.PutUint64(hb[56:], HeaderSize)
	le.PutUint32(hb[64:], mapIdx(h.MainPage))
	le.PutUint32(hb[68:], mapIdx(h.LayoutPage))
	le.PutUint64(hb[72:], checksumPos)

	sum := md5.New()
	cw := &countWriter{w: io.MultiWriter(w, sum)}
	bw := bufio.NewWriterSize(cw, 1<<20)
	bw.Write(hb)
	bw.Write(mimeList)
	bw.Write(make([]byte, base-HeaderSize-uint64(len(mimeList))))
	written := func() uint64 { return uint64(cw.n) + uint64(bw.Buffered()) }
	for i := range clusters {
		c := &clusters[i]
		if written() != clOff[i] {
			return fmt.Errorf("zim: rewrite: cluster %d at %d, planned at %d", i, written(), clOff[i])
		}
		if c.blobs == nil && c.item < 0 {
			if _, err := io.Copy(bw, io.NewSectionReader(a.r, int64(c.srcOff), int64(c.size))); err != nil {
				return a.errf(int64(c.srcOff), "copying cluster at offset %d: %v", c.srcOff, err)
			}
			continue
		}
		sizes := c.sizes()
		osz, info := c.table()
		bw.WriteByte(info)
		at := osz * uint64(len(sizes)+1)
		var b8 [8]byte
		put := func(v uint64) {
			if osz == 8 {
				le.PutUint64(b8[:], v)
			} else {
				le.PutUint32(b8[:], uint32(v))
			}
			bw.Write(b8[:osz])
		}
		put(at)
		for _, s := range sizes {
			at += s
			put(at)
		}
		for _, b := range c.blobs {
			bw.Write(b)
		}
		if c.item >= 0 {
			it := &o.Add[c.item]
			r, err := it.Open()
			if err != nil {
				return err
			}
			n, err := io.Copy(bw, io.LimitReader(r, it.Size))
			if err == nil && n != it.Size {
				err = fmt.Errorf("%d bytes of %d", n, it.Size)
			}
			if err != nil {
				return fmt.Errorf("zim: %c/%s: %w", it.Namespace, it.Path, err)
			}
		}
	}
	var buf []byte
	for _, k := range order {
		r := &ents[k]
		buf = buf[:0]
		switch r.e.Kind {
		case KindRedirect:
			buf = le.AppendUint16(buf, mimeRedirect)
		case KindDeprecated:
			buf = le.AppendUint16(buf, r.e.MimeIndex)
		default:
			buf = le.AppendUint16(buf, r.mime)
		}
		buf = append(buf, 0, r.e.Namespace, 0, 0, 0, 0)
		switch r.e.Kind {
		case KindRedirect:
			buf = le.AppendUint32(buf, oldToNew[r.e.RedirectIndex])
		case KindItem:
			buf = le.AppendUint32(buf, r.cluster)
			buf = le.AppendUint32(buf, r.blob)
		}
		buf = append(buf, r.e.Path...)
		buf = append(buf, 0)
		if r.e.RawTitle != r.e.Path {
			buf = append(buf, r.e.RawTitle...)
		}
		buf = append(buf, 0)
		bw.Write(buf)
	}
	var b8 [8]byte
	for _, off := range direntOff {
		le.PutUint64(b8[:], off)
		bw.Write(b8[:])
	}
	if !a.newNS {
		bw.Write(listing(false))
	}
	for _, off := range clOff {
		le.PutUint64(b8[:], off)
		bw.Write(b8[:])
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if cw.err != nil {
		return cw.err
	}
	if uint64(cw.n) != checksumPos {
		return fmt.Errorf("zim: rewrite: %d bytes written, planned %d", cw.n, checksumPos)
	}
	_, err = w.Write(sum.Sum(nil))
	return err
}
