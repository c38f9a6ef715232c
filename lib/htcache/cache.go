package htcache

import (
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// EntryReader yields cache entries in file order.
type EntryReader interface {
	// Next returns the next entry, or io.EOF after the last.
	Next() (*Entry, error)
}

// Format names a cache layout.
type Format string

// Cache layouts.
const (
	FormatZip Format = "zip" // hts-cache/new.zip (HTTrack 3.31 and later)
	FormatNdx Format = "ndx" // hts-cache/new.ndx + new.dat (before 3.31)
)

// Cache is an HTTrack mirror's cache, opened for reading: the cache file,
// the mirror root its external bodies are relative to, and the crawl logs.
type Cache struct {
	// Root is the mirror root: the directory holding hts-cache/ (or the
	// directory of a zip given alone).
	Root string
	// Path is the cache file read (new.zip, old.zip or new.ndx).
	Path string
	// Format is the cache layout.
	Format Format
	// Log is what the logs say about the crawl.
	Log *CrawlLog
	// ModTime is the cache file's modification time (the end of the
	// crawl), used as fetch time when the logs give none.
	ModTime time.Time
	// OldPath is hts-cache/old.zip when it was read beside new.zip: an
	// update that did not finish leaves both, new.zip holding what it
	// fetched again and old.zip the previous crawl. Entries then goes on,
	// after the entries of new.zip, with those of old.zip whose URL
	// new.zip lacks (Entry.Old), dated by old.txt (see FetchTime). Empty
	// otherwise.
	OldPath string
	// OldModTime is the modification time of old.zip (the end of the
	// previous crawl).
	OldModTime time.Time

	cfg  config
	f    *os.File
	dat  *os.File
	size int64
	root *os.Root
	last *ZipReader

	oldF     *os.File
	oldSize  int64
	oldTimes map[string]time.Time // from hts-cache/old.txt
}

// ErrNoCache is returned by Open for a directory with no HTTrack cache.
var ErrNoCache = errors.New("no HTTrack cache (hts-cache/new.zip, old.zip or new.ndx)")

// Open opens a cache: a mirror directory (holding hts-cache/), its hts-cache
// directory, or a cache zip (or .ndx) file. In a directory new.zip is
// preferred, then old.zip (left by an update that did not finish), then the
// pre-3.31 new.ndx/new.dat and old.ndx/old.dat.
func Open(p string, opts ...Option) (*Cache, error) {
	cfg := newConfig(opts)
	if !cfg.verifySet {
		cfg.verify = true
	}
	st, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	c := &Cache{cfg: cfg}
	file := p
	if st.IsDir() {
		dir := p
		if sub := filepath.Join(p, "hts-cache"); isDir(sub) {
			dir = sub
		}
		file = ""
		for _, n := range []string{"new.zip", "old.zip", "new.ndx", "old.ndx"} {
			if fi, err := os.Stat(filepath.Join(dir, n)); err == nil && fi.Mode().IsRegular() && fi.Size() > 0 {
				file = filepath.Join(dir, n)
				break
			}
		}
		if file == "" {
			return nil, fmt.Errorf("%s: %w", p, ErrNoCache)
		}
		if filepath.Base(file) == "new.zip" {
			old := filepath.Join(dir, "old.zip")
			if fi, err := os.Stat(old); err == nil && fi.Mode().IsRegular() && fi.Size() > 0 {
				c.OldPath = old
			}
		}
	}
	c.Path = file
	dir := filepath.Dir(file)
	if filepath.Base(dir) == "hts-cache" {
		c.Root = filepath.Dir(dir)
	} else {
		c.Root = dir
	}
	if c.root, err = os.OpenRoot(c.Root); err != nil {
		return nil, err
	}
	if c.f, err = os.Open(file); err != nil {
		c.root.Close()
		return nil, err
	}
	fi, err := c.f.Stat()
	if err != nil {
		c.Close()
		return nil, err
	}
	c.size, c.ModTime = fi.Size(), fi.ModTime()
	comment := ""
	if strings.EqualFold(filepath.Ext(file), ".ndx") {
		c.Format = FormatNdx
		datName := strings.TrimSuffix(file, filepath.Ext(file)) + ".dat"
		if c.dat, err = os.Open(datName); err != nil {
			c.Close()
			return nil, fmt.Errorf("%s: the index needs its data file: %w", file, err)
		}
	} else {
		c.Format = FormatZip
		z, err := NewZipReader(c.f, c.size, file, opts...)
		if err != nil {
			c.Close()
			return nil, err
		}
		comment = z.Summary().Comment
	}
	c.Log = ReadCrawlLog(c.Root, comment, cfg.loc)
	if c.OldPath != "" {
		if err := c.openOld(); err != nil {
			c.Close()
			return nil, err
		}
	}
	return c, nil
}

// openOld opens old.zip; one that is not a cache zip at all is reported
// and left out.
func (c *Cache) openOld() error {
	f, err := os.Open(c.OldPath)
	if err != nil {
		return err
	}
	fi, err := f.Stat()
	if err == nil {
		_, err = NewZipReader(f, fi.Size(), c.OldPath, c.cfg.opts()...)
	}
	if err != nil {
		f.Close()
		if perr := c.cfg.problem(c.OldPath, 0, false, true, fmt.Sprintf("left out: %v", err)); perr != nil {
			return perr
		}
		c.OldPath = ""
		return nil
	}
	c.oldF, c.oldSize, c.OldModTime = f, fi.Size(), fi.ModTime()
	c.oldTimes = readTxtTimes(filepath.Join(filepath.Dir(c.OldPath), "old.txt"), c.OldModTime, c.Log.Location)
	return nil
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// Close closes the cache files.
func (c *Cache) Close() error {
	var err error
	if c.f != nil {
		err = c.f.Close()
	}
	if c.dat != nil {
		c.dat.Close()
	}
	if c.oldF != nil {
		c.oldF.Close()
	}
	if c.root != nil {
		c.root.Close()
	}
	return err
}

// Entries returns a new reader over the cache's entries, from the start.
func (c *Cache) Entries() (EntryReader, error) {
	if c.Format == FormatNdx {
		return NewNdxReader(io.NewSectionReader(c.f, 0, c.size), c.dat, c.Path, c.cfg.opts()...)
	}
	z, err := NewZipReader(c.f, c.size, c.Path, c.cfg.opts()...)
	if err != nil {
		return nil, err
	}
	c.last = z
	if c.oldF == nil {
		return z, nil
	}
	return &withOld{c: c, cur: z, seen: map[uint64]struct{}{}, seed: maphash.MakeSeed()}, nil
}

// withOld reads the entries of new.zip, then those of old.zip whose URL
// new.zip lacks.
type withOld struct {
	c    *Cache
	cur  EntryReader
	old  bool
	seen map[uint64]struct{} // hashes of the names in new.zip
	seed maphash.Seed
}

func (w *withOld) Next() (*Entry, error) {
	for {
		e, err := w.cur.Next()
		if err == io.EOF && !w.old {
			z, zerr := NewZipReader(w.c.oldF, w.c.oldSize, w.c.OldPath, w.c.cfg.opts()...)
			if zerr != nil {
				return nil, zerr
			}
			w.cur, w.old = z, true
			continue
		}
		if err != nil {
			return nil, err
		}
		h := maphash.String(w.seed, e.Name)
		if !w.old {
			w.seen[h] = struct{}{}
			return e, nil
		}
		if _, dup := w.seen[h]; dup {
			continue
		}
		e.Old = true
		return e, nil
	}
}

// ScanSummary returns the summary of the last zip scan started with Entries
// (complete once it has returned io.EOF); zero for the old cache.
func (c *Cache) ScanSummary() ScanSummary {
	if c.last == nil {
		return ScanSummary{TruncatedAt: -1}
	}
	return c.last.Summary()
}

// opts turns a config back into options (to pass it on).
func (cfg config) opts() []Option {
	return []Option{func(c *config) { *c = cfg }}
}

// BodySource says where an entry's body is.
type BodySource int

// Body sources.
const (
	// BodyNone: nothing stored (redirects, most errors: HTTrack keeps
	// only the metadata).
	BodyNone BodySource = iota
	// BodyInCache: the data of the cache entry (X-In-Cache: 1).
	BodyInCache
	// BodyExternal: the file named by X-Save in the mirror.
	BodyExternal
	// BodyMissing: X-Save names a file that is not there (deleted, or a
	// path outside the mirror root, which is never followed).
	BodyMissing
)

// String returns "none", "cache", "external" or "missing".
func (s BodySource) String() string {
	return [...]string{"none", "cache", "external", "missing"}[s]
}

// Locate says where e's body is; for external bodies it also returns the
// file's path relative to Root (slash-separated) and its size.
func (c *Cache) Locate(e *Entry) (src BodySource, rel string, size int64) {
	if e.Meta.InCache {
		return BodyInCache, "", e.StoredSize
	}
	if e.Meta.Save == "" {
		return BodyNone, "", 0
	}
	for _, cand := range c.saveCandidates(e.Meta.Save) {
		if st, err := c.root.Stat(cand); err == nil && st.Mode().IsRegular() {
			return BodyExternal, cand, st.Size()
		}
	}
	return BodyMissing, "", 0
}

// saveCandidates turns an X-Save value into paths relative to the root to
// try: as written; with backslashes as separators (Windows mirrors); and,
// for pre-3.40 caches that stored the project path in front, the part after
// the last component equal to the root's base name. Paths leaving the root
// are dropped (os.Root also refuses symlinks that leave it).
func (c *Cache) saveCandidates(save string) []string {
	var out []string
	add := func(s string) {
		s = path.Clean("/" + s)[1:]
		if s == "" || !fs.ValidPath(s) {
			return
		}
		for _, o := range out {
			if o == s {
				return
			}
		}
		out = append(out, s)
	}
	try := func(s string) {
		if !strings.HasPrefix(s, "/") && !strings.Contains(s, "../") && !strings.HasPrefix(s, "..") {
			add(s)
		}
		base := "/" + filepath.Base(c.Root) + "/"
		if i := strings.LastIndex("/"+s, base); i >= 0 {
			add(("/" + s)[i+len(base):])
		}
		if abs, err := filepath.Abs(c.Root); err == nil {
			if rest, ok := strings.CutPrefix(s, abs+"/"); ok {
				add(rest)
			}
		}
	}
	try(save)
	if strings.Contains(save, `\`) {
		try(strings.ReplaceAll(save, `\`, "/"))
	}
	return out
}

// ErrMissingBody is returned by Body for an entry whose external file is
// missing.
var ErrMissingBody = errors.New("external body file missing")

// Body opens e's body wherever it is and returns its size. Entries without a
// stored body give an empty reader. A missing external file gives
// ErrMissingBody (wrapped with the entry's URL and X-Save).
func (c *Cache) Body(e *Entry) (io.ReadCloser, int64, error) {
	src, rel, size := c.Locate(e)
	switch src {
	case BodyInCache:
		rc, err := e.OpenStored()
		return rc, e.StoredSize, err
	case BodyExternal:
		f, err := c.root.Open(rel)
		if err != nil {
			return nil, 0, err
		}
		return f, size, nil
	case BodyMissing:
		return nil, 0, fmt.Errorf("%s: entry at offset %d (%s): X-Save %q: %w", c.Path, e.Offset, e.URI(), e.Meta.Save, ErrMissingBody)
	}
	return io.NopCloser(eofReader{}), 0, nil
}

// FetchTime returns when e was fetched: the new.txt time (on the crawl day)
// when listed, else the crawl start from the logs, else the cache file's
// modification time. For an entry of old.zip: its old.txt time (dated back
// from the end of that crawl, old.zip's modification time), else that
// modification time. exact reports an old.txt or new.txt time.
func (c *Cache) FetchTime(e *Entry) (t time.Time, exact bool) {
	if e.Old {
		if t, ok := c.oldTimes[unescape(e.Name)]; ok {
			return t, true
		}
		if t, ok := c.oldTimes["http://"+unescape(e.Name)]; ok && !hasScheme(e.Name) {
			return t, true
		}
		return c.OldModTime, false
	}
	if t, ok := c.Log.Fetched(e.Name); ok {
		return t, true
	}
	if !c.Log.Launched.IsZero() {
		return c.Log.Launched, false
	}
	return c.ModTime, false
}

// ErrNotFound is returned by Find when no entry has the URL.
var ErrNotFound = errors.New("URL not in cache")

// Find scans the cache for the entry whose URL is url, given raw, escaped
// or without "http://". It returns the last matching entry (HTTrack's index
// keeps the last one too).
func (c *Cache) Find(url string) (*Entry, error) {
	er, err := c.Entries()
	if err != nil {
		return nil, err
	}
	want := URI(unescape(url))
	var found *Entry
	for {
		e, err := er.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if e.Name == url || URI(unescape(e.Name)) == want {
			found = e
		}
	}
	if found == nil {
		return nil, fmt.Errorf("%s: %q: %w", c.Path, url, ErrNotFound)
	}
	return found, nil
}

// problem reports a defect under the cache's policy.
func (c *Cache) problem(off int64, skipped bool, msg string) error {
	return c.cfg.problem(c.Path, off, false, skipped, msg)
}
