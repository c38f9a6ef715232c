package htcache

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"io"
	"testing"

	"github.com/klauspost/compress/flate"
)

// sparse is an io.ReaderAt over segments of bytes with zeros between them,
// to stand for a cache bigger than 4 GiB without writing one.
type sparse struct {
	segs []sparseSeg
	size int64
}

type sparseSeg struct {
	off int64
	b   []byte
}

func (s *sparse) ReadAt(p []byte, off int64) (int, error) {
	if off >= s.size {
		return 0, io.EOF
	}
	n := len(p)
	if int64(n) > s.size-off {
		n = int(s.size - off)
	}
	clear(p[:n])
	for _, g := range s.segs {
		lo, hi := max(off, g.off), min(off+int64(n), g.off+int64(len(g.b)))
		if lo < hi {
			copy(p[lo-off:hi-off], g.b[lo-g.off:hi-g.off])
		}
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// TestZIP64: a 5 GiB stored entry whose sizes are in a ZIP64 block after the
// metadata text, then an entry past 4 GiB whose offset only the ZIP64
// central directory can give, then a ZIP64 end record with 0xffff counts.
func TestZIP64(t *testing.T) {
	const big = 5 << 30
	le := binary.LittleEndian
	// Entry A: stored, 5 GiB of zeros.
	text := "HTTP/1.1 200 OK\r\nX-In-Cache: 1\r\nX-StatusCode: 200\r\nX-StatusMessage: OK\r\nX-Size: 5368709120\r\nContent-Type: application/octet-stream\r\n"
	extraA := append([]byte(text+"\r\n"), make([]byte, 20)...)
	le.PutUint16(extraA[len(text)+2:], 1)
	le.PutUint16(extraA[len(text)+4:], 16)
	le.PutUint64(extraA[len(text)+6:], big)
	le.PutUint64(extraA[len(text)+14:], big)
	nameA := "http://big.example/a.iso"
	hA := make([]byte, 30)
	le.PutUint32(hA, sigLocal)
	le.PutUint16(hA[4:], 45)
	le.PutUint32(hA[18:], max32)
	le.PutUint32(hA[22:], max32)
	le.PutUint16(hA[26:], uint16(len(nameA)))
	le.PutUint16(hA[28:], uint16(len(extraA)))
	headA := append(append(hA, nameA...), extraA...)
	offB := int64(len(headA)) + big

	// Entry B: deflated "hello", past 4 GiB.
	var comp bytes.Buffer
	fw, _ := flate.NewWriter(&comp, 6)
	fw.Write([]byte("hello"))
	fw.Close()
	nameB := "http://big.example/b.html"
	textB := "HTTP/1.1 200 OK\r\nX-In-Cache: 1\r\nX-StatusCode: 200\r\nX-Size: 5\r\nContent-Type: text/html\r\n"
	hB := make([]byte, 30)
	le.PutUint32(hB, sigLocal)
	le.PutUint16(hB[4:], 20)
	le.PutUint16(hB[8:], 8)
	le.PutUint32(hB[14:], crc32.ChecksumIEEE([]byte("hello")))
	le.PutUint32(hB[18:], uint32(comp.Len()))
	le.PutUint32(hB[22:], 5)
	le.PutUint16(hB[26:], uint16(len(nameB)))
	le.PutUint16(hB[28:], uint16(len(textB)))
	tail := append(append(append(hB, nameB...), textB...), comp.Bytes()...)

	// Central directory.
	cdStart := offB + int64(len(tail))
	cd := func(name string, csize, usize uint32, off uint32, z64 []uint64) []byte {
		h := make([]byte, 46)
		le.PutUint32(h, sigCentral)
		le.PutUint32(h[20:], csize)
		le.PutUint32(h[24:], usize)
		le.PutUint16(h[28:], uint16(len(name)))
		le.PutUint16(h[30:], uint16(4+8*len(z64)))
		le.PutUint32(h[42:], off)
		x := make([]byte, 4+8*len(z64))
		le.PutUint16(x, 1)
		le.PutUint16(x[2:], uint16(8*len(z64)))
		for i, v := range z64 {
			le.PutUint64(x[4+8*i:], v)
		}
		return append(append(h, name...), x...)
	}
	dir := append(cd(nameA, max32, max32, 0, []uint64{big, big}), cd(nameB, uint32(comp.Len()), 5, max32, []uint64{uint64(offB)})...)
	end64 := make([]byte, 56)
	le.PutUint32(end64, sigEnd64)
	le.PutUint64(end64[4:], 44)
	le.PutUint64(end64[24:], 2)
	le.PutUint64(end64[32:], 2)
	le.PutUint64(end64[40:], uint64(len(dir)))
	le.PutUint64(end64[48:], uint64(cdStart))
	loc := make([]byte, 20)
	le.PutUint32(loc, sigEnd64Loc)
	le.PutUint64(loc[8:], uint64(cdStart)+uint64(len(dir)))
	le.PutUint32(loc[16:], 1)
	end := make([]byte, 22)
	le.PutUint32(end, sigEnd)
	le.PutUint16(end[8:], 0xffff)
	le.PutUint16(end[10:], 0xffff)
	le.PutUint32(end[12:], max32)
	le.PutUint32(end[16:], max32)
	rest := append(append(append(append([]byte(nil), tail...), dir...), end64...), loc...)
	rest = append(rest, end...)
	s := &sparse{segs: []sparseSeg{{0, headA}, {offB, rest}}, size: offB + int64(len(rest))}

	z, err := NewZipReader(s, s.size, "big.zip")
	if err != nil {
		t.Fatal(err)
	}
	a, err := z.Next()
	if err != nil {
		t.Fatal(err)
	}
	if a.Name != nameA || a.StoredSize != big || a.CompressedSize != big || a.Meta.Size != big || a.Meta.ContentType != "application/octet-stream" {
		t.Errorf("entry A: %q stored %d compressed %d X-Size %d meta %+v", a.Name, a.StoredSize, a.CompressedSize, a.Meta.Size, a.Meta)
	}
	rc, _ := a.OpenStored()
	head := make([]byte, 4096)
	if _, err := io.ReadFull(rc, head); err != nil || !bytes.Equal(head, make([]byte, 4096)) {
		t.Errorf("entry A data: %v", err)
	}
	b, err := z.Next()
	if err != nil {
		t.Fatal(err)
	}
	if b.Offset != offB || b.Offset < 1<<32 || b.Name != nameB {
		t.Errorf("entry B at %d %q, want %d", b.Offset, b.Name, offB)
	}
	rc, _ = b.OpenStored()
	if body, err := io.ReadAll(rc); err != nil || string(body) != "hello" {
		t.Errorf("entry B body %q %v", body, err)
	}
	if _, err := z.Next(); err != io.EOF {
		t.Errorf("end: %v", err)
	}
	if sum := z.Summary(); !sum.ZIP64 || sum.CentralEntries != 2 || sum.Entries != 2 || sum.Skipped != 0 {
		t.Errorf("summary %+v", sum)
	}
}
