package replay

import (
	"compress/gzip"
	"container/list"
	"encoding/binary"
	"io"
	"strings"
	"sync"
)

// zipNumCacheBytes is the bound of the cache of inflated ZipNum blocks
// (the bytes of their lines), shared by every cluster of the process: 8
// MiB, ~10 blocks of pywb's 3,000 lines. What it holds costs about three
// times as much RSS (evicted blocks wait for the collector): serve's max
// RSS on a 10-million-capture cluster, 6,000 lookups, went from ~41 MiB
// without it to ~58 MiB (~67 MiB under load), ~88 MiB with 16 MiB,
// ~130 MiB with 32 MiB (the bound is 100 MiB).
const zipNumCacheBytes = 8 << 20

// blockCache keeps the lines of inflated ZipNum blocks, least recently
// used first out once their bytes pass max. A block is keyed by the file
// it was read from (the open file, so a cluster rewritten in place is
// read anew: openIndexFile opens a changed file again) and its offset and
// length. Requests that want a block being inflated wait for that one
// inflate.
type blockCache struct {
	mu       sync.Mutex
	max      int64
	used     int64
	ll       *list.List // of *blockEntry, most recent first
	m        map[blockKey]*list.Element
	inflight map[blockKey]*blockCall
	// inflates counts the blocks inflated (tests, benchmarks)
	inflates int64
}

type blockKey struct {
	f      io.ReaderAt
	path   string
	off, n int64
}

type blockEntry struct {
	key   blockKey
	lines []string
	size  int64
}

type blockCall struct {
	done  chan struct{}
	lines []string
	err   error
}

func newBlockCache(max int64) *blockCache {
	return &blockCache{max: max, ll: list.New(), m: map[blockKey]*list.Element{}, inflight: map[blockKey]*blockCall{}}
}

// zipNumBlocks is the process's cache of ZipNum blocks.
var zipNumBlocks = newBlockCache(zipNumCacheBytes)

// entrySize is what a block's lines cost: their bytes, their string
// headers and the entry's own bookkeeping.
func entrySize(lines []string) int64 {
	n := int64(len(lines))*16 + 160
	for _, l := range lines {
		n += int64(len(l))
	}
	return n
}

// get returns the lines of the block of k, from the cache or from load
// (called once however many requests want the block at the same time).
// The slice returned is shared: callers do not write to it.
func (c *blockCache) get(k blockKey, load func() ([]string, error)) ([]string, error) {
	c.mu.Lock()
	if e, ok := c.m[k]; ok {
		c.ll.MoveToFront(e)
		lines := e.Value.(*blockEntry).lines
		c.mu.Unlock()
		return lines, nil
	}
	if call, ok := c.inflight[k]; ok {
		c.mu.Unlock()
		<-call.done
		return call.lines, call.err
	}
	call := &blockCall{done: make(chan struct{})}
	c.inflight[k] = call
	c.inflates++
	c.mu.Unlock()

	func() {
		defer func() {
			if v := recover(); v != nil {
				call.err = &internalError{"panic inflating a block"}
			}
		}()
		call.lines, call.err = load()
	}()

	c.mu.Lock()
	delete(c.inflight, k)
	if call.err == nil {
		size := entrySize(call.lines)
		// a block bigger than a quarter of the cache is not kept (it
		// would push out most others)
		if size <= c.max/4 {
			c.m[k] = c.ll.PushFront(&blockEntry{key: k, lines: call.lines, size: size})
			c.used += size
			for c.used > c.max {
				back := c.ll.Back()
				be := back.Value.(*blockEntry)
				c.ll.Remove(back)
				delete(c.m, be.key)
				c.used -= be.size
			}
		}
	}
	c.mu.Unlock()
	close(call.done)
	return call.lines, call.err
}

// stats returns the bytes held, the blocks held and the inflates so far.
func (c *blockCache) stats() (used int64, blocks int, inflates int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.used, c.ll.Len(), c.inflates
}

// gzipReaders keeps inflaters (each holds ~40 KB of window and tables)
// from one block to the next.
var gzipReaders sync.Pool

// inflateBlock reads the first gzip member at [off, off+n) of f and
// returns its lines with their newlines.
func inflateBlock(f io.ReaderAt, off, n int64) ([]string, error) {
	sr := io.NewSectionReader(f, off, n)
	var gz *gzip.Reader
	if v := gzipReaders.Get(); v != nil {
		gz = v.(*gzip.Reader)
		if err := gz.Reset(sr); err != nil {
			return nil, err
		}
	} else {
		var err error
		if gz, err = gzip.NewReader(sr); err != nil {
			return nil, err
		}
	}
	gz.Multistream(false)
	// the member's trailer holds its inflated size: the lines are read
	// into one string of that size (a hint only: a block of several
	// members has the last one's)
	var sb strings.Builder
	var trailer [4]byte
	if n >= 18 {
		if _, err := f.ReadAt(trailer[:], off+n-4); err == nil {
			sb.Grow(int(min(binary.LittleEndian.Uint32(trailer[:]), 64<<20)))
		}
	}
	_, err := io.Copy(&sb, io.LimitReader(gz, 64<<20))
	gzipReaders.Put(gz)
	if err != nil && err != io.ErrUnexpectedEOF {
		return nil, err
	}
	s := sb.String()
	out := make([]string, 0, strings.Count(s, "\n")+1)
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out[:len(out):len(out)], nil
}
