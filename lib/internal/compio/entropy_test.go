package compio

import (
	"bytes"
	"io"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
)

// TestLooksIncompressible: random bytes (as in JPEG, PNG, ZIP bodies) are
// taken for incompressible at every size from 4 KiB; text, and a member
// that is half text, half random, are not; a member under 4 KiB never is.
func TestLooksIncompressible(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	random := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return b
	}
	head := []byte("WARC/1.1\r\nWARC-Type: response\r\nContent-Type: application/http\r\n\r\nHTTP/1.1 200 OK\r\nContent-Type: image/jpeg\r\n\r\n")
	text := []byte(strings.Repeat("<p>the quick brown fox jumps over the lazy dog, 0123456789</p>\n", 17000))
	for _, n := range []int{4 << 10, 5000, 8 << 10, 64 << 10, 1 << 20} {
		b := append(append([]byte{}, head...), random(n)...)
		if !looksIncompressible(b) {
			t.Errorf("random %d bytes: not taken for incompressible", n)
		}
		if looksIncompressible(text[:n]) {
			t.Errorf("text %d bytes: taken for incompressible", n)
		}
		mixed := append(append([]byte{}, text[:n/2]...), random(n/2)...)
		if looksIncompressible(mixed) {
			t.Errorf("half text half random, %d bytes: taken for incompressible", n)
		}
	}
	if looksIncompressible(random(4<<10 - 1)) {
		t.Error("a member under 4 KiB was judged")
	}
	// Low-entropy binary (a BMP-like run of few values) is compressible.
	low := make([]byte, 64<<10)
	for i := range low {
		low[i] = byte(rng.IntN(16))
	}
	if looksIncompressible(low) {
		t.Error("16-valued bytes taken for incompressible")
	}
}

// TestIncompressibleMembersRoundTrip: members the writer codes with Huffman
// only decode to their input, and are at most 0.1% larger than what the
// chosen level gives them.
func TestIncompressibleMembersRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var inputs [][]byte
	for _, n := range []int{100, 5000, 70000, 300000} {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		inputs = append(inputs, b)
	}
	var out bytes.Buffer
	var lens []int64
	mw, err := NewMemberWriter(&out, WriterOptions{Format: Gzip, Level: 6, OnMember: func(_ any, _, n int64) { lens = append(lens, n) }})
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range inputs {
		b := mw.Buffer()
		b.B = append(b.B, in...)
		if err := mw.Submit(b, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(&out)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, bytes.Join(inputs, nil)) {
		t.Fatal("members do not decode to their input")
	}
	for i, in := range inputs {
		var ref bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&ref, 6)
		zw.Write(in)
		zw.Close()
		if float64(lens[i]) > float64(ref.Len())*1.001+16 {
			t.Errorf("member %d (%d bytes): %d bytes, level 6 alone gives %d", i, len(in), lens[i], ref.Len())
		}
	}
}

// TestByteEntropy: the table-based entropy equals the textbook formula.
func TestByteEntropy(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{1, 2, 3, 100, 1023, 4096} {
		for _, alphabet := range []int{1, 2, 16, 256} {
			p := make([]byte, n)
			for i := range p {
				p[i] = byte(rng.IntN(alphabet))
			}
			var hist [256]int
			for _, c := range p {
				hist[c]++
			}
			want := 0.0
			for _, k := range hist {
				if k > 0 {
					q := float64(k) / float64(n)
					want -= q * math.Log2(q)
				}
			}
			if got := byteEntropy(p); math.Abs(got-want) > 1e-9 {
				t.Errorf("n %d, alphabet %d: %v, want %v", n, alphabet, got, want)
			}
		}
	}
}
