package xapian

import "math/bits"

// The integer and string encodings of xapian-core/common/pack.h.

// unpackUint reads pack_uint's little-endian base-128 varint (high bit =
// more bytes follow). ok is false when the data runs out or the value does
// not fit 64 bits.
func unpackUint(p []byte) (v uint64, rest []byte, ok bool) {
	var shift uint
	for i, b := range p {
		if shift >= 64 || (shift == 63 && b&0x7f > 1) {
			return 0, nil, false
		}
		v |= uint64(b&0x7f) << shift
		if b < 0x80 {
			return v, p[i+1:], true
		}
		shift += 7
	}
	return 0, nil, false
}

// unpackUint32 is unpackUint for 32-bit quantities (docids, termcounts,
// slots, as Xapian 1.4 is built on Debian).
func unpackUint32(p []byte) (uint32, []byte, bool) {
	v, rest, ok := unpackUint(p)
	if !ok || v > 0xffffffff {
		return 0, nil, false
	}
	return uint32(v), rest, true
}

func packUint(s []byte, v uint64) []byte {
	for v >= 128 {
		s = append(s, byte(v)|0x80)
		v >>= 7
	}
	return append(s, byte(v))
}

// unpackString reads pack_string: a length as pack_uint, then the bytes.
func unpackString(p []byte) (s, rest []byte, ok bool) {
	n, p, ok := unpackUint(p)
	if !ok || n > uint64(len(p)) {
		return nil, nil, false
	}
	return p[:n], p[n:], true
}

func packString(s, v []byte) []byte {
	s = packUint(s, uint64(len(v)))
	return append(s, v...)
}

// packUintSort is pack_uint_preserving_sort: values below 0x8000 in two
// big-endian bytes, larger ones with a unary length prefix in the high
// bits of the first byte, so that byte order is numeric order.
func packUintSort(s []byte, v uint64) []byte {
	if v < 0x8000 {
		return append(s, byte(v>>8), byte(v))
	}
	n := (64 + 5 - bits.LeadingZeros64(v)) / 7
	mask := byte(0xff << (10 - n))
	start := len(s)
	s = append(s, make([]byte, n)...)
	for i := 1; i != n; i++ {
		s[start+n-i] = byte(v)
		v >>= 8
	}
	s[start] = byte(v) | mask
	return s
}

// unpackUintSort reads pack_uint_preserving_sort.
func unpackUintSort(p []byte) (uint64, []byte, bool) {
	if len(p) == 0 {
		return 0, nil, false
	}
	lb := p[0]
	p = p[1:]
	if lb < 0x80 {
		if len(p) == 0 {
			return 0, nil, false
		}
		return uint64(lb)<<8 | uint64(p[0]), p[1:], true
	}
	if lb == 0xff {
		return 0, nil, false
	}
	n := bits.LeadingZeros8(^lb) + 1 // count of leading one bits + 1
	if len(p) < n || n > 8 {
		return 0, nil, false
	}
	r := uint64(lb & ^byte(0xff<<(9-n)))
	if n == 8 && r != 0 {
		return 0, nil, false
	}
	for _, b := range p[:n] {
		r = r<<8 | uint64(b)
	}
	return r, p[n:], true
}

// packStringSort is pack_string_preserving_sort: each NUL becomes NUL
// 0xff, and unless last the string ends with a NUL.
func packStringSort(s, v []byte, last bool) []byte {
	for _, c := range v {
		s = append(s, c)
		if c == 0 {
			s = append(s, 0xff)
		}
	}
	if !last {
		s = append(s, 0)
	}
	return s
}

// unpackStringSort reads pack_string_preserving_sort (up to the end of p
// or a lone NUL).
func unpackStringSort(p []byte) (v, rest []byte) {
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c == 0 {
			if i+1 == len(p) || p[i+1] != 0xff {
				return v, p[i+1:]
			}
			i++
		}
		v = append(v, c)
	}
	return v, nil
}
