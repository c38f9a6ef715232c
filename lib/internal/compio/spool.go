package compio

import (
	"fmt"
	"io"
	"os"
)

// DefaultSpoolMax is the default cap on what one record may spool to a
// temporary file: 4 GiB.
const DefaultSpoolMax int64 = 4 << 30

// CreateSpool creates a temporary read-write file in dir ("" means
// os.TempDir()) that has no name in the file system, so that nothing is
// left behind however the process ends, SIGKILL included. On Linux it is
// opened with O_TMPFILE where the file system supports it; on Windows it
// is created with FILE_FLAG_DELETE_ON_CLOSE (its name shows while it is
// open, and Windows deletes it at the last close, even of a killed
// process); elsewhere (and as a fallback) it is created with
// os.CreateTemp(dir, pattern) and unlinked at once.
//
// The returned file's Name is the path it was (or would have been) given;
// removing that name after Close is harmless.
func CreateSpool(dir, pattern string) (*os.File, error) {
	if dir == "" {
		dir = os.TempDir()
	}
	if f, ok := createUnnamed(dir, pattern); ok {
		return f, nil
	}
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	os.Remove(f.Name()) // fails only where an open file cannot be unlinked
	return f, nil
}

// SpoolLimitError is the error of a reader made by CapReader once more
// than Max bytes have been read.
type SpoolLimitError struct {
	Max      int64 // the cap, in bytes
	Declared int64 // the size the input declares, when known and refused up front (else 0)
}

// Error says the record is too large for the spool cap.
func (e *SpoolLimitError) Error() string {
	if e.Declared > 0 {
		return fmt.Sprintf("record block declared as %d bytes, more than the spool limit of %s (raise it with --spool-max)", e.Declared, FormatSize(e.Max))
	}
	return fmt.Sprintf("record block larger than the spool limit of %s (raise it with --spool-max)", FormatSize(e.Max))
}

// CapReader returns a reader of r that returns a *SpoolLimitError once
// more than max bytes have been read through it (max <= 0: no cap). The
// bytes up to the cap are delivered.
func CapReader(r io.Reader, max int64) io.Reader {
	if max <= 0 {
		return r
	}
	return &capReader{r: r, left: max, max: max}
}

type capReader struct {
	r    io.Reader
	left int64
	max  int64
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		// One byte more tells a block of exactly max bytes from a longer one.
		var b [1]byte
		n, err := c.r.Read(b[:])
		if n > 0 {
			return 0, &SpoolLimitError{Max: c.max}
		}
		return 0, err
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

// ParseSize parses a byte count: digits with an optional K, M, G or T
// suffix (powers of 1024, "KiB", "KB" and "k" alike). It must be positive.
func ParseSize(s string) (int64, error) {
	t := []byte(s)
	if n := len(t); n > 0 && (t[n-1] == 'b' || t[n-1] == 'B') {
		t = t[:n-1]
	}
	if n := len(t); n > 0 && (t[n-1] == 'i' || t[n-1] == 'I') {
		t = t[:n-1]
	}
	mult := int64(1)
	if n := len(t); n > 0 {
		switch t[n-1] {
		case 'k', 'K':
			mult = 1 << 10
		case 'm', 'M':
			mult = 1 << 20
		case 'g', 'G':
			mult = 1 << 30
		case 't', 'T':
			mult = 1 << 40
		}
		if mult > 1 {
			t = t[:n-1]
		}
	}
	var v int64
	if len(t) == 0 || len(t) > 18 {
		return 0, fmt.Errorf("bad size %q", s)
	}
	for _, c := range t {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("bad size %q", s)
		}
		v = v*10 + int64(c-'0')
	}
	if v <= 0 || v > (1<<62)/mult {
		return 0, fmt.Errorf("bad size %q", s)
	}
	return v * mult, nil
}

// FormatSize writes n bytes in the largest power-of-1024 unit that divides
// it exactly ("4 GiB", "1536 KiB", "100 bytes").
func FormatSize(n int64) string {
	units := []string{"KiB", "MiB", "GiB", "TiB"}
	u := ""
	for i := 0; i < len(units) && n >= 1024 && n%1024 == 0; i++ {
		n /= 1024
		u = units[i]
	}
	if u == "" {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%d %s", n, u)
}
