package zim

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"hash"
	"hash/crc32"
	"hash/crc64"
	"io"

	"github.com/ulikunitz/xz/lzma"
)

// XZ container (https://tukaani.org/xz/xz-file-format.txt) as it appears
// in a ZIM cluster: one or more streams, each a header, blocks, an index
// and a footer. libzim writes one stream of one block, one LZMA2 filter
// with a 64 MiB dictionary and a CRC32 check; xz -T and --block-size write
// several blocks, and concatenated streams are valid .xz data.
//
// The xz package's reader would allocate the declared dictionary for every
// cluster read; here each block is decoded by an LZMA2 reader whose
// dictionary is sized from the block's own LZMA2 chunk headers (the data
// can never refer further back than its own length), capped by the
// declared size and the archive's limit. So memory is bounded by the
// largest block, not by the stream. Block checks (CRC32, CRC64, SHA-256),
// block sizes and each stream's index and footer are verified.

const xzMagic = "\xFD7zXZ\x00"

var crc64Table = crc64.MakeTable(crc64.ECMA)

// xzCheckSize is the size of the block check by check ID.
var xzCheckSize = [16]int64{0, 4, 4, 4, 8, 8, 8, 16, 16, 16, 32, 32, 32, 64, 64, 64}

// openXZ returns the decompressed stream of the XZ cluster data in src
// (starting after the cluster information byte). Errors name the archive
// offset of the faulty XZ structure.
func (a *Archive) openXZ(idx uint32, off uint64, src *io.SectionReader) (io.Reader, error) {
	x := &xzReader{a: a, idx: idx, off: off, src: src}
	if err := x.streamHeader(0); err != nil {
		return nil, err
	}
	return x, nil
}

// xzReader decodes the streams of one XZ cluster, block after block.
type xzReader struct {
	a   *Archive
	idx uint32
	off uint64            // archive offset of the cluster information byte
	src *io.SectionReader // cluster data after the information byte
	pos int64             // src position of the next block header or index
	err error
	eof bool

	// current stream
	flags  [2]byte
	check  byte
	blocks uint64 // blocks decoded, and their index records:
	sumUnp uint64 // sum of unpadded sizes
	sumUnc uint64 // sum of uncompressed sizes
	recCRC uint32 // CRC32 of the records (varints) in order

	// current block (blk != nil while one is being read)
	blk      io.Reader
	br       *bufio.Reader
	hash     hash.Hash
	hashes   map[byte]hash.Hash
	blkStart int64 // src position of the block header
	blkHdr   int64 // block header size
	blkData  int64 // compressed LZMA2 size
	blkWant  int64 // uncompressed size announced by the LZMA2 chunks
	blkOut   int64 // uncompressed bytes produced
}

// bad returns an error at src position p.
func (x *xzReader) bad(p int64, format string, args ...any) error {
	return x.a.errf(int64(x.off)+1+p, "cluster %d at offset %d: xz: "+format, append([]any{x.idx, x.off}, args...)...)
}

// readAt reads len(b) bytes at src position p.
func (x *xzReader) readAt(b []byte, p int64, what string) error {
	n, _ := x.src.ReadAt(b, p)
	if n < len(b) {
		return x.bad(p, "%s truncated", what)
	}
	return nil
}

func (x *xzReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for x.err == nil {
		if x.blk == nil {
			if x.eof {
				return 0, io.EOF
			}
			x.err = x.nextBlock()
			continue
		}
		n, err := x.blk.Read(p)
		if n > 0 {
			x.blkOut += int64(n)
			if x.blkOut > x.blkWant {
				x.err = x.bad(x.blkStart, "block produces more than the %d bytes its LZMA2 chunks announce", x.blkWant)
				return 0, x.err
			}
			if x.hash != nil {
				x.hash.Write(p[:n])
			}
		}
		switch {
		case x.blkOut == x.blkWant:
			// all of the block: check it now, as the caller may read no
			// further, and fail this read (io.ReadFull would drop an
			// error that comes with the bytes it asked for)
			if x.err = x.endBlock(); x.err != nil {
				return 0, x.err
			}
		case err == io.EOF:
			x.err = x.bad(x.blkStart, "block ends after %d of the %d bytes its LZMA2 chunks announce", x.blkOut, x.blkWant)
		case err != nil:
			x.err = x.bad(x.blkStart+x.blkHdr, "block: %v", err)
		}
		if n > 0 {
			return n, x.err
		}
	}
	return 0, x.err
}

// streamHeader reads the stream header at src position p.
func (x *xzReader) streamHeader(p int64) error {
	var b [12]byte
	if n, _ := x.src.ReadAt(b[:], p); n < len(b) || string(b[:6]) != xzMagic {
		return x.bad(p, "bad stream header")
	}
	if crc32.ChecksumIEEE(b[6:8]) != binary.LittleEndian.Uint32(b[8:]) {
		return x.bad(p, "stream header CRC mismatch")
	}
	if b[6] != 0 || b[7]&0xF0 != 0 {
		return x.bad(p, "unsupported stream flags %#x %#x", b[6], b[7])
	}
	x.flags = [2]byte{b[6], b[7]}
	x.check = b[7] & 0x0F
	x.blocks, x.sumUnp, x.sumUnc, x.recCRC = 0, 0, 0, 0
	x.pos = p + 12
	return nil
}

// nextBlock starts the block at x.pos, or reads the index and footer that
// end the stream and looks for a concatenated stream (setting x.eof when
// there is none).
func (x *xzReader) nextBlock() error {
	var b [1024]byte
	if err := x.readAt(b[:1], x.pos, "block header"); err != nil {
		return err
	}
	if b[0] == 0 {
		if err := x.endStream(); err != nil {
			return err
		}
		return x.nextStream()
	}
	hs := (int(b[0]) + 1) * 4
	h := b[:hs]
	if err := x.readAt(h, x.pos, "block header"); err != nil {
		return err
	}
	if crc32.ChecksumIEEE(h[:hs-4]) != binary.LittleEndian.Uint32(h[hs-4:]) {
		return x.bad(x.pos, "block header CRC mismatch")
	}
	flags := h[1]
	if flags&0x3C != 0 {
		return x.bad(x.pos, "unsupported block flags %#x", flags)
	}
	q := 2
	varint := func() (uint64, bool) {
		v, n := binary.Uvarint(h[q : hs-4])
		if n <= 0 || n > 9 {
			return 0, false
		}
		q += n
		return v, true
	}
	var csize, usize uint64
	var ok bool
	if flags&0x40 != 0 {
		if csize, ok = varint(); !ok || csize == 0 {
			return x.bad(x.pos, "bad block header")
		}
	}
	if flags&0x80 != 0 {
		if usize, ok = varint(); !ok {
			return x.bad(x.pos, "bad block header")
		}
	}
	if flags&3 != 0 {
		return x.bad(x.pos, "unsupported filter chain of %d filters", flags&3+1)
	}
	id, ok1 := varint()
	psize, ok2 := varint()
	if !ok1 || !ok2 || psize > uint64(hs-4-q) {
		return x.bad(x.pos, "bad filter flags")
	}
	if id != 0x21 || psize != 1 {
		return x.bad(x.pos, "unsupported filter %#x (only LZMA2)", id)
	}
	bits := h[q]
	q++
	if bits > 40 {
		return x.bad(x.pos, "bad LZMA2 dictionary size")
	}
	for _, c := range h[q : hs-4] {
		if c != 0 {
			return x.bad(x.pos, "bad block header padding")
		}
	}
	declared := int64(0xFFFFFFFF)
	if bits < 40 {
		declared = int64(2|(bits&1)) << (bits/2 + 11)
	}
	start := x.pos + int64(hs)
	total, clen, err := lzma2Size(io.NewSectionReader(x.src, start, x.src.Size()-start))
	if err != nil {
		return x.bad(start, "%v", err)
	}
	if flags&0x40 != 0 && csize != uint64(clen) {
		return x.bad(x.pos, "block header declares %d compressed bytes, the block holds %d", csize, clen)
	}
	if flags&0x80 != 0 && usize != uint64(total) {
		return x.bad(x.pos, "block header declares %d uncompressed bytes, the LZMA2 chunks %d", usize, total)
	}
	dict := min(max(total, lzma.MinDictCap), declared, x.a.opt.xzMaxDict)
	data := io.NewSectionReader(x.src, start, clen)
	if x.br == nil {
		x.br = bufio.NewReaderSize(data, 64<<10)
	} else {
		x.br.Reset(data)
	}
	r, err := lzma.Reader2Config{DictCap: int(dict)}.NewReader2(x.br)
	if err != nil {
		return x.bad(start, "%v", err)
	}
	x.hash = x.newHash()
	x.blk, x.blkStart, x.blkHdr, x.blkData, x.blkWant, x.blkOut = r, x.pos, int64(hs), clen, total, 0
	return nil
}

// newHash returns the reset hash of the stream's check type, nil for none
// or an unsupported one (whose check is skipped, as xz does).
func (x *xzReader) newHash() hash.Hash {
	if x.hashes == nil {
		x.hashes = map[byte]hash.Hash{}
	}
	h := x.hashes[x.check]
	if h == nil {
		switch x.check {
		case 1:
			h = crc32.NewIEEE()
		case 4:
			h = crc64.New(crc64Table)
		case 10:
			h = sha256.New()
		default:
			return nil
		}
		x.hashes[x.check] = h
	}
	h.Reset()
	return h
}

// endBlock checks the block's size, padding and check, and records it for
// the index.
func (x *xzReader) endBlock() error {
	unpadded := x.blkHdr + x.blkData
	p := x.blkStart + unpadded
	pad := (4 - unpadded%4) % 4
	cs := xzCheckSize[x.check]
	var b [4 + 64]byte
	if err := x.readAt(b[:pad+cs], p, "block padding and check"); err != nil {
		return err
	}
	if !bytes.Equal(b[:pad], make([]byte, pad)) {
		return x.bad(p, "bad block padding")
	}
	sum := b[pad : pad+cs]
	if x.hash != nil {
		var want []byte
		switch h := x.hash.(type) {
		case hash.Hash32:
			want = binary.LittleEndian.AppendUint32(nil, h.Sum32())
		case hash.Hash64:
			want = binary.LittleEndian.AppendUint64(nil, h.Sum64())
		default:
			want = h.Sum(nil)
		}
		if !bytes.Equal(sum, want) {
			return x.bad(p+pad, "block check mismatch (%x stored, %x computed)", sum, want)
		}
	}
	unpadded += cs
	var rec []byte
	rec = binary.AppendUvarint(rec, uint64(unpadded))
	rec = binary.AppendUvarint(rec, uint64(x.blkOut))
	x.blocks++
	x.sumUnp += uint64(unpadded)
	x.sumUnc += uint64(x.blkOut)
	x.recCRC = crc32.Update(x.recCRC, crc32.IEEETable, rec)
	x.pos = p + pad + cs
	x.blk, x.hash = nil, nil
	return nil
}

// endStream reads the index at x.pos, compares it with the blocks read,
// and checks the stream footer.
func (x *xzReader) endStream() error {
	start := x.pos
	br := bufio.NewReaderSize(io.NewSectionReader(x.src, start, x.src.Size()-start), 4<<10)
	crc := crc32.NewIEEE()
	n := int64(0)
	readByte := func() (byte, error) {
		c, err := br.ReadByte()
		if err != nil {
			return 0, x.bad(start+n, "index truncated")
		}
		crc.Write([]byte{c})
		n++
		return c, nil
	}
	varint := func() (uint64, error) {
		var v uint64
		for s := 0; s < 63; s += 7 {
			c, err := readByte()
			if err != nil {
				return 0, err
			}
			v |= uint64(c&0x7F) << s
			if c&0x80 == 0 {
				return v, nil
			}
		}
		return 0, x.bad(start+n, "bad index")
	}
	if _, err := readByte(); err != nil { // the index indicator
		return err
	}
	count, err := varint()
	if err != nil {
		return err
	}
	if count != x.blocks {
		return x.bad(start, "index lists %d blocks, the stream holds %d", count, x.blocks)
	}
	var sumUnp, sumUnc uint64
	var recCRC uint32
	for i := uint64(0); i < count; i++ {
		unp, err := varint()
		if err != nil {
			return err
		}
		unc, err := varint()
		if err != nil {
			return err
		}
		var rec []byte
		rec = binary.AppendUvarint(rec, unp)
		rec = binary.AppendUvarint(rec, unc)
		sumUnp += unp
		sumUnc += unc
		recCRC = crc32.Update(recCRC, crc32.IEEETable, rec)
	}
	if sumUnp != x.sumUnp || sumUnc != x.sumUnc || recCRC != x.recCRC {
		return x.bad(start, "index does not match the blocks")
	}
	for n%4 != 0 {
		c, err := readByte()
		if err != nil {
			return err
		}
		if c != 0 {
			return x.bad(start+n-1, "bad index padding")
		}
	}
	want := crc.Sum32()
	var b [16]byte
	if err := x.readAt(b[:], start+n, "index CRC and stream footer"); err != nil {
		return err
	}
	if binary.LittleEndian.Uint32(b[:4]) != want {
		return x.bad(start+n, "index CRC mismatch")
	}
	f := b[4:]
	p := start + n + 4
	if string(f[10:12]) != "YZ" || crc32.ChecksumIEEE(f[4:10]) != binary.LittleEndian.Uint32(f[:4]) {
		return x.bad(p, "bad stream footer")
	}
	if (int64(binary.LittleEndian.Uint32(f[4:]))+1)*4 != n+4 {
		return x.bad(p, "stream footer backward size does not match the index")
	}
	if f[8] != x.flags[0] || f[9] != x.flags[1] {
		return x.bad(p, "stream footer flags differ from the header")
	}
	x.pos = p + 12
	return nil
}

// nextStream skips stream padding (zero bytes, four at a time) and opens
// the stream that follows, if any; otherwise the data ends here (the bytes
// after a cluster are the next structure of the archive).
func (x *xzReader) nextStream() error {
	p := x.pos
	br := bufio.NewReaderSize(io.NewSectionReader(x.src, p, x.src.Size()-p), 4<<10)
	var b [6]byte
	for {
		n, _ := io.ReadFull(br, b[:4])
		if n == 4 && b == [6]byte{} {
			p += 4
			continue
		}
		if n == 4 {
			n2, _ := io.ReadFull(br, b[4:])
			n += n2
		}
		if n == 6 && string(b[:]) == xzMagic {
			return x.streamHeader(p)
		}
		x.eof = true
		return nil
	}
}

// lzma2Size walks the chunk headers of an LZMA2 stream up to its end
// marker and returns the uncompressed size they announce and the size of
// the LZMA2 data (end marker included).
func lzma2Size(r io.Reader) (total, n int64, err error) {
	br := bufio.NewReaderSize(r, 32<<10)
	for {
		c, err := br.ReadByte()
		if err != nil {
			return 0, 0, errLZMA2
		}
		n++
		var skip int
		switch {
		case c == 0:
			return total, n, nil
		case c == 1 || c == 2:
			var s [2]byte
			if _, err := io.ReadFull(br, s[:]); err != nil {
				return 0, 0, errLZMA2
			}
			k := int(s[0])<<8 | int(s[1]) + 1
			total += int64(k)
			skip = k
			n += 2
		case c >= 0x80:
			var s [4]byte
			if _, err := io.ReadFull(br, s[:]); err != nil {
				return 0, 0, errLZMA2
			}
			total += int64(int(c&0x1F)<<16|int(s[0])<<8|int(s[1])) + 1
			skip = int(s[2])<<8 | int(s[3]) + 1
			if c>>5&3 >= 2 {
				skip++ // properties byte
			}
			n += 4
		default:
			return 0, 0, errLZMA2
		}
		if _, err := br.Discard(skip); err != nil {
			return 0, 0, errLZMA2
		}
		n += int64(skip)
	}
}

var errLZMA2 = lzmaError("truncated or corrupt LZMA2 chunk headers")

type lzmaError string

func (e lzmaError) Error() string { return string(e) }
