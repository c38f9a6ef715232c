package cdx

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// MaxLineSize bounds the length of one index line a Reader accepts.
const MaxLineSize = 4 << 20

// LineError is a bad line met by a Reader.
type LineError struct {
	File string // as given to NewReader
	Line int    // 1-based line number
	Err  error
}

// Error formats the error as "file: line N: reason".
func (e *LineError) Error() string {
	f := e.File
	if f == "" {
		f = "-"
	}
	return fmt.Sprintf("%s: line %d: %v", f, e.Line, e.Err)
}

// Unwrap returns the reason.
func (e *LineError) Unwrap() error { return e.Err }

// ErrLineTooLong is wrapped by LineErrors for lines over MaxLineSize.
var ErrLineTooLong = errors.New("line too long")

// Reader reads a CDXJ index line by line. A bad line gives a *LineError
// naming it; reading can go on past it with the next call to Next. Blank
// lines, lines starting with "!" (metadata, such as "!meta") and a CDX-11
// header line (" CDX ...") are skipped.
type Reader struct {
	br   *bufio.Reader
	file string
	line int
	buf  []byte
}

// NewReader returns a Reader for r; file names it in errors.
func NewReader(r io.Reader, file string) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, 64<<10), file: file}
}

// Line returns the number of the line last read.
func (r *Reader) Line() int { return r.line }

// Next returns the next entry, io.EOF at the end, or a *LineError for a
// line that is not CDXJ (or an I/O error as it is).
func (r *Reader) Next() (*Entry, error) {
	for {
		line, err := r.readLine()
		if err != nil {
			return nil, err
		}
		t := bytes.TrimRight(line, "\r\n")
		if len(bytes.TrimSpace(t)) == 0 || t[0] == '!' || bytes.HasPrefix(t, []byte(" CDX")) {
			continue
		}
		e, perr := ParseCDXJ(t)
		if perr != nil {
			return nil, &LineError{File: r.file, Line: r.line, Err: perr}
		}
		return &e, nil
	}
}

// readLine returns the next line (with its newline), counting lines. An
// over-long line is consumed to its end and reported.
func (r *Reader) readLine() ([]byte, error) {
	r.buf = r.buf[:0]
	for {
		frag, err := r.br.ReadSlice('\n')
		if len(r.buf)+len(frag) > MaxLineSize {
			r.line++
			for err == bufio.ErrBufferFull {
				_, err = r.br.ReadSlice('\n')
			}
			if err != nil && err != io.EOF {
				return nil, err
			}
			return nil, &LineError{File: r.file, Line: r.line, Err: fmt.Errorf("%w (over %d bytes)", ErrLineTooLong, MaxLineSize)}
		}
		r.buf = append(r.buf, frag...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF {
			if len(r.buf) == 0 {
				return nil, io.EOF
			}
			r.line++
			return r.buf, nil
		}
		if err != nil {
			return nil, err
		}
		r.line++
		return r.buf, nil
	}
}
