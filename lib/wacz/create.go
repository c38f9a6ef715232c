package wacz

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/arcport/arcport/lib/arc"
	"github.com/arcport/arcport/lib/record"
	"github.com/arcport/arcport/lib/warc"
	"github.com/klauspost/compress/gzip"
)

// Options configure a Writer.
type Options struct {
	// Title and Description go to datapackage.json and webarchive.yaml.
	Title, Description string
	// Seeds are the main pages (--url), in order; the first is mainPageUrl.
	Seeds []string
	// PageList, when not nil, replaces page detection (--pages); its
	// header's id and title are used for pages.jsonl.
	PageList       []PageRequest
	PageListHeader *PagesHeader
	// Text extracts page text into pages.jsonl.
	Text bool
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
	// TempDir is where spill and sort files go ("" : the system default).
	TempDir string
}

// Stats counts what a Writer wrote.
type Stats struct {
	Inputs     int
	Records    int   // records written to archive/
	Captures   int   // index lines
	Pages      int   // pages in pages.jsonl
	CopiedRaw  int64 // bytes of gzip members copied without recompression
	Reencoded  int   // records compressed again
	ArchiveLen int64 // bytes in archive/
}

// Writer builds a WACZ: AddInput for each WARC or ARC input, then Close.
type Writer struct {
	opts  Options
	zw    *ZipWriter
	start time.Time

	det   *Detector
	caps  captureTimes
	index *indexSet
	names map[string]bool

	resources []Resource
	stats     Stats
	err       error
	closed    bool
}

// NewWriter returns a Writer writing a WACZ to f (a new, empty file; the
// caller makes it appear atomically).
func NewWriter(f ZipFile, opts Options) (*Writer, error) {
	if opts.HashAlg == "" {
		opts.HashAlg = "sha256"
	}
	opts.HashAlg = strings.ToLower(opts.HashAlg)
	if opts.HashAlg != "sha256" && opts.HashAlg != "md5" {
		return nil, fmt.Errorf("unsupported hash %q (sha256 or md5)", opts.HashAlg)
	}
	if opts.Software == "" {
		opts.Software = "arcport waczpack"
	}
	if opts.Created.IsZero() {
		opts.Created = time.Now()
	}
	w := &Writer{
		opts:  opts,
		zw:    NewZipWriter(f),
		start: opts.Created,
		det:   NewDetector(opts.Text),
		caps:  captureTimes{},
		index: newIndexSet(opts.TempDir),
		names: map[string]bool{},
	}
	w.zw.SetModTime(opts.Created)
	return w, nil
}

func (w *Writer) warn(format string, a ...any) {
	if w.opts.Warn != nil {
		w.opts.Warn(fmt.Sprintf(format, a...))
	}
}

// Stats returns the counts so far.
func (w *Writer) Stats() Stats { return w.stats }

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
	br := bufio.NewReaderSize(r, 64<<10)
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
	in := &inputRun{w: w, name: displayName(name), sink: sink}
	switch kind {
	case KindWARCGzip:
		err = in.raw(br)
	case KindWARC, KindWARCZstd:
		var wr *warc.Reader
		wr, err = warc.NewReader(br, in.readerOpts()...)
		if err == nil {
			err = in.reencode(wr, nil, nil)
		}
	case KindARC, KindARCGzip:
		err = in.arc(br)
	}
	if err == nil && in.fatal != nil {
		err = in.fatal
	}
	if err != nil {
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
	for i := 1; w.names[cand]; i++ {
		cand = fmt.Sprintf("%s-%d", b, i)
	}
	w.names[cand] = true
	return cand
}

// inputRun is the state of one input being added.
type inputRun struct {
	w     *Writer
	name  string
	sink  *archiveSink
	fatal error

	mu      sync.Mutex
	pending []*pendingRec // records given to the WARC writer, awaiting OnWritten
	base    int64         // sink offset where the WARC writer's output starts
}

// pendingRec is a record read and analysed, waiting for its place.
type pendingRec struct {
	rec  *record.Record
	line lineBuilder
}

func (in *inputRun) readerOpts() []warc.Option {
	return []warc.Option{warc.WithFilename(in.name), warc.WithPolicy(record.Warn), warc.WithProblemFunc(in.problem)}
}

// problem sorts reader problems: damage that loses data (truncation,
// skipped bytes) stops the run unless Lenient; the rest is a warning.
func (in *inputRun) problem(p *record.Problem) {
	if p.File == "" {
		p.File = in.name
	}
	lossy := p.Skipped || strings.Contains(p.Msg, "truncated")
	if strings.Contains(p.Msg, "member holds more than one record") {
		return // handled: such members are compressed again
	}
	if lossy && !in.w.opts.Lenient && in.fatal == nil {
		in.fatal = p
		return
	}
	in.w.warn("warning: %v", p)
}

// tapReader copies every byte read from r to w (the raw copy of gzip
// members into the zip) until stopped.
type tapReader struct {
	r       io.Reader
	w       io.Writer
	stopped bool
	err     error
}

func (t *tapReader) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if n > 0 && !t.stopped {
		if _, werr := t.w.Write(p[:n]); werr != nil {
			t.err = werr
			return n, werr
		}
	}
	return n, err
}

// raw adds a WARC made of gzip members: the members are copied into the zip
// as they are while the decompressed records are indexed. When a member
// turns out to hold more than one record, the copy is withdrawn from that
// member on and the rest of the input is compressed again, one record per
// member.
func (in *inputRun) raw(src io.Reader) error {
	tap := &tapReader{r: src, w: in.sink}
	wr, err := warc.NewReader(tap, in.readerOpts()...)
	if err != nil {
		return err
	}
	var prev *pendingRec
	for {
		rec, err := wr.Next()
		if tap.err != nil {
			return tap.err
		}
		if in.fatal != nil {
			return in.fatal
		}
		if prev != nil {
			p := prev.rec
			if p.DiskLength == 0 || (err == nil && rec.Offset == p.Offset) {
				return in.switchToReencode(tap, wr, prev, rec, err)
			}
			if err := in.place(prev, p.Offset, p.Offset+p.DiskLength); err != nil {
				return err
			}
			in.w.stats.CopiedRaw += p.DiskLength
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		pr := in.analyze(rec)
		if rec.Block != nil {
			if _, err := io.Copy(io.Discard, rec.Block); err != nil {
				return err
			}
		}
		in.finish(pr)
		prev = pr
	}
}

// analyze starts indexing and page detection of rec: rec.Block is replaced
// by a reader that feeds both as it is read.
func (in *inputRun) analyze(rec *record.Record) *pendingRec {
	pr := &pendingRec{rec: rec}
	var ws []io.Writer
	pr.line = newLineBuilder(rec)
	if lw := pr.line.Writer(); lw != nil {
		ws = append(ws, lw)
	}
	if dw := in.w.det.Begin(rec); dw != nil {
		ws = append(ws, dw)
	}
	if len(ws) > 0 && rec.Block != nil {
		rec.Block = io.TeeReader(rec.Block, io.MultiWriter(ws...))
	}
	return pr
}

// finish completes the analysis once the block was read.
func (in *inputRun) finish(pr *pendingRec) {
	rec := pr.rec
	in.w.det.End(rec)
	switch rec.Type() {
	case record.Response, record.Resource, record.Revisit:
		if t, err := rec.Date(); err == nil && rec.TargetURI() != "" {
			in.w.caps.add(rec.TargetURI(), t)
		}
	}
	in.w.stats.Records++
}

// place records where a record ended up and emits its index line.
func (in *inputRun) place(pr *pendingRec, start, end int64) error {
	file, off, err := in.sink.Place(start, end)
	if err != nil {
		return err
	}
	if line, ok := pr.line.Line(file, off, end-start); ok {
		if err := in.w.index.add(line); err != nil {
			return err
		}
		in.w.stats.Captures++
	}
	return nil
}

// switchToReencode is called in raw mode when prev's gzip member holds more
// than one record: the raw copy from that member on is withdrawn, prev is
// read again from the withdrawn bytes, and it, cur and the rest of the
// input go through the WARC writer.
func (in *inputRun) switchToReencode(tap *tapReader, wr *warc.Reader, prev *pendingRec, cur *record.Record, curErr error) error {
	tap.stopped = true
	sp, err := in.sink.Rewind(prev.rec.Offset)
	if err != nil {
		return err
	}
	defer sp.Close()
	again, err := warc.NewReader(sp, warc.WithFilename(in.name), warc.WithPolicy(record.Ignore))
	if err != nil {
		return err
	}
	first, err := again.Next()
	if err != nil {
		return fmt.Errorf("%s: record at offset %d: cannot read it again: %v", in.name, prev.rec.Offset, err)
	}
	in.w.stats.Records-- // counted again when written
	if curErr == io.EOF {
		return in.reencode(nil, first, nil)
	}
	if curErr != nil {
		return curErr
	}
	return in.reencode(wr, first, cur)
}

// reencode writes records through the WARC writer, gzip per record:
// first and cur (when not nil), then the rest of rd (when not nil).
func (in *inputRun) reencode(rd record.Reader, first, cur *record.Record) error {
	in.base = in.sink.Pos()
	ww := newRecordWriter(in.sink, func(rec *record.Record, off, n int64) {
		in.mu.Lock()
		defer in.mu.Unlock()
		if len(in.pending) == 0 || in.pending[0].rec != rec {
			if in.fatal == nil {
				in.fatal = fmt.Errorf("%s: internal error: WARC writer reported records out of order", in.name)
			}
			return
		}
		pr := in.pending[0]
		in.pending = in.pending[1:]
		if err := in.place(pr, in.base+off, in.base+off+n); err != nil && in.fatal == nil {
			in.fatal = err
		}
	})
	write := func(rec *record.Record) error {
		pr := in.analyze(rec)
		in.mu.Lock()
		in.pending = append(in.pending, pr)
		in.mu.Unlock()
		if err := ww.WriteRecord(rec); err != nil {
			return err
		}
		in.finish(pr)
		in.w.stats.Reencoded++
		in.mu.Lock()
		defer in.mu.Unlock()
		return in.fatal
	}
	var err error
	for _, rec := range []*record.Record{first, cur} {
		if rec != nil && err == nil {
			err = write(rec)
		}
	}
	for rd != nil && err == nil {
		var rec *record.Record
		rec, err = rd.Next()
		if err == io.EOF {
			err = nil
			break
		}
		if err == nil && in.fatal != nil {
			err = in.fatal
		}
		if err == nil {
			err = write(rec)
		}
	}
	if cerr := ww.Close(); err == nil {
		err = cerr
	}
	if err == nil && in.fatal != nil {
		err = in.fatal
	}
	if err == nil && len(in.pending) > 0 {
		err = fmt.Errorf("%s: internal error: %d records not reported written", in.name, len(in.pending))
	}
	return err
}

// arc adds an ARC input: its records are converted to WARC records and
// written gzip per record.
func (in *inputRun) arc(src io.Reader) error {
	ar, err := arc.NewReader(src, arc.WithName(in.name), arc.WithPolicy(record.Warn), arc.WithProblemFunc(in.problem))
	if err != nil {
		return err
	}
	conv := arc.NewConverter(ar, arc.WithSourceName(in.name), arc.WithSoftware(in.w.opts.Software))
	return in.reencode(conv, nil, nil)
}
