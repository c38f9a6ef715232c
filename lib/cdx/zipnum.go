package cdx

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/arcport/arcport/lib/surt"
	"github.com/klauspost/compress/gzip"
)

// ZipNum defaults, as py-wacz writes WACZ indexes.
const (
	// DefaultBlockLines is the number of CDXJ lines per gzip member
	// (py-wacz and ArchiveWeb.page use 1024; cdxj-indexer's own default
	// is 300).
	DefaultBlockLines = 1024
	// ZipNumFormat is the format named in the idx "!meta" line.
	ZipNumFormat = "cdxj-gzip-1.0"
	// DefaultZipNumFile is the name of the compressed index in a WACZ.
	DefaultZipNumFile = "index.cdx.gz"
)

// ZipNumOption configures a ZipNumWriter.
type ZipNumOption func(*ZipNumWriter)

// WithBlockLines sets the number of lines per gzip member.
func WithBlockLines(n int) ZipNumOption { return func(z *ZipNumWriter) { z.lines = max(n, 1) } }

// WithDataName sets the file name given in the idx "!meta" line.
func WithDataName(name string) ZipNumOption { return func(z *ZipNumWriter) { z.name = name } }

// WithBlockDigests sets whether idx lines carry "digest": "sha256:<hex>"
// of their gzip member (on by default, as py-wacz writes them).
func WithBlockDigests(on bool) ZipNumOption { return func(z *ZipNumWriter) { z.digest = on } }

// WithClusterPart makes the writer write the summary as pywb's ZipNum
// cluster summary (and Common Crawl's cluster.idx) lines instead:
// no "!meta" line, and one line per block
//
//	<urlkey> <timestamp>\t<part>\t<offset>\t<length>\t<line number>
//
// where part names the data file (resolved through the cluster's .loc
// file) and line numbers count the blocks from first on.
func WithClusterPart(part string, first int64) ZipNumOption {
	return func(z *ZipNumWriter) { z.part, z.lineNo = part, first }
}

// WithGzipLevel sets the compression level of the members (default
// gzip.DefaultCompression).
func WithGzipLevel(level int) ZipNumOption { return func(z *ZipNumWriter) { z.level = level } }

// WithCompressors compresses up to n blocks at once, each on its own
// goroutine, while the caller adds lines; the blocks are written in order,
// so the files are the same as with one (the default: blocks compressed
// by WriteLine itself). Errors writing a block show at a later WriteLine
// or at Close, which must be called.
func WithCompressors(n int) ZipNumOption { return func(z *ZipNumWriter) { z.compressors = n } }

// ZipNumWriter writes a ZipNum index from sorted CDXJ lines: the data file
// (index.cdx.gz) as one gzip member per block of lines, and the summary
// (index.idx) exactly as cdxj-indexer's CompressedWriter (used by py-wacz)
// writes it:
//
//	!meta 0 {"format": "cdxj-gzip-1.0", "filename": "index.cdx.gz"}
//	<urlkey> <timestamp> {"offset": 0, "length": 1234, "digest": "sha256:..."}
//
// where each summary line starts with the key and timestamp of its block's
// first line, and offset and length locate the member in the data file.
type ZipNumWriter struct {
	data, idx io.Writer
	lines     int
	name      string
	digest    bool
	level     int
	part      string
	lineNo    int64

	block   bytes.Buffer
	n       int
	prefix  string
	offset  int64
	started bool
	comp    bytes.Buffer
	gz      *gzip.Writer
	blocks  int

	compressors int
	queue       []*zipNumBlock // blocks being compressed, in order
	err         error          // the first error writing a block
}

// zipNumBlock is a block compressed on its own goroutine.
type zipNumBlock struct {
	prefix string
	lines  []byte
	member []byte
	err    error
	done   chan struct{}
}

// NewZipNumWriter returns a writer of the data file to data and the summary
// to idx. Lines must be given in sorted order.
func NewZipNumWriter(data, idx io.Writer, opts ...ZipNumOption) *ZipNumWriter {
	z := &ZipNumWriter{data: data, idx: idx, lines: DefaultBlockLines, name: DefaultZipNumFile,
		digest: true, level: gzip.DefaultCompression}
	for _, o := range opts {
		o(z)
	}
	return z
}

// WriteLine adds one CDXJ line (a trailing newline is optional).
func (z *ZipNumWriter) WriteLine(line []byte) error {
	line = bytes.TrimSuffix(line, []byte("\n"))
	if err := z.start(); err != nil {
		return err
	}
	if z.n == 0 {
		p, _, _ := bytes.Cut(line, []byte("{"))
		z.prefix = strings.TrimSpace(string(p))
	}
	z.block.Write(line)
	z.block.WriteByte('\n')
	z.n++
	if z.n >= z.lines {
		return z.flush()
	}
	return nil
}

// Blocks returns the number of gzip members written so far.
func (z *ZipNumWriter) Blocks() int { return z.blocks }

func (z *ZipNumWriter) flush() error {
	if z.err != nil {
		return z.err
	}
	if z.n == 0 {
		return nil
	}
	if z.compressors > 1 {
		return z.flushAsync()
	}
	z.comp.Reset()
	if z.gz == nil {
		gz, err := gzip.NewWriterLevel(&z.comp, z.level)
		if err != nil {
			return err
		}
		z.gz = gz
	} else {
		z.gz.Reset(&z.comp)
	}
	z.gz.Write(z.block.Bytes())
	if err := z.gz.Close(); err != nil {
		return err
	}
	if err := z.writeMember(z.prefix, z.comp.Bytes()); err != nil {
		return err
	}
	z.block.Reset()
	z.n = 0
	return nil
}

// flushAsync starts compressing the block on its own goroutine, then
// writes, in order, the blocks done (and waits for the oldest while too
// many are under way).
func (z *ZipNumWriter) flushAsync() error {
	b := &zipNumBlock{prefix: z.prefix, lines: bytes.Clone(z.block.Bytes()), done: make(chan struct{})}
	level := z.level
	go func() {
		defer close(b.done)
		gz, err := getZipNumGzip(level)
		if err != nil {
			b.err = err
			return
		}
		var out bytes.Buffer
		out.Grow(len(b.lines) / 4)
		gz.Reset(&out)
		gz.Write(b.lines)
		if b.err = gz.Close(); b.err == nil {
			b.member = out.Bytes()
		}
		gz.Reset(nil)
		putZipNumGzip(level, gz)
	}()
	z.queue = append(z.queue, b)
	z.block.Reset()
	z.n = 0
	return z.drain(z.compressors)
}

// drain writes the blocks at the head of the queue that are done, waiting
// for them while more than keep are under way.
func (z *ZipNumWriter) drain(keep int) error {
	for len(z.queue) > 0 {
		b := z.queue[0]
		if len(z.queue) > keep {
			<-b.done
		} else {
			select {
			case <-b.done:
			default:
				return z.err
			}
		}
		z.queue[0] = nil
		z.queue = z.queue[1:]
		if z.err == nil {
			if z.err = b.err; z.err == nil {
				z.err = z.writeMember(b.prefix, b.member)
			}
		}
	}
	return z.err
}

// zipNumGzips are the compressing goroutines' gzip writers, by level.
var zipNumGzips sync.Map // level -> *sync.Pool

func getZipNumGzip(level int) (*gzip.Writer, error) {
	p, _ := zipNumGzips.LoadOrStore(level, &sync.Pool{})
	if gz, ok := p.(*sync.Pool).Get().(*gzip.Writer); ok {
		return gz, nil
	}
	return gzip.NewWriterLevel(nil, level)
}

func putZipNumGzip(level int, gz *gzip.Writer) {
	p, _ := zipNumGzips.Load(level)
	p.(*sync.Pool).Put(gz)
}

// writeMember writes a compressed block and its summary line.
func (z *ZipNumWriter) writeMember(prefix string, member []byte) error {
	if _, err := z.data.Write(member); err != nil {
		return err
	}
	if z.part != "" {
		if _, err := fmt.Fprintf(z.idx, "%s\t%s\t%d\t%d\t%d\n", prefix, z.part, z.offset, len(member), z.lineNo); err != nil {
			return err
		}
		z.lineNo++
		z.offset += int64(len(member))
		z.blocks++
		return nil
	}
	line := fmt.Sprintf("%s {\"offset\": %d, \"length\": %d", prefix, z.offset, len(member))
	if z.digest {
		sum := sha256.Sum256(member)
		line += ", \"digest\": \"sha256:" + hex.EncodeToString(sum[:]) + "\""
	}
	if _, err := io.WriteString(z.idx, line+"}\n"); err != nil {
		return err
	}
	z.offset += int64(len(member))
	z.blocks++
	return nil
}

// start writes the "!meta" line of a WACZ summary (a cluster summary has
// none).
func (z *ZipNumWriter) start() error {
	if z.started {
		return nil
	}
	z.started = true
	if z.part != "" {
		return nil
	}
	meta, _ := json.Marshal(z.name)
	_, err := fmt.Fprintf(z.idx, "!meta 0 {\"format\": %q, \"filename\": %s}\n", ZipNumFormat, meta)
	return err
}

// Size returns the bytes of the data file written so far.
func (z *ZipNumWriter) Size() int64 { return z.offset }

// Close writes the last block. It does not close the underlying writers.
func (z *ZipNumWriter) Close() error {
	// An empty WACZ index still gets its meta line.
	err := z.start()
	if err == nil {
		err = z.flush()
	}
	// the blocks under way, written (or, after an error, waited for)
	if derr := z.drain(0); err == nil {
		err = derr
	}
	return err
}

// Block is one summary line of a ZipNum idx.
type Block struct {
	Key      string // "urlkey timestamp" of the block's first line
	Offset   int64
	Length   int64
	Digest   string // "sha256:<hex>" or ""
	Filename string // the data file holding the block (a cluster's part)
	// Line is the block's number in a cluster summary (0 when absent).
	Line int64
}

// ZipNum searches a ZipNum index: a binary search in the summary (read
// through an io.ReaderAt, never whole) finds the first block that can hold
// a key, and the blocks are read with ranged reads of the data file.
type ZipNum struct {
	idx       io.ReaderAt
	idxSize   int64
	dataStart int64
	open      func(name string) (io.ReaderAt, error)
	files     map[string]io.ReaderAt
	// Format and Filename come from the "!meta" line ("" when absent).
	Format, Filename string
	// VerifyDigests makes block reads check the sha256 digest given in
	// the summary.
	VerifyDigests bool
	// Cluster is true for a pywb ZipNum cluster summary (tab-separated
	// lines naming a part each, no "!meta" line).
	Cluster bool
}

// ErrBadIndex is wrapped by errors about malformed ZipNum indexes.
var ErrBadIndex = errors.New("bad ZipNum index")

// OpenZipNum opens the summary idx of idxSize bytes; open returns the data
// file a block names (the "!meta" filename by default).
func OpenZipNum(idx io.ReaderAt, idxSize int64, open func(filename string) (io.ReaderAt, error)) (*ZipNum, error) {
	z := &ZipNum{idx: idx, idxSize: idxSize, open: open, files: map[string]io.ReaderAt{}, Filename: DefaultZipNumFile}
	line, next, err := readLineAt(idx, idxSize, 0)
	if err != nil {
		return nil, err
	}
	if strings.HasPrefix(line, "!meta") {
		i := strings.Index(line, " {")
		if i < 0 {
			return nil, fmt.Errorf("%w: line 1: meta line without JSON", ErrBadIndex)
		}
		var meta struct {
			Format   string `json:"format"`
			Filename string `json:"filename"`
		}
		if err := json.Unmarshal([]byte(line[i+1:]), &meta); err != nil {
			return nil, fmt.Errorf("%w: line 1: %v", ErrBadIndex, err)
		}
		z.Format = meta.Format
		if meta.Filename != "" {
			z.Filename = meta.Filename
		}
		z.dataStart = next
	} else if strings.Count(line, "\t") >= 3 {
		z.Cluster = true
	}
	return z, nil
}

// OpenCluster opens the summary of a pywb ZipNum cluster (cluster.idx,
// idxSize bytes), whose lines are
//
//	<urlkey> <timestamp>\t<part>\t<offset>\t<length>[\t<line number>]
//
// open returns the data file of a part (see ParseLoc for the .loc file
// that maps part names to paths).
func OpenCluster(idx io.ReaderAt, idxSize int64, open func(part string) (io.ReaderAt, error)) *ZipNum {
	return &ZipNum{idx: idx, idxSize: idxSize, open: open, files: map[string]io.ReaderAt{}, Cluster: true}
}

// readLineAt reads the line starting at off (without its newline) and
// returns the offset of the next line.
func readLineAt(ra io.ReaderAt, size, off int64) (string, int64, error) {
	var buf []byte
	chunk := make([]byte, 4096)
	for p := off; p < size; {
		n, err := ra.ReadAt(chunk[:min(int64(len(chunk)), size-p)], p)
		if i := bytes.IndexByte(chunk[:n], '\n'); i >= 0 {
			buf = append(buf, chunk[:i]...)
			return strings.TrimSuffix(string(buf), "\r"), p + int64(i) + 1, nil
		}
		buf = append(buf, chunk[:n]...)
		p += int64(n)
		if len(buf) > MaxLineSize {
			return "", 0, fmt.Errorf("%w: line at offset %d too long", ErrBadIndex, off)
		}
		if err != nil && err != io.EOF {
			return "", 0, err
		}
		if n == 0 {
			break
		}
	}
	return strings.TrimSuffix(string(buf), "\r"), size, nil
}

// nextLineStart returns the first line start at or after off (lines start
// at from or after a newline).
func nextLineStart(ra io.ReaderAt, size, from, off int64) (int64, error) {
	if off <= from {
		return from, nil
	}
	b := make([]byte, 4096)
	for p := off - 1; p < size; {
		n, err := ra.ReadAt(b[:min(int64(len(b)), size-p)], p)
		if i := bytes.IndexByte(b[:n], '\n'); i >= 0 {
			return p + int64(i) + 1, nil
		}
		p += int64(n)
		if err != nil && err != io.EOF {
			return 0, err
		}
		if n == 0 {
			break
		}
	}
	return size, nil
}

// searchLines finds the start of the last line in [from, size) whose text
// compares below target (lines sorted in byte order), or from when none
// does.
func searchLines(ra io.ReaderAt, size, from int64, target string) (int64, error) {
	best := int64(-1)
	lo, hi := from, size
	for lo < hi {
		mid := lo + (hi-lo)/2
		s, err := nextLineStart(ra, size, from, mid)
		if err != nil {
			return 0, err
		}
		if s >= hi {
			hi = mid
			continue
		}
		line, next, err := readLineAt(ra, size, s)
		if err != nil {
			return 0, err
		}
		if line < target {
			best = s
			lo = next
		} else {
			hi = mid
		}
	}
	if best < 0 {
		return from, nil
	}
	return best, nil
}

// parseBlock parses a summary line.
func (z *ZipNum) parseBlock(line string, lineOff int64) (Block, error) {
	if z.Cluster {
		return parseClusterLine(line, lineOff)
	}
	i := strings.Index(line, " {")
	if i < 0 {
		return Block{}, fmt.Errorf("%w: line at offset %d: no JSON", ErrBadIndex, lineOff)
	}
	var v struct {
		Offset   json.Number `json:"offset"`
		Length   json.Number `json:"length"`
		Digest   string      `json:"digest"`
		Filename string      `json:"filename"`
	}
	d := json.NewDecoder(strings.NewReader(line[i+1:]))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return Block{}, fmt.Errorf("%w: line at offset %d: %v", ErrBadIndex, lineOff, err)
	}
	off, err1 := strconv.ParseInt(v.Offset.String(), 10, 64)
	n, err2 := strconv.ParseInt(v.Length.String(), 10, 64)
	if err1 != nil || err2 != nil || off < 0 || n <= 0 {
		return Block{}, fmt.Errorf("%w: line at offset %d: bad offset %q or length %q", ErrBadIndex, lineOff, v.Offset, v.Length)
	}
	b := Block{Key: line[:i], Offset: off, Length: n, Digest: v.Digest, Filename: v.Filename}
	if b.Filename == "" {
		b.Filename = z.Filename
	}
	return b, nil
}

// Blocks calls fn with every summary line in order.
func (z *ZipNum) Blocks(fn func(Block) error) error {
	for off := z.dataStart; off < z.idxSize; {
		line, next, err := readLineAt(z.idx, z.idxSize, off)
		if err != nil {
			return err
		}
		if strings.TrimSpace(line) != "" {
			b, err := z.parseBlock(line, off)
			if err != nil {
				return err
			}
			if err := fn(b); err != nil {
				return err
			}
		}
		off = next
	}
	return nil
}

// ReadBlock returns the lines of one block, checking its digest when
// VerifyDigests is set.
func (z *ZipNum) ReadBlock(b Block, fn func(line []byte) error) error {
	ra, ok := z.files[b.Filename]
	if !ok {
		var err error
		if ra, err = z.open(b.Filename); err != nil {
			return err
		}
		z.files[b.Filename] = ra
	}
	if size, ok := readerSize(ra); ok && (b.Offset < 0 || b.Length < 0 || b.Offset > size || b.Length > size-b.Offset) {
		return fmt.Errorf("%s: block at offset %d: %w: length %d is past the end of the file (%d bytes)", b.Filename, b.Offset, ErrBadIndex, b.Length, size)
	}
	var src io.Reader = io.NewSectionReader(ra, b.Offset, b.Length)
	var h hash.Hash
	if z.VerifyDigests && strings.HasPrefix(b.Digest, "sha256:") {
		h = sha256.New()
		src = io.TeeReader(src, h)
	}
	gz, err := gzip.NewReader(src)
	if err != nil {
		return fmt.Errorf("%s: block at offset %d: %w", b.Filename, b.Offset, err)
	}
	gz.Multistream(false)
	br := bufio.NewReaderSize(gz, 64<<10)
	var line []byte
	for {
		frag, err := br.ReadSlice('\n')
		line = append(line, frag...)
		if err == bufio.ErrBufferFull {
			if len(line) > MaxLineSize {
				return fmt.Errorf("%s: block at offset %d: %w", b.Filename, b.Offset, ErrLineTooLong)
			}
			continue
		}
		if len(line) > 0 {
			if ferr := fn(bytes.TrimSuffix(line, []byte("\n"))); ferr != nil {
				return ferr
			}
		}
		line = line[:0]
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("%s: block at offset %d: %w", b.Filename, b.Offset, err)
		}
	}
	if h != nil {
		io.Copy(io.Discard, src)
		if got := "sha256:" + hex.EncodeToString(h.Sum(nil)); got != b.Digest {
			return fmt.Errorf("%s: block at offset %d: digest %s, summary says %s", b.Filename, b.Offset, got, b.Digest)
		}
	}
	return nil
}

// readerSize returns the size of a data file when ra can tell it (an
// *os.File, an *io.SectionReader, a *bytes.Reader ...).
func readerSize(ra io.ReaderAt) (int64, bool) {
	switch x := ra.(type) {
	case interface{ Size() int64 }:
		return x.Size(), true
	case interface{ Stat() (os.FileInfo, error) }:
		if st, err := x.Stat(); err == nil && st.Mode().IsRegular() {
			return st.Size(), true
		}
	}
	return 0, false
}

// errStop ends a scan early.
var errStop = errors.New("stop")

// Range calls fn with every entry whose line L has from <= L < to, in
// order (to == "" means no upper bound).
func (z *ZipNum) Range(from, to string, fn func(*Entry) error) error {
	return z.RangeLines(from, to, func(b Block, l []byte) error {
		e, err := ParseCDXJ(l)
		if err != nil {
			return fmt.Errorf("%s: block at offset %d: %w", b.Filename, b.Offset, err)
		}
		return fn(&e)
	})
}

// RangeLines is Range for the lines as they are (CDXJ or CDX-11, as pywb
// clusters may hold either), with the block each comes from; the slice is
// valid only during the call.
func (z *ZipNum) RangeLines(from, to string, fn func(b Block, line []byte) error) error {
	start, err := searchLines(z.idx, z.idxSize, z.dataStart, from)
	if err != nil {
		return err
	}
	for off := start; off < z.idxSize; {
		line, next, err := readLineAt(z.idx, z.idxSize, off)
		if err != nil {
			return err
		}
		lineOff := off
		off = next
		if strings.TrimSpace(line) == "" {
			continue
		}
		b, err := z.parseBlock(line, lineOff)
		if err != nil {
			return err
		}
		if to != "" && b.Key >= to {
			break
		}
		err = z.ReadBlock(b, func(l []byte) error {
			s := string(l)
			if s < from {
				return nil
			}
			if to != "" && s >= to {
				return errStop
			}
			return fn(b, l)
		})
		if err == errStop {
			return nil
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// Prefix calls fn with every entry whose key starts with prefix (a SURT
// prefix such as "com,example)/" for a whole site).
func (z *ZipNum) Prefix(prefix string, fn func(*Entry) error) error {
	return z.Range(prefix, prefix+"\xff", fn)
}

// Lookup returns the captures of url (keyed with surt.Key by the caller's
// choice of key: pass the SURT key). When timestamp is not empty they are
// ordered by distance from it, closest first (ties: earlier first);
// otherwise in index order.
func (z *ZipNum) Lookup(urlkey, timestamp string) ([]*Entry, error) {
	var out []*Entry
	err := z.Range(urlkey+" ", urlkey+"!", func(e *Entry) error {
		out = append(out, e)
		return nil
	})
	if err != nil {
		return nil, err
	}
	SortClosest(out, timestamp)
	return out, nil
}

// LookupURL is Lookup for a URL, keyed as warcio.js and ReplayWeb.page key
// it (surt.Key).
func (z *ZipNum) LookupURL(url, timestamp string) ([]*Entry, error) {
	return z.Lookup(surt.Key(url), timestamp)
}

// SortClosest orders entries by the distance of their timestamps from ts
// (closest first, earlier first on ties). An empty ts leaves the order.
func SortClosest(es []*Entry, ts string) {
	if ts == "" {
		return
	}
	want := tsNumber(ts)
	sort.SliceStable(es, func(i, j int) bool {
		di, dj := absDiff(tsNumber(es[i].Timestamp), want), absDiff(tsNumber(es[j].Timestamp), want)
		if di != dj {
			return di < dj
		}
		return es[i].Timestamp < es[j].Timestamp
	})
}

// tsNumber reads a timestamp of up to 14 digits as seconds since year 0
// (shorter ones completed as the Wayback Machine does).
func tsNumber(ts string) int64 {
	const pad = "00000101000000"
	d := ts
	if len(d) > 14 {
		d = d[:14]
	}
	for i := 0; i < len(d); i++ {
		if d[i] < '0' || d[i] > '9' {
			d = d[:i]
			break
		}
	}
	d += pad[len(d):]
	n := func(s string) int64 { v, _ := strconv.ParseInt(s, 10, 64); return v }
	y, mo, dd, h, mi, s := n(d[0:4]), n(d[4:6]), n(d[6:8]), n(d[8:10]), n(d[10:12]), n(d[12:14])
	return ((((y*12+mo)*31+dd)*24+h)*60+mi)*60 + s
}

func absDiff(a, b int64) int64 {
	if a > b {
		return a - b
	}
	return b - a
}

// SearchCDXJ calls fn with the entries L (from <= L < to, to == "" for no
// bound) of a sorted plain CDXJ file read through ra, finding the first by
// binary search.
func SearchCDXJ(ra io.ReaderAt, size int64, from, to string, fn func(*Entry) error) error {
	start, err := searchLines(ra, size, 0, from)
	if err != nil {
		return err
	}
	for off := start; off < size; {
		line, next, err := readLineAt(ra, size, off)
		if err != nil {
			return err
		}
		lineOff := off
		off = next
		if line < from || strings.TrimSpace(line) == "" || line[0] == '!' {
			continue
		}
		if to != "" && line >= to {
			break
		}
		e, err := ParseCDXJ([]byte(line))
		if err != nil {
			return fmt.Errorf("line at offset %d: %w", lineOff, err)
		}
		if err := fn(&e); err != nil {
			return err
		}
	}
	return nil
}

// parseClusterLine parses a line of a cluster summary.
func parseClusterLine(line string, lineOff int64) (Block, error) {
	f := strings.Split(line, "\t")
	if len(f) < 4 {
		return Block{}, fmt.Errorf("%w: line at offset %d: %d tab-separated fields, 4 or 5 wanted", ErrBadIndex, lineOff, len(f))
	}
	off, err1 := strconv.ParseInt(f[2], 10, 64)
	n, err2 := strconv.ParseInt(f[3], 10, 64)
	if err1 != nil || err2 != nil || off < 0 || n <= 0 || f[1] == "" {
		return Block{}, fmt.Errorf("%w: line at offset %d: bad part %q, offset %q or length %q", ErrBadIndex, lineOff, f[1], f[2], f[3])
	}
	b := Block{Key: f[0], Filename: f[1], Offset: off, Length: n}
	if len(f) > 4 && f[4] != "" {
		if b.Line, err1 = strconv.ParseInt(f[4], 10, 64); err1 != nil {
			return Block{}, fmt.Errorf("%w: line at offset %d: bad line number %q", ErrBadIndex, lineOff, f[4])
		}
	}
	return b, nil
}
