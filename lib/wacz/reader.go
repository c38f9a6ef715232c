package wacz

import (
	"archive/zip"
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/arcport/arcport/lib/httpmsg"
	"github.com/arcport/arcport/lib/record"
	"github.com/arcport/arcport/lib/surt"
	"github.com/arcport/arcport/lib/warc"
	"github.com/klauspost/compress/gzip"
)

// MaxIndexLine bounds one CDXJ or IDX line.
const MaxIndexLine = 1 << 20

// MaxPagesLine bounds one line of pages/*.jsonl when reading or validating
// a WACZ: generous, far above anything create writes (page text is cut to
// MaxText, a URL to lib/warc's MaxHeaderSize, a --pages line to
// MaxPageListLine; JSON escaping at most doubles them).
const MaxPagesLine = 64 << 20

// maxJSONFile bounds datapackage.json and datapackage-digest.json.
const maxJSONFile = 256 << 20

// ErrNotFound is returned by Find when no capture matches.
var ErrNotFound = errors.New("not found in the index")

// Reader reads a WACZ through an io.ReaderAt: its manifest, its index and,
// with ranged reads of the STORED WARC files, single captures.
type Reader struct {
	name  string
	ra    io.ReaderAt
	size  int64
	zr    *zip.Reader
	files map[string]*zip.File
	c     io.Closer
	ok    map[*zip.File]bool // entries whose data was checked to lie in the file
}

// Open reads the zip directory of a WACZ of size bytes. name is used in
// errors.
func Open(ra io.ReaderAt, size int64, name string) (*Reader, error) {
	zr, err := zip.NewReader(ra, size)
	if err != nil {
		return nil, fmt.Errorf("%s: not a readable zip file: %v", name, err)
	}
	r := &Reader{name: name, ra: ra, size: size, zr: zr, files: map[string]*zip.File{}}
	for _, f := range zr.File {
		// the local header is read (and the data's place checked) when
		// the entry is first opened: a remote WACZ costs no request per
		// entry here
		if f.CompressedSize64 > uint64(size) || (f.Method == zip.Store && f.UncompressedSize64 != f.CompressedSize64) {
			return nil, fmt.Errorf("%s: %s: %v", name, f.Name, checkEntry(f, size))
		}
		if _, dup := r.files[f.Name]; !dup {
			r.files[f.Name] = f
		}
	}
	return r, nil
}

// open opens the entry f after checking that its data lies inside the file
// (checkEntry), once per entry.
func (r *Reader) open(f *zip.File) (io.ReadCloser, error) {
	if err := r.checked(f); err != nil {
		return nil, err
	}
	return f.Open()
}

// CheckEntries checks that every entry's data lies inside the file
// (reading each local header), as validating does first; the other
// readers check an entry when they first read it.
func (r *Reader) CheckEntries() error {
	for _, f := range r.zr.File {
		if err := r.checked(f); err != nil {
			return fmt.Errorf("%s: %v", r.name, err)
		}
	}
	return nil
}

// checked runs checkEntry on f the first time it is asked.
func (r *Reader) checked(f *zip.File) error {
	if r.ok == nil {
		r.ok = map[*zip.File]bool{}
	}
	if r.ok[f] {
		return nil
	}
	if err := checkEntry(f, r.size); err != nil {
		return fmt.Errorf("%s: %v", f.Name, err)
	}
	r.ok[f] = true
	return nil
}

// OpenCloser is Open for an r that Close must close, such as a remote
// object read by ranges; r is closed as well when OpenCloser fails.
func OpenCloser(r interface {
	io.ReaderAt
	io.Closer
}, size int64, name string) (*Reader, error) {
	wr, err := Open(r, size, name)
	if err != nil {
		r.Close()
		return nil, err
	}
	wr.c = r
	return wr, nil
}

// within reports whether the n bytes at off lie inside size bytes, without
// overflow (off+n is never computed).
func within(off, n, size int64) bool {
	return off >= 0 && n >= 0 && off <= size && n <= size-off
}

// checkEntry checks a zip entry's directory fields (the local header
// offset, the sizes, ZIP64 ones included) against the real size of the
// zip file: its data must lie inside the file, and a STORED entry's two
// sizes must agree.
func checkEntry(f *zip.File, size int64) error {
	start, err := f.DataOffset()
	if err != nil {
		return fmt.Errorf("local header: %v", err)
	}
	csize := f.CompressedSize64
	if csize > uint64(size) || !within(start, int64(csize), size) {
		return fmt.Errorf("data at offset %d, %d bytes, is past the end of the file (%d bytes)", start, csize, size)
	}
	if f.Method == zip.Store && f.UncompressedSize64 != csize {
		return fmt.Errorf("stored entry of %d bytes says it holds %d", csize, f.UncompressedSize64)
	}
	return nil
}

// OpenFile opens the WACZ file at path; Close closes it.
func OpenFile(path string) (*Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	r, err := Open(f, st.Size(), path)
	if err != nil {
		f.Close()
		return nil, err
	}
	r.c = f
	return r, nil
}

// Close closes the file opened by OpenFile.
func (r *Reader) Close() error {
	if r.c != nil {
		return r.c.Close()
	}
	return nil
}

// Files returns the zip entries in directory order.
func (r *Reader) Files() []*zip.File { return r.zr.File }

// File returns the entry named name, or nil.
func (r *Reader) File(name string) *zip.File { return r.files[name] }

// HasDraftFiles reports whether the WACZ holds a file of the seed draft,
// webarchive.yaml or pages.csv, at its root (see Options.DraftFiles).
func (r *Reader) HasDraftFiles() bool {
	return r.files[WebArchiveYAMLPath] != nil || r.files[PagesCSVPath] != nil
}

// DataPackage reads and parses datapackage.json.
func (r *Reader) DataPackage() (*DataPackage, error) {
	b, err := r.readSmall(DataPackagePath)
	if err != nil {
		return nil, err
	}
	var dp DataPackage
	if err := json.Unmarshal(b, &dp); err != nil {
		return nil, fmt.Errorf("%s: %s: %v", r.name, DataPackagePath, err)
	}
	return &dp, nil
}

func (r *Reader) readSmall(name string) ([]byte, error) {
	f := r.files[name]
	if f == nil {
		return nil, fmt.Errorf("%s: no %s", r.name, name)
	}
	if f.UncompressedSize64 > maxJSONFile {
		return nil, fmt.Errorf("%s: %s: %d bytes is too large", r.name, name, f.UncompressedSize64)
	}
	rc, err := r.open(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %v", r.name, name, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, maxJSONFile+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %v", r.name, name, err)
	}
	return b, nil
}

// Pages reads pages/pages.jsonl: its header line (nil when absent) and its
// pages.
func (r *Reader) Pages() (*PagesHeader, []Page, error) {
	f := r.files[PagesPath]
	if f == nil {
		return nil, nil, fmt.Errorf("%s: no %s", r.name, PagesPath)
	}
	rc, err := r.open(f)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %s: %v", r.name, PagesPath, err)
	}
	defer rc.Close()
	var hdr *PagesHeader
	var pages []Page
	err = eachLineMax(rc, MaxPagesLine, func(n int, line []byte) error {
		if len(bytes.TrimSpace(line)) == 0 {
			return nil
		}
		if n == 1 && bytes.Contains(line, []byte(`"format"`)) {
			hdr = &PagesHeader{}
			return json.Unmarshal(line, hdr)
		}
		var p Page
		if err := json.Unmarshal(line, &p); err != nil {
			return err
		}
		pages = append(pages, p)
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %s: %v", r.name, PagesPath, err)
	}
	return hdr, pages, nil
}

// eachLine calls fn for every line of rd (without its newline), numbered
// from 1; lines over MaxIndexLine are an error.
func eachLine(rd io.Reader, fn func(n int, line []byte) error) error {
	return eachLineMax(rd, MaxIndexLine, fn)
}

// eachLineMax is eachLine with lines of up to max bytes.
func eachLineMax(rd io.Reader, max int, fn func(n int, line []byte) error) error {
	sc := bufio.NewScanner(rd)
	sc.Buffer(make([]byte, 64<<10), max)
	n := 0
	for sc.Scan() {
		n++
		line := bytes.TrimSuffix(sc.Bytes(), []byte("\r"))
		if err := fn(n, line); err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("line %d: %w", n+1, err)
	}
	return nil
}

// Capture is one CDXJ index line: a capture of a URL in one of the WARCs.
type Capture struct {
	URLKey    string
	Timestamp string // 14 digits (or as written)
	URL       string
	Mime      string
	Status    string
	Digest    string
	Filename  string // name inside archive/
	Offset    int64
	Length    int64
	// Index names the index file the line came from.
	Index string
	// JSON is the line's JSON block as written.
	JSON string
}

// ParseCDXJ parses a CDXJ line "urlkey timestamp {json}". Offset and length
// may be JSON strings (warcio, pywb) or numbers.
func ParseCDXJ(line string) (*Capture, error) {
	// keys may hold spaces (warcio.js writes non-http URLs verbatim): the
	// JSON starts at the first " {", the timestamp is the word before it
	i := strings.Index(line, " {")
	if i < 0 {
		return nil, fmt.Errorf("not a CDXJ line: %q", clip(line, 80))
	}
	head, js := line[:i], line[i+1:]
	j := strings.LastIndexByte(head, ' ')
	if j <= 0 {
		return nil, fmt.Errorf("not a CDXJ line: %q", clip(line, 80))
	}
	key, ts := head[:j], head[j+1:]
	var m map[string]any
	if err := json.Unmarshal([]byte(js), &m); err != nil {
		return nil, fmt.Errorf("bad CDXJ JSON: %v", err)
	}
	c := &Capture{URLKey: key, Timestamp: ts, JSON: js}
	c.URL, _ = m["url"].(string)
	c.Mime, _ = m["mime"].(string)
	c.Digest, _ = m["digest"].(string)
	c.Filename, _ = m["filename"].(string)
	c.Status = jsonString(m["status"])
	var err error
	if c.Offset, err = jsonInt(m, "offset"); err != nil {
		return nil, err
	}
	if c.Length, err = jsonInt(m, "length"); err != nil {
		return nil, err
	}
	return c, nil
}

func jsonString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return ""
}

func jsonInt(m map[string]any, k string) (int64, error) {
	switch x := m[k].(type) {
	case string:
		n, err := strconv.ParseInt(x, 10, 64)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("bad %s %q", k, x)
		}
		return n, nil
	case float64:
		if x < 0 || x != float64(int64(x)) || x > 1<<53 {
			return 0, fmt.Errorf("bad %s %v", k, x)
		}
		return int64(x), nil
	case nil:
		return 0, fmt.Errorf("no %s", k)
	}
	return 0, fmt.Errorf("bad %s %v", k, m[k])
}

// IndexFiles returns the CDXJ index files: indexes/*.cdx, *.cdxj and
// *.cdx.gz (ZipNum), in zip order.
func (r *Reader) IndexFiles() []string {
	var out []string
	for _, f := range r.zr.File {
		if !strings.HasPrefix(f.Name, IndexesDir) {
			continue
		}
		if isCDXName(f.Name) {
			out = append(out, f.Name)
		}
	}
	return out
}

func isCDXName(n string) bool {
	return strings.HasSuffix(n, ".cdx") || strings.HasSuffix(n, ".cdxj") || strings.HasSuffix(n, ".cdx.gz") || strings.HasSuffix(n, ".cdxj.gz")
}

// Captures calls fn for every index line of every index file, in file
// order; it reads only the indexes, never the WARCs.
func (r *Reader) Captures(fn func(*Capture) error) error {
	for _, name := range r.IndexFiles() {
		if err := r.eachCapture(name, fn); err != nil {
			return err
		}
	}
	return nil
}

func (r *Reader) openIndex(name string) (io.ReadCloser, error) {
	rc, err := r.open(r.files[name])
	if err != nil {
		return nil, err
	}
	if !strings.HasSuffix(name, ".gz") {
		return rc, nil
	}
	gz, err := gzip.NewReader(bufio.NewReaderSize(rc, 64<<10))
	if err != nil {
		rc.Close()
		return nil, err
	}
	return struct {
		io.Reader
		io.Closer
	}{gz, rc}, nil
}

func (r *Reader) eachCapture(name string, fn func(*Capture) error) error {
	rc, err := r.openIndex(name)
	if err != nil {
		return fmt.Errorf("%s: %s: %v", r.name, name, err)
	}
	defer rc.Close()
	err = eachLine(rc, func(_ int, line []byte) error {
		if len(line) == 0 || line[0] == '!' {
			return nil
		}
		c, err := ParseCDXJ(string(line))
		if err != nil {
			return err
		}
		c.Index = name
		return fn(c)
	})
	if err != nil {
		return fmt.Errorf("%s: %s: %w", r.name, name, err)
	}
	return nil
}

// IdxLine is one line of a ZipNum secondary index (indexes/*.idx): the
// first key of a block of the .cdx.gz and where the block lies.
type IdxLine struct {
	Key      string // "urlkey timestamp" of the block's first line
	Offset   int64
	Length   int64
	Digest   string
	Filename string
}

// readIdx reads a ZipNum .idx file: its !meta line (may be empty) and the
// block lines.
func (r *Reader) readIdx(name string) (meta map[string]any, lines []IdxLine, err error) {
	rc, err := r.open(r.files[name])
	if err != nil {
		return nil, nil, err
	}
	defer rc.Close()
	err = eachLine(rc, func(n int, line []byte) error {
		s := string(line)
		if s == "" {
			return nil
		}
		if strings.HasPrefix(s, "!meta") {
			i := strings.Index(s, " {")
			if i < 0 {
				return fmt.Errorf("bad !meta line")
			}
			return json.Unmarshal([]byte(s[i+1:]), &meta)
		}
		i := strings.Index(s, " {")
		if i < 0 {
			return fmt.Errorf("not an IDX line: %q", clip(s, 80))
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(s[i+1:]), &m); err != nil {
			return fmt.Errorf("bad IDX JSON: %v", err)
		}
		l := IdxLine{Key: s[:i]}
		if l.Offset, err = jsonInt(m, "offset"); err != nil {
			return err
		}
		if l.Length, err = jsonInt(m, "length"); err != nil {
			return err
		}
		l.Digest, _ = m["digest"].(string)
		l.Filename, _ = m["filename"].(string)
		if l.Filename == "" && meta != nil {
			l.Filename, _ = meta["filename"].(string)
		}
		lines = append(lines, l)
		return nil
	})
	return meta, lines, err
}

// rangeOf returns a reader of bytes [off, off+n) of a STORED entry,
// straight from the WACZ (a ranged read).
func (r *Reader) rangeOf(f *zip.File, off, n int64) (io.Reader, error) {
	if f.Method != zip.Store {
		return nil, fmt.Errorf("%s is compressed (method %d), so it has no random access", f.Name, f.Method)
	}
	if err := r.checked(f); err != nil {
		return nil, err
	}
	start, err := f.DataOffset()
	if err != nil {
		return nil, err
	}
	// checked: the entry's data lies inside the file
	if size := int64(f.UncompressedSize64); f.UncompressedSize64 > uint64(r.size) || !within(off, n, size) {
		return nil, fmt.Errorf("range %d+%d outside %s (%d bytes)", off, n, f.Name, f.UncompressedSize64)
	}
	return io.NewSectionReader(r.ra, start+off, n), nil
}

// Find returns the capture of url closest in time to ts (the latest one
// when ts is zero), using the ZipNum .idx when there is one (reading only
// the blocks that can hold the key), else scanning the CDXJ files.
// Revisit records are followed to the capture they refer to (same digest).
func (r *Reader) Find(url string, ts time.Time) (*Capture, error) {
	return r.find(url, ts, false)
}

// find is Find; nested is set when it looks for the original of a revisit.
func (r *Reader) find(url string, ts time.Time, nested bool) (*Capture, error) {
	key := surt.Key(url)
	var cands []*Capture
	collect := func(c *Capture) error {
		if c.URLKey == key {
			cands = append(cands, c)
		}
		return nil
	}
	for _, name := range r.IndexFiles() {
		idx := strings.TrimSuffix(strings.TrimSuffix(name, ".gz"), ".cdx") + ".idx"
		if strings.HasSuffix(name, ".gz") && r.files[idx] != nil {
			if err := r.findZipNum(name, idx, key, collect); err != nil {
				return nil, err
			}
			continue
		}
		if err := r.eachCapture(name, collect); err != nil {
			return nil, err
		}
	}
	c, err := pickCapture(cands, url, ts)
	var me *MissingOriginalError
	if errors.As(err, &me) && me.revisit != nil && !nested {
		// a revisit of another URL (deduplication by digest): the record
		// names the capture it refers to
		if orig := r.refersTo(me.revisit); orig != nil {
			return orig, nil
		}
	}
	return c, err
}

// refersTo finds the capture a revisit names with WARC-Refers-To-Target-URI
// and WARC-Refers-To-Date, if it is in the archive with the same payload
// digest.
func (r *Reader) refersTo(rv *Capture) *Capture {
	rec, err := r.Record(rv)
	if err != nil {
		return nil
	}
	u, d := rec.Header.Get(record.FieldRefersToTargetURI), rec.Header.Get(record.FieldRefersToDate)
	if u == "" || d == "" {
		return nil
	}
	t, err := record.ParseDate(d)
	if err != nil {
		return nil
	}
	orig, err := r.find(u, t, true)
	if err != nil || orig.Mime == "warc/revisit" || orig.Digest != rv.Digest {
		return nil
	}
	return orig
}

func pickCapture(cands []*Capture, url string, ts time.Time) (*Capture, error) {
	closest := func(ok func(*Capture) bool) *Capture {
		var best *Capture
		var bestT time.Time
		for _, c := range cands {
			if !ok(c) {
				continue
			}
			t, _, err := record.ParseTimestamp(c.Timestamp)
			if err != nil {
				continue
			}
			better := best == nil
			if !better && ts.IsZero() {
				better = t.After(bestT)
			} else if !better {
				better = absDur(t.Sub(ts)) < absDur(bestT.Sub(ts))
			}
			if better {
				best, bestT = c, t
			}
		}
		return best
	}
	best := closest(func(*Capture) bool { return true })
	if best == nil {
		return nil, fmt.Errorf("%s: %w", url, ErrNotFound)
	}
	if best.Mime == "warc/revisit" {
		if best.Digest != "" {
			if orig := closest(func(c *Capture) bool { return c.Mime != "warc/revisit" && c.Digest == best.Digest }); orig != nil {
				return orig, nil
			}
		}
		return nil, &MissingOriginalError{URL: url, Timestamp: best.Timestamp, Digest: best.Digest, revisit: best}
	}
	return best, nil
}

// MissingOriginalError is Find's error for a revisit whose original capture
// (same URL, same payload digest) is not in the archive.
type MissingOriginalError struct {
	URL, Timestamp, Digest string
	revisit                *Capture
}

func (e *MissingOriginalError) Error() string {
	d := e.Digest
	if d == "" {
		d = "none"
	}
	return fmt.Sprintf("%s: the capture of %s is a revisit of an earlier one (payload digest %s) that is not in this archive", e.URL, e.Timestamp, d)
}

// findZipNum binary-searches the idx for key and scans the blocks that can
// hold it.
func (r *Reader) findZipNum(cdxName, idxName, key string, fn func(*Capture) error) error {
	_, lines, err := r.readIdx(idxName)
	if err != nil {
		return fmt.Errorf("%s: %s: %v", r.name, idxName, err)
	}
	// first block whose first key is >= key; the key may start in the
	// block before it
	i := sort.Search(len(lines), func(i int) bool { return lines[i].Key >= key })
	if i > 0 {
		i--
	}
	f := r.files[cdxName]
	for ; i < len(lines); i++ {
		l := lines[i]
		if k, _, _ := strings.Cut(l.Key, " "); k > key {
			break
		}
		if fn := path.Base(cdxName); l.Filename != "" && l.Filename != fn {
			continue
		}
		rd, err := r.rangeOf(f, l.Offset, l.Length)
		if err != nil {
			return fmt.Errorf("%s: %s: block at %d: %v", r.name, cdxName, l.Offset, err)
		}
		gz, err := gzip.NewReader(rd)
		if err != nil {
			return fmt.Errorf("%s: %s: block at %d: %v", r.name, cdxName, l.Offset, err)
		}
		err = eachLine(gz, func(_ int, line []byte) error {
			c, err := ParseCDXJ(string(line))
			if err != nil {
				return err
			}
			c.Index = cdxName
			return fn(c)
		})
		if err != nil {
			return fmt.Errorf("%s: %s: block at %d: %v", r.name, cdxName, l.Offset, err)
		}
	}
	return nil
}

// Record reads the record a capture points to with one ranged read of its
// STORED WARC. The record's block is read from the returned record; at its
// end the rest of the record (CRLF CRLF, the gzip trailer and its CRC) is
// checked. Errors, those of the block's reads included, name the WACZ, the
// WARC in it and the record's offset in the WARC.
func (r *Reader) Record(c *Capture) (*record.Record, error) {
	f := r.files[ArchiveDir+c.Filename]
	if f == nil {
		return nil, fmt.Errorf("%s: no %s%s for %s", r.name, ArchiveDir, c.Filename, c.URL)
	}
	rd, err := r.rangeOf(f, c.Offset, c.Length)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", r.name, err)
	}
	// problems name the WACZ and the WARC in it, and the record's offset
	// in that WARC (the reader counts from the start of the range)
	wr, err := warc.NewReader(rd, warc.WithFilename(r.name+": "+ArchiveDir+c.Filename), warc.WithPolicy(record.Fail))
	if err != nil {
		return nil, err
	}
	rec, err := wr.Next()
	if err != nil {
		if err == io.EOF {
			err = fmt.Errorf("%s: %s%s: no record at offset %d", r.name, ArchiveDir, c.Filename, c.Offset)
		}
		return nil, shiftProblem(err, c.Offset)
	}
	if rec.Block == nil {
		rec.Block = bytes.NewReader(nil)
	}
	rec.Block = &checkedBlock{r: rec.Block, wr: wr}
	shiftBlock(rec, c.Offset)
	return rec, nil
}

// checkedBlock is the block of a record read with Reader.Record: at the
// block's end it reads on to the end of the record's range, so that what
// follows the block (CRLF CRLF, the gzip trailer with its CRC) is checked
// too and damage is an error rather than a silently changed capture.
type checkedBlock struct {
	r    io.Reader
	wr   *warc.Reader
	done bool
}

func (b *checkedBlock) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err == io.EOF && !b.done {
		b.done = true
		if _, nerr := b.wr.Next(); nerr != io.EOF && nerr != nil {
			return n, nerr
		}
	}
	return n, err
}

// Payload returns the HTTP payload of a response record (the entity body
// with the transfer coding removed, and the content coding too when decode
// is set), or the block of a resource record, plus the HTTP head (nil for
// resources).
func Payload(rec *record.Record, decode bool) (io.Reader, *httpmsg.Head, error) {
	block := rec.Block
	if block == nil {
		block = bytes.NewReader(nil)
	}
	if httpmsg.MediaType(rec.ContentType()) != "application/http" {
		return block, nil, nil
	}
	br := bufio.NewReaderSize(block, 32<<10)
	h, err := httpmsg.ReadHead(br)
	if err != nil {
		return nil, nil, err
	}
	var body io.Reader = br
	if h.Chunked() {
		body = httpmsg.NewChunkedReader(body)
	}
	if decode {
		codings := h.ContentEncoding()
		for i := len(codings) - 1; i >= 0; i-- {
			dec, err := httpmsg.Decoder(body, codings[i])
			if err != nil {
				return nil, h, err
			}
			body = dec
		}
	}
	return body, h, nil
}
