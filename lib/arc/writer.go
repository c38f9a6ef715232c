package arc

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/klauspost/compress/gzip"

	"github.com/arcport/arcport/lib/httpmsg"
	"github.com/arcport/arcport/lib/internal/compio"
	"github.com/arcport/arcport/lib/record"
)

// ErrUnsupportedType is returned by Writer.WriteRecord for record types an
// ARC file cannot hold (anything but response, resource and ARC version
// blocks). Callers converting WARC to ARC normally skip such records.
var ErrUnsupportedType = errors.New("record type cannot be written to ARC")

// WriterOption configures a Writer.
type WriterOption func(*writerConfig)

type writerConfig struct {
	format   compio.Format
	level    int
	filename string
	date     time.Time
	ip       string
	origin   string
}

// WithARCCompression chooses compio.Gzip (one gzip member per record, the
// default) or compio.Plain.
func WithARCCompression(f compio.Format) WriterOption {
	return func(c *writerConfig) { c.format = f }
}

// WithGzipLevel sets the gzip compression level (default gzip.DefaultCompression).
func WithGzipLevel(level int) WriterOption { return func(c *writerConfig) { c.level = level } }

// WithARCFilename sets the file name written in the version block
// (filedesc://NAME); default "arcport.arc".
func WithARCFilename(name string) WriterOption { return func(c *writerConfig) { c.filename = name } }

// WithARCDate sets the date of the version block; default the date of the
// first record written (or the current time if there is none).
func WithARCDate(t time.Time) WriterOption { return func(c *writerConfig) { c.date = t } }

// WithARCIP sets the IP address of the version block; default 0.0.0.0.
func WithARCIP(ip string) WriterOption { return func(c *writerConfig) { c.ip = ip } }

// WithOrigin sets the origin code of the version block (no spaces); default
// "arcport".
func WithOrigin(origin string) WriterOption { return func(c *writerConfig) { c.origin = origin } }

// Writer writes an ARC version 1 file: a version block, then one URL record
// per response or resource record. Create it with NewWriter.
type Writer struct {
	cfg     writerConfig
	w       io.Writer
	bw      *bufio.Writer
	gz      *gzip.Writer
	head    *bufio.Reader
	line    []byte
	wroteFD bool
	err     error
}

// NewWriter returns a writer of ARC v1 to w.
func NewWriter(w io.Writer, opts ...WriterOption) *Writer {
	c := writerConfig{format: compio.Gzip, level: gzip.DefaultCompression, filename: "arcport.arc", ip: "0.0.0.0", origin: "arcport"}
	for _, o := range opts {
		o(&c)
	}
	return &Writer{cfg: c, w: w, bw: bufio.NewWriterSize(w, 256<<10), head: bufio.NewReaderSize(nil, 64<<10)}
}

// WriteRecord writes one record. Response records get the media type of
// their HTTP Content-Type as ARC content type; resource records their own
// Content-Type. A record of Type record.ARCFiledesc read from another ARC
// file is written as a version block. Other types return
// ErrUnsupportedType and write nothing.
func (w *Writer) WriteRecord(r *record.Record) error {
	if w.err != nil {
		return w.err
	}
	err := w.writeRecord(r)
	if err != nil && !errors.Is(err, ErrUnsupportedType) {
		w.err = err
	}
	return err
}

func (w *Writer) writeRecord(r *record.Record) error {
	typ := r.Type()
	if typ == record.ARCFiledesc {
		return w.writeFiledesc(r)
	}
	if typ != record.Response && typ != record.Resource {
		return fmt.Errorf("%w: %s", ErrUnsupportedType, typ)
	}
	t, err := r.Date()
	if err != nil {
		return fmt.Errorf("arc: record %s: %w", r.TargetURI(), err)
	}
	if !w.wroteFD {
		d := w.cfg.date
		if d.IsZero() {
			d = t
		}
		if err := w.versionBlock(d); err != nil {
			return err
		}
	}
	block, size, cleanup, err := sized(r)
	if err != nil {
		return err
	}
	defer cleanup()
	w.head.Reset(block)
	ctype := ""
	url := r.TargetURI()
	switch {
	case typ == record.Response && isHTTPURL(url):
		ctype = w.httpContentType(size)
	case hasPrefixFold(url, "dns:"):
		ctype = DNSType
	default:
		ctype = httpmsg.MediaType(r.ContentType())
	}
	if ctype == "" || bytes.ContainsAny([]byte(ctype), " \t") {
		ctype = "no-type"
	}
	ip := r.Header.Get(record.FieldIPAddress)
	if ip == "" {
		ip = "0.0.0.0"
	}
	l := w.line[:0]
	l = appendEscaped(l, url)
	l = append(l, ' ')
	l = append(l, ip...)
	l = append(l, ' ')
	l = t.UTC().AppendFormat(l, "20060102150405")
	l = append(l, ' ')
	l = append(l, ctype...)
	l = append(l, ' ')
	l = strconv.AppendInt(l, size, 10)
	l = append(l, '\n')
	w.line = l
	return w.member(func(out io.Writer) error {
		if _, err := out.Write(l); err != nil {
			return err
		}
		n, err := io.CopyN(out, w.head, size)
		if err != nil {
			if err == io.EOF {
				return fmt.Errorf("arc: record %s: block has %d bytes, Content-Length says %d", url, n, size)
			}
			return err
		}
		_, err = out.Write([]byte{'\n'})
		return err
	})
}

// httpContentType returns the media type of the HTTP Content-Type of the
// response at the head of w.head.
func (w *Writer) httpContentType(size int64) string {
	k := int64(w.head.Size())
	if size < k {
		k = size
	}
	b, _ := w.head.Peek(int(k))
	end := bytes.Index(b, []byte("\r\n\r\n"))
	if e := bytes.Index(b, []byte("\n\n")); e >= 0 && (end < 0 || e < end) {
		end = e
	}
	if end < 0 {
		end = len(b)
	}
	h, err := httpmsg.ParseHead(b[:end])
	if err != nil {
		return ""
	}
	return h.MIME()
}

// member writes one record through fn, as its own gzip member when
// compressing.
func (w *Writer) member(fn func(io.Writer) error) error {
	if w.cfg.format != compio.Gzip {
		return fn(w.bw)
	}
	if w.gz == nil {
		gz, err := gzip.NewWriterLevel(w.bw, w.cfg.level)
		if err != nil {
			return err
		}
		w.gz = gz
	} else {
		w.gz.Reset(w.bw)
	}
	if err := fn(w.gz); err != nil {
		return err
	}
	return w.gz.Close()
}

// versionBlock writes a version-1 block dated d.
func (w *Writer) versionBlock(d time.Time) error {
	rest := "1 0 " + w.cfg.origin + "\nURL IP-address Archive-date Content-type Archive-length\n"
	// The length counts the blank line that ends the block, as the
	// specification's example and Heritrix do.
	line := fmt.Sprintf("filedesc://%s %s %s text/plain %d\n", EscapeTargetURI(w.cfg.filename), w.cfg.ip, d.UTC().Format("20060102150405"), len(rest)+1)
	w.wroteFD = true
	return w.member(func(out io.Writer) error {
		_, err := io.WriteString(out, line+rest+"\n")
		return err
	})
}

// writeFiledesc writes a version block read from an ARC file as it was.
func (w *Writer) writeFiledesc(r *record.Record) error {
	line := "filedesc://" + w.cfg.filename
	if r.ARC != nil {
		line = r.ARC.Line
	}
	block, size, cleanup, err := sized(r)
	if err != nil {
		return err
	}
	defer cleanup()
	w.wroteFD = true
	return w.member(func(out io.Writer) error {
		if _, err := io.WriteString(out, line+"\n"); err != nil {
			return err
		}
		if _, err := io.CopyN(out, block, size); err != nil {
			return err
		}
		_, err = out.Write([]byte{'\n'})
		return err
	})
}

// Flush writes buffered records to the underlying writer, so a stream
// consumer sees each record as soon as it is complete.
func (w *Writer) Flush() error {
	if w.err != nil {
		return w.err
	}
	if err := w.bw.Flush(); err != nil {
		w.err = err
		return err
	}
	return nil
}

// Close writes the version block if no record was written and flushes. It
// does not close the underlying writer.
func (w *Writer) Close() error {
	if w.err != nil {
		return w.err
	}
	if !w.wroteFD {
		d := w.cfg.date
		if d.IsZero() {
			d = time.Now()
		}
		if err := w.versionBlock(d); err != nil {
			return err
		}
	}
	return w.bw.Flush()
}

// spoolMem is how much of a block of unknown length is kept in memory before
// spooling to a temporary file.
const spoolMem = 4 << 20

// sized returns r's block with its length: Content-Length when the record
// has one, else the block is spooled (to memory, then a temporary file).
func sized(r *record.Record) (io.Reader, int64, func(), error) {
	nop := func() {}
	if r.Block == nil {
		return bytes.NewReader(nil), 0, nop, nil
	}
	if n := r.ContentLength(); n >= 0 {
		return r.Block, n, nop, nil
	}
	var buf bytes.Buffer
	n, err := io.Copy(&buf, io.LimitReader(r.Block, spoolMem+1))
	if err != nil {
		return nil, 0, nop, err
	}
	if n <= spoolMem {
		return &buf, n, nop, nil
	}
	// no name: nothing is left behind however the process ends
	f, err := compio.CreateSpool("", "arcport-spool-*")
	if err != nil {
		return nil, 0, nop, err
	}
	cleanup := func() { f.Close(); os.Remove(f.Name()) }
	m, err := io.Copy(f, io.MultiReader(&buf, r.Block))
	if err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err != nil {
		cleanup()
		return nil, 0, nop, err
	}
	return f, m, cleanup, nil
}
