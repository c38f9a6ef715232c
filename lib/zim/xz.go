package zim

import (
	"bufio"
	"encoding/binary"
	"hash/crc32"
	"io"

	"github.com/ulikunitz/xz"
	"github.com/ulikunitz/xz/lzma"
)

// openXZ returns the decompressed stream of the XZ cluster data in src
// (starting after the cluster information byte). libzim writes one XZ
// block holding one LZMA2 filter with a 64 MiB dictionary; the xz package
// would allocate the whole dictionary for every cluster read. For such
// streams the dictionary is sized from the LZMA2 chunk headers instead
// (the data can never refer further back than its own length), capped by
// the declared size and the limit. Other streams go through xz.Reader
// after a check of the declared dictionary size.
func (a *Archive) openXZ(idx uint32, off uint64, src *io.SectionReader) (io.Reader, error) {
	var sh [12 + 1024]byte
	n, _ := src.ReadAt(sh[:], 0)
	b := sh[:n]
	bad := func(why string) error { return a.errf(int64(off)+1, "cluster %d at offset %d: xz: %s", idx, off, why) }
	if len(b) < 13 || string(b[:6]) != "\xFD7zXZ\x00" {
		return nil, bad("bad stream header")
	}
	if crc32.ChecksumIEEE(b[6:8]) != binary.LittleEndian.Uint32(b[8:12]) {
		return nil, bad("stream header CRC mismatch")
	}
	hs := (int(b[12]) + 1) * 4
	if b[12] == 0 || len(b) < 12+hs {
		return nil, bad("bad block header")
	}
	h := b[12 : 12+hs]
	if crc32.ChecksumIEEE(h[:hs-4]) != binary.LittleEndian.Uint32(h[hs-4:]) {
		return nil, bad("block header CRC mismatch")
	}
	flags := h[1]
	p := 2
	varint := func() (uint64, bool) {
		var v uint64
		for s := 0; s < 63 && p < hs-4; s += 7 {
			c := h[p]
			p++
			v |= uint64(c&0x7F) << s
			if c&0x80 == 0 {
				return v, true
			}
		}
		return 0, false
	}
	for _, bit := range []byte{0x40, 0x80} {
		if flags&bit != 0 {
			if _, ok := varint(); !ok {
				return nil, bad("bad block header")
			}
		}
	}
	var declared int64 = -1
	simple := flags&3 == 0 // one filter
	for f := 0; f <= int(flags&3); f++ {
		id, ok1 := varint()
		size, ok2 := varint()
		if !ok1 || !ok2 || uint64(hs-4-p) < size {
			return nil, bad("bad filter flags")
		}
		if id == 0x21 && size == 1 {
			bits := h[p]
			if bits > 40 {
				return nil, bad("bad LZMA2 dictionary size")
			}
			declared = 0xFFFFFFFF
			if bits < 40 {
				declared = int64(2|(bits&1)) << (bits/2 + 11)
			}
		} else {
			simple = false
		}
		p += int(size)
	}
	if declared < 0 {
		return nil, bad("no LZMA2 filter")
	}
	if !simple {
		if declared > a.opt.xzMaxDict {
			return nil, bad("dictionary too large")
		}
		r, err := xz.ReaderConfig{SingleStream: true}.NewReader(bufio.NewReaderSize(src, 64<<10))
		if err != nil {
			return nil, a.errf(int64(off), "cluster %d at offset %d: xz: %v", idx, off, err)
		}
		return r, nil
	}
	start := int64(12 + hs)
	total, err := lzma2Size(io.NewSectionReader(src, start, src.Size()-start))
	if err != nil {
		return nil, bad(err.Error())
	}
	dict := min(max(total, lzma.MinDictCap), declared, a.opt.xzMaxDict)
	r, err := lzma.Reader2Config{DictCap: int(dict)}.NewReader2(bufio.NewReaderSize(io.NewSectionReader(src, start, src.Size()-start), 64<<10))
	if err != nil {
		return nil, a.errf(int64(off), "cluster %d at offset %d: xz: %v", idx, off, err)
	}
	return r, nil
}

// lzma2Size walks the chunk headers of an LZMA2 stream and returns the
// uncompressed size it announces.
func lzma2Size(r io.Reader) (int64, error) {
	br := bufio.NewReaderSize(r, 32<<10)
	var total int64
	for {
		c, err := br.ReadByte()
		if err != nil {
			return 0, errLZMA2
		}
		var skip int
		switch {
		case c == 0:
			return total, nil
		case c == 1 || c == 2:
			var s [2]byte
			if _, err := io.ReadFull(br, s[:]); err != nil {
				return 0, errLZMA2
			}
			n := int(s[0])<<8 | int(s[1]) + 1
			total += int64(n)
			skip = n
		case c >= 0x80:
			var s [4]byte
			if _, err := io.ReadFull(br, s[:]); err != nil {
				return 0, errLZMA2
			}
			total += int64(int(c&0x1F)<<16|int(s[0])<<8|int(s[1])) + 1
			skip = int(s[2])<<8 | int(s[3]) + 1
			if c>>5&3 >= 2 {
				skip++ // properties byte
			}
		default:
			return 0, errLZMA2
		}
		if _, err := br.Discard(skip); err != nil {
			return 0, errLZMA2
		}
	}
}

var errLZMA2 = lzmaError("truncated or corrupt LZMA2 chunk headers")

type lzmaError string

func (e lzmaError) Error() string { return string(e) }
