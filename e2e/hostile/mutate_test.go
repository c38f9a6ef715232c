package hostile

import (
	"hash/fnv"
	"math/rand/v2"
	"sort"
)

// seedOf gives a deterministic PRNG seed per input name, so a failing case
// is reproduced by its name and index alone.
func seedOf(name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return h.Sum64()
}

// cutOffsets returns the lengths to truncate a file of size n to: every
// length when n <= every (or in the long sweep), else spread points plus
// the neighbourhoods of the interesting offsets (record and member
// boundaries, where off-by-one bugs live).
func cutOffsets(name string, n, every, spread int, interesting []int64) []int {
	if *long {
		every *= 16
		spread *= 8
	}
	if n <= every {
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out
	}
	set := map[int]bool{0: true, 1: true, n - 1: true}
	for i := 0; i < spread; i++ {
		set[int(int64(i)*int64(n)/int64(spread))] = true
	}
	for _, o := range interesting {
		// -2..+8: the bytes before a record and its member's header (a
		// zstd frame cut after its magic once hung waczpack create).
		for d := int64(-2); d <= 8; d++ {
			if p := o + d; p >= 0 && p < int64(n) {
				set[int(p)] = true
			}
		}
	}
	r := rand.New(rand.NewPCG(seedOf(name), 1))
	for i := 0; i < spread/4; i++ {
		set[r.IntN(n)] = true
	}
	out := make([]int, 0, len(set))
	for o := range set {
		out = append(out, o)
	}
	sort.Ints(out)
	return out
}

// flip is one bit flipped at a byte offset.
type flip struct {
	off int
	bit byte
}

// flips returns count deterministic single-bit flips within [lo, hi).
func flips(name string, lo, hi, count int) []flip {
	if *long {
		count *= 10
	}
	r := rand.New(rand.NewPCG(seedOf(name), 2))
	out := make([]flip, count)
	for i := range out {
		out[i] = flip{lo + r.IntN(hi-lo), byte(1) << r.IntN(8)}
	}
	return out
}

// apply returns a copy of b with f applied.
func (f flip) apply(b []byte) []byte {
	c := append([]byte(nil), b...)
	c[f.off] ^= f.bit
	return c
}
