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

	cfg       config
	fsys      fs.FS // the mirror root
	closeRoot func() error
	oldRel    string // old.zip's name in fsys
	f         cacheFile
	dat       cacheFile
	size      int64
	last      *ZipReader

	oldF     cacheFile
	oldSize  int64
	oldTimes map[string]time.Time // from hts-cache/old.txt
}

// ErrNoCache is returned by Open for a directory with no HTTrack cache.
var ErrNoCache = errors.New("no HTTrack cache (hts-cache/new.zip, old.zip or new.ndx)")

// cacheFile is a cache file opened through the cache's file system: a
// local file, or an object read by ranges.
type cacheFile interface {
	io.ReaderAt
	io.Closer
}

// Open opens a cache: a mirror directory (holding hts-cache/), its hts-cache
// directory, or a cache zip (or .ndx) file. In a directory new.zip is
// preferred, then old.zip (left by an update that did not finish), then the
// pre-3.31 new.ndx/new.dat and old.ndx/old.dat. Files of the mirror are
// read below the mirror root only (os.Root: no symbolic link leads out).
func Open(p string, opts ...Option) (*Cache, error) {
	st, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	root, cacheDir, file := p, "", ""
	switch {
	case !st.IsDir():
		root, file = filepath.Dir(p), filepath.Base(p)
		if filepath.Base(root) == "hts-cache" {
			root, cacheDir = filepath.Dir(root), "hts-cache"
		}
	case isDir(filepath.Join(p, "hts-cache")):
		cacheDir = "hts-cache"
	case filepath.Base(p) == "hts-cache":
		root, cacheDir = filepath.Dir(p), "hts-cache"
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	c, err := open(r.FS(), root, cacheDir, file, p, opts...)
	if err != nil {
		r.Close()
		return nil, err
	}
	c.closeRoot = r.Close
	return c, nil
}

// OpenFS opens the cache of the mirror whose root is fsys (holding
// hts-cache/, or being the hts-cache folder itself), for example an
// s3:// prefix (store.DirFS). The files of fsys must implement io.ReaderAt
// (the cache zip is read at random offsets); name is the root's name in
// messages.
func OpenFS(fsys fs.FS, name string, opts ...Option) (*Cache, error) {
	name = strings.TrimSuffix(name, "/")
	if st, err := fs.Stat(fsys, "hts-cache"); err == nil && st.IsDir() {
		return open(fsys, name, "hts-cache", "", name, opts...)
	}
	return open(fsys, name, ".", "", name, opts...)
}

// open opens the cache in fsys, the mirror root (named root in messages):
// file (a name in cacheDir) or, when "", the first cache file found in
// cacheDir. given is what the user named, for ErrNoCache.
func open(fsys fs.FS, root, cacheDir, file, given string, opts ...Option) (*Cache, error) {
	cfg := newConfig(opts)
	if !cfg.verifySet {
		cfg.verify = true
	}
	if cacheDir == "" {
		cacheDir = "."
	}
	regular := func(name string) bool {
		fi, err := fs.Stat(fsys, name)
		return err == nil && fi.Mode().IsRegular() && fi.Size() > 0
	}
	c := &Cache{cfg: cfg, fsys: fsys, Root: root}
	display := func(rel string) string { return joinName(root, rel) }
	if file == "" {
		for _, n := range []string{"new.zip", "old.zip", "new.ndx", "old.ndx"} {
			if regular(path.Join(cacheDir, n)) {
				file = n
				break
			}
		}
		if file == "" {
			return nil, fmt.Errorf("%s: %w", given, ErrNoCache)
		}
		if file == "new.zip" && regular(path.Join(cacheDir, "old.zip")) {
			c.oldRel = path.Join(cacheDir, "old.zip")
			c.OldPath = display(c.oldRel)
		}
	}
	rel := path.Join(cacheDir, file)
	c.Path = display(rel)
	var fi fs.FileInfo
	var err error
	if c.f, fi, err = openCacheFile(fsys, rel, c.Path); err != nil {
		return nil, err
	}
	c.size, c.ModTime = fi.Size(), fi.ModTime()
	comment := ""
	if strings.EqualFold(path.Ext(file), ".ndx") {
		c.Format = FormatNdx
		datRel := strings.TrimSuffix(rel, path.Ext(rel)) + ".dat"
		if c.dat, _, err = openCacheFile(fsys, datRel, display(datRel)); err != nil {
			c.Close()
			return nil, fmt.Errorf("%s: the index needs its data file: %w", c.Path, err)
		}
	} else {
		c.Format = FormatZip
		z, err := NewZipReader(c.f, c.size, c.Path, opts...)
		if err != nil {
			c.Close()
			return nil, err
		}
		comment = z.Summary().Comment
	}
	c.Log = readCrawlLog(fsys, comment, cfg.loc)
	if c.OldPath != "" {
		if err := c.openOld(); err != nil {
			c.Close()
			return nil, err
		}
	}
	return c, nil
}

// joinName joins a slash-separated name below root for messages (root
// may be a local path or a URL).
func joinName(root, rel string) string {
	if rel == "." || rel == "" {
		return root
	}
	if strings.Contains(root, "://") {
		return strings.TrimSuffix(root, "/") + "/" + rel
	}
	return filepath.Join(root, filepath.FromSlash(rel))
}

// openCacheFile opens name in fsys for random access.
func openCacheFile(fsys fs.FS, name, display string) (cacheFile, fs.FileInfo, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	cf, ok := f.(cacheFile)
	if !ok {
		f.Close()
		return nil, nil, fmt.Errorf("%s: cannot be read at random offsets", display)
	}
	return cf, fi, nil
}

// openOld opens old.zip; one that is not a cache zip at all is reported
// and left out.
func (c *Cache) openOld() error {
	f, fi, err := openCacheFile(c.fsys, c.oldRel, c.OldPath)
	if err != nil {
		return err
	}
	if _, err = NewZipReader(f, fi.Size(), c.OldPath, c.cfg.opts()...); err != nil {
		f.Close()
		if perr := c.cfg.problem(c.OldPath, 0, false, true, fmt.Sprintf("left out: %v", err)); perr != nil {
			return perr
		}
		c.OldPath, c.oldRel = "", ""
		return nil
	}
	c.oldF, c.oldSize, c.OldModTime = f, fi.Size(), fi.ModTime()
	c.oldTimes = readTxtTimes(c.fsys, path.Join(path.Dir(c.oldRel), "old.txt"), c.OldModTime, c.Log.Location)
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
	if c.closeRoot != nil {
		c.closeRoot()
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
		if st, err := fs.Stat(c.fsys, cand); err == nil && st.Mode().IsRegular() {
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
		f, err := c.fsys.Open(rel)
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
