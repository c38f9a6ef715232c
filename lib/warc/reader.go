package warc

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"github.com/arcport/arcport/lib/internal/compio"
	"github.com/arcport/arcport/lib/record"
)

// MaxHeaderSize bounds the size of one WARC record header (version line and
// fields). Larger headers are treated as garbage.
const MaxHeaderSize = 1 << 20

const readBufSize = 64 << 10

// ErrStaleBlock is returned when a record's Block is read after the Reader
// has moved on to the next record.
var ErrStaleBlock = errors.New("warc: block read after Next")

// Option configures a Reader.
type Option func(*Reader)

// WithPolicy sets the error policy (record.Warn by default).
func WithPolicy(p record.Policy) Option { return func(r *Reader) { r.policy = p } }

// WithProblemFunc sets the function that receives problems under the Warn
// policy. Without one, problems are printed on os.Stderr.
func WithProblemFunc(f record.ProblemFunc) Option { return func(r *Reader) { r.problemFunc = f } }

// WithFilename sets the file name used in problems and errors.
func WithFilename(name string) Option { return func(r *Reader) { r.file = name } }

// WithVerifyDigests makes the reader compute the digests named in each
// record's WARC-Block-Digest and WARC-Payload-Digest while the block is
// read (or skipped) and report mismatches as problems. A payload digest
// matches if it equals the digest of the entity body either with the chunked
// transfer coding removed (WARC 1.1) or as stored (warcio). Revisit records'
// payload digests describe another record and are not checked.
func WithVerifyDigests(on bool) Option { return func(r *Reader) { r.verify = on } }

// Reader reads WARC records from plain, gzip (per record or whole file) or
// zstd (.warc.zst, with dictionary) input. It implements record.Reader.
type Reader struct {
	file        string
	policy      record.Policy
	problemFunc record.ProblemFunc
	verify      bool
	digestFunc  func(*DigestCheck)
	problems    int

	mr         *compio.MemberReader
	br         *bufio.Reader
	compressed bool
	memberOpen bool
	// pos counts decompressed bytes consumed in the current member (for
	// plain input: in the file).
	pos           int64
	memberRecords int
	multiReported bool
	inputDone     bool
	// recAddr is true when the current record began its member, so that
	// Offset addresses it.
	recAddr bool

	cur *record.Record
	blk *block
	err error

	// badTrailer is set when the last block was not followed by CRLF CRLF
	// and garbage follows; the garbage report then names that record.
	badTrailer    bool
	badTrailerOff int64

	hbuf    []byte
	scratch []byte
	head    headReader
}

// NewReader returns a Reader for r, sniffing the compression. It fails only
// when a .warc.zst dictionary frame at the start cannot be read.
func NewReader(r io.Reader, opts ...Option) (*Reader, error) {
	rd := &Reader{policy: record.Warn}
	for _, o := range opts {
		o(rd)
	}
	mr, err := compio.NewMemberReader(r)
	if err != nil {
		return nil, &record.Problem{File: rd.file, Offset: 0, Msg: stripOffset(err.Error())}
	}
	rd.mr = mr
	rd.compressed = mr.Format() != compio.Plain
	rd.br = bufio.NewReaderSize(eofReader{}, readBufSize)
	rd.head.broke = rd.broke
	return rd, nil
}

type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }

// Format returns the container format of the input.
func (r *Reader) Format() compio.Format { return r.mr.Format() }

// Problems returns how many problems were found so far (under any policy).
func (r *Reader) Problems() int { return r.problems }

// Next returns the next record. Whatever is unread of the previous record's
// block is skipped (and hashed when verifying digests). It returns io.EOF
// after the last record; under the Fail policy the first problem is returned
// as a *record.Problem. Errors are sticky.
func (r *Reader) Next() (*record.Record, error) {
	if r.err != nil {
		return nil, r.err
	}
	if r.cur != nil {
		if err := r.finish(); err != nil {
			r.err = err
			return nil, err
		}
		r.cur, r.blk = nil, nil
	}
	rec, err := r.readRecord()
	if err != nil {
		r.err = err
		return nil, err
	}
	r.cur = rec
	return rec, nil
}

// problem handles a defect according to the policy: it returns a non-nil
// error only under Fail.
func (r *Reader) problem(off int64, repaired, skipped bool, format string, args ...any) error {
	r.problems++
	p := &record.Problem{File: r.file, Offset: off, Msg: fmt.Sprintf(format, args...), Repaired: repaired, Skipped: skipped}
	switch r.policy {
	case record.Fail:
		return p
	case record.Warn:
		if r.problemFunc != nil {
			r.problemFunc(p)
		} else {
			fmt.Fprintf(os.Stderr, "warning: %v\n", p)
		}
	}
	return nil
}

// fatal wraps an error that no policy can repair (I/O or corrupt
// compressed data).
func (r *Reader) fatal(off int64, err error) error {
	msg := stripOffset(err.Error())
	var pe *fs.PathError
	if r.compressed && !errors.As(err, &pe) && !strings.HasPrefix(msg, "unreadable compressed data") {
		// worded as the problem Warn reports (which goes on to say what
		// it did about it): the same problem whatever the policy
		msg = "unreadable compressed data (" + msg + ")"
	}
	return &record.Problem{File: r.file, Offset: off, Msg: msg}
}

// stripOffset removes a leading "offset N: " (compio's prefix), since our
// errors carry the offset themselves.
func stripOffset(s string) string {
	if rest, ok := strings.CutPrefix(s, "offset "); ok {
		if i := strings.Index(rest, ": "); i > 0 {
			if _, err := strconv.ParseInt(rest[:i], 10, 64); err == nil {
				return rest[i+2:]
			}
		}
	}
	return s
}

// here is the offset used for problems at the current position: the byte
// offset for plain input, the member offset for compressed input.
func (r *Reader) here() int64 {
	if r.compressed {
		return r.mr.MemberStart()
	}
	return r.pos
}

// memberError handles an error from the decompressed stream other than
// io.EOF. A truncated member is a problem (the member is treated as ended);
// anything else is fatal.
func (r *Reader) memberError(off int64, err error) error {
	if err == errBreak { // reported; the next member is next
		r.memberOpen = false
		return nil
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		// The input ended inside the member: nothing can follow it (without
		// this, a zstd frame cut after its header was reopened for ever).
		r.memberOpen, r.inputDone = false, true
		return r.problem(off, false, true, "%s", stripOffset(err.Error()))
	}
	return r.fatal(off, err)
}

func (r *Reader) discard(n int) (int, error) {
	d, err := r.br.Discard(n)
	r.pos += int64(d)
	return d, err
}

// readRecord finds the next record and parses its header.
func (r *Reader) readRecord() (*record.Record, error) {
	var garbage int64
	garbageOff := int64(-1)
	reportGarbage := func() error {
		if garbage == 0 {
			return nil
		}
		n := garbage
		garbage = 0
		if r.badTrailer {
			r.badTrailer = false
			return r.problem(r.badTrailerOff, true, true, "record not followed by CRLF CRLF (Content-Length wrong?): skipped %d bytes to the next record", n)
		}
		return r.problem(garbageOff, false, true, "skipped %d bytes of garbage before the next record", n)
	}
	for {
		if !r.memberOpen {
			ok, err := r.openNext()
			if err == nil && !ok {
				err = io.EOF
			}
			if err != nil {
				if gerr := reportGarbage(); gerr != nil {
					return nil, gerr
				}
				return nil, err
			}
		}
		// Blank lines between records are tolerated silently (but counted
		// as garbage once garbage was seen).
		nl, err := r.skipNewlines()
		if garbage > 0 {
			garbage += nl
		}
		if err != nil {
			return nil, err
		}
		if !r.memberOpen {
			continue
		}
		b, err := r.br.Peek(5)
		if len(b) == 5 && string(b) == "WARC/" {
			if err := reportGarbage(); err != nil {
				return nil, err
			}
			rec, err := r.readHeader()
			if err != nil || rec != nil {
				return rec, err
			}
			continue // header unusable: skipped, go on
		}
		if len(b) == 0 && err != nil {
			if err != io.EOF {
				if err := r.memberError(r.here(), err); err != nil {
					return nil, err
				}
			}
			r.memberOpen = false
			continue
		}
		// Garbage: skip to the next "WARC/".
		if garbageOff < 0 || garbage == 0 {
			garbageOff = r.here()
		}
		if r.policy == record.Fail {
			// Corrupt compressed data shows first as bytes that do not
			// belong where a record should start: the member is read to
			// its end so that the corruption, which Warn reports, is the
			// problem given, at the same offset.
			if err := r.drainMember(); err != nil {
				return nil, err
			}
			if r.badTrailer {
				return nil, r.problem(r.badTrailerOff, false, false, "record not followed by CRLF CRLF (Content-Length wrong?)")
			}
			return nil, r.problem(garbageOff, false, false, "garbage where a record should start: %q", b)
		}
		n, err := r.skipGarbage()
		garbage += n
		if err != nil {
			if err != io.EOF {
				if err := r.memberError(r.here(), err); err != nil {
					return nil, err
				}
			}
			r.memberOpen = false
		}
	}
}

// openNext opens the next member. It returns false at the end of the input,
// including after trailing garbage or a truncated member reported under Warn.
// Under Warn and Ignore, a member whose first memberHead bytes cannot be
// decoded (corrupt data, a bad checksum, a bad header), or garbage between
// members, is skipped: reading resumes at the next member.
func (r *Reader) openNext() (bool, error) {
	for {
		if r.inputDone {
			return false, nil
		}
		off, err := r.mr.Next()
		useHead := r.compressed && r.policy != record.Fail // Fail: nothing to resync
		if err == nil && useHead {
			err = r.head.fill(r.mr)
		}
		if err != nil {
			r.memberOpen = false
			if again, perr := r.openError(off, err); again || perr != nil {
				if perr != nil {
					r.inputDone = true
					return false, perr
				}
				continue
			}
			r.inputDone = true
			return false, nil
		}
		r.memberOpen = true
		if useHead {
			r.br.Reset(&r.head)
		} else {
			r.br.Reset(r.mr)
		}
		r.memberRecords = 0
		r.multiReported = false
		if r.compressed {
			r.pos = 0
		}
		return true, nil
	}
}

// openError handles an error opening the member at off: again is true
// when reading resumes at a later member.
func (r *Reader) openError(off int64, err error) (again bool, perr error) {
	if err == io.EOF {
		return false, nil
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return false, r.problem(off, false, true, "%s", stripOffset(err.Error()))
	}
	garbage := errors.Is(err, compio.ErrTrailingGarbage)
	if r.policy == record.Fail {
		if garbage {
			return false, r.problem(off, false, true, "data after the last %s member is not %s: ignored", r.mr.Format(), r.mr.Format())
		}
		return false, r.fatal(off, err)
	}
	to, _, rerr := r.mr.Resync()
	switch {
	case rerr != nil && rerr != io.EOF:
		return false, r.fatal(to, rerr)
	case garbage && rerr == io.EOF:
		return false, r.problem(off, false, true, "data after the last %s member is not %s: ignored", r.mr.Format(), r.mr.Format())
	case garbage:
		return true, r.problem(off, false, true, "%d bytes that are not %s skipped up to the next member", to-off, r.mr.Format())
	case rerr == io.EOF:
		return false, r.problem(off, false, true, "unreadable compressed data (%s): skipped up to the end of the file", stripOffset(err.Error()))
	}
	return true, r.problem(off, false, true, "unreadable compressed data (%s): %d bytes skipped up to the next member", stripOffset(err.Error()), to-off)
}

// memberHead is how much of a member is decoded before any of it is read:
// a member that fails within it is skipped whole (see openNext); a failure
// past it ends what was being read there, part of a record having been
// handed out already, and reading resumes at the next member (see broke).
const memberHead = 1 << 20

// headReader holds the decoded head of the current member and reads it,
// then the rest of the member.
type headReader struct {
	buf   []byte
	p     []byte           // unread part of the head
	rest  io.Reader        // the member, when longer than the head
	err   error            // error after the head (a truncated member)
	broke func(error) bool // see Reader.broke
}

// fill decodes the head of the member mr has just opened. A member cut
// short by the end of the input is not an error here: its data is read,
// then the error.
func (h *headReader) fill(mr *compio.MemberReader) error {
	head, whole, err := mr.ReadHead(h.buf, memberHead)
	h.buf, h.p, h.rest, h.err = head, head, nil, nil
	switch {
	case err != nil && !errors.Is(err, io.ErrUnexpectedEOF):
		return err
	case err != nil:
		h.err = err
	case !whole:
		h.rest = mr
	}
	return nil
}

func (h *headReader) Read(p []byte) (int, error) {
	if len(h.p) > 0 {
		n := copy(p, h.p)
		h.p = h.p[n:]
		return n, nil
	}
	if h.err != nil { // once, then io.EOF, as the member reader does
		err := h.err
		h.err, h.rest = nil, nil
		return 0, err
	}
	if h.rest == nil {
		return 0, io.EOF
	}
	n, err := h.rest.Read(p)
	if err != nil && err != io.EOF && !errors.Is(err, io.ErrUnexpectedEOF) && h.broke != nil && h.broke(err) {
		// the member failed past its head and reading resumed at the
		// next one: whatever was being read ends here
		h.rest, h.err = nil, errBreak
		if n > 0 {
			return n, nil
		}
		h.err = nil
		return 0, errBreak
	}
	return n, err
}

// errBreak ends what was being read where a member gave out past its head
// (see Reader.broke).
var errBreak = errors.New("compressed member unreadable past this point")

// broke handles a member that failed past its head under Warn or Ignore:
// it reports the problem, moves to the next member and returns true; false
// leaves the error as it is (no member start found, or an I/O error).
func (r *Reader) broke(err error) bool {
	off, read := r.mr.MemberStart(), r.pos
	_, _, rerr := r.mr.Resync()
	if rerr != nil && rerr != io.EOF {
		return false
	}
	where := "the next member"
	if rerr == io.EOF {
		where, r.inputDone = "the end of the file", true
	}
	r.memberOpen = false
	r.problem(off, false, true, "unreadable compressed data (%s) after %d bytes of the member were read: resumed at %s", stripOffset(err.Error()), read, where)
	return true
}

// skipNewlines skips CR and LF bytes; at the end of the member it sets
// memberOpen false.
func (r *Reader) skipNewlines() (int64, error) {
	var n int64
	for {
		b, err := r.br.Peek(1)
		if len(b) == 0 {
			if err == io.EOF {
				r.memberOpen = false
				return n, nil
			}
			return n, r.memberError(r.here(), err)
		}
		if b[0] != '\r' && b[0] != '\n' {
			return n, nil
		}
		r.discard(1)
		n++
	}
}

// skipGarbage discards at least one byte and then up to the next "WARC/"
// in the member, returning how many bytes it skipped.
// drainMember reads the rest of the open member of a compressed input
// (nothing for a plain one) and returns the problem of a member whose data
// cannot be decoded.
func (r *Reader) drainMember() error {
	if !r.compressed {
		return nil
	}
	for {
		_, err := r.br.Discard(64 << 10)
		switch {
		case err == nil:
		case err == io.EOF:
			return nil
		default:
			return r.memberError(r.mr.MemberStart(), err)
		}
	}
}

func (r *Reader) skipGarbage() (int64, error) {
	d, err := r.discard(1)
	n := int64(d)
	if err != nil {
		return n, err
	}
	for {
		b, err := r.br.Peek(5)
		if len(b) < 5 {
			d, _ := r.discard(len(b))
			n += int64(d)
			if err == nil {
				err = io.EOF
			}
			return n, err
		}
		buf, _ := r.br.Peek(r.br.Buffered())
		if i := bytes.Index(buf, []byte("WARC/")); i >= 0 {
			d, _ := r.discard(i)
			return n + int64(d), nil
		}
		d, _ := r.discard(len(buf) - 4)
		n += int64(d)
	}
}

var knownVersions = map[string]bool{"WARC/1.0": true, "WARC/1.1": true, "WARC/0.17": true, "WARC/0.18": true}

// canonicalNames interns the usual field names.
var canonicalNames = func() map[string]string {
	m := map[string]string{}
	for _, n := range []string{
		record.FieldType, record.FieldRecordID, record.FieldDate, record.FieldContentLength,
		record.FieldContentType, record.FieldConcurrentTo, record.FieldBlockDigest,
		record.FieldPayloadDigest, record.FieldIPAddress, record.FieldRefersTo,
		record.FieldRefersToTargetURI, record.FieldRefersToDate, record.FieldTargetURI,
		record.FieldTruncated, record.FieldWarcinfoID, record.FieldFilename, record.FieldProfile,
		record.FieldIdentifiedPayloadType, record.FieldSegmentNumber, record.FieldSegmentOriginID,
		record.FieldSegmentTotalLength,
	} {
		m[n] = n
	}
	return m
}()

// recordMagic starts every WARC 1.x record.
const recordMagic = "WARC/1."

// readHeader parses a record header starting at "WARC/". It returns a nil
// record and nil error when the header was unusable and skipped.
func (r *Reader) readHeader() (*record.Record, error) {
	start := r.here()
	r.recAddr = !r.compressed || r.memberRecords == 0
	if r.compressed && r.memberRecords > 0 && !r.multiReported {
		r.multiReported = true
		if err := r.problem(start, true, false, "%s member holds more than one record: records after the first cannot be addressed by offset", r.mr.Format()); err != nil {
			return nil, err
		}
	}
	r.hbuf = r.hbuf[:0]
	lineStart := 0
	for {
		frag, err := r.br.ReadSlice('\n')
		r.pos += int64(len(frag))
		if len(r.hbuf)+len(frag) > MaxHeaderSize {
			if err := r.problem(start, false, true, "WARC header larger than %d bytes: skipped", MaxHeaderSize); err != nil {
				return nil, err
			}
			return nil, nil
		}
		r.hbuf = append(r.hbuf, frag...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			if err != io.EOF && !errors.Is(err, io.ErrUnexpectedEOF) {
				return nil, r.fatal(start, err)
			}
			r.memberOpen = false
			if err := r.problem(start, false, true, "truncated WARC header (%d bytes, no blank line)", len(r.hbuf)); err != nil {
				return nil, err
			}
			return nil, nil
		}
		line := r.hbuf[lineStart:]
		if lineStart > 0 && (len(line) == 1 || (len(line) == 2 && line[0] == '\r')) {
			break
		}
		lineStart = len(r.hbuf)
		if b, _ := r.br.Peek(len(recordMagic)); string(b) == recordMagic {
			// a record starts where this header's blank line should be:
			// the header has no end (taking the next record's fields in
			// would lose that record)
			if err := r.problem(start, false, true, "truncated WARC header (%d bytes, no blank line): the next record starts inside it", len(r.hbuf)); err != nil {
				return nil, err
			}
			return nil, nil
		}
	}
	s := string(r.hbuf)
	rec := &record.Record{Offset: start}
	nl := strings.IndexByte(s, '\n')
	rec.Version = strings.TrimSpace(s[:nl])
	s = s[nl+1:]
	if !knownVersions[rec.Version] {
		if err := r.problem(start, true, false, "unknown WARC version %q: read as WARC/1.1", rec.Version); err != nil {
			return nil, err
		}
	}
	rec.Header = make(record.Header, 0, 12)
	for len(s) > 0 {
		nl := strings.IndexByte(s, '\n')
		line := s[:nl]
		s = s[nl+1:]
		line = strings.TrimRight(line, "\r")
		if line == "" {
			break
		}
		if line[0] == ' ' || line[0] == '\t' {
			if n := len(rec.Header); n > 0 {
				f := &rec.Header[n-1]
				v, err := r.fieldValue(start, f.Name, f.Value+strings.TrimRight(line, " \t"))
				if err != nil {
					return nil, err
				}
				f.Value = v
				continue
			}
		}
		name, value, ok := strings.Cut(line, ":")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			if err := r.problem(start, true, false, "header line without field name: %q (dropped)", clip(line)); err != nil {
				return nil, err
			}
			continue
		}
		if strings.ContainsAny(name, notInName) {
			fixed := repairName(name)
			if err := r.problem(start, true, false, "bad field name %q: read as %q", clip(name), clip(fixed)); err != nil {
				return nil, err
			}
			name = fixed
		}
		if c, ok := canonicalNames[name]; ok {
			name = c
		}
		v, err := r.fieldValue(start, name, value)
		if err != nil {
			return nil, err
		}
		rec.Header = append(rec.Header, record.Field{Name: name, Value: v})
	}
	for _, f := range [...]string{record.FieldType, record.FieldRecordID, record.FieldDate} {
		if !rec.Header.Has(f) {
			if err := r.problem(start, false, false, "missing %s", f); err != nil {
				return nil, err
			}
		}
	}
	b := &block{r: r, rec: rec}
	clv, hasCL := "", false
	for _, f := range rec.Header {
		if strings.EqualFold(f.Name, record.FieldContentLength) {
			clv, hasCL = f.Value, true
			break
		}
	}
	if !hasCL {
		if err := r.problem(start, true, false, "missing Content-Length: block taken up to the next record"); err != nil {
			return nil, err
		}
		b.scan = true
	} else if n, err := strconv.ParseInt(clv, 10, 64); err != nil || n < 0 || clv[0] == '+' {
		// an impossible length is damage, not a repair: the block is
		// salvaged up to the next record, and the problem is reported as
		// neither repaired nor skipped
		if err := r.problem(start, false, false, "bad Content-Length %q: block taken up to the next record", clip(clv)); err != nil {
			return nil, err
		}
		b.scan = true
	} else {
		b.remaining = n
		b.length = n
	}
	if r.verify {
		if err := b.setupVerify(); err != nil {
			return nil, err
		}
	}
	rec.Block = b
	r.blk = b
	r.memberRecords++
	return rec, nil
}

// fieldValue trims a field value and repairs a bare CR in it (which the
// Writer would refuse), reporting the repair.
func (r *Reader) fieldValue(start int64, name, value string) (string, error) {
	value = strings.TrimSpace(value)
	if strings.IndexByte(value, '\r') >= 0 {
		if err := r.problem(start, true, false, "field %s: bare CR in the value read as a space", clip(name)); err != nil {
			return "", err
		}
		value = repairValue(value)
	}
	return value, nil
}

func clip(s string) string {
	if len(s) > 64 {
		return s[:64] + "..."
	}
	return s
}

// finish skips the rest of the current block, checks what follows it and
// sets the record's DiskLength when its end is known.
func (r *Reader) finish() error {
	b, rec := r.blk, r.cur
	if err := b.skip(); err != nil {
		return err
	}
	if b.truncated {
		// The input (or the record's member) ended inside the block.
		if !r.compressed {
			rec.DiskLength = r.pos - rec.Offset
		} else if r.recAddr {
			rec.DiskLength = b.endOff - rec.Offset
		}
		return nil
	}
	// Trailer: CRLF CRLF, then possibly more blank lines (tolerated).
	var seen [4]byte
	n := 0
	consume := func() error {
		if n == 0 {
			if b4, _ := r.br.Peek(4); string(b4) == "\r\n\r\n" {
				copy(seen[:], b4)
				n = 4
				r.discard(4)
			}
		}
		for {
			c, err := r.br.Peek(1)
			if len(c) == 0 {
				if err != nil && err != io.EOF {
					return r.memberError(rec.Offset, err)
				}
				return nil
			}
			if c[0] != '\r' && c[0] != '\n' {
				return nil
			}
			if n < 4 {
				seen[n] = c[0]
			}
			n++
			r.discard(1)
		}
	}
	if err := consume(); err != nil {
		return err
	}
	end := r.pos
	next, err := r.br.Peek(5)
	atEnd := len(next) == 0 && err != nil
	memberEnd := int64(-1)
	if r.compressed && atEnd && r.memberOpen {
		if err != io.EOF {
			if err := r.memberError(rec.Offset, err); err != nil {
				return err
			}
		}
		memberEnd = r.mr.Offset()
		r.memberOpen = false
		if n < 4 {
			// The trailer may open the next member (records split
			// across members, as in warcio's example-wrong-chunks).
			ok, err := r.openNext()
			if err != nil {
				return err
			}
			if ok {
				if err := consume(); err != nil {
					return err
				}
				next, err = r.br.Peek(5)
				atEnd = len(next) == 0 && err != nil
			}
		}
	}
	if n < 4 || string(seen[:]) != "\r\n\r\n" {
		if atEnd || string(next) == "WARC/" {
			if err := r.problem(rec.Offset, true, false, "record not followed by CRLF CRLF (found %q)", seen[:min(n, 4)]); err != nil {
				return err
			}
		} else {
			r.badTrailer, r.badTrailerOff = true, rec.Offset
		}
	}
	if !r.compressed {
		rec.DiskLength = end - rec.Offset
	} else if r.recAddr && memberEnd >= 0 {
		rec.DiskLength = memberEnd - rec.Offset
	}
	return nil
}

// block is a record's block: a stream over the decompressed input bounded
// by Content-Length, or (without a usable Content-Length) by the next
// "CRLF CRLF WARC/" or the end of the member.
type block struct {
	r         *Reader
	rec       *record.Record
	scan      bool
	length    int64 // Content-Length (length mode)
	remaining int64 // length mode
	n         int64 // bytes handed out or skipped
	done      bool
	truncated bool
	spanned   bool
	endOff    int64 // compressed offset where a truncated block ended
	endErr    error

	dg                     *Digester
	wantBlock, wantPayload record.Digest
	checkBlock, checkPay   bool
	// statuses when not checked (absent, unreadable, not checked)
	statBlock, statPay DigestStatus
}

func (b *block) setupVerify() error {
	r, rec := b.r, b.rec
	var balg, palg string
	if v := rec.Header.Get(record.FieldBlockDigest); v != "" {
		b.statBlock = DigestUnreadable
		d, err := ParseStatedDigest(v)
		if err != nil {
			if err := r.problem(rec.Offset, false, false, "bad WARC-Block-Digest %q%s: %v", clip(v), forURI(rec), err); err != nil {
				return err
			}
		} else {
			b.wantBlock, b.checkBlock, balg = d, true, d.Algorithm
		}
	}
	kind := KindOf(rec.Type(), rec.ContentType())
	if v := rec.Header.Get(record.FieldPayloadDigest); v != "" {
		b.statPay = DigestNotChecked
		if kind != NoPayload && rec.Type() != record.Revisit {
			b.statPay = DigestUnreadable
			d, err := ParseStatedDigest(v)
			if err != nil {
				if err := r.problem(rec.Offset, false, false, "bad WARC-Payload-Digest %q%s: %v", clip(v), forURI(rec), err); err != nil {
					return err
				}
			} else {
				b.wantPayload, b.checkPay, palg = d, true, d.Algorithm
			}
		}
	}
	if balg != "" || palg != "" {
		b.dg, _ = NewDigester(kind, balg, palg)
	}
	return nil
}

// Read reads block bytes.
func (b *block) Read(p []byte) (int, error) {
	if b.r.blk != b {
		return 0, ErrStaleBlock
	}
	if b.done {
		return 0, b.endErr
	}
	if len(p) == 0 {
		return 0, nil
	}
	if b.scan {
		return b.readScan(p)
	}
	if b.remaining == 0 {
		return 0, b.end()
	}
	if int64(len(p)) > b.remaining {
		p = p[:b.remaining]
	}
	for {
		n, err := b.r.br.Read(p)
		b.account(p[:n])
		if n > 0 || err == nil {
			return n, nil
		}
		if err == io.EOF && b.r.compressed {
			if cont, err := b.crossMember(); err != nil || cont {
				if err != nil {
					return 0, err
				}
				continue
			}
		}
		return 0, b.short(err)
	}
}

// crossMember is called when a compressed member ends inside the block. If
// the next member does not start a record, the block continues there (some
// writers split records across members); otherwise the block is truncated.
func (b *block) crossMember() (bool, error) {
	r := b.r
	b.endOff = r.mr.Offset()
	r.memberOpen = false
	ok, err := r.openNext()
	if err != nil || !ok {
		return false, err
	}
	if head, _ := r.br.Peek(5); string(head) == "WARC/" {
		return false, nil
	}
	if !b.spanned {
		b.spanned = true
		if err := r.problem(b.rec.Offset, true, false, "block continues in the next %s member at offset %d", r.mr.Format(), r.mr.MemberStart()); err != nil {
			b.done, b.endErr, r.err = true, err, err
			return false, err
		}
	}
	r.memberRecords = 1
	return true, nil
}

func (b *block) account(p []byte) {
	n := int64(len(p))
	b.r.pos += n
	b.n += n
	if !b.scan {
		b.remaining -= n
	}
	if b.dg != nil {
		b.dg.Write(p)
	}
}

// short handles the input ending (or failing) inside the block.
func (b *block) short(err error) error {
	if b.r.compressed && b.endOff == 0 {
		b.endOff = b.r.mr.Offset()
	}
	b.done = true
	b.truncated = true
	b.endErr = io.EOF
	if err != io.EOF && err != errBreak && !errors.Is(err, io.ErrUnexpectedEOF) {
		b.endErr = b.r.fatal(b.rec.Offset, err)
		b.r.err = b.endErr
		return b.endErr
	}
	why := ""
	if err == errBreak {
		why = ", then unreadable compressed data"
	}
	if perr := b.r.problem(b.rec.Offset, false, false, "truncated block: %d of %d bytes (Content-Length)%s", b.n, b.length, why); perr != nil {
		b.endErr = perr
		b.r.err = perr
	}
	return b.endErr
}

// end is called once the whole block was read: it checks digests.
func (b *block) end() error {
	b.done = true
	b.endErr = io.EOF
	if b.dg == nil && b.r.digestFunc == nil {
		return io.EOF
	}
	r, rec := b.r, b.rec
	c := DigestCheck{Offset: rec.Offset, URI: rec.TargetURI(), Type: rec.Type()}
	c.Block.Stated = rec.Header.Get(record.FieldBlockDigest)
	c.Payload.Stated = rec.Header.Get(record.FieldPayloadDigest)
	c.Block.Status, c.Payload.Status = b.statBlock, b.statPay
	var perr error
	if b.checkBlock {
		got, _ := b.dg.BlockDigest()
		c.Block.Want, c.Block.Computed, c.Block.AsStored = b.wantBlock, got, got
		c.Block.Status = DigestMatch
		if !bytes.Equal(got.Sum, b.wantBlock.Sum) {
			c.Block.Status = DigestMismatch
			perr = r.problem(rec.Offset, false, false, "WARC-Block-Digest mismatch%s: header %s, computed %s", forURI(rec), c.Block.Stated, FormatLike(c.Block.Stated, got))
		}
	}
	if b.checkPay {
		got, _ := b.dg.PayloadDigest()
		raw, _ := b.dg.RawPayloadDigest()
		p := &c.Payload
		p.Want, p.Computed, p.AsStored, p.Chunked = b.wantPayload, got, raw, b.dg.Chunked()
		switch {
		case bytes.Equal(got.Sum, b.wantPayload.Sum):
			p.Status = DigestMatch
		case bytes.Equal(raw.Sum, b.wantPayload.Sum):
			p.Status = DigestMatchAsStored
		default:
			p.Status = DigestMismatch
			if perr == nil {
				also := ""
				if p.Chunked && !bytes.Equal(got.Sum, raw.Sum) {
					also = fmt.Sprintf(" (chunked: %s with the chunk framing as stored)", FormatLike(p.Stated, raw))
				}
				perr = r.problem(rec.Offset, false, false, "WARC-Payload-Digest mismatch%s: header %s, computed %s%s", forURI(rec), p.Stated, FormatLike(p.Stated, got), also)
			}
		}
	}
	if r.digestFunc != nil {
		r.digestFunc(&c)
	}
	if perr != nil {
		b.endErr = perr
		r.err = perr
	}
	return b.endErr
}

const scanDelim = "\r\n\r\nWARC/"

// readScan reads a block without Content-Length: up to the next
// "CRLF CRLF WARC/" or to the end of the member less a final CRLF CRLF.
func (b *block) readScan(p []byte) (int, error) {
	br := b.r.br
	buf, err := br.Peek(len(scanDelim))
	if len(buf) < len(scanDelim) {
		if err != nil && err != io.EOF {
			if !errors.Is(err, io.ErrUnexpectedEOF) {
				return 0, b.short(err)
			}
			if perr := b.r.problem(b.rec.Offset, false, false, "%s", stripOffset(err.Error())); perr != nil {
				b.done, b.endErr, b.r.err = true, perr, perr
				return 0, perr
			}
		}
		// End of member: the rest is the block, without a final CRLF CRLF.
		tail := buf
		for _, suf := range []string{"\r\n\r\n", "\n\n", "\r\n", "\n"} {
			if bytes.HasSuffix(tail, []byte(suf)) {
				tail = tail[:len(tail)-len(suf)]
				break
			}
		}
		if len(tail) == 0 {
			return 0, b.end()
		}
		n := copy(p, tail)
		b.r.discard(n)
		b.account(p[:n])
		return n, nil
	}
	buf, _ = br.Peek(br.Buffered())
	if i := bytes.Index(buf, []byte(scanDelim)); i >= 0 {
		if i == 0 {
			return 0, b.end()
		}
		buf = buf[:i]
	} else {
		buf = buf[:len(buf)-(len(scanDelim)-1)]
	}
	n := copy(p, buf)
	b.r.discard(n)
	b.account(p[:n])
	return n, nil
}

// skip consumes the rest of the block.
func (b *block) skip() error {
	if b.done {
		if b.endErr == io.EOF {
			return nil
		}
		return b.endErr
	}
	if b.dg == nil && !b.scan {
		for b.remaining > 0 {
			chunk := b.remaining
			if chunk > 1<<30 {
				chunk = 1 << 30
			}
			d, err := b.r.br.Discard(int(chunk))
			b.r.pos += int64(d)
			b.n += int64(d)
			b.remaining -= int64(d)
			if err != nil {
				if err == io.EOF && b.r.compressed && b.remaining > 0 {
					cont, cerr := b.crossMember()
					if cerr != nil {
						return cerr
					}
					if cont {
						continue
					}
				}
				if err := b.short(err); err != io.EOF {
					return err
				}
				return nil
			}
		}
		b.end()
		return nil
	}
	if b.r.scratch == nil {
		b.r.scratch = make([]byte, 32<<10)
	}
	for {
		_, err := b.Read(b.r.scratch)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}
