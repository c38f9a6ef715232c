package wacz

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"math/bits"
)

// prefixInflater decodes the start of a gzip member (RFC 1952 / RFC 1951)
// and can be asked for more output step by step. Unlike compress/flate,
// which inflates a whole 32 KiB window before returning anything, it stops
// as soon as the requested number of bytes is out, so reading the WARC and
// HTTP headers of a large record costs a few kilobytes of decoding. It keeps
// the whole output (it is the LZ77 history), so it is only used for short
// prefixes and small members.
//
// Why not klauspost/compress/flate (issue 13): its Read fills its 32 KiB
// window before returning, so decoding the heads of the members costs
// several times more. BenchmarkMemberHead (inflate_bench_test.go) on the
// bench.sh WARC input (20,000 records, first 64 MiB of members), 2 shared
// cores: prefix 69-147 ms/op, klauspost-head (its inflater, the member-end
// heuristic kept) 310-550 ms/op, klauspost-full (every member inflated to
// its end) 400-1500 ms/op; end to end, BenchmarkCreateNoFastPath (lib/warc
// with klauspost only) takes about twice the CPU of BenchmarkCreate
// (2.41 s against 1.29 s, median of 3).
type prefixInflater struct {
	src    io.Reader
	in     []byte // compressed bytes read from src, not yet consumed
	inBuf  []byte
	srcEOF bool
	read   int64 // compressed bytes taken from src
	bits   uint64
	nbits  uint

	out      []byte
	final    bool // the current block is the last one
	inBlock  bool
	stored   int // bytes left in a stored block, -1 when in a Huffman block
	lit      huffman
	dist     huffman
	ended    bool // the deflate stream ended
	trailer  bool // gzip trailer checked
	memberSz int64
}

var errInflate = errors.New("corrupt deflate data")

// huffman is a canonical Huffman code: a lookup table for codes of up to
// nb bits (at most fastBits) and puff-style counts and symbols for all
// codes.
type huffman struct {
	count  [16]uint16
	symbol [320]uint16
	nb     uint                  // bits the fast table is indexed by
	fast   [1 << fastBits]uint16 // symbol<<5 | length, 0 when longer than nb
}

const fastBits = 10

// Fast-table widths: literal/length codes use all fastBits; distance codes
// (30 symbols) and code-length codes (19 symbols, at most 7 bits long) need
// smaller tables, which are cheaper to build for every block.
const (
	litBits  = fastBits
	distBits = 9
	clBits   = 7
)

func (h *huffman) build(lengths []uint8, nb uint) error {
	h.count = [16]uint16{}
	maxLen := 0
	for _, l := range lengths {
		h.count[l]++
		maxLen = max(maxLen, int(l))
	}
	h.count[0] = 0
	left := 1
	for l := 1; l < 16; l++ {
		left <<= 1
		left -= int(h.count[l])
		if left < 0 {
			return errInflate // over-subscribed
		}
	}
	var offs [16]uint16
	for l := 1; l < 15; l++ {
		offs[l+1] = offs[l] + h.count[l]
	}
	for s, l := range lengths {
		if l != 0 {
			h.symbol[offs[l]] = uint16(s)
			offs[l]++
		}
	}
	h.nb = nb
	size := 1 << nb
	fast := h.fast[:size]
	if left != 0 || maxLen > int(nb) {
		// slots no short code fills must read 0
		clear(fast)
	}
	code := 0
	idx := 0
	for l := 1; l <= int(nb); l++ {
		for i := 0; i < int(h.count[l]); i++ {
			s := h.symbol[idx]
			idx++
			e := s<<5 | uint16(l)
			for j := int(bits.Reverse16(uint16(code)) >> (16 - l)); j < size; j += 1 << l {
				fast[j] = e
			}
			code++
		}
		code <<= 1
	}
	return nil
}

var (
	fixedLit, fixedDist huffman
	lenBase             = [29]uint16{3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258}
	lenExtra            = [29]uint8{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0}
	distBase            = [30]uint16{1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577}
	distExtra           = [30]uint8{0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13}
	clOrder             = [19]uint8{16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15}
)

func init() {
	var l [288]uint8
	for i := range l {
		switch {
		case i < 144:
			l[i] = 8
		case i < 256:
			l[i] = 9
		case i < 280:
			l[i] = 7
		default:
			l[i] = 8
		}
	}
	fixedLit.build(l[:], litBits)
	var d [30]uint8
	for i := range d {
		d[i] = 5
	}
	fixedDist.build(d[:], distBits)
}

// reset starts a member read from src: it parses the gzip header.
func (z *prefixInflater) reset(src io.Reader) error {
	z.src = src
	z.in = z.in[:0]
	if z.inBuf == nil {
		z.inBuf = make([]byte, 4096)
	}
	z.srcEOF = false
	z.read = 0
	z.bits, z.nbits = 0, 0
	z.out = z.out[:0]
	z.final, z.inBlock, z.ended, z.trailer = false, false, false, false
	z.stored = -1
	var h [10]byte
	if err := z.readBytes(h[:]); err != nil {
		return err
	}
	if h[0] != 0x1f || h[1] != 0x8b || h[2] != 8 || h[3]&0xe0 != 0 {
		return errInflate
	}
	flg := h[3]
	if flg&4 != 0 { // FEXTRA
		var x [2]byte
		if err := z.readBytes(x[:]); err != nil {
			return err
		}
		n := int(binary.LittleEndian.Uint16(x[:]))
		for ; n > 0; n-- {
			if _, err := z.byte(); err != nil {
				return err
			}
		}
	}
	for _, f := range []byte{8, 16} { // FNAME, FCOMMENT: zero-terminated
		if flg&f == 0 {
			continue
		}
		for n := 0; ; n++ {
			c, err := z.byte()
			if err != nil {
				return err
			}
			if c == 0 {
				break
			}
			if n > 1<<16 {
				return errInflate
			}
		}
	}
	if flg&2 != 0 { // FHCRC
		var x [2]byte
		if err := z.readBytes(x[:]); err != nil {
			return err
		}
	}
	return nil
}

func (z *prefixInflater) more() error {
	if z.srcEOF {
		return io.ErrUnexpectedEOF
	}
	if len(z.in) == 0 {
		z.in = z.inBuf[:0]
	}
	n, err := z.src.Read(z.inBuf[:cap(z.inBuf)])
	z.in = z.inBuf[:n]
	z.read += int64(n)
	if err == io.EOF {
		z.srcEOF = true
		if n == 0 {
			return io.ErrUnexpectedEOF
		}
		return nil
	}
	return err
}

func (z *prefixInflater) byte() (byte, error) {
	for len(z.in) == 0 {
		if err := z.more(); err != nil {
			return 0, err
		}
	}
	c := z.in[0]
	z.in = z.in[1:]
	return c, nil
}

func (z *prefixInflater) readBytes(p []byte) error {
	for i := range p {
		c, err := z.byte()
		if err != nil {
			return err
		}
		p[i] = c
	}
	return nil
}

// need makes at least n bits (n <= 56) available when the input has them.
func (z *prefixInflater) need(n uint) error {
	for z.nbits < n {
		if len(z.in) >= 8 {
			// refill with one 8-byte load: take as many whole bytes as fit
			k := (63 - z.nbits) >> 3
			z.bits |= binary.LittleEndian.Uint64(z.in) << z.nbits
			z.bits &= 1<<(z.nbits+k*8) - 1
			z.in = z.in[k:]
			z.nbits += k * 8
			continue
		}
		c, err := z.byte()
		if err != nil {
			return err
		}
		z.bits |= uint64(c) << z.nbits
		z.nbits += 8
	}
	return nil
}

func (z *prefixInflater) take(n uint) (uint32, error) {
	if err := z.need(n); err != nil {
		return 0, err
	}
	v := uint32(z.bits & (1<<n - 1))
	z.bits >>= n
	z.nbits -= n
	return v, nil
}

// decode reads one symbol of h.
func (z *prefixInflater) decode(h *huffman) (int, error) {
	if z.need(h.nb) == nil || z.nbits > 0 {
		if e := h.fast[z.bits&(1<<h.nb-1)]; e != 0 && uint(e&31) <= z.nbits {
			l := uint(e & 31)
			z.bits >>= l
			z.nbits -= l
			return int(e >> 5), nil
		}
	}
	// puff: canonical decoding bit by bit
	code, first, index := 0, 0, 0
	for l := 1; l < 16; l++ {
		b, err := z.take(1)
		if err != nil {
			return 0, err
		}
		code |= int(b)
		count := int(h.count[l])
		if code-count < first {
			return int(h.symbol[index+(code-first)]), nil
		}
		index += count
		first += count
		first <<= 1
		code <<= 1
	}
	return 0, errInflate
}

// fill decodes until at least n bytes are out or the stream ends.
func (z *prefixInflater) fill(n int) error {
	for len(z.out) < n && !z.ended {
		if !z.inBlock {
			if z.final {
				z.ended = true
				break
			}
			if err := z.startBlock(); err != nil {
				return err
			}
			continue
		}
		if z.stored >= 0 {
			if z.stored == 0 {
				z.inBlock = false
				continue
			}
			for len(z.in) == 0 {
				if err := z.more(); err != nil {
					return err
				}
			}
			k := min(z.stored, len(z.in), max(n-len(z.out), 1))
			z.out = append(z.out, z.in[:k]...)
			z.in = z.in[k:]
			z.stored -= k
			continue
		}
		// literals straight from the fast table while the input lasts
		if z.nbits < 32 && len(z.in) >= 8 {
			k := (63 - z.nbits) >> 3
			z.bits |= binary.LittleEndian.Uint64(z.in) << z.nbits
			z.bits &= 1<<(z.nbits+k*8) - 1
			z.in = z.in[k:]
			z.nbits += k * 8
		}
		var sym int
		if e := z.lit.fast[z.bits&(1<<z.lit.nb-1)]; e != 0 && uint(e&31) <= z.nbits {
			l := uint(e & 31)
			z.bits >>= l
			z.nbits -= l
			sym = int(e >> 5)
		} else {
			var err error
			if sym, err = z.decode(&z.lit); err != nil {
				return err
			}
		}
		switch {
		case sym < 256:
			z.out = append(z.out, byte(sym))
		case sym == 256:
			z.inBlock = false
		default:
			sym -= 257
			if sym >= 29 {
				return errInflate
			}
			if err := z.need(uint(lenExtra[sym]) + 15 + 13); err != nil && z.nbits < uint(lenExtra[sym]) {
				return err
			}
			eb := uint(lenExtra[sym])
			length := int(lenBase[sym]) + int(z.bits&(1<<eb-1))
			z.bits >>= eb
			z.nbits -= eb
			ds, err := z.decode(&z.dist)
			if err != nil {
				return err
			}
			if ds >= 30 {
				return errInflate
			}
			e, err := z.take(uint(distExtra[ds]))
			if err != nil {
				return err
			}
			d := int(distBase[ds]) + int(e)
			if d > len(z.out) {
				return errInflate
			}
			from := len(z.out) - d
			if d >= length {
				z.out = append(z.out, z.out[from:from+length]...)
			} else {
				for i := 0; i < length; i++ {
					z.out = append(z.out, z.out[from+i])
				}
			}
		}
	}
	return nil
}

func (z *prefixInflater) startBlock() error {
	h, err := z.take(3)
	if err != nil {
		return err
	}
	z.final = h&1 != 0
	z.inBlock = true
	switch h >> 1 {
	case 0: // stored
		z.bits >>= z.nbits & 7
		z.nbits -= z.nbits & 7
		v, err := z.take(32)
		if err != nil {
			return err
		}
		if uint16(v) != ^uint16(v>>16) {
			return errInflate
		}
		z.stored = int(uint16(v))
		// whole bytes still in the bit buffer go back to the input
		for z.nbits >= 8 && z.stored > 0 {
			z.out = append(z.out, byte(z.bits))
			z.bits >>= 8
			z.nbits -= 8
			z.stored--
		}
		return nil
	case 1:
		z.stored = -1
		z.lit, z.dist = fixedLit, fixedDist
		return nil
	case 2:
		z.stored = -1
		return z.dynamic()
	}
	return errInflate
}

func (z *prefixInflater) dynamic() error {
	v, err := z.take(14)
	if err != nil {
		return err
	}
	nlen, ndist, ncode := int(v&31)+257, int(v>>5&31)+1, int(v>>10)+4
	if nlen > 286 || ndist > 30 {
		return errInflate
	}
	var cl [19]uint8
	for i := 0; i < ncode; i++ {
		b, err := z.take(3)
		if err != nil {
			return err
		}
		cl[clOrder[i]] = uint8(b)
	}
	var clh huffman
	if err := clh.build(cl[:], clBits); err != nil {
		return err
	}
	var lengths [320]uint8
	for i := 0; i < nlen+ndist; {
		sym, err := z.decode(&clh)
		if err != nil {
			return err
		}
		if sym < 16 {
			lengths[i] = uint8(sym)
			i++
			continue
		}
		var rep int
		var val uint8
		switch sym {
		case 16:
			if i == 0 {
				return errInflate
			}
			val = lengths[i-1]
			b, err := z.take(2)
			if err != nil {
				return err
			}
			rep = 3 + int(b)
		case 17:
			b, err := z.take(3)
			if err != nil {
				return err
			}
			rep = 3 + int(b)
		default:
			b, err := z.take(7)
			if err != nil {
				return err
			}
			rep = 11 + int(b)
		}
		if i+rep > nlen+ndist {
			return errInflate
		}
		for ; rep > 0; rep-- {
			lengths[i] = val
			i++
		}
	}
	if lengths[256] == 0 {
		return errInflate
	}
	if err := z.lit.build(lengths[:nlen], litBits); err != nil {
		return err
	}
	return z.dist.build(lengths[nlen:nlen+ndist], distBits)
}

// errMemberLonger is returned by finish when the member decodes to more
// than the bound it was given.
var errMemberLonger = errors.New("gzip member longer than expected")

// finish decodes the rest of the member, which must decode to at most max
// bytes in all (the output is kept in memory: a member holding more than
// expected, say a second record with a 300 MiB header line, must not be),
// and checks the gzip trailer (CRC-32 and size). It returns how many
// compressed bytes the member took.
func (z *prefixInflater) finish(max int) (int64, error) {
	if err := z.fill(max + 1); err != nil {
		return 0, err
	}
	if !z.ended || len(z.out) > max {
		return 0, errMemberLonger
	}
	// drop the bits left of the last byte, return whole bytes to the input
	z.bits >>= z.nbits & 7
	z.nbits -= z.nbits & 7
	var t [8]byte
	i := 0
	for ; z.nbits >= 8 && i < 8; i++ {
		t[i] = byte(z.bits)
		z.bits >>= 8
		z.nbits -= 8
	}
	if z.nbits != 0 {
		return 0, errInflate
	}
	if err := z.readBytes(t[i:]); err != nil {
		return 0, err
	}
	if binary.LittleEndian.Uint32(t[:4]) != crc32.ChecksumIEEE(z.out) || binary.LittleEndian.Uint32(t[4:]) != uint32(len(z.out)) {
		return 0, errors.New("gzip checksum or size mismatch")
	}
	return z.read - int64(len(z.in)), nil
}
