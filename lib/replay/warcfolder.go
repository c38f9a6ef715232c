package replay

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
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
	forgetIndexFile(target)
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
