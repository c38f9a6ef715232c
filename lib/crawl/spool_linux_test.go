package crawl

import (
	"bytes"
	"io"
	"os"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TestSpoolNeverNamed watches the spool's folder with inotify while a spool
// grows past its memory limit: no file is ever created there (O_TMPFILE),
// so not even a SIGKILL between creating and unlinking a named file can
// leave one behind; the bytes read back whole.
func TestSpoolNeverNamed(t *testing.T) {
	dir := t.TempDir()
	in, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		t.Skipf("inotify: %v", err)
	}
	defer unix.Close(in)
	if _, err := unix.InotifyAddWatch(in, dir, unix.IN_CREATE|unix.IN_MOVED_TO); err != nil {
		t.Fatal(err)
	}
	sp := newSpool(1024, dir)
	want := bytes.Repeat([]byte("spooled "), 1000)
	for i := 0; i < len(want); i += 100 {
		if _, err := sp.Write(want[i:min(i+100, len(want))]); err != nil {
			t.Fatal(err)
		}
	}
	if sp.f == nil {
		t.Fatal("the spool did not go to a file")
	}
	got, err := io.ReadAll(sp.Reader())
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("read back %d bytes, %v", len(got), err)
	}
	buf := make([]byte, 4096)
	n, err := unix.Read(in, buf)
	if n > 0 {
		ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[0]))
		name := string(bytes.TrimRight(buf[unix.SizeofInotifyEvent:unix.SizeofInotifyEvent+int(ev.Len)], "\x00"))
		t.Errorf("a file was created in the spool's folder: %q", name)
	} else if err != unix.EAGAIN {
		t.Fatalf("inotify read: %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) > 0 {
		t.Errorf("%d files in the spool's folder", len(ents))
	}
	sp.Close()
}
