package replay

import (
	"context"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/arcport/arcport/lib/store"
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
	archives []string // folders holding the WARC/ARC files
	// remoteArchives are the s3:// or http(s):// prefixes a remote
	// cluster's WARCs are looked for under
	remoteArchives []string
	store          *store.Store
	wacz           *waczSource // set for a WACZ
	closer         io.Closer
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
	// Store opens s3:// and http(s):// sources (default: store.Default).
	Store *store.Store
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
// (.idx or .summary, with its .loc beside it; local, or remote: its URL,
// or an s3:// prefix ending in "/" holding cluster.idx), a sorted .cdx or .cdxj
// file, or a local folder: a pywb collection (its indexes/ and archive/),
// a folder of index files (.cdx, .cdxj, .idx: searched as pywb searches
// a folder), or else a folder of WARC/ARC files, indexed once into
// opts.CacheDir (again when its files change).
func Open(ctx context.Context, name, src string, opts Options) (*Collection, error) {
	st := opts.Store
	if st == nil {
		st = store.Default
	}
	c := &Collection{Name: name, Source: src, store: st}
	lower := strings.ToLower(src)
	remote := store.IsRemote(src)
	switch {
	case strings.HasSuffix(lower, ".wacz"):
		w, err := openWACZ(ctx, st, src)
		if err != nil {
			return nil, err
		}
		c.Kind, c.src, c.wacz, c.closer = "wacz", w, w, w
		return c, nil
	case remote:
		// a ZipNum cluster: its summary, or the prefix holding
		// cluster.idx and cluster.loc
		summary := src
		if strings.HasSuffix(src, "/") {
			summary = src + "cluster.idx"
		}
		if !strings.HasSuffix(lower, ".idx") && !strings.HasSuffix(lower, ".summary") && !strings.HasSuffix(src, "/") {
			return nil, fmt.Errorf("%s: a remote source is a .wacz, a ZipNum .idx, or a prefix ending in / holding cluster.idx", store.Redact(src))
		}
		z, err := newZipNumSource(st, summary, "")
		if err != nil {
			return nil, fmt.Errorf("%s: %v", store.Redact(summary), err)
		}
		c.Kind, c.src = "zipnum", z
		base := summary[:strings.LastIndexByte(summary, '/')+1]
		parent := base
		if i := strings.LastIndexByte(strings.TrimSuffix(base, "/"), '/'); i > strings.Index(base, "://")+2 {
			parent = base[:i+1]
		}
		c.remoteArchives = []string{base, base + "archive/", base + "warcs/", parent + "archive/", parent + "warcs/"}
		return c, nil
	}
	fi, err := os.Stat(src)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", src, unwrapPath(err))
	}
	if !fi.IsDir() {
		dir := filepath.Dir(src)
		c.archives = archiveDirs(dir)
		switch {
		case strings.HasSuffix(lower, ".idx") || strings.HasSuffix(lower, ".summary"):
			z, err := newZipNumSource(st, src, "")
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
	return mergeLoads(q, len(a.colls), func(i int) indexSource { return a.colls[i].top() }, nil)
}
