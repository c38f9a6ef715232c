package wacz

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"io"
	"strings"

	"github.com/arcport/arcport/lib/record"
	"github.com/arcport/arcport/lib/warc"
	"github.com/klauspost/compress/gzip"
)

// fastRecords is the record.Reader of `waczpack index` for a local
// gzip-per-record WARC: the fast path of create (fastraw.go) without the
// copy. For each member it inflates the WARC header and what the indexer
// reads of the block (the HTTP head; a request body), then finds the
// member's end without inflating the rest: the next member starts at the
// first plausible gzip header after it whose preceding ISIZE field equals
// the record's size with its CRLF CRLF. Anything else (a header the strict
// parser does not take, another ISIZE, a gzip error, bytes between
// members) hands the rest of the file, from that member on, to lib/warc's
// reader with the careful path's policy, so the lines and errors are those
// of the careful path. As in create, the CRC of a skipped rest is not
// checked (waczpack check does that).
type fastRecords struct {
	ra   io.ReaderAt // through win
	win  *window
	size int64
	name string

	pi     prefixInflater
	next   int64 // offset of the next member
	cur    *record.Record
	start  int64 // offset of cur's member
	hdrLen int64
	cl     int64
	blk    *fastIdxBlock
	gz     *gzip.Reader
	gzSrc  *countingSection
	br     *bufio.Reader

	skipped int // members whose end was found by ISIZE, not inflated

	// after a hand-over
	wr           *warc.Reader
	base         int64
	inner, outer *record.Record
	pending      *record.Record // read by replay, to hand out next
	pendingEOF   bool
	err          error
}

func newFastRecords(ra io.ReaderAt, size int64, name string) *fastRecords {
	w := &window{ra: ra, size: size, buf: make([]byte, 0, 1<<20)}
	return &fastRecords{ra: w, win: w, size: size, name: name, br: bufio.NewReaderSize(nil, 64<<10)}
}

// window reads a file through one 1 MiB window: the fast path's small
// reads (a member's head, the bytes searched for the next member, ISIZE
// fields), which mostly move forward, cost a system call per MiB.
type window struct {
	ra   io.ReaderAt
	size int64
	buf  []byte
	off  int64 // file offset of buf[0]
}

// slice returns up to n bytes at off (fewer at the end of the file or of
// the window), valid until the next call.
func (w *window) slice(off int64, n int) ([]byte, error) {
	if off >= w.size {
		return nil, io.EOF
	}
	if off < w.off || off >= w.off+int64(len(w.buf)) || (off+int64(n) > w.off+int64(len(w.buf)) && w.off+int64(len(w.buf)) < w.size && n <= cap(w.buf)/2) {
		m := int(min(int64(cap(w.buf)), w.size-off))
		k, err := w.ra.ReadAt(w.buf[:m], off)
		w.buf, w.off = w.buf[:k], off
		if k == 0 {
			if err == nil {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
	}
	b := w.buf[off-w.off:]
	return b[:min(len(b), n)], nil
}

// ReadAt implements io.ReaderAt through the window.
func (w *window) ReadAt(p []byte, off int64) (int, error) {
	if len(p) > cap(w.buf)/2 {
		return w.ra.ReadAt(p, off)
	}
	got := 0
	for got < len(p) {
		b, err := w.slice(off+int64(got), len(p)-got)
		got += copy(p[got:], b)
		if err != nil {
			return got, err
		}
	}
	return got, nil
}

// countingSection reads the file from off on.
type countingSection struct {
	ra  io.ReaderAt
	off int64
	end int64
}

func (c *countingSection) Read(p []byte) (int, error) {
	if c.off >= c.end {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), c.end-c.off)]
	n, err := c.ra.ReadAt(p, c.off)
	c.off += int64(n)
	if err == io.EOF && n > 0 {
		err = nil
	}
	return n, err
}

// fastIdxBlock is the block of the current record: from the prefix
// inflater's output, then from gz. An error is kept (the record is then
// read again by lib/warc, which reports it) and the block ends.
type fastIdxBlock struct {
	f   *fastRecords
	n   int64
	err error
}

func (b *fastIdxBlock) Read(p []byte) (int, error) {
	f := b.f
	if b.err != nil || b.n >= f.cl {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), f.cl-b.n)]
	if f.gzSrc == nil {
		at := int(f.hdrLen + b.n)
		if at >= len(f.pi.out) {
			if len(f.pi.out) < piMax {
				if err := f.pi.fill(len(f.pi.out) + fastStep); err != nil {
					b.err = err
					return 0, io.EOF
				}
			} else if err := f.switchToGz(); err != nil {
				b.err = err
				return 0, io.EOF
			}
		}
		if f.gzSrc == nil {
			if at >= len(f.pi.out) {
				b.err = io.ErrUnexpectedEOF
				return 0, io.EOF
			}
			n := copy(p, f.pi.out[at:])
			b.n += int64(n)
			return n, nil
		}
	}
	n, err := f.gz.Read(p)
	return memberRead(n, err, &b.n, f.cl, &b.err)
}

// switchToGz reads the member on with compress/flate (faster in bulk),
// inflating it again from its start to where the block has been read.
func (f *fastRecords) switchToGz() error {
	f.gzSrc = &countingSection{ra: f.ra, off: f.start, end: f.size}
	f.br.Reset(f.gzSrc)
	if err := resetMember(&f.gz, f.br); err != nil {
		f.gzSrc = nil
		return err
	}
	_, err := io.CopyN(io.Discard, f.gz, f.hdrLen+f.blk.n)
	return err
}

// Next implements record.Reader.
func (f *fastRecords) Next() (*record.Record, error) {
	if f.err != nil {
		return nil, f.err
	}
	if f.wr == nil && f.cur != nil {
		if !f.endCur() {
			if err := f.handover(f.start, f.cur); err != nil {
				f.err = err
				return nil, err
			}
		}
		f.cur = nil
	}
	if f.wr != nil {
		return f.nextCareful()
	}
	s := f.next
	if s >= f.size {
		f.err = io.EOF
		return nil, io.EOF
	}
	var b [1]byte
	if _, err := f.ra.ReadAt(b[:], s); err != nil || b[0] != 0x1f {
		if err := f.handover(s, nil); err != nil {
			f.err = err
			return nil, err
		}
		return f.nextCareful()
	}
	rec, ok := f.openMember(s)
	if !ok {
		if err := f.handover(s, nil); err != nil {
			f.err = err
			return nil, err
		}
		return f.nextCareful()
	}
	f.cur = rec
	return rec, nil
}

// openMember parses the WARC header of the member at s.
func (f *fastRecords) openMember(s int64) (*record.Record, bool) {
	f.start = s
	f.gzSrc = nil
	if err := f.pi.reset(&countingSection{ra: f.ra, off: s, end: f.size}); err != nil {
		return nil, false
	}
	for {
		if err := f.pi.fill(len(f.pi.out) + fastStep); err != nil {
			return nil, false
		}
		if rec, hl, cl, ok := parseFastHeader(f.pi.out); ok {
			if !strictHeader(rec) {
				return nil, false
			}
			rec.Offset = s
			f.hdrLen, f.cl = hl, cl
			f.blk = &fastIdxBlock{f: f}
			rec.Block = smallReads{f.blk}
			return rec, true
		}
		if f.pi.ended || len(f.pi.out) >= fastHeaderMax {
			return nil, false
		}
	}
}

// strictHeader reports whether lib/warc's reader takes rec's header as it
// is, with no problem (which the careful path's policy makes an error):
// the mandatory fields are there and Content-Length has no sign.
func strictHeader(rec *record.Record) bool {
	for _, f := range [...]string{record.FieldType, record.FieldRecordID, record.FieldDate} {
		if !rec.Header.Has(f) {
			return false
		}
	}
	for _, f := range rec.Header {
		if strings.EqualFold(f.Name, record.FieldContentLength) {
			return !strings.HasPrefix(f.Value, "+")
		}
	}
	return false
}

// endCur finds the end of the current record's member and sets its
// DiskLength; false when the member is not one record followed by CRLF
// CRLF as far as the fast path can tell.
func (f *fastRecords) endCur() bool {
	if f.blk.err != nil {
		return false
	}
	s := f.start
	size := f.hdrLen + f.cl
	var end int64
	switch {
	case f.gzSrc == nil && size+4-int64(len(f.pi.out)) <= piFinish:
		used, err := f.pi.finish(int(size) + 4)
		if err != nil || int64(len(f.pi.out)) != size+4 || string(f.pi.out[size:]) != "\r\n\r\n" {
			return false
		}
		end = s + used
	case f.cl-f.blk.n <= fastTailInflate:
		if f.gzSrc == nil {
			if err := f.switchToGz(); err != nil {
				return false
			}
		}
		if _, err := io.Copy(io.Discard, f.blk); err != nil || f.blk.err != nil || f.blk.n != f.cl {
			return false
		}
		var tail [8]byte
		n, err := io.ReadFull(f.gz, tail[:])
		if (err != io.ErrUnexpectedEOF && err != io.EOF) || string(tail[:n]) != "\r\n\r\n" {
			return false
		}
		end = f.gzSrc.off - int64(f.br.Buffered())
	default:
		e, ok := f.memberEnd(s, uint32(uint64(size)+4))
		if !ok {
			return false
		}
		end = e
		f.skipped++
	}
	f.cur.DiskLength = end - s
	f.next = end
	return true
}

// memberEnd finds where the member at start ends without inflating it:
// at the first plausible gzip header after it (or the end of the file),
// if the ISIZE field before that point is isize.
func (f *fastRecords) memberEnd(start int64, isize uint32) (int64, bool) {
	matches := func(end int64) bool {
		var t [4]byte
		if _, err := f.ra.ReadAt(t[:], end-4); err != nil && err != io.EOF {
			return false
		}
		return binary.LittleEndian.Uint32(t[:]) == isize
	}
	if f.size-start < 18 {
		return 0, false
	}
	for pos := start + 18; pos < f.size; {
		w, err := f.win.slice(pos, 256<<10)
		if len(w) == 0 {
			return 0, false
		}
		i := bytes.IndexByte(w, 0x1f)
		if i < 0 {
			pos += int64(len(w))
			continue
		}
		c := pos + int64(i)
		var hdr [10]byte
		if k, _ := f.ra.ReadAt(hdr[:], c); k == 10 && plausibleGzipHeader(hdr[:]) {
			return c, matches(c)
		}
		pos = c + 1
		if err != nil && err != io.EOF {
			return 0, false
		}
	}
	return f.size, matches(f.size)
}

// handover reads the file from the member at s on with lib/warc's reader
// (the careful path's policy: the first damage is an error). first, when
// not nil, is the record of that member the indexer already has: it is
// read again, not handed out twice, and given its DiskLength.
func (f *fastRecords) handover(s int64, first *record.Record) error {
	if first == nil {
		var m [3]byte
		if n, _ := f.ra.ReadAt(m[:], s); n < 3 || m != [3]byte{0x1f, 0x8b, 8} {
			return f.replay(s)
		}
	}
	f.base = s
	wr, err := warc.NewReader(bufio.NewReaderSize(&countingSection{ra: f.ra, off: s, end: f.size}, 64<<10),
		warc.WithFilename(f.name), warc.WithPolicy(record.Fail))
	if err != nil {
		return shiftProblem(err, s)
	}
	f.wr = wr
	f.inner, f.outer = nil, nil
	if first == nil {
		return nil
	}
	rec, err := wr.Next()
	if err != nil {
		return shiftProblem(err, s)
	}
	if rec.Block != nil {
		if _, err := io.Copy(io.Discard, rec.Block); err != nil {
			return shiftProblem(err, s)
		}
	}
	f.inner, f.outer = rec, first
	return nil
}

// replay hands over at s, where no gzip member starts: lib/warc's reader
// reads the file again from its start (where it saw gzip, as the careful
// path did) and the records before s are passed over, so that what it
// makes of the bytes at s (NUL padding skipped, or an error) is what the
// careful path makes of them.
func (f *fastRecords) replay(s int64) error {
	f.base = 0
	f.inner, f.outer = nil, nil
	wr, err := warc.NewReader(bufio.NewReaderSize(&countingSection{ra: f.ra, off: 0, end: f.size}, 64<<10),
		warc.WithFilename(f.name), warc.WithPolicy(record.Fail))
	if err != nil {
		return err
	}
	f.wr = wr
	for {
		rec, err := wr.Next()
		if err != nil {
			if err == io.EOF {
				f.pendingEOF = true
				return nil
			}
			return err
		}
		if rec.Offset >= s {
			f.pending = rec
			return nil
		}
		if rec.Block != nil {
			if _, err := io.Copy(io.Discard, rec.Block); err != nil {
				return err
			}
		}
	}
}

// nextCareful is Next after a hand-over: lib/warc's records, with file
// offsets.
func (f *fastRecords) nextCareful() (*record.Record, error) {
	if f.pendingEOF {
		f.err = io.EOF
		return nil, io.EOF
	}
	if rec := f.pending; rec != nil {
		f.pending = nil
		f.inner, f.outer = rec, rec
		return rec, nil
	}
	rec, err := f.wr.Next()
	if f.outer != nil {
		f.outer.DiskLength = f.inner.DiskLength
		f.inner, f.outer = nil, nil
	}
	if err != nil {
		f.err = shiftProblem(err, f.base)
		return nil, f.err
	}
	if f.base == 0 {
		f.inner, f.outer = rec, rec
		return rec, nil
	}
	out := *rec
	out.Offset += f.base
	shiftBlock(&out, f.base)
	f.inner, f.outer = rec, &out
	return &out, nil
}
