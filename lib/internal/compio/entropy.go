package compio

import "math"

// sampleSize is the size of each of the slices looksIncompressible reads.
const sampleSize = 4 << 10

// incompressibleMin is the smallest member looksIncompressible judges;
// smaller ones are always compressed at the chosen level.
const incompressibleMin = 4 << 10

// entropyMargin: a slice of n bytes is taken for already-compressed data
// (JPEG, PNG, ZIP, video) when its byte entropy is within this many bits of
// what n uniformly random bytes show (8 - 255/(2n ln 2) bits per byte: a
// short sample of random bytes shows less than 8). Deflate's matching
// finds next to nothing in such data; Huffman coding alone gets what little
// there is to get.
const entropyMargin = 0.08

// looksIncompressible reports whether b looks like already-compressed
// data, judged by the byte entropy of three slices of up to 4 KiB (at a
// quarter, at half and at the end of b, past the record's headers). Each
// slice must pass, so a member mixing text and compressed data (a PDF) is
// compressed normally.
func looksIncompressible(b []byte) bool {
	if len(b) < incompressibleMin {
		return false
	}
	n := min(sampleSize, len(b)/4)
	limit := 8 - 255/(2*float64(n)*math.Ln2) - entropyMargin
	for _, at := range [3]int{len(b) / 4, len(b) / 2, len(b) - n} {
		if byteEntropy(b[at:at+n]) < limit {
			return false
		}
	}
	return true
}

// byteEntropy returns the Shannon entropy of p's bytes in bits per byte.
func byteEntropy(p []byte) float64 {
	var hist [256]uint32
	for _, c := range p {
		hist[c]++
	}
	n := float64(len(p))
	h := 0.0
	for _, k := range hist {
		if k != 0 {
			q := float64(k) / n
			h -= q * math.Log2(q)
		}
	}
	return h
}
