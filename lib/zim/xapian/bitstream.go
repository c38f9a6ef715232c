package xapian

import (
	"errors"
	"math/bits"
)

// Positions are stored as in glass_positionlist.cc and bitstream.cc: the
// last position as pack_uint; when there is more than one, a bit stream
// (least significant bit first) holding the first position coded out of
// (last), the count minus 2 coded out of (last - first), then the
// positions in between by binary interpolative coding.

type bitWriter struct {
	buf   []byte
	acc   uint64
	nbits uint
}

func hob(x uint64) uint { return uint(64 - bits.LeadingZeros64(x)) }

// encode writes value (< outof) with the truncated binary code of
// BitWriter::encode (shorter codes in the middle of the range).
func (w *bitWriter) encode(value, outof uint64) {
	nb := hob(outof - 1)
	var spare uint64
	if nb < 64 {
		spare = uint64(1)<<nb - outof
	} else {
		spare = -outof
	}
	if spare != 0 {
		midStart := (outof - spare) / 2
		if value >= midStart+spare {
			value = (value - (midStart + spare)) | uint64(1)<<(nb-1)
		} else if value >= midStart {
			nb--
		}
	}
	if nb+w.nbits > 64 {
		w.acc |= value << w.nbits
		w.buf = append(w.buf, byte(w.acc))
		w.acc >>= 8
		value >>= 8
		nb -= 8
	}
	w.acc |= value << w.nbits
	w.nbits += nb
	for w.nbits >= 8 {
		w.buf = append(w.buf, byte(w.acc))
		w.acc >>= 8
		w.nbits -= 8
	}
}

func (w *bitWriter) interpolative(pos []uint64, j, k int) {
	for j+1 < k {
		mid := j + (k-j)/2
		outof := pos[k] - pos[j] + uint64(j) - uint64(k) + 1
		lowest := pos[j] + uint64(mid-j)
		w.encode(pos[mid]-lowest, outof)
		w.interpolative(pos, j, mid)
		j = mid
	}
}

func (w *bitWriter) freeze() []byte {
	if w.nbits > 0 {
		w.buf = append(w.buf, byte(w.acc))
		w.acc, w.nbits = 0, 0
	}
	return w.buf
}

// encodePositions is GlassPositionListTable::pack for strictly
// increasing positions (at least one).
func encodePositions(ps []uint32) []byte {
	last := uint64(ps[len(ps)-1])
	s := packUint(nil, last)
	if len(ps) == 1 {
		return s
	}
	w := bitWriter{buf: s}
	w.encode(uint64(ps[0]), last)
	w.encode(uint64(len(ps)-2), last-uint64(ps[0]))
	pos := make([]uint64, len(ps))
	for i, p := range ps {
		pos[i] = uint64(p)
	}
	w.interpolative(pos, 0, len(pos)-1)
	return w.freeze()
}

type bitReader struct {
	buf   []byte
	acc   uint64
	nbits uint
	err   bool
}

func (r *bitReader) read(count uint) uint64 {
	if count > 64-7 {
		lo := r.read(32)
		return lo | r.read(count-32)<<32
	}
	for r.nbits < count {
		if len(r.buf) == 0 {
			r.err = true
			return 0
		}
		r.acc |= uint64(r.buf[0]) << r.nbits
		r.buf = r.buf[1:]
		r.nbits += 8
	}
	v := r.acc & (uint64(1)<<count - 1)
	r.acc >>= count
	r.nbits -= count
	return v
}

func (r *bitReader) decode(outof uint64) uint64 {
	if outof == 0 {
		r.err = true
		return 0
	}
	nb := hob(outof - 1)
	var spare uint64
	if nb < 64 {
		spare = uint64(1)<<nb - outof
	} else {
		spare = -outof
	}
	midStart := (outof - spare) / 2
	var p uint64
	if spare != 0 {
		p = r.read(nb - 1)
		if p < midStart && r.read(1) != 0 {
			p += midStart + spare
		}
	} else {
		p = r.read(nb)
	}
	if p >= outof {
		r.err = true
	}
	return p
}

func (r *bitReader) interpolative(pos []uint64, j, k int) {
	for j+1 < k && !r.err {
		mid := j + (k-j)/2
		outof := pos[k] - pos[j] + uint64(j) - uint64(k) + 1
		if pos[k]-pos[j] < uint64(k-j) {
			r.err = true
			return
		}
		pos[mid] = r.decode(outof) + pos[j] + uint64(mid-j)
		r.interpolative(pos, j, mid)
		j = mid
	}
}

var errPositions = errors.New("position list data corrupt")

// decodePositions reverses encodePositions; the list may hold at most
// limit positions.
func decodePositions(data []byte, limit int) ([]uint32, error) {
	last, p, ok := unpackUint(data)
	if !ok || last > 0xffffffff {
		return nil, errPositions
	}
	if len(p) == 0 {
		return []uint32{uint32(last)}, nil
	}
	r := bitReader{buf: p}
	if last == 0 {
		return nil, errPositions
	}
	first := r.decode(last)
	n := r.decode(last-first) + 2
	if r.err {
		return nil, errPositions
	}
	if n > uint64(max(limit, 1)) {
		return nil, errors.New("position list too long")
	}
	pos := make([]uint64, n)
	pos[0], pos[n-1] = first, last
	r.interpolative(pos, 0, int(n-1))
	if r.err {
		return nil, errPositions
	}
	out := make([]uint32, n)
	for i, v := range pos {
		out[i] = uint32(v)
	}
	return out, nil
}
