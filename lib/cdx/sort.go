package cdx

import (
	"bufio"
	"bytes"
	"container/heap"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/arcport/arcport/lib/internal/compio"
)

// DefaultSortChunk is the default amount of line data a Sorter holds in
// memory before it writes a sorted run to a temporary file.
const DefaultSortChunk = 64 << 20

// DefaultFanIn is the default number of runs merged at once.
const DefaultFanIn = 64

// SortOption configures a Sorter.
type SortOption func(*Sorter)

// WithChunkSize sets the bytes of lines held in memory per run.
func WithChunkSize(n int) SortOption { return func(s *Sorter) { s.chunk = max(n, 1) } }

// WithTempDir sets the directory of the temporary run files ("" means
// os.TempDir()).
func WithTempDir(dir string) SortOption { return func(s *Sorter) { s.dir = dir } }

// WithFanIn sets how many runs are merged at once (at least 2); more runs
// are first merged into intermediate runs.
func WithFanIn(n int) SortOption { return func(s *Sorter) { s.fanIn = max(n, 2) } }

// WithUnique drops repeated identical lines, as cdxj-indexer's sort does.
func WithUnique(on bool) SortOption { return func(s *Sorter) { s.unique = on } }

// Sorter sorts lines in byte order (as `LC_ALL=C sort` does) with bounded
// memory: lines are gathered up to the chunk size, sorted, and written as
// runs to temporary files, which are then merged. Memory use is about the
// chunk size plus 64 KiB per merged run, whatever the number of lines.
// The run files have no name (compio.CreateSpool): nothing is left behind
// however the process ends, SIGKILL included. Runs are merged in tiers, as
// they come: fanIn runs of one tier become one run of the next, so a run is
// rewritten once per tier and at most fanIn files per tier are open.
type Sorter struct {
	chunk  int
	dir    string
	fanIn  int
	unique bool

	arena  []byte
	spans  []span
	runs   []*os.File
	tiers  []int // tier of each run: how many merges made it
	spills int
	done   bool
}

type span struct{ start, end int }

// NewSorter returns a Sorter.
func NewSorter(opts ...SortOption) *Sorter {
	s := &Sorter{chunk: DefaultSortChunk, fanIn: DefaultFanIn}
	for _, o := range opts {
		o(s)
	}
	return s
}

// ErrSorterDone is returned by Add after WriteTo or Close.
var ErrSorterDone = errors.New("cdx: sorter already used")

// Add adds one line (without its newline; a trailing "\n" is removed).
// The bytes are copied.
func (s *Sorter) Add(line []byte) error {
	if s.done {
		return ErrSorterDone
	}
	line = bytes.TrimSuffix(line, []byte("\n"))
	if bytes.IndexByte(line, '\n') >= 0 {
		return errors.New("cdx: sorter line holds a newline")
	}
	if len(s.arena)+len(line) > s.chunk && len(s.spans) > 0 {
		if err := s.spill(); err != nil {
			return err
		}
	}
	if s.arena == nil && s.chunk <= 64<<20 {
		// the whole chunk at once: no copies as it grows, no
		// capacity beyond it
		s.arena = make([]byte, 0, s.chunk)
	}
	st := len(s.arena)
	s.arena = append(s.arena, line...)
	s.spans = append(s.spans, span{st, len(s.arena)})
	return nil
}

// Runs returns how many sorted runs were written to temporary files.
func (s *Sorter) Runs() int { return s.spills }

func (s *Sorter) sortMemory() {
	a := s.arena
	slices.SortFunc(s.spans, func(x, y span) int { return bytes.Compare(a[x.start:x.end], a[y.start:y.end]) })
}

// spill writes the lines in memory as a sorted run.
func (s *Sorter) spill() error {
	s.sortMemory()
	f, err := compio.CreateSpool(s.dir, "cdxsort-*.run")
	if err != nil {
		return fmt.Errorf("cdx: sort: %w", err)
	}
	s.runs = append(s.runs, f)
	s.tiers = append(s.tiers, 0)
	s.spills++
	bw := bufio.NewWriterSize(f, 256<<10)
	var prev []byte
	for i, sp := range s.spans {
		line := s.arena[sp.start:sp.end]
		if s.unique && i > 0 && bytes.Equal(line, prev) {
			continue
		}
		bw.Write(line)
		bw.WriteByte('\n')
		prev = line
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("cdx: sort: writing a run: %w", err)
	}
	s.arena = s.arena[:0]
	s.spans = s.spans[:0]
	return s.mergeTiers()
}

// mergeTiers merges fanIn runs of the last tier into one run of the next
// tier, as long as there are that many.
func (s *Sorter) mergeTiers() error {
	for {
		n, tier := 0, s.tiers[len(s.tiers)-1]
		for n < len(s.tiers) && s.tiers[len(s.tiers)-1-n] == tier {
			n++
		}
		if n < s.fanIn {
			return nil
		}
		if err := s.mergeRuns(len(s.runs)-n, tier+1); err != nil {
			return err
		}
	}
}

// ErrNotSorted is wrapped by AddRun errors about a run whose lines are not
// in byte order.
var ErrNotSorted = errors.New("not sorted")

// AddRun adds the lines of r, which must already be sorted in byte order
// (a per-file index written with `waczpack index --sort`): they are
// copied to a temporary run file as they are, with no sorting in memory,
// and merged with the other runs and lines. Memory use stays that of a
// merge (64 KiB per run) whatever the run's size. An error names the
// first line (1-based) that is out of order or too long.
func (s *Sorter) AddRun(r io.Reader) error { return s.AddRunRange(r, "", "") }

// AddRunRange is AddRun for the lines L of r with from <= L < to only (to
// == "" for no upper bound); reading stops at the first line at or past
// to.
func (s *Sorter) AddRunRange(r io.Reader, from, to string) error {
	if s.done {
		return ErrSorterDone
	}
	f, err := compio.CreateSpool(s.dir, "cdxsort-*.run")
	if err != nil {
		return fmt.Errorf("cdx: sort: %w", err)
	}
	br := bufio.NewReaderSize(r, 64<<10)
	bw := bufio.NewWriterSize(f, 256<<10)
	var prev, line []byte
	n := 0
	wrote := false
	for {
		frag, rerr := br.ReadSlice('\n')
		line = append(line, frag...)
		if rerr == bufio.ErrBufferFull {
			if len(line) > MaxLineSize {
				f.Close()
				return fmt.Errorf("line %d: %w", n+1, ErrLineTooLong)
			}
			continue
		}
		if rerr != nil && rerr != io.EOF {
			f.Close()
			return rerr
		}
		if len(line) > 0 {
			n++
		}
		if l := bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r")); len(l) > 0 {
			if len(l) > MaxLineSize {
				f.Close()
				return fmt.Errorf("line %d: %w", n, ErrLineTooLong)
			}
			if len(prev) > 0 && bytes.Compare(l, prev) < 0 {
				f.Close()
				return fmt.Errorf("line %d: %w: it sorts before the line above it", n, ErrNotSorted)
			}
			prev = append(prev[:0], l...)
			if to != "" && string(l) >= to {
				break
			}
			if string(l) >= from {
				wrote = true
				bw.Write(l)
				bw.WriteByte('\n')
			}
		}
		line = line[:0]
		if rerr == io.EOF {
			break
		}
	}
	if !wrote {
		f.Close()
		return nil
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("cdx: sort: writing a run: %w", err)
	}
	s.runs = append(s.runs, f)
	s.tiers = append(s.tiers, 0)
	s.spills++
	return s.mergeTiers()
}

// mergeRuns merges the runs from index from on into one run of tier.
func (s *Sorter) mergeRuns(from, tier int) error {
	f, err := compio.CreateSpool(s.dir, "cdxsort-*.run")
	if err != nil {
		return fmt.Errorf("cdx: sort: %w", err)
	}
	bw := bufio.NewWriterSize(f, 256<<10)
	runs := append([]*os.File(nil), s.runs[from:]...)
	s.runs, s.tiers = s.runs[:from], s.tiers[:from]
	err = s.merge(runs, func(line []byte) error {
		bw.Write(line)
		return bw.WriteByte('\n')
	})
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		f.Close()
		return fmt.Errorf("cdx: sort: %w", err)
	}
	s.runs, s.tiers = append(s.runs, f), append(s.tiers, tier)
	return nil
}

// Each calls fn with every line in sorted order (the slice is valid only
// during the call), then removes the temporary files.
func (s *Sorter) Each(fn func(line []byte) error) error {
	if s.done {
		return ErrSorterDone
	}
	defer s.Close()
	if len(s.runs) == 0 {
		s.done = true
		s.sortMemory()
		var prev []byte
		for i, sp := range s.spans {
			line := s.arena[sp.start:sp.end]
			if s.unique && i > 0 && bytes.Equal(line, prev) {
				continue
			}
			if err := fn(line); err != nil {
				return err
			}
			prev = line
		}
		return nil
	}
	if len(s.spans) > 0 {
		if err := s.spill(); err != nil {
			return err
		}
	}
	s.done = true
	s.arena, s.spans = nil, nil
	// merge down to at most fanIn runs, then into fn
	for len(s.runs) > s.fanIn {
		if err := s.mergeRuns(len(s.runs)-s.fanIn, s.tiers[len(s.tiers)-1]+1); err != nil {
			return err
		}
	}
	runs := s.runs
	s.runs, s.tiers = nil, nil
	return s.merge(runs, fn)
}

// WriteTo writes the sorted lines to w, each ending in "\n".
func (s *Sorter) WriteTo(w io.Writer) (int64, error) {
	bw := bufio.NewWriterSize(w, 256<<10)
	var n int64
	err := s.Each(func(line []byte) error {
		n += int64(len(line)) + 1
		bw.Write(line)
		return bw.WriteByte('\n')
	})
	if err != nil {
		return n, err
	}
	return n, bw.Flush()
}

// Close drops the temporary files. It is safe to call more than once.
func (s *Sorter) Close() error {
	s.done = true
	for _, r := range s.runs {
		r.Close()
	}
	s.runs, s.tiers = nil, nil
	s.arena, s.spans = nil, nil
	return nil
}

type runReader struct {
	br   *bufio.Reader
	f    *os.File
	line []byte
}

func (r *runReader) next() (bool, error) {
	line, err := r.br.ReadBytes('\n')
	if err == io.EOF && len(line) == 0 {
		return false, nil
	}
	if err != nil && err != io.EOF {
		return false, err
	}
	r.line = bytes.TrimSuffix(line, []byte("\n"))
	return true, nil
}

type runHeap []*runReader

func (h runHeap) Len() int           { return len(h) }
func (h runHeap) Less(i, j int) bool { return bytes.Compare(h[i].line, h[j].line) < 0 }
func (h runHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *runHeap) Push(x any)        { *h = append(*h, x.(*runReader)) }
func (h *runHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// merge merges sorted run files into fn and closes them.
func (s *Sorter) merge(files []*os.File, fn func([]byte) error) error {
	h := make(runHeap, 0, len(files))
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	for _, f := range files {
		size, err := f.Seek(0, io.SeekEnd)
		if err != nil {
			return fmt.Errorf("cdx: sort: %w", err)
		}
		r := &runReader{br: bufio.NewReaderSize(io.NewSectionReader(f, 0, size), 64<<10), f: f}
		ok, err := r.next()
		if err != nil {
			return fmt.Errorf("cdx: sort: reading a run: %w", err)
		}
		if !ok {
			continue
		}
		h = append(h, r)
	}
	heap.Init(&h)
	var prev []byte
	havePrev := false
	for len(h) > 0 {
		r := h[0]
		if !(s.unique && havePrev && bytes.Equal(r.line, prev)) {
			if err := fn(r.line); err != nil {
				return err
			}
			if s.unique {
				prev = append(prev[:0], r.line...)
				havePrev = true
			}
		}
		ok, err := r.next()
		if err != nil {
			return fmt.Errorf("cdx: sort: reading a run: %w", err)
		}
		if ok {
			heap.Fix(&h, 0)
		} else {
			heap.Pop(&h)
		}
	}
	return nil
}
