package wacz

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/arcport/arcport/lib/record"
	"github.com/arcport/arcport/lib/warc"
	"github.com/klauspost/compress/gzip"
)

// The fast path for gzip-per-record WARC input.
//
// The input's bytes are copied into archive/ as they are read (rawStream).
// For each gzip member the fast path inflates only what indexing and page
// detection need: the WARC header, the HTTP head, and HTML bodies. The end
// of a member whose rest need not be read is found without inflating it:
// the next member starts at the first plausible gzip header after it
// (1f 8b 08, reserved flag bits clear, a known XFL and OS byte), and only
// if the four bytes before that header, the gzip ISIZE trailer field, equal
// the record's size (WARC header + Content-Length + its CRLF CRLF). A
// member holding more than one record, or anything unusual (a header the
// strict parser here does not take, a mismatching trailer, a gzip error),
// hands the rest of the input over to lib/warc's reader from that member
// on, which reports problems and detects multi-record members as usual.
// Options.Verify inflates every member to its end (checking every CRC).

// fastTailInflate: a record whose unread rest is at most this long is
// inflated to its end rather than skipped (it costs little and checks the
// member's CRC).
const fastTailInflate = 2 << 10

// fastStep is the most the fast path inflates at a time while it reads
// headers, so that a member's rest can still be skipped.
const fastStep = 1 << 10

// fastHeaderMax bounds the WARC header the fast path parses.
const fastHeaderMax = 64 << 10

// rawStream reads the input in large chunks, copying every byte to the
// sink (the raw copy) while tap is set, and serves stream bytes by offset:
// recent ones from memory, older ones read back from the sink.
type rawStream struct {
	r      io.Reader
	sink   *archiveSink
	tap    bool
	win    []byte // stream bytes [winOff, winOff+len(win))
	winOff int64
	eof    bool
	err    error
}

const rawWindow = 8 << 20

// newRawStream returns a rawStream over r, its window in buf when buf has
// room (a Writer reuses one window for all its inputs: clearing 9 MiB for
// each of 10,000 small inputs cost more than reading them).
func newRawStream(r io.Reader, sink *archiveSink, buf []byte) *rawStream {
	if cap(buf) < rawWindow+(1<<20) {
		buf = make([]byte, 0, rawWindow+(1<<20))
	}
	return &rawStream{r: r, sink: sink, tap: true, win: buf[:0]}
}

// keepWindow gives the window of in's raw stream back to its Writer for
// the next input, once nothing reads it any more.
func (in *inputRun) keepWindow() {
	if in.rs != nil && in.rs.win != nil {
		in.w.rawWin = in.rs.win[:0]
		in.rs.win = nil
	}
}

// async moves the raw copy's hashing and writing to another goroutine.
func (s *rawStream) async() error {
	if s.sink.part == nil {
		if err := s.sink.open(); err != nil {
			return err
		}
	}
	s.sink.sent = s.sink.pos
	s.sink.tap = newTapper(s.sink)
	return nil
}

// syncTap stops the raw copy's goroutine (before anything else writes to
// the sink).
func (s *rawStream) syncTap() error {
	t := s.sink.tap
	if t == nil {
		return nil
	}
	s.sink.tap = nil
	return t.stop()
}

func (s *rawStream) end() int64 { return s.winOff + int64(len(s.win)) }

// fill reads more input, keeping stream bytes from keep on in memory when
// it can. It returns io.EOF at the end of the input.
func (s *rawStream) fill(keep int64) error {
	if s.err != nil {
		return s.err
	}
	if s.eof {
		return io.EOF
	}
	if len(s.win) >= rawWindow {
		drop := int64(len(s.win)) - rawWindow/2
		if k := keep - s.winOff; k < drop {
			drop = max(k, 0)
		}
		if drop == 0 && cap(s.win)-len(s.win) < 64<<10 {
			drop = int64(len(s.win)) - rawWindow/2 // keep is far back: the sink has it
		}
		if drop > 0 {
			n := copy(s.win, s.win[drop:])
			s.win = s.win[:n]
			s.winOff += drop
		}
	}
	if cap(s.win)-len(s.win) < 64<<10 {
		nw := make([]byte, len(s.win), 2*cap(s.win))
		copy(nw, s.win)
		s.win = nw
	}
	n, err := s.r.Read(s.win[len(s.win):cap(s.win)])
	if n > 0 {
		chunk := s.win[len(s.win) : len(s.win)+n]
		if s.tap {
			var werr error
			if s.sink.tap != nil {
				werr = s.sink.tap.write(chunk)
			} else {
				_, werr = s.sink.Write(chunk)
			}
			if werr != nil {
				s.err = werr
				return werr
			}
		}
		s.win = s.win[:len(s.win)+n]
	}
	if err == io.EOF {
		s.eof = true
		if n == 0 {
			return io.EOF
		}
		return nil
	}
	if err != nil {
		s.err = err
	}
	return err
}

// readAt reads stream bytes at off (at most up to the current window end
// after filling once).
func (s *rawStream) readAt(p []byte, off int64) (int, error) {
	for off >= s.end() {
		if err := s.fill(off); err != nil {
			return 0, err
		}
	}
	if off >= s.winOff {
		return copy(p, s.win[off-s.winOff:]), nil
	}
	n := int(min(int64(len(p)), s.winOff-off))
	return s.sink.readAt(p[:n], off)
}

// at returns the byte at off, filling as needed; ok false at the end.
func (s *rawStream) at(off int64) (byte, bool, error) {
	var b [1]byte
	n, err := s.readAt(b[:], off)
	if n == 1 {
		return b[0], true, nil
	}
	if err == io.EOF {
		return 0, false, nil
	}
	return 0, false, err
}

// streamReader reads a rawStream sequentially from an offset.
type streamReader struct {
	s   *rawStream
	off int64
}

func (r *streamReader) Read(p []byte) (int, error) {
	n, err := r.s.readAt(p, r.off)
	r.off += int64(n)
	return n, err
}

// plausibleGzipHeader reports whether b (10 bytes) looks like the start of
// a gzip member as archive tools write them.
func plausibleGzipHeader(b []byte) bool {
	return len(b) >= 10 && b[0] == 0x1f && b[1] == 0x8b && b[2] == 8 && b[3]&0xe0 == 0 &&
		(b[8] == 0 || b[8] == 2 || b[8] == 4) && (b[9] <= 13 || b[9] == 255)
}

// memberEnd finds where the gzip member starting at start ends without
// inflating it: at the first plausible gzip header after it, or the end of
// the input, provided the ISIZE field before that point is one of sizes.
// ok is false when the first candidate does not match (the caller then
// inflates the member to learn the truth).
func (s *rawStream) memberEnd(start int64, sizes []uint32) (int64, bool, error) {
	pos := start + 18
	var hdr [10]byte
	matches := func(end int64) (bool, error) {
		var t [4]byte
		if n, err := s.readAt(t[:], end-4); n < 4 {
			return false, err
		}
		v := binary.LittleEndian.Uint32(t[:])
		for _, z := range sizes {
			if v == z {
				return true, nil
			}
		}
		return false, nil
	}
	for {
		for pos >= s.end() {
			if err := s.fill(pos - 8); err != nil {
				if err == io.EOF {
					ok, err := matches(s.end())
					return s.end(), ok, err
				}
				return 0, false, err
			}
		}
		if pos < s.winOff {
			pos = s.winOff // cannot happen while fill keeps pos-8
		}
		w := s.win[pos-s.winOff:]
		i := bytes.IndexByte(w, 0x1f)
		if i < 0 {
			pos += int64(len(w))
			continue
		}
		c := pos + int64(i)
		n, err := s.readAt(hdr[:], c)
		for n < 10 && err == nil {
			var k int
			k, err = s.readAt(hdr[n:], c+int64(n))
			n += k
		}
		if n == 10 && plausibleGzipHeader(hdr[:]) {
			ok, err := matches(c)
			return c, ok, err
		}
		if err != nil && err != io.EOF {
			return 0, false, err
		}
		pos = c + 1
	}
}

// fastState is the fast path's state.
type fastState struct {
	rs     *rawStream
	next   int64 // offset of the next member
	sr     streamReader
	br     *bufio.Reader
	gz     *gzip.Reader
	pi     prefixInflater
	gzOn   bool // the member is read with gz (from its start) rather than pi
	cur    *pendingRec
	start  int64
	hdrLen int64
	cl     int64
	block  *fastBlock
	verify bool
	buf    []byte
	// trailer is the warning about the last member's record not being
	// followed by CRLF CRLF, given once the next member is known to start
	// a record (or the input ends): when it does not, the careful path
	// takes over there, and it may find the CRLF CRLF at that member's
	// start (records split across members) and not warn.
	trailer *record.Problem
}

// piMax is how much of a member the prefix inflater decodes before the
// block is read on with compress/flate (which is faster in bulk).
const piMax = 8 << 10

// piFinish: a member with at most this many bytes left to decode is
// decoded to its end by the prefix inflater, which checks its CRC and finds
// its exact end.
const piFinish = 4 << 10

// fastBlock is the block of the member's record: from the prefix
// inflater's output, then from gz. A read error other than io.EOF is kept
// and reported as io.EOF, so the indexer sees a short block and the fast
// path hands the member over to lib/warc, which reports the damage.
type fastBlock struct {
	fs  *fastState
	n   int64 // bytes handed out
	err error
}

func (b *fastBlock) Read(p []byte) (int, error) {
	fs := b.fs
	if b.err != nil || b.n >= fs.cl {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), fs.cl-b.n)]
	if !fs.gzOn {
		at := int(fs.hdrLen + b.n)
		if at >= len(fs.pi.out) {
			if len(fs.pi.out) < piMax {
				if err := fs.pi.fill(len(fs.pi.out) + fastStep); err != nil {
					b.err = err
					return 0, io.EOF
				}
			} else if err := fs.switchToGz(); err != nil {
				b.err = err
				return 0, io.EOF
			}
		}
		if !fs.gzOn {
			if at >= len(fs.pi.out) {
				b.err = io.ErrUnexpectedEOF // the member ended inside the block
				return 0, io.EOF
			}
			n := copy(p, fs.pi.out[at:])
			b.n += int64(n)
			return n, nil
		}
	}
	n, err := fs.gz.Read(p)
	return memberRead(n, err, &b.n, fs.cl, &b.err)
}

// resetMember makes *gz read one gzip member from br (made on first use).
func resetMember(gz **gzip.Reader, br *bufio.Reader) error {
	var err error
	if *gz == nil {
		*gz, err = gzip.NewReader(br)
	} else {
		err = (*gz).Reset(br)
	}
	if err != nil {
		return err
	}
	(*gz).Multistream(false)
	return nil
}

// memberRead ends a block's Read from its member's gzip reader: n bytes
// came with err; *got counts the block bytes handed out of cl. An error,
// or the member ending inside the block, is kept in *keep and reported as
// io.EOF (the caller then hands the member to lib/warc, which reports it).
func memberRead(n int, err error, got *int64, cl int64, keep *error) (int, error) {
	*got += int64(n)
	if err == io.EOF && *got < cl {
		*keep = io.ErrUnexpectedEOF
		return n, io.EOF
	}
	if err != nil && err != io.EOF {
		*keep = err
		return n, io.EOF
	}
	return n, nil
}

// switchToGz reads the member on with gz: inflated again from its start,
// up to where the block has been read.
func (fs *fastState) switchToGz() error {
	fs.sr = streamReader{s: fs.rs, off: fs.start}
	fs.br.Reset(&fs.sr)
	if err := resetMember(&fs.gz, fs.br); err != nil {
		return err
	}
	fs.gzOn = true
	done := fs.hdrLen
	if fs.block != nil {
		done += fs.block.n
	}
	_, err := io.CopyN(io.Discard, fs.gz, done)
	return err
}

// smallReads hands out at most fastStep bytes per Read, so a buffered
// reader on top (the indexer's) does not make the member inflate further
// than what it parses.
type smallReads struct{ r io.Reader }

func (s smallReads) Read(p []byte) (int, error) {
	if len(p) > fastStep {
		p = p[:fastStep]
	}
	return s.r.Read(p)
}

var errFallback = errors.New("fast path does not take this member")

// startFast sets up the fast path over the input.
func (in *inputRun) startFast(src io.Reader) error {
	in.rs = newRawStream(src, in.sink, in.w.takeWindow())
	if err := in.rs.async(); err != nil {
		return err
	}
	in.fs = &fastState{rs: in.rs, br: getReader64(nil), verify: in.w.opts.Verify}
	in.fast = true
	return nil
}

// nextFast reads the WARC header of the next member and returns the
// indexer's view of its record.
func (in *inputRun) nextFast() (*record.Record, error) {
	fs := in.fs
	s := fs.next
	b0, ok, err := fs.rs.at(s)
	if err != nil {
		return nil, err
	}
	for ok && b0 == 0 {
		// NUL padding between members (tape blocks): copied, skipped
		s++
		b0, ok, err = fs.rs.at(s)
		if err != nil {
			return nil, err
		}
	}
	fs.next = s
	if !ok {
		in.flushTrailer()
		in.eof = true
		return nil, io.EOF
	}
	if b0 != 0x1f {
		fs.trailer = nil
		return nil, in.handover(s, nil)
	}
	rec, err := in.openMember(s)
	if err == errFallback {
		fs.trailer = nil
		return nil, in.handover(s, nil)
	}
	if err != nil {
		return nil, err
	}
	in.flushTrailer()
	pr := &pendingRec{rec: rec, seq: in.seq}
	in.seq++
	fs.cur = pr
	in.detect(rec, nil)
	in.out = pr
	return &record.Record{Version: rec.Version, Header: rec.Header, Block: smallReads{rec.Block}, Offset: pr.seq}, nil
}

// openMember starts decoding the member at s and parses its WARC header.
func (in *inputRun) openMember(s int64) (*record.Record, error) {
	fs := in.fs
	fs.start = s
	fs.gzOn = false
	fs.block = nil
	fs.sr = streamReader{s: fs.rs, off: s}
	if err := fs.pi.reset(&fs.sr); err != nil {
		return nil, errFallback
	}
	for {
		if err := fs.pi.fill(len(fs.pi.out) + fastStep); err != nil {
			return nil, errFallback
		}
		if rec, hl, cl, ok := parseFastHeader(fs.pi.out); ok {
			rec.Offset = s
			fs.hdrLen, fs.cl = hl, cl
			fs.block = &fastBlock{fs: fs}
			rec.Block = fs.block
			return rec, nil
		}
		if fs.pi.ended || len(fs.pi.out) >= fastHeaderMax {
			return nil, errFallback
		}
	}
}

// parseFastHeader parses a WARC header at the start of b when it is plain:
// "WARC/1.0" or "WARC/1.1", CRLF line ends, "Name: value" fields, an empty
// line, a valid Content-Length, and WARC-Type, WARC-Record-ID and
// WARC-Date present. ok is false otherwise, including when b does not hold
// the whole header yet.
func parseFastHeader(b []byte) (*record.Record, int64, int64, bool) {
	i := bytes.Index(b, []byte("\r\n\r\n"))
	if i < 0 || !bytes.HasPrefix(b, []byte("WARC/1.")) {
		return nil, 0, 0, false
	}
	head := string(b[:i])
	version, rest, _ := strings.Cut(head, "\r\n")
	if version != record.WARC10 && version != record.WARC11 {
		return nil, 0, 0, false
	}
	rec := &record.Record{Version: version, Header: make(record.Header, 0, strings.Count(rest, "\r\n")+1)}
	cl := int64(-1)
	for len(rest) > 0 {
		var l string
		l, rest, _ = strings.Cut(rest, "\r\n")
		name, value, found := strings.Cut(l, ":")
		if !found || name == "" || !plainName(name) || strings.IndexByte(value, '\r') >= 0 || strings.IndexByte(value, '\n') >= 0 {
			return nil, 0, 0, false
		}
		value = strings.TrimSpace(value)
		if strings.EqualFold(name, record.FieldContentLength) {
			n, err := strconv.ParseInt(value, 10, 64)
			if err != nil || n < 0 || cl >= 0 {
				return nil, 0, 0, false
			}
			cl = n
		}
		rec.Header = append(rec.Header, record.Field{Name: name, Value: value})
	}
	if cl < 0 {
		return nil, 0, 0, false
	}
	// a field lib/warc's reader requires is missing: damage it reports
	for _, f := range [...]string{record.FieldType, record.FieldRecordID, record.FieldDate} {
		if !rec.Header.Has(f) {
			return nil, 0, 0, false
		}
	}
	return rec, int64(i + 4), cl, true
}

// plainName reports whether a field name holds no blank or line end (a
// loop: strings.ContainsAny builds its byte set on every call, a
// noticeable part of the fast index path).
func plainName(name string) bool {
	for i := 0; i < len(name); i++ {
		switch name[i] {
		case ' ', '\t', '\r', '\n':
			return false
		}
	}
	return true
}

// endFast finishes the member handed out last: the page detector gets the
// block while it wants it, then the member's end is found (by decoding a
// short rest, or by looking for the next member) and the record placed.
func (in *inputRun) endFast() error {
	fs := in.fs
	pr := in.out
	in.out = nil
	rec := pr.rec
	if done, err := in.deferPage(); done || err != nil {
		return err
	}
	if fs.buf == nil {
		fs.buf = make([]byte, 32<<10)
	}
	buf := fs.buf
	if in.w.det.Full && in.w.det.Wants() && !fs.gzOn && fs.block.err == nil && fs.hdrLen+fs.cl > int64(len(fs.pi.out)) {
		// a page body: compress/flate inflates in bulk faster
		if err := fs.switchToGz(); err != nil {
			fs.block.err = err
		}
	}
	for in.w.det.Wants() {
		if _, err := rec.Block.Read(buf); err != nil {
			break
		}
	}
	in.finish(rec)
	if fs.block.err != nil {
		return in.handover(fs.start, pr)
	}
	s := fs.start
	size := fs.hdrLen + fs.cl // the record, without its CRLF CRLF
	var end int64
	switch {
	case !fs.gzOn && (size+4-int64(len(fs.pi.out)) <= piFinish || fs.verify && size <= piMax):
		used, err := fs.pi.finish(int(size) + 4) // the record and its CRLF CRLF, nothing more
		if err != nil || !onlyLineEnds(fs.pi.out, size) || !isTrailer(fs.pi.out[size:]) {
			return in.handover(s, pr)
		}
		end = s + used
	case fs.verify || fs.cl-fs.block.n <= fastTailInflate:
		if !fs.gzOn {
			if err := fs.switchToGz(); err != nil {
				return in.handover(s, pr)
			}
		}
		e, tail, ok := in.inflateRest()
		if !ok || !isTrailer(tail) {
			return in.handover(s, pr)
		}
		end = e
	default:
		u := uint64(size)
		sizes := []uint32{uint32(u + 4)}
		e, ok, err := fs.rs.memberEnd(s, sizes)
		if err != nil {
			return err
		}
		if !ok {
			return in.handover(s, pr)
		}
		end = e
		in.w.stats.Skipped++
		if err := in.noteTrailerSize(s, end, u); err != nil {
			return err
		}
	}
	if err := in.place(pr.seq, s, end); err != nil {
		return err
	}
	in.w.stats.CopiedRaw += end - s
	fs.next = end
	return nil
}

// deferMax bounds the (decoded) size of a record whose page detection is
// left to a worker, which gets a copy of its gzip member.
const deferMax = 2 << 20

// deferPage, for a record the page detector wants the body of, finds the
// member's end without inflating it and leaves the inflating and reading
// of the page to a detector worker (on another core), placing the record
// at once. done is false when it did not (the caller goes on inline).
func (in *inputRun) deferPage() (done bool, err error) {
	fs := in.fs
	rec := in.fs.cur.rec
	if !in.w.det.Full || !in.w.det.Wants() || fs.verify || fs.block.err != nil || fs.hdrLen+fs.cl > deferMax {
		return false, nil
	}
	s := fs.start
	u := uint64(fs.hdrLen + fs.cl)
	end, ok, err := fs.rs.memberEnd(s, []uint32{uint32(u + 4)})
	if err != nil || !ok {
		return false, err
	}
	member := make([]byte, end-s)
	for got := 0; got < len(member); {
		n, err := fs.rs.readAt(member[got:], s+int64(got))
		if n == 0 {
			if err == nil {
				err = io.ErrUnexpectedEOF
			}
			return false, err
		}
		got += n
	}
	if !in.w.det.Defer(rec, member, fs.hdrLen, s) {
		return false, nil
	}
	if err := in.noteTrailerSize(s, end, u); err != nil {
		return true, err
	}
	in.finish(rec)
	if err := in.place(fs.cur.seq, s, end); err != nil {
		return true, err
	}
	in.w.stats.CopiedRaw += end - s
	in.w.stats.Skipped++
	fs.next = end
	return true, nil
}

// onlyLineEnds reports whether out is size bytes followed by at most four
// CR or LF bytes: one record in the member and nothing else.
func onlyLineEnds(out []byte, size int64) bool {
	if int64(len(out)) < size || int64(len(out)) > size+4 {
		return false
	}
	for _, c := range out[size:] {
		if c != '\r' && c != '\n' {
			return false
		}
	}
	return true
}

// inflateRest reads the rest of the member with gz: the block, then nothing
// but line ends up to the member's end (checked by gzip's CRC and size).
// It returns the member's end offset; ok is false for anything else
// (another record in the member, a gzip error).
func (in *inputRun) inflateRest() (int64, []byte, bool) {
	fs := in.fs
	if _, err := io.Copy(io.Discard, fs.block); err != nil || fs.block.err != nil || fs.block.n != fs.cl {
		return 0, nil, false
	}
	var tail [64]byte
	total := 0
	for {
		n, err := fs.gz.Read(tail[total:])
		for _, c := range tail[total : total+n] {
			if c != '\r' && c != '\n' {
				return 0, nil, false
			}
		}
		total += n
		if total > 4 {
			return 0, nil, false
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, nil, false
		}
	}
	return fs.sr.off - int64(fs.br.Buffered()), tail[:total], true
}

// isTrailer reports whether tail, what follows a record in its member, is
// the CRLF CRLF that ends a record. Anything else (nothing, CRLF, LF LF...)
// is damage that lib/warc's reader reports ("record not followed by CRLF
// CRLF (found ...)", as waczpack index does): the fast paths hand such a
// member over to it rather than word the problem themselves. A member
// whose end is found by its ISIZE field is taken only when ISIZE is the
// record's size plus the 4 bytes of CRLF CRLF (which 4 bytes they are is
// checked by inflating them: --verify).
func isTrailer(tail []byte) bool { return string(tail) == "\r\n\r\n" }

// noteTrailerSize was the trailer warning of a member whose end was found
// by its ISIZE field; such a member is now taken only when ISIZE counts
// the 4 bytes of CRLF CRLF, so it only checks that the field is there.
func (in *inputRun) noteTrailerSize(s, end int64, u uint64) error {
	var t [4]byte
	if n, err := in.fs.rs.readAt(t[:], end-4); n < 4 {
		if err == nil {
			err = io.ErrUnexpectedEOF
		}
		return err
	}
	return nil
}

// flushTrailer gives the noted trailer warning.
func (in *inputRun) flushTrailer() {
	if p := in.fs.trailer; p != nil {
		in.fs.trailer = nil
		in.problem(p)
	}
}

// handover switches the rest of the input, from the member at s on, to
// lib/warc's reader. first, when not nil, is the member's record the
// indexer has already seen: it is read again and not handed out twice.
func (in *inputRun) handover(s int64, first *pendingRec) error {
	if in.fast {
		in.w.stats.Handovers++
	}
	in.fast = false
	in.rawBase = s
	src := &streamReader{s: in.rs, off: s}
	// the reader counts offsets from s: its problems are given file offsets
	shift := func(p *record.Problem) {
		p.Offset += s
		in.problem(p)
	}
	wr, err := warc.NewReader(src, warc.WithFilename(in.name), warc.WithPolicy(record.Warn), warc.WithProblemFunc(shift))
	if err != nil {
		return err
	}
	in.raw, in.wr, in.src = true, wr, wr
	if first == nil {
		return nil
	}
	rec, err := wr.Next()
	if err != nil {
		if err == io.EOF {
			// the reader reported why (damage the fast path had not
			// reached, such as a bad CRC past what it inflated)
			if ferr := in.getFatal(); ferr != nil {
				return ferr
			}
			err = fmt.Errorf("%s: record at offset %d: cannot read it again", in.name, s)
		}
		return shiftProblem(err, s)
	}
	shiftBlock(rec, s)
	// page detection again, on the record as lib/warc reads it
	in.w.det.Forget()
	in.detect(rec, nil)
	if rec.Block != nil {
		if _, err := io.Copy(io.Discard, rec.Block); err != nil {
			return err
		}
	}
	in.w.det.End(rec)
	in.prev = &pendingRec{rec: rec, seq: first.seq}
	return nil
}
