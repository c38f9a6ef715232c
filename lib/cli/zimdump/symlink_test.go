package zimdump

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/arcport/arcport/lib/internal/zimtest"
)

// TestDumpRefusesSymlinks: a symbolic link planted in --dir, to a file
// (host/page.html), to a folder (host) or as the errors folder
// (_exceptions), is never written through: the file it points at keeps its
// bytes, nothing appears in the folder it points at, stderr names the
// refused path, the other entries are written and the exit status is 1.
func TestDumpRefusesSymlinks(t *testing.T) {
	z := writeZim(t, zimtest.Spec{
		Clusters: []zimtest.Cluster{{Comp: 5}, {Comp: 1}},
		Entries: []zimtest.Entry{
			{NS: 'C', Path: "host/page.html", Mime: "text/html", Data: []byte("page")},
			{NS: 'C', Path: "host/other.html", Mime: "text/html", Data: []byte("other")},
			{NS: 'C', Path: "top.html", Mime: "text/html", Data: []byte("top")},
			{NS: 'C', Path: "host/r.html", Target: "C/top.html"},
			// f is a file, so f/g goes to the errors folder
			{NS: 'C', Path: "f", Mime: "text/plain", Data: []byte("f")},
			{NS: 'C', Path: "f/g", Mime: "text/plain", Data: []byte("g")},
			// large enough to be streamed to its file (writeReader)
			{NS: 'C', Path: "host/big.bin", Mime: "application/octet-stream", Data: make([]byte, 3<<20), Cluster: 1},
		},
	})
	for _, tc := range []struct {
		name     string
		link     string // planted link, relative to --dir
		toDir    bool   // pointing at the outside folder, else at its file
		redirect bool
		refused  string // path named on stderr
		written  []string
	}{
		{"file", "host/page.html", false, false, "host/page.html",
			[]string{"host/other.html", "host/r.html", "host/big.bin", "top.html", "f", "_exceptions/f%2fg"}},
		{"large file", "host/big.bin", false, false, "host/big.bin",
			[]string{"host/page.html", "host/other.html", "host/r.html", "top.html", "f", "_exceptions/f%2fg"}},
		{"folder", "host", true, false, "host",
			[]string{"top.html", "f", "_exceptions/f%2fg"}},
		{"folder redirect", "host", true, true, "host",
			[]string{"top.html", "f", "_exceptions/f%2fg"}},
		{"errors folder", "_exceptions", true, false, "_exceptions",
			[]string{"host/page.html", "host/other.html", "host/r.html", "host/big.bin", "top.html", "f"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tmp := t.TempDir()
			dir := filepath.Join(tmp, "out")
			outside := filepath.Join(tmp, "outside")
			secret := filepath.Join(outside, "secret")
			if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, tc.link)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(outside, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(secret, []byte("keep me"), 0o644); err != nil {
				t.Fatal(err)
			}
			target := secret
			if tc.toDir {
				target = outside
			}
			if err := os.Symlink(target, filepath.Join(dir, tc.link)); err != nil {
				t.Fatal(err)
			}
			args := []string{"dump", "--dir=" + dir}
			if tc.redirect {
				args = append(args, "--redirect")
			}
			r := ours(append(args, z)...)
			t.Logf("stdout %q\nstderr %q", r.stdout, r.stderr)
			if r.rc != 1 {
				t.Errorf("exit status %d, want 1", r.rc)
			}
			if b, err := os.ReadFile(secret); err != nil || string(b) != "keep me" {
				t.Errorf("outside file: %q %v", b, err)
			}
			if ents, _ := os.ReadDir(outside); len(ents) != 1 {
				t.Errorf("outside folder holds %d files", len(ents))
			}
			if want := filepath.Join(dir, tc.refused) + ": symbolic link"; !strings.Contains(r.stderr, want) {
				t.Errorf("stderr does not say %q", want)
			}
			for _, w := range tc.written {
				if fi, err := os.Lstat(filepath.Join(dir, w)); err != nil || fi.IsDir() {
					t.Errorf("%s not written: %v", w, err)
				}
			}
			if fi, err := os.Lstat(filepath.Join(dir, tc.link)); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Errorf("the planted link is gone: %v", err)
			}
		})
	}
}

// TestDumpRefusesSymlinksManyFolders: past the folders a dump keeps open
// (512), files are opened from the dump folder down; a planted link there
// is refused the same way.
func TestDumpRefusesSymlinksManyFolders(t *testing.T) {
	var ents []zimtest.Entry
	for i := 0; i < 700; i++ {
		ents = append(ents, zimtest.Entry{NS: 'C', Path: fmt.Sprintf("d%03d/x.txt", i), Mime: "text/plain", Data: []byte(strconv.Itoa(i))})
	}
	z := writeZim(t, zimtest.Spec{Clusters: []zimtest.Cluster{{Comp: 5}}, Entries: ents})
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "out")
	secret := filepath.Join(tmp, "secret")
	if err := os.WriteFile(secret, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"d000", "d699"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(secret, filepath.Join(dir, d, "x.txt")); err != nil {
			t.Fatal(err)
		}
	}
	r := ours("dump", "--dir="+dir, z)
	if r.rc != 1 {
		t.Errorf("exit status %d, want 1", r.rc)
	}
	if b, err := os.ReadFile(secret); err != nil || string(b) != "keep me" {
		t.Errorf("outside file: %q %v", b, err)
	}
	for _, d := range []string{"d000", "d699"} {
		if want := filepath.Join(dir, d, "x.txt") + ": symbolic link"; !strings.Contains(r.stderr, want) {
			t.Errorf("stderr does not say %q:\n%s", want, r.stderr)
		}
	}
	for _, i := range []int{1, 698} {
		p := filepath.Join(dir, fmt.Sprintf("d%03d/x.txt", i))
		if b, err := os.ReadFile(p); err != nil || string(b) != strconv.Itoa(i) {
			t.Errorf("%s: %q %v", p, b, err)
		}
	}
}

// TestDumpPlantedFIFO: a FIFO planted where dump writes a file does not
// block the dump (it would wait for a reader forever): the file is not
// opened, and openzim's fallback writes it into _exceptions/.
func TestDumpPlantedFIFO(t *testing.T) {
	dir := t.TempDir()
	if err := mkfifo(filepath.Join(dir, "main.html"), 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan result, 1)
	go func() { done <- ours("dump", "--dir="+dir, filepath.Join(fixtures, "nons", "small.zim")) }()
	select {
	case r := <-done:
		if b, err := os.ReadFile(filepath.Join(dir, "_exceptions", "main.html")); err != nil || len(b) == 0 {
			t.Errorf("main.html not written to _exceptions: %v (%+v)", err, r)
		}
		if b, _ := os.ReadFile(filepath.Join(dir, "favicon.png")); len(b) == 0 {
			t.Errorf("favicon.png not written")
		}
	case <-time.After(60 * time.Second):
		t.Fatal("dump blocked on the planted FIFO")
	}
}
