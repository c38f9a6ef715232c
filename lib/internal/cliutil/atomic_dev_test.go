//go:build unix

package cliutil

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestAtomicDevice: an output that is a device (/dev/null) or a FIFO is
// written in place; Commit and Abort leave the node as it was (a rename
// replaced /dev/null with a regular file).
func TestAtomicDevice(t *testing.T) {
	fi, err := os.Stat(os.DevNull)
	if err != nil || fi.Mode()&os.ModeDevice == 0 {
		t.Fatalf("%s is not a device before the test: %v %v", os.DevNull, fi, err)
	}
	for _, commit := range []bool{true, false} {
		a, err := CreateAtomic(os.DevNull)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.Write([]byte("discarded")); err != nil {
			t.Fatal(err)
		}
		if commit {
			if err := a.Commit(); err != nil {
				t.Fatalf("commit to %s: %v", os.DevNull, err)
			}
		} else {
			a.Abort()
		}
		if fi, err := os.Stat(os.DevNull); err != nil || fi.Mode()&os.ModeDevice == 0 {
			t.Fatalf("%s after commit=%v: %v %v (no longer a device)", os.DevNull, commit, fi, err)
		}
	}
	// a FIFO read by another goroutine: the bytes arrive, the node stays
	fifo := filepath.Join(t.TempDir(), "out.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	got := make(chan []byte)
	go func() {
		b, _ := os.ReadFile(fifo)
		got <- b
	}()
	a, err := CreateAtomic(fifo)
	if err != nil {
		t.Fatal(err)
	}
	a.Write([]byte("through the fifo"))
	if err := a.Commit(); err != nil {
		t.Fatal(err)
	}
	if b := <-got; string(b) != "through the fifo" {
		t.Errorf("fifo reader got %q", b)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("fifo after commit: %v %v", fi, err)
	}
}
