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
	// a 1 KiB probe first: text (most members) fails there
	if !highEntropy(b[len(b)/2 : len(b)/2+min(1<<10, len(b)/4)]) {
		return false
	}
	n := min(sampleSize, len(b)/4)
	for _, at := range [3]int{len(b) / 4, len(b) / 2, len(b) - n} {
		if !highEntropy(b[at : at+n]) {
			return false
		}
	}
	return true
}

// highEntropy reports whether p's byte entropy is within entropyMargin of
// what len(p) uniformly random bytes show.
func highEntropy(p []byte) bool {
	return byteEntropy(p) >= 8-255/(2*float64(len(p))*math.Ln2)-entropyMargin
}

// byteEntropy returns the Shannon entropy of p's bytes in bits per byte
// (p at most sampleSize bytes): log2(n) - sum(c log2 c)/n over the byte
// counts c, with c log2 c from a table.
func byteEntropy(p []byte) float64 {
	if len(p) == 0 {
		return 0
	}
	p = p[:min(len(p), sampleSize)]
	var h0, h1 [256]uint16 // two histograms: fewer stalls on repeated bytes
	i := 0
	for ; i+1 < len(p); i += 2 {
		h0[p[i]]++
		h1[p[i+1]]++
	}
	if i < len(p) {
		h0[p[i]]++
	}
	sum := 0.0
	for k := range h0 {
		sum += cLog2c[h0[k]+h1[k]]
	}
	n := float64(len(p))
	return math.Log2(n) - sum/n
}

// cLog2c[c] is c * log2(c) (0 for 0), for counts up to sampleSize.
var cLog2c = func() (t [sampleSize + 1]float64) {
	for c := 1; c <= sampleSize; c++ {
		t[c] = float64(c) * math.Log2(float64(c))
	}
	return t
}()
