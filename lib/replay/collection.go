package replay

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"iter"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/arcport/arcport/lib/arc"
	"github.com/arcport/arcport/lib/cdx"
	"github.com/arcport/arcport/lib/record"
	"github.com/arcport/arcport/lib/store"
	"github.com/arcport/arcport/lib/surt"
	"github.com/arcport/arcport/lib/wacz"
	"github.com/arcport/arcport/lib/warc"
)

// Collection is one archive served under /NAME/: an index source and the
// places its WARC and ARC files are found.
type Collection struct {
	// Name is the first path segment of the collection's URLs.
	Name string
	// Source is the SRC it was opened from.
	Source string
	// Kind says what Source is: "wacz", "zipnum", "cdx", "index-folder"
	// or "warc-folder".
	Kind string

	src      indexSource
	archives []string     // folders holding the WARC/ARC files
	wacz     *wacz.Reader // set for a WACZ
	zra      *zipData     // the WACZ's bytes
	closer   io.Closer
}

// Close releases the files the collection holds open.
func (c *Collection) Close() error {
	if c.closer != nil {
		return c.closer.Close()
	}
	return nil
}

// Options tell Open where to keep what it makes.
type Options struct {
	// CacheDir holds the indexes made for folders of WARC/ARC files
	// (default: the user cache folder's arcport/serve).
	CacheDir string
}

// NameOf returns the collection name a SRC gets when none is given: the
// file or folder name without its extension.
func NameOf(src string) string {
	s := strings.TrimRight(src, "/")
	if i := strings.Index(s, "://"); i >= 0 {
		s = s[i+3:]
	}
	b := path.Base(filepath.ToSlash(s))
	for _, ext := range []string{".wacz", ".idx", ".summary", ".cdxj", ".cdx"} {
		b = strings.TrimSuffix(b, ext)
	}
	return b
}

// ValidName reports whether name can be a collection's name: letters,
// digits, "-", "_" and ".", not starting with "." or "_", not a route of
// the server.
func ValidName(name string) bool {
	if name == "" || len(name) > 100 || name[0] == '.' || name[0] == '_' {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return false
		}
	}
	switch name {
	case "healthz", "static", "all":
		return false
	}
	return true
}

// Open opens SRC as a collection named name: a WACZ (a local path,
// s3://... or http(s)://... ending in .wacz), a pywb ZipNum summary
// (.idx or .summary, with its .loc beside it), a sorted .cdx or .cdxj
// file, or a local folder: a pywb collection (its indexes/ and archive/),
// a folder of index files (.cdx, .cdxj, .idx: searched as pywb searches
// a folder), or else a folder of WARC/ARC files, indexed once into
// opts.CacheDir (again when its files change).
func Open(ctx context.Context, name, src string, opts Options) (*Collection, error) {
	c := &Collection{Name: name, Source: src}
	lower := strings.ToLower(src)
	remote := store.IsRemote(src)
	switch {
	case strings.HasSuffix(lower, ".wacz"):
		return c, c.openWACZ(ctx, src)
	case remote:
		return nil, fmt.Errorf("%s: a remote source must be a .wacz file", store.Redact(src))
	}
	st, err := os.Stat(src)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", src, unwrapPath(err))
	}
	if !st.IsDir() {
		dir := filepath.Dir(src)
		c.archives = archiveDirs(dir)
		switch {
		case strings.HasSuffix(lower, ".idx") || strings.HasSuffix(lower, ".summary"):
			z, err := newZipNumSource(src, "")
			if err != nil {
				return nil, fmt.Errorf("%s: no .loc file beside it: %v", src, unwrapPath(err))
			}
			c.Kind, c.src = "zipnum", z
		case strings.HasSuffix(lower, ".cdx") || strings.HasSuffix(lower, ".cdxj"):
			c.Kind, c.src = "cdx", &fileSource{open: localFile(src)}
		default:
			return nil, fmt.Errorf("%s: not a .wacz, .idx, .summary, .cdx or .cdxj file, nor a folder", src)
		}
		return c, nil
	}
	// a pywb collection folder
	if isDir(filepath.Join(src, "indexes")) {
		c.Kind, c.src = "index-folder", &dirSource{dir: filepath.Join(src, "indexes")}
		c.archives = append(archiveDirs(src), filepath.Join(src, "archive"))
		return c, nil
	}
	ents, err := os.ReadDir(src)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", src, unwrapPath(err))
	}
	var warcs []string
	indexes := false
	for _, e := range ents {
		n := e.Name()
		switch {
		case strings.HasSuffix(n, ".cdx") || strings.HasSuffix(n, ".cdxj") || strings.HasSuffix(n, ".idx") || strings.HasSuffix(n, ".summary"):
			indexes = true
		case isArchiveName(n) && e.Type().IsRegular():
			warcs = append(warcs, filepath.Join(src, n))
		}
	}
	c.archives = archiveDirs(src)
	if indexes {
		c.Kind, c.src = "index-folder", &dirSource{dir: src}
		return c, nil
	}
	if len(warcs) == 0 {
		return nil, fmt.Errorf("%s: no WARC, ARC, CDX, CDXJ or ZipNum index files in this folder", src)
	}
	w := &warcFolder{dir: src, cache: opts.CacheDir, name: name}
	if err := w.refresh(); err != nil {
		return nil, err
	}
	c.Kind, c.src = "warc-folder", w
	return c, nil
}

func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// archiveDirs are the folders a collection's WARC names are looked up in:
// the folder itself, its archive/ and warcs/, and those beside it (pywb's
// sample_archive keeps cdx/ beside warcs/).
func archiveDirs(dir string) []string {
	parent := filepath.Dir(dir)
	return []string{dir, filepath.Join(dir, "archive"), filepath.Join(dir, "warcs"), filepath.Join(parent, "archive"), filepath.Join(parent, "warcs")}
}

func isArchiveName(n string) bool {
	n = strings.ToLower(n)
	for _, ext := range []string{".warc", ".warc.gz", ".arc", ".arc.gz", ".warc.zst"} {
		if strings.HasSuffix(n, ext) {
			return true
		}
	}
	return false
}

// --- a folder of index files ---------------------------------------------

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

// --- WACZ -------------------------------------------------------------------

func (c *Collection) openWACZ(ctx context.Context, src string) error {
	c.Kind = "wacz"
	var r *wacz.Reader
	var ra io.ReaderAt
	var size int64
	if store.IsRemote(src) {
		f, err := store.OpenAt(ctx, src)
		if err != nil {
			return fmt.Errorf("%s: %v", store.Redact(src), err)
		}
		if r, err = wacz.OpenCloser(f, f.Size(), store.Redact(src)); err != nil {
			return err
		}
		ra, size = f, f.Size()
	} else {
		f, err := os.Open(src)
		if err != nil {
			return fmt.Errorf("%s: %v", src, unwrapPath(err))
		}
		st, err := f.Stat()
		if err != nil || !st.Mode().IsRegular() {
			f.Close()
			return fmt.Errorf("%s: not a regular file", src)
		}
		if r, err = wacz.OpenCloser(f, st.Size(), src); err != nil {
			return err
		}
		ra, size = f, st.Size()
	}
	c.wacz, c.closer = r, r
	c.zra = &zipData{ra: ra, size: size}
	var kids []namedSource
	var idx []string
	for _, n := range r.IndexFiles() {
		if strings.HasSuffix(n, ".cdx") || strings.HasSuffix(n, ".cdxj") {
			f := r.File(n)
			kids = append(kids, namedSource{path.Base(n), &fileSource{open: zipEntryOpener(c.zra, f), canon: warcioCanon}})
		}
	}
	for _, f := range r.Files() {
		if strings.HasPrefix(f.Name, wacz.IndexesDir) && strings.HasSuffix(f.Name, ".idx") {
			idx = append(idx, f.Name)
		}
	}
	for _, n := range idx {
		kids = append(kids, namedSource{path.Base(n), &waczZipNum{r: r, zd: c.zra, idx: n}})
	}
	switch len(kids) {
	case 0:
		return fmt.Errorf("%s: no index in indexes/ (.idx, .cdx or .cdxj)", src)
	case 1:
		c.src = kids[0].src
	default:
		c.src = &multiSource{kids: kids}
	}
	return nil
}

// warcioCanon keys a URL as warcio.js does, as a WACZ's index is keyed
// (a URL without a scheme is taken as http://, as pywb's surt does).
func warcioCanon(u string) string {
	if !strings.Contains(u, "://") {
		u = "http://" + u
	}
	return surt.Key(u)
}

// zipEntryOpener reads a WACZ entry in place when it is STORED, else
// inflates it into memory.
func zipEntryOpener(r *zipData, f *zip.File) func() (io.ReaderAt, int64, io.Closer, error) {
	var once sync.Once
	var mem []byte
	var merr error
	return func() (io.ReaderAt, int64, io.Closer, error) {
		if ra, n, err := storedEntry(r, f); err == nil {
			return ra, n, nil, nil
		}
		once.Do(func() {
			rc, err := f.Open()
			if err != nil {
				merr = err
				return
			}
			defer rc.Close()
			mem, merr = io.ReadAll(io.LimitReader(rc, 1<<30))
		})
		if merr != nil {
			return nil, 0, nil, merr
		}
		return bytes.NewReader(mem), int64(len(mem)), nil, nil
	}
}

// zipData is the bytes of a WACZ.
type zipData struct {
	ra   io.ReaderAt
	size int64
}

// storedEntry returns the data of a STORED entry as a section of the
// WACZ, after checking that it lies inside the file.
func storedEntry(r *zipData, f *zip.File) (io.ReaderAt, int64, error) {
	if f == nil || f.Method != zip.Store {
		return nil, 0, fmt.Errorf("not stored")
	}
	start, err := f.DataOffset()
	if err != nil {
		return nil, 0, err
	}
	n := int64(f.UncompressedSize64)
	if f.UncompressedSize64 != f.CompressedSize64 || n < 0 || start < 0 || start > r.size || n > r.size-start {
		return nil, 0, fmt.Errorf("%s: data past the end of the file", f.Name)
	}
	return io.NewSectionReader(r.ra, start, n), n, nil
}

// multiSource merges the children as pywb's folder source does.
type multiSource struct{ kids []namedSource }

func (m *multiSource) load(q *query) (iterFunc, error) {
	return aggregate(m.kids, q, func(n string) string { return n })
}

// waczZipNum searches a WACZ's ZipNum index (indexes/index.idx and the
// .cdx.gz it names) with lib/cdx.
type waczZipNum struct {
	r   *wacz.Reader
	zd  *zipData
	idx string
	mu  sync.Mutex
	z   *cdx.ZipNum
}

func (w *waczZipNum) open() (*cdx.ZipNum, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.z != nil {
		return w.z, nil
	}
	ra, n, _, err := zipEntryOpener(w.zd, w.r.File(w.idx))()
	if err != nil {
		return nil, err
	}
	dir := path.Dir(w.idx)
	z, err := cdx.OpenZipNum(ra, n, func(name string) (io.ReaderAt, error) {
		f := w.r.File(path.Join(dir, path.Base(name)))
		if f == nil {
			return nil, fmt.Errorf("%s: no %s in the WACZ", w.idx, name)
		}
		ra, _, _, err := zipEntryOpener(w.zd, f)()
		return ra, err
	})
	if err != nil {
		return nil, err
	}
	w.z = z
	return z, nil
}

func (w *waczZipNum) load(q *query) (iterFunc, error) {
	key, end, err := q.rangeFor(warcioCanon)
	if err != nil {
		return nil, err
	}
	z, err := w.open()
	if err != nil {
		return nil, err
	}
	var rerr error
	seq := func(yield func(string) bool) {
		rerr = z.RangeLines(key, end, func(_ cdx.Block, l []byte) error {
			if !yield(string(l)) {
				return errStopRange
			}
			return nil
		})
		if rerr == errStopRange {
			rerr = nil
		}
	}
	next, stop := iter.Pull(iter.Seq[string](seq))
	q.onDone(stop)
	return func() (*cdxObj, error) {
		l, ok := next()
		if !ok {
			return nil, rerr
		}
		return parseCDXObj(l)
	}, nil
}

var errStopRange = fmt.Errorf("stop")

// --- a folder of WARC/ARC files -------------------------------------------

// warcFolder indexes the WARC/ARC files of a folder once, as
// cdxj-indexer -p would (cdx.AppendCdxjIndexer: Python surt keys, so
// that pywb's query keys find them), into CACHE/<hash of the folder>/
// index.cdxj, sorted; the index is made again when the folder's files
// change (names, sizes, times; the folder is listed again at most once a
// second, when a query comes).
type warcFolder struct {
	dir, cache string
	name       string
	mu         sync.Mutex
	stamp      string
	idxDir     string
	checked    time.Time // when the folder was last listed
}

// refreshEvery is how often a query may list a WARC folder again.
const refreshEvery = time.Second

func (w *warcFolder) files() ([]string, string, error) {
	ents, err := os.ReadDir(w.dir)
	if err != nil {
		return nil, "", err
	}
	var names []string
	h := sha256.New()
	for _, e := range ents {
		if !isArchiveName(e.Name()) || !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		names = append(names, e.Name())
		fmt.Fprintf(h, "%s\x00%d\x00%d\n", e.Name(), info.Size(), info.ModTime().UnixNano())
	}
	sort.Strings(names)
	return names, hex.EncodeToString(h.Sum(nil)), nil
}

func (w *warcFolder) refresh() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.idxDir != "" && time.Since(w.checked) < refreshEvery {
		return nil
	}
	w.checked = time.Now()
	names, stamp, err := w.files()
	if err != nil {
		return fmt.Errorf("%s: %v", w.dir, unwrapPath(err))
	}
	if stamp == w.stamp {
		return nil
	}
	cache := w.cache
	if cache == "" {
		uc, err := os.UserCacheDir()
		if err != nil {
			uc = os.TempDir()
		}
		cache = filepath.Join(uc, "arcport", "serve")
	}
	abs, _ := filepath.Abs(w.dir)
	sum := sha256.Sum256([]byte(abs))
	dir := filepath.Join(cache, hex.EncodeToString(sum[:8]))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	target := filepath.Join(dir, "index.cdxj")
	stampFile := filepath.Join(dir, "stamp")
	if b, err := os.ReadFile(stampFile); err == nil && string(b) == stamp {
		w.stamp, w.idxDir = stamp, dir
		return nil
	}
	// sorted with bounded memory (runs spilled beside the index)
	sorter := cdx.NewSorter(cdx.WithTempDir(dir))
	defer sorter.Close()
	for _, n := range names {
		err := indexArchive(filepath.Join(w.dir, n), func(l []byte) error {
			return sorter.Add(l)
		})
		if err != nil {
			return fmt.Errorf("%s: %v", filepath.Join(w.dir, n), err)
		}
	}
	tmp, err := os.CreateTemp(dir, ".index-*")
	if err != nil {
		return err
	}
	if _, err := sorter.WriteTo(tmp); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), target); err != nil {
		return err
	}
	if err := os.WriteFile(stampFile, []byte(stamp), 0o644); err != nil {
		return err
	}
	w.stamp, w.idxDir = stamp, dir
	return nil
}

func (w *warcFolder) load(q *query) (iterFunc, error) {
	if err := w.refresh(); err != nil {
		return nil, err
	}
	return (&dirSource{dir: w.idxDir}).load(q)
}

// top is the collection's source as pywb's warcserver answers for a
// collection of its config: its captures get "source": "NAME" (or
// "NAME:FILE" for a folder's FILE, "NAME:index.cdxj" for a folder of
// WARC files) and "source-coll": "NAME".
func (c *Collection) top() indexSource {
	return &multiSource{kids: []namedSource{{c.Name, c.src}}}
}

// allSource merges every collection's captures as pywb's "$all"
// collection does.
type allSource struct{ colls []*Collection }

func (a *allSource) load(q *query) (iterFunc, error) {
	var its []iterFunc
	for _, c := range a.colls {
		it, err := c.top().load(q)
		if err == errNotFound {
			continue
		}
		if err != nil {
			return nil, err
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

// indexArchive calls fn with the cdxj-indexer line of every capture of a
// WARC or ARC file.
func indexArchive(p string, fn func([]byte) error) error {
	f, err := os.Open(p)
	if err != nil {
		return unwrapPath(err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	kind, err := wacz.SniffInput(br)
	if err != nil {
		return err
	}
	opts := []cdx.Option{cdx.WithFullDigest(true), cdx.WithARCDigests(false)}
	var rd record.Reader
	switch kind {
	case wacz.KindARC, wacz.KindARCGzip:
		rd, err = arc.NewReader(br, arc.WithName(p), arc.WithPolicy(record.Fail))
	default:
		opts = append(opts, cdx.WithSource(f))
		rd, err = warc.NewReader(br, warc.WithFilename(p), warc.WithPolicy(record.Fail))
	}
	if err != nil {
		return err
	}
	ix := cdx.NewIndexer(rd, filepath.Base(p), opts...)
	var line []byte
	for {
		e, err := ix.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		line = cdx.AppendCdxjIndexer(line[:0], e, kind == wacz.KindARC)
		if err := fn(line); err != nil {
			return err
		}
	}
}
