// Package tailfile lets a writer that needs to read back, truncate and
// rewrite the end of its output (lib/wacz's zip writer, which withdraws a
// record that turns out damaged) write to a forward-only stream such as an
// S3 multipart upload. A File keeps the bytes written since the last
// Release - its window - where they can be read back, truncated and
// written again; Release passes the bytes before an offset on to the
// stream, after which they can no longer change. The window lives in
// memory up to a bound, then in an unlinked temporary file (so no signal,
// not even SIGKILL, leaves it behind): the output as a whole is never kept.
//
// It follows no file format; it is an io.Writer + io.ReaderAt + io.Seeker
// + Truncate, the interface of lib/wacz.ZipFile, over an io.Writer.
package tailfile

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/arcport/arcport/lib/internal/sysfile"
)

// DefaultMemory is how many window bytes a File keeps in memory before it
// moves the window to a temporary file.
const DefaultMemory = 16 << 20

// ErrReleased is returned for a read, truncation or seek before the
// released part of the output.
var ErrReleased = errors.New("tailfile: offset before the released part of the output")

// File is an output whose tail can still change. It is not safe for use
// by several goroutines at once.
type File struct {
	w      io.Writer
	tmpDir string
	memMax int
	base   int64    // output offset of the window's first byte
	mem    []byte   // the window is mem[head:], when in memory
	head   int      // released bytes at the front of mem, dropped lazily
	spill  *os.File // the window from base, when it outgrew memMax
	size   int64    // bytes written in all (the window ends here)
	pos    int64    // where the next Write goes
	err    error    // a failed pass-on: the output is broken
}

// New returns a File passing released bytes on to w, keeping up to memMax
// window bytes in memory (0: DefaultMemory) and the rest in an unlinked
// temporary file in tmpDir ("" : the system's).
func New(w io.Writer, memMax int, tmpDir string) *File {
	if memMax <= 0 {
		memMax = DefaultMemory
	}
	return &File{w: w, memMax: memMax, tmpDir: tmpDir}
}

// Size returns the output's size so far.
func (f *File) Size() int64 { return f.size }

// Released returns how many bytes were passed on.
func (f *File) Released() int64 { return f.base }

// Write writes p at the current position, which must be the end of the
// output (after a Truncate, Seek to it).
func (f *File) Write(p []byte) (int, error) {
	if f.err != nil {
		return 0, f.err
	}
	if f.pos != f.size {
		return 0, fmt.Errorf("tailfile: write at %d, not at the end (%d)", f.pos, f.size)
	}
	if f.spill == nil && len(f.mem)-f.head+len(p) > f.memMax {
		if err := f.toDisk(); err != nil {
			return 0, err
		}
	}
	if f.spill != nil {
		n, err := f.spill.WriteAt(p, f.size-f.base)
		f.size += int64(n)
		f.pos = f.size
		return n, err
	}
	if f.head > 0 && cap(f.mem)-len(f.mem) < len(p) {
		// make room by moving the window to the front: once per
		// buffer's worth of writes, not at every Release
		n := copy(f.mem, f.mem[f.head:])
		f.mem, f.head = f.mem[:n], 0
	}
	f.mem = append(f.mem, p...)
	f.size += int64(len(p))
	f.pos = f.size
	return len(p), nil
}

// toDisk moves the window to an unlinked temporary file.
func (f *File) toDisk() error {
	// unlinked (deleted on close on Windows): gone with the process,
	// whatever ends it
	t, err := sysfile.CreateDeleteOnClose(f.tmpDir, ".arcport-tail-*")
	if err != nil {
		return err
	}
	if _, err := t.Write(f.mem[f.head:]); err != nil {
		t.Close()
		return err
	}
	f.spill, f.mem, f.head = t, nil, 0
	return nil
}

// ReadAt reads output bytes at off, which must not be before the window.
func (f *File) ReadAt(p []byte, off int64) (int, error) {
	if off < f.base {
		return 0, ErrReleased
	}
	if off >= f.size {
		if len(p) == 0 {
			return 0, nil
		}
		return 0, io.EOF
	}
	n := int(min(int64(len(p)), f.size-off))
	var err error
	if f.spill != nil {
		n, err = f.spill.ReadAt(p[:n], off-f.base)
	} else {
		copy(p, f.mem[f.head+int(off-f.base):])
	}
	if err == nil && n < len(p) {
		err = io.EOF
	}
	return n, err
}

// Truncate cuts the output back to size bytes, which must not be before
// the window. The position is left where it was: Seek to the end before
// writing again.
func (f *File) Truncate(size int64) error {
	if size < f.base {
		return ErrReleased
	}
	if size > f.size {
		return fmt.Errorf("tailfile: cannot extend %d bytes to %d", f.size, size)
	}
	if f.spill != nil {
		if err := f.spill.Truncate(size - f.base); err != nil {
			return err
		}
	} else {
		f.mem = f.mem[:f.head+int(size-f.base)]
	}
	f.size = size
	return nil
}

// Seek sets the position for the next Write (which must be the end of the
// output then) and returns it; positions before the window are refused.
func (f *File) Seek(offset int64, whence int) (int64, error) {
	var p int64
	switch whence {
	case io.SeekStart:
		p = offset
	case io.SeekCurrent:
		p = f.pos + offset
	case io.SeekEnd:
		p = f.size + offset
	default:
		return f.pos, fmt.Errorf("tailfile: bad whence %d", whence)
	}
	if p < f.base || p > f.size {
		return f.pos, ErrReleased
	}
	f.pos = p
	return p, nil
}

// Release passes the output bytes before off on to the stream: they can no
// longer be read back or changed. Releasing less than was released before
// does nothing.
func (f *File) Release(off int64) error {
	if f.err != nil {
		return f.err
	}
	off = min(off, f.size)
	if off <= f.base {
		return nil
	}
	n := off - f.base
	if f.spill == nil {
		if _, err := f.w.Write(f.mem[f.head : f.head+int(n)]); err != nil {
			f.err = err
			return err
		}
		f.head += int(n)
		if f.head == len(f.mem) {
			f.mem, f.head = f.mem[:0], 0
		}
		f.base = off
		return nil
	}
	if _, err := io.Copy(f.w, io.NewSectionReader(f.spill, 0, n)); err != nil {
		f.err = err
		return err
	}
	// the rest of the window back into memory if it fits, else into a
	// fresh temporary file
	rest := f.size - off
	old := f.spill
	defer old.Close()
	f.spill = nil
	f.base = off
	if rest <= int64(f.memMax) {
		f.mem, f.head = make([]byte, rest), 0
		_, err := old.ReadAt(f.mem, n)
		if err == io.EOF && rest == 0 {
			err = nil
		}
		return err
	}
	f.mem, f.head = nil, 0
	if err := f.toDisk(); err != nil {
		return err
	}
	_, err := io.Copy(f.spill, io.NewSectionReader(old, n, rest))
	return err
}

// Flush releases the whole output.
func (f *File) Flush() error { return f.Release(f.size) }

// Close releases the whole output and drops the window; it does not close
// the stream.
func (f *File) Close() error {
	err := f.Flush()
	if f.spill != nil {
		f.spill.Close()
		f.spill = nil
	}
	return err
}
