package waczpack

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/arcport/arcport/lib/httpmsg"
	"github.com/arcport/arcport/lib/internal/cliutil"
	"github.com/arcport/arcport/lib/internal/compio"
	"github.com/arcport/arcport/lib/store"
)

// extractCommand is `waczpack extract FILE OFFSET` (warcio extract): the
// record whose gzip member, zstd frame or plain bytes start at OFFSET.
func extractCommand(stdout io.Writer) *cli.Command {
	return &cli.Command{
		Name:      "extract",
		Usage:     "print the record at OFFSET of a WARC (like warcio extract); reads only that record",
		ArgsUsage: "FILE.warc[.gz|.zst] OFFSET",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "headers", Usage: "print only the WARC header and the HTTP head"},
			&cli.BoolFlag{Name: "payload", Usage: "print only the HTTP payload (transfer coding removed), or the block of a non-HTTP record"},
			&cli.BoolFlag{Name: "decode", Usage: "with --payload: undo the content coding too (gzip, br, ...), as warcio's --payload does"},
		},
		Action: func(c *cli.Context) error { return extract(c, stdout) },
	}
}

// ExtractMode says what extract prints of a record.
type ExtractMode int

// What extract prints.
const (
	// ExtractRecord prints the WARC header and the block as stored.
	ExtractRecord ExtractMode = iota
	// ExtractHeaders prints the WARC header and, for HTTP records, the
	// HTTP head, each with the blank line that ends it.
	ExtractHeaders
	// ExtractPayload prints the HTTP entity body with the chunked
	// transfer coding removed (the block of a non-HTTP record).
	ExtractPayload
)

func extract(c *cli.Context, stdout io.Writer) error {
	if c.NArg() != 2 {
		return cliutil.Usagef("extract needs FILE and OFFSET")
	}
	name := c.Args().Get(0)
	off, err := strconv.ParseInt(c.Args().Get(1), 10, 64)
	if err != nil || off < 0 {
		return cliutil.Usagef("extract: bad OFFSET %q (a byte offset, as in a CDX index)", c.Args().Get(1))
	}
	mode := ExtractRecord
	switch {
	case c.Bool("headers") && c.Bool("payload"):
		return cliutil.Usagef("extract: --headers and --payload exclude each other")
	case c.Bool("headers"):
		mode = ExtractHeaders
	case c.Bool("payload"):
		mode = ExtractPayload
	}
	if c.Bool("decode") && mode != ExtractPayload {
		return cliutil.Usagef("extract: --decode goes with --payload")
	}
	if name == "-" {
		return cliutil.Usagef("extract reads FILE in place: standard input cannot be read at an offset")
	}
	ra, err := cliutil.OpenAt(name)
	if err != nil {
		return err
	}
	defer ra.Close()
	shown := store.Redact(name)
	if off >= ra.Size() {
		return fmt.Errorf("%s: offset %d is at or past the end (%d bytes)", shown, off, ra.Size())
	}
	// Ranged reads growing from 16 KiB: a small record costs one block of
	// a remote object rather than the reader's whole read-ahead.
	var in io.Reader = &growingReader{r: io.NewSectionReader(ra, off, ra.Size()-off), n: 16 << 10}
	// a .warc.zst whose frames need the dictionary at its start: read
	// the dictionary frame first, as if it preceded the record's frame
	if dict, err := zstdDictFrame(ra, off); err != nil {
		return fmt.Errorf("%s: %w", shown, err)
	} else if dict != nil {
		in = io.MultiReader(bytes.NewReader(dict), in)
	}
	bw := bufio.NewWriterSize(stdout, 64<<10)
	if err := ExtractTo(bw, in, mode, c.Bool("decode")); err != nil {
		bw.Flush()
		return fmt.Errorf("%s: record at offset %d: %w", shown, off, err)
	}
	return bw.Flush()
}

// zstdDictFrame returns the IIPC .warc.zst dictionary frame (a skippable
// frame, magic 0x184D2A5D) at the start of ra when a zstd frame starts at
// off and the dictionary frame lies before it; nil otherwise.
func zstdDictFrame(ra io.ReaderAt, off int64) ([]byte, error) {
	var h [8]byte
	if off < 8 {
		return nil, nil
	}
	// only a zstd frame at off needs it (the start of a gzip or plain
	// file is not read: one request fewer for a remote one)
	if n, _ := ra.ReadAt(h[:4], off); n < 4 || binary.LittleEndian.Uint32(h[:4]) != 0xFD2FB528 {
		return nil, nil
	}
	if n, _ := ra.ReadAt(h[:], 0); n < 8 || binary.LittleEndian.Uint32(h[:4]) != 0x184D2A5D {
		return nil, nil
	}
	size := int64(binary.LittleEndian.Uint32(h[4:]))
	if size > compio.MaxDictSize || off < 8+size {
		return nil, nil
	}
	frame := make([]byte, 8+size)
	if _, err := ra.ReadAt(frame, 0); err != nil {
		return nil, fmt.Errorf("zstd dictionary frame: %w", err)
	}
	return frame, nil
}

// growingReader hands out at most n bytes a Read, n doubling up to 1 MiB,
// so that the buffered readers in front of it read no further ahead than
// they need at first.
type growingReader struct {
	r io.Reader
	n int
}

func (g *growingReader) Read(p []byte) (int, error) {
	if len(p) > g.n {
		p = p[:g.n]
	}
	if g.n < 1<<20 {
		g.n *= 2
	}
	return g.r.Read(p)
}

// errNoRecord is returned when OFFSET does not start a WARC record.
var errNoRecord = errors.New("no WARC record starts here (an offset must be that of a record's gzip member, zstd frame or first line)")

// ExtractTo reads the first record of r (a WARC stream: plain, or starting
// with the record's gzip member or zstd frame) and writes to w what mode
// asks for, the header bytes as stored. With decode, ExtractPayload undoes
// the HTTP content coding too. It reads no further than the record (and,
// compressed, the end of its member, to check the CRC).
func ExtractTo(w io.Writer, r io.Reader, mode ExtractMode, decode bool) error {
	mr, err := compio.NewMemberReader(r)
	if err != nil {
		return err
	}
	if _, err := mr.Next(); err != nil {
		if err == io.EOF {
			return errNoRecord
		}
		return err
	}
	br := bufio.NewReaderSize(mr, 32<<10)
	// tolerate the blank lines that end a previous record in a plain file
	for {
		b, err := br.Peek(1)
		if err != nil {
			if err == io.EOF {
				return errNoRecord
			}
			return err
		}
		if b[0] != '\r' && b[0] != '\n' {
			break
		}
		br.ReadByte()
	}
	if b, _ := br.Peek(5); string(b) != "WARC/" {
		if line, _ := br.Peek(512); isARCLine(line) {
			return errors.New("an ARC record: extract reads WARC records only (arc2warc converts ARC to WARC)")
		}
		return errNoRecord
	}
	head, err := readRawHead(br, 1<<20)
	if err != nil {
		return fmt.Errorf("WARC header: %w", err)
	}
	length, ctype, rtype := int64(-1), "", ""
	for _, line := range bytes.Split(head, []byte("\n"))[1:] {
		name, value, ok := strings.Cut(strings.TrimRight(string(line), "\r"), ":")
		if !ok {
			continue
		}
		value = strings.TrimSpace(value)
		switch strings.ToLower(strings.TrimSpace(name)) {
		case "content-length":
			if length, err = strconv.ParseInt(value, 10, 64); err != nil || length < 0 {
				return fmt.Errorf("bad Content-Length %q", value)
			}
		case "content-type":
			ctype = value
		case "warc-type":
			rtype = value
		}
	}
	if length < 0 {
		return errors.New("WARC header without Content-Length")
	}
	block := &exactReader{r: io.LimitReader(br, length), left: length}
	isHTTP := httpmsg.MediaType(ctype) == "application/http" && length > 0 &&
		(rtype == "response" || rtype == "request" || rtype == "revisit")
	var httpHead []byte
	var h *httpmsg.Head
	var rest io.Reader = block // the block after what was parsed of it
	if isHTTP && mode != ExtractRecord {
		hbr := bufio.NewReaderSize(block, 32<<10)
		rest = hbr
		httpHead, err = readRawHead(hbr, httpmsg.MaxHeadSize)
		if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("HTTP head: %w", err)
		}
		if h, err = httpmsg.ParseHead(httpHead); err != nil {
			return fmt.Errorf("HTTP head: %w", err)
		}
	}
	switch mode {
	case ExtractRecord:
		if _, err := w.Write(head); err != nil {
			return err
		}
		if _, err := io.Copy(w, block); err != nil {
			return err
		}
	case ExtractHeaders:
		if _, err := w.Write(head); err != nil {
			return err
		}
		if _, err := w.Write(httpHead); err != nil {
			return err
		}
		if _, err := io.Copy(io.Discard, rest); err != nil {
			return err
		}
	case ExtractPayload:
		body := rest
		if h != nil {
			if h.Chunked() {
				body = httpmsg.NewChunkedReader(body)
			}
			if decode {
				// an empty body (a revisit, a HEAD) has nothing to decode
				pb := bufio.NewReaderSize(body, 32<<10)
				body = pb
				codings := h.ContentEncoding()
				if _, err := pb.Peek(1); err == io.EOF {
					codings = nil
				}
				for i := len(codings) - 1; i >= 0; i-- {
					dec, err := httpmsg.Decoder(body, codings[i])
					if err != nil {
						return fmt.Errorf("content coding %s: %w", codings[i], err)
					}
					defer dec.Close()
					body = dec
				}
			}
		}
		if _, err := io.Copy(w, body); err != nil {
			return err
		}
		if _, err := io.Copy(io.Discard, rest); err != nil {
			return err
		}
	}
	// A compressed record: read its member to the end (a few bytes, CRLF
	// CRLF) so that the gzip CRC is checked; stop early in a member that
	// holds more records (a whole-file gzip).
	if mr.Format() != compio.Plain {
		if _, err := io.CopyN(io.Discard, br, 64<<10); err != nil && err != io.EOF {
			return err
		}
	}
	return nil
}

// isARCLine reports whether b starts with an ARC URL-record or version
// block line: a URL, then four or more space-separated fields.
func isARCLine(b []byte) bool {
	line, _, _ := bytes.Cut(b, []byte("\n"))
	f := strings.Fields(string(line))
	return len(f) >= 5 && strings.Contains(f[0], ":")
}

// exactReader is a block of left bytes: an early end of the input is
// io.ErrUnexpectedEOF, not a short block.
type exactReader struct {
	r    io.Reader
	left int64
}

func (e *exactReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	e.left -= int64(n)
	if err == io.EOF && e.left > 0 {
		return n, fmt.Errorf("block cut short, %d bytes missing: %w", e.left, io.ErrUnexpectedEOF)
	}
	return n, err
}

// readRawHead reads lines up to and including the first empty one (CRLF
// or LF) and returns them as they are, at most max bytes. A head that the
// input ends inside is returned with io.ErrUnexpectedEOF.
func readRawHead(br *bufio.Reader, max int) ([]byte, error) {
	var head []byte
	for {
		line, err := br.ReadSlice('\n')
		head = append(head, line...)
		if len(head) > max {
			return head, fmt.Errorf("longer than %d bytes", max)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			if err == io.EOF {
				if len(head) == 0 {
					return nil, io.ErrUnexpectedEOF
				}
				return head, fmt.Errorf("cut short: %w", io.ErrUnexpectedEOF)
			}
			return head, err
		}
		if string(line) == "\r\n" || string(line) == "\n" {
			return head, nil
		}
	}
}
