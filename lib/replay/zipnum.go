package replay

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/arcport/arcport/lib/cdx"
	"github.com/arcport/arcport/lib/store"
)

// zipNumSource is ZipNumIndexSource: a summary (cluster.idx: "key
// part offset length lineno" tab-separated) and a .loc file naming the
// paths of each part; a query reads one page of blocks (page 0 of 10
// blocks unless page= and pageSize= say otherwise), as pywb does.
type zipNumSource struct {
	summary   string
	loc       map[string][]string
	maxBlocks int
	canon     canonFunc
	// remote files (s3://, http(s)://) stay open: each costs a request
	// to open, and keeps a cache of the blocks it read
	mu     sync.Mutex
	remote map[string]*store.File
	store  *store.Store
	// blocks is the cache of inflated blocks (zipNumBlocks)
	blocks *blockCache
}

// newZipNumSource opens a summary and its .loc (locPath, or the summary's
// name with .loc), local or remote (s3://, http(s)://: read by ranges
// through lib/store; parts named relative to the .loc are looked for
// beside it).
func newZipNumSource(st *store.Store, summary, locPath string) (*zipNumSource, error) {
	if st == nil {
		st = store.Default
	}
	if locPath == "" {
		if i := strings.LastIndexByte(summary, '.'); i > strings.LastIndexByte(summary, '/') {
			locPath = summary[:i] + ".loc"
		} else {
			locPath = summary + ".loc"
		}
	}
	z := &zipNumSource{summary: summary, maxBlocks: 10, loc: map[string][]string{}, remote: map[string]*store.File{}, store: st, blocks: zipNumBlocks}
	var b []byte
	var err error
	join := filepath.Join
	dir := filepath.Dir(locPath)
	if store.IsRemote(locPath) {
		var rc io.ReadCloser
		if rc, err = st.Open(context.Background(), locPath); err == nil {
			b, err = io.ReadAll(io.LimitReader(rc, 64<<20))
			rc.Close()
		}
		dir = locPath[:strings.LastIndexByte(locPath, '/')]
		join = func(a ...string) string { return a[0] + "/" + a[1] }
	} else {
		b, err = os.ReadFile(locPath)
	}
	if err != nil {
		return nil, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		parts := strings.Split(strings.TrimRight(line, " \t\r\n\x0b\x0c"), "\t")
		if len(parts) == 1 && parts[0] == "" {
			continue
		}
		var paths []string
		for _, p := range parts[1:] {
			if !strings.Contains(p, "://") {
				p = join(dir, p)
			}
			paths = append(paths, p)
		}
		z.loc[parts[0]] = paths
	}
	return z, nil
}

// pageInfo is pywb's AlwaysJsonResponse for showNumPages.
func pageInfo(pages, size, blocks int64) *cdxObj {
	c := &cdxObj{idx: true, info: true}
	c.keys = []string{"pages", "pageSize", "blocks"}
	n := func(v int64) pyVal { return pyVal{s: fmt.Sprint(v), raw: true} }
	c.vals = []pyVal{n(pages), n(size), n(blocks)}
	c.line = string(c.appendJSONAll(nil))
	c.hasLine = true
	return c
}

func (z *zipNumSource) load(q *query) (iterFunc, error) {
	key, end, err := q.rangeFor(z.canon)
	if err != nil {
		return nil, err
	}
	ra, size, closer, err := z.openAt(z.summary)
	if err != nil {
		return nil, errNotFound
	}
	lf := &lineFile{ra: ra, size: size}
	lines, err := z.pageLines(lf, q, key, end)
	if closer != nil {
		closer.Close()
	}
	if err != nil {
		// raised by the generator when first read: pywb answers it
		// with the first line
		return func() (*cdxObj, error) { return nil, err }, nil
	}
	if q.pageCount || q.secondaryOnly {
		i := 0
		return func() (*cdxObj, error) {
			if i >= len(lines) {
				return nil, nil
			}
			i++
			if q.pageCount {
				return lines[i-1].obj, nil
			}
			return parseIdxObj(lines[i-1].text)
		}, nil
	}
	return z.idxToCDX(lines, key, end), nil
}

type idxLine struct {
	text string
	obj  *cdxObj
}

// searchPrev1 is binsearch.search(reader, key, prev_size=1): the offset to
// read from (the line before the first line >= key, or that line when it
// is the first; the last line when no line is >= key and there are two
// or more), or ok false.
func searchPrev1(lf *lineFile, key string) (int64, bool, error) {
	s, found, err := lf.firstGE(key)
	if err != nil {
		return 0, false, err
	}
	if found {
		if p, ok, err := lf.prevLine(s); err != nil {
			return 0, false, err
		} else if ok {
			return p, true, nil
		}
		return s, true, nil
	}
	last, err := lf.lastLineStart()
	if err != nil || last == 0 {
		return 0, false, err
	}
	return last, true, nil
}

// pageLines is compute_page_range: the summary lines of the page asked
// for, or the page count.
func (z *zipNumSource) pageLines(lf *lineFile, q *query, key, end string) ([]idxLine, error) {
	pagesize := int64(z.maxBlocks)
	if ps := q.get("pageSize"); ps != "" {
		n, ok := cdx.PyInt(ps)
		if !ok {
			return nil, &cdxError{fmt.Sprintf("Invalid value for pageSize= param: %s", ps)}
		}
		pagesize = n
	}
	var lastLine string
	haveLast := false
	var endLine string
	if off, ok, err := searchPrev1(lf, end); err != nil {
		return nil, err
	} else if ok {
		endLine, _, err = lf.readLine(off)
		if err != nil {
			return nil, err
		}
		endLine = pyRstrip(endLine)
	} else {
		ls, err := lf.lastLineStart()
		if err != nil {
			return nil, err
		}
		l, _, err := lf.readLine(ls)
		if err != nil {
			return nil, err
		}
		lastLine, haveLast = l+"\n", true
		if ls+int64(len(l)) >= lf.size {
			lastLine = l // no final newline
		}
		endLine = lastLine
	}
	// the first summary line and those after it, below end
	var first []string
	if off, ok, err := searchPrev1(lf, key); err != nil {
		return nil, err
	} else if ok {
		sc := lf.from(off)
		for {
			l, ok := sc.next()
			if !ok {
				if err := sc.failure(); err != nil {
					return nil, err
				}
				break
			}
			l = pyRstrip(l)
			if l >= end {
				break
			}
			first = append(first, l)
		}
	}
	if len(first) == 0 {
		if haveLast && endLine == lastLine && key >= lastLine {
			first = []string{lastLine}
		} else {
			if q.pageCount {
				return []idxLine{{obj: pageInfo(0, pagesize, 0)}}, nil
			}
			return nil, nil
		}
	}
	fo, err := parseIdxObj(first[0])
	if err != nil {
		return nil, err
	}
	eo, err := parseIdxObj(endLine)
	if err != nil {
		return nil, err
	}
	blocks, totalPages := int64(-1), int64(1)
	fl, ok1 := fo.lineno()
	el, ok2 := eo.lineno()
	if ok1 && ok2 {
		if pagesize == 0 {
			return nil, &internalError{"division by zero"}
		}
		blocks = el - fl
		totalPages = int64(float64(blocks)/float64(pagesize)) + 1
	}
	if q.pageCount {
		if blocks == 0 {
			it := z.idxToCDX([]idxLine{{text: first[0]}}, key, end)
			if c, err := it(); err != nil {
				return nil, err
			} else if c == nil {
				totalPages, blocks = 0, -1
			}
		}
		return []idxLine{{obj: pageInfo(totalPages, pagesize, blocks+1)}}, nil
	}
	page := int64(0)
	if p := q.get("page"); p != "" {
		n, ok := cdx.PyInt(p)
		if !ok {
			return nil, &cdxError{fmt.Sprintf("Invalid value for page= param: %s", p)}
		}
		page = n
	}
	if page >= totalPages || page < 0 {
		return nil, &cdxError{fmt.Sprintf("Page %d invalid: First Page is 0, Last Page is %d", page, totalPages-1)}
	}
	startline := page * pagesize
	endline := startline + pagesize - 1
	if blocks >= 0 {
		endline = min(endline, blocks)
	}
	var out []idxLine
	if page == 0 {
		out = append(out, idxLine{text: first[0]})
	} else {
		startline--
	}
	rest := first[1:]
	// itertools.islice(first_iter, startline, endline)
	if startline < 0 {
		return nil, &internalError{"Indices for islice() must be None or an integer: 0 <= x <= sys.maxsize."}
	}
	for i := startline; i < endline && i < int64(len(rest)); i++ {
		out = append(out, idxLine{text: rest[i]})
	}
	return out, nil
}

// idxToCDX reads the blocks of the summary lines, consecutive blocks of a
// part (up to maxBlocks) in one read, and yields their lines in
// [key, end).
func (z *zipNumSource) idxToCDX(lines []idxLine, key, end string) iterFunc {
	type group struct {
		part           string
		offset, length int64
		count          int
		ranges         []int64
	}
	var groups []*group
	for _, l := range lines {
		o, err := parseIdxObj(l.text)
		if err != nil {
			return func() (*cdxObj, error) { return nil, err }
		}
		part := o.gets("part")
		off, _ := cdx.PyInt(o.gets("offset"))
		n, _ := cdx.PyInt(o.gets("length"))
		if g := lastGroup(groups); g != nil && g.part == part && g.offset+g.length == off && g.count < z.maxBlocks {
			g.length += n
			g.count++
			g.ranges = append(g.ranges, n)
			continue
		}
		groups = append(groups, &group{part: part, offset: off, length: n, count: 1, ranges: []int64{n}})
	}
	gi := 0
	var cur []string
	started, done := false, false
	return func() (*cdxObj, error) {
		for !done {
			for len(cur) == 0 {
				if gi >= len(groups) {
					done = true
					return nil, nil
				}
				g := groups[gi]
				gi++
				started = false
				ls, err := z.readGroup(g.part, g.offset, g.ranges)
				if err != nil {
					done = true
					return nil, err
				}
				cur = ls
			}
			l := cur[0]
			cur = cur[1:]
			if !started {
				if l < key {
					continue
				}
				started = true
			}
			if l >= end {
				// takewhile ends this read; the next starts its own search
				cur, started = nil, false
				continue
			}
			return parseCDXObj(l)
		}
		return nil, nil
	}
}

func lastGroup[T any](gs []*T) *T {
	if len(gs) == 0 {
		return nil
	}
	return gs[len(gs)-1]
}

// readGroup reads consecutive blocks of a part from the first of its
// locations that can be read, each block's first gzip member inflated,
// and returns their lines with their newlines.
func (z *zipNumSource) readGroup(part string, offset int64, ranges []int64) ([]string, error) {
	locs, ok := z.loc[part]
	if !ok || len(locs) == 0 {
		return nil, &internalError{"No Locations Found for: " + part}
	}
	var last error
	for _, p := range locs {
		ls, err := z.readBlocks(p, offset, ranges)
		if err == nil {
			return ls, nil
		}
		last = err
	}
	return nil, &internalError{last.Error()}
}

// openAt opens a summary or a part: a local file (closed by the caller),
// or a remote one kept open.
func (z *zipNumSource) openAt(path string) (io.ReaderAt, int64, io.Closer, error) {
	if !store.IsRemote(path) {
		ra, size, err := openIndexFile(path)
		return ra, size, nil, err
	}
	z.mu.Lock()
	defer z.mu.Unlock()
	if f, ok := z.remote[path]; ok {
		return f, f.Size(), nil, nil
	}
	f, err := z.store.OpenAt(context.Background(), path)
	if err != nil {
		return nil, 0, nil, err
	}
	z.remote[path] = f
	return f, f.Size(), nil, nil
}

func (z *zipNumSource) readBlocks(path string, offset int64, ranges []int64) ([]string, error) {
	f, _, closer, err := z.openAt(path)
	if err != nil {
		if !store.IsRemote(path) {
			return nil, fmt.Errorf("[Errno 2] No such file or directory: %s", pyRepr(path))
		}
		return nil, fmt.Errorf("%s: %v", store.Redact(path), err)
	}
	if closer != nil {
		defer closer.Close()
	}
	if len(ranges) == 1 {
		return z.blocks.get(blockKey{f, path, offset, ranges[0]}, func() ([]string, error) {
			return inflateBlock(f, offset, ranges[0])
		})
	}
	var out []string
	off := offset
	for _, n := range ranges {
		o := off
		ls, err := z.blocks.get(blockKey{f, path, o, n}, func() ([]string, error) {
			return inflateBlock(f, o, n)
		})
		off += n
		if err != nil {
			return nil, err
		}
		out = append(out, ls...)
	}
	return out, nil
}
