package wacz

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/arcport/arcport/lib/arc"
	"github.com/arcport/arcport/lib/cdx"
	"github.com/arcport/arcport/lib/record"
	"github.com/arcport/arcport/lib/warc"
	"github.com/klauspost/compress/gzip"
)

// Options configure a Writer.
type Options struct {
	// Title and Description go to datapackage.json (and webarchive.yaml).
	Title, Description string
	// DraftFiles also writes the files of the seed draft
	// (../shared/specs/web-archive-collection-format-draft.txt) at the
	// zip's root, listed in datapackage.json: webarchive.yaml (title, desc,
	// pages, the seeds as a page list) and pages.csv (url,date,title,id),
	// for tools that read that layout. Off by default: WACZ 1.1.1 has no
	// use for them, and py-wacz 0.6.0's `wacz validate` refuses any file at
	// the root but datapackage.json and datapackage-digest.json (it names
	// files by their last two path components). Appender keeps them when
	// the WACZ it appends to has them.
	DraftFiles bool
	// Seeds are the main pages (--url), in order; the first is mainPageUrl.
	Seeds []string
	// PageList, when not nil, replaces page detection (--pages); its
	// header's id and title are used for pages.jsonl.
	PageList       []PageRequest
	PageListHeader *PagesHeader
	// Text extracts page text into pages.jsonl (and reads pages whole).
	Text bool
	// Frames reads HTML pages whole, so that documents other pages embed
	// with <iframe> or <frame> are not listed as pages. Without it (and
	// without Text) a page is read up to its </title>, which is much
	// faster; frames are then told apart by their request records'
	// Sec-Fetch-Dest and by tags before the title only.
	Frames bool
	// HashAlg is the resource hash algorithm, "sha256" (default) or "md5".
	HashAlg string
	// Split cuts archive/ into WARC files of at most Split bytes (0: one
	// WARC per input). A single record larger than Split gets a file of
	// its own.
	Split int64
	// Software names the creating software in datapackage.json.
	Software string
	// Created is the creation time (zero: now).
	Created time.Time
	// Lenient keeps going on damaged input (truncated records, garbage),
	// reporting problems through Warn, instead of failing.
	Lenient bool
	// Warn receives warnings (nil: dropped).
	Warn func(string)
	// Damage, when not nil, receives each problem of damaged input that
	// Lenient went on past (one line each, "FILE: record at offset N:
	// reason", as waczpack index reports it); when nil they go to Warn
	// as "warning: ..." lines. Either way Stats.Damaged counts them.
	Damage func(error)
	// TempDir is where spill and sort files go ("" : the system default).
	TempDir string
	// PageMemory bounds the bytes of detected pages kept in memory (0:
	// DefaultPageMemory); past it pages go to temporary files in TempDir.
	PageMemory int
	// Verify inflates every gzip member of gzip-per-record input to its
	// end, checking its CRC, instead of skipping the parts that indexing
	// and page detection do not need.
	Verify bool
	// Signer, when not nil, signs datapackage-digest.json (sign.go). With
	// Created zero, datapackage.json's created is then the time the
	// manifest is written, not the start: a signing server such as authsign
	// refuses a created older than 10 minutes.
	Signer Signer
	// NoFastPath reads gzip-per-record input with lib/warc's reader only
	// (for tests comparing the two).
	NoFastPath bool
	// DeterministicIDs derives the record IDs of an ARC input's WARC
	// records from the input (arc.WithDeterministicIDs), as batch mode
	// needs for the same bytes on every run; otherwise they are random.
	DeterministicIDs bool
}

// Stats counts what a Writer wrote.
type Stats struct {
	Inputs    int
	Records   int   // records written to archive/
	Captures  int   // index lines
	Pages     int   // pages in pages.jsonl
	CopiedRaw int64 // bytes of gzip members copied without recompression
	Skipped   int   // members whose end was found without inflating them
	Handovers int   // times the fast path handed an input over to lib/warc
	// Parallel counts the members the parallel fast path decoded (on
	// other cores than the indexing one).
	Parallel   int64
	Reencoded  int   // records compressed again
	ArchiveLen int64 // bytes in archive/
	// PagesSpilled counts detected pages moved to temporary files when
	// they outgrew Options.PageMemory (a page may count more than once).
	PagesSpilled int
	// Damaged counts the problems of damaged input that Options.Lenient
	// went on past (each reported through Options.Damage or Warn).
	Damaged int
}

// Writer builds a WACZ: AddInput for each WARC or ARC input, then Close.
type Writer struct {
	opts  Options
	zw    *ZipWriter
	start time.Time

	det   *Detector
	caps  *captureTimes
	index *indexSet
	names map[string]bool
	// inputNames are the inputs as named in errors, for the warnings
	// about the collection as a whole.
	inputNames []string

	resources []Resource
	stats     Stats
	damageMu  sync.Mutex // guards stats.Damaged (problems come from several goroutines)
	rawWin    []byte     // the raw stream window, kept for the next input
	err       error
	closed    bool
	// dupFrom is the first number given to a WARC name met again (0: 1;
	// add numbers from 2, as merge does: the WACZ's own is the first).
	dupFrom int
	// autoCreated: Options.Created was left zero (signing then dates the
	// manifest when it is written, see finish).
	autoCreated bool
}

// NewWriter returns a Writer writing a WACZ to f (a new, empty file; the
// caller makes it appear atomically).
func NewWriter(f ZipFile, opts Options) (*Writer, error) {
	opts, autoCreated, err := checkOptions(opts)
	if err != nil {
		return nil, err
	}
	return newWriter(NewZipWriter(f), opts, autoCreated), nil
}

// checkOptions fills in the defaults of opts; autoCreated tells that
// Created was left zero.
func checkOptions(opts Options) (_ Options, autoCreated bool, _ error) {
	if opts.HashAlg == "" {
		opts.HashAlg = "sha256"
	}
	opts.HashAlg = strings.ToLower(opts.HashAlg)
	if opts.HashAlg != "sha256" && opts.HashAlg != "md5" {
		return opts, false, fmt.Errorf("unsupported hash %q (sha256 or md5)", opts.HashAlg)
	}
	if opts.Software == "" {
		opts.Software = "arcport waczpack"
	}
	autoCreated = opts.Created.IsZero()
	if autoCreated {
		opts.Created = time.Now()
	}
	return opts, autoCreated, nil
}

// newWriter returns a Writer writing to zw, opts already checked.
func newWriter(zw *ZipWriter, opts Options, autoCreated bool) *Writer {
	w := &Writer{
		autoCreated: autoCreated,
		opts:        opts,
		zw:          zw,
		start:       opts.Created,
		det:         NewDetector(opts.Text, opts.Frames),
		caps:        newCaptureTimes(requested(opts)),
		index:       newIndexSet(opts.TempDir),
		names:       map[string]bool{},
	}
	w.det.TempDir, w.det.Requested, w.det.MemLimit = opts.TempDir, w.caps.want, opts.PageMemory
	w.zw.SetModTime(opts.Created)
	return w
}

// takeWindow hands the kept raw stream window to an input (nil if none).
func (w *Writer) takeWindow() []byte {
	b := w.rawWin
	w.rawWin = nil
	return b
}

// damaged reports a problem of damaged input that Lenient goes on past,
// and counts it.
func (w *Writer) damaged(err error) {
	w.damageMu.Lock()
	w.stats.Damaged++
	w.damageMu.Unlock()
	if w.opts.Damage != nil {
		w.opts.Damage(err)
		return
	}
	w.warn("warning: %v", err)
}

func (w *Writer) warn(format string, a ...any) {
	if w.opts.Warn != nil {
		w.opts.Warn(fmt.Sprintf(format, a...))
	}
}

// requested lists the URLs asked for as pages.
func requested(opts Options) []string {
	out := append([]string(nil), opts.Seeds...)
	for _, r := range opts.PageList {
		out = append(out, r.URL)
	}
	return out
}

// Stats returns the counts so far.
func (w *Writer) Stats() Stats {
	w.damageMu.Lock()
	defer w.damageMu.Unlock()
	return w.stats
}

// InputKind is what an input holds, as told from its first bytes.
type InputKind int

// Input kinds.
const (
	KindUnknown InputKind = iota
	KindWARC
	KindWARCGzip // gzip members: copied as they are while each holds one record
	KindWARCZstd
	KindARC
	KindARCGzip
)

// String names the kind.
func (k InputKind) String() string {
	return [...]string{"unknown", "WARC", "WARC (gzip)", "WARC (zstd)", "ARC", "ARC (gzip)"}[k]
}

// SniffInput tells WARC from ARC, plain from gzip and zstd, by the first
// bytes of br (not consumed).
func SniffInput(br *bufio.Reader) (InputKind, error) {
	b, err := br.Peek(64 << 10)
	if len(b) == 0 {
		if err == io.EOF || err == nil {
			return KindUnknown, errors.New("empty input")
		}
		return KindUnknown, err
	}
	content := b
	gz := len(b) >= 2 && b[0] == 0x1f && b[1] == 0x8b
	zst := len(b) >= 4 && (b[0] == 0x28 && b[1] == 0xb5 && b[2] == 0x2f && b[3] == 0xfd ||
		b[0]&0xf0 == 0x50 && b[1] == 0x2a && b[2] == 0x4d && b[3] == 0x18)
	switch {
	case zst:
		return KindWARCZstd, nil
	case gz:
		// the first bytes only: a full inflater would decode a whole
		// block (up to 32 KiB) and set up its tables, which for 10,000
		// small inputs cost more than indexing them
		var z prefixInflater
		if z.reset(bytes.NewReader(b)) == nil && z.fill(16) == nil && len(z.out) >= 16 {
			content = z.out[:16]
			break
		}
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			return KindUnknown, fmt.Errorf("bad gzip header: %v", err)
		}
		buf := make([]byte, 16)
		n, _ := io.ReadFull(zr, buf)
		content = buf[:n]
	}
	content = bytes.TrimLeft(content, "\r\n")
	switch {
	case bytes.HasPrefix(content, []byte("WARC/")):
		if gz {
			return KindWARCGzip, nil
		}
		return KindWARC, nil
	case bytes.HasPrefix(content, []byte("filedesc:")):
		if gz {
			return KindARCGzip, nil
		}
		return KindARC, nil
	}
	return KindUnknown, fmt.Errorf("not a WARC or ARC file (starts with %q)", clip(string(content[:min(len(content), 24)]), 24))
}

// AddInput reads one WARC or ARC input (plain, gzip or zstd, told from the
// bytes) and adds its records to archive/ as one WARC (or several with
// Options.Split). name is the input's file name ("-" for stdin); it names
// the WARC in archive/ and appears in errors.
func (w *Writer) AddInput(name string, r io.Reader) error {
	if w.err != nil {
		return w.err
	}
	err := w.addInput(name, r)
	if err != nil {
		w.err = err
	}
	return err
}

func (w *Writer) addInput(name string, r io.Reader) error {
	w.stats.Inputs++
	if len(w.inputNames) < 4 {
		w.inputNames = append(w.inputNames, displayName(name))
	} else if len(w.inputNames) == 4 {
		w.inputNames = append(w.inputNames, "...")
	}
	pra, psize, par := parSource(r, w.opts)
	br := getReader64(r)
	defer putReader64(br)
	kind, err := SniffInput(br)
	if err != nil {
		return fmt.Errorf("%s: %v", displayName(name), err)
	}
	base := w.partBase(name)
	namer := func(i int) string { return base + ".warc.gz" }
	if w.opts.Split > 0 {
		namer = func(i int) string { return fmt.Sprintf("%s-%05d.warc.gz", base, i) }
	}
	sink := newArchiveSink(w.zw, w.opts.HashAlg, w.opts.Split, w.opts.TempDir, namer)
	in := newInputRun(w, displayName(name), sink)
	defer in.release()
	switch kind {
	case KindWARCGzip:
		if par {
			err = in.startPar(pra, psize)
		} else {
			err = in.startRaw(br)
		}
	case KindWARC, KindWARCZstd:
		var wr *warc.Reader
		wr, err = warc.NewReader(br, in.readerOpts()...)
		if err == nil {
			in.startReencode(wr)
		}
	case KindARC, KindARCGzip:
		var ar *arc.Reader
		ar, err = arc.NewReader(br, arc.WithName(in.name), arc.WithPolicy(record.Warn), arc.WithProblemFunc(in.problem))
		if err == nil {
			in.startReencode(arc.NewConverter(ar, arc.WithSourceName(in.name), arc.WithSoftware(w.opts.Software), arc.WithDeterministicIDs(w.opts.DeterministicIDs)))
		}
	}
	if err == nil {
		err = in.index()
	}
	if err != nil {
		in.abort()
		return err
	}
	if err := sink.Close(); err != nil {
		return err
	}
	for _, res := range sink.Resources() {
		w.resources = append(w.resources, res)
		w.stats.ArchiveLen += res.Bytes
	}
	return nil
}

// readers64 are 64 KiB buffered readers kept from input to input (10,000
// small inputs allocated and cleared three each).
var readers64 = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 64<<10) }}

func getReader64(r io.Reader) *bufio.Reader {
	br := readers64.Get().(*bufio.Reader)
	br.Reset(r)
	return br
}

func putReader64(br *bufio.Reader) {
	br.Reset(nil)
	readers64.Put(br)
}

func displayName(name string) string {
	if name == "" {
		return "-"
	}
	return name
}

// partBase derives a unique WARC base name from an input name.
func (w *Writer) partBase(name string) string {
	b := path.Base(filepath.ToSlash(name))
	if name == "" || name == "-" || b == "." || b == "/" {
		b = "data"
	}
	for _, ext := range []string{".gz", ".zst", ".warc", ".arc", ".open"} {
		b = strings.TrimSuffix(b, ext)
	}
	// archive names become CDXJ filenames and zip paths: keep them plain
	clean := []byte(b)
	for i, c := range clean {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			clean[i] = '_'
		}
	}
	b = string(clean)
	if b == "" {
		b = "data"
	}
	cand := b
	for i := max(w.dupFrom, 1); w.names[cand]; i++ {
		cand = fmt.Sprintf("%s-%d", b, i)
	}
	w.names[cand] = true
	return cand
}

// NewFileIndexer returns a CDX indexer for one WARC or ARC file (format
// told from the bytes) whose entries carry filename's base name, as
// warcio.js cdx-index prints them. ra, when not nil, gives random access to
// the same file (it makes lengths of uncompressed WARC records exact, and
// a gzip-per-record WARC is then read by the fast path of fastindex.go,
// which inflates only the WARC and HTTP heads).
// Damaged input is an error naming the file and offset.
//
// extra are cdx options for the lines themselves, applied on every path,
// the fast one included: cdx.WithFullDigest and cdx.WithARCDigests for
// cdxj-indexer's form (waczpack index --cdxj-indexer),
// cdx.WithReplayableRevisits. How records are read (cdx.WithSource,
// cdx.WithPrepared) is NewFileIndexer's business; a larger
// cdx.WithMaxRequestBody than the default is not honoured by the parallel
// fast path, which reads request bodies up to the default.
func NewFileIndexer(r io.Reader, ra io.ReaderAt, filename string, extra ...cdx.Option) (*cdx.Indexer, error) {
	name := displayName(filename)
	br := bufio.NewReaderSize(r, 64<<10)
	kind, err := SniffInput(br)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	base := path.Base(filepath.ToSlash(name))
	opts := append([]cdx.Option(nil), extra...)
	if ra != nil {
		opts = append(opts, cdx.WithSource(ra))
	}
	switch kind {
	case KindARC, KindARCGzip:
		ar, err := arc.NewReader(br, arc.WithName(name), arc.WithPolicy(record.Fail))
		if err != nil {
			return nil, err
		}
		return cdx.NewIndexer(ar, base, opts...), nil
	}
	if kind == KindWARCGzip && fastIndex {
		if size, ok := sizeOf(ra); ok {
			if !parDisabled && size >= parMinSize && runtime.GOMAXPROCS(0) >= 2 {
				pr := newParRecords(ra, size, name, extra...)
				opts = append(opts, cdx.WithPrepared(pr.prepared))
				return cdx.NewIndexer(pr, base, opts...), nil
			}
			return cdx.NewIndexer(newFastRecords(ra, size, name), base, opts...), nil
		}
	}
	wr, err := warc.NewReader(br, warc.WithFilename(name), warc.WithPolicy(record.Fail))
	if err != nil {
		return nil, err
	}
	return cdx.NewIndexer(wr, base, opts...), nil
}

// fastIndex makes NewFileIndexer take the fast path (fastindex.go) for a
// gzip-per-record WARC it can read in place; tests turn it off to compare.
var fastIndex = true

// sizeOf returns the size of a file read in place (nil: none).
func sizeOf(ra io.ReaderAt) (int64, bool) {
	switch x := ra.(type) {
	case nil:
		return 0, false
	case interface{ Size() int64 }:
		return x.Size(), true
	case interface{ Stat() (os.FileInfo, error) }:
		if st, err := x.Stat(); err == nil && st.Mode().IsRegular() {
			return st.Size(), true
		}
	}
	return 0, false
}
