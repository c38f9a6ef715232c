package arc2warc

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/arcport/arcport/lib/internal/cliutil"
	"github.com/arcport/arcport/lib/internal/compio"
	"github.com/arcport/arcport/lib/record"
	"github.com/arcport/arcport/lib/warc"
)

// sink is where records go: standard output, one file, or with --max-size
// numbered files PREFIX-00000.EXT, PREFIX-00001.EXT, ... each starting with
// a warcinfo record. Converted records (from ARC) are written with a
// warc.Writer; records copied from WARC input are written as they are, one
// member each, through a compio.MemberWriter. Before a record the sink
// rotates when the current file has reached the size limit, so a file is at
// most the limit plus its last record. A finished file is committed when
// the next one is opened; the last one by Close.
type sink struct {
	o       options
	stdout  io.Writer
	outName string // "" or "-": standard output
	max     int64  // 0: no rotation
	prefix  string // of numbered names
	ext     string
	seq     int

	out     cliutil.Output // nil on standard output
	cw      *countWriter
	ww      *warc.Writer
	mw      *compio.MemberWriter
	active  any   // ww or mw: the one that may hold queued records
	pending int64 // bound on the bytes queued but perhaps not yet written
	started bool  // a record is in the current file
	files   []string

	create  func(name string) (cliutil.Output, error) // nil: cliutil.CreateOutput (batch mode: the task's)
	records int64                                     // records written (batch mode's count)
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// splitName cuts an output name into the prefix and the extension of the
// numbered files: out.warc.gz -> out, .warc.gz (splitNameOS for this
// system).
func splitName(name string) (prefix, ext string) {
	return splitNameOS(name, runtime.GOOS == "windows")
}

// splitNameOS is splitName where a backslash separates folders too when
// windows is set (and the name is not a URL): a dot in a folder's name
// (C:\crawl.d\out) never starts the extension.
func splitNameOS(name string, windows bool) (prefix, ext string) {
	slash := strings.LastIndexByte(name, '/')
	if windows && !strings.Contains(name, "://") {
		slash = max(slash, strings.LastIndexByte(name, '\\'))
	}
	if i := strings.LastIndex(name, ".warc"); i > slash {
		return name[:i], name[i:]
	}
	if i := strings.LastIndexByte(name, '.'); i > slash {
		return name[:i], name[i:]
	}
	return name, ""
}

func newSink(o options, outName string, stdout io.Writer, max int64) *sink {
	s := &sink{o: o, stdout: stdout, outName: outName, max: max}
	if max > 0 {
		s.prefix, s.ext = splitName(outName)
	}
	return s
}

// fileName is the name of the current output (for WARC-Filename).
func (s *sink) fileName() string {
	if s.max > 0 {
		return fmt.Sprintf("%s-%05d%s", s.prefix, s.seq, s.ext)
	}
	return s.outName
}

// open opens the current output when it is not open yet.
func (s *sink) open() error {
	if s.cw != nil {
		return nil
	}
	var w io.Writer = s.stdout
	if s.outName != "" && s.outName != "-" {
		name := s.fileName()
		create := s.create
		if create == nil {
			create = cliutil.CreateOutput
		}
		out, err := create(name)
		if err != nil {
			return err
		}
		s.out, w = out, out
		s.files = append(s.files, name)
	}
	s.cw = &countWriter{w: w}
	s.started = false
	s.pending = 0
	return nil
}

// warcWriter returns the warc.Writer of the current file, made for WARC
// version (the --warc-version when "") if there is none yet.
func (s *sink) warcWriter(version string) *warc.Writer {
	if s.ww == nil {
		if version != record.WARC10 && version != record.WARC11 {
			version = s.o.version
		}
		s.ww = warc.NewWriter(s.cw, warc.WithVersion(version), warc.WithCompression(s.o.compression), warc.WithLevel(s.o.level))
	}
	return s.ww
}

func (s *sink) memberWriter() (*compio.MemberWriter, error) {
	if s.mw == nil {
		mw, err := compio.NewMemberWriter(s.cw, compio.WriterOptions{Format: s.o.compression, Level: s.o.level})
		if err != nil {
			return nil, err
		}
		s.mw = mw
	}
	return s.mw, nil
}

// use makes w the writer of the next record, first writing out what the
// other one holds so that records stay in order.
func (s *sink) use(w any) error {
	if s.active != nil && s.active != w {
		if err := s.flush(); err != nil {
			return err
		}
	}
	s.active = w
	return nil
}

func (s *sink) flush() error {
	var err error
	switch a := s.active.(type) {
	case *warc.Writer:
		err = a.Flush()
	case *compio.MemberWriter:
		err = a.Flush()
	}
	s.pending = 0
	return err
}

// closeFile writes out and closes the writers of the current file (not
// the file itself).
func (s *sink) closeWriters() error {
	var err error
	if s.ww != nil {
		err = s.ww.Close()
		s.ww = nil
	}
	if s.mw != nil {
		if e := s.mw.Close(); err == nil {
			err = e
		}
		s.mw = nil
	}
	s.active = nil
	return err
}

// before prepares the output for a record of about size bytes (negative:
// unknown) whose type, date and version are given: it rotates when the
// current file is full and, with --max-size, starts each file with a
// warcinfo record (of the record's version) unless this record is one.
func (s *sink) before(typ record.Type, date, version string, size int64) error {
	if err := s.open(); err != nil {
		return err
	}
	if s.max > 0 && s.started {
		if s.cw.n+s.pending >= s.max {
			if err := s.flush(); err != nil {
				return err
			}
		}
		if s.cw.n >= s.max {
			if err := s.rotate(); err != nil {
				return err
			}
		}
	}
	if s.max > 0 && !s.started && typ != record.Warcinfo {
		if err := s.writeWarcinfo(date, version); err != nil {
			return err
		}
	}
	s.started = true
	if size < 0 {
		size = s.max // unknown: check exactly before the next record
	}
	s.pending += size + size/64 + 4096
	return nil
}

// rotate finishes the current file and opens the next one.
func (s *sink) rotate() error {
	if err := s.closeWriters(); err != nil {
		return err
	}
	if s.out != nil {
		if err := s.out.Commit(); err != nil {
			return err
		}
	}
	s.out, s.cw = nil, nil
	s.seq++
	return s.open()
}

// writeWarcinfo writes the warcinfo record that starts a numbered file,
// dated like the record that follows it (so that --deterministic-ids
// output is the same from run to run).
func (s *sink) writeWarcinfo(date, version string) error {
	if _, err := record.ParseDate(date); err != nil || date == "" {
		date = time.Now().UTC().Format(time.RFC3339)
	}
	name := baseName(s.fileName())
	id := uuid.New()
	if s.o.deterministic {
		id = uuid.NewSHA1(uuid.NameSpaceURL, []byte("arc2warc warcinfo\x00"+name+"\x00"+date))
	}
	v := s.o.version
	if version == record.WARC10 || version == record.WARC11 {
		v = version
	}
	block := fmt.Sprintf("software: %s %s\r\nformat: WARC File Format %s\r\ndescription: file %d of a series cut at %d bytes (arc2warc --max-size)\r\n",
		"arcport arc2warc", cliutil.Version, strings.TrimPrefix(v, "WARC/"), s.seq, s.max)
	rec := &record.Record{
		Header: record.Header{
			{Name: record.FieldType, Value: string(record.Warcinfo)},
			{Name: record.FieldRecordID, Value: "<urn:uuid:" + id.String() + ">"},
			{Name: record.FieldDate, Value: date},
			{Name: "WARC-Filename", Value: name},
			{Name: record.FieldContentType, Value: "application/warc-fields"},
		},
		Block: bytes.NewReader([]byte(block)),
	}
	w := s.warcWriter(version)
	if err := s.use(w); err != nil {
		return err
	}
	return w.WriteRecord(rec)
}

// WriteRecord writes a converted record.
func (s *sink) WriteRecord(rec *record.Record) error {
	size := int64(-1)
	if rec.ARC != nil {
		size = rec.ARC.Length
	}
	if err := s.before(rec.Type(), rec.Header.Get(record.FieldDate), s.o.version, size); err != nil {
		return err
	}
	w := s.warcWriter(s.o.version)
	if err := s.use(w); err != nil {
		return err
	}
	if err := w.WriteRecord(rec); err != nil {
		return err
	}
	s.records++
	return nil
}

// inlineOver is the record size above which a copied record is compressed
// in the caller's goroutine as it streams rather than held in memory.
const inlineOver = 8 << 20

// WriteRaw writes a record copied as it is: head (its WARC header with the
// blank line), then n bytes of block from r, then CRLF CRLF.
func (s *sink) WriteRaw(typ record.Type, date string, head []byte, r io.Reader, n int64) error {
	version, _, _ := strings.Cut(string(head[:min(len(head), 16)]), "\r")
	if err := s.before(typ, date, strings.TrimSpace(version), int64(len(head))+n); err != nil {
		return err
	}
	mw, err := s.memberWriter()
	if err != nil {
		return err
	}
	if err := s.use(mw); err != nil {
		return err
	}
	s.records++
	if int64(len(head))+n+4 > inlineOver {
		return mw.WriteInline(io.MultiReader(bytes.NewReader(head), r, strings.NewReader("\r\n\r\n")), nil)
	}
	b := mw.Buffer()
	b.B = append(b.B, head...)
	start := len(b.B)
	b.B = append(b.B, make([]byte, n)...)
	if _, err := io.ReadFull(r, b.B[start:]); err != nil {
		mw.Release(b)
		return err
	}
	b.B = append(b.B, "\r\n\r\n"...)
	return mw.Submit(b, nil)
}

// Close writes out everything and commits the last file.
func (s *sink) Close() error {
	if err := s.open(); err != nil { // no record at all: an empty output
		return err
	}
	if err := s.closeWriters(); err != nil {
		return err
	}
	if s.out != nil {
		return s.out.Commit()
	}
	return nil
}

// Abort discards the file being written.
func (s *sink) Abort() {
	if s.ww != nil {
		s.ww.Close()
	}
	if s.mw != nil {
		s.mw.Close()
	}
	if s.out != nil {
		s.out.Abort()
	}
}
