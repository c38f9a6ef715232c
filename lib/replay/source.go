package replay

import (
	"io"
)

// indexSource is one of pywb's index sources: it yields the objects of a
// query's key range in index order.
type indexSource interface {
	load(q *query) (iterFunc, error)
}

// --- a sorted CDX or CDXJ file ---------------------------------------------

// fileSource is FileIndexSource: a sorted .cdx/.cdxj file searched in
// place.
type fileSource struct {
	open  func() (io.ReaderAt, int64, io.Closer, error)
	canon canonFunc
}

func localFile(path string) func() (io.ReaderAt, int64, io.Closer, error) {
	return func() (io.ReaderAt, int64, io.Closer, error) {
		ra, size, err := openIndexFile(path)
		return ra, size, nil, err
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
	return mergeLoads(q, len(kids), func(i int) indexSource { return kids[i].src }, func(i int, it iterFunc) iterFunc {
		if q.get("nosource") != "true" {
			it = addSource(it, kids[i].name, coll(kids[i].name))
		}
		return it
	})
}

// mergeLoads loads q from the n sources src(i) and merges what they find
// with Python's heapq.merge (pyMerge); a source that has no index for q
// (errNotFound) is left out, each found one first goes through wrap
// (nil: as it is).
func mergeLoads(q *query, n int, src func(i int) indexSource, wrap func(i int, it iterFunc) iterFunc) (iterFunc, error) {
	var its []iterFunc
	for i := range n {
		it, err := src(i).load(q)
		if err == errNotFound {
			continue
		}
		if err != nil {
			return nil, err
		}
		if wrap != nil {
			it = wrap(i, it)
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

// multiSource merges the children as pywb's folder source does.
type multiSource struct{ kids []namedSource }

func (m *multiSource) load(q *query) (iterFunc, error) {
	return aggregate(m.kids, q, func(n string) string { return n })
}
