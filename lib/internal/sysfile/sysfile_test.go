package sysfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestLock: a second open of a locked file cannot lock it until the first
// is closed.
func TestLock(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := os.OpenFile(p, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := Lock(a); err != nil {
		t.Fatalf("first lock: %v", err)
	}
	b, err := os.OpenFile(p, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := Lock(b); !errors.Is(err, ErrLocked) {
		t.Fatalf("second lock while the first is held: %v, want ErrLocked", err)
	}
	// the lock does not keep the bytes from another open file
	if _, err := b.WriteAt([]byte("y"), 0); err != nil {
		t.Fatalf("write through the other file: %v", err)
	}
	a.Close()
	if err := Lock(b); err != nil {
		t.Fatalf("lock after the first file closed: %v", err)
	}
}

// TestOpenFileRenameRemove: a file opened by OpenFile can be renamed and
// removed while open, and the open file still reads and writes.
func TestOpenFileRenameRemove(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "j.tmp")
	f, err := OpenFile(p, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString("journal"); err != nil {
		t.Fatal(err)
	}
	q := filepath.Join(dir, "j")
	if err := RenameDurable(p, q); err != nil {
		t.Fatalf("rename while open: %v", err)
	}
	r, err := OpenFile(q, os.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	buf := make([]byte, 7)
	if _, err := r.ReadAt(buf, 0); err != nil || string(buf) != "journal" {
		t.Fatalf("read back %q, %v", buf, err)
	}
	if err := os.Remove(q); err != nil {
		t.Fatalf("remove while open: %v", err)
	}
	if _, err := os.Lstat(q); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("after remove: %v", err)
	}
	if _, err := OpenFile(q, os.O_RDONLY, 0); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("open of a missing file: %v, want ErrNotExist", err)
	}
	if _, err := OpenFile(filepath.Join(dir, "x"), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenFile(filepath.Join(dir, "x"), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600); !errors.Is(err, os.ErrExist) {
		t.Fatalf("O_EXCL on an existing file: %v, want ErrExist", err)
	}
}

// TestFileID: two opens of one file have one ID; a file replaced under the
// same name has another.
func TestFileID(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	os.WriteFile(p, []byte("a"), 0o644)
	a, _ := os.Open(p)
	defer a.Close()
	b, _ := os.Open(p)
	defer b.Close()
	ia, err := FileID(a)
	if err != nil {
		t.Fatal(err)
	}
	ib, _ := FileID(b)
	if ia != ib || ia == 0 {
		t.Fatalf("two opens: %d and %d", ia, ib)
	}
	os.WriteFile(p+".new", []byte("a"), 0o644)
	os.Rename(p+".new", p)
	c, _ := os.Open(p)
	defer c.Close()
	if ic, _ := FileID(c); ic == ia {
		t.Fatalf("replaced file has the same ID %d", ic)
	}
}

// TestCreateDeleteOnClose: the file reads back what was written and
// nothing is left in the folder once it is closed.
func TestCreateDeleteOnClose(t *testing.T) {
	dir := t.TempDir()
	f, err := CreateDeleteOnClose(dir, "spool-*.tmp")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte("spooled"), 3); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 10)
	if n, err := f.ReadAt(buf, 0); n != 10 || string(buf[3:]) != "spooled" {
		t.Fatalf("read back %q, %v", buf[:n], err)
	}
	f.Close()
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("left in the folder: %v", ents)
	}
}
