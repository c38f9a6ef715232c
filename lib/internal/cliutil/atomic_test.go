package cliutil

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// The child half of the signal tests: runs when CLIUTIL_CHILD is set.
func init() {
	mode := os.Getenv("CLIUTIL_CHILD")
	if mode == "" {
		return
	}
	out := os.Getenv("CLIUTIL_OUT")
	f, err := CreateAtomic(out)
	if err != nil {
		os.Exit(3)
	}
	f.WriteString("partial")
	switch mode {
	case "signal-then-commit":
		// The signal arrives just before the output is committed, as when
		// Ctrl-C on a pipeline ends the input at the same moment.
		raise(syscall.SIGINT)
		if err := f.Commit(); err != nil {
			os.Exit(4)
		}
		os.Exit(0)
	case "wait":
		os.Stdout.WriteString("ready\n")
		time.Sleep(30 * time.Second)
		os.Exit(5)
	case "commit":
		if err := f.Commit(); err != nil {
			os.Exit(4)
		}
		os.Exit(0)
	}
}

func runChild(t *testing.T, mode string, sig os.Signal) (code int, dir string) {
	t.Helper()
	dir = t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "CLIUTIL_CHILD="+mode, "CLIUTIL_OUT="+filepath.Join(dir, "out.warc"), "GOMAXPROCS=1")
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if sig != nil {
		buf := make([]byte, 6)
		stdout.Read(buf)
		cmd.Process.Signal(sig)
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), dir
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, dir
}

func listDir(t *testing.T, dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

func TestAtomicCommit(t *testing.T) {
	code, dir := runChild(t, "commit", nil)
	if names := listDir(t, dir); code != 0 || len(names) != 1 || names[0] != "out.warc" {
		t.Fatalf("exit %d, files %v", code, names)
	}
}

func TestAtomicSignals(t *testing.T) {
	for _, tc := range []struct {
		mode string
		sig  os.Signal
		code int
	}{
		{"wait", syscall.SIGINT, 130},
		{"wait", syscall.SIGTERM, 143},
		{"signal-then-commit", nil, 130},
	} {
		for i := 0; i < 5; i++ {
			code, dir := runChild(t, tc.mode, tc.sig)
			if names := listDir(t, dir); code != tc.code || len(names) != 0 {
				t.Fatalf("%s %v: exit %d, files left %v", tc.mode, tc.sig, code, names)
			}
		}
	}
}

func TestPendingIn(t *testing.T) {
	for status, want := range map[string]os.Signal{
		"Name:\tx\nSigPnd:\t0000000000000000\nShdPnd:\t0000000000000000\n": nil,
		"SigPnd:\t0000000000000000\nShdPnd:\t0000000000000002\n":           syscall.SIGINT,
		"SigPnd:\t0000000000004000\nShdPnd:\t0000000000000000\n":           syscall.SIGTERM,
		"SigPnd:\t0000000000000100\nShdPnd:\t0000000000000001\n":           nil,
		"garbage": nil,
	} {
		if got := pendingIn(status); got != want {
			t.Errorf("%q: %v, want %v", status, got, want)
		}
	}
	if s := kernelPending(); s != nil {
		t.Errorf("test process has %v pending", s)
	}
}

// TestAtomicSIGKILL: a process killed with SIGKILL before Commit leaves no
// file beside its output (the output has no name until Commit, on Linux).
func TestAtomicSIGKILL(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("unnamed files (O_TMPFILE) are Linux's")
	}
	code, dir := runChild(t, "wait", syscall.SIGKILL)
	if names := listDir(t, dir); len(names) != 0 {
		t.Fatalf("exit %d, files left %v", code, names)
	}
}

// TestAtomicWriteback: content written through AtomicFile.Write in uneven
// pieces past several writeback points (where Write has the kernel start
// writing the file out) arrives whole, and the count of bytes not yet
// handed to writeback stays under writebackEvery.
func TestAtomicWriteback(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out.bin")
	f, err := CreateAtomic(out)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]byte, 3*writebackEvery+12345)
	for i := range want {
		want[i] = byte(i * 7 >> 3)
	}
	for i := 0; i < len(want); i += 300007 {
		n, err := f.Write(want[i:min(i+300007, len(want))])
		if err != nil || n != min(300007, len(want)-i) {
			t.Fatalf("Write at %d: %d, %v", i, n, err)
		}
		if f.dirty >= writebackEvery {
			t.Fatalf("after %d bytes, %d not handed to writeback", i+n, f.dirty)
		}
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatalf("read back %d bytes that differ from the %d written", len(got), len(want))
	}
}
