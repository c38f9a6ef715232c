package zimdump

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/arcport/arcport/lib/internal/zimtest"
	"github.com/arcport/arcport/lib/zim"
	"github.com/klauspost/compress/zstd"
)

// spoolOpen reports whether process pid has a file open in dir (the WARC
// writer's spool, named or unlinked).
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

// TestWarcSpoolLeftAfterSignal runs the zimdump binary's warc command on
// an archive of 80 entries of 1.5 MiB (each spooled, the spool file kept
// open from the first to the end) and, once the spool is open, sends it
// SIGKILL, SIGINT or SIGTERM: TMPDIR (a fresh directory) must be empty
// afterwards, and no output file exist.
func TestWarcSpoolLeftAfterSignal(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("needs /proc")
	}
	bin := filepath.Join(t.TempDir(), "zimdump")
	if out, err := exec.Command("go", "build", "-o", bin, "../../../cmd/zimdump").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	blob := bytes.Repeat([]byte("0123456789abcdef"), 3<<15) // 1.5 MiB
	s := zimtest.Spec{}
	for c := 0; c < 8; c++ {
		s.Clusters = append(s.Clusters, zimtest.Cluster{Comp: 5})
		for i := 0; i < 10; i++ {
			s.Entries = append(s.Entries, zimtest.Entry{NS: 'C', Path: fmt.Sprintf("c%d/e%d", c, i), Mime: "text/plain", Data: blob, Cluster: c})
		}
	}
	zf := writeZim(t, s)
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			tmp := t.TempDir()
			out := filepath.Join(t.TempDir(), "x.warc.gz")
			cmd := exec.Command(bin, "warc", "-o", out, zf)
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "GOMAXPROCS=1")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			var err error
		wait:
			for {
				select {
				case err = <-done:
					t.Fatalf("finished (%v) before its spool was seen open; stderr %q", err, stderr.String())
				default:
				}
				if spoolOpen(cmd.Process.Pid, tmp) {
					cmd.Process.Signal(sig)
					err = <-done
					break wait
				}
				time.Sleep(time.Millisecond)
			}
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

// TestWarcSpoolBlockedAfterSignal: `zimdump warc --plain -o -` on an archive
// whose first entry is 3 MiB spools that entry to a temporary file, then
// blocks writing it to a pipe nobody reads. Killed there with SIGKILL,
// SIGINT or SIGTERM, it must leave its TMPDIR (a fresh folder) empty.
func TestWarcSpoolBlockedAfterSignal(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("needs /proc")
	}
	zf := writeZim(t, zimtest.Spec{
		Clusters: []zimtest.Cluster{{Comp: 5}},
		Entries: []zimtest.Entry{
			{NS: 'C', Path: "big", Mime: "text/plain", Data: make([]byte, 3<<20)},
			{NS: 'C', Path: "small", Mime: "text/plain", Data: []byte("x")},
		},
	})
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			tmp := t.TempDir()
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "ZIMCLI_MAIN="+strings.Join([]string{"warc", "--plain", "-o", "-", zf}, "\x1f"))
			pr, pw, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer pr.Close()
			cmd.Stdout = pw
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			pw.Close()
			// Wait (for as long as it takes) until the spool is open; the
			// pipe is not read, so the process then blocks writing.
			for !spoolOpen(cmd.Process.Pid, tmp) {
				if ents, _ := os.ReadDir(tmp); len(ents) > 0 {
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			cmd.Process.Signal(sig)
			err = cmd.Wait()
			t.Logf("%v: %v", sig, err)
			if ents, _ := os.ReadDir(tmp); len(ents) > 0 {
				t.Errorf("%v left %d file(s) in TMPDIR: %s", sig, len(ents), ents[0].Name())
			}
		})
	}
}

// TestWarcSpoolMaxDeclared: an entry whose blob the cluster's offset
// table declares larger than --spool-max is refused before anything is
// decompressed or spooled, with the declared size in the error (the old
// code decompressed and spooled up to the cap; here, the cluster being
// short, it failed on the decompression instead).
func TestWarcSpoolMaxDeclared(t *testing.T) {
	claim := func(raw []byte) ([]byte, error) {
		// the last blob offset: 64 MiB past the first
		n := binary.LittleEndian.Uint32(raw) / 4
		binary.LittleEndian.PutUint32(raw[4*(n-1):], binary.LittleEndian.Uint32(raw)+64<<20)
		var out bytes.Buffer
		w, _ := zstd.NewWriter(&out)
		w.Write(raw)
		w.Close()
		return out.Bytes(), nil
	}
	zf := writeZim(t, zimtest.Spec{
		Clusters: []zimtest.Cluster{{Comp: 5, Encode: claim}, {Comp: 1}},
		Entries: []zimtest.Entry{
			{NS: 'C', Path: "big", Mime: "text/plain", Data: []byte("tiny")},
			{NS: 'C', Path: "small", Mime: "text/plain", Data: []byte("x"), Cluster: 1},
		},
	})
	a, err := zim.Open(zf)
	if err != nil {
		t.Fatal(err)
	}
	idx, found, err := a.Find('C', "big")
	if err != nil || !found {
		t.Fatal(found, err)
	}
	ent, err := a.EntryAt(idx)
	a.Close()
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	out := filepath.Join(t.TempDir(), "x.warc.gz")
	r := ours("warc", "--spool-max=8M", "-o", out, zf)
	want := fmt.Sprintf("zimdump: %s: offset %d: entry C/big: record block declared as %d bytes, more than the spool limit of 8 MiB (raise it with --spool-max)\n", zf, ent.Offset, 64<<20)
	// then what zimdump check finds in the archive (its cluster lies
	// about its size): docs/damaged-input.md
	check := fmt.Sprintf("zimdump: %s: offset ", zf)
	rest := strings.TrimPrefix(r.stderr, want)
	if r.rc != 1 || !strings.HasPrefix(r.stderr, want) || rest != "" && (!strings.HasPrefix(rest, check) || !strings.HasSuffix(rest, "\n")) {
		t.Errorf("--spool-max=8M: rc %d, stderr\n%q\nwant\n%q (and zimdump check's problems)", r.rc, r.stderr, want)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("%s exists", out)
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Errorf("left in TMPDIR: %s", ents[0].Name())
	}
}
