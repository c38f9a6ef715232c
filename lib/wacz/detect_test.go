package wacz

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestHeadEnd: headEnd finds the first CRLF CRLF or LF LF, as two
// bytes.Index would.
func TestHeadEnd(t *testing.T) {
	ref := func(b []byte) int {
		i := bytes.Index(b, []byte("\r\n\r\n"))
		j := bytes.Index(b, []byte("\n\n"))
		switch {
		case i >= 0 && (j < 0 || i < j):
			return i + 4
		case j >= 0:
			return j + 2
		}
		return -1
	}
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte("\r\n\r\nab")
	for n := range 200000 {
		b := make([]byte, n%23)
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		if got, want := headEnd(b), ref(b); got != want {
			t.Fatalf("headEnd(%q) = %d, want %d", b, got, want)
		}
	}
	for _, s := range []string{"HTTP/1.1 200 OK\r\nA: b\r\n\r\nbody\n\n", "HTTP/1.1 200 OK\nA: b\n\nx", "\r\n\r\n", "\n\n", "a\r\n\n", "\r\n\r", ""} {
		if got, want := headEnd([]byte(s)), ref([]byte(s)); got != want {
			t.Errorf("headEnd(%q) = %d, want %d", s, got, want)
		}
	}
}
