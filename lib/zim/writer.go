package zim

import (
	"bufio"
	"bytes"
	"crypto/md5"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"

	"github.com/arcport/arcport/lib/internal/sysfile"
)

// Writer defaults.
const (
	// DefaultClusterSize is libzim's cluster size (DEFAULT_CLUSTER_SIZE):
	// a cluster is closed before a blob would bring it to this size.
	DefaultClusterSize = 2 << 20
	// clusterBase is where libzim starts the first cluster
	// (CLUSTER_BASE_OFFSET): the MIME list lies between the header and it.
	clusterBase = 2048
	// listingMime is the MIME type of the title listings.
	listingMime = "application/octet-stream+zimlisting"
)

// ErrWriterClosed is returned by a Writer's methods after Close or after an
// earlier failure.
var ErrWriterClosed = errors.New("zim: writer closed")

// WriterOption configures NewWriter.
type WriterOption func(*writerConfig)

type writerConfig struct {
	compression byte
	level       int
	clusterSize int
	workers     int
	uuid        [16]byte
	uuidSet     bool
	tempDir     string
}

// WithCompression sets the compression of the clusters holding
// compressible content: CompressionZstd (the default, as libzim 9) or
// CompressionXZ (what libzim wrote before version 8). Content that is
// already compressed (images, video, fonts, archives) always goes to
// uncompressed clusters.
func WithCompression(c byte) WriterOption { return func(o *writerConfig) { o.compression = c } }

// WithCompressionLevel sets the level: for zstd 1 to 22 (zstd's scale,
// mapped onto klauspost/compress's four encoders: 1 fastest, 2-5 default,
// 6-9 better, 10 and up best; default best), for XZ the dictionary size
// preset 0 to 9 (default 6, 8 MiB).
func WithCompressionLevel(level int) WriterOption { return func(o *writerConfig) { o.level = level } }

// WithClusterSize sets the size at which a cluster is closed (default
// DefaultClusterSize). A blob larger than this gets a cluster of its own.
func WithClusterSize(n int) WriterOption { return func(o *writerConfig) { o.clusterSize = n } }

// WithWorkers sets how many clusters are compressed at once (default
// GOMAXPROCS).
func WithWorkers(n int) WriterOption { return func(o *writerConfig) { o.workers = n } }

// WithUUID sets the archive's UUID (default: random), e.g. for
// reproducible output.
func WithUUID(u [16]byte) WriterOption {
	return func(o *writerConfig) { o.uuid, o.uuidSet = u, true }
}

// WithTempDir sets where the cluster spool and large blobs are kept
// (default os.TempDir()). Those files are unlinked as soon as they are
// created, so they never outlive the process.
func WithTempDir(dir string) WriterOption { return func(o *writerConfig) { o.tempDir = dir } }

// wdirent is a directory entry being written.
type wdirent struct {
	path, title string
	target      string // redirect: path of the target, in namespace C
	ns          byte
	redirect    bool
	front       bool
	removed     bool
	mime        uint16 // insertion-order MIME index; final index after Close
	cluster     uint32
	blob        uint32
	idx         uint32
	tdi         int32 // redirect: index of the target in Writer.dirents
}

// wcluster is a cluster being filled.
type wcluster struct {
	compress bool
	data     []byte
	ends     []uint64 // end offset of each blob in data
	dirents  []int32  // dirents whose blob lies here
	big      *os.File // a blob too large for memory, alone in its cluster
	bigSize  int64
	index    uint32
	nblobs   uint32 // set when closed
	ext      bool   // set when closed: 8-byte offsets
}

// size is libzim's Cluster::size(): offsets plus data.
func (c *wcluster) size() int { return 4*(len(c.ends)+1) + len(c.data) }

// job is a closed cluster on its way to the spool, in cluster order.
type job struct {
	c    *wcluster
	done chan struct{}
	out  []byte // compressed cluster (after the information byte)
	err  error
}

// Writer writes a ZIM archive (format 6.2, the new namespace scheme) as
// libzim 9's Creator does: items under C/, metadata under M/, the main
// page as the redirect W/mainPage, the title listings
// X/listing/titleOrdered/v0 (every entry) and v1 (front articles, when
// there are any), M/Counter, clusters of compressible content compressed
// and others stored, an MD5 checksum at the end.
//
// Blob data is read when an entry is added and kept in the cluster being
// filled; closed clusters are compressed in parallel and spooled to an
// unnamed temporary file; a blob larger than the cluster size is spooled
// to its own unnamed file. Directory entries (path, title, MIME type,
// location: about 100 bytes each) stay in memory until Close, which sorts
// them, writes the whole archive to the io.Writer sequentially (header
// first, so any io.Writer will do) and computes the checksum on the way.
//
// Methods are not safe for concurrent use. After an error every later
// call returns an error too, and Close writes nothing.
type Writer struct {
	out io.Writer
	cfg writerConfig

	dirents []wdirent
	byPath  map[pathKey]int32 // -> index in dirents (the key shares the dirent's path string)
	mimes   map[string]uint16
	mimeOf  []string // insertion order
	counter map[string]int
	nFront  int

	comp, uncomp *wcluster
	clusters     []*wcluster
	scratch      []byte

	spool     *os.File
	spoolW    *bufio.Writer
	spoolSize int64
	clOffsets []int64 // spool offset of each cluster
	queue     chan *job
	sem       chan struct{}
	writerWG  sync.WaitGroup
	spoolErr  error
	encoders  chan *zstd.Encoder // idle encoders (their tables are large: kept, not collected)
	bufPool   sync.Pool

	mainPath string
	err      error
	closed   bool
}

// NewWriter returns a Writer that writes the archive to w when Close is
// called (nothing is written to w before).
func NewWriter(w io.Writer, opts ...WriterOption) (*Writer, error) {
	cfg := writerConfig{compression: CompressionZstd, clusterSize: DefaultClusterSize,
		workers: runtime.GOMAXPROCS(0)}
	for _, o := range opts {
		o(&cfg)
	}
	switch cfg.compression {
	case CompressionZstd, CompressionXZ:
	case CompressionNone:
	default:
		return nil, fmt.Errorf("zim: unsupported cluster compression %d", cfg.compression)
	}
	if cfg.clusterSize < 1024 {
		cfg.clusterSize = 1024
	}
	if cfg.workers < 1 {
		cfg.workers = 1
	}
	if !cfg.uuidSet {
		if _, err := rand.Read(cfg.uuid[:]); err != nil {
			return nil, err
		}
		cfg.uuid[6] = cfg.uuid[6]&0x0f | 0x40 // version 4
		cfg.uuid[8] = cfg.uuid[8]&0x3f | 0x80
	}
	spool, err := tempFile(cfg.tempDir, "zim-clusters-*")
	if err != nil {
		return nil, fmt.Errorf("zim: cluster spool: %w", err)
	}
	zw := &Writer{out: w, cfg: cfg, byPath: map[pathKey]int32{}, mimes: map[string]uint16{},
		counter: map[string]int{}, spool: spool, spoolW: bufio.NewWriterSize(spool, 1<<20),
		queue: make(chan *job, cfg.workers+1), sem: make(chan struct{}, cfg.workers),
		encoders: make(chan *zstd.Encoder, cfg.workers+1)}
	zw.comp = zw.newCluster(cfg.compression != CompressionNone)
	zw.uncomp = zw.newCluster(false)
	zw.writerWG.Add(1)
	go zw.spoolLoop()
	return zw, nil
}

// tempFile creates a file in dir and unlinks it at once (on Windows: a
// file deleted when closed; sysfile.CreateDeleteOnClose).
func tempFile(dir, pattern string) (*os.File, error) {
	return sysfile.CreateDeleteOnClose(dir, pattern)
}

func (w *Writer) newCluster(compress bool) *wcluster {
	c := &wcluster{compress: compress}
	if b, ok := w.bufPool.Get().([]byte); ok {
		c.data = b[:0]
	}
	return c
}

// IsCompressibleMime reports whether content of this MIME type goes to a
// compressed cluster: libzim's isCompressibleMimetype (text/*, *+xml,
// *+json, application/javascript, application/json).
func IsCompressibleMime(mime string) bool {
	return strings.HasPrefix(mime, "text") || strings.Contains(mime, "+xml") ||
		strings.Contains(mime, "+json") || mime == "application/javascript" || mime == "application/json"
}

func checkName(what, s string) error {
	if strings.IndexByte(s, 0) >= 0 {
		return fmt.Errorf("zim: %s %q contains a NUL byte", what, s)
	}
	return nil
}

// AddEntry adds the item C/path with its title (empty: the path is the
// title), MIME type (empty: application/octet-stream) and content read
// from r to its end. frontArticle marks it as an article a reader lists
// and suggests (HTML pages); it goes into X/listing/titleOrdered/v1.
// An item replaces a redirect of the same path; a second item of the same
// path is an error.
func (w *Writer) AddEntry(path, title, mime string, r io.Reader, frontArticle bool) error {
	if mime == "" {
		mime = "application/octet-stream"
	}
	return w.addItem('C', path, title, mime, r, IsCompressibleMime(mime), frontArticle)
}

// AddMetadata adds M/name with the value read from r. mime is
// "text/plain;charset=utf-8" when empty (the type libzim gives to
// metadata strings); an illustration is AddMetadata("Illustration_48x48@1",
// "image/png", png).
func (w *Writer) AddMetadata(name, mime string, r io.Reader) error {
	if mime == "" {
		mime = "text/plain;charset=utf-8"
	}
	return w.addItem('M', name, "", mime, r, IsCompressibleMime(mime), false)
}

// AddRedirect adds C/path as a redirect to C/target with a title (empty:
// the path). A redirect whose target is missing when the archive is
// closed is dropped, as libzim does. frontArticle as for AddEntry.
func (w *Writer) AddRedirect(path, title, target string, frontArticle bool) error {
	if err := w.usable(); err != nil {
		return err
	}
	if err := w.validPath(path, title); err != nil {
		return err
	}
	if err := checkName("redirect target", target); err != nil {
		return err
	}
	_, err := w.addDirent(wdirent{ns: 'C', path: path, title: title, redirect: true,
		target: target, front: frontArticle, mime: mimeRedirect})
	return err
}

// XapianMime is the MIME type libzim gives the Xapian databases it stores
// as X/fulltext/xapian and X/title/xapian.
const XapianMime = "application/octet-stream+xapian"

// AddXapianIndex adds X/<kind>/xapian, kind "fulltext" (the full-text
// index) or "title" (the title index), with the Xapian database (a
// single-file glass database, see lib/zim/xapian) read from r to its end.
// As libzim's Creator stores them, the database goes to an uncompressed
// cluster (XapianMime), without a title, and does not count in M/Counter.
// Each kind may be added once; libzim adds the title index before the
// full-text one, after the items.
func (w *Writer) AddXapianIndex(kind string, r io.Reader) error {
	if kind != "fulltext" && kind != "title" {
		return fmt.Errorf("zim: Xapian index %q: fulltext or title", kind)
	}
	return w.addItem('X', kind+"/xapian", "", XapianMime, r, false, false)
}

// SetMainPage makes C/path the main page (W/mainPage redirects to it).
func (w *Writer) SetMainPage(path string) { w.mainPath = path }

// UUID returns the archive's UUID.
func (w *Writer) UUID() [16]byte { return w.cfg.uuid }

func (w *Writer) usable() error {
	if w.closed {
		return ErrWriterClosed
	}
	return w.err
}

func (w *Writer) validPath(path, title string) error {
	if path == "" {
		return errors.New("zim: empty path")
	}
	if err := checkName("path", path); err != nil {
		return err
	}
	return checkName("title", title)
}

func (w *Writer) mimeIndex(mime string) (uint16, error) {
	if i, ok := w.mimes[mime]; ok {
		return i, nil
	}
	if len(w.mimeOf) >= mimeDeleted {
		return 0, errors.New("zim: too many distinct MIME types")
	}
	if err := checkName("MIME type", mime); err != nil {
		return 0, err
	}
	i := uint16(len(w.mimeOf))
	w.mimes[mime] = i
	w.mimeOf = append(w.mimeOf, mime)
	return i, nil
}

// pathKey is a namespace and a path.
type pathKey struct {
	ns   byte
	path string
}

// addDirent records d, applying libzim's rule for a path met twice.
func (w *Writer) addDirent(d wdirent) (int32, error) {
	key := pathKey{d.ns, d.path}
	if i, ok := w.byPath[key]; ok {
		old := &w.dirents[i]
		if !old.redirect || d.redirect {
			return -1, fmt.Errorf("zim: %c/%s added twice", d.ns, d.path)
		}
		old.removed = true
	}
	if len(w.dirents) >= 1<<31-16 {
		return -1, errors.New("zim: too many entries")
	}
	i := int32(len(w.dirents))
	w.dirents = append(w.dirents, d)
	w.byPath[key] = i
	if d.front {
		w.nFront++
	}
	return i, nil
}

func (w *Writer) addItem(ns byte, path, title, mime string, r io.Reader, compress, front bool) error {
	if err := w.usable(); err != nil {
		return err
	}
	if err := w.validPath(path, title); err != nil {
		return err
	}
	mi, err := w.mimeIndex(mime)
	if err != nil {
		return err
	}
	if ns == 'C' && w.dirents != nil {
		// duplicates are found before the content is read
		if i, ok := w.byPath[pathKey{'C', path}]; ok && !w.dirents[i].redirect {
			return fmt.Errorf("zim: C/%s added twice", path)
		}
	}
	if r == nil {
		r = bytes.NewReader(nil)
	}
	if w.cfg.compression == CompressionNone {
		compress = false
	}
	if _, _, err := w.addData(r, compress, func() (int32, error) {
		return w.addDirent(wdirent{ns: ns, path: path, title: title, mime: mi, front: front && ns == 'C'})
	}); err != nil {
		return err
	}
	if ns == 'C' {
		w.counter[mime]++
	}
	return nil
}

// addData reads r whole and puts it in a cluster, then records the
// dirent made by mk as stored there. It returns the cluster and the
// offset of the blob in the cluster's data. A failure leaves the Writer as
// it was.
func (w *Writer) addData(r io.Reader, compress bool, mk func() (int32, error)) (*wcluster, uint64, error) {
	limit := w.cfg.clusterSize
	if cap(w.scratch) < limit+1 {
		w.scratch = make([]byte, limit+1)
	}
	n, err := io.ReadFull(r, w.scratch[:limit+1])
	switch err {
	case nil:
		// larger than a cluster: spooled to a file of its own
		f, err := tempFile(w.cfg.tempDir, "zim-blob-*")
		if err != nil {
			return nil, 0, fmt.Errorf("zim: blob spool: %w", err)
		}
		if _, err := f.Write(w.scratch[:n]); err != nil {
			f.Close()
			return nil, 0, fmt.Errorf("zim: blob spool: %w", err)
		}
		m, err := io.Copy(f, r)
		if err != nil {
			f.Close()
			return nil, 0, err
		}
		di, err := mk()
		if err != nil {
			f.Close()
			return nil, 0, err
		}
		c := w.current(compress)
		if len(c.ends) > 0 {
			w.closeCluster(compress)
			c = w.current(compress)
		}
		c.big, c.bigSize = f, int64(n)+m
		c.ends = append(c.ends, uint64(c.bigSize))
		c.dirents = append(c.dirents, di)
		w.closeCluster(compress)
		return c, 0, nil
	case io.EOF, io.ErrUnexpectedEOF:
	default:
		return nil, 0, err
	}
	di, err := mk()
	if err != nil {
		return nil, 0, err
	}
	c := w.current(compress)
	if len(c.ends) > 0 && c.size()+n >= limit {
		w.closeCluster(compress)
		c = w.current(compress)
	}
	start := uint64(len(c.data))
	c.data = append(c.data, w.scratch[:n]...)
	c.ends = append(c.ends, uint64(len(c.data)))
	c.dirents = append(c.dirents, di)
	return c, start, nil
}

func (w *Writer) current(compress bool) *wcluster {
	if compress {
		return w.comp
	}
	return w.uncomp
}

// closeCluster numbers the current cluster, hands it to the compressors
// and the spool, and opens a new one.
func (w *Writer) closeCluster(compress bool) {
	c := w.current(compress)
	c.index = uint32(len(w.clusters))
	c.nblobs = uint32(len(c.ends))
	c.ext = uint64(4*(len(c.ends)+1))+c.ends[len(c.ends)-1] > 0xFFFFFFFF
	w.clusters = append(w.clusters, c)
	for bi, di := range c.dirents {
		w.dirents[di].cluster = c.index
		w.dirents[di].blob = uint32(bi)
	}
	c.dirents = nil
	j := &job{c: c, done: make(chan struct{})}
	if c.compress && c.big == nil {
		w.sem <- struct{}{}
		go func() {
			defer func() { <-w.sem }()
			j.out, j.err = w.compress(c)
			close(j.done)
		}()
	} else {
		close(j.done)
	}
	w.queue <- j
	if compress {
		w.comp = w.newCluster(true)
	} else {
		w.uncomp = w.newCluster(false)
	}
}

// offsetTable returns the blob offset table of c (4 or 8 bytes a blob)
// and whether the cluster is extended.
func offsetTable(c *wcluster) ([]byte, bool) {
	n := len(c.ends) + 1
	ext := c.ext
	sz := 4
	if ext {
		sz = 8
	}
	b := make([]byte, sz*n)
	delta := uint64(sz * n)
	put := func(i int, v uint64) {
		if ext {
			binary.LittleEndian.PutUint64(b[8*i:], v)
		} else {
			binary.LittleEndian.PutUint32(b[4*i:], uint32(v))
		}
	}
	put(0, delta)
	for i, e := range c.ends {
		put(i+1, delta+e)
	}
	return b, ext
}

// newEncoder returns a compressing writer onto dst for the configured
// compression; size is what will be written (offsets and data), or -1
// for a big blob streamed in. An XZ dictionary larger than what it
// compresses would only cost memory: it is cut to the size.
func (w *Writer) newEncoder(dst io.Writer, size int) (io.WriteCloser, error) {
	if w.cfg.compression == CompressionXZ {
		dict := 8 << 20
		if l := w.cfg.level; l >= 0 && l <= 9 && w.cfg.level != 0 {
			dict = []int{256 << 10, 1 << 20, 2 << 20, 4 << 20, 4 << 20, 8 << 20, 8 << 20, 16 << 20, 32 << 20, 64 << 20}[l]
		}
		if size >= 0 {
			dict = min(dict, max(size, 1<<12))
		}
		return xz.WriterConfig{CheckSum: xz.CRC32, DictCap: dict}.NewWriter(dst)
	}
	select {
	case e := <-w.encoders:
		e.Reset(dst)
		return e, nil
	default:
	}
	level := zstd.SpeedBestCompression
	if w.cfg.level > 0 {
		level = zstd.EncoderLevelFromZstd(w.cfg.level)
	}
	// the window need not exceed a cluster: smaller history buffers
	win := 1 << 20
	for win < w.cfg.clusterSize && win < 8<<20 {
		win <<= 1
	}
	return zstd.NewWriter(dst, zstd.WithEncoderLevel(level), zstd.WithEncoderConcurrency(1),
		zstd.WithLowerEncoderMem(true), zstd.WithWindowSize(win))
}

func (w *Writer) putEncoder(e io.WriteCloser) {
	if z, ok := e.(*zstd.Encoder); ok {
		z.Reset(nil)
		select {
		case w.encoders <- z:
		default:
		}
	}
}

// compress returns the compressed offsets + data of c.
func (w *Writer) compress(c *wcluster) ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(len(c.data)/3 + 64)
	enc, err := w.newEncoder(&buf, 4*(len(c.ends)+1)+len(c.data))
	if err != nil {
		return nil, err
	}
	tab, _ := offsetTable(c)
	if _, err := enc.Write(tab); err != nil {
		return nil, err
	}
	if _, err := enc.Write(c.data); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	w.putEncoder(enc)
	return buf.Bytes(), nil
}

// spoolLoop writes closed clusters to the spool in cluster order.
func (w *Writer) spoolLoop() {
	defer w.writerWG.Done()
	for j := range w.queue {
		<-j.done
		if w.spoolErr == nil {
			w.spoolErr = j.err
		}
		if w.spoolErr == nil {
			w.spoolErr = w.spoolCluster(j)
		}
		c := j.c
		if c.big != nil {
			c.big.Close()
			c.big = nil
		}
		if cap(c.data) > 0 && cap(c.data) <= 2*w.cfg.clusterSize {
			w.bufPool.Put(c.data[:0])
		}
		c.data, c.ends, j.out = nil, nil, nil
	}
}

func (w *Writer) spoolCluster(j *job) error {
	c := j.c
	w.clOffsets = append(w.clOffsets, w.spoolSize)
	cw := &countWriter{w: w.spoolW}
	tab, ext := offsetTable(c)
	info := byte(CompressionNone)
	if c.compress {
		info = w.cfg.compression
	}
	if ext {
		info |= 0x10
	}
	cw.Write([]byte{info})
	switch {
	case j.out != nil:
		cw.Write(j.out)
	case c.compress: // a big blob, streamed through the encoder
		enc, err := w.newEncoder(cw, -1)
		if err != nil {
			return err
		}
		if _, err := enc.Write(tab); err != nil {
			return err
		}
		if err := copyBig(enc, c); err != nil {
			return err
		}
		if err := enc.Close(); err != nil {
			return err
		}
		w.putEncoder(enc)
	default:
		cw.Write(tab)
		if c.big != nil {
			if err := copyBig(cw, c); err != nil {
				return err
			}
		} else {
			cw.Write(c.data)
		}
	}
	w.spoolSize += cw.n
	return cw.err
}

func copyBig(dst io.Writer, c *wcluster) error {
	if _, err := c.big.Seek(0, io.SeekStart); err != nil {
		return err
	}
	n, err := io.Copy(dst, c.big)
	if err == nil && n != c.bigSize {
		err = fmt.Errorf("zim: blob spool: read %d bytes of %d", n, c.bigSize)
	}
	return err
}

type countWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (c *countWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	c.n += int64(n)
	c.err = err
	return n, err
}

// Abort drops the archive: nothing more is written and the temporary
// files are released.
func (w *Writer) Abort() {
	if w.closed {
		return
	}
	w.closed = true
	close(w.queue)
	w.writerWG.Wait()
	w.spool.Close()
}

// Close finishes the archive and writes it to the io.Writer given to
// NewWriter. It does not close that writer.
func (w *Writer) Close() error {
	if w.closed {
		return ErrWriterClosed
	}
	if w.err != nil {
		w.Abort()
		return w.err
	}
	err := w.finish()
	if err != nil {
		w.err = err
	}
	if !w.closed {
		w.Abort()
	}
	return err
}

func (w *Writer) finish() error {
	mainDirent := int32(-1)
	if w.mainPath != "" {
		var err error
		if mainDirent, err = w.addDirent(wdirent{ns: 'W', path: "mainPage", redirect: true,
			target: w.mainPath, mime: mimeRedirect}); err != nil {
			return err
		}
	}
	v0, err := w.addDirent(wdirent{ns: 'X', path: "listing/titleOrdered/v0", mime: mustMime(w, listingMime)})
	if err != nil {
		return err
	}
	v1 := int32(-1)
	if w.nFront > 0 {
		if v1, err = w.addDirent(wdirent{ns: 'X', path: "listing/titleOrdered/v1", mime: mustMime(w, listingMime)}); err != nil {
			return err
		}
	}
	counter, err := w.addDirent(wdirent{ns: 'M', path: "Counter", mime: mustMime(w, "text/plain")})
	if err != nil {
		return err
	}

	// resolve redirects: one to nothing is dropped (as libzim does), and so
	// are loops and the chains that lead into them (libzim would write
	// them, zimcheck reports them), until nothing changes
	state := make([]uint8, len(w.dirents)) // 0 new, 1 on the walked chain, 2 settled
	for {
		changed := false
		for i := range w.dirents {
			d := &w.dirents[i]
			if !d.redirect || d.removed {
				continue
			}
			t, ok := w.byPath[pathKey{'C', d.target}]
			if !ok || w.dirents[t].removed {
				d.removed, changed = true, true
				continue
			}
			d.tdi = t
		}
		clear(state)
		var chain []int32
		for i := range w.dirents {
			if !w.dirents[i].redirect || w.dirents[i].removed || state[i] != 0 {
				continue
			}
			chain = chain[:0]
			for j := int32(i); ; j = w.dirents[j].tdi {
				if state[j] == 1 { // back on the chain: a loop
					for _, k := range chain {
						w.dirents[k].removed, state[k] = true, 2
					}
					changed = true
					break
				}
				if state[j] == 2 || !w.dirents[j].redirect || w.dirents[j].removed {
					for _, k := range chain {
						state[k] = 2
					}
					break
				}
				state[j] = 1
				chain = append(chain, j)
			}
		}
		if !changed {
			break
		}
	}
	if mainDirent >= 0 && w.dirents[mainDirent].removed {
		mainDirent = -1
	}
	// path order
	order := make([]int32, 0, len(w.dirents))
	for i := range w.dirents {
		if !w.dirents[i].removed {
			order = append(order, int32(i))
		}
	}
	w.byPath = nil // no longer needed
	byPath := func(a, b int32) int {
		da, db := &w.dirents[a], &w.dirents[b]
		if da.ns != db.ns {
			return int(da.ns) - int(db.ns)
		}
		return strings.Compare(da.path, db.path)
	}
	sortInt32(order, byPath)
	for i, di := range order {
		w.dirents[di].idx = uint32(i)
	}
	// MIME types sorted, dirents renumbered
	sorted := append([]string(nil), w.mimeOf...)
	sort.Strings(sorted)
	remap := make([]uint16, len(w.mimeOf))
	for i, m := range w.mimeOf {
		remap[i] = uint16(sort.SearchStrings(sorted, m))
	}
	// title order, for the listings
	titles := append([]int32(nil), order...)
	sortInt32(titles, func(a, b int32) int {
		da, db := &w.dirents[a], &w.dirents[b]
		if da.ns != db.ns {
			return int(da.ns) - int(db.ns)
		}
		if c := strings.Compare(titleOf(da), titleOf(db)); c != 0 {
			return c
		}
		return strings.Compare(da.path, db.path)
	})
	listing := func(frontOnly bool) []byte {
		b := make([]byte, 0, 4*len(titles))
		for _, di := range titles {
			d := &w.dirents[di]
			if frontOnly && !d.front {
				continue
			}
			b = binary.LittleEndian.AppendUint32(b, d.idx)
		}
		return b
	}
	// listings (uncompressed, as libzim's TitleListingHandler) then the counter
	v0Cluster, v0Start, err := w.addData(bytes.NewReader(listing(false)), false, func() (int32, error) { return v0, nil })
	if err != nil {
		return err
	}
	if v1 >= 0 {
		if _, _, err := w.addData(bytes.NewReader(listing(true)), false, func() (int32, error) { return v1, nil }); err != nil {
			return err
		}
	}
	var cnt strings.Builder
	mimes := make([]string, 0, len(w.counter))
	for m := range w.counter {
		mimes = append(mimes, m)
	}
	sort.Strings(mimes)
	for i, m := range mimes {
		if i > 0 {
			cnt.WriteByte(';')
		}
		fmt.Fprintf(&cnt, "%s=%d", m, w.counter[m])
	}
	if _, _, err := w.addData(strings.NewReader(cnt.String()), w.cfg.compression != CompressionNone,
		func() (int32, error) { return counter, nil }); err != nil {
		return err
	}
	if len(w.comp.ends) > 0 {
		w.closeCluster(true)
	}
	if len(w.uncomp.ends) > 0 {
		w.closeCluster(false)
	}
	close(w.queue)
	w.writerWG.Wait()
	w.closed = true
	defer w.spool.Close()
	if w.spoolErr != nil {
		return fmt.Errorf("zim: cluster spool: %w", w.spoolErr)
	}
	if err := w.spoolW.Flush(); err != nil {
		return fmt.Errorf("zim: cluster spool: %w", err)
	}

	// layout
	var mimeList []byte
	for _, m := range sorted {
		mimeList = append(mimeList, m...)
		mimeList = append(mimeList, 0)
	}
	mimeList = append(mimeList, 0)
	base := int64(clusterBase)
	if HeaderSize+int64(len(mimeList)) > base {
		base = HeaderSize + int64(len(mimeList))
	}
	pos := base + w.spoolSize
	direntOff := make([]int64, len(order))
	for i, di := range order {
		direntOff[i] = pos
		pos += int64(direntSize(&w.dirents[di]))
	}
	pathPtrPos := pos
	clusterPtrPos := pathPtrPos + 8*int64(len(order))
	checksumPos := clusterPtrPos + 8*int64(len(w.clusters))
	// the header's title pointer list is the v0 listing's blob
	osz := uint64(4)
	if v0Cluster.ext {
		osz = 8
	}
	titlePtrPos := uint64(base+w.clOffsets[v0Cluster.index]) + 1 + osz*uint64(v0Cluster.nblobs+1) + v0Start

	h := make([]byte, HeaderSize)
	le := binary.LittleEndian
	le.PutUint32(h[0:], Magic)
	le.PutUint16(h[4:], 6)
	le.PutUint16(h[6:], 2)
	copy(h[8:24], w.cfg.uuid[:])
	le.PutUint32(h[24:], uint32(len(order)))
	le.PutUint32(h[28:], uint32(len(w.clusters)))
	le.PutUint64(h[32:], uint64(pathPtrPos))
	le.PutUint64(h[40:], titlePtrPos)
	le.PutUint64(h[48:], uint64(clusterPtrPos))
	le.PutUint64(h[56:], HeaderSize)
	mp := uint32(NoPage)
	if mainDirent >= 0 {
		mp = w.dirents[mainDirent].idx
	}
	le.PutUint32(h[64:], mp)
	le.PutUint32(h[68:], NoPage)
	le.PutUint64(h[72:], uint64(checksumPos))

	sum := md5.New()
	bw := bufio.NewWriterSize(io.MultiWriter(w.out, sum), 1<<20)
	bw.Write(h)
	bw.Write(mimeList)
	bw.Write(make([]byte, base-HeaderSize-int64(len(mimeList))))
	if _, err := w.spool.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("zim: cluster spool: %w", err)
	}
	if n, err := io.Copy(bw, w.spool); err != nil || n != w.spoolSize {
		if err == nil {
			err = fmt.Errorf("read %d bytes of %d", n, w.spoolSize)
		}
		return fmt.Errorf("zim: cluster spool: %w", err)
	}
	var buf []byte
	for _, di := range order {
		d := &w.dirents[di]
		buf = buf[:0]
		if d.redirect {
			buf = le.AppendUint16(buf, mimeRedirect)
		} else {
			buf = le.AppendUint16(buf, remap[d.mime])
		}
		buf = append(buf, 0, d.ns, 0, 0, 0, 0)
		if d.redirect {
			buf = le.AppendUint32(buf, w.dirents[d.tdi].idx)
		} else {
			buf = le.AppendUint32(buf, d.cluster)
			buf = le.AppendUint32(buf, d.blob)
		}
		buf = append(buf, d.path...)
		buf = append(buf, 0)
		if d.title != d.path {
			buf = append(buf, d.title...)
		}
		buf = append(buf, 0)
		bw.Write(buf)
	}
	var b8 [8]byte
	for _, off := range direntOff {
		le.PutUint64(b8[:], uint64(off))
		bw.Write(b8[:])
	}
	for _, off := range w.clOffsets {
		le.PutUint64(b8[:], uint64(base+off))
		bw.Write(b8[:])
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	_, err = w.out.Write(sum.Sum(nil))
	return err
}

func titleOf(d *wdirent) string {
	if d.title == "" {
		return d.path
	}
	return d.title
}

func direntSize(d *wdirent) int {
	n := 16
	if d.redirect {
		n = 12
	}
	n += len(d.path) + 2
	if d.title != d.path {
		n += len(d.title)
	}
	return n
}

func mustMime(w *Writer, m string) uint16 {
	i, _ := w.mimeIndex(m)
	return i
}

func sortInt32(s []int32, cmp func(a, b int32) int) {
	sort.Slice(s, func(i, j int) bool { return cmp(s[i], s[j]) < 0 })
}
