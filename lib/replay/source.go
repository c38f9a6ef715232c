package replay

import (
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// iterFunc yields index objects one at a time: (nil, nil) at the end.
type iterFunc func() (*cdxObj, error)

func emptyIter() (*cdxObj, error) { return nil, nil }

// canonFunc turns a query URL into the key its index uses.
type canonFunc func(url string) string

// indexSource is one of pywb's index sources: it yields the objects of a
// query's key range in index order.
type indexSource interface {
	load(q *query) (iterFunc, error)
}

// errNotFound is pywb's NotFoundException from a source: the aggregator
// counts the source as empty.
var errNotFound = errors.New("index not found")

// --- a sorted CDX or CDXJ file ---------------------------------------------

// fileSource is FileIndexSource: a sorted .cdx/.cdxj file searched in
// place.
type fileSource struct {
	open  func() (io.ReaderAt, int64, io.Closer, error)
	canon canonFunc
}

func localFile(path string) func() (io.ReaderAt, int64, io.Closer, error) {
	return func() (io.ReaderAt, int64, io.Closer, error) {
		f, err := os.Open(path)
		if err != nil {
			return nil, 0, nil, errNotFound
		}
		st, err := f.Stat()
		if err != nil || !st.Mode().IsRegular() {
			f.Close()
			return nil, 0, nil, errNotFound
		}
		return f, st.Size(), f, nil
	}
}

func (s *fileSource) load(q *query) (iterFunc, error) {
	key, end, err := q.rangeFor(s.canon)
	if err != nil {
		return nil, err
	}
	ra, size, c, err := s.open()
	if err != nil {
		return nil, err
	}
	lf := &lineFile{ra: ra, size: size}
	off, found, err := lf.firstGE(key)
	if err != nil || !found {
		if c != nil {
			c.Close()
		}
		if err != nil {
			return nil, err
		}
		return emptyIter, nil
	}
	sc := lf.from(off)
	done := false
	return func() (*cdxObj, error) {
		if done {
			return nil, nil
		}
		line, ok := sc.next()
		if !ok || pyRstrip(line) >= end {
			done = true
			if c != nil {
				c.Close()
			}
			return nil, sc.failure()
		}
		return parseCDXObj(line)
	}, nil
}

// --- a folder of index files ------------------------------------------------

// dirSource is DirectoryIndexSource: every *.cdx, *.cdxj (file sources)
// and *.idx, *.summary (ZipNum) of a folder, merged as pywb merges them.
type dirSource struct {
	dir   string
	canon canonFunc
}

func (s *dirSource) children() ([]namedSource, error) {
	ents, err := os.ReadDir(s.dir)
	if err != nil {
		return nil, errNotFound
	}
	var out []namedSource
	for _, e := range ents {
		n := e.Name()
		p := filepath.Join(s.dir, n)
		switch {
		case strings.HasSuffix(n, ".cdx") || strings.HasSuffix(n, ".cdxj"):
			out = append(out, namedSource{n, &fileSource{open: localFile(p), canon: s.canon}})
		case strings.HasSuffix(n, ".idx") || strings.HasSuffix(n, ".summary"):
			z, err := newZipNumSource(p, "")
			if err != nil {
				continue
			}
			z.canon = s.canon
			out = append(out, namedSource{n, z})
		}
	}
	return out, nil
}

func (s *dirSource) load(q *query) (iterFunc, error) {
	kids, err := s.children()
	if err != nil {
		return nil, err
	}
	return aggregate(kids, q, func(name string) string { return strings.SplitN(name, "/", 2)[0] })
}

// namedSource is a source under the name an aggregator gives it.
type namedSource struct {
	name string
	src  indexSource
}

// aggregate is BaseAggregator.load_index: each child's objects get
// "source" (the child's name, prefixed to a source the child set) and
// "source-coll" (coll of the name) unless nosource=true, then the
// children are merged with Python's heapq.merge on the objects' JSON.
func aggregate(kids []namedSource, q *query, coll func(string) string) (iterFunc, error) {
	var its []iterFunc
	for _, k := range kids {
		it, err := k.src.load(q)
		if err == errNotFound {
			continue
		}
		if err != nil {
			return nil, err
		}
		if q.get("nosource") != "true" {
			it = addSource(it, k.name, coll(k.name))
		}
		its = append(its, it)
	}
	switch len(its) {
	case 0:
		return emptyIter, nil
	case 1:
		return its[0], nil
	}
	return pyMerge(its), nil
}

func addSource(it iterFunc, name, coll string) iterFunc {
	return func() (*cdxObj, error) {
		c, err := it()
		if c == nil || err != nil || c.idx {
			return c, err
		}
		if u, ok := c.get(fURL); !ok || (!u.raw && u.s == "") {
			return c, nil
		}
		if src, ok := c.get("source"); ok && src.String() != "" && !(src.raw && (src.s == "0" || src.s == "false" || src.s == "null")) {
			c.set("source", str(name+":"+src.String()))
		} else {
			c.set("source", str(name))
		}
		c.set("source-coll", str(coll))
		return c, nil
	}
}

// --- heapq.merge ------------------------------------------------------------

type heapItem struct {
	v     *cdxObj
	js    string
	order int
	next  iterFunc
}

func (a *heapItem) less(b *heapItem) bool {
	if a.js == b.js {
		return a.order < b.order
	}
	return a.js < b.js
}

// pyMerge is Python 3.11's heapq.merge(*its) on CDXObjects (compared by
// their to_json(), as CDXObject.__lt__ does), step for step, so that the
// order is pywb's even where a child's lines are not in JSON order.
func pyMerge(its []iterFunc) iterFunc {
	var h []*heapItem
	var pending error
	for i, it := range its {
		v, err := it()
		if err != nil {
			pending = err
			break
		}
		if v != nil {
			h = append(h, &heapItem{v: v, js: v.sortJSON(), order: i, next: it})
		}
	}
	for i := len(h)/2 - 1; i >= 0; i-- {
		siftup(h, i)
	}
	var cur *heapItem // the item whose value was yielded last
	single := false
	return func() (*cdxObj, error) {
		if pending != nil {
			return nil, pending
		}
		if single {
			return h[0].next()
		}
		if cur != nil {
			v, err := cur.next()
			if err != nil {
				return nil, err
			}
			if v == nil {
				// heappop
				last := h[len(h)-1]
				h = h[:len(h)-1]
				if len(h) > 0 {
					h[0] = last
					siftup(h, 0)
				}
			} else {
				cur.v, cur.js = v, v.sortJSON()
				siftup(h, 0) // heapreplace
			}
			cur = nil
		}
		if len(h) == 0 {
			return nil, nil
		}
		if len(h) == 1 {
			single = true
			return h[0].v, nil
		}
		cur = h[0]
		return cur.v, nil
	}
}

func siftdown(h []*heapItem, start, pos int) {
	item := h[pos]
	for pos > start {
		parent := (pos - 1) >> 1
		if item.less(h[parent]) {
			h[pos] = h[parent]
			pos = parent
			continue
		}
		break
	}
	h[pos] = item
}

func siftup(h []*heapItem, pos int) {
	end, start, item := len(h), pos, h[pos]
	child := 2*pos + 1
	for child < end {
		if r := child + 1; r < end && !h[child].less(h[r]) {
			child = r
		}
		h[pos] = h[child]
		pos = child
		child = 2*pos + 1
	}
	h[pos] = item
	siftdown(h, start, pos)
}

// --- a pywb ZipNum cluster -------------------------------------------------

// zipNumSource is ZipNumIndexSource: a summary (cluster.idx: "key
// part offset length lineno" tab-separated) and a .loc file naming the
// paths of each part; a query reads one page of blocks (page 0 of 10
// blocks unless page= and pageSize= say otherwise), as pywb does.
type zipNumSource struct {
	summary   string
	loc       map[string][]string
	maxBlocks int
	canon     canonFunc
}

func newZipNumSource(summary, locPath string) (*zipNumSource, error) {
	if locPath == "" {
		locPath = strings.TrimSuffix(summary, filepath.Ext(summary)) + ".loc"
	}
	z := &zipNumSource{summary: summary, maxBlocks: 10, loc: map[string][]string{}}
	b, err := os.ReadFile(locPath)
	if err != nil {
		return nil, err
	}
	dir := filepath.Dir(locPath)
	for _, line := range strings.Split(string(b), "\n") {
		parts := strings.Split(strings.TrimRight(line, " \t\r\n\x0b\x0c"), "\t")
		if len(parts) == 1 && parts[0] == "" {
			continue
		}
		var paths []string
		for _, p := range parts[1:] {
			if !strings.Contains(p, "://") {
				p = filepath.Join(dir, p)
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
	f, err := os.Open(z.summary)
	if err != nil {
		return nil, errNotFound
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, errNotFound
	}
	lf := &lineFile{ra: f, size: st.Size()}
	lines, err := z.pageLines(lf, q, key, end)
	f.Close()
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
		n, ok := pyInt(ps)
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
		n, ok := pyInt(p)
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
		off, _ := pyInt(o.gets("offset"))
		n, _ := pyInt(o.gets("length"))
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
		ls, err := readBlocks(p, offset, ranges)
		if err == nil {
			return ls, nil
		}
		last = err
	}
	return nil, &internalError{last.Error()}
}

func readBlocks(path string, offset int64, ranges []int64) ([]string, error) {
	if strings.Contains(path, "://") {
		return nil, fmt.Errorf("%s: remote ZipNum parts are not read", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("[Errno 2] No such file or directory: %s", pyRepr(path))
	}
	defer f.Close()
	var out []string
	off := offset
	for _, n := range ranges {
		gz, err := gzip.NewReader(io.NewSectionReader(f, off, n))
		off += n
		if err != nil {
			return nil, err
		}
		gz.Multistream(false)
		b, err := io.ReadAll(io.LimitReader(gz, 64<<20))
		if err != nil && err != io.ErrUnexpectedEOF {
			return nil, err
		}
		s := string(b)
		for s != "" {
			i := strings.IndexByte(s, '\n')
			if i < 0 {
				out = append(out, s)
				break
			}
			out = append(out, s[:i+1])
			s = s[i+1:]
		}
	}
	return out, nil
}

var _ = sort.Strings
