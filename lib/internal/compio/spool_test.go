package compio

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
)

// TestCreateSpoolUnnamed: the spool file reads back what was written and
// has no entry in its directory, before and after Close.
func TestCreateSpoolUnnamed(t *testing.T) {
	dir := t.TempDir()
	f, err := CreateSpool(dir, "x-*.tmp")
	if err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("spool file has a name: %s", ents[0].Name())
	}
	if _, err := f.WriteString("hello spool"); err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(io.NewSectionReader(f, 0, 100))
	if err != nil || string(got) != "hello spool" {
		t.Errorf("read back %q, %v", got, err)
	}
	name := f.Name()
	f.Close()
	os.Remove(name) // what callers of os.CreateTemp do: harmless
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("left %s", ents[0].Name())
	}
	if _, err := os.Stat(dir); err != nil {
		t.Errorf("the directory went: %v", err)
	}
}

func TestCapReader(t *testing.T) {
	for _, tc := range []struct {
		n, max int64
		fail   bool
	}{{10, 10, false}, {11, 10, true}, {0, 1, false}, {1 << 20, 1000, true}, {5, 0, false}} {
		got, err := io.ReadAll(CapReader(bytes.NewReader(make([]byte, tc.n)), tc.max))
		var se *SpoolLimitError
		if fail := errors.As(err, &se); fail != tc.fail || (err != nil && !tc.fail) {
			t.Errorf("n=%d max=%d: err %v", tc.n, tc.max, err)
		}
		if !tc.fail && int64(len(got)) != tc.n {
			t.Errorf("n=%d max=%d: read %d", tc.n, tc.max, len(got))
		}
		if tc.fail && int64(len(got)) != tc.max {
			t.Errorf("n=%d max=%d: read %d before failing", tc.n, tc.max, len(got))
		}
	}
	if msg := (&SpoolLimitError{Max: 4 << 30}).Error(); !strings.Contains(msg, "4 GiB") {
		t.Errorf("message %q", msg)
	}
}

func TestParseSize(t *testing.T) {
	good := map[string]int64{"1": 1, "8M": 8 << 20, "4GiB": 4 << 30, "4gb": 4 << 30, "512k": 512 << 10, "2T": 2 << 40, "100B": 100}
	for s, want := range good {
		if n, err := ParseSize(s); err != nil || n != want {
			t.Errorf("%q: %d, %v; want %d", s, n, err, want)
		}
	}
	for _, s := range []string{"", "0", "-1", "M", "1.5G", "lots", "9999999999999999999", "99999999999T", "1X"} {
		if n, err := ParseSize(s); err == nil {
			t.Errorf("%q: %d, no error", s, n)
		}
	}
}
