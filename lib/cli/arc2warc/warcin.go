package arc2warc

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/arcport/arcport/lib/internal/compio"
	"github.com/arcport/arcport/lib/record"
)

// memberStream reads the decompressed members of a stream one after the
// other, as one stream: a whole-file gzip, a gzip member per record and a
// plain file read alike.
type memberStream struct {
	mr      *compio.MemberReader
	started bool
}

func (m *memberStream) Read(p []byte) (int, error) {
	for {
		if !m.started {
			if _, err := m.mr.Next(); err != nil {
				return 0, err
			}
			m.started = true
		}
		n, err := m.mr.Read(p)
		if err == io.EOF {
			m.started = false
			if n > 0 {
				return n, nil
			}
			continue
		}
		return n, err
	}
}

// countReader counts the decompressed bytes read, for error offsets.
type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// recompress copies the records of a WARC input (plain, gzip in any
// member layout, zstd) to s as they are: the same header and block bytes,
// each record one member of the output's compression (warcio recompress),
// followed by CRLF CRLF. Offsets in errors are of the decompressed input.
func recompress(in io.Reader, display string, s *sink) (int, error) {
	mr, err := compio.NewMemberReader(in)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", display, err)
	}
	cr := &countReader{r: &memberStream{mr: mr}}
	br := bufio.NewReaderSize(cr, 256<<10)
	pos := func() int64 { return cr.n - int64(br.Buffered()) }
	n := 0
	for {
		// the CRLF CRLF after a block, and any extra blank lines
		for {
			b, err := br.Peek(1)
			if err == io.EOF {
				return n, nil
			}
			if err != nil {
				return n, fmt.Errorf("%s: at decompressed offset %d: %w", display, pos(), err)
			}
			if b[0] != '\r' && b[0] != '\n' {
				break
			}
			br.ReadByte()
		}
		start := pos()
		fail := func(format string, a ...any) error {
			return fmt.Errorf("%s: record at decompressed offset %d: %s", display, start, fmt.Sprintf(format, a...))
		}
		if b, _ := br.Peek(5); string(b) != "WARC/" {
			b, _ := br.Peek(16)
			return n, fail("not a WARC record (starts with %q)", b)
		}
		head, length, typ, date, err := readWARCHead(br)
		if err != nil {
			return n, fail("%v", err)
		}
		block := &exactReader{r: io.LimitReader(br, length), left: length}
		err = s.WriteRaw(typ, date, head, block, length)
		// a block cut short is an error even where the writer took the
		// short read for the end (the parallel gzip of a large record)
		if block.err != nil {
			return n, fail("%v", block.err)
		}
		if err != nil {
			return n, fail("%v", err)
		}
		n++
	}
}

// readWARCHead reads a WARC header up to and including its blank line and
// returns it as it is, with its Content-Length, WARC-Type and WARC-Date.
func readWARCHead(br *bufio.Reader) (head []byte, length int64, typ record.Type, date string, err error) {
	length = -1
	for first := true; ; first = false {
		line, err := br.ReadSlice('\n')
		for err == bufio.ErrBufferFull && len(head) < 1<<20 {
			head = append(head, line...)
			line, err = br.ReadSlice('\n')
		}
		head = append(head, line...)
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return head, 0, "", "", fmt.Errorf("WARC header: %w", err)
		}
		if len(head) > 1<<20 {
			return head, 0, "", "", fmt.Errorf("WARC header longer than 1 MiB")
		}
		if string(line) == "\r\n" || string(line) == "\n" {
			break
		}
		if first {
			continue
		}
		name, value, ok := strings.Cut(strings.TrimRight(string(line), "\r\n"), ":")
		if !ok {
			continue
		}
		value = strings.TrimSpace(value)
		switch strings.ToLower(strings.TrimSpace(name)) {
		case "content-length":
			if length, err = strconv.ParseInt(value, 10, 64); err != nil || length < 0 {
				return head, 0, "", "", fmt.Errorf("bad Content-Length %q", value)
			}
		case "warc-type":
			typ = record.Type(value)
		case "warc-date":
			date = value
		}
	}
	if length < 0 {
		return head, 0, "", "", fmt.Errorf("WARC header without Content-Length")
	}
	return head, length, typ, date, nil
}

// exactReader is a block of left bytes; an early end is an error, kept
// for the message.
type exactReader struct {
	r    io.Reader
	left int64
	err  error
}

func (e *exactReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	e.left -= int64(n)
	if err == io.EOF && e.left > 0 {
		e.err = fmt.Errorf("block cut short, %d bytes missing", e.left)
		return n, io.ErrUnexpectedEOF
	}
	if err != nil && err != io.EOF && e.err == nil {
		e.err = err
	}
	return n, err
}
