package wacz

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/arcport/arcport/lib/cdx"
	"github.com/arcport/arcport/lib/internal/compio"
)

// DefaultPageMemory bounds the bytes of pages (URLs, titles, text) the
// page detector and the final page list keep in memory; past it they are
// kept in unlinked temporary files, so memory does not grow with the
// number of pages.
const DefaultPageMemory = 8 << 20

// pageSortChunk is the memory of each external sort of spilled pages.
const pageSortChunk = 4 << 20

// pageBytes estimates what a page costs in memory.
func pageBytes(p *Page) int {
	return 160 + 2*len(p.URL) + len(p.TS) + len(p.ID) + len(p.Title) + len(p.Text)
}

// pageSpill keeps detected pages that no longer fit in memory: each page
// is a line "URLHASH SEQ\tJSON" in an external sort, so that at the end
// the first page of each URL (lowest SEQ) is found by grouping, and the
// survivors are put back in record order by a second sort on SEQ.
type pageSpill struct {
	s   *cdx.Sorter
	buf bytes.Buffer
	enc *json.Encoder
}

func newPageSpill(dir string) *pageSpill {
	sp := &pageSpill{s: cdx.NewSorter(cdx.WithChunkSize(pageSortChunk), cdx.WithTempDir(dir))}
	sp.enc = json.NewEncoder(&sp.buf)
	sp.enc.SetEscapeHTML(false)
	return sp
}

// add writes p, the seq'th page detected.
func (sp *pageSpill) add(p *Page, seq int64) error {
	sum := sha256.Sum256([]byte(p.URL))
	sp.buf.Reset()
	var key [32 + 1 + 16 + 1]byte
	hex.Encode(key[:32], sum[:16])
	key[32] = ' '
	copy(key[33:49], fmt.Sprintf("%016x", seq))
	key[49] = '\t'
	sp.buf.Write(key[:])
	if err := sp.enc.Encode(p); err != nil {
		return err
	}
	return sp.s.Add(sp.buf.Bytes()) // the encoder's newline is dropped
}

// each calls fn with the first page of each URL for which keep is true, in
// the order they were added.
func (sp *pageSpill) each(dir string, keep func(*Page) bool, fn func(*Page) error) error {
	defer sp.s.Close()
	second := cdx.NewSorter(cdx.WithChunkSize(pageSortChunk), cdx.WithTempDir(dir))
	defer second.Close()
	var prev [32]byte
	first := true
	err := sp.s.Each(func(line []byte) error {
		if len(line) < 50 || line[49] != '\t' {
			return fmt.Errorf("wacz: page spill: bad line")
		}
		if !first && bytes.Equal(line[:32], prev[:]) {
			return nil // a later page of the same URL
		}
		first = false
		copy(prev[:], line[:32])
		var p Page
		if err := json.Unmarshal(line[50:], &p); err != nil {
			return fmt.Errorf("wacz: page spill: %v", err)
		}
		if !keep(&p) {
			return nil
		}
		return second.Add(line[33:]) // "SEQ\tJSON"
	})
	if err != nil {
		return err
	}
	return second.Each(func(line []byte) error {
		var p Page
		if len(line) < 17 {
			return fmt.Errorf("wacz: page spill: bad line")
		}
		if err := json.Unmarshal(line[17:], &p); err != nil {
			return fmt.Errorf("wacz: page spill: %v", err)
		}
		return fn(&p)
	})
}

// pageKeys is a set of pages by timestamp and URL, 8 bytes of a SHA-256
// each (a merge of ten million pages holds 80 MB plus the map's overhead,
// not the URLs).
type pageKeys map[uint64]struct{}

// add reports whether the page ts/u was new, and adds it.
func (k pageKeys) add(ts, u string) bool {
	h := sha256.New()
	h.Write([]byte(ts))
	h.Write([]byte{' '})
	h.Write([]byte(u))
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	key := binary.LittleEndian.Uint64(sum[:8])
	if _, ok := k[key]; ok {
		return false
	}
	k[key] = struct{}{}
	return true
}

// pageStore is the final page list: in memory up to a bound, then in an
// unlinked temporary file of JSON lines, read back as often as needed.
type pageStore struct {
	dir     string
	limit   int
	mem     []*Page
	memSize int
	f       *os.File
	bw      *bufio.Writer
	enc     *json.Encoder
	onDisk  int
	n       int
	hasText bool
	main    *Page // the first seed
}

func newPageStore(dir string, limit int) *pageStore {
	if limit <= 0 {
		limit = DefaultPageMemory
	}
	return &pageStore{dir: dir, limit: limit}
}

func (s *pageStore) add(p *Page) error {
	s.n++
	if p.Text != "" {
		s.hasText = true
	}
	if p.Seed && s.main == nil {
		cp := *p
		cp.Text = ""
		s.main = &cp
	}
	s.mem = append(s.mem, p)
	s.memSize += pageBytes(p)
	if s.memSize <= s.limit {
		return nil
	}
	if s.f == nil {
		f, err := compio.CreateSpool(s.dir, ".arcport-pages-*")
		if err != nil {
			return err
		}
		s.f, s.bw = f, bufio.NewWriterSize(f, 256<<10)
		s.enc = json.NewEncoder(s.bw)
		s.enc.SetEscapeHTML(false)
	}
	for _, p := range s.mem {
		if err := s.enc.Encode(p); err != nil {
			return err
		}
	}
	s.onDisk += len(s.mem)
	s.mem, s.memSize = nil, 0
	return nil
}

// each calls fn with every page in order.
func (s *pageStore) each(fn func(*Page) error) error {
	if s.f != nil {
		if err := s.bw.Flush(); err != nil {
			return err
		}
		br := bufio.NewReaderSize(io.NewSectionReader(s.f, 0, 1<<62), 256<<10)
		for i := 0; i < s.onDisk; i++ {
			line, err := br.ReadBytes('\n')
			if err != nil {
				return fmt.Errorf("wacz: page list spool, page %d: %v", i, err)
			}
			var p Page
			if err := json.Unmarshal(line, &p); err != nil {
				return fmt.Errorf("wacz: page list spool, page %d: %v", i, err)
			}
			if err := fn(&p); err != nil {
				return err
			}
		}
	}
	for _, p := range s.mem {
		if err := fn(p); err != nil {
			return err
		}
	}
	return nil
}

// flush writes out what the spill holds buffered, after which each may be
// called from several goroutines at once.
func (s *pageStore) flush() error {
	if s.f != nil {
		return s.bw.Flush()
	}
	return nil
}

func (s *pageStore) close() {
	if s.f != nil {
		s.f.Close()
		s.f = nil
	}
	s.mem = nil
}
