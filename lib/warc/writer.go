package warc

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/arcport/arcport/lib/internal/compio"
	"github.com/arcport/arcport/lib/record"
)

// MaxMemoryBlock is the largest block the Writer holds in memory (and
// compresses in parallel); larger blocks are spilled to a temporary file and
// compressed inline.
const MaxMemoryBlock = 1 << 20

// headroom is the space reserved before a block in its buffer for the
// header, so the block is not copied once the header is known.
const headroom = 8 << 10

// WriterOption configures a Writer.
type WriterOption func(*Writer)

// WithVersion sets the version line: "WARC/1.1" (default) or "WARC/1.0"
// ("1.1" and "1.0" are accepted too).
func WithVersion(v string) WriterOption {
	return func(w *Writer) {
		if !strings.HasPrefix(v, "WARC/") {
			v = "WARC/" + v
		}
		w.version = v
	}
}

// WithCompression sets the container: compio.Gzip (default, one member
// per record), compio.Zstd (one frame per record) or compio.Plain.
func WithCompression(f compio.Format) WriterOption { return func(w *Writer) { w.opt.Format = f } }

// WithLevel sets the compression level (see compio.WriterOptions.Level).
func WithLevel(n int) WriterOption { return func(w *Writer) { w.opt.Level = n } }

// WithConcurrency sets how many records are compressed at once (default
// GOMAXPROCS).
func WithConcurrency(n int) WriterOption { return func(w *Writer) { w.opt.Concurrency = n } }

// WithZstdDict sets a zstd dictionary, written first as the IIPC .warc.zst
// dictionary frame. It implies zstd unless another compression is set
// explicitly, which is an error.
func WithZstdDict(dict []byte) WriterOption { return func(w *Writer) { w.opt.Dict = dict } }

// WithIDFunc sets the function that makes WARC-Record-IDs for records that
// have none (for deterministic output). It must return the full field value,
// e.g. "<urn:uuid:...>". The default is a random (version 4) UUID.
func WithIDFunc(f func(*record.Record) string) WriterOption { return func(w *Writer) { w.idFunc = f } }

// OnWritten sets a function called once each record has been written, in
// the order of WriteRecord calls and never concurrently with itself (but
// possibly from another goroutine), with the record's offset and length in
// the output. rec.Header then holds the fields as written. A record must not
// be modified between WriteRecord and its OnWritten call.
func OnWritten(f func(rec *record.Record, offset, length int64)) WriterOption {
	return func(w *Writer) { w.onWritten = f }
}

// WithTempDir sets the directory for spilling large blocks (default
// os.TempDir()).
func WithTempDir(dir string) WriterOption { return func(w *Writer) { w.tempDir = dir } }

// Writer writes WARC records, one gzip member or zstd frame per record,
// compressed in parallel and written in order. It implements record.Writer.
//
// For each record it writes WARC-Type, WARC-Record-ID and WARC-Date first
// (filling the ID and date when absent), then the other fields in the order
// given, then WARC-Payload-Digest, WARC-Block-Digest (sha1, base32, computed
// when absent), Content-Type and Content-Length, which is always the actual
// length of the block read.
type Writer struct {
	version   string
	opt       compio.WriterOptions
	idFunc    func(*record.Record) string
	onWritten func(*record.Record, int64, int64)
	tempDir   string

	mw     *compio.MemberWriter
	err    error
	closed bool

	dg      *Digester
	hdr     []byte
	sum     []byte
	spill   *os.File
	copyBuf []byte
}

// NewWriter returns a Writer writing to w. Option errors (a bad version, a
// dictionary without zstd) and the error of writing a dictionary frame are
// returned by the first WriteRecord or Close.
func NewWriter(w io.Writer, opts ...WriterOption) *Writer {
	wr := &Writer{version: record.WARC11, opt: compio.WriterOptions{Format: -1}}
	for _, o := range opts {
		o(wr)
	}
	if wr.opt.Format == -1 {
		wr.opt.Format = compio.Gzip
		if len(wr.opt.Dict) > 0 {
			wr.opt.Format = compio.Zstd
		}
	}
	if wr.version != record.WARC11 && wr.version != record.WARC10 {
		wr.err = fmt.Errorf("warc: unsupported version %q (want WARC/1.1 or WARC/1.0)", wr.version)
		return wr
	}
	if wr.onWritten != nil {
		f := wr.onWritten
		wr.opt.OnMember = func(tag any, off, n int64) { f(tag.(*record.Record), off, n) }
	}
	mw, err := compio.NewMemberWriter(w, wr.opt)
	if err != nil {
		wr.err = fmt.Errorf("warc: %w", err)
		return wr
	}
	wr.mw = mw
	wr.dg = newSHA1Digester()
	return wr
}

// special fields are written in fixed places, not in the pass-through loop.
func special(name string) bool {
	switch {
	case strings.EqualFold(name, record.FieldType), strings.EqualFold(name, record.FieldRecordID),
		strings.EqualFold(name, record.FieldDate), strings.EqualFold(name, record.FieldContentLength),
		strings.EqualFold(name, record.FieldContentType), strings.EqualFold(name, record.FieldBlockDigest),
		strings.EqualFold(name, record.FieldPayloadDigest):
		return true
	}
	return false
}

func checkField(name, value string) error {
	if name == "" || strings.ContainsAny(name, notInName) {
		return fmt.Errorf("warc: bad field name %q", name)
	}
	if strings.ContainsAny(value, "\r\n") {
		return fmt.Errorf("warc: field %s: value contains a line break", name)
	}
	return nil
}

// WriteRecord writes rec, reading its Block to the end. It fills
// WARC-Record-ID, WARC-Date, the digests and Content-Length when absent,
// and sets rec.Version and rec.Header to what was written. An error about
// the record itself (no WARC-Type, a line break in a field) leaves the
// Writer usable; output errors are sticky.
func (w *Writer) WriteRecord(rec *record.Record) error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return errors.New("warc: WriteRecord after Close")
	}
	typ := rec.Header.Get(record.FieldType)
	if typ == "" {
		return errors.New("warc: record has no WARC-Type")
	}
	for _, f := range rec.Header {
		if err := checkField(f.Name, f.Value); err != nil {
			return err
		}
	}
	kind := KindOf(record.Type(typ), rec.Header.Get(record.FieldContentType))
	w.dg.resetSHA1(kind)

	// Read the block after the header's headroom.
	buf := w.mw.Buffer()
	if cap(buf.B) < headroom+4096 {
		buf.B = make([]byte, 0, headroom+64<<10)
	}
	buf.B = buf.B[:headroom]
	spilled := false
	var size int64
	if rec.Block != nil {
		empty := 0
		for {
			if len(buf.B)-headroom > MaxMemoryBlock {
				spilled = true
				break
			}
			if len(buf.B) == cap(buf.B) {
				buf.B = append(buf.B, 0)[:len(buf.B)]
			}
			n, err := rec.Block.Read(buf.B[len(buf.B):cap(buf.B)])
			if n > 0 {
				w.dg.Write(buf.B[len(buf.B) : len(buf.B)+n])
				buf.B = buf.B[:len(buf.B)+n]
				empty = 0
			} else if err == nil {
				if empty++; empty > 100 {
					err = io.ErrNoProgress
				}
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				w.mw.Release(buf)
				return fmt.Errorf("warc: reading block: %w", err)
			}
		}
	}
	if spilled {
		var err error
		if size, err = w.spillBlock(buf.B[headroom:], rec.Block); err != nil {
			w.mw.Release(buf)
			return err
		}
	} else {
		size = int64(len(buf.B) - headroom)
	}

	// Header.
	w.hdr = w.appendHeader(w.hdr[:0], rec, typ, kind, size)
	if w.onWritten != nil {
		w.setHeader(rec)
	}
	rec.Version = w.version

	if spilled {
		w.mw.Release(buf)
		body := io.NewSectionReader(w.spill, 0, size)
		r := io.MultiReader(bytesReader(w.hdr), body, strings.NewReader("\r\n\r\n"))
		if err := w.mw.WriteInline(r, rec); err != nil {
			w.err = fmt.Errorf("warc: %w", err)
			return w.err
		}
		return nil
	}
	if len(w.hdr) <= headroom {
		buf.Start = headroom - len(w.hdr)
		copy(buf.B[buf.Start:], w.hdr)
	} else {
		nb := w.mw.Buffer()
		nb.B = append(append(nb.B, w.hdr...), buf.B[headroom:]...)
		w.mw.Release(buf)
		buf = nb
	}
	buf.B = append(buf.B, "\r\n\r\n"...)
	if err := w.mw.Submit(buf, rec); err != nil {
		w.err = fmt.Errorf("warc: %w", err)
		return w.err
	}
	return nil
}

type byteReader struct {
	b []byte
}

func (r *byteReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.b)
	r.b = r.b[n:]
	return n, nil
}

func bytesReader(b []byte) io.Reader { return &byteReader{b} }

// spillBlock writes head and the rest of r (hashing it) to the reusable
// temporary file, returning the block size.
func (w *Writer) spillBlock(head []byte, r io.Reader) (int64, error) {
	if w.spill == nil {
		f, err := compio.CreateSpool(w.tempDir, "arcport-warc-*.tmp")
		if err != nil {
			return 0, fmt.Errorf("warc: spilling a large block: %w", err)
		}
		w.spill = f
		w.copyBuf = make([]byte, 256<<10)
	}
	f := w.spill
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return 0, fmt.Errorf("warc: spill file: %w", err)
	}
	if err := f.Truncate(0); err != nil {
		return 0, fmt.Errorf("warc: spill file: %w", err)
	}
	if _, err := f.Write(head); err != nil {
		return 0, fmt.Errorf("warc: spill file: %w", err)
	}
	n, err := io.CopyBuffer(io.MultiWriter(f, w.dg), onlyReader{r}, w.copyBuf)
	if err != nil {
		return 0, fmt.Errorf("warc: spilling a large block: %w", err)
	}
	return int64(len(head)) + n, nil
}

// onlyReader hides WriterTo so CopyBuffer uses our buffer.
type onlyReader struct{ io.Reader }

// appendHeader appends the record header, ending with the blank line.
func (w *Writer) appendHeader(b []byte, rec *record.Record, typ string, kind PayloadKind, size int64) []byte {
	h := rec.Header
	b = append(b, w.version...)
	b = append(b, "\r\nWARC-Type: "...)
	b = append(b, typ...)
	b = append(b, "\r\nWARC-Record-ID: "...)
	if id := h.Get(record.FieldRecordID); id != "" {
		b = append(b, id...)
	} else if w.idFunc != nil {
		b = append(b, w.idFunc(rec)...)
	} else {
		b = appendUUID(b)
	}
	b = append(b, "\r\nWARC-Date: "...)
	if d := h.Get(record.FieldDate); d != "" {
		b = append(b, d...)
	} else {
		now := time.Now().UTC()
		if w.version == record.WARC10 {
			b = now.AppendFormat(b, "2006-01-02T15:04:05Z")
		} else {
			b = now.AppendFormat(b, "2006-01-02T15:04:05.000000Z")
		}
	}
	b = append(b, "\r\n"...)
	for _, f := range h {
		if special(f.Name) {
			continue
		}
		b = append(b, f.Name...)
		b = append(b, ": "...)
		b = append(b, f.Value...)
		b = append(b, "\r\n"...)
	}
	if pd := h.Get(record.FieldPayloadDigest); pd != "" {
		b = append(append(append(b, "WARC-Payload-Digest: "...), pd...), "\r\n"...)
	} else if w.wantPayloadDigest(record.Type(typ), kind) {
		b = append(b, "WARC-Payload-Digest: "...)
		b = w.appendPayloadDigest(b)
		b = append(b, "\r\n"...)
	}
	if bd := h.Get(record.FieldBlockDigest); bd != "" {
		b = append(append(append(b, "WARC-Block-Digest: "...), bd...), "\r\n"...)
	} else {
		b = append(b, "WARC-Block-Digest: "...)
		b = appendSHA1B32(b, w.dg.block, &w.sum)
		b = append(b, "\r\n"...)
	}
	if ct := h.Get(record.FieldContentType); ct != "" {
		b = append(append(append(b, "Content-Type: "...), ct...), "\r\n"...)
	}
	b = append(b, "Content-Length: "...)
	b = strconv.AppendInt(b, size, 10)
	return append(b, "\r\n\r\n"...)
}

// wantPayloadDigest says whether to add a WARC-Payload-Digest: for HTTP
// requests and responses, revisits whose block has a body after the HTTP
// head, and resource records.
func (w *Writer) wantPayloadDigest(t record.Type, kind PayloadKind) bool {
	switch t {
	case record.Response, record.Request:
		return kind == HTTPPayload
	case record.Revisit:
		return kind == HTTPPayload && w.dg.BodyLen() > 0
	case record.Resource:
		return true
	}
	return false
}

func (w *Writer) appendPayloadDigest(b []byte) []byte {
	d := w.dg
	h := d.payload
	if d.shared() {
		h = d.block
	} else if d.chunked && (d.dc.Err() != nil || !d.dc.Done()) {
		h = d.raw
	}
	return appendSHA1B32(b, h, &w.sum)
}

// setHeader sets rec.Header to the fields just written (parsed back from
// w.hdr, which holds them exactly).
func (w *Writer) setHeader(rec *record.Record) {
	s := string(w.hdr)
	_, s, _ = strings.Cut(s, "\r\n")
	hdr := make(record.Header, 0, len(rec.Header)+4)
	for {
		line, rest, _ := strings.Cut(s, "\r\n")
		if line == "" {
			break
		}
		name, value, _ := strings.Cut(line, ": ")
		hdr = append(hdr, record.Field{Name: name, Value: value})
		s = rest
	}
	rec.Header = hdr
}

const hexDigits = "0123456789abcdef"

// appendUUID appends "<urn:uuid:...>" with a random (version 4) UUID.
func appendUUID(b []byte) []byte {
	var u uuid.UUID
	if _, err := rand.Read(u[:]); err != nil {
		u = uuid.New()
	}
	u[6] = (u[6] & 0x0f) | 0x40
	u[8] = (u[8] & 0x3f) | 0x80
	b = append(b, "<urn:uuid:"...)
	for i, c := range u {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			b = append(b, '-')
		}
		b = append(b, hexDigits[c>>4], hexDigits[c&15])
	}
	return append(b, '>')
}

// Flush waits until every record given so far has been written to the
// underlying writer (and OnWritten called for it).
func (w *Writer) Flush() error {
	if w.err != nil {
		return w.err
	}
	if err := w.mw.Flush(); err != nil {
		w.err = fmt.Errorf("warc: %w", err)
	}
	return w.err
}

// Close writes every pending record and releases the Writer's resources. It
// does not close the underlying writer.
func (w *Writer) Close() error {
	if w.closed {
		return w.err
	}
	w.closed = true
	if w.mw != nil {
		if err := w.mw.Close(); err != nil && w.err == nil {
			w.err = fmt.Errorf("warc: %w", err)
		}
	}
	if w.spill != nil {
		name := w.spill.Name()
		w.spill.Close()
		os.Remove(name)
		w.spill = nil
	}
	return w.err
}
