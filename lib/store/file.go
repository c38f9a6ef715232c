package store

import (
	"container/list"
	"context"
	"errors"
	"io"
	"os"
	"sync"
	"sync/atomic"
)

// File is an object open for random access: an io.ReaderAt with a known
// size, safe for concurrent use. A remote File reads aligned blocks of
// Options.BlockSize with ranged GETs (consecutive missing blocks of one
// ReadAt in one request) and keeps the last Options.CacheBlocks blocks
// used; each ranged read resumes and retries as Open's stream does and
// fails with ErrChanged if the object changed since OpenAt.
type File struct {
	name string
	size int64
	ctx  context.Context
	s    *Store
	f    *os.File // local file, or nil
	r    remote
	etag string

	reqs, bytes atomic.Int64

	mu    sync.Mutex
	lru   *list.List // of *block, most recent first
	index map[int64]*list.Element

	// Sequential reads (each starting where the last ended) fetch ahead
	// once a run has read 4 blocks: ahead blocks, doubling up to a
	// quarter of the cache. A lookup's few small reads never trigger it.
	seqNext int64
	seqRun  int64
	ahead   int64
}

type block struct {
	n    int64
	data []byte
}

// OpenAt opens name for random access: a local path, s3://bucket/key or an
// http(s):// URL whose server answers Range requests. For a remote object
// it sends one request (HEAD for S3, a one-byte ranged GET for http) to
// learn the size and ETag. ctx bounds every later read of the File.
func (s *Store) OpenAt(ctx context.Context, name string) (*File, error) {
	switch KindOf(name) {
	case Std:
		return nil, &Error{Op: "open", URL: "-", Err: errors.New("standard input cannot be read at random offsets; give a file or URL")}
	case Local:
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		fi, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, err
		}
		return &File{name: name, size: fi.Size(), f: f}, nil
	}
	r, err := s.remote(ctx, name)
	if err != nil {
		return nil, err
	}
	file := &File{name: name, ctx: ctx, s: s, r: r, lru: list.New(), index: map[int64]*list.Element{}}
	var info objInfo
	for fails := 0; ; fails++ {
		if fails > 0 {
			if err := s.backoff(ctx, fails-1); err != nil {
				return nil, wrap("open", name, -1, err)
			}
		}
		file.reqs.Add(1)
		info, err = r.stat(ctx)
		if err == nil || !retryable(err) || fails >= s.opts.Retries || ctx.Err() != nil {
			break
		}
		s.logf("%s: retrying after attempt %d: %s", Redact(name), fails+1, oneLine(describe(err)))
	}
	if err != nil {
		err = wrap("open", name, -1, err)
		if e := (*Error)(nil); errors.As(err, &e) && file.reqs.Load() > 1 {
			e.Attempts = int(file.reqs.Load())
		}
		return nil, err
	}
	file.size, file.etag = info.size, info.etag
	return file, nil
}

// Name returns the name the File was opened with.
func (f *File) Name() string { return f.name }

// Size returns the size of the object in bytes.
func (f *File) Size() int64 { return f.size }

// Stats returns the requests this File sent and the body bytes it
// received (zero for a local file).
func (f *File) Stats() Stats {
	return Stats{Requests: f.reqs.Load(), Bytes: f.bytes.Load()}
}

// Close releases the File (the local file, or the cached blocks).
func (f *File) Close() error {
	if f.f != nil {
		return f.f.Close()
	}
	f.mu.Lock()
	f.lru.Init()
	clear(f.index)
	f.mu.Unlock()
	return nil
}

// ReadAt reads len(p) bytes at off, as io.ReaderAt.
func (f *File) ReadAt(p []byte, off int64) (int, error) {
	if f.f != nil {
		return f.f.ReadAt(p, off)
	}
	if off < 0 {
		return 0, &Error{Op: "read", URL: Redact(f.name), Offset: off, Err: errors.New("negative offset")}
	}
	if off >= f.size {
		if len(p) == 0 {
			return 0, nil
		}
		return 0, io.EOF
	}
	end := min(off+int64(len(p)), f.size)
	bs := int64(f.s.opts.BlockSize)
	capacity := bs * int64(f.s.opts.CacheBlocks)
	f.mu.Lock()
	if off == f.seqNext && off > 0 {
		f.seqRun += end - off
		if f.seqRun >= 4*bs {
			f.ahead = min(max(2*f.ahead, 2), max(int64(f.s.opts.CacheBlocks)/4, 1))
		}
	} else {
		f.seqRun, f.ahead = end-off, 0
	}
	f.seqNext = end
	ahead := f.ahead
	f.mu.Unlock()
	n := 0
	for pos := off; pos < end; {
		b := pos / bs
		if data := f.cached(b); data != nil {
			c := copy(p[n:], data[pos-b*bs:min(int64(len(data)), end-b*bs)])
			n += c
			pos += int64(c)
			continue
		}
		// The run of missing blocks this read needs, and, when reading
		// sequentially, the missing blocks after it up to ahead.
		e := b
		for (e+1)*bs < end && !f.has(e+1) {
			e++
		}
		for (e+1)*bs < f.size && e+1 < b+ahead && !f.has(e+1) {
			e++
		}
		start, stop := b*bs, min((e+1)*bs, f.size)
		if stop-start > capacity {
			// Larger than the cache: read straight into p, uncached.
			stop = min(stop, end)
			if err := f.fill(p[n:n+int(stop-pos)], pos); err != nil {
				return n, err
			}
			n += int(stop - pos)
			pos = stop
			continue
		}
		buf := make([]byte, stop-start)
		if err := f.fill(buf, start); err != nil {
			return n, err
		}
		for i := b; i <= e; i++ {
			f.put(i, buf[(i-b)*bs:min((i-b+1)*bs, int64(len(buf)))])
		}
		c := copy(p[n:], buf[pos-start:min(stop, end)-start])
		n += c
		pos += int64(c)
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// fill reads len(buf) bytes at off with ranged GETs, resuming.
func (f *File) fill(buf []byte, off int64) error {
	st := &stream{s: f.s, ctx: f.ctx, r: f.r, off: off, end: off + int64(len(buf)),
		size: f.size, etag: f.etag, reqs: &f.reqs, bytes: &f.bytes}
	defer st.Close()
	if _, err := io.ReadFull(st, buf); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || err == io.EOF {
			return &Error{Op: "read", URL: Redact(f.name), Offset: st.off, Err: io.ErrUnexpectedEOF}
		}
		return err
	}
	return nil
}

func (f *File) cached(b int64) []byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	if el, ok := f.index[b]; ok {
		f.lru.MoveToFront(el)
		return el.Value.(*block).data
	}
	return nil
}

func (f *File) has(b int64) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	_, ok := f.index[b]
	return ok
}

func (f *File) put(b int64, data []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.index[b]; ok {
		return
	}
	f.index[b] = f.lru.PushFront(&block{n: b, data: data})
	for f.lru.Len() > f.s.opts.CacheBlocks {
		el := f.lru.Back()
		f.lru.Remove(el)
		delete(f.index, el.Value.(*block).n)
	}
}
