package ascii

import (
	"strconv"
	"testing"
)

// TestHex checks every byte against strconv's reading of it as a base-16
// digit.
func TestHex(t *testing.T) {
	for c := 0; c < 256; c++ {
		v, err := strconv.ParseUint(string(rune(c)), 16, 8)
		if got, want := IsHex(byte(c)), err == nil; got != want {
			t.Errorf("IsHex(%q) = %v, want %v", rune(c), got, want)
		}
		if err == nil && Unhex(byte(c)) != byte(v) {
			t.Errorf("Unhex(%q) = %d, want %d", rune(c), Unhex(byte(c)), v)
		}
	}
}
