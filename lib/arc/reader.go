package arc

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unsafe"

	"github.com/arcport/arcport/lib/httpmsg"
	"github.com/arcport/arcport/lib/internal/compio"
	"github.com/arcport/arcport/lib/record"
)

const (
	minBufSize     = 128 << 10
	defaultBufSize = 1 << 20
	// lookahead is how far past a block's declared end the reader looks
	// for the next URL-record line when checking the declared length.
	lookahead = 16 << 10
)

// Content types the reader assigns in WARC vocabulary.
const (
	// HTTPResponseType is the Content-Type of a response record holding an
	// HTTP response (WARC 1.1 section 6.3).
	HTTPResponseType = "application/http;msgtype=response"
	// DNSType is the Content-Type of a dns: resource record.
	DNSType = "text/dns"
	// UnknownType is used for captures whose ARC content type is absent or
	// "no-type".
	UnknownType = "application/octet-stream"
)

// ErrNotARC is returned when the input does not start like an ARC file (for
// instance when it is a WARC file).
var ErrNotARC = errors.New("not an ARC file")

// Stats counts what a Reader did.
type Stats struct {
	Records  int64 // records returned by Next (version blocks included)
	Repaired int64 // problems repaired
	Skipped  int64 // problems where bytes or records were dropped
	// Damaged counts problems neither repaired nor skipped: the record
	// is returned as far as it can be salvaged (a block cut short by the
	// end of the file, a block whose length is not a number of bytes).
	Damaged int64
}

// Reader reads ARC records. Create it with NewReader.
type Reader struct {
	cfg      config
	mr       *compio.MemberReader
	j        joiner
	br       *bufio.Reader
	version  int    // 1 or 2 once known
	lastDate string // WARC-Date of the last record, fallback for bad dates
	started  bool   // a record (or junk) was seen
	broken   bool   // the last block was cut short by unreadable data
	prevFD   bool   // the previous record was a version block
	prev     *record.Record
	blk      block
	ul       urlLine
	scratch  []byte
	stats    Stats
	err      error
}

// NewReader returns a reader for the ARC file read from r, which may be
// plain, gzip-compressed per record, or gzip-compressed as a whole.
func NewReader(r io.Reader, opts ...Option) (*Reader, error) {
	c := config{policy: record.Warn, name: "-", bufSize: defaultBufSize}
	for _, o := range opts {
		o(&c)
	}
	mr, err := compio.NewMemberReader(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.name, err)
	}
	if mr.Format() == compio.Zstd {
		return nil, fmt.Errorf("%s: %w: zstd-compressed ARC files do not exist", c.name, ErrNotARC)
	}
	rd := &Reader{cfg: c, mr: mr}
	rd.j = joiner{mr: mr, rd: rd, plain: mr.Format() == compio.Plain}
	rd.br = bufio.NewReaderSize(&rd.j, c.bufSize)
	rd.blk.rd = rd
	return rd, nil
}

// Format returns the compression found: compio.Plain or compio.Gzip.
func (r *Reader) Format() compio.Format { return r.mr.Format() }

// Version returns the ARC version (1 or 2) of the last version block read,
// or 0 before any record.
func (r *Reader) Version() int { return r.version }

// Stats returns the counts so far.
func (r *Reader) Stats() Stats { return r.stats }

// pos returns the uncompressed offset of the next unread byte.
func (r *Reader) pos() int64 { return r.j.n - int64(r.br.Buffered()) }

// Next returns the next record: a version block (Type record.ARCFiledesc)
// or a capture (record.Response or record.Resource). The record's Block is
// valid until the following call to Next. It returns io.EOF at the end.
func (r *Reader) Next() (*record.Record, error) {
	if r.err != nil {
		return nil, r.err
	}
	rec, err := r.next()
	if err != nil {
		r.err = err
		return nil, err
	}
	r.stats.Records++
	return rec, nil
}

// problem reports a defect at uncompressed offset u. Under record.Fail it
// returns the problem as an error.
func (r *Reader) problem(u int64, repaired, skipped bool, format string, args ...any) error {
	off, exact := r.j.offsetFor(u)
	msg := fmt.Sprintf(format, args...)
	if !exact {
		msg += fmt.Sprintf(" (uncompressed offset %d)", u)
	}
	return r.report(&record.Problem{File: r.cfg.name, Offset: off, Msg: msg, Repaired: repaired, Skipped: skipped})
}

func (r *Reader) report(p *record.Problem) error {
	if p.Repaired {
		r.stats.Repaired++
	}
	if p.Skipped {
		r.stats.Skipped++
	}
	if !p.Repaired && !p.Skipped {
		r.stats.Damaged++
	}
	switch r.cfg.policy {
	case record.Fail:
		if perr := r.j.corruptMember(); perr != nil {
			return perr
		}
		return p
	case record.Warn:
		if r.cfg.problems != nil {
			r.cfg.problems(p)
		}
	}
	return nil
}

// ioErr wraps a read error with the file name (compio errors carry their
// own offsets).
func (r *Reader) ioErr(err error) error {
	var p *record.Problem
	if errors.As(err, &p) {
		return err
	}
	if r.j.plain {
		return fmt.Errorf("%s: read error at offset %d: %w", r.cfg.name, r.pos(), err)
	}
	return fmt.Errorf("%s: %w", r.cfg.name, err)
}

// finishEOF completes the last record's DiskLength and returns io.EOF.
func (r *Reader) finishEOF() error {
	if r.prev != nil {
		if d := r.mr.Offset() - r.prev.Offset; d > 0 {
			r.prev.DiskLength = d
		}
		r.prev = nil
	}
	return io.EOF
}

// skipNewlines consumes "\n" and "\r\n" and returns how many it found.
func (r *Reader) skipNewlines() (int, error) {
	n := 0
	for {
		b, err := r.br.Peek(2)
		switch {
		case len(b) >= 1 && b[0] == '\n':
			r.br.Discard(1)
		case len(b) == 2 && b[0] == '\r' && b[1] == '\n':
			r.br.Discard(2)
		default:
			if len(b) == 0 && err == errBreak {
				continue
			}
			if len(b) == 0 && err != nil {
				return n, err
			}
			return n, nil
		}
		n++
	}
}

// bstr returns the bytes of an immutable string-backed slice as a string
// without copying. Only used on slices of a line converted to string.
func bstr(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// sbytes returns the bytes of s without copying; they must not be changed.
func sbytes(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

func (r *Reader) next() (*record.Record, error) {
	if r.blk.active {
		if err := r.blk.finish(); err != nil {
			return nil, err
		}
	}
	nl, err := r.skipNewlines()
	if err != nil && err != io.EOF {
		return nil, r.ioErr(err)
	}
	if r.broken {
		nl, r.broken = max(nl, 1), false
	}
	junk := int64(-1) // start of bytes being skipped
	for {
		start := r.pos()
		raw, err := r.br.ReadSlice('\n')
		if err == errBreak { // a member gave out: its bytes are junk
			if len(raw) == 0 {
				continue
			}
			err = nil
		}
		if len(raw) == 0 {
			if err == io.EOF {
				if junk >= 0 {
					if perr := r.problem(junk, false, true, "skipped %d bytes that are not ARC records", start-junk); perr != nil {
						return nil, perr
					}
				}
				return nil, r.finishEOF()
			}
			if err != nil {
				return nil, r.ioErr(err)
			}
		}
		if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
			return nil, r.ioErr(err)
		}
		var v int
		if err != bufio.ErrBufferFull {
			if v = r.ul.parseLine(raw, r.version); v == 0 && r.version != 0 {
				v = r.ul.parseLine(raw, 3-r.version)
			}
			if v == 0 {
				// In a gzip file a record starts a member: try the
				// part of the line after a member boundary.
				if cut := r.j.boundaryIn(start, start+int64(len(raw))); cut > 0 {
					if v = r.ul.parseLine(raw[cut:], r.version); v == 0 {
						v = r.ul.parseLine(raw[cut:], 0)
					}
					if v != 0 {
						if junk < 0 {
							junk = start
						}
						raw = raw[cut:]
						start += cut
					}
				}
			}
		}
		if v == 0 {
			if !r.started && start == 0 && bytes.HasPrefix(raw, []byte("WARC/")) {
				return nil, fmt.Errorf("%s: %w: it starts with a WARC record", r.cfg.name, ErrNotARC)
			}
			if junk < 0 {
				junk = start
				if r.cfg.policy == record.Fail {
					return nil, r.problem(start, false, true, "not a URL-record line: %q", clip(raw, 80))
				}
			}
			r.started = true
			continue
		}
		line := string(raw)
		if junk >= 0 {
			if perr := r.problem(junk, false, true, "skipped %d bytes that are not ARC records", start-junk); perr != nil {
				return nil, perr
			}
			nl = 1 // separators before junk do not matter
		}
		rec, skip, err := r.record(line, v, start, nl)
		if err != nil {
			return nil, err
		}
		if skip {
			junk = -1
			nl, err = r.skipNewlines()
			if err != nil && err != io.EOF {
				return nil, r.ioErr(err)
			}
			continue
		}
		return rec, nil
	}
}

// clip returns at most n bytes of b, for messages.
func clip(b []byte, n int) []byte {
	b, _ = trimEOL(b)
	if len(b) > n {
		return b[:n]
	}
	return b
}

// arcRecord groups a record's allocations into one.
type arcRecord struct {
	rec    record.Record
	info   record.ARCInfo
	fields [10]record.Field
}

// record builds the record for URL-record line (version v) starting at
// uncompressed offset start, preceded by nl newlines. skip is true when the
// record was dropped (and its bytes consumed).
func (r *Reader) record(line string, v int, start int64, nl int) (rec *record.Record, skip bool, err error) {
	lb := sbytes(line)
	ul := &r.ul
	isFD := hasPrefixFold(line, "filedesc:")
	if isFD {
		// The version block's first byte is its version number.
		fv := 0
		if b, _ := r.br.Peek(1); len(b) == 1 && (b[0] == '1' || b[0] == '2') {
			fv = int(b[0] - '0')
		}
		if fv == 0 || !ul.parse(lb, fv) {
			fv = ul.parseLine(lb, 0)
		}
		if fv == 0 {
			fv = v
			ul.parse(lb, v)
		}
		v = fv
		r.version = v
	} else {
		ul.parse(lb, v)
		if r.version == 0 {
			r.version = v
			if perr := r.problem(start, true, false, "no version block (filedesc://) before the first record"); perr != nil {
				return nil, false, perr
			}
		} else if v != r.version {
			if perr := r.problem(start, true, false, "URL-record line has the fields of ARC version %d in a version %d file", v, r.version); perr != nil {
				return nil, false, perr
			}
		}
	}

	// Separator newlines.
	switch {
	case !r.started && nl > 0:
		err = r.problem(start, true, false, "%d newline(s) before the first record", nl)
	case r.started && !r.prevFD && nl == 0:
		err = r.problem(start, true, false, "no newline between this record and the previous one")
	case r.started && !r.prevFD && nl > 1:
		err = r.problem(start, true, false, "%d newlines between this record and the previous one (1 expected)", nl)
	case r.started && r.prevFD && nl > 2:
		err = r.problem(start, true, false, "%d newlines after the version block", nl)
	}
	if err != nil {
		return nil, false, err
	}
	r.started = true
	if ul.crlf {
		if err = r.problem(start, true, false, "URL-record line ends in CRLF"); err != nil {
			return nil, false, err
		}
	}
	if ul.extraSpaces {
		if err = r.problem(start, true, false, "URL-record line has runs of spaces between fields"); err != nil {
			return nil, false, err
		}
	}
	if ul.spaceInURL {
		if err = r.problem(start, true, false, "URL holds spaces: %q", ul.url); err != nil {
			return nil, false, err
		}
	}
	if ul.spaceInType {
		if err = r.problem(start, true, false, "content type holds spaces: %q", ul.ctype); err != nil {
			return nil, false, err
		}
	}

	// Block length.
	declared, known := parseLength(ul.length)
	n, drop, err := r.blockLength(start, declared, known, isFD)
	if err != nil || drop {
		return nil, drop, err
	}

	// Date.
	date := bstr(ul.date)
	t, repaired, derr := record.ParseTimestamp(date)
	r.scratch = r.scratch[:0]
	switch {
	case derr == nil:
		if repaired {
			if err = r.problem(start, true, false, "date %q is not 14 digits: read as %s", date, record.Timestamp14(t)); err != nil {
				return nil, false, err
			}
		}
		r.scratch = t.AppendFormat(r.scratch, "2006-01-02T15:04:05Z")
	case r.lastDate != "":
		if err = r.problem(start, true, false, "bad date %q: using %s from the previous record", date, r.lastDate); err != nil {
			return nil, false, err
		}
		r.scratch = append(r.scratch, r.lastDate...)
	default:
		if err = r.problem(start, false, true, "bad date %q and no earlier date to use: record skipped", date); err != nil {
			return nil, false, err
		}
		if _, err := r.br.Discard(int(n)); err != nil {
			return nil, false, r.ioErr(err)
		}
		return nil, true, nil
	}
	dateEnd := len(r.scratch)
	r.scratch = strconv.AppendInt(r.scratch, n, 10)
	lenEnd := len(r.scratch)
	url := bstr(ul.url)
	escaped := false
	for i := 0; i < len(url); i++ {
		if needsEscape(url[i]) {
			escaped = true
			break
		}
	}
	if escaped {
		r.scratch = appendEscaped(r.scratch, url)
	}
	derived := string(r.scratch)
	warcDate := derived[:dateEnd]
	r.lastDate = warcDate
	target := url
	if escaped {
		target = derived[lenEnd:]
	}

	a := &arcRecord{}
	rec = &a.rec
	rec.Version = "ARC/1"
	if v == 2 {
		rec.Version = "ARC/2"
	}
	rec.Offset, _ = r.j.offsetFor(start)
	rec.ARC = &a.info
	info := &a.info
	info.Version = v
	info.URL = url
	info.IP = bstr(ul.ip)
	info.Date = date
	info.ContentType = bstr(ul.ctype)
	if v == 2 {
		info.ResultCode = bstr(ul.code)
		info.Checksum = bstr(ul.checksum)
		info.Location = bstr(ul.location)
		info.OffsetField = bstr(ul.offset)
		info.Filename = bstr(ul.filename)
	}
	info.Length = n
	info.Line, _ = trimEOLString(line)

	h := a.fields[:0]
	var typ, ctype string
	switch {
	case isFD:
		typ, ctype = string(record.ARCFiledesc), info.ContentType
	case hasPrefixFold(url, "dns:"):
		typ, ctype = string(record.Resource), DNSType
	case isHTTPURL(url) && r.startsWithStatusLine(n):
		typ, ctype = string(record.Response), HTTPResponseType
	default:
		typ, ctype = string(record.Resource), info.ContentType
		if ctype == "" || ctype == "-" || ctype == "no-type" {
			ctype = UnknownType
		}
	}
	h = append(h,
		record.Field{Name: record.FieldType, Value: typ},
		record.Field{Name: record.FieldTargetURI, Value: target},
		record.Field{Name: record.FieldDate, Value: warcDate},
	)
	if ok, unspec := validIP(info.IP); ok && !unspec {
		h = append(h, record.Field{Name: record.FieldIPAddress, Value: info.IP})
	} else if !ok && info.IP != "-" {
		if err = r.problem(start, true, false, "bad IP address %q: left out", info.IP); err != nil {
			return nil, false, err
		}
	}
	h = append(h,
		record.Field{Name: record.FieldContentType, Value: ctype},
		record.Field{Name: record.FieldContentLength, Value: derived[dateEnd:lenEnd]},
	)
	rec.Header = h

	// DiskLength of the previous record ends where this one starts.
	if r.prev != nil {
		if d := rec.Offset - r.prev.Offset; d > 0 {
			r.prev.DiskLength = d
		}
	}
	r.prev = rec
	r.prevFD = isFD
	r.j.prune(start)
	r.blk.reset(n, start)
	if n > 0 {
		rec.Block = &r.blk
	}
	return rec, false, nil
}

func trimEOLString(s string) (string, bool) {
	b, cr := trimEOL(sbytes(s))
	return bstr(b), cr
}

// startsWithStatusLine reports whether the next n bytes start with an HTTP
// status line.
func (r *Reader) startsWithStatusLine(n int64) bool {
	k := int64(64)
	if n < k {
		k = n
	}
	b, _ := r.br.Peek(int(k))
	return httpmsg.IsStatusLine(b)
}

// blockLength decides the length of the block that starts at the reader's
// position, for a URL-record line at start declaring declared (valid when
// known). It checks the declared length against what follows when the block
// fits in the buffer, and repairs it. drop is true when the record had to be
// skipped.
func (r *Reader) blockLength(start, declared int64, known, isFD bool) (n int64, drop bool, err error) {
	size := int64(r.br.Size())
	if known {
		if declared > size-lookahead {
			return declared, false, nil // too large to check ahead
		}
		L := int(declared)
		b, perr := r.br.Peek(L + lookahead)
		if perr == errBreak {
			perr = io.EOF
		}
		atEOF := perr != nil
		if len(b) < L {
			if perr != nil && perr != io.EOF {
				return 0, false, r.ioErr(perr)
			}
			// The last newline is the record separator.
			n = int64(len(b))
			if n > 0 && b[n-1] == '\n' {
				n--
			}
			// damage, not a repair: the bytes the length declares are missing
			err = r.problem(start, false, false, "block cut short by the end of the file: %d of %d bytes", n, L)
			return n, false, err
		}
		if r.boundaryOK(b[L:], atEOF) {
			return declared, false, nil
		}
		// A record line inside the block: the length is too long. Else,
		// if no newline follows the block, the block goes on: the length
		// is too short. Else what follows is junk, skipped (and reported)
		// by the next call.
		if p, ok := r.findRecordStart(b, 0, L, atEOF); ok {
			n = blockEnd(b, p)
		} else if p, ok := r.findRecordStart(b, L, len(b), atEOF); ok && b[L] != '\n' {
			n = blockEnd(b, p)
		} else if atEOF && b[L] != '\n' {
			// The last block goes on to the end of the file.
			n = int64(len(b))
			if b[n-1] == '\n' {
				n--
			}
			err = r.problem(start, true, false, "declared length %d ends before the end of the last record: length corrected to %d", declared, n)
			return n, false, err
		} else {
			return declared, false, nil
		}
		err = r.problem(start, true, false, "declared length %d does not end at a record boundary: next URL-record line found after %d bytes, length corrected", declared, n)
		return n, false, err
	}
	// Unknown length: the block runs to the next URL-record line. Look in
	// a growing window so small records do not cost a full buffer each.
	var b []byte
	atEOF := false
	found := false
	for want := int64(64 << 10); ; want *= 4 {
		if want > size {
			want = size
		}
		var perr error
		b, perr = r.br.Peek(int(want))
		if perr == errBreak {
			perr = io.EOF
		}
		if perr != nil && perr != io.EOF && perr != bufio.ErrBufferFull {
			return 0, false, r.ioErr(perr)
		}
		atEOF = perr == io.EOF
		var p int
		if p, found = r.findRecordStart(b, 0, len(b), atEOF); found {
			n = blockEnd(b, p)
			break
		}
		if atEOF || want == size {
			break
		}
	}
	switch {
	case found:
	case atEOF:
		n = int64(len(b))
		if n > 0 && b[n-1] == '\n' {
			n--
		}
	default:
		err = r.problem(start, false, true, "bad length %q and no next record within %d bytes: record skipped", r.ul.length, size)
		return 0, true, err
	}
	what := "the next record"
	if atEOF && n == int64(len(b)) || atEOF && n == int64(len(b))-1 {
		what = "the end of the file"
	}
	// an impossible length is damage, not a repair: the block is salvaged
	err = r.problem(start, false, false, "bad length %q: block taken up to %s (%d bytes)", r.ul.length, what, n)
	return n, false, err
}

// blockEnd returns the block length for a block followed by a record that
// starts at p: the newline before p is the separator.
func blockEnd(b []byte, p int) int64 {
	if p > 0 && b[p-1] == '\n' {
		p--
	}
	return int64(p)
}

// boundaryOK reports whether b, the bytes after a block, holds newlines and
// then either the end of input or a URL-record line (of either version).
// A line too long to judge within b is given the benefit of the doubt.
func (r *Reader) boundaryOK(b []byte, atEOF bool) bool {
	i := 0
	for i < len(b) {
		if b[i] == '\n' {
			i++
		} else if b[i] == '\r' && i+1 < len(b) && b[i+1] == '\n' {
			i += 2
		} else {
			break
		}
	}
	if i == len(b) {
		return atEOF
	}
	e := bytes.IndexByte(b[i:], '\n')
	if e < 0 {
		if !atEOF {
			return true
		}
		e = len(b) - i - 1
	}
	var u urlLine
	return u.parseLine(b[i:i+e+1], 0) != 0
}

// findRecordStart looks for the first URL-record line starting at p with
// from <= p < to, where p is 0 or follows a newline. The line must be
// complete within b (or end at the end of input).
func (r *Reader) findRecordStart(b []byte, from, to int, atEOF bool) (int, bool) {
	var u urlLine
	p := from
	if p > 0 && b[p-1] != '\n' {
		k := bytes.IndexByte(b[p:to], '\n')
		if k < 0 {
			return 0, false
		}
		p += k + 1
	}
	for p < to {
		e := bytes.IndexByte(b[p:], '\n')
		if e < 0 {
			if !atEOF {
				return 0, false
			}
			e = len(b) - p - 1
		}
		if u.parseLine(b[p:p+e+1], 0) != 0 {
			return p, true
		}
		p += e + 1
	}
	return 0, false
}

// block is the Block of the current record: the next n bytes of the stream.
type block struct {
	rd     *Reader
	n      int64 // remaining
	total  int64
	start  int64
	active bool
}

func (b *block) reset(n, start int64) {
	b.n, b.total, b.start, b.active = n, n, start, true
}

// short returns the problem of a block cut short by the end of the input,
// counted as a skip: the record cannot be written whole.
func (b *block) short(cause error) *record.Problem {
	b.rd.stats.Skipped++
	why := fmt.Sprintf("by the end of the file: %d of %d bytes: %v", b.total-b.n, b.total, io.ErrUnexpectedEOF)
	if cause == errBreak {
		why = fmt.Sprintf("by unreadable compressed data: %d of %d bytes", b.total-b.n, b.total)
		b.rd.broken = true // no separator to expect after it
	}
	p := &record.Problem{File: b.rd.cfg.name, Offset: b.rd.recOffset(b.start),
		Msg: "block cut short " + why, Skipped: true}
	b.n = 0
	return p
}

func (r *Reader) recOffset(u int64) int64 { o, _ := r.j.offsetFor(u); return o }

// Read reads from the block.
func (b *block) Read(p []byte) (int, error) {
	if b.n <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > b.n {
		p = p[:b.n]
	}
	n, err := b.rd.br.Read(p)
	b.n -= int64(n)
	if err == io.EOF || err == errBreak {
		if b.n > 0 {
			return n, b.short(err)
		}
		err = nil
	} else if err != nil {
		err = b.rd.ioErr(err)
	}
	return n, err
}

// WriteTo writes the rest of the block to w straight from the read buffer.
func (b *block) WriteTo(w io.Writer) (int64, error) {
	var total int64
	br := b.rd.br
	for b.n > 0 {
		if br.Buffered() == 0 {
			if _, err := br.Peek(1); err != nil {
				if err == io.EOF || err == errBreak {
					return total, b.short(err)
				}
				return total, b.rd.ioErr(err)
			}
		}
		k := int64(br.Buffered())
		if k > b.n {
			k = b.n
		}
		buf, _ := br.Peek(int(k))
		m, err := w.Write(buf)
		br.Discard(m)
		b.n -= int64(m)
		total += int64(m)
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// finish skips what is unread of the block. A block cut short that nobody
// read to the end is reported here.
func (b *block) finish() error {
	b.active = false
	if b.n <= 0 {
		return nil
	}
	m, err := b.rd.br.Discard(int(b.n))
	b.n -= int64(m)
	if err == io.EOF || err == errBreak {
		p := b.short(err)
		switch b.rd.cfg.policy {
		case record.Fail:
			return p
		case record.Warn:
			if b.rd.cfg.problems != nil {
				b.rd.cfg.problems(p)
			}
		}
		return nil
	}
	if err != nil {
		return b.rd.ioErr(err)
	}
	return nil
}

// bound records that uncompressed offset u starts the member at compressed
// offset c.
type bound struct{ u, c int64 }

// memberHead is how much of a member the joiner decompresses before it
// hands any of it out. A member whose data fails within it (corrupt data, a
// bad CRC) is dropped whole and reading resumes at the next member, so the
// record it held is skipped cleanly rather than handed out damaged, and the
// records after it are kept. A failure past the head of a longer member
// cuts that record's block short (part of it was handed out already; see
// errBreak), and reading resumes at the next member too.
const memberHead = 1 << 20

// joiner concatenates the members of a compressed stream, remembering where
// each begins.
type joiner struct {
	mr      *compio.MemberReader
	rd      *Reader
	plain   bool
	n       int64
	bounds  []bound
	active  bool
	done    bool
	err     error
	head    []byte // buffer for the head of a member
	pending []byte // decoded head not handed out yet
	brk     bool   // return errBreak once, then go on
}

// corruptMember, under record.Fail, reads the rest of the member being
// decoded and returns the problem of its data if it cannot be decoded (a
// bad CRC, corrupt deflate data): corrupt data shows first as a malformed
// line or block, which the reader reports before reaching the member's
// end, while Warn decodes the member's head whole and reports the
// corruption. So both policies name the same problem at the same offset.
func (j *joiner) corruptMember() error {
	if j.err != nil {
		return j.err // met already, behind bytes not yet read
	}
	if j.plain || !j.active {
		return nil
	}
	j.active = false
	buf := make([]byte, 32<<10)
	for {
		_, err := j.mr.Read(buf)
		if err == nil {
			continue
		}
		if err == io.EOF {
			return nil
		}
		return &record.Problem{File: j.rd.cfg.name, Offset: j.mr.MemberStart(), Skipped: true,
			Msg: fmt.Sprintf("unreadable compressed data (%s)", compressedErr(err))}
	}
}

// errBreak is returned once by the joiner where a member gave out past its
// head and reading resumed at the next member: what the reader was in
// the middle of (a block) ends there.
var errBreak = errors.New("compressed member unreadable past this point")

func (j *joiner) Read(p []byte) (int, error) {
	for {
		if len(j.pending) > 0 {
			n := copy(p, j.pending)
			j.pending = j.pending[n:]
			j.n += int64(n)
			return n, nil
		}
		if j.brk {
			j.brk = false
			return 0, errBreak
		}
		if j.done {
			return 0, io.EOF
		}
		if j.err != nil {
			return 0, j.err
		}
		if !j.active {
			start, err := j.mr.Next()
			if err == io.EOF {
				j.done = true
				return 0, io.EOF
			}
			if err != nil {
				if err := j.fail(err, true); err != nil {
					return 0, err
				}
				continue
			}
			j.active = true
			if !j.plain && j.rd.cfg.policy != record.Fail { // Fail: nothing to resync
				head, whole, err := j.mr.ReadHead(j.head, memberHead)
				j.head = head
				if err != nil {
					if !errors.Is(err, io.ErrUnexpectedEOF) {
						if err := j.fail(err, true); err != nil {
							return 0, err
						}
						continue
					}
					// cut short by the end of the input: what was
					// decoded goes out (a truncated record), then EOF
					j.err = j.fail(err, false)
					whole = true
				}
				j.active = !whole // else the rest is streamed
				j.bounds = append(j.bounds, bound{j.n, start})
				j.pending = head
				continue
			}
			j.bounds = append(j.bounds, bound{j.n, start})
		}
		n, err := j.mr.Read(p)
		j.n += int64(n)
		if err == io.EOF {
			j.active = false
			if n > 0 {
				return n, nil
			}
			continue
		}
		if err != nil {
			j.active = false
			ferr := j.fail(err, false)
			if n > 0 {
				// Hand out the bytes first; fail on the next call.
				j.err = ferr
				return n, nil
			}
			if ferr != nil {
				return 0, ferr
			}
			continue
		}
		return n, nil
	}
}

// fail handles a decompression error. Under record.Fail it is returned.
// Else it is reported and, unless the data was cut short by the end of the
// input, reading resumes at the next member: a member that failed in its
// head (whole) is dropped as if absent; one that failed later ends the
// block in progress there (errBreak, once). Otherwise the rest of the
// input is dropped. A nil return means: go on reading (Read returns
// io.EOF once done is set).
func (j *joiner) fail(err error, whole bool) error {
	off := j.mr.MemberStart()
	why := compressedErr(err)
	if !j.plain && j.rd.cfg.policy != record.Fail && !errors.Is(err, io.ErrUnexpectedEOF) {
		to, _, rerr := j.mr.Resync()
		if rerr == nil || rerr == io.EOF {
			where := fmt.Sprintf("the next member at offset %d", to)
			if rerr == io.EOF {
				where, j.done = "the end of the file", true
			}
			msg := fmt.Sprintf("unreadable compressed data (%s): %d bytes skipped up to %s", why, to-off, where)
			if !whole {
				read := j.n
				if len(j.bounds) > 0 {
					read -= j.bounds[len(j.bounds)-1].u
				}
				msg = fmt.Sprintf("unreadable compressed data (%s) after %d bytes of the member were read (the record they belong to is damaged): resumed at %s", why, read, where)
			}
			p := &record.Problem{File: j.rd.cfg.name, Offset: off, Msg: msg, Skipped: true}
			if perr := j.rd.report(p); perr != nil {
				j.err = perr
				return perr
			}
			j.brk = !whole
			return nil
		}
		why = compressedErr(rerr)
	}
	// worded as under Fail (and as lib/warc words it), with what was done
	// after it: the same problem at the same offset whatever the policy
	msg := fmt.Sprintf("unreadable compressed data (%s): rest of the file skipped", why)
	if j.rd.cfg.policy == record.Fail {
		msg = fmt.Sprintf("unreadable compressed data (%s)", why)
	}
	p := &record.Problem{File: j.rd.cfg.name, Offset: off, Msg: msg, Skipped: true}
	if perr := j.rd.report(p); perr != nil {
		j.err = perr
		return perr
	}
	j.done = true
	return nil
}

// compressedErr is the text of a decompression error without compio's
// "offset N: " prefix (problems carry the offset).
func compressedErr(err error) string {
	s := err.Error()
	if rest, ok := strings.CutPrefix(s, "offset "); ok {
		if i := strings.Index(rest, ": "); i > 0 {
			if _, perr := strconv.ParseInt(rest[:i], 10, 64); perr == nil {
				s = rest[i+2:]
			}
		}
	}
	return s
}

// offsetFor maps uncompressed offset u to the compressed offset of the
// member holding it, telling whether u is that member's first byte.
func (j *joiner) offsetFor(u int64) (int64, bool) {
	if j.plain {
		return u, true
	}
	for i := len(j.bounds) - 1; i >= 0; i-- {
		if j.bounds[i].u <= u {
			return j.bounds[i].c, j.bounds[i].u == u
		}
	}
	if len(j.bounds) > 0 {
		return j.bounds[0].c, false
	}
	return 0, u == 0
}

// boundaryIn returns k > 0 when a member starts at uncompressed offset
// from+k, inside [from, to).
func (j *joiner) boundaryIn(from, to int64) int64 {
	if j.plain {
		return 0
	}
	for _, b := range j.bounds {
		if b.u > from && b.u < to {
			return b.u - from
		}
	}
	return 0
}

// prune forgets member starts before the one holding u.
func (j *joiner) prune(u int64) {
	k := 0
	for i := len(j.bounds) - 1; i >= 0; i-- {
		if j.bounds[i].u <= u {
			k = i
			break
		}
	}
	if k > 0 {
		j.bounds = append(j.bounds[:0], j.bounds[k:]...)
	}
}
