package wacz

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/arcport/arcport/lib/cdx"
	"github.com/arcport/arcport/lib/httpmsg"
	"github.com/arcport/arcport/lib/record"
	"github.com/klauspost/compress/gzip"
)

// The parallel fast path, for a gzip-per-record WARC that can be read at
// any offset (a local file).
//
// The sequential fast path (fastraw.go) decodes one member after another
// on the goroutine that indexes: the WARC header, the HTTP head, a page's
// title, and the member's end. Here that work is spread over the cores,
// keeping the records' order:
//
//   - a splitter goroutine cuts the file into candidate members from the
//     raw bytes alone: a member ends at the first plausible gzip header
//     after its start (as memberEnd finds it), and hands batches of them
//     (jobs) to the workers and, in file order, to the indexing goroutine;
//   - each worker decodes its job's members: the WARC header, as much of
//     the block as the indexer and the page detector read (the HTTP head;
//     a request body; a page up to its </title>), and checks the member's
//     end as endFast does (decoding a short rest to its end, CRC included,
//     or comparing the ISIZE field before the candidate end with the
//     record's size);
//   - the indexing goroutine takes the members in order: the indexer and
//     the page detector read the decoded bytes (and, past them, the rest
//     is inflated on demand), the raw bytes are handed to the sink's copy
//     goroutine, and the record is placed.
//
// A member a worker does not accept (a header the strict parser does not
// take, a candidate end that is not the member's end, bytes between
// members, a read error) ends the parallel phase: the sequential fast path
// takes over at that member, so what it then reports, hands over to
// lib/warc or repairs is what it does without the parallel phase. The
// results (archive bytes, index, pages, warnings) are the same as the
// sequential path's (TestFastPathSameAsReader, TestParallelDamage).

// parMinSize: smaller inputs take the sequential path (starting goroutines
// for a few members costs more than it saves). A variable for tests.
var parMinSize int64 = parMinDefault()

func parMinDefault() int64 {
	if v, err := strconv.ParseInt(os.Getenv("ARCPORT_PAR_MIN"), 10, 64); err == nil && v >= 0 {
		return v // tests run the parallel path on small inputs
	}
	return 4 << 20
}

// parDisabled turns the parallel path off (tests compare both paths).
var parDisabled = os.Getenv("ARCPORT_NO_PARALLEL") != ""

const (
	parJobBytes = 1 << 20  // compressed bytes per job, about
	parJobMax   = 256      // members per job at most
	parAhead    = 8        // jobs in flight
	parHeadMax  = 64 << 10 // how far a worker looks for the end of an HTTP head
)

// parMember is one candidate member and what a worker made of it.
type parMember struct {
	start, end int64 // end: the candidate end; the member's end once ok
	ok         bool
	rec        *record.Record
	hdrLen, cl int64
	out        []byte // decoded from the member's start: WARC header, block prefix
	skipped    bool   // end found by ISIZE, the rest not inflated
	tail       []byte // inflated to its end: the bytes after the record
	extra      uint32 // skipped: the ISIZE field minus the record's size
	prep       *cdx.Prep
	dprep      *detectPrep // what the page detector makes of it (nil: the detector reads it)
}

type parJob struct {
	cands   []parMember // candidate members, from the splitter
	members []parMember // the members decoded, from a worker: up to the first not ok
	done    chan struct{}
	raw     jobBytes // the job's raw bytes (a prefix of them for a long member)
	arena   []byte   // the members' out
	// refs counts the holders of raw.b (the indexing goroutine, the
	// sink's copy goroutine): the last one gives it back to free, and
	// the job's token back to tokens
	refs   atomic.Int32
	free   chan []byte
	tokens chan struct{}
	// arenas takes the arena back for a later job: nothing reads the
	// members' out once the indexing goroutine has gone past the job
	arenas chan []byte
}

// release drops one hold of the job's raw bytes.
func (j *parJob) release() {
	if j.refs.Add(-1) != 0 {
		return
	}
	if j.raw.b != nil {
		select {
		case j.free <- j.raw.b:
		default:
		}
	}
	if j.arena != nil {
		select {
		case j.arenas <- j.arena[:0]:
		default:
		}
	}
	j.tokens <- struct{}{}
}

// parJobsHeld bounds the jobs whose raw bytes are held at once (queued for
// the workers, the indexing goroutine or the copy goroutine): a 2 GB input
// had the copy goroutine's queue hold 16 and the heap near the memory
// limit (430 collections instead of 118).
const parJobsHeld = 8

// parJobRaw bounds the raw bytes a job carries; a worker reads the rest
// of a long member from the file.
const parJobRaw = 4 << 20

// parJobBuf is the capacity of a job's buffer: the bytes the last job read
// past its end, its own (parJobBytes, and the last member past them) and
// what was read past them looking for that member's end, so that it
// seldom grows.
const parJobBuf = parJobBytes + 4*scanLook

// jobBytes reads the file, from b when b has the bytes.
type jobBytes struct {
	ra   io.ReaderAt
	base int64
	b    []byte
}

func (j *jobBytes) ReadAt(p []byte, off int64) (int, error) {
	if off >= j.base && off+int64(len(p)) <= j.base+int64(len(j.b)) {
		return copy(p, j.b[off-j.base:]), nil
	}
	return j.ra.ReadAt(p, off)
}

// parInput is the parallel phase of one input.
type parInput struct {
	ra      io.ReaderAt
	size    int64
	verify  bool
	maxBody int
	// prepOpts are the indexer's options, for the workers' cdx.Preparer.
	prepOpts []cdx.Option
	text     bool // the page detector's settings
	full     bool
	// index: for waczpack index (parRecords): no page detection, and only
	// what fastRecords takes (the mandatory fields, CRLF CRLF after the
	// record), so that the rest goes to fastRecords as it would
	index bool

	ordered chan *parJob  // jobs in file order, to the indexing goroutine
	free    chan []byte   // jobs' raw buffers, for reuse
	arenas  chan []byte   // jobs' arenas, for reuse
	tokens  chan struct{} // one per job that may be held (parJobsHeld)
	jobs    chan *parJob  // jobs to the workers
	quit    chan struct{}
	wg      sync.WaitGroup

	// indexing goroutine
	cur *parJob
	idx int
	m   *parMember // member handed out
	blk *parBlock
	gz  *gzip.Reader
	br  *bufio.Reader
}

// parSource returns r as an io.ReaderAt with its size when the parallel
// path can read it: a regular file (or an in-memory reader) read from its
// start, large enough, more than one core.
func parSource(r io.Reader, opts Options) (io.ReaderAt, int64, bool) {
	if parDisabled || opts.NoFastPath || opts.Split > 0 || runtime.GOMAXPROCS(0) < 2 {
		return nil, 0, false
	}
	ra, ok := r.(io.ReaderAt)
	if !ok {
		return nil, 0, false
	}
	if sk, ok := r.(io.Seeker); !ok {
		return nil, 0, false
	} else if pos, err := sk.Seek(0, io.SeekCurrent); err != nil || pos != 0 {
		return nil, 0, false
	}
	var size int64
	switch v := r.(type) {
	case *os.File:
		st, err := v.Stat()
		if err != nil || !st.Mode().IsRegular() {
			return nil, 0, false
		}
		size = st.Size()
	case interface{ Size() int64 }:
		size = v.Size()
	default:
		return nil, 0, false
	}
	if size < parMinSize {
		return nil, 0, false
	}
	return ra, size, true
}

// startPar starts the parallel phase over ra (size bytes).
func (in *inputRun) startPar(ra io.ReaderAt, size int64) error {
	in.raw = true
	// the sequential fast path's stream: it gets its source when it takes
	// over (endParPhase); until then only its sink's copy goroutine runs
	in.rs = &rawStream{sink: in.sink, tap: true} // its window comes with endParPhase
	if err := in.rs.async(); err != nil {
		return err
	}
	in.fs = &fastState{rs: in.rs, br: getReader64(nil), verify: in.w.opts.Verify}
	in.fast = true
	p := &parInput{
		ra: ra, size: size, verify: in.w.opts.Verify, maxBody: cdx.DefaultMaxRequestBody,
		text: in.w.det.Text, full: in.w.det.Full,
	}
	p.start()
	in.par = p
	return nil
}

// start starts the splitter and the workers.
func (p *parInput) start() {
	p.ordered = make(chan *parJob, parAhead)
	p.jobs = make(chan *parJob, parAhead)
	p.quit = make(chan struct{})
	p.free = make(chan []byte, parJobsHeld)
	p.arenas = make(chan []byte, parJobsHeld)
	p.tokens = make(chan struct{}, parJobsHeld)
	n := runtime.GOMAXPROCS(0)
	p.wg.Add(1 + n)
	go p.split()
	for i := 0; i < n; i++ {
		go p.work()
	}
}

// stop ends the splitter and the workers and waits for them.
func (p *parInput) stop() {
	close(p.quit)
	p.wg.Wait()
}

// split cuts the file into candidate members.
func (p *parInput) split() {
	defer p.wg.Done()
	defer close(p.ordered)
	win := &window{ra: p.ra, size: p.size, buf: make([]byte, 0, 1<<20)}
	for range parJobsHeld {
		p.tokens <- struct{}{}
	}
	pos := int64(0)
	// carry: the bytes the last job read past its end (looking for its
	// last member's end), which the next job starts with. They stay valid
	// until it has them: only this goroutine writes into job buffers, and
	// it copies them first (append moves them down when the next job's
	// buffer is the last job's own, given back already).
	var carry []byte
	for pos < p.size {
		select {
		case <-p.tokens:
		case <-p.quit:
			return
		}
		job := &parJob{done: make(chan struct{}), free: p.free, tokens: p.tokens, arenas: p.arenas}
		job.refs.Store(1)
		first := pos
		// the job's bytes are read once, into its buffer, and scanned there
		var buf []byte
		select {
		case buf = <-p.free:
			buf = buf[:0]
		default:
			buf = make([]byte, 0, parJobBuf)
		}
		buf = append(buf, carry...)
		js := &jobScan{ra: p.ra, size: p.size, base: first, b: buf, win: win}
		for pos < p.size && len(job.cands) < parJobMax && pos-first < parJobBytes {
			b, err := js.slice(pos, 1)
			if err != nil || len(b) == 0 || b[0] != 0x1f {
				// not a member's start (padding, other bytes, a read
				// error): the sequential path takes over there
				job.cands = append(job.cands, parMember{start: pos, end: pos})
				pos = p.size
				break
			}
			c, ok := p.nextHeader(js, pos+18)
			if !ok {
				job.cands = append(job.cands, parMember{start: pos, end: pos})
				pos = p.size
				break
			}
			job.cands = append(job.cands, parMember{start: pos, end: c})
			pos = c
		}
		job.raw = jobBytes{ra: p.ra, base: first, b: js.b[:min(int64(len(js.b)), max(pos-first, 0))]}
		carry = js.b[len(job.raw.b):]
		if pos-first != int64(len(job.raw.b)) {
			carry = nil // not all read: the next job reads from its start
		}
		select {
		case p.ordered <- job:
		case <-p.quit:
			return
		}
		select {
		case p.jobs <- job:
		case <-p.quit:
			return
		}
	}
}

// slicer serves file bytes by offset (window, jobScan).
type slicer interface {
	// slice returns up to n bytes at off (fewer at the end of the file or
	// of a buffer), valid until the next call.
	slice(off int64, n int) ([]byte, error)
}

// jobScan serves the bytes of a job being cut from its own buffer (b holds
// the file from base on), reading more into it as the scan needs them, up
// to parJobRaw bytes; past that (a long member) from the window.
type jobScan struct {
	ra   io.ReaderAt
	size int64
	base int64
	b    []byte
	win  *window
}

func (j *jobScan) slice(off int64, n int) ([]byte, error) {
	if off >= j.size {
		return nil, io.EOF
	}
	if off < j.base || off-j.base >= parJobRaw || n <= 64 && off+int64(n) > j.base+parJobRaw {
		// outside the buffer's reach, or a gzip header across its end
		return j.win.slice(off, n)
	}
	for want := min(off+int64(n), j.size, j.base+parJobRaw); j.base+int64(len(j.b)) < want; {
		// read on: at once up to parJobBytes and a little past them (a
		// job ends at the first member's end past parJobBytes), then
		// scanLook at a time
		at := j.base + int64(len(j.b))
		m := max(want-at, scanLook)
		if end := j.base + parJobBytes + scanLook; at < end {
			m = max(m, end-at)
		}
		m = min(m, j.size-at, j.base+parJobRaw-at)
		if int64(cap(j.b)-len(j.b)) < m {
			nb := make([]byte, len(j.b), max(2*cap(j.b), len(j.b)+int(m)))
			copy(nb, j.b)
			j.b = nb
		}
		k, err := j.ra.ReadAt(j.b[len(j.b):len(j.b)+int(m)], at)
		j.b = j.b[:len(j.b)+k]
		if k == 0 {
			if err == nil {
				err = io.ErrUnexpectedEOF
			}
			if off-j.base < int64(len(j.b)) {
				break
			}
			return nil, err
		}
	}
	b := j.b[min(off-j.base, int64(len(j.b))):]
	return b[:min(len(b), n)], nil
}

// scanLook is how far nextHeader looks at a time: little more than a
// member (the bytes read past a job's end are copied to the next job's
// buffer).
const scanLook = 64 << 10

// gzipMagic is how a gzip member with deflate data starts.
var gzipMagic = []byte{0x1f, 0x8b, 0x08}

// nextHeader returns the offset of the first plausible gzip header at or
// after pos, or the file's size; ok is false after a read error.
func (p *parInput) nextHeader(win slicer, pos int64) (int64, bool) {
	for pos < p.size {
		b, err := win.slice(pos, scanLook)
		if len(b) == 0 {
			return p.size, err == io.EOF // the file shrank: its end
		}
		// the first bytes a plausible header starts with, at once (not
		// each 0x1f, one in 256 bytes of compressed data, then a look)
		i := bytes.Index(b, gzipMagic)
		if i < 0 {
			// the last two bytes again: a header may start there
			pos += max(int64(len(b))-int64(len(gzipMagic)-1), 1)
			continue
		}
		c := pos + int64(i)
		h, err := win.slice(c, 10)
		if len(h) == 10 && plausibleGzipHeader(h) {
			return c, true
		}
		if len(h) < 10 && err != nil && err != io.EOF {
			return 0, false
		}
		pos = c + 1
	}
	return p.size, true
}

// work decodes the members of jobs.
func (p *parInput) work() {
	defer p.wg.Done()
	w := &parWorker{p: p, br: bufio.NewReaderSize(nil, 32<<10), prep: cdx.NewPreparer(p.prepOpts...), det: NewDetector(p.text, p.full)}
	for {
		select {
		case job := <-p.jobs:
			w.win = &job.raw
			w.job = job
			// the arena sized as the last job's: appending to it member
			// by member no longer copies it over as it grows
			if w.arenaHint > 0 {
				var a []byte
				select {
				case a = <-p.arenas:
				default:
				}
				if cap(a) < w.arenaHint+w.arenaHint/4 {
					a = make([]byte, 0, w.arenaHint+w.arenaHint/4)
				}
				job.arena = a
			}
		cands:
			for _, c := range job.cands {
				select {
				case <-p.quit:
					close(job.done)
					return
				default:
				}
				// a candidate holds one member or more: a member
				// decoded to its end may end before the candidate end
				// (its successor's gzip header was not plausible)
				for s := c.start; ; {
					m := parMember{start: s, end: c.end}
					w.decode(&m)
					job.members = append(job.members, m)
					if !m.ok {
						break cands
					}
					if m.end == c.end {
						break
					}
					s = m.end
				}
			}
			close(job.done)
		case <-p.quit:
			return
		}
	}
}

type parWorker struct {
	p     *parInput
	win   io.ReaderAt
	job   *parJob
	pi    prefixInflater
	sec   countingSection
	gz    *gzip.Reader
	gzSec countingSection
	br    *bufio.Reader
	gzOn  bool
	gzOut []byte
	prep  *cdx.Preparer
	det   *Detector // for detectPrep only
	chunk []byte
	// arenaHint is the size of the last job's arena
	arenaHint int
}

// prefixBlock reads a block from what was decoded of it; short tells
// whether the reader wanted more than that.
type prefixBlock struct {
	b     []byte
	more  bool // the block goes on past b
	short bool
}

func (p *prefixBlock) Read(q []byte) (int, error) {
	if len(p.b) == 0 {
		if p.more {
			p.short = true
		}
		return 0, io.EOF
	}
	n := copy(q, p.b)
	p.b = p.b[n:]
	return n, nil
}

// out is what has been decoded of the member so far.
func (w *parWorker) out() []byte {
	if w.gzOn {
		return w.gzOut
	}
	return w.pi.out
}

// decodeTo decodes until n bytes are out or the member ends: with the
// prefix inflater up to piMax, then with compress/gzip (faster in bulk)
// from the member's start.
func (w *parWorker) decodeTo(m *parMember, n int64) error {
	if !w.gzOn {
		if n <= piMax || w.pi.ended {
			return w.pi.fill(int(n))
		}
		w.gzSec = countingSection{ra: w.win, off: m.start, end: m.end}
		w.br.Reset(&w.gzSec)
		if err := resetMember(&w.gz, w.br); err != nil {
			return err
		}
		w.gzOn = true
		w.gzOut = w.gzOut[:0]
	}
	for int64(len(w.gzOut)) < n {
		if cap(w.gzOut)-len(w.gzOut) < 4<<10 {
			nb := make([]byte, len(w.gzOut), max(2*cap(w.gzOut), 64<<10))
			copy(nb, w.gzOut)
			w.gzOut = nb
		}
		k, err := w.gz.Read(w.gzOut[len(w.gzOut):min(int64(cap(w.gzOut)), n)])
		w.gzOut = w.gzOut[:len(w.gzOut)+k]
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// decode decodes member m as far as its consumers will read it and checks
// its end; m.ok tells whether the parallel path takes it.
func (w *parWorker) decode(m *parMember) {
	if m.end-m.start < 20 {
		return
	}
	w.gzOn = false
	pi := &w.pi
	if raw := w.job.raw; m.start >= raw.base && m.end <= raw.base+int64(len(raw.b)) {
		// in the job's bytes: decoded there
		if err := pi.resetBytes(raw.b[m.start-raw.base : m.end-raw.base]); err != nil {
			return
		}
	} else {
		w.sec = countingSection{ra: w.win, off: m.start, end: m.end}
		if err := pi.reset(&w.sec); err != nil {
			return
		}
	}
	var rec *record.Record
	var hl, cl int64
	for {
		if err := pi.fill(len(pi.out) + fastStep); err != nil {
			return
		}
		var ok bool
		if rec, hl, cl, ok = parseFastHeader(pi.out); ok {
			break
		}
		if pi.ended || len(pi.out) >= fastHeaderMax {
			return
		}
	}
	rec.Offset = m.start
	u := hl + cl
	if w.p.index && !strictHeader(rec) {
		return
	}
	if err := w.decodeBlock(m, rec, hl, cl); err != nil {
		return
	}
	dec := int64(len(w.out()))
	switch {
	case !w.gzOn && (u+4-dec <= piFinish || w.p.verify && u <= piMax):
		used, err := pi.finish(int(u) + 4)
		if err != nil || !onlyLineEnds(pi.out, u) || m.start+used > m.end {
			return
		}
		m.end = m.start + used
		m.tail = append([]byte(nil), pi.out[u:]...)
		if !isTrailer(m.tail) {
			return
		}
	case w.p.verify || cl-(min(dec, u)-hl) <= fastTailInflate:
		tail, ok := w.inflateRest(m, u)
		if !ok || !isTrailer(tail) {
			return
		}
		m.tail = tail
	default:
		var t [4]byte
		if n, _ := w.win.ReadAt(t[:], m.end-4); n < 4 {
			return
		}
		v := binary.LittleEndian.Uint32(t[:])
		uu := uint32(uint64(u))
		if v != uu+4 {
			return
		}
		m.skipped, m.extra = true, v-uu
	}
	out := w.out()
	if int64(len(out)) > u {
		out = out[:u]
	}
	a := len(w.job.arena)
	w.job.arena = append(w.job.arena, out...)
	m.out = w.job.arena[a:len(w.job.arena):len(w.job.arena)]
	w.arenaHint = max(w.arenaHint*7/8, len(w.job.arena))
	m.rec, m.hdrLen, m.cl = rec, hl, cl
	m.ok = true
	// what the indexer reads of it, unless it reads past what is out
	pb := &prefixBlock{b: m.out[hl:], more: int64(len(m.out)) < u}
	prep := w.prep.Prepare(&record.Record{Version: rec.Version, Header: rec.Header, Block: pb, Offset: m.start})
	if !pb.short {
		m.prep = prep
	}
	// what the page detector makes of it: fed as endPar feeds it (in the
	// chunks parBlock hands out), unless it reads past what is out. With
	// Full, pages are left to the detector's own workers (deferParPage).
	if w.p.full || w.p.index {
		return
	}
	pb = &prefixBlock{b: m.out[hl:], more: int64(len(m.out)) < u}
	if dw := w.det.Begin(rec); dw != nil {
		if w.chunk == nil {
			w.chunk = make([]byte, parChunk)
		}
		for w.det.Wants() {
			n, err := pb.Read(w.chunk)
			dw.Write(w.chunk[:n])
			if err != nil {
				break
			}
		}
	}
	dp := w.det.endPrep(rec)
	if !pb.short {
		m.dprep = &dp
	}
}

// parChunk is the most a parBlock Read hands out.
const parChunk = 4 << 10

// decodeBlock decodes as much of the block as the indexer and the page
// detector usually read: an HTTP head, a request body (not GET), an HTML
// page up to its </title>. What they read past it is inflated on demand
// (parBlock), so this only has to be a good guess.
func (w *parWorker) decodeBlock(m *parMember, rec *record.Record, hl, cl int64) error {
	u := hl + cl
	typ := rec.Type()
	ct := httpmsg.MediaType(rec.ContentType())
	switch typ {
	case record.Response, record.Request, record.Revisit:
	case record.Resource:
		if isHTML(ct) && rec.TargetURI() != "" && !w.p.index {
			return w.decodeTitle(m, hl, cl, 0)
		}
		return nil
	default:
		return nil
	}
	// the HTTP head, in the steps the sequential path takes
	he := -1
	for {
		out := w.out()
		blk := out[min(int64(len(out)), hl):min(int64(len(out)), u)]
		if he = headEnd(blk); he >= 0 || int64(len(blk)) >= cl || len(blk) >= parHeadMax {
			break
		}
		if err := w.decodeTo(m, min(u+4, int64(len(out)+fastStep))); err != nil {
			return err
		}
		if len(w.out()) <= len(out) {
			break // the member ended
		}
	}
	if he < 0 {
		return nil
	}
	head := w.out()[hl : hl+int64(he)]
	switch typ {
	case record.Request:
		method, _, _ := strings.Cut(string(head[:min(len(head), 16)]), " ")
		if method != "GET" {
			return w.decodeTo(m, hl+min(cl, int64(he+w.p.maxBody+4)))
		}
	case record.Response:
		if ct != "application/http" || rec.TargetURI() == "" {
			return nil
		}
		if !w.p.index && okHTML(head) {
			return w.decodeTitle(m, hl, cl, int64(he))
		}
	}
	return nil
}

// okHTML guesses (cheaply: no allocation) whether an HTTP response head says
// 200 and HTML.
func okHTML(head []byte) bool {
	line, rest, _ := bytes.Cut(head, []byte("\n"))
	f := bytes.Fields(line)
	if len(f) < 2 || !bytes.HasPrefix(f[0], []byte("HTTP/")) || string(f[1]) != "200" {
		return false
	}
	for len(rest) > 0 {
		line, rest, _ = bytes.Cut(rest, []byte("\n"))
		name, value, ok := bytes.Cut(line, []byte(":"))
		if ok && bytes.EqualFold(bytes.TrimSpace(name), []byte("Content-Type")) {
			v := bytes.ToLower(bytes.TrimSpace(value))
			return bytes.HasPrefix(v, []byte("text/html")) || bytes.HasPrefix(v, []byte("application/xhtml"))
		}
	}
	return false
}

// decodeTitle decodes a page's body from body on until its </title> is
// out, or titleScanLimit bytes of the block are.
func (w *parWorker) decodeTitle(m *parMember, hl, cl, body int64) error {
	from := hl + body
	for {
		out := w.out()
		end := min(int64(len(out)), hl+cl)
		if end >= hl+cl || end-hl >= titleScanLimit {
			return nil
		}
		if from < end && hasFold(out[from:end], "</title") {
			return nil
		}
		from = max(hl+body, end-8)
		if err := w.decodeTo(m, min(hl+cl+4, int64(len(out))+fastStep)); err != nil {
			return err
		}
		if int64(len(w.out())) <= end {
			return nil // the member ended
		}
	}
}

// inflateRest inflates the member from what is out to its end: the record
// (u bytes), then nothing but at most four line-end bytes, then the
// member's end (its CRC and size checked), which must be the candidate end.
func (w *parWorker) inflateRest(m *parMember, u int64) ([]byte, bool) {
	if !w.gzOn {
		// start gz: decoding from the start again is simplest; piMax
		// bytes at most were decoded by pi
		done := int64(len(w.pi.out))
		if err := w.decodeTo(m, max(done, piMax+1)); err != nil {
			return nil, false
		}
	}
	// discard the rest of the record, keeping what was out
	have := int64(len(w.gzOut))
	if have < u {
		if _, err := io.CopyN(io.Discard, w.gz, u-have); err != nil {
			return nil, false
		}
	}
	var tail []byte
	if have > u {
		tail = append(tail, w.gzOut[u:]...)
	}
	var b [8]byte
	for {
		n, err := w.gz.Read(b[:])
		tail = append(tail, b[:n]...)
		if len(tail) > 4 {
			return nil, false
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, false
		}
	}
	for _, c := range tail {
		if c != '\r' && c != '\n' {
			return nil, false
		}
	}
	if w.gzSec.off-int64(w.br.Buffered()) != m.end {
		return nil, false
	}
	return tail, true
}

// nextMember returns the next member in file order, waiting for its job
// (nil at the end of the file); newJob tells whether it is the first of a
// job (p.cur).
func (p *parInput) nextMember() (m *parMember, newJob bool) {
	for p.cur == nil || p.idx >= len(p.cur.members) {
		job, ok := <-p.ordered
		if !ok {
			return nil, false
		}
		<-job.done
		if p.cur != nil {
			p.cur.release()
		}
		p.cur, p.idx = job, 0
		newJob = true
	}
	m = &p.cur.members[p.idx]
	p.idx++
	return m, newJob
}

// parNext is nextMember for create: the raw bytes of a new job's members
// go to the sink's copy goroutine, in one go.
func (in *inputRun) parNext() (*parMember, error) {
	p := in.par
	m, newJob := p.nextMember()
	if newJob {
		end := int64(-1)
		for i := range p.cur.members {
			if !p.cur.members[i].ok {
				break
			}
			end = p.cur.members[i].end
		}
		if err := in.feedTo(end, p.cur); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// feedTo hands the input's bytes up to end to the sink's copy goroutine:
// those raw holds as they are, others read from the input.
func (in *inputRun) feedTo(end int64, job *parJob) error {
	s := in.sink
	t := s.tap
	if raw := &job.raw; s.sent < end && s.sent >= raw.base && s.sent < raw.base+int64(len(raw.b)) {
		b := raw.b[s.sent-raw.base : min(end, raw.base+int64(len(raw.b)))-raw.base]
		job.refs.Add(1)
		if err := t.giveShared(b, job.release); err != nil {
			return err
		}
	}
	for s.sent < end {
		b := t.buffer()
		n := int(min(int64(cap(b)), end-s.sent))
		k, err := in.par.ra.ReadAt(b[:n], s.sent)
		if k > 0 {
			if err := t.give(b[:k]); err != nil {
				return err
			}
		}
		if k < n {
			if err == nil || err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return fmt.Errorf("%s: reading at offset %d: %w", in.name, s.sent, err)
		}
	}
	return nil
}

// nextPar hands out the next member's record; at a member the workers did
// not take, or at the end, the sequential fast path takes over.
func (in *inputRun) nextPar() (*record.Record, error) {
	p := in.par
	m, err := in.parNext()
	if err != nil {
		return nil, err
	}
	if m == nil || !m.ok {
		at := p.size
		if m != nil {
			at = m.start
		}
		in.endParPhase(at)
		return in.nextFast()
	}
	in.flushTrailer()
	in.w.stats.Parallel++
	rec := m.rec
	p.m = m
	p.blk = &parBlock{p: p, m: m}
	rec.Block = p.blk
	pr := &pendingRec{rec: rec, seq: in.seq}
	in.seq++
	in.fs.cur = pr
	if m.dprep == nil {
		in.detect(rec, nil)
	}
	in.out = pr
	view := &record.Record{Version: rec.Version, Header: rec.Header, Block: rec.Block, Offset: pr.seq}
	in.parView, in.parPrep = view, m.prep
	return view, nil
}

// endPar finishes the member handed out last, as endFast does.
func (in *inputRun) endPar() error {
	p := in.par
	pr := in.out
	in.out = nil
	m := p.m
	rec := pr.rec
	if m.dprep != nil {
		in.w.det.prepared(rec, *m.dprep)
		in.captured(rec)
		in.parTrailer(m)
		return in.placePar(pr, m)
	}
	if done, err := in.deferParPage(m); done || err != nil {
		return err
	}
	if in.fs.buf == nil {
		in.fs.buf = make([]byte, 32<<10)
	}
	for in.w.det.Wants() {
		if _, err := rec.Block.Read(in.fs.buf); err != nil {
			break
		}
	}
	in.finish(rec)
	if p.blk.err != nil {
		// the block is damaged past what the worker decoded: lib/warc
		// reads the member again and reports it
		in.endParPhase(m.start)
		return in.handover(m.start, pr)
	}
	in.parTrailer(m)
	return in.placePar(pr, m)
}

// parTrailer notes what follows m's record, as noteTrailer and
// noteTrailerSize do.
func (in *inputRun) parTrailer(m *parMember) {
	if !m.skipped {
		return // the workers take only members ending in CRLF CRLF
	}
	in.w.stats.Skipped++
}

func (in *inputRun) placePar(pr *pendingRec, m *parMember) error {
	if err := in.place(pr.seq, m.start, m.end); err != nil {
		return err
	}
	in.w.stats.CopiedRaw += m.end - m.start
	in.fs.next = m.end
	return nil
}

// deferParPage leaves a page's detection to a detector worker, as
// deferPage does.
func (in *inputRun) deferParPage(m *parMember) (bool, error) {
	det := in.w.det
	if !det.Full || !det.Wants() || in.par.verify || m.hdrLen+m.cl > deferMax {
		return false, nil
	}
	member := make([]byte, m.end-m.start)
	if n, err := in.par.ra.ReadAt(member, m.start); n < len(member) {
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return false, fmt.Errorf("%s: reading at offset %d: %w", in.name, m.start+int64(n), err)
	}
	rec := in.fs.cur.rec
	if !det.Defer(rec, member, m.hdrLen, m.start) {
		return false, nil
	}
	in.parTrailer(m)
	in.finish(rec)
	return true, in.placePar(in.fs.cur, m)
}

// endParPhase ends the parallel phase: the sequential fast path goes on
// from the member at offset at, reading the input from what the sink has
// been given (earlier bytes it reads back from the sink).
func (in *inputRun) endParPhase(at int64) {
	p := in.par
	in.par = nil
	p.stop()
	from := in.sink.sent
	w := newRawStream(nil, nil, in.w.takeWindow())
	in.rs.win = w.win
	// to the file's end, as the sequential path reads it (a file that grew
	// since its size was taken is read whole)
	in.rs.r = io.NewSectionReader(p.ra, from, math.MaxInt64-from)
	in.rs.winOff = from
	in.fs.next = at
}

// parBlock is the block of the member handed out: the bytes the worker
// decoded, then the rest inflated on demand. As with fastBlock, an error
// is kept and reported as io.EOF (endPar hands the member to lib/warc).
type parBlock struct {
	p    *parInput
	m    *parMember
	n    int64
	gzOn bool
	err  error
}

func (b *parBlock) Read(q []byte) (int, error) {
	m := b.m
	if b.err != nil || b.n >= m.cl {
		return 0, io.EOF
	}
	q = q[:min(int64(len(q)), m.cl-b.n, parChunk)]
	at := m.hdrLen + b.n
	if !b.gzOn {
		if at < int64(len(m.out)) {
			n := copy(q, m.out[at:])
			b.n += int64(n)
			return n, nil
		}
		if err := b.startGz(at); err != nil {
			b.err = err
			return 0, io.EOF
		}
	}
	n, err := b.p.gz.Read(q)
	return memberRead(n, err, &b.n, m.cl, &b.err)
}

// startGz inflates the member from its start up to at.
func (b *parBlock) startGz(at int64) error {
	p := b.p
	if p.br == nil {
		p.br = bufio.NewReaderSize(nil, 64<<10)
	}
	p.br.Reset(io.NewSectionReader(p.ra, b.m.start, b.m.end-b.m.start))
	if err := resetMember(&p.gz, p.br); err != nil {
		return err
	}
	b.gzOn = true
	_, err := io.CopyN(io.Discard, p.gz, at)
	return err
}

// parRecords is the record.Reader of waczpack index for a large local
// gzip-per-record WARC: the parallel phase (the splitter and the workers
// above, which also read each record as the indexer would: cdx.Prep),
// then fastRecords from the first member the workers do not take.
type parRecords struct {
	p    *parInput
	name string
	fr   *fastRecords
	m    *parMember
	blk  *parBlock
	view *record.Record
}

func newParRecords(ra io.ReaderAt, size int64, name string, prepOpts ...cdx.Option) *parRecords {
	p := &parInput{ra: ra, size: size, maxBody: cdx.DefaultMaxRequestBody, index: true, prepOpts: prepOpts}
	p.start()
	return &parRecords{p: p, name: name}
}

// prepared gives the indexer what a worker read of the record handed out.
func (r *parRecords) prepared(rec *record.Record) *cdx.Prep {
	if r.fr != nil || rec != r.view || r.m == nil {
		return nil
	}
	return r.m.prep
}

// toFast ends the parallel phase: fastRecords reads on from the member at
// offset at.
func (r *parRecords) toFast(at int64) {
	r.p.stop()
	r.fr = newFastRecords(r.p.ra, r.p.size, r.name)
	r.fr.next = at
}

// Next implements record.Reader.
func (r *parRecords) Next() (*record.Record, error) {
	if r.fr != nil {
		return r.fr.Next()
	}
	if r.m != nil && r.blk.err != nil {
		// damaged past what the worker decoded: lib/warc reads the member
		// again, as fastRecords does
		at, first := r.m.start, r.view
		r.toFast(at)
		if err := r.fr.handover(at, first); err != nil {
			r.fr.err = err
			return nil, err
		}
		return r.fr.nextCareful()
	}
	m, _ := r.p.nextMember()
	if m == nil || !m.ok {
		at := r.p.size
		if m != nil {
			at = m.start
		}
		r.toFast(at)
		return r.fr.Next()
	}
	rec := m.rec
	r.m = m
	r.blk = &parBlock{p: r.p, m: m}
	rec.Block = r.blk
	rec.DiskLength = m.end - m.start
	r.view = rec
	return rec, nil
}

// Close stops the parallel phase's goroutines (when the indexer stops
// before the end).
func (r *parRecords) Close() {
	if r.fr == nil {
		r.toFast(r.p.size)
	}
}
