package replay

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"io"
	"iter"
	"os"
	"path"
	"strings"
	"sync"

	"github.com/arcport/arcport/lib/cdx"
	"github.com/arcport/arcport/lib/store"
	"github.com/arcport/arcport/lib/surt"
	"github.com/arcport/arcport/lib/wacz"
)

// waczSource is a WACZ served in place: its index (a ZipNum idx, or
// CDXJ files, warcio.js keys) and its archive/ entries, read by ranges.
type waczSource struct {
	r    *wacz.Reader
	zd   *zipData
	src  indexSource
	file waczFileInfo // the file route (waczfile.go)
}

func (w *waczSource) load(q *query) (iterFunc, error) { return w.src.load(q) }

// Close closes the WACZ.
func (w *waczSource) Close() error { return w.r.Close() }

// openWACZ opens a WACZ, local or remote (lib/store: ranged reads).
func openWACZ(ctx context.Context, st *store.Store, src string) (*waczSource, error) {
	var r *wacz.Reader
	var ra io.ReaderAt
	var size int64
	fi := waczFileInfo{name: waczBaseName(src)}
	if store.IsRemote(src) {
		f, err := st.OpenAt(ctx, src)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", store.Redact(src), err)
		}
		if r, err = wacz.OpenCloser(f, f.Size(), store.Redact(src)); err != nil {
			return nil, err
		}
		ra, size = f, f.Size()
		fi.etag = quoteETag(f.ETag())
	} else {
		f, err := os.Open(src)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", src, unwrapPath(err))
		}
		st, err := f.Stat()
		if err != nil || !st.Mode().IsRegular() {
			f.Close()
			return nil, fmt.Errorf("%s: not a regular file", src)
		}
		if r, err = wacz.OpenCloser(f, st.Size(), src); err != nil {
			return nil, err
		}
		ra, size = f, st.Size()
		fi.modTime, fi.etag = st.ModTime(), localETag(st.Size(), st.ModTime())
	}
	w := &waczSource{r: r, zd: &zipData{ra: ra, size: size}, file: fi}
	var kids []namedSource
	var idx []string
	for _, n := range r.IndexFiles() {
		if strings.HasSuffix(n, ".cdx") || strings.HasSuffix(n, ".cdxj") {
			f := r.File(n)
			kids = append(kids, namedSource{path.Base(n), &fileSource{open: zipEntryOpener(w.zd, f), canon: warcioCanon}})
		}
	}
	for _, f := range r.Files() {
		if strings.HasPrefix(f.Name, wacz.IndexesDir) && strings.HasSuffix(f.Name, ".idx") {
			idx = append(idx, f.Name)
		}
	}
	for _, n := range idx {
		kids = append(kids, namedSource{path.Base(n), &waczZipNum{r: r, zd: w.zd, idx: n}})
	}
	switch len(kids) {
	case 0:
		r.Close()
		return nil, fmt.Errorf("%s: no index in indexes/ (.idx, .cdx or .cdxj)", src)
	case 1:
		w.src = kids[0].src
	default:
		w.src = &multiSource{kids: kids}
	}
	return w, nil
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
