package replay

import (
	"bufio"
	"bytes"
	"io"
)

// maxLine bounds one index line.
const maxLine = 1 << 20

// lineFile reads a sorted text index through an io.ReaderAt, as pywb's
// binsearch.py reads an open file: lines are compared without their
// trailing white space.
type lineFile struct {
	ra   io.ReaderAt
	size int64
}

// readLine returns the line at off without its newline and the offset of
// the next one.
func (f *lineFile) readLine(off int64) (string, int64, error) {
	var buf []byte
	chunk := make([]byte, 4096)
	for p := off; p < f.size; {
		n, err := f.ra.ReadAt(chunk[:min(int64(len(chunk)), f.size-p)], p)
		if i := bytes.IndexByte(chunk[:n], '\n'); i >= 0 {
			buf = append(buf, chunk[:i]...)
			return string(buf), p + int64(i) + 1, nil
		}
		buf = append(buf, chunk[:n]...)
		p += int64(n)
		if len(buf) > maxLine {
			return "", 0, &internalError{"index line too long"}
		}
		if err != nil && err != io.EOF {
			return "", 0, err
		}
		if n == 0 {
			break
		}
	}
	return string(buf), f.size, nil
}

// lineStart returns the start of the line holding byte off.
func (f *lineFile) lineStart(off int64) (int64, error) {
	b := make([]byte, 4096)
	for end := off; end > 0; {
		start := max(0, end-int64(len(b)))
		n, err := f.ra.ReadAt(b[:end-start], start)
		if err != nil && err != io.EOF {
			return 0, err
		}
		if i := bytes.LastIndexByte(b[:n], '\n'); i >= 0 {
			return start + int64(i) + 1, nil
		}
		end = start
	}
	return 0, nil
}

// firstGE returns the start of the first line whose text (right-stripped)
// compares >= key, or found false.
func (f *lineFile) firstGE(key string) (int64, bool, error) {
	// binary search over line starts: lo is a line start whose lines
	// before it are all < key
	lo, hi := int64(0), f.size
	for lo < hi {
		mid := lo + (hi-lo)/2
		s, err := f.lineStart(mid)
		if err != nil {
			return 0, false, err
		}
		if s < lo {
			s = lo
		}
		line, next, err := f.readLine(s)
		if err != nil {
			return 0, false, err
		}
		if pyRstrip(line) < key {
			lo = next
		} else {
			hi = s
		}
	}
	if lo >= f.size {
		return 0, false, nil
	}
	return lo, true, nil
}

// prevLine returns the start of the line before the one at off.
func (f *lineFile) prevLine(off int64) (int64, bool, error) {
	if off <= 0 {
		return 0, false, nil
	}
	s, err := f.lineStart(off - 1)
	return s, err == nil, err
}

// lastLineStart returns the start of the last line (a final newline does
// not start an empty line).
func (f *lineFile) lastLineStart() (int64, error) {
	end := f.size
	if end > 0 {
		var b [1]byte
		if _, err := f.ra.ReadAt(b[:], end-1); err == nil && b[0] == '\n' {
			end--
		}
	}
	if end <= 0 {
		return 0, nil
	}
	return f.lineStart(end)
}

// scanner reads lines forward from an offset.
type scanner struct {
	br  *bufio.Reader
	err error
}

func (f *lineFile) from(off int64) *scanner {
	return &scanner{br: bufio.NewReaderSize(io.NewSectionReader(f.ra, off, f.size-off), 64<<10)}
}

// next returns the next line with its newline, or ok false at the end.
func (s *scanner) next() (string, bool) {
	if s.err != nil {
		return "", false
	}
	var line []byte
	for {
		frag, err := s.br.ReadSlice('\n')
		line = append(line, frag...)
		if err == bufio.ErrBufferFull {
			if len(line) > maxLine {
				s.err = &internalError{"index line too long"}
				return "", false
			}
			continue
		}
		if err != nil {
			if err != io.EOF {
				s.err = err
			} else {
				s.err = io.EOF
			}
			if len(line) == 0 {
				if s.err == io.EOF {
					s.err = errEOF
				}
				return "", false
			}
		}
		return string(line), true
	}
}

// errEOF marks a scanner at its end.
var errEOF = io.ErrUnexpectedEOF

// failure returns a read error other than the end.
func (s *scanner) failure() error {
	if s.err == nil || s.err == io.EOF || s.err == errEOF {
		return nil
	}
	return s.err
}
