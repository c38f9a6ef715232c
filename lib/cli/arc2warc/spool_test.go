package arc2warc

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"
)

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
)

// arc2warcBin builds cmd/arc2warc once for the tests that run it as a
// process.
func arc2warcBin(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "arc2warc-bin-")
		if err != nil {
			buildErr = err
			return
		}
		builtBin = filepath.Join(dir, "arc2warc")
		out, err := exec.Command("go", "build", "-o", builtBin, "../../../cmd/arc2warc").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtBin
}

func TestMain(m *testing.M) {
	code := m.Run()
	if builtBin != "" {
		os.RemoveAll(filepath.Dir(builtBin))
	}
	os.Exit(code)
}

// arcHead is the version block of testdata/arc/example.arc.
func arcHead(t *testing.T) []byte {
	data, err := os.ReadFile("../../../testdata/arc/example.arc")
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(data, []byte("http://example.com/"))
	if i < 0 {
		t.Fatal("example.arc: no second record")
	}
	return data[:i]
}

// bigRecordHead is the header line of a plain ARC record of n bytes.
func bigRecordHead(n int64) []byte {
	return fmt.Appendf(nil, "http://big.test/blob 127.0.0.1 20140216050221 text/plain %d\n", n)
}

// spoolOpen reports whether process pid has a file open in dir (the spool,
// named or unlinked: /proc/PID/fd/N links to "DIR/... (deleted)" or
// "DIR/#INODE (deleted)").
func spoolOpen(pid int, dir string) bool {
	fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	for _, fd := range fds {
		l, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name()))
		if err == nil && strings.HasPrefix(l, dir+"/") {
			return true
		}
	}
	return false
}

// TestSpoolLeftAfterSignal feeds arc2warc, through a pipe that stays open,
// an ARC whose second record declares 64 MiB and sends the first 8 MiB of
// it: arc2warc spools the block to a temporary file and waits for more.
// Once its spool file is open it gets SIGKILL, SIGINT or SIGTERM; TMPDIR
// (a fresh directory) must then be empty.
func TestSpoolLeftAfterSignal(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("needs /proc")
	}
	bin := arc2warcBin(t)
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			tmp := t.TempDir()
			out := filepath.Join(t.TempDir(), "out.warc.gz")
			cmd := exec.Command(bin, "-q", "-o", out, "-")
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer stdin.Close()
			stdin.Write(arcHead(t))
			stdin.Write(bigRecordHead(64 << 20))
			stdin.Write(make([]byte, 8<<20)) // returns once arc2warc has read it
			// Wait (for as long as it takes) until the spool is open.
			for !spoolOpen(cmd.Process.Pid, tmp) {
				if ents, _ := os.ReadDir(tmp); len(ents) > 0 {
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			cmd.Process.Signal(sig)
			err = cmd.Wait()
			t.Logf("%v: %v, stderr %q", sig, err, stderr.String())
			if sig != syscall.SIGKILL {
				want := map[syscall.Signal]int{syscall.SIGINT: 130, syscall.SIGTERM: 143}[sig]
				if code := cmd.ProcessState.ExitCode(); code != want {
					t.Errorf("exit %d, want %d", code, want)
				}
			}
			if ents, _ := os.ReadDir(tmp); len(ents) > 0 {
				t.Errorf("%v left %d file(s) in TMPDIR: %s", sig, len(ents), ents[0].Name())
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%v: %s exists", sig, out)
			}
		})
	}
}

// TestSpoolMaxBomb runs arc2warc on a gzip-per-record ARC whose second
// member (about 70 KB) inflates to a 64 MiB block, with --spool-max 8M: it
// exits 1 with one line naming the input, the record offset and the cap,
// writes no output and leaves TMPDIR empty. Without the flag the default
// cap (4 GiB) lets it through.
func TestSpoolMaxBomb(t *testing.T) {
	bin := arc2warcBin(t)
	dir := t.TempDir()
	in := filepath.Join(dir, "bomb.arc.gz")
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(arcHead(t))
	zw.Close()
	second := int64(buf.Len())
	zw, _ = gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zw.Write(bigRecordHead(64 << 20))
	zw.Write(make([]byte, 64<<20))
	zw.Write([]byte("\n"))
	zw.Close()
	if buf.Len() > 1<<20 {
		t.Fatalf("bomb is %d bytes", buf.Len())
	}
	if err := os.WriteFile(in, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}

	run := func(args ...string) (int, string, string) {
		tmp := t.TempDir()
		out := filepath.Join(t.TempDir(), "out.warc.gz")
		cmd := exec.Command(bin, append(append([]string{"-q", "-o", out}, args...), in)...)
		cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		cmd.Stdout = io.Discard
		cmd.Run()
		if ents, _ := os.ReadDir(tmp); len(ents) > 0 {
			t.Errorf("%v: left %d file(s) in TMPDIR: %s", args, len(ents), ents[0].Name())
		}
		st, _ := os.Stat(out)
		size := "none"
		if st != nil {
			size = fmt.Sprint(st.Size())
		}
		return cmd.ProcessState.ExitCode(), stderr.String(), size
	}

	code, msg, out := run("--spool-max", "8M")
	want := fmt.Sprintf("arc2warc: %s: record at offset %d: record block larger than the spool limit of 8 MiB (raise it with --spool-max)\n", in, second)
	if code != 1 || msg != want || out != "none" {
		t.Errorf("--spool-max 8M: exit %d, output %s, stderr\n%q\nwant exit 1, no output, stderr\n%q", code, out, msg, want)
	}
	if code, msg, out := run(); code != 0 || out == "none" {
		t.Errorf("default cap: exit %d, output %s, stderr %q", code, out, msg)
	}
	if code, msg, _ := run("--spool-max", "lots"); code != 2 || !strings.Contains(msg, "--spool-max") {
		t.Errorf("--spool-max lots: exit %d, stderr %q", code, msg)
	}
}
