package htcache

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// The pre-3.31 cache, as reconstructed from htscache.c before its removal
// (xroche/httrack commit 7a02d5e4; cache_add, cache_readex_old, cache_init,
// cache_wstr/cache_rstr).
//
// Strings are written "<decimal length>\n<bytes>" with no terminator; numbers
// are strings of decimal digits.
//
// new.ndx:
//
//	<string>"CACHE-1.x" <string>date
//	then per entry: <string>(address "\n" path "\n") <decimal position> "\n"
//
// The position is the entry's offset in new.dat, negated when the body was
// not stored there (it is then the file named by the local-name field).
//
// new.dat:
//
//	<string>"CACHE-1.x"
//	then per entry: status code, size, message, content type, charset (1.3+),
//	last-modified, etag, location, content-disposition (1.2+), address,
//	path, local name (1.4+), full HTTP headers (1.5+), "HTS", stored size,
//	then that many bytes of body.
//
// HTTrack's reader caps every string at 32768 bytes.

// ErrNdxVersion is returned for ndx caches this package cannot read: the
// CACHE-1.0 layout (a raw C structure dump whose size depends on the
// compiler) and versions after 1.5, which never existed.
var ErrNdxVersion = errors.New("unsupported ndx/dat cache version")

const maxNdxString = 32768

// NdxReader reads a pre-3.31 hts-cache/new.ndx + new.dat pair.
type NdxReader struct {
	dat     io.ReaderAt
	name    string
	cfg     config
	br      *bufio.Reader
	version int
	// Date is the date string stored in the index (GMT, when the crawl
	// started).
	Date string
	off  int64 // offset in the ndx (for errors)
	done bool
}

// NewNdxReader reads the index ndx (streamed) and the data file dat; name
// is the index's file name, for errors.
func NewNdxReader(ndx io.Reader, dat io.ReaderAt, name string, opts ...Option) (*NdxReader, error) {
	n := &NdxReader{dat: dat, name: name, cfg: newConfig(opts), br: bufio.NewReaderSize(ndx, 64<<10)}
	first, err := n.readString()
	if err != nil {
		return nil, fmt.Errorf("%s: offset 0: bad index header: %w", name, err)
	}
	v, ok := strings.CutPrefix(first, "CACHE-1.")
	if !ok {
		if strings.HasPrefix(first, "CACHE-") {
			return nil, fmt.Errorf("%s: %q: %w", name, first, ErrNdxVersion)
		}
		return nil, fmt.Errorf("%s: CACHE-1.0 layout (raw C structures): %w", name, ErrNdxVersion)
	}
	n.version, err = strconv.Atoi(v)
	if err != nil || n.version < 1 || n.version > 5 {
		return nil, fmt.Errorf("%s: %q: %w", name, first, ErrNdxVersion)
	}
	if n.Date, err = n.readString(); err != nil {
		return nil, fmt.Errorf("%s: offset %d: bad index date: %w", name, n.off, err)
	}
	// The data file starts with the same version string.
	var head [32]byte
	k, _ := dat.ReadAt(head[:], 0)
	if !bytes.Contains(head[:k], []byte("\n"+first)) {
		return nil, fmt.Errorf("%s: data file does not start with %q", name, first)
	}
	return n, nil
}

// Version returns the minor version (1 to 5) of the CACHE-1.x layout.
func (n *NdxReader) Version() int { return n.version }

// readString reads "<len>\n<bytes>" from the index.
func (n *NdxReader) readString() (string, error) {
	line, err := n.readLine()
	if err != nil {
		return "", err
	}
	l, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || l < 0 || l > maxNdxString {
		return "", fmt.Errorf("bad string length %q", clip(line, 32))
	}
	b := make([]byte, l)
	if _, err := io.ReadFull(n.br, b); err != nil {
		return "", io.ErrUnexpectedEOF
	}
	n.off += int64(l)
	return string(b), nil
}

// readLine reads one LF-terminated line of at most maxNdxString bytes.
func (n *NdxReader) readLine() (string, error) {
	var b []byte
	for {
		frag, err := n.br.ReadSlice('\n')
		b = append(b, frag...)
		if len(b) > maxNdxString+2 {
			return "", fmt.Errorf("line longer than %d bytes", maxNdxString)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		n.off += int64(len(b))
		if err != nil {
			if err == io.EOF && len(b) > 0 {
				return "", io.ErrUnexpectedEOF
			}
			return "", err
		}
		return strings.TrimRight(string(b), "\r\n"), nil
	}
}

// Next returns the next entry of the index, or io.EOF.
func (n *NdxReader) Next() (*Entry, error) {
	for !n.done {
		start := n.off
		// HTTrack's loader skips the length line and reads three lines.
		if _, err := n.readLine(); err != nil {
			n.done = true
			if err == io.EOF {
				return nil, io.EOF
			}
			if err := n.cfg.problem(n.name, start, false, true, "incomplete index entry: "+err.Error()); err != nil {
				return nil, err
			}
			return nil, io.EOF
		}
		adr, err1 := n.readLine()
		fil, err2 := n.readLine()
		pos, err3 := n.readLine()
		if err := errors.Join(err1, err2, err3); err != nil {
			n.done = true
			if err := n.cfg.problem(n.name, start, false, true, "incomplete index entry"); err != nil {
				return nil, err
			}
			return nil, io.EOF
		}
		p, err := strconv.ParseInt(strings.TrimSpace(pos), 10, 64)
		if err != nil || p == 0 || p == -1<<63 {
			if err := n.cfg.problem(n.name, start, false, true, fmt.Sprintf("bad data position %q", clip(pos, 32))); err != nil {
				return nil, err
			}
			continue
		}
		e, err := n.readDat(adr, fil, p)
		if err != nil {
			if err := n.cfg.problem(n.name, start, false, true, err.Error()); err != nil {
				return nil, err
			}
			continue
		}
		return e, nil
	}
	return nil, io.EOF
}

// readDat reads the data file record at |pos|.
func (n *NdxReader) readDat(adr, fil string, pos int64) (*Entry, error) {
	at := pos
	if at < 0 {
		at = -at
	}
	cr := &countReader{r: io.NewSectionReader(n.dat, at, 1<<62)}
	br := bufio.NewReaderSize(cr, 4096)
	str := func() (string, error) {
		line, err := br.ReadString('\n')
		if err != nil || len(line) > 12 {
			return "", fmt.Errorf("data record at offset %d: bad string length %q", at, clip(line, 16))
		}
		l, err := strconv.Atoi(strings.TrimSpace(line))
		if err != nil || l < 0 || l > maxNdxString {
			return "", fmt.Errorf("data record at offset %d: bad string length %q", at, clip(line, 16))
		}
		b := make([]byte, l)
		if _, err := io.ReadFull(br, b); err != nil {
			return "", fmt.Errorf("data record at offset %d: truncated", at)
		}
		return string(b), nil
	}
	num := func() (int64, error) {
		s, err := str()
		if err != nil {
			return 0, err
		}
		return atoiPrefix(s), nil
	}
	m := Meta{Size: -1}
	var err error
	var code int64
	fields := []*string{&m.StatusMessage, &m.ContentType}
	if code, err = num(); err != nil {
		return nil, err
	}
	if code < -999 || code > 999 {
		return nil, fmt.Errorf("data record at offset %d: bad status code %d", at, code)
	}
	m.StatusCode = int(code)
	if m.Size, err = num(); err != nil {
		return nil, err
	}
	if n.version >= 3 {
		fields = append(fields, &m.Charset)
	}
	fields = append(fields, &m.LastModified, &m.ETag, &m.Location)
	if n.version >= 2 {
		fields = append(fields, &m.ContentDisposition)
	}
	if n.version >= 4 {
		fields = append(fields, &m.Addr, &m.Fil, &m.Save)
	}
	var headers string
	if n.version >= 5 {
		fields = append(fields, &headers)
	}
	for _, f := range fields {
		if *f, err = str(); err != nil {
			return nil, err
		}
	}
	check, err := str()
	if err != nil {
		return nil, err
	}
	if check != "HTS" {
		return nil, fmt.Errorf("data record at offset %d: header does not end with \"HTS\"", at)
	}
	stored, err := num()
	if err != nil {
		return nil, err
	}
	if stored < 0 {
		return nil, fmt.Errorf("data record at offset %d: bad stored size %d", at, stored)
	}
	dataOff := at + cr.n - int64(br.Buffered())
	if m.Addr == "" {
		m.Addr = adr
	}
	if m.Fil == "" {
		m.Fil = fil
	}
	m.LineCode, m.LineReason = m.StatusCode, m.StatusMessage
	m.InCache = pos > 0
	if stored > 0 && m.Size != stored {
		m.Size = stored
	}
	if headers != "" {
		for _, l := range strings.Split(strings.ReplaceAll(headers, "\r\n", "\n"), "\n") {
			if name, v, ok := strings.Cut(l, ":"); ok {
				m.Original.Add(name, strings.TrimLeft(v, " \t"))
			} else if strings.HasPrefix(l, "HTTP/") {
				m.Proto, _, _ = strings.Cut(l, " ")
			}
		}
	}
	name := adr + fil
	if !hasScheme(adr) {
		name = "http://" + name
	}
	e := &Entry{Name: name, Offset: at, Meta: m, dataOffset: dataOff}
	if m.InCache {
		e.CompressedSize, e.StoredSize = stored, stored
		var probe [1]byte
		if stored > 0 {
			if stored > 1<<63-1-dataOff {
				return nil, fmt.Errorf("data record at offset %d: body of %d bytes runs past the end of the data file", at, stored)
			}
			if k, _ := n.dat.ReadAt(probe[:], dataOff+stored-1); k != 1 {
				return nil, fmt.Errorf("data record at offset %d: body of %d bytes runs past the end of the data file", at, stored)
			}
		}
		e.open = func() (io.ReadCloser, error) {
			return io.NopCloser(io.NewSectionReader(n.dat, dataOff, stored)), nil
		}
	}
	return e, nil
}
