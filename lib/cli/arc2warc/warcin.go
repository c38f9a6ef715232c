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
//
// With warn set (arc2warc without --strict), bytes that are no WARC record
// are skipped up to the next line starting "WARC/", and a record whose
// block the input cuts short is left out when it is small enough to be
// held whole (a larger one is an error: its member is partly written);
// each is reported through warn and counted in skipped.
func recompress(in io.Reader, display string, s *sink, warn func(string)) (n, skipped int, err error) {
	mr, err := compio.NewMemberReader(in)
	if err != nil {
		return 0, 0, fmt.Errorf("%s: %w", display, err)
	}
	cr := &countReader{r: &memberStream{mr: mr}}
	br := bufio.NewReaderSize(cr, 256<<10)
	pos := func() int64 { return cr.n - int64(br.Buffered()) }
	for {
		// the CRLF CRLF after a block, and any extra blank lines
		for {
			b, err := br.Peek(1)
			if err == io.EOF {
				return n, skipped, nil
			}
			if err != nil {
				return n, skipped, fmt.Errorf("%s: at decompressed offset %d: %w", display, pos(), err)
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
			if warn == nil {
				return n, skipped, fail("not a WARC record (starts with %q)", b)
			}
			k, err := skipToRecord(br)
			if err != nil && err != io.EOF {
				return n, skipped, fail("%v", err)
			}
			skipped++
			if err == io.EOF {
				warn(fmt.Sprintf("%s: at decompressed offset %d: %d bytes that are no WARC record (starting %q) skipped to the end (skipped)", display, start, k, b))
				return n, skipped, nil
			}
			warn(fmt.Sprintf("%s: at decompressed offset %d: %d bytes that are no WARC record (starting %q) skipped up to the next record (skipped)", display, start, k, b))
			continue
		}
		head, length, typ, date, err := readWARCHead(br)
		if err != nil {
			return n, skipped, fail("%v", err)
		}
		block := &exactReader{r: io.LimitReader(br, length), left: length}
		err = s.WriteRaw(typ, date, head, block, length)
		// a block cut short is an error even where the writer took the
		// short read for the end (the parallel gzip of a large record)
		if block.err != nil {
			if warn != nil && int64(len(head))+length+4 <= inlineOver {
				// held whole: nothing of it was written
				warn(fmt.Sprintf("%s: record at decompressed offset %d: %v: left out (skipped)", display, start, block.err))
				skipped++
				continue
			}
			return n, skipped, fail("%v", block.err)
		}
		if err != nil {
			return n, skipped, fail("%v", err)
		}
		n++
	}
}

// skipToRecord reads up to the next line that starts with "WARC/" and
// returns how many bytes it passed; io.EOF when there is none.
func skipToRecord(br *bufio.Reader) (int64, error) {
	var k int64
	for {
		line, err := br.ReadSlice('\n')
		k += int64(len(line))
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			return k, err
		}
		if b, _ := br.Peek(5); string(b) == "WARC/" {
			return k, nil
		}
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
