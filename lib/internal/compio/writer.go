package compio

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// ErrWriterClosed is returned by a MemberWriter used after Close.
var ErrWriterClosed = errors.New("compio: member writer closed")

// WriterOptions configures a MemberWriter.
type WriterOptions struct {
	// Format is the container: Gzip (one member per Submit), Zstd (one
	// frame per Submit) or Plain (bytes written as they are).
	Format Format
	// Level is the compression level: 1-9 for gzip (negative values as
	// klauspost/compress/gzip defines them), 1-22 for zstd (mapped to the
	// nearest klauspost level); 0 means the format's default.
	Level int
	// Concurrency is the number of members compressed at once; <= 0 means
	// runtime.GOMAXPROCS(0).
	Concurrency int
	// Dict is a zstd dictionary: it is written first as the IIPC .warc.zst
	// dictionary frame (skippable frame, magic 0x184D2A5D) and every frame
	// is compressed with it. A dictionary in zstd's format (magic
	// 0xEC30A437) is used as such, anything else as raw content. Zstd only.
	Dict []byte
	// OnMember is called after each member was written, in submission
	// order, never concurrently with itself, with the tag given to Submit
	// or WriteInline, the member's offset in the output and its length.
	OnMember func(tag any, offset, length int64)
}

// Buffer holds one member's uncompressed content: B[Start:] is compressed.
// Get one from MemberWriter.Buffer; ownership returns to the writer on
// Submit (or Release).
type Buffer struct {
	B     []byte
	Start int
}

type job struct {
	in   *Buffer
	out  []byte
	tag  any
	size int // input bytes, counted in MemberWriter.inFlight
	done chan struct{}
}

// Members queued per worker, and the input bytes queued at most (a member
// larger than that still goes, alone). A deep queue lets the goroutine that
// makes members run ahead while the workers catch up, instead of the two
// taking turns: on 2 cores arc2warc kept them busy 1.94 of 2 instead of
// 1.81.
const (
	queuePerWorker = 16
	maxInFlight    = 8 << 20
	// maxPooled is the largest buffer kept for reuse: a member of up to
	// 1 MiB plus its header (lib/warc's MaxMemoryBlock); larger buffers
	// are left to the collector.
	maxPooled = 1<<20 + 64<<10
)

// MemberWriter writes a stream of members (gzip members, zstd frames, or
// plain byte runs), compressing up to Concurrency members in parallel and
// writing them in submission order. Members too large to hold in memory
// are written with WriteInline, which streams them in the caller's
// goroutine once the queue has drained, so memory stays flat.
//
// Submit, WriteInline, Flush and Close must be called from one goroutine.
type MemberWriter struct {
	w   io.Writer
	opt WriterOptions
	off int64

	work    chan *job
	order   chan *job
	pending sync.WaitGroup
	stopped sync.WaitGroup
	started bool
	closed  bool

	mu  sync.Mutex
	err error

	budget   sync.Mutex
	freed    *sync.Cond // signalled when inFlight goes down
	inFlight int        // input bytes of the members submitted, not yet written

	bufs sync.Pool
	jobs sync.Pool

	zopts    []zstd.EOption
	inlineGz *gzip.Writer
	inlineZ  *zstd.Encoder
}

// NewMemberWriter returns a MemberWriter writing to w. With a zstd
// dictionary it writes the dictionary frame at once.
func NewMemberWriter(w io.Writer, opt WriterOptions) (*MemberWriter, error) {
	if opt.Concurrency <= 0 {
		opt.Concurrency = runtime.GOMAXPROCS(0)
	}
	m := &MemberWriter{w: w, opt: opt}
	m.bufs.New = func() any { return &Buffer{B: make([]byte, 0, 64<<10)} }
	m.jobs.New = func() any { return &job{done: make(chan struct{}, 1)} }
	switch opt.Format {
	case Plain:
	case Gzip:
		if _, err := gzip.NewWriterLevel(io.Discard, m.gzipLevel()); err != nil {
			return nil, err
		}
	case Zstd:
		m.zopts = []zstd.EOption{zstd.WithEncoderConcurrency(1), zstd.WithEncoderLevel(zstd.SpeedDefault)}
		if opt.Level > 0 {
			m.zopts[1] = zstd.WithEncoderLevel(zstd.EncoderLevelFromZstd(opt.Level))
		}
		if len(opt.Dict) > 0 {
			if len(opt.Dict) >= 4 && binary.LittleEndian.Uint32(opt.Dict) == zstdDictMagic {
				m.zopts = append(m.zopts, zstd.WithEncoderDict(opt.Dict))
			} else {
				m.zopts = append(m.zopts, zstd.WithEncoderDictRaw(0, opt.Dict))
			}
		}
		if _, err := zstd.NewWriter(nil, m.zopts...); err != nil {
			return nil, fmt.Errorf("zstd: %w", err)
		}
	default:
		return nil, fmt.Errorf("compio: unknown format %d", opt.Format)
	}
	if len(opt.Dict) > 0 {
		if opt.Format != Zstd {
			return nil, errors.New("compio: a dictionary needs zstd")
		}
		if len(opt.Dict) > MaxDictSize {
			return nil, fmt.Errorf("compio: dictionary of %d bytes exceeds %d", len(opt.Dict), MaxDictSize)
		}
		var h [8]byte
		binary.LittleEndian.PutUint32(h[:4], warcZstDictMagic)
		binary.LittleEndian.PutUint32(h[4:], uint32(len(opt.Dict)))
		if _, err := w.Write(h[:]); err != nil {
			return nil, err
		}
		if _, err := w.Write(opt.Dict); err != nil {
			return nil, err
		}
		m.off = int64(len(h) + len(opt.Dict))
	}
	return m, nil
}

func (m *MemberWriter) gzipLevel() int {
	if m.opt.Level == 0 {
		return gzip.DefaultCompression
	}
	return m.opt.Level
}

// Offset returns the number of bytes written so far, once every submitted
// member has been written (call Flush first for an exact figure).
func (m *MemberWriter) Offset() int64 { return m.off }

// Buffer returns an empty buffer to fill with a member's content.
func (m *MemberWriter) Buffer() *Buffer {
	b := m.bufs.Get().(*Buffer)
	b.B, b.Start = b.B[:0], 0
	return b
}

// Release returns a buffer that will not be submitted.
func (m *MemberWriter) Release(b *Buffer) {
	if b != nil && cap(b.B) <= maxPooled {
		m.bufs.Put(b)
	}
}

// Err returns the first write error, if any.
func (m *MemberWriter) Err() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.err
}

func (m *MemberWriter) setErr(err error) {
	m.mu.Lock()
	if m.err == nil {
		m.err = err
	}
	m.mu.Unlock()
}

func (m *MemberWriter) start() {
	m.started = true
	n := m.opt.Concurrency
	m.work = make(chan *job, queuePerWorker*n)
	m.order = make(chan *job, queuePerWorker*n)
	m.freed = sync.NewCond(&m.budget)
	m.stopped.Add(n + 1)
	for range n {
		go m.worker()
	}
	go m.writer()
}

func (m *MemberWriter) worker() {
	defer m.stopped.Done()
	var gz, gzHuff *gzip.Writer
	var zenc *zstd.Encoder
	var out appendWriter
	for j := range m.work {
		in := j.in.B[j.in.Start:]
		switch m.opt.Format {
		case Gzip:
			out.b = j.out[:0]
			w := &gz
			level := m.gzipLevel()
			if level != gzip.NoCompression && level != gzip.HuffmanOnly && looksIncompressible(in) {
				w, level = &gzHuff, gzip.HuffmanOnly
			}
			if *w == nil {
				*w, _ = gzip.NewWriterLevel(&out, level)
			} else {
				(*w).Reset(&out)
			}
			(*w).Write(in)
			(*w).Close()
			j.out = out.b
		case Zstd:
			if zenc == nil {
				zenc, _ = zstd.NewWriter(nil, m.zopts...)
			}
			j.out = zenc.EncodeAll(in, j.out[:0])
		}
		j.done <- struct{}{}
	}
	if zenc != nil {
		zenc.Close()
	}
}

func (m *MemberWriter) writer() {
	defer m.stopped.Done()
	for j := range m.order {
		<-j.done
		if m.Err() == nil {
			n, err := m.w.Write(j.out)
			if err == nil && n < len(j.out) {
				err = io.ErrShortWrite
			}
			if err != nil {
				m.setErr(err)
			} else {
				start := m.off
				m.off += int64(n)
				if m.opt.OnMember != nil {
					m.opt.OnMember(j.tag, start, int64(n))
				}
			}
		}
		m.budget.Lock()
		m.inFlight -= j.size
		m.freed.Signal()
		m.budget.Unlock()
		m.Release(j.in)
		j.in, j.tag = nil, nil
		if cap(j.out) > maxPooled {
			j.out = nil
		}
		m.jobs.Put(j)
		m.pending.Done()
	}
}

type appendWriter struct{ b []byte }

func (a *appendWriter) Write(p []byte) (int, error) {
	a.b = append(a.b, p...)
	return len(p), nil
}

// Submit queues b.B[b.Start:] as one member, tagged for OnMember. It blocks
// while the queue is full. It returns the first write error seen so far.
func (m *MemberWriter) Submit(b *Buffer, tag any) error {
	if m.closed {
		m.Release(b)
		return ErrWriterClosed
	}
	if err := m.Err(); err != nil {
		m.Release(b)
		return err
	}
	if m.opt.Format == Plain {
		err := m.writeDirect(b.B[b.Start:], tag)
		m.Release(b)
		return err
	}
	if !m.started {
		m.start()
	}
	j := m.jobs.Get().(*job)
	j.in, j.tag, j.size = b, tag, len(b.B)-b.Start
	m.budget.Lock()
	for m.inFlight > 0 && m.inFlight+j.size > maxInFlight {
		m.freed.Wait()
	}
	m.inFlight += j.size
	m.budget.Unlock()
	m.pending.Add(1)
	m.order <- j
	m.work <- j
	return nil
}

func (m *MemberWriter) writeDirect(p []byte, tag any) error {
	n, err := m.w.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	if err != nil {
		m.setErr(err)
		return err
	}
	start := m.off
	m.off += int64(n)
	if m.opt.OnMember != nil {
		m.opt.OnMember(tag, start, int64(n))
	}
	return nil
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// WriteInline waits until every queued member has been written, then
// compresses r as one member straight to the output, without holding it in
// memory: gzip members are deflated in 1 MiB chunks on Concurrency
// goroutines (as pigz does), zstd frames with the encoder's own
// concurrency.
func (m *MemberWriter) WriteInline(r io.Reader, tag any) error {
	if m.closed {
		return ErrWriterClosed
	}
	if err := m.Flush(); err != nil {
		return err
	}
	cw := countWriter{w: m.w}
	var err error
	switch m.opt.Format {
	case Plain:
		_, err = io.Copy(&cw, r)
	case Gzip:
		if m.opt.Concurrency > 1 {
			err = writeGzipParallel(&cw, r, m.gzipLevel(), m.opt.Concurrency)
			break
		}
		if m.inlineGz == nil {
			m.inlineGz, _ = gzip.NewWriterLevel(&cw, m.gzipLevel())
		} else {
			m.inlineGz.Reset(&cw)
		}
		if _, err = io.Copy(m.inlineGz, r); err == nil {
			err = m.inlineGz.Close()
		}
	case Zstd:
		if m.inlineZ == nil {
			opts := append(append([]zstd.EOption{}, m.zopts...), zstd.WithEncoderConcurrency(m.opt.Concurrency))
			m.inlineZ, err = zstd.NewWriter(&cw, opts...)
		} else {
			m.inlineZ.Reset(&cw)
		}
		if err == nil {
			if _, err = io.Copy(m.inlineZ, r); err == nil {
				err = m.inlineZ.Close()
			}
		}
	}
	if err != nil {
		m.setErr(err)
		return err
	}
	start := m.off
	m.off += cw.n
	if m.opt.OnMember != nil {
		m.opt.OnMember(tag, start, cw.n)
	}
	return nil
}

// Flush waits until every submitted member has been written.
func (m *MemberWriter) Flush() error {
	m.pending.Wait()
	return m.Err()
}

// Close writes every queued member and stops the workers. It does not close
// the underlying writer. Calling Close again returns the same error.
func (m *MemberWriter) Close() error {
	if m.closed {
		return m.Err()
	}
	m.closed = true
	m.pending.Wait()
	if m.started {
		close(m.work)
		close(m.order)
		m.stopped.Wait()
	}
	if m.inlineZ != nil {
		m.inlineZ.Close()
	}
	return m.Err()
}
