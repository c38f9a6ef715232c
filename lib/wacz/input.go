package wacz

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/arcport/arcport/lib/cdx"
	"github.com/arcport/arcport/lib/record"
	"github.com/arcport/arcport/lib/warc"
)

// indexPrefix bounds how much of a re-encoded record's block is kept for
// the indexer: the HTTP head (cdx reads at most httpmsg.MaxHeadSize) and a
// request body (cdx.DefaultMaxRequestBody), with room for the line ends.
const indexPrefix = 2<<20 + 64<<10

// inputRun adds one input. It is the record.Reader the CDX indexer pulls
// from: each Next moves the input on by one record, placing the record in
// archive/ (copying its gzip member as it is, or writing it through the
// WARC writer), and hands the indexer a view of it whose Offset is the
// record's sequence number. The indexer's entries are then given the
// record's real place (file, offset, length) by seq.
type inputRun struct {
	w     *Writer
	name  string
	sink  *archiveSink
	fatal error

	raw     bool // copying gzip members as they are
	fast    bool // raw, through the fast path (fastraw.go)
	fs      *fastState
	par     *parInput // the parallel phase of the fast path (fastpar.go)
	parView *record.Record
	parPrep *cdx.Prep
	rs      *rawStream // raw mode: the input, copied to the sink as read
	rawBase int64      // stream offset where wr started reading
	src     record.Reader
	wr      *warc.Reader // raw mode: reads the raw stream
	ww      recordWriter // re-encode mode
	base    int64        // sink offset where the WARC writer's output starts
	eof     bool

	seq   int64
	prev  *pendingRec // raw mode: last record read, its place not yet known
	out   *pendingRec // record whose block the indexer may still be reading
	carry *record.Record

	mu      sync.Mutex
	queue   []*pendingRec // given to the WARC writer, awaiting OnWritten
	placed  map[int64]placement
	entries []*cdx.Entry // from the indexer, awaiting their record's place
	prefix  bytes.Buffer
	line    []byte
}

type placement struct {
	file     string
	off, len int64
}

// pendingRec is a record read, waiting for its place.
type pendingRec struct {
	rec *record.Record
	seq int64
}

func newInputRun(w *Writer, name string, sink *archiveSink) *inputRun {
	return &inputRun{w: w, name: name, sink: sink, placed: map[int64]placement{}}
}

func (in *inputRun) readerOpts() []warc.Option {
	return []warc.Option{warc.WithFilename(in.name), warc.WithPolicy(record.Warn), warc.WithProblemFunc(in.problem)}
}

// problem sorts reader problems. Every problem lib/warc's reader reports
// is damage, repaired or not (a truncation, skipped bytes, an impossible
// length, a record not followed by CRLF CRLF, a field the reader had to
// rewrite): it stops the run unless Lenient, which goes on and counts it
// (Stats.Damaged: the command exits 1 with the WACZ written). lib/warc's
// reader under record.Fail (waczpack index) stops at the same problem with
// the same message, so both commands give the same verdict (see
// docs/damaged-input.md). The one exception is a gzip member holding more
// than one record: it is compressed again, one member per record, which
// loses nothing.
func (in *inputRun) problem(p *record.Problem) {
	if p.File == "" {
		p.File = in.name
	}
	if IsMultiRecordMember(p.Msg) {
		return // handled: such members are compressed again
	}
	if !in.w.opts.Lenient {
		in.setFatal(p)
		return
	}
	in.w.damaged(p)
}

// IsMultiRecordMember reports whether a problem message is lib/warc's "gzip
// (or zstd) member holds more than one record": not damage (create compresses
// such members again, one per record), though an index cannot address the
// records after the first.
func IsMultiRecordMember(msg string) bool {
	return strings.Contains(msg, "member holds more than one record")
}

func (in *inputRun) setFatal(err error) {
	in.mu.Lock()
	if in.fatal == nil {
		in.fatal = err
	}
	in.mu.Unlock()
}

func (in *inputRun) getFatal() error {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.fatal
}

// startRaw sets up the copy of a WARC made of gzip members: the members go
// into the zip as they are while the decompressed records are indexed.
func (in *inputRun) startRaw(src io.Reader) error {
	in.raw = true
	if !in.w.opts.NoFastPath {
		return in.startFast(src)
	}
	in.rs = newRawStream(src, in.sink, in.w.takeWindow())
	if err := in.rs.async(); err != nil {
		return err
	}
	return in.handover(0, nil)
}

// startReencode sets up writing the records of src through the WARC
// writer, one gzip member per record.
func (in *inputRun) startReencode(src record.Reader) {
	in.raw, in.src = false, src
	in.startWriter()
}

func (in *inputRun) startWriter() {
	in.base = in.sink.Pos()
	in.ww = newRecordWriter(in.sink, in.w.opts.TempDir, func(rec *record.Record, off, n int64) {
		in.mu.Lock()
		if len(in.queue) == 0 || in.queue[0].rec != rec {
			in.mu.Unlock()
			in.setFatal(fmt.Errorf("%s: internal error: WARC writer reported records out of order", in.name))
			return
		}
		pr := in.queue[0]
		in.queue = in.queue[1:]
		in.mu.Unlock()
		if err := in.place(pr.seq, in.base+off, in.base+off+n); err != nil {
			in.setFatal(err)
		}
	})
}

// index runs the CDX indexer over the input and sends its entries, once
// placed, to the collection's index.
func (in *inputRun) index() error {
	ix := cdx.NewIndexer(in, "", cdx.WithReplayableRevisits(true), cdx.WithPrepared(in.prepared))
	for {
		e, err := ix.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		in.mu.Lock()
		in.entries = append(in.entries, e)
		in.mu.Unlock()
		if err := in.flushEntries(); err != nil {
			return err
		}
	}
	if err := in.flushEntries(); err != nil {
		return err
	}
	if len(in.entries) > 0 {
		return fmt.Errorf("%s: internal error: %d index entries without a place", in.name, len(in.entries))
	}
	if in.rs != nil {
		if err := in.rs.syncTap(); err != nil {
			return err
		}
		in.keepWindow()
	}
	return in.sink.Close()
}

// prepared gives the indexer what a worker of the parallel fast path read
// of the record handed out last.
func (in *inputRun) prepared(view *record.Record) *cdx.Prep {
	if in.parView != view || in.parView == nil {
		return nil
	}
	return in.parPrep
}

// flushEntries gives placed entries their file, offset and length and adds
// them to the index, in order.
func (in *inputRun) flushEntries() error {
	for {
		in.mu.Lock()
		if len(in.entries) == 0 {
			in.mu.Unlock()
			return nil
		}
		e := in.entries[0]
		seq, ok := e.Offset()
		if !ok {
			in.mu.Unlock()
			return fmt.Errorf("%s: internal error: index entry without a sequence number", in.name)
		}
		p, ok := in.placed[seq]
		if !ok {
			in.mu.Unlock()
			return nil
		}
		delete(in.placed, seq)
		in.entries = in.entries[1:]
		in.mu.Unlock()
		if _, _, err := record.ParseTimestamp(e.Timestamp); err != nil {
			// no date a replay tool can use (the WACZ would not validate):
			// an error, or with Lenient a warning and no index line
			in.problem(&record.Problem{File: ArchiveDir + p.file, Offset: p.off, Skipped: true,
				Msg: fmt.Sprintf("WARC-Date gives the timestamp %q, not a date: the record is not indexed", e.Timestamp)})
			if err := in.getFatal(); err != nil {
				return err
			}
			continue
		}
		e.Set(cdx.FieldLength, fmt.Sprint(p.len))
		e.Set(cdx.FieldOffset, fmt.Sprint(p.off))
		e.Set(cdx.FieldFilename, p.file)
		in.line = e.AppendCDXJ(in.line[:0])
		if err := in.w.index.add(in.line); err != nil {
			return err
		}
		in.w.stats.Captures++
	}
}

// place records where record seq ended up.
func (in *inputRun) place(seq, start, end int64) error {
	file, off, err := in.sink.Place(start, end)
	if err != nil {
		return err
	}
	in.mu.Lock()
	in.placed[seq] = placement{file, off, end - start}
	in.mu.Unlock()
	return nil
}

// release gives back the buffers the run took from pools.
func (in *inputRun) release() {
	if in.par != nil {
		in.par.stop()
		in.par = nil
	}
	if in.fs != nil && in.fs.br != nil {
		putReader64(in.fs.br)
		in.fs.br = nil
	}
}

// abort releases what a failed run holds.
func (in *inputRun) abort() {
	if in.par != nil {
		in.par.stop()
		in.par = nil
	}
	if in.rs != nil {
		in.rs.syncTap()
		in.keepWindow()
	}
	if in.ww != nil {
		in.ww.Close()
	}
}

// Next implements record.Reader for the indexer.
func (in *inputRun) Next() (*record.Record, error) {
	if in.out != nil {
		var err error
		if in.par != nil {
			err = in.endPar()
		} else if in.fast {
			err = in.endFast()
		} else {
			err = in.endOut()
		}
		if err != nil {
			return nil, err
		}
	}
	if err := in.getFatal(); err != nil {
		return nil, err
	}
	if in.eof {
		return nil, io.EOF
	}
	var view *record.Record
	var err error
	if in.par != nil {
		view, err = in.nextPar()
	} else if in.fast {
		view, err = in.nextFast()
	}
	if in.raw && !in.fast && err == nil && view == nil {
		view, err = in.nextRaw()
	}
	if !in.raw && err == nil && view == nil {
		view, err = in.nextReencode()
	}
	if err == nil {
		err = in.getFatal()
	}
	if err != nil {
		return nil, err
	}
	return view, nil
}

// endOut finishes the record handed out last: the rest of its block is
// read (through the page detector) and its captures noted.
func (in *inputRun) endOut() error {
	pr := in.out
	if pr == nil {
		return nil
	}
	in.out = nil
	if pr.rec.Block != nil {
		if _, err := io.Copy(io.Discard, pr.rec.Block); err != nil {
			return err
		}
	}
	in.finish(pr.rec)
	return in.tapErr()
}

func (in *inputRun) tapErr() error {
	if in.rs != nil && in.rs.err != nil {
		return in.rs.err
	}
	return nil
}

// detect makes rec's block feed the page detector as it is read.
func (in *inputRun) detect(rec *record.Record, extra io.Writer) {
	dw := in.w.det.Begin(rec)
	var ws []io.Writer
	if dw != nil {
		ws = append(ws, dw)
	}
	if extra != nil {
		ws = append(ws, extra)
	}
	if len(ws) > 0 && rec.Block != nil {
		rec.Block = io.TeeReader(rec.Block, io.MultiWriter(ws...))
	}
}

// finish completes the detector's view of rec and notes its capture time.
func (in *inputRun) finish(rec *record.Record) {
	in.w.det.End(rec)
	in.captured(rec)
}

// captured notes rec's capture time.
func (in *inputRun) captured(rec *record.Record) {
	switch rec.Type() {
	case record.Response, record.Resource, record.Revisit:
		if t, err := rec.Date(); err == nil && rec.TargetURI() != "" {
			in.w.caps.add(rec.TargetURI(), t)
		}
	}
	in.w.stats.Records++
}

// nextRaw reads the next record of a gzip input copied as it is. It
// returns (nil, nil) after switching to re-encoding.
func (in *inputRun) nextRaw() (*record.Record, error) {
	rec, err := in.wr.Next()
	if err != nil {
		err = shiftProblem(err, in.rawBase)
	} else {
		shiftBlock(rec, in.rawBase)
	}
	if terr := in.tapErr(); terr != nil {
		return nil, terr
	}
	if ferr := in.getFatal(); ferr != nil {
		return nil, ferr
	}
	if prev := in.prev; prev != nil {
		in.prev = nil
		p := prev.rec
		if p.DiskLength == 0 || (err == nil && rec.Offset == p.Offset) {
			return nil, in.switchToReencode(prev, rec, err)
		}
		if err := in.place(prev.seq, in.rawBase+p.Offset, in.rawBase+p.Offset+p.DiskLength); err != nil {
			return nil, err
		}
		in.w.stats.CopiedRaw += p.DiskLength
	}
	if err == io.EOF {
		in.eof = true
		return nil, io.EOF
	}
	if err != nil {
		return nil, err
	}
	pr := &pendingRec{rec: rec, seq: in.seq}
	in.seq++
	in.detect(rec, nil)
	in.prev, in.out = pr, pr
	return &record.Record{Version: rec.Version, Header: rec.Header, Block: rec.Block, Offset: pr.seq, ARC: rec.ARC}, nil
}

// switchToReencode is called in raw mode when prev's gzip member holds more
// than one record: the raw copy from that member on is withdrawn, prev is
// read again from the withdrawn bytes and written through the WARC writer
// (the indexer has seen it already), and so are cur and the rest of the
// input.
func (in *inputRun) switchToReencode(prev *pendingRec, cur *record.Record, curErr error) error {
	in.rs.tap = false
	if err := in.rs.syncTap(); err != nil {
		return err
	}
	sp, err := in.sink.Rewind(in.rawBase + prev.rec.Offset)
	if err != nil {
		return err
	}
	defer sp.Close()
	again, err := warc.NewReader(sp, warc.WithFilename(in.name), warc.WithPolicy(record.Ignore))
	if err != nil {
		return err
	}
	off := in.rawBase + prev.rec.Offset
	first, err := again.Next()
	if err != nil {
		return fmt.Errorf("%s: record at offset %d: cannot read it again: %v", in.name, off, err)
	}
	shiftBlock(first, off)
	in.raw = false
	in.startWriter()
	in.mu.Lock()
	in.queue = append(in.queue, &pendingRec{rec: first, seq: prev.seq})
	in.mu.Unlock()
	if err := in.ww.WriteRecord(first); err != nil {
		return in.writeErr(err, off)
	}
	in.w.stats.Reencoded++
	switch {
	case curErr == io.EOF:
		return in.closeWriter()
	case curErr != nil:
		return curErr
	}
	in.carry = cur
	return nil
}

func (in *inputRun) closeWriter() error {
	in.eof = true
	err := in.ww.Close()
	in.ww = nil
	if err != nil {
		return err
	}
	in.mu.Lock()
	n := len(in.queue)
	in.mu.Unlock()
	if n > 0 {
		return fmt.Errorf("%s: internal error: %d records not reported written", in.name, n)
	}
	return in.getFatal()
}

// nextReencode writes the next record through the WARC writer and returns
// the indexer's view of it: the header as written and the first bytes of
// the block.
func (in *inputRun) nextReencode() (*record.Record, error) {
	if in.eof {
		return nil, io.EOF
	}
	rec := in.carry
	in.carry = nil
	if rec == nil {
		var err error
		rec, err = in.src.Next()
		if err == io.EOF {
			if err := in.closeWriter(); err != nil {
				return nil, err
			}
			return nil, io.EOF
		}
		if err != nil {
			return nil, shiftProblem(err, in.srcBase())
		}
		shiftBlock(rec, in.srcBase())
		if err := in.getFatal(); err != nil {
			return nil, err
		}
	}
	pr := &pendingRec{rec: rec, seq: in.seq}
	in.seq++
	in.prefix.Reset()
	in.detect(rec, limitedBuffer{&in.prefix, indexPrefix})
	in.mu.Lock()
	in.queue = append(in.queue, pr)
	in.mu.Unlock()
	if err := in.ww.WriteRecord(rec); err != nil {
		return nil, in.writeErr(err, in.srcBase()+rec.Offset)
	}
	in.w.stats.Reencoded++
	in.finish(rec)
	view := &record.Record{Version: rec.Version, Header: rec.Header, Block: bytes.NewReader(in.prefix.Bytes()), Offset: pr.seq}
	return view, nil
}

// srcBase is what the offsets of in.src count from: the member where the
// input was handed over to lib/warc's reader (0 when it read from the start).
func (in *inputRun) srcBase() int64 {
	if in.wr != nil && in.src == in.wr {
		return in.rawBase
	}
	return 0
}

// shiftProblem gives a problem whose offset counts from base its offset in
// the file; other errors are returned as they are.
func shiftProblem(err error, base int64) error {
	var p *record.Problem
	if base == 0 || !errors.As(err, &p) {
		return err
	}
	q := *p
	q.Offset += base
	return &q
}

// shiftedBlock gives the problems a block's reads return their offsets in
// the file: a reader started at base (a hand-over, a record read again
// from the archive) counts its offsets from there.
type shiftedBlock struct {
	r    io.Reader
	base int64
}

func (b shiftedBlock) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err != nil && err != io.EOF {
		err = shiftProblem(err, b.base)
	}
	return n, err
}

// shiftBlock makes the block of rec, read by a reader started at base,
// report file offsets.
func shiftBlock(rec *record.Record, base int64) {
	if base != 0 && rec.Block != nil {
		rec.Block = shiftedBlock{rec.Block, base}
	}
}

// writeErr names the input and the record at off in an error of the WARC
// writer: a record it refuses (no WARC-Type, a bad field) or an output
// error. A problem of the reader found as the block was read names its
// file and offset already.
func (in *inputRun) writeErr(err error, off int64) error {
	var p *record.Problem
	if errors.As(err, &p) {
		return p
	}
	return &record.Problem{File: in.name, Offset: off, Msg: strings.TrimPrefix(err.Error(), "warc: ")}
}
