package mirrorget

import (
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/arcport/arcport/lib/crawl"
	"github.com/arcport/arcport/lib/internal/safefs"
)

// settleGone decides the URLs that answered 404 or 410 although the
// previous run saved them: when the run purges, the error page takes the
// place of the old copy (or, without an error page, the old copy is left
// to purge); otherwise the old copy and its cache entry are kept.
func (m *localMirror) settleGone(purging bool) error {
	var first error
	keys := make([]string, 0, len(m.gone))
	for k := range m.gone {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, u := range keys {
		g := m.gone[u]
		var err error
		switch {
		case purging && g.body != nil:
			err = m.saveBody(u, g.ct, g.mime, g.body, g.meta)
			if rel := g.meta.Save; err == nil && m.current[rel] {
				m.hlog.printf(logInfo, "Purging %s (%q (%d): replaced by the error page)", filepath.Join(m.dir, rel), g.meta.StatusMessage, g.meta.StatusCode)
				m.purged++
			}
		case purging:
			m.unsave(u) // purged with the files no longer linked
			err = m.addEntry(u, g.meta, nil)
		default:
			if g.body != nil {
				m.root.Remove(g.body.tmp)
			}
			m.mu.Lock()
			e := m.oldEnts[u]
			m.mu.Unlock()
			if reason := "run not complete"; e != nil {
				if m.noPurge {
					reason = "--purge=off"
				}
				m.hlog.printf(logWarning, "previous copy of %s kept (%s)", linkName(u), reason)
				err = m.keepOld(u, e)
			}
		}
		if err != nil && first == nil {
			first = err
		}
	}
	m.gone = nil
	return first
}

// keepLinked keeps the earlier copies of what the pages kept for want of an
// answer link to, and so on through the pages kept so: the crawl could not
// read the links of those pages, so what only they lead to was not reached
// although it may well be on the site still (a hub page answering 503 must
// not purge the pages below it). Only URLs the previous run saved are kept.
func (m *localMirror) keepLinked() error {
	queue := m.kept
	n := 0
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		m.mu.Lock()
		e := m.oldEnts[u]
		m.mu.Unlock()
		if e == nil || !e.Meta.InCache || crawl.Parser(e.Meta.ContentType, u) == nil {
			continue
		}
		body, _, err := m.old.Body(e)
		if err != nil {
			return err
		}
		ls, err := crawl.ExtractFrom(crawl.NewDocReader(body, m.parseLimit), e.Meta.ContentType, u)
		body.Close()
		if err != nil {
			m.logf("%s: links of the previous copy: %v", u, err)
		}
		for _, l := range ls {
			k, err := crawl.Canonicalize(l.URL)
			if err != nil || m.visited[k] {
				continue
			}
			m.mu.Lock()
			le := m.oldEnts[k]
			m.mu.Unlock()
			if le == nil || le.Meta.Save == "" || m.goodOld(k) == nil {
				continue
			}
			if err := m.keepOld(k, le); err != nil {
				return err
			}
			n++
			queue = append(queue, k)
		}
	}
	if n > 0 {
		m.hlog.printf(logInfo, "%d previous copies kept: linked from pages kept for want of an answer", n)
	}
	return nil
}

// purge removes the files of the previous run that this run did not write
// or keep, and the folders they leave empty, as HTTrack's -X does, listing
// each in hts-log.txt, and counts them in m.purged. A path that
// goes through a symbolic link, or is one, is refused (reported, not
// removed); a path outside a host's folder is not touched.
func (m *localMirror) purge() {
	cands := map[string]bool{}
	for _, e := range m.oldEnts {
		if p := e.Meta.Save; p != "" && !m.current[p] && purgeable(p) {
			cands[p] = true
		}
	}
	paths := make([]string, 0, len(cands))
	for p := range cands {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	n := m.purged // the old copies replaced by error pages
	dirs := map[string]bool{}
	for _, p := range paths {
		fi, err := m.root.Lstat(p)
		switch {
		case safefs.Refused(err):
			m.refuse(filepath.Join(m.dir, p), err)
			continue
		case err != nil:
			continue // gone already
		case fi.Mode()&fs.ModeSymlink != 0:
			m.refuse(filepath.Join(m.dir, p), &fs.PathError{Op: "remove", Path: p, Err: safefs.ErrSymlink})
			continue
		case !fi.Mode().IsRegular():
			continue
		}
		if err := m.root.Remove(p); err != nil {
			if safefs.Refused(err) {
				m.refuse(filepath.Join(m.dir, p), err)
			} else {
				m.logf("%s: not purged: %v", filepath.Join(m.dir, p), err)
			}
			continue
		}
		delete(m.saved, p)
		m.hlog.printf(logInfo, "Purging %s", filepath.Join(m.dir, p))
		n++
		dirs[path.Dir(p)] = true
	}
	// emptied folders go with the files, deepest first
	ds := make([]string, 0, len(dirs))
	for d := range dirs {
		ds = append(ds, d)
	}
	sort.Slice(ds, func(i, j int) bool {
		if a, b := strings.Count(ds[i], "/"), strings.Count(ds[j], "/"); a != b {
			return a > b
		}
		return ds[i] < ds[j]
	})
	for _, d := range ds {
		for d != "." && d != "" && d != "/" {
			fi, err := m.root.Lstat(d)
			if err != nil || !fi.IsDir() || m.root.Remove(d) != nil {
				break
			}
			delete(m.dirs, d)
			m.hlog.printf(logInfo, "Purging directory %s/", filepath.Join(m.dir, d))
			d = path.Dir(d)
		}
	}
	if n == 0 {
		m.hlog.printf(logInfo, "No files purged")
	}
	m.purged = n
}

// purgeable reports whether p, a local name from the previous run's cache,
// is a file in a host's folder that purge may remove: a clean relative
// path below a folder other than hts-cache.
func purgeable(p string) bool {
	if p != path.Clean(p) || path.IsAbs(p) || strings.ContainsAny(p, "\\\x00") {
		return false
	}
	first, rest, ok := strings.Cut(p, "/")
	if !ok || rest == "" || first == "hts-cache" || first == ".." {
		return false
	}
	for _, s := range strings.Split(p, "/") {
		if s == ".." || s == "." {
			return false
		}
	}
	return true
}

// onOff is the value of a flag that is on or off: "--purge" alone is on,
// "--purge=off" (or 0, no, false) off.
type onOff struct{ on bool }

func (v *onOff) String() string {
	if v == nil || v.on {
		return "on"
	}
	return "off"
}

func (v *onOff) Set(s string) error {
	if !isOnOff(s) {
		return fmt.Errorf("want on or off, not %q", s)
	}
	switch strings.ToLower(s) {
	case "on", "1", "yes", "true":
		v.on = true
	default:
		v.on = false
	}
	return nil
}

// isOnOff reports whether s is a value of an onOff flag.
func isOnOff(s string) bool {
	switch strings.ToLower(s) {
	case "on", "1", "yes", "true", "off", "0", "no", "false":
		return true
	}
	return false
}

// IsBoolFlag lets the flag stand without a value.
func (v *onOff) IsBoolFlag() bool { return true }
