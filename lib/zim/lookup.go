package zim

import "sort"

// lookupGrid is libzim's NarrowDown: a sample of the (namespace + path)
// keys of the dirent table kept in memory, which narrows a lookup to a few
// dirents. Building it checks that the sampled dirents are sorted.
type lookupGrid struct {
	keys   []string
	lindex []uint32
}

func (a *Archive) direntKey(dr *direntReader, i uint32) (string, error) {
	off, err := a.DirentOffset(i)
	if err != nil {
		return "", err
	}
	if off >= uint64(a.size) {
		return "", a.errf(int64(a.hdr.PathPtrPos)+8*int64(i), "Invalid dirent pointer")
	}
	e, err := dr.read(int64(off))
	if err != nil {
		return "", err
	}
	return string(e.Namespace) + e.Path, nil
}

func (a *Archive) buildGrid() (*lookupGrid, error) {
	g := &lookupGrid{}
	n := a.hdr.EntryCount
	if n == 0 {
		return g, nil
	}
	dr := newDirentReader(a, 1024)
	step := max(1, n/a.opt.lookupSample)
	for i := uint32(0); i < n-1; i += step {
		key, err := a.direntKey(dr, i)
		if err != nil {
			return nil, err
		}
		next, err := a.direntKey(dr, i+1)
		if err != nil {
			return nil, err
		}
		if key > next {
			return nil, a.errf(int64(a.hdr.PathPtrPos)+8*int64(i),
				"Dirent table is not properly sorted:\n  #%d: %c/%s\n  #%d: %c/%s",
				i, key[0], key[1:], i+1, next[0], next[1:])
		}
		if len(g.keys) == 0 {
			g.add(key, i)
		} else {
			pseudo := shortestStringInBetween(key, next)
			if pseudo < g.keys[len(g.keys)-1] {
				return nil, a.errf(int64(a.hdr.PathPtrPos)+8*int64(i),
					"Dirent table is not properly sorted:\nPseudoKey %s should be after (or equal) previously generated %s\n",
					pseudo, g.keys[len(g.keys)-1])
			}
			g.add(pseudo, i)
		}
		if i+step < i { // overflow
			break
		}
	}
	last, err := a.direntKey(dr, n-1)
	if err != nil {
		return nil, err
	}
	if len(g.keys) > 0 && (g.keys[len(g.keys)-1] > last || g.lindex[len(g.lindex)-1] >= n-1) {
		return nil, a.errf(int64(a.hdr.PathPtrPos)+8*int64(n-1),
			"Dirent table is not properly sorted: last entry %c/%s", last[0], last[1:])
	}
	g.add(last, n-1)
	return g, nil
}

func (g *lookupGrid) add(k string, i uint32) {
	g.keys = append(g.keys, k)
	g.lindex = append(g.lindex, i)
}

func shortestStringInBetween(a, b string) string {
	m := 0
	for m < len(a) && m < len(b) && a[m] == b[m] {
		m++
	}
	return b[:min(len(b), m+1)]
}

// getRange narrows the search for key to [begin, end).
func (g *lookupGrid) getRange(key string) (uint32, uint32) {
	it := sort.Search(len(g.keys), func(i int) bool { return key < g.keys[i] })
	if it == 0 {
		return 0, 0
	}
	prev := g.lindex[it-1]
	if it == len(g.keys) {
		return prev, prev + 1
	}
	return prev, g.lindex[it] + 1
}

func (g *lookupGrid) find(a *Archive, ns byte, key string) (uint32, bool, error) {
	l, u := g.getRange(string(ns) + key)
	dr := newDirentReader(a, 512)
	cmp := func(i uint32) (int, error) {
		off, err := a.DirentOffset(i)
		if err != nil {
			return 0, err
		}
		if off >= uint64(a.size) {
			return 0, a.errf(int64(a.hdr.PathPtrPos)+8*int64(i), "Invalid dirent pointer")
		}
		e, err := dr.read(int64(off))
		if err != nil {
			return 0, err
		}
		switch {
		case ns < e.Namespace:
			return -1, nil
		case ns > e.Namespace:
			return 1, nil
		case key < e.Path:
			return -1, nil
		case key > e.Path:
			return 1, nil
		}
		return 0, nil
	}
	if l == u {
		return l, false, nil
	}
	c, err := cmp(l)
	if err != nil || c < 0 {
		return l, false, err
	}
	if c == 0 {
		return l, true, nil
	}
	if c, err = cmp(u - 1); err != nil || c > 0 {
		return u, false, err
	}
	u--
	for {
		p := l + (u-l+1)/2
		c, err := cmp(p)
		if err != nil {
			return 0, false, err
		}
		if c <= 0 {
			if u == p {
				return u, c == 0, nil
			}
			u = p
		} else {
			l = p
		}
	}
}
