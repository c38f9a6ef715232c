package httpmsg

import (
	"errors"
	"io"
)

// ErrBadChunk is returned for malformed chunked transfer coding.
var ErrBadChunk = errors.New("malformed chunked encoding")

// Dechunker is a push decoder for the chunked transfer coding: bytes written
// to it are decoded and the chunk data is written to W. It is tolerant of
// bare LF line ends, chunk extensions and whitespace after the size.
//
// A body that is not chunked at all, although its message says
// "Transfer-Encoding: chunked" (pywb's sample iana.warc.gz has such
// responses), is passed to W as it is: when the first chunk-size line is
// not a hexadecimal size (or a size over 2^31), the decoder falls back to
// the raw body, as warcio's ChunkedDataReader and pywb do, and Raw reports
// it. A body whose first chunk is well formed and that breaks later is
// still ErrBadChunk.
type Dechunker struct {
	W     io.Writer
	state int
	size  uint64
	digit bool
	err   error
	// started: the first chunk-size line was accepted (no fallback from
	// then on); raw: the body is passed through as it is.
	started, raw bool
	// first holds the bytes of the first chunk-size line seen so far, to
	// be written to W on a fallback.
	first []byte
	// Decoded counts bytes written to W; Consumed counts input bytes
	// accepted up to the end of the last chunk (the terminating empty line),
	// or every byte when Raw.
	Decoded, Consumed int64
}

// maxFirstLine bounds the bytes before the first chunk's data (blank lines,
// the size, an extension) kept for a fallback; past it there is none.
const maxFirstLine = 1024

// maxFirstSize is the largest first chunk size taken as chunked (warcio's
// sanity check); a larger one means the body is not chunked.
const maxFirstSize = 1 << 31

const (
	stSize = iota
	stExt
	stSizeLF
	stData
	stDataCR
	stDataLF
	stTrailerStart
	stTrailer
	stTrailerLF
	stDone
)

// Done reports whether the final zero-size chunk and trailer were seen.
func (d *Dechunker) Done() bool { return d.state == stDone }

// Raw reports whether the body was found not to be chunked (its first
// chunk-size line is not one) and is passed through as it is.
func (d *Dechunker) Raw() bool { return d.raw }

// fallback passes the bytes of the first line and p to W as they are.
func (d *Dechunker) fallback(p []byte) error {
	d.raw = true
	d.Consumed += int64(len(p))
	for _, b := range [][]byte{d.first, p} {
		if len(b) == 0 {
			continue
		}
		if _, err := d.W.Write(b); err != nil {
			return err
		}
		d.Decoded += int64(len(b))
	}
	d.first = nil
	return nil
}

// Err returns the decoding error, if any.
func (d *Dechunker) Err() error { return d.err }

// Write decodes p. After an error, or after the end of the chunked body,
// further input is ignored (and still reported as written, so the decoder can
// sit in an io.MultiWriter beside other consumers); the error is kept in Err.
func (d *Dechunker) Write(p []byte) (int, error) {
	total := len(p)
	if d.raw {
		return total, d.fallback(p)
	}
	for len(p) > 0 && d.err == nil && d.state != stDone {
		switch d.state {
		case stData:
			n := uint64(len(p))
			if n > d.size {
				n = d.size
			}
			if _, err := d.W.Write(p[:n]); err != nil {
				return total, err
			}
			d.Decoded += int64(n)
			d.Consumed += int64(n)
			d.size -= n
			p = p[n:]
			if d.size == 0 {
				d.state = stDataCR
			}
			continue
		}
		c := p[0]
		if !d.started {
			if len(d.first) < maxFirstLine {
				d.first = append(d.first, c)
			} else {
				d.started, d.first = true, nil
			}
		}
		p = p[1:]
		d.Consumed++
		switch d.state {
		case stSize:
			switch {
			case hexVal(c) >= 0:
				if d.size>>60 != 0 {
					d.err = ErrBadChunk
					break
				}
				d.size = d.size<<4 | uint64(hexVal(c))
				d.digit = true
			case !d.digit && (c == '\r' || c == '\n' || c == ' ' || c == '\t'):
				// Tolerate blank lines and spaces before a size.
			case d.digit && (c == ';' || c == ' ' || c == '\t'):
				d.state = stExt
			case d.digit && c == '\r':
				d.state = stSizeLF
			case d.digit && c == '\n':
				d.endSize()
			default:
				d.err = ErrBadChunk
			}
		case stExt:
			if c == '\n' {
				d.endSize()
			}
		case stSizeLF:
			if c != '\n' {
				d.err = ErrBadChunk
				break
			}
			d.endSize()
		case stDataCR:
			switch c {
			case '\r':
				d.state = stDataLF
			case '\n':
				d.state = stSize
			default:
				d.err = ErrBadChunk
			}
		case stDataLF:
			if c != '\n' {
				d.err = ErrBadChunk
				break
			}
			d.state = stSize
		case stTrailerStart:
			switch c {
			case '\r':
				d.state = stTrailerLF
			case '\n':
				d.state = stDone
			default:
				d.state = stTrailer
			}
		case stTrailer:
			if c == '\n' {
				d.state = stTrailerStart
			}
		case stTrailerLF:
			if c == '\n' {
				d.state = stDone
			} else {
				d.state = stTrailer
			}
		}
		if d.err != nil && !d.started {
			// the first chunk-size line is not one: not chunked
			d.err = nil
			return total, d.fallback(p)
		}
	}
	return total, nil
}

func (d *Dechunker) endSize() {
	d.digit = false
	if !d.started {
		if d.size > maxFirstSize {
			d.err = ErrBadChunk // not a chunk size: Write falls back
			return
		}
		d.started, d.first = true, nil
	}
	if d.size == 0 {
		d.state = stTrailerStart
		return
	}
	d.state = stData
}

func hexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// chunkedReader is the pull form of Dechunker.
type chunkedReader struct {
	r   io.Reader
	d   Dechunker
	out sliceWriter
	buf []byte
	eof bool
}

type sliceWriter struct{ p []byte }

func (s *sliceWriter) Write(b []byte) (int, error) {
	s.p = append(s.p, b...)
	return len(b), nil
}

// NewChunkedReader returns a reader that removes the chunked transfer coding
// from r. It returns io.EOF after the last chunk, ErrBadChunk on malformed
// input and io.ErrUnexpectedEOF when r ends before the last chunk. A body
// whose first chunk-size line is not one is read as it is, to its end
// (see Dechunker).
func NewChunkedReader(r io.Reader) io.Reader {
	c := &chunkedReader{r: r, buf: make([]byte, 32<<10)}
	c.d.W = &c.out
	return c
}

func (c *chunkedReader) Read(p []byte) (int, error) {
	for len(c.out.p) == 0 {
		if c.d.err != nil {
			return 0, c.d.err
		}
		if c.d.Done() {
			return 0, io.EOF
		}
		if c.eof {
			if c.d.Raw() {
				return 0, io.EOF
			}
			return 0, io.ErrUnexpectedEOF
		}
		n, err := c.r.Read(c.buf)
		if n > 0 {
			c.out.p = c.out.p[:0]
			c.d.Write(c.buf[:n])
		}
		if err == io.EOF {
			c.eof = true
		} else if err != nil {
			return 0, err
		}
	}
	n := copy(p, c.out.p)
	c.out.p = c.out.p[n:]
	return n, nil
}
