// Package zimtest builds small ZIM archives in memory for tests: every
// layout variant the reader must handle (old 72-byte header, extended
// clusters, XZ/zstd/uncompressed clusters, deprecated dirents, hostile
// names) without depending on an external writer. It follows
// ../shared/specs/zim-file-format.txt.
package zimtest

import (
	"bytes"
	"crypto/md5"
	"encoding/binary"
	"fmt"
	"sort"

	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"
)

// Cluster describes one cluster: its compression (1 none, 4 XZ, 5 zstd)
// and whether its offsets are 8 bytes wide. Extra blobs follow the blobs
// of the entries (blobs no entry refers to). Encode, when set, compresses
// the cluster data (offset table and blobs) instead of the default
// encoder of Comp.
type Cluster struct {
	Comp     byte
	Extended bool
	Extra    [][]byte
	Encode   func(raw []byte) ([]byte, error)
}

// Entry is a directory entry to write. Items carry Data stored in cluster
// Cluster; redirects carry Target ("N/path"); Deprecated writes a 0xfffe
// link-target dirent.
type Entry struct {
	NS         byte
	Path       string
	Title      string
	Mime       string
	Data       []byte
	Cluster    int
	Target     string
	Deprecated bool
}

// Spec is an archive to build.
type Spec struct {
	Major, Minor uint16 // default 6.1
	Header72     bool   // mimeListPos 72, no checksum
	Clusters     []Cluster
	Entries      []Entry
	MainPage     string // "N/path"; empty: none
	// Patch, when set, may alter the archive before the checksum is
	// computed; offsets gives the position of each structure.
	Patch func(b []byte, o Offsets)
}

// Offsets locates the structures of a built archive.
type Offsets struct {
	PathPtr, TitlePtr, ClusterPtr uint64
	Dirents                       []uint64 // by path index
	Clusters                      []uint64
}

// Build returns the archive bytes and the order of Spec.Entries by path
// index.
func Build(s Spec) ([]byte, Offsets, error) {
	if s.Major == 0 {
		s.Major, s.Minor = 6, 1
	}
	ents := append([]Entry(nil), s.Entries...)
	long := func(e Entry) string { return string(e.NS) + "/" + e.Path }
	sort.SliceStable(ents, func(i, j int) bool { return long(ents[i]) < long(ents[j]) })
	index := map[string]int{}
	for i, e := range ents {
		index[long(e)] = i
	}
	var mimes []string
	mimeIdx := map[string]int{}
	for _, e := range ents {
		if e.Target == "" && !e.Deprecated {
			if _, ok := mimeIdx[e.Mime]; !ok {
				mimeIdx[e.Mime] = len(mimes)
				mimes = append(mimes, e.Mime)
			}
		}
	}
	// clusters
	blobs := make([][][]byte, len(s.Clusters))
	blobNo := make([]int, len(ents))
	for i, e := range ents {
		if e.Target != "" || e.Deprecated {
			continue
		}
		if e.Cluster >= len(s.Clusters) {
			return nil, Offsets{}, fmt.Errorf("entry %s: no cluster %d", long(e), e.Cluster)
		}
		blobNo[i] = len(blobs[e.Cluster])
		blobs[e.Cluster] = append(blobs[e.Cluster], e.Data)
	}
	for ci, c := range s.Clusters {
		blobs[ci] = append(blobs[ci], c.Extra...)
	}
	var out bytes.Buffer
	hsize := 80
	if s.Header72 {
		hsize = 72
	}
	out.Write(make([]byte, 80)) // header placeholder (72: the mime list starts inside)
	out.Truncate(hsize)
	for _, m := range mimes {
		out.WriteString(m)
		out.WriteByte(0)
	}
	out.WriteByte(0)
	var o Offsets
	o.PathPtr = uint64(out.Len())
	out.Write(make([]byte, 8*len(ents)))
	o.TitlePtr = uint64(out.Len())
	titleOrder := make([]int, len(ents))
	for i := range titleOrder {
		titleOrder[i] = i
	}
	title := func(e Entry) string {
		if e.Title == "" {
			return e.Path
		}
		return e.Title
	}
	sort.SliceStable(titleOrder, func(i, j int) bool {
		a, b := ents[titleOrder[i]], ents[titleOrder[j]]
		return string(a.NS)+"/"+title(a) < string(b.NS)+"/"+title(b)
	})
	for _, i := range titleOrder {
		binary.Write(&out, binary.LittleEndian, uint32(i))
	}
	for i, e := range ents {
		o.Dirents = append(o.Dirents, uint64(out.Len()))
		var h [16]byte
		switch {
		case e.Deprecated:
			binary.LittleEndian.PutUint16(h[:], 0xFFFE)
			h[3] = e.NS
			out.Write(h[:8])
		case e.Target != "":
			t, ok := index[e.Target]
			if !ok {
				return nil, Offsets{}, fmt.Errorf("redirect %s: no target %s", long(e), e.Target)
			}
			binary.LittleEndian.PutUint16(h[:], 0xFFFF)
			h[3] = e.NS
			binary.LittleEndian.PutUint32(h[8:], uint32(t))
			out.Write(h[:12])
		default:
			binary.LittleEndian.PutUint16(h[:], uint16(mimeIdx[e.Mime]))
			h[3] = e.NS
			binary.LittleEndian.PutUint32(h[8:], uint32(e.Cluster))
			binary.LittleEndian.PutUint32(h[12:], uint32(blobNo[i]))
			out.Write(h[:16])
		}
		out.WriteString(e.Path)
		out.WriteByte(0)
		out.WriteString(e.Title)
		out.WriteByte(0)
	}
	for ci, c := range s.Clusters {
		o.Clusters = append(o.Clusters, uint64(out.Len()))
		osz := 4
		info := c.Comp
		if c.Extended {
			osz = 8
			info |= 0x10
		}
		var raw bytes.Buffer
		off := uint64(osz * (len(blobs[ci]) + 1))
		put := func(v uint64) {
			if osz == 4 {
				binary.Write(&raw, binary.LittleEndian, uint32(v))
			} else {
				binary.Write(&raw, binary.LittleEndian, v)
			}
		}
		for _, b := range blobs[ci] {
			put(off)
			off += uint64(len(b))
		}
		put(off)
		for _, b := range blobs[ci] {
			raw.Write(b)
		}
		out.WriteByte(info)
		if c.Encode != nil {
			enc, err := c.Encode(raw.Bytes())
			if err != nil {
				return nil, Offsets{}, err
			}
			out.Write(enc)
			continue
		}
		switch c.Comp {
		case 0, 1:
			out.Write(raw.Bytes())
		case 4:
			w, err := xz.WriterConfig{DictCap: 1 << 20}.NewWriter(&out)
			if err != nil {
				return nil, Offsets{}, err
			}
			w.Write(raw.Bytes())
			w.Close()
		case 5:
			w, _ := zstd.NewWriter(&out)
			w.Write(raw.Bytes())
			w.Close()
		default:
			out.Write(raw.Bytes())
		}
	}
	o.ClusterPtr = uint64(out.Len())
	for _, c := range o.Clusters {
		binary.Write(&out, binary.LittleEndian, c)
	}
	b := out.Bytes()
	for i, d := range o.Dirents {
		binary.LittleEndian.PutUint64(b[o.PathPtr+8*uint64(i):], d)
	}
	le := binary.LittleEndian
	hdr := make([]byte, 80)
	le.PutUint32(hdr[0:], 0x044D495A)
	le.PutUint16(hdr[4:], s.Major)
	le.PutUint16(hdr[6:], s.Minor)
	copy(hdr[8:24], "0123456789abcdef")
	le.PutUint32(hdr[24:], uint32(len(ents)))
	le.PutUint32(hdr[28:], uint32(len(s.Clusters)))
	le.PutUint64(hdr[32:], o.PathPtr)
	le.PutUint64(hdr[40:], o.TitlePtr)
	le.PutUint64(hdr[48:], o.ClusterPtr)
	le.PutUint64(hdr[56:], uint64(hsize))
	main := uint32(0xFFFFFFFF)
	if s.MainPage != "" {
		m, ok := index[s.MainPage]
		if !ok {
			return nil, Offsets{}, fmt.Errorf("no main page %s", s.MainPage)
		}
		main = uint32(m)
	}
	le.PutUint32(hdr[64:], main)
	le.PutUint32(hdr[68:], 0xFFFFFFFF)
	le.PutUint64(hdr[72:], uint64(len(b)))
	copy(b, hdr[:hsize])
	if s.Patch != nil {
		s.Patch(b, o)
	}
	if s.Header72 {
		return b, o, nil
	}
	sum := md5.Sum(b)
	return append(b, sum[:]...), o, nil
}
