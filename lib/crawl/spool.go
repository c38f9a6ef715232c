package crawl

import (
	"bytes"
	"io"
	"os"
)

// Spool holds the raw bytes of one HTTP response as received: in memory up
// to a limit, then in a temporary file, so a large response never sits in
// memory whole. It is written once by the fetcher and then read any number
// of times; the crawler closes it after the sink has returned.
type Spool struct {
	mem   []byte
	f     *os.File
	size  int64
	limit int
	dir   string
}

func newSpool(limit int, dir string) *Spool {
	return &Spool{limit: limit, dir: dir}
}

// Write appends p.
func (s *Spool) Write(p []byte) (int, error) {
	if s.f == nil && len(s.mem)+len(p) > s.limit {
		f, err := createUnlinked(s.dir) // gone when closed, even after SIGKILL
		if err != nil {
			return 0, err
		}
		if _, err := f.Write(s.mem); err != nil {
			f.Close()
			return 0, err
		}
		s.f, s.mem = f, nil
	}
	if s.f != nil {
		n, err := s.f.WriteAt(p, s.size)
		s.size += int64(n)
		return n, err
	}
	s.mem = append(s.mem, p...)
	s.size += int64(len(p))
	return len(p), nil
}

// Size returns the number of bytes held.
func (s *Spool) Size() int64 { return s.size }

// truncate drops the bytes past n.
func (s *Spool) truncate(n int64) {
	if n >= s.size || n < 0 {
		return
	}
	if s.f == nil {
		s.mem = s.mem[:n]
	}
	s.size = n
}

// Reader returns a new reader over all the bytes, from the start.
func (s *Spool) Reader() io.Reader { return s.Section(0, s.size) }

// Section returns a reader over n bytes from offset off.
func (s *Spool) Section(off, n int64) io.Reader {
	if off > s.size {
		off = s.size
	}
	if n > s.size-off {
		n = s.size - off
	}
	if s.f == nil {
		return bytes.NewReader(s.mem[off : off+n])
	}
	return io.NewSectionReader(s.f, off, n)
}

// Close releases the memory or temporary file.
func (s *Spool) Close() error {
	s.mem = nil
	if s.f != nil {
		err := s.f.Close()
		s.f = nil
		return err
	}
	return nil
}

// createRemoved creates a temporary file in dir and removes its name at
// once; a file whose name cannot be removed is not used.
func createRemoved(dir string) (*os.File, error) {
	f, err := os.CreateTemp(dir, "mirrorget-spool-*")
	if err != nil {
		return nil, err
	}
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
