package wacz

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/arcport/arcport/lib/internal/sysfile"
)

// spillMem is how much a spill keeps in memory before moving to a temp file.
const spillMem = 8 << 20

// archiveSink receives the byte stream of one input's WARC data (raw gzip
// members copied from the input, or members written by the WARC writer)
// and places it into one or more STORED archive/ entries. Stream offsets are
// offsets in that byte stream; record boundaries, reported with Place, let
// the sink cut the stream into parts of at most split bytes, moving a record
// that would overflow a part into the next one.
type archiveSink struct {
	zw       *ZipWriter
	hashAlg  string
	split    int64 // 0: no splitting
	partName func(i int) string
	tmpDir   string

	part     *ZipEntry
	partIdx  int
	base     int64 // stream offset where the current part begins
	pos      int64 // stream offset written so far
	done     []Resource
	lastPart string

	// tap, when set, is writing stream bytes from another goroutine:
	// sent counts what was handed to it, and every other access to the
	// part waits for it to drain first.
	tap  *tapper
	sent int64
}

// quiet waits until the tap goroutine has written all it was given.
func (s *archiveSink) quiet() error {
	if s.tap == nil {
		return nil
	}
	return s.tap.wait()
}

// known is the stream offset up to which bytes have been given to the sink.
func (s *archiveSink) known() int64 {
	if s.tap != nil {
		return s.sent
	}
	return s.pos
}

func newArchiveSink(zw *ZipWriter, hashAlg string, split int64, tmpDir string, partName func(int) string) *archiveSink {
	return &archiveSink{zw: zw, hashAlg: hashAlg, split: split, partName: partName, tmpDir: tmpDir}
}

func (s *archiveSink) open() error {
	name := s.partName(s.partIdx)
	s.partIdx++
	e, err := s.zw.Create(ArchiveDir+name, Store, s.hashAlg)
	if err != nil {
		return err
	}
	s.part = e
	s.lastPart = name
	return nil
}

// Write appends stream bytes to the current part.
func (s *archiveSink) Write(p []byte) (int, error) {
	if s.part == nil {
		if err := s.open(); err != nil {
			return 0, err
		}
	}
	n, err := s.part.Write(p)
	s.pos += int64(n)
	return n, err
}

// Pos returns the stream offset written so far.
func (s *archiveSink) Pos() int64 {
	s.quiet()
	return s.pos
}

// Place reports that a record occupies stream bytes [start, end) and that
// no earlier byte will be withdrawn. It returns where the record finally
// lies: the part's file name (without archive/) and the offset in it. A
// record that would make its part exceed the split size, and is not the
// part's first, is moved to a new part together with the bytes after it.
func (s *archiveSink) Place(start, end int64) (string, int64, error) {
	if s.part == nil {
		if err := s.open(); err != nil {
			return "", 0, err
		}
	}
	if start < s.base || end > s.known() || end < start {
		return "", 0, fmt.Errorf("internal error: record [%d,%d) outside part [%d,%d)", start, end, s.base, s.known())
	}
	if s.split > 0 && end-s.base > s.split && start > s.base {
		if err := s.quiet(); err != nil {
			return "", 0, err
		}
		if err := s.movePart(start); err != nil {
			return "", 0, err
		}
	}
	if s.tap == nil {
		s.part.Commit(start - s.base)
	} else {
		// after the bytes before start, from the tap's goroutine: so a
		// streamed output (tailfile) passes them on as it goes rather
		// than keeping the whole part until it closes
		s.tap.commit(s.part, start-s.base)
	}
	return s.lastPart, start - s.base, nil
}

// movePart closes the current part at stream offset at and starts a new one
// holding the stream bytes from at onwards.
func (s *archiveSink) movePart(at int64) error {
	sp, err := s.spill(at)
	if err != nil {
		return err
	}
	defer sp.Close()
	if err := s.part.Truncate(at - s.base); err != nil {
		return err
	}
	if err := s.closePart(); err != nil {
		return err
	}
	s.base = at
	s.pos = at
	if err := s.open(); err != nil {
		return err
	}
	_, err = io.Copy(s, sp)
	return err
}

// readAt reads stream bytes at off from the current part.
func (s *archiveSink) readAt(p []byte, off int64) (int, error) {
	if err := s.quiet(); err != nil {
		return 0, err
	}
	if s.part == nil || off < s.base {
		return 0, fmt.Errorf("internal error: stream offset %d is not in the current part (from %d)", off, s.base)
	}
	return s.part.ReadAt(p, off-s.base)
}

// Rewind withdraws the stream bytes from offset to on, returning them.
func (s *archiveSink) Rewind(to int64) (*spill, error) {
	if err := s.quiet(); err != nil {
		return nil, err
	}
	if s.part == nil || to < s.base || to > s.pos {
		return nil, fmt.Errorf("internal error: rewind to %d outside part [%d,%d)", to, s.base, s.pos)
	}
	sp, err := s.spill(to)
	if err != nil {
		return nil, err
	}
	if err := s.part.Truncate(to - s.base); err != nil {
		sp.Close()
		return nil, err
	}
	s.pos = to
	return sp, nil
}

// spill copies stream bytes [from, pos) out of the current part.
func (s *archiveSink) spill(from int64) (*spill, error) {
	sp := &spill{dir: s.tmpDir}
	if _, err := io.Copy(sp, io.NewSectionReader(s.part, from-s.base, s.pos-from)); err != nil {
		sp.Close()
		return nil, err
	}
	if err := sp.rewind(); err != nil {
		sp.Close()
		return nil, err
	}
	return sp, nil
}

func (s *archiveSink) closePart() error {
	if s.part == nil {
		return nil
	}
	if err := s.part.Close(); err != nil {
		return err
	}
	s.done = append(s.done, Resource{Name: resourceName(s.part.Name()), Path: s.part.Name(), Hash: s.part.Hash(), Bytes: s.part.Size()})
	s.part = nil
	return nil
}

// Close ends the current part.
func (s *archiveSink) Close() error {
	if err := s.quiet(); err != nil {
		return err
	}
	return s.closePart()
}

// Resources returns the parts written and closed so far.
func (s *archiveSink) Resources() []Resource { return s.done }

// tapper writes the raw copy into the sink from its own goroutine, so
// hashing (sha256, CRC-32) and writing the file run beside decoding. It
// also commits the part, in order with the writes.
type tapper struct {
	sink *archiveSink
	ch   chan tapItem
	wg   sync.WaitGroup
	mu   sync.Mutex
	err  error

	// the last commit sent (used by the sending goroutine only)
	lastPart *ZipEntry
	lastOff  int64
}

// tapItem is bytes to write, or a Commit of part at off.
type tapItem struct {
	b      []byte
	shared bool   // b is not the tapper's (not put in free)
	done   func() // shared: called once b is written
	part   *ZipEntry
	off    int64
}

const tapChunk = 256 << 10

func newTapper(sink *archiveSink) *tapper {
	t := &tapper{sink: sink, ch: make(chan tapItem, 16)}
	go func() {
		for it := range t.ch {
			t.mu.Lock()
			failed := t.err != nil
			t.mu.Unlock()
			if it.part != nil {
				if !failed {
					it.part.Commit(it.off)
				}
				t.wg.Done()
				continue
			}
			b := it.b
			if !failed {
				if _, err := sink.Write(b); err != nil {
					t.mu.Lock()
					t.err = err
					t.mu.Unlock()
				}
			}
			if !it.shared {
				tapBufs.Put(&b)
			} else if it.done != nil {
				it.done()
			}
			t.wg.Done()
		}
	}()
	return t
}

// write hands a copy of p to the goroutine.
func (t *tapper) write(p []byte) error {
	for len(p) > 0 {
		b := t.buffer()
		n := copy(b, p)
		p = p[n:]
		t.wg.Add(1)
		t.ch <- tapItem{b: b[:n]}
		t.sink.sent += int64(n)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.err
}

// buffer returns a buffer of tapChunk bytes for give.
func (t *tapper) buffer() []byte {
	return (*tapBufs.Get().(*[]byte))[:tapChunk]
}

// tapBufs are the tappers' buffers, kept from input to input (10,000
// small inputs each made their own: 2.5 GB allocated and cleared).
var tapBufs = sync.Pool{New: func() any { b := make([]byte, tapChunk); return &b }}

// give hands b (from buffer, not to be used after) to the goroutine, as
// write does without the copy.
func (t *tapper) give(b []byte) error {
	t.wg.Add(1)
	t.ch <- tapItem{b: b}
	t.sink.sent += int64(len(b))
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.err
}

// giveShared hands b to the goroutine, which only reads it, and calls
// done (when not nil) once it has written it.
func (t *tapper) giveShared(b []byte, done func()) error {
	t.wg.Add(1)
	t.ch <- tapItem{b: b, shared: true, done: done}
	t.sink.sent += int64(len(b))
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.err
}

// commit has the goroutine call part.Commit(off) once it has written what
// it was given so far. Only a commit checkpointEvery bytes past the last
// one sent is sent (a Releaser is released at checkpoints only): one
// wake-up of the goroutine per record would cost more than the hashing.
func (t *tapper) commit(part *ZipEntry, off int64) {
	if part == t.lastPart && off-t.lastOff < checkpointEvery {
		return
	}
	t.lastPart, t.lastOff = part, off
	t.wg.Add(1)
	t.ch <- tapItem{part: part, off: off}
}

func (t *tapper) wait() error {
	t.wg.Wait()
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.err
}

// stop ends the goroutine once everything given was written.
func (t *tapper) stop() error {
	err := t.wait()
	close(t.ch)
	return err
}

// spill holds bytes in memory up to spillMem, then in a temporary file.
type spill struct {
	dir  string
	max  int // bytes kept in memory; 0 means spillMem
	mem  bytes.Buffer
	f    *os.File
	r    io.Reader
	size int64
}

func (sp *spill) Write(p []byte) (int, error) {
	sp.size += int64(len(p))
	limit := spillMem
	if sp.max > 0 {
		limit = sp.max
	}
	if sp.f == nil && sp.mem.Len()+len(p) <= limit {
		return sp.mem.Write(p)
	}
	if sp.f == nil {
		// unlinked (deleted on close on Windows): goes away with the descriptor
		f, err := sysfile.CreateDeleteOnClose(sp.dir, ".waczpack-spill-*")
		if err != nil {
			return 0, err
		}
		sp.f = f
		if _, err := f.Write(sp.mem.Bytes()); err != nil {
			return 0, err
		}
		sp.mem = bytes.Buffer{}
	}
	return sp.f.Write(p)
}

func (sp *spill) rewind() error {
	if sp.f != nil {
		if _, err := sp.f.Seek(0, io.SeekStart); err != nil {
			return err
		}
		sp.r = sp.f
		return nil
	}
	sp.r = bytes.NewReader(sp.mem.Bytes())
	return nil
}

func (sp *spill) Read(p []byte) (int, error) { return sp.r.Read(p) }

// Len returns the number of bytes spilled.
func (sp *spill) Len() int64 { return sp.size }

func (sp *spill) Close() error {
	if sp.f != nil {
		return sp.f.Close()
	}
	return nil
}
