package zim

import (
	"bytes"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Problem is one defect found by Check.
type Problem struct {
	Offset int64 // byte offset of the faulty structure, -1 when none applies
	Msg    string
}

// String formats the problem as "offset N: reason".
func (p Problem) String() string {
	if p.Offset < 0 {
		return p.Msg
	}
	return fmt.Sprintf("offset %d: %s", p.Offset, p.Msg)
}

// VerifyChecksum computes the MD5 of the archive up to the checksum and
// compares it with the stored one.
func (a *Archive) VerifyChecksum() error {
	if !a.hdr.HasChecksum() {
		return a.errf(-1, "archive has no checksum")
	}
	stored, ok := a.Checksum()
	if !ok {
		return a.errf(int64(a.hdr.ChecksumPos), "checksum cannot be read")
	}
	h := md5.New()
	buf := make([]byte, 1<<20)
	if _, err := io.CopyBuffer(h, io.NewSectionReader(a.r, 0, int64(a.hdr.ChecksumPos)), buf); err != nil {
		return a.errf(-1, "reading for the checksum: %v", err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != stored {
		return a.errf(int64(a.hdr.ChecksumPos), "checksum mismatch: stored %s, computed %s", stored, got)
	}
	return nil
}

// CheckOptions selects the checks Check runs.
type CheckOptions struct {
	Checksum bool // verify the MD5 checksum
	Clusters bool // decompress every cluster completely
}

// Check runs the integrity checks of libzim (zimcheck -I: dirent and
// cluster pointers in bounds, dirents sorted, title indexes valid and
// sorted, MIME types known) and more: redirect targets and blob numbers in
// range, no redirect loop (a cycle, or a redirect to itself), no blob that
// is the data of more than half of the entries (aliases of a few are fine), no stored cluster whose blobs run past
// the next structure, every cluster readable (with Clusters) and the
// checksum (with Checksum). It returns every problem found, in a stable
// order.
func (a *Archive) Check(o CheckOptions) []Problem {
	var ps []Problem
	add := func(off int64, format string, args ...any) {
		ps = append(ps, Problem{off, fmt.Sprintf(format, args...)})
	}
	fromErr := func(err error) {
		if fe, ok := err.(*FormatError); ok {
			add(fe.Offset, "%s", fe.Msg)
		} else {
			add(-1, "%v", err)
		}
	}
	if o.Checksum {
		if err := a.VerifyChecksum(); err != nil {
			fromErr(err)
		}
	}
	h := &a.hdr
	end := uint64(a.size)
	if h.HasChecksum() {
		end = h.ChecksumPos
	}
	// cluster pointers
	badCluster := map[uint32]bool{}
	var starts []uint64 // of the clusters, sorted
	for i := uint32(0); i < h.ClusterCount; i++ {
		off, err := a.ClusterOffset(i)
		if err != nil {
			fromErr(err)
			break
		}
		starts = append(starts, off)
		if off < h.MimeListPos || off >= end {
			add(int64(h.ClusterPtrPos)+8*int64(i), "cluster %d: pointer %d outside [%d, %d)", i, off, h.MimeListPos, end)
			badCluster[i] = true
		}
	}
	sort.Slice(starts, func(i, j int) bool { return starts[i] < starts[j] })
	// dirent pointers, order, MIME types, redirects
	type clusterRef struct {
		cluster, blob, entry uint32
		off                  int64 // of the dirent
	}
	var refs []clusterRef
	redirects := map[uint32]uint32{}
	var prev string
	for i := uint32(0); i < h.EntryCount; i++ {
		off, err := a.DirentOffset(i)
		if err != nil {
			fromErr(err)
			break
		}
		if off < h.MimeListPos || off > end || end-off < 11 {
			add(int64(h.PathPtrPos)+8*int64(i), "entry %d: Invalid dirent pointer %d", i, off)
			prev = ""
			continue
		}
		e, err := a.EntryAt(i)
		if err != nil {
			fromErr(err)
			prev = ""
			continue
		}
		lp := e.LongPath()
		if i > 0 && prev != "" && !(prev < lp) {
			add(e.Offset, "Dirent table is not properly sorted: #%d %s, #%d %s", i-1, prev, i, lp)
		}
		prev = lp
		switch e.Kind {
		case KindItem:
			if int(e.MimeIndex) >= len(a.mimes) {
				add(e.Offset, "Entry %s has invalid MIME-type value %d.", lp, e.MimeIndex)
			}
			if e.Cluster >= h.ClusterCount {
				add(e.Offset, "entry %s: cluster %d out of range (%d clusters)", lp, e.Cluster, h.ClusterCount)
			} else {
				refs = append(refs, clusterRef{e.Cluster, e.Blob, i, e.Offset})
			}
		case KindRedirect:
			if e.RedirectIndex >= h.EntryCount {
				add(e.Offset, "entry %s: redirect index %d out of range (%d entries)", lp, e.RedirectIndex, h.EntryCount)
			} else {
				redirects[i] = e.RedirectIndex
			}
		}
	}
	ps = append(ps, a.checkRedirectLoops(redirects)...)
	// title indexes: the header's list (all ones: absent, as newer writers
	// leave it), X/listing/titleOrdered/v0 and v1
	if h.TitlePtrPos != 1<<64-1 {
		if h.TitlePtrPos > 1<<63-1 {
			add(40, "title pointer list at %d (%d entries) outside the archive", h.TitlePtrPos, h.EntryCount)
		} else {
			ps = append(ps, a.checkTitleList("title pointer list", int64(h.TitlePtrPos), h.EntryCount)...)
		}
	}
	if off, n, ok := a.listingBlob("listing/titleOrdered/v0"); ok && !(off == int64(h.TitlePtrPos) && h.TitlePtrPos != 1<<64-1) {
		ps = append(ps, a.checkTitleList("X/listing/titleOrdered/v0", off, n)...)
	}
	if a.frontArticles {
		ps = append(ps, a.checkTitleList("X/listing/titleOrdered/v1", a.titleOff, a.titleCount)...)
	}
	// clusters and blob numbers. Several entries may share a blob (libzim's
	// addAlias makes such aliases), but one blob holding the data of more
	// than half of the entries (at least 3) is the amplification of a
	// crafted archive, where every entry points at one blob.
	sort.Slice(refs, func(i, j int) bool {
		if refs[i].cluster != refs[j].cluster {
			return refs[i].cluster < refs[j].cluster
		}
		if refs[i].blob != refs[j].blob {
			return refs[i].blob < refs[j].blob
		}
		return refs[i].entry < refs[j].entry
	})
	for k := 0; k < len(refs); {
		j := k + 1
		for j < len(refs) && refs[j].cluster == refs[k].cluster && refs[j].blob == refs[k].blob {
			j++
		}
		if j-k >= 3 && 2*(j-k) > len(refs) {
			var names []string
			for _, r := range refs[k:min(j, k+4)] {
				if e, err := a.EntryAt(r.entry); err == nil {
					names = append(names, e.LongPath())
				}
			}
			if j-k > 4 {
				names = append(names, "...")
			}
			add(refs[k].off, "cluster %d blob %d is the data of %d entries: %s", refs[k].cluster, refs[k].blob, j-k, strings.Join(names, ", "))
		}
		k = j
	}
	for k := 0; k < len(refs); {
		ci := refs[k].cluster
		j := k
		for j < len(refs) && refs[j].cluster == ci {
			j++
		}
		if badCluster[ci] {
			k = j
			continue
		}
		var c *Cluster
		var err error
		if o.Clusters {
			c, err = a.LoadCluster(ci)
		} else {
			c, err = a.ClusterHeader(ci)
		}
		if err != nil {
			fromErr(err)
		} else {
			for _, r := range refs[k:j] {
				if r.blob >= c.BlobCount() {
					add(r.off, "entry %d: blob %d out of range (cluster %d has %d blobs)", r.entry, r.blob, ci, c.BlobCount())
				}
			}
			if !c.compressed() && !a.canRead(c.Offset+1, c.DataSize()) {
				add(int64(c.Offset), "cluster %d: data (%d bytes) extends beyond the end of the archive", ci, c.DataSize())
			} else if ext := a.storedExtent(c.Offset, starts); !c.compressed() && c.DataSize() > ext {
				b := c.BlobCount() - 1
				for b > 0 && c.offsets[b] > ext {
					b--
				}
				add(int64(c.Offset), "cluster %d: blob %d ends at %d, past the end of the cluster (%d bytes before the next structure)", ci, b, c.offsets[b+1], ext)
			}
			if o.Clusters && c.compressed() && !c.hasData {
				// too large for memory: decompress it through
				if r, err := c.OpenBlob(c.BlobCount() - 1); err == nil {
					_, err = io.Copy(io.Discard, r)
					r.Close()
					if err != nil {
						fromErr(err)
					}
				} else {
					fromErr(err)
				}
			}
		}
		k = j
	}
	return ps
}

// checkTitleList checks a title pointer list: indexes in range, entries
// sorted by namespace and title.
func (a *Archive) checkTitleList(name string, off int64, n uint32) []Problem {
	var ps []Problem
	if !a.canRead(uint64(off), 4*uint64(n)) {
		return []Problem{{off, fmt.Sprintf("%s (%d entries) outside the archive", name, n)}}
	}
	buf := make([]byte, 4*min(n, 1<<16))
	var prev []byte
	var prevOK bool
	for i := uint32(0); i < n; {
		k := min(n-i, uint32(len(buf)/4))
		if err := a.readFull(buf[:4*k], off+4*int64(i), name); err != nil {
			return append(ps, Problem{off, err.Error()})
		}
		for j := uint32(0); j < k; j++ {
			idx := uint32(buf[4*j]) | uint32(buf[4*j+1])<<8 | uint32(buf[4*j+2])<<16 | uint32(buf[4*j+3])<<24
			at := off + 4*int64(i+j)
			if idx >= a.hdr.EntryCount {
				ps = append(ps, Problem{at, fmt.Sprintf("%s: Invalid title index entry %d: %d (%d entries)", name, i+j, idx, a.hdr.EntryCount)})
				prevOK = false
				continue
			}
			e, err := a.EntryAt(idx)
			if err != nil {
				prevOK = false
				continue
			}
			key := append([]byte{e.Namespace, '/'}, e.Title()...)
			if prevOK && bytes.Compare(prev, key) > 0 {
				ps = append(ps, Problem{at, fmt.Sprintf("%s: Title index is not properly sorted at %d: %q after %q", name, i+j, key, prev)})
			}
			prev, prevOK = key, true
		}
		i += k
	}
	return ps
}

// listingBlob locates an uncompressed X/ listing blob.
func (a *Archive) listingBlob(path string) (off int64, n uint32, ok bool) {
	idx, found, err := a.Find('X', path)
	if err != nil || !found {
		return 0, 0, false
	}
	e, err := a.EntryAt(idx)
	if err != nil || e.Kind != KindItem {
		return 0, 0, false
	}
	c, err := a.ClusterHeader(e.Cluster)
	if err != nil || c.compressed() || e.Blob >= c.BlobCount() {
		return 0, 0, false
	}
	size, _ := c.BlobSize(e.Blob)
	off = int64(c.Offset + 1 + c.offsets[e.Blob]) // < 2^63+2^62: no wrap
	if off < 0 || size/4 > 1<<32-1 {
		return 0, 0, false // past the archive: the cluster's check reports it
	}
	return off, uint32(size / 4), true
}

// checkRedirectLoops reports each cycle of redirects (including a
// redirect to itself) once, at the dirent of its first member in path
// order, with the loop spelled out. redirects maps the index of every
// redirect entry to its (in range) target.
func (a *Archive) checkRedirectLoops(redirects map[uint32]uint32) []Problem {
	var ps []Problem
	const (
		inProgress = 1
		done       = 2
	)
	state := make(map[uint32]byte, len(redirects))
	starts := make([]uint32, 0, len(redirects))
	for i := range redirects {
		starts = append(starts, i)
	}
	sort.Slice(starts, func(i, j int) bool { return starts[i] < starts[j] })
	var path []uint32
	for _, s := range starts {
		path = path[:0]
		cur := s
		for {
			t, isRedirect := redirects[cur]
			if !isRedirect || state[cur] == done {
				break
			}
			if state[cur] == inProgress {
				// cur starts a loop: the part of path from cur on
				k := len(path) - 1
				for path[k] != cur {
					k--
				}
				loop := path[k:]
				first := loop[0]
				for _, m := range loop {
					first = min(first, m)
				}
				var names []string
				var off int64 = -1
				j := 0
				for j < len(loop) && loop[j] != first {
					j++
				}
				for n := 0; n <= len(loop); n++ {
					m := loop[(j+n)%len(loop)]
					name := fmt.Sprintf("#%d", m)
					if e, err := a.EntryAt(m); err == nil {
						name = e.LongPath()
						if n == 0 {
							off = e.Offset
						}
					}
					names = append(names, name)
				}
				ps = append(ps, Problem{off, "redirect loop: " + strings.Join(names, " -> ")})
				break
			}
			state[cur] = inProgress
			path = append(path, cur)
			cur = t
		}
		for _, m := range path {
			state[m] = done
		}
	}
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].Offset < ps[j].Offset })
	return ps
}

// storedExtent is the room of the stored cluster at off (information byte
// excluded): up to the next cluster (starts holds every cluster's offset,
// sorted), the path or cluster pointer list or the checksum after it, or
// the end of the archive. The header's title pointer list is no bound: it
// is often the X/listing/titleOrdered/v0 blob inside a stored cluster.
func (a *Archive) storedExtent(off uint64, starts []uint64) uint64 {
	h := &a.hdr
	end := uint64(a.size)
	ends := []uint64{h.PathPtrPos, h.ClusterPtrPos}
	if h.HasChecksum() {
		ends = append(ends, h.ChecksumPos)
	}
	if i := sort.Search(len(starts), func(i int) bool { return starts[i] > off }); i < len(starts) {
		ends = append(ends, starts[i])
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
