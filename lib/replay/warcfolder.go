package replay

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/arcport/arcport/lib/arc"
	"github.com/arcport/arcport/lib/cdx"
	"github.com/arcport/arcport/lib/record"
	"github.com/arcport/arcport/lib/wacz"
	"github.com/arcport/arcport/lib/warc"
)

// warcFolder indexes the WARC/ARC files of a folder once, as
// cdxj-indexer -p would (cdx.AppendCdxjIndexer: Python surt keys, so
// that pywb's query keys find them), into CACHE/<hash of the folder>/:
// index.cdxj, sorted, and for files added since, one sorted
// add-N.cdxj per refresh that found new files (only the new files are
// read); "manifest" says which file's lines are in which index. A file
// changed or removed, or more than maxSegments indexes, make index.cdxj
// again from every file. The folder is listed again (names, sizes,
// times: a stat each) at most once a second, when a query comes, so
// files added while serving show up without a restart. Queries see the
// indexes merged as one source, "index.cdxj".
type warcFolder struct {
	dir, cache string
	name       string
	mu         sync.Mutex
	idxDir     string
	// files are the indexed files and the index holding each
	files    map[string]folderFile
	segments []string  // index.cdxj, add-1.cdxj, ...
	checked  time.Time // when the folder was last listed
}

// folderFile is an indexed file: its size and time, and its index.
type folderFile struct {
	size    int64
	mod     int64
	segment string
}

// refreshEvery is how often a query may list a WARC folder again.
const refreshEvery = time.Second

// maxSegments bounds the add-N.cdxj indexes a query merges.
const maxSegments = 8

func (w *warcFolder) list() (map[string]folderFile, error) {
	ents, err := os.ReadDir(w.dir)
	if err != nil {
		return nil, err
	}
	out := map[string]folderFile{}
	for _, e := range ents {
		if !isArchiveName(e.Name()) || !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		out[e.Name()] = folderFile{size: info.Size(), mod: info.ModTime().UnixNano()}
	}
	return out, nil
}

// readManifest reads the manifest of the cache folder: the files and
// the indexes, nil when it or one of its indexes is missing.
func (w *warcFolder) readManifest() (map[string]folderFile, []string) {
	b, err := os.ReadFile(filepath.Join(w.idxDir, "manifest"))
	if err != nil {
		return nil, nil
	}
	files := map[string]folderFile{}
	var segs []string
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		f := strings.Split(line, "\t")
		if len(f) == 2 && f[0] == "segment" {
			if _, err := os.Stat(filepath.Join(w.idxDir, f[1])); err != nil {
				return nil, nil
			}
			segs = append(segs, f[1])
			seen[f[1]] = true
			continue
		}
		if len(f) != 4 || !seen[f[0]] {
			return nil, nil
		}
		size, err1 := strconv.ParseInt(f[2], 10, 64)
		mod, err2 := strconv.ParseInt(f[3], 10, 64)
		if err1 != nil || err2 != nil {
			return nil, nil
		}
		files[f[1]] = folderFile{size: size, mod: mod, segment: f[0]}
	}
	if len(segs) == 0 {
		return nil, nil
	}
	return files, segs
}

func (w *warcFolder) writeManifest(files map[string]folderFile, segs []string) error {
	var b strings.Builder
	for _, s := range segs {
		fmt.Fprintf(&b, "segment\t%s\n", s)
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		f := files[n]
		fmt.Fprintf(&b, "%s\t%s\t%d\t%d\n", f.segment, n, f.size, f.mod)
	}
	tmp := filepath.Join(w.idxDir, ".manifest.tmp")
	if err := os.WriteFile(tmp, []byte(b.String()), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(w.idxDir, "manifest"))
}

func (w *warcFolder) refresh() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.idxDir != "" && time.Since(w.checked) < refreshEvery {
		return nil
	}
	w.checked = time.Now()
	cur, err := w.list()
	if err != nil {
		return fmt.Errorf("%s: %v", w.dir, unwrapPath(err))
	}
	if w.idxDir == "" {
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
		w.idxDir = dir
		w.files, w.segments = w.readManifest()
	}
	var added []string
	rebuild := w.segments == nil
	for n, f := range cur {
		old, ok := w.files[n]
		switch {
		case !ok:
			added = append(added, n)
		case old.size != f.size || old.mod != f.mod:
			rebuild = true
		}
	}
	for n := range w.files {
		if _, ok := cur[n]; !ok {
			rebuild = true
		}
	}
	if !rebuild && len(added) == 0 {
		return nil
	}
	if rebuild || len(w.segments) >= maxSegments {
		names := make([]string, 0, len(cur))
		for n := range cur {
			names = append(names, n)
		}
		if err := w.index(names, "index.cdxj"); err != nil {
			w.files, w.segments = nil, nil
			return err
		}
		for _, s := range w.segments {
			if s != "index.cdxj" {
				os.Remove(filepath.Join(w.idxDir, s))
				forgetIndexFile(filepath.Join(w.idxDir, s))
			}
		}
		files := map[string]folderFile{}
		for n, f := range cur {
			f.segment = "index.cdxj"
			files[n] = f
		}
		w.files, w.segments = files, []string{"index.cdxj"}
		return w.writeManifest(w.files, w.segments)
	}
	// only the new files, into the next add-N.cdxj
	seg := ""
	for k := 1; ; k++ {
		seg = fmt.Sprintf("add-%d.cdxj", k)
		if !slices.Contains(w.segments, seg) {
			break
		}
	}
	if err := w.index(added, seg); err != nil {
		return err
	}
	files := maps.Clone(w.files)
	for _, n := range added {
		f := cur[n]
		f.segment = seg
		files[n] = f
	}
	segs := append(slices.Clone(w.segments), seg)
	if err := w.writeManifest(files, segs); err != nil {
		return err
	}
	w.files, w.segments = files, segs
	return nil
}

// index writes the sorted lines of the files names into the index seg,
// with bounded memory (runs spilled beside it).
func (w *warcFolder) index(names []string, seg string) error {
	sort.Strings(names)
	sorter := cdx.NewSorter(cdx.WithTempDir(w.idxDir))
	defer sorter.Close()
	for _, n := range names {
		err := indexArchive(filepath.Join(w.dir, n), func(l []byte) error {
			return sorter.Add(l)
		})
		if err != nil {
			return fmt.Errorf("%s: %v", filepath.Join(w.dir, n), err)
		}
	}
	tmp, err := os.CreateTemp(w.idxDir, ".index-*")
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
	target := filepath.Join(w.idxDir, seg)
	if err := os.Rename(tmp.Name(), target); err != nil {
		return err
	}
	forgetIndexFile(target)
	return nil
}

func (w *warcFolder) load(q *query) (iterFunc, error) {
	if err := w.refresh(); err != nil {
		return nil, err
	}
	w.mu.Lock()
	segs := &segmentSource{dir: w.idxDir, names: slices.Clone(w.segments)}
	w.mu.Unlock()
	return aggregate([]namedSource{{"index.cdxj", segs}}, q, func(n string) string { return n })
}

// segmentSource merges a WARC folder's indexes as one.
type segmentSource struct {
	dir   string
	names []string
}

func (s *segmentSource) load(q *query) (iterFunc, error) {
	return mergeLoads(q, len(s.names), func(i int) indexSource {
		return &fileSource{open: localFile(filepath.Join(s.dir, s.names[i]))}
	}, nil)
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
