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
	// The fast table is indexed by no more bits than the longest code.
	// It is built as libdeflate builds its tables: once the entries of
	// the codes up to l bits are in its first 2^l slots, those slots
	// repeat (a code of l bits or fewer fills every slot whose low bits
	// are its reversed code), so they are copied once to double the
	// table before the codes of l+1 bits are put in; slots no code
	// fills stay 0.
	nb = min(nb, uint(max(maxLen, 1)))
	h.nb = nb
	fast := h.fast[:1<<nb]
	fast[0], fast[1] = 0, 0
	code, idx, size := 0, 0, 2
	for l := 1; l <= int(nb); l++ {
		if l > 1 {
			copy(fast[size:2*size], fast[:size])
			size *= 2
		}
		for i := 0; i < int(h.count[l]); i++ {
			fast[bits.Reverse16(uint16(code))>>(16-l)] = h.symbol[idx]<<5 | uint16(l)
			idx++
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
	return z.header()
}

// resetBytes starts a member held in b (the member and what follows it, as
// far as reset's src would give): decoded where it lies, not copied.
func (z *prefixInflater) resetBytes(b []byte) error {
	z.src = nil
	z.in = b
	z.srcEOF = true
	z.read = int64(len(b))
	return z.header()
}

// header parses the gzip header, the decoder's state cleared.
func (z *prefixInflater) header() error {
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
		if len(z.in) >= 8 {
			if err := z.huffFast(n); err != nil {
				return err
			}
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

// decodeLong decodes a symbol the fast table does not hold (a code longer
// than its bits) from the low bits of bitv, of which nbits >= 15 are
// valid, as decode's canonical loop does; it returns 0 bits when no code
// matches (the data is corrupt).
func (h *huffman) decodeLong(bitv uint64, nbits uint) (int, uint) {
	code, first, index := 0, 0, 0
	for l := uint(1); l < 16; l++ {
		code |= int(bitv>>(l-1)) & 1
		count := int(h.count[l])
		if code-count < first {
			return int(h.symbol[index+(code-first)]), l
		}
		index += count
		first += count
		first <<= 1
		code <<= 1
	}
	return 0, 0
}

// huffFast decodes symbols of the current Huffman block, as fill's loop
// does one by one, while at least 8 input bytes are left: one refill of
// the bit buffer then holds every bit a symbol needs (a length code, its
// extra bits, a distance code and its extra bits: 48 bits at most), so the
// loop works on local copies of the state and checks no input. It returns
// once n bytes are out, at the block's end, or when fewer than 8 input
// bytes are left, with the state stored back.
func (z *prefixInflater) huffFast(n int) error {
	bitv, nbits, in, out := z.bits, z.nbits, z.in, z.out
	lfast, lmask := &z.lit.fast, uint64(1)<<z.lit.nb-1
	dfast, dmask := &z.dist.fast, uint64(1)<<z.dist.nb-1
	var err error
	for len(out) < n && len(in) >= 8 {
		if nbits < 48 {
			bitv, nbits, in = refill64(bitv, nbits, in)
		}
		var sym int
		if e := lfast[bitv&lmask]; e != 0 {
			l := uint(e & 31)
			bitv >>= l
			nbits -= l
			sym = int(e >> 5)
		} else if s, l := z.lit.decodeLong(bitv, nbits); l > 0 {
			// a code longer than the table's
			bitv >>= l
			nbits -= l
			sym = s
		} else {
			err = errInflate
			break
		}
		if sym < 256 {
			out = append(out, byte(sym))
			continue
		}
		if sym == 256 {
			z.inBlock = false
			break
		}
		sym -= 257
		if sym >= 29 {
			err = errInflate
			break
		}
		eb := uint(lenExtra[sym])
		length := int(lenBase[sym]) + int(bitv&(1<<eb-1))
		bitv >>= eb
		nbits -= eb
		var ds int
		if e := dfast[bitv&dmask]; e != 0 {
			l := uint(e & 31)
			bitv >>= l
			nbits -= l
			ds = int(e >> 5)
		} else if s, l := z.dist.decodeLong(bitv, nbits); l > 0 {
			bitv >>= l
			nbits -= l
			ds = s
		} else {
			err = errInflate
			break
		}
		if ds >= 30 {
			err = errInflate
			break
		}
		d := int(distBase[ds])
		if eb = uint(distExtra[ds]); nbits >= eb {
			d += int(bitv & (1<<eb - 1))
			bitv >>= eb
			nbits -= eb
		} else {
			// not reached (48 bits cover a symbol), kept careful
			z.bits, z.nbits, z.in = bitv, nbits, in
			var e uint32
			e, err = z.take(eb)
			bitv, nbits, in = z.bits, z.nbits, z.in
			if err != nil {
				break
			}
			d += int(e)
		}
		if d > len(out) {
			err = errInflate
			break
		}
		from := len(out) - d
		if d >= length {
			out = append(out, out[from:from+length]...)
			continue
		}
		// overlapping: the copied bytes repeat with period d
		at, end := len(out), len(out)+length
		out = append(out, make([]byte, length)...)
		for at < end {
			at += copy(out[at:end], out[from:at])
		}
	}
	z.bits, z.nbits, z.in, z.out = bitv, nbits, in, out
	return err
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

// refill64 tops the bit buffer up from in, which must hold 8 bytes or
// more: it then holds 56 bits at least.
func refill64(bitv uint64, nbits uint, in []byte) (uint64, uint, []byte) {
	k := (63 - nbits) >> 3
	bitv |= binary.LittleEndian.Uint64(in) << nbits
	bitv &= 1<<(nbits+k*8) - 1
	return bitv, nbits + k*8, in[k:]
}

// takeLocal takes n bits (n <= 32) from a local copy of the bit buffer,
// refilled 8 bytes at a time, or the careful way (take) when fewer are
// left.
func (z *prefixInflater) takeLocal(bitv uint64, nbits uint, in []byte, n uint) (uint32, uint64, uint, []byte, error) {
	if nbits < n && len(in) >= 8 {
		bitv, nbits, in = refill64(bitv, nbits, in)
	}
	if nbits >= n {
		return uint32(bitv & (1<<n - 1)), bitv >> n, nbits - n, in, nil
	}
	z.bits, z.nbits, z.in = bitv, nbits, in
	v, err := z.take(n)
	return v, z.bits, z.nbits, z.in, err
}

// dynamic reads a dynamic block's code lengths and builds its codes. It
// works on local copies of the bit buffer, refilled 8 bytes at a time;
// where fewer are left it reads the careful way (take, decode).
func (z *prefixInflater) dynamic() error {
	bitv, nbits, in := z.bits, z.nbits, z.in
	var err error
	var v uint32
	if v, bitv, nbits, in, err = z.takeLocal(bitv, nbits, in, 14); err != nil {
		return err
	}
	nlen, ndist, ncode := int(v&31)+257, int(v>>5&31)+1, int(v>>10)+4
	if nlen > 286 || ndist > 30 {
		return errInflate
	}
	var cl [19]uint8
	for i := 0; i < ncode; i++ {
		var b uint32
		if b, bitv, nbits, in, err = z.takeLocal(bitv, nbits, in, 3); err != nil {
			return err
		}
		cl[clOrder[i]] = uint8(b)
	}
	var clh huffman
	if err := clh.build(cl[:], clBits); err != nil {
		return err
	}
	clmask := uint64(1)<<clh.nb - 1
	var lengths [320]uint8
	for i := 0; i < nlen+ndist; {
		if nbits < 14 && len(in) >= 8 {
			bitv, nbits, in = refill64(bitv, nbits, in)
		}
		var sym int
		if e := clh.fast[bitv&clmask]; e != 0 && uint(e&31) <= nbits {
			l := uint(e & 31)
			bitv >>= l
			nbits -= l
			sym = int(e >> 5)
		} else {
			z.bits, z.nbits, z.in = bitv, nbits, in
			sym, err = z.decode(&clh)
			bitv, nbits, in = z.bits, z.nbits, z.in
			if err != nil {
				return err
			}
		}
		if sym < 16 {
			lengths[i] = uint8(sym)
			i++
			continue
		}
		var val uint8
		rep, eb := 3, uint(2)
		switch sym {
		case 16:
			if i == 0 {
				return errInflate
			}
			val = lengths[i-1]
		case 17:
			eb = 3
		default:
			rep, eb = 11, 7
		}
		if nbits >= eb {
			rep += int(bitv & (1<<eb - 1))
			bitv >>= eb
			nbits -= eb
		} else {
			var b uint32
			if b, bitv, nbits, in, err = z.takeLocal(bitv, nbits, in, eb); err != nil {
				return err
			}
			rep += int(b)
		}
		if i+rep > nlen+ndist {
			return errInflate
		}
		for ; rep > 0; rep-- {
			lengths[i] = val
			i++
		}
	}
	z.bits, z.nbits, z.in = bitv, nbits, in
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
