package arc

import (
	"bytes"
	"encoding/hex"
	"io"
	"path"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"github.com/arcport/arcport/lib/record"
)

// DefaultSoftware is the software named in warcinfo records unless
// WithSoftware says otherwise.
const DefaultSoftware = "arcport arc2warc"

// idNamespace is the UUID namespace of deterministic record IDs.
var idNamespace = uuid.NewSHA1(uuid.NameSpaceURL, []byte("https://github.com/arcport/arcport/lib/arc#record-id"))

// ConvertOption configures a Converter.
type ConvertOption func(*convConfig)

type convConfig struct {
	source        string
	software      string
	version       string
	filename      string
	deterministic bool
}

// WithSourceName sets the name of the ARC file being converted, as recorded
// in the warcinfo record (only its last path element is kept) and used in
// deterministic record IDs.
func WithSourceName(name string) ConvertOption {
	return func(c *convConfig) { c.source = name }
}

// WithSoftware sets the software field of warcinfo records, e.g.
// "arcport arc2warc 1.0.0".
func WithSoftware(s string) ConvertOption { return func(c *convConfig) { c.software = s } }

// WithWARCVersion sets the WARC version the records are meant for
// (record.WARC10 or record.WARC11, the default); it fills Record.Version and
// the warcinfo format field.
func WithWARCVersion(v string) ConvertOption { return func(c *convConfig) { c.version = v } }

// WithWARCFilename sets WARC-Filename on warcinfo records: the name of the
// WARC file being written.
func WithWARCFilename(name string) ConvertOption { return func(c *convConfig) { c.filename = name } }

// WithDeterministicIDs makes record IDs name-based UUIDs (version 5) derived
// from the source name, each record's position in it and its URL-record line,
// so converting the same input twice gives byte-identical output. By default
// IDs are random (version 4).
func WithDeterministicIDs(on bool) ConvertOption {
	return func(c *convConfig) { c.deterministic = on }
}

// Converter turns the records of an ARC reader into WARC records, following
// the IIPC WARC implementation guidelines:
//
//   - a version block (filedesc://) becomes a warcinfo record describing the
//     conversion (software, source file, ARC version, WARC format) and a
//     metadata record holding the original version block verbatim, with
//     WARC-Concurrent-To naming the warcinfo record; both carry the ARC's
//     date;
//   - a capture becomes a response record (HTTP status line in the block),
//     a text/dns resource record (dns:) or a resource record with the ARC
//     content type (application/octet-stream when absent or "no-type"), as
//     Reader already typed it;
//   - every record gets a WARC-Record-ID and WARC-Warcinfo-ID; records read
//     before any version block get a warcinfo record of their own.
//
// Content-Length is kept from the ARC record; digests are left to the WARC
// writer. Converter implements record.Reader.
type Converter struct {
	src      record.Reader
	cfg      convConfig
	pending  []*record.Record
	warcinfo string // ID of the current warcinfo record
	n        int64  // records read from src
	key      []byte
	prefix   [256]byte
}

// NewConverter returns a converter reading ARC records from src (normally an
// *arc.Reader).
func NewConverter(src record.Reader, opts ...ConvertOption) *Converter {
	c := &Converter{src: src, cfg: convConfig{software: DefaultSoftware, version: record.WARC11}}
	for _, o := range opts {
		o(&c.cfg)
	}
	return c
}

// Next returns the next WARC record. Blocks are streamed from the source and
// valid until the following call.
func (c *Converter) Next() (*record.Record, error) {
	if len(c.pending) > 0 {
		r := c.pending[0]
		c.pending = c.pending[1:]
		return r, nil
	}
	r, err := c.src.Next()
	if err != nil {
		return nil, err
	}
	c.n++
	if r.Type() == record.ARCFiledesc {
		info, meta, err := c.versionBlock(r)
		if err != nil {
			return nil, err
		}
		c.pending = append(c.pending[:0], meta)
		return info, nil
	}
	c.capture(r)
	if c.warcinfo == "" {
		info := c.warcinfoRecord(r, nil, "")
		c.pending = append(c.pending[:0], r)
		c.setWarcinfo(r)
		return info, nil
	}
	return r, nil
}

// capture adds the WARC fields to a capture record.
func (c *Converter) capture(r *record.Record) {
	id := c.id(r, "record")
	h := r.Header
	h.Del(record.FieldRecordID)
	h.Del(record.FieldWarcinfoID)
	// Insert WARC-Record-ID after WARC-Type.
	h = append(h, record.Field{})
	copy(h[2:], h[1:])
	h[1] = record.Field{Name: record.FieldRecordID, Value: id}
	r.Header = h
	r.Version = c.cfg.version
	c.setWarcinfo(r)
}

// setWarcinfo adds WARC-Warcinfo-ID (after WARC-Record-ID) once known.
func (c *Converter) setWarcinfo(r *record.Record) {
	if c.warcinfo == "" || r.Header.Has(record.FieldWarcinfoID) {
		return
	}
	h := append(r.Header, record.Field{})
	copy(h[3:], h[2:])
	h[2] = record.Field{Name: record.FieldWarcinfoID, Value: c.warcinfo}
	r.Header = h
}

// id returns a new record ID for r in the given role.
func (c *Converter) id(r *record.Record, role string) string {
	var u uuid.UUID
	if c.cfg.deterministic {
		k := c.key[:0]
		k = append(k, "arc2warc\x00"...)
		k = append(k, path.Base(c.cfg.source)...)
		k = append(k, 0)
		k = strconv.AppendInt(k, c.n, 10)
		k = append(k, 0)
		k = strconv.AppendInt(k, r.Offset, 10)
		k = append(k, 0)
		if r.ARC != nil {
			k = append(k, r.ARC.Line...)
		} else {
			k = append(k, r.Header.Get(record.FieldTargetURI)...)
			k = append(k, 0)
			k = append(k, r.Header.Get(record.FieldDate)...)
		}
		k = append(k, 0)
		k = append(k, role...)
		c.key = k
		u = uuid.NewSHA1(idNamespace, k)
	} else {
		u = uuid.New()
	}
	return formatID(u)
}

// formatID formats u as a WARC-Record-ID, "<urn:uuid:...>", in one allocation.
func formatID(u uuid.UUID) string {
	var b [47]byte
	copy(b[:], "<urn:uuid:")
	hex.Encode(b[10:18], u[0:4])
	b[18] = '-'
	hex.Encode(b[19:23], u[4:6])
	b[23] = '-'
	hex.Encode(b[24:28], u[6:8])
	b[28] = '-'
	hex.Encode(b[29:33], u[8:10])
	b[33] = '-'
	hex.Encode(b[34:46], u[10:16])
	b[46] = '>'
	return string(b[:])
}

// versionBlock turns a filedesc record into warcinfo + metadata.
func (c *Converter) versionBlock(fd *record.Record) (info, meta *record.Record, err error) {
	// Read the version line ("1 0 Alexa Internet") for the warcinfo.
	var prefix []byte
	if fd.Block != nil {
		n, err := io.ReadFull(fd.Block, c.prefix[:])
		if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
			return nil, nil, err
		}
		prefix = append([]byte(nil), c.prefix[:n]...)
	}
	versionLine := ""
	if i := bytes.IndexByte(prefix, '\n'); i >= 0 {
		versionLine = strings.TrimRight(string(prefix[:i]), "\r")
	}
	info = c.warcinfoRecord(fd, fd, versionLine)
	line := fd.TargetURI()
	if fd.ARC != nil {
		line = fd.ARC.Line
	}
	size := int64(len(line) + 1)
	if l := fd.ContentLength(); l > 0 {
		size += l
	}
	meta = &record.Record{Version: c.cfg.version, Offset: fd.Offset, ARC: fd.ARC}
	meta.Header = record.Header{
		{Name: record.FieldType, Value: string(record.Metadata)},
		{Name: record.FieldRecordID, Value: c.id(fd, "metadata")},
		{Name: record.FieldWarcinfoID, Value: c.warcinfo},
		{Name: record.FieldTargetURI, Value: fd.Header.Get(record.FieldTargetURI)},
		{Name: record.FieldDate, Value: fd.Header.Get(record.FieldDate)},
		{Name: record.FieldConcurrentTo, Value: c.warcinfo},
		{Name: record.FieldContentType, Value: "text/plain"},
		{Name: record.FieldContentLength, Value: strconv.FormatInt(size, 10)},
	}
	parts := []io.Reader{strings.NewReader(line + "\n"), bytes.NewReader(prefix)}
	if fd.Block != nil {
		parts = append(parts, fd.Block)
	}
	meta.Block = io.MultiReader(parts...)
	return info, meta, nil
}

// warcinfoRecord builds the warcinfo record for the ARC whose version block
// is fd (nil for an ARC without one; r is then its first record) and makes
// it the current one.
func (c *Converter) warcinfoRecord(r, fd *record.Record, versionLine string) *record.Record {
	var b strings.Builder
	field := func(name, value string) {
		if value != "" {
			b.WriteString(name)
			b.WriteString(": ")
			b.WriteString(value)
			b.WriteString("\r\n")
		}
	}
	field("software", c.cfg.software)
	if c.cfg.version == record.WARC10 {
		field("format", "WARC File Format 1.0")
		field("conformsTo", "http://bibnum.bnf.fr/WARC/WARC_ISO_28500_version1_latestdraft.pdf")
	} else {
		field("format", "WARC File Format 1.1")
		field("conformsTo", "https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/")
	}
	src := ""
	if c.cfg.source != "" && c.cfg.source != "-" {
		src = path.Base(c.cfg.source)
	}
	desc := "Converted from ARC"
	if src != "" {
		desc += " file " + src
	}
	desc += " following the IIPC WARC Implementation Guidelines"
	if fd != nil {
		desc += "; the original version block is in the metadata record that follows"
	} else {
		desc += "; the ARC file had no version block"
	}
	field("description", desc)
	field("arc-file", src)
	if fd != nil {
		field("arc-filedesc", fd.TargetURI())
	}
	if r.ARC != nil {
		field("arc-version", strconv.Itoa(r.ARC.Version))
	}
	if versionLine != "" {
		// "1 0 Alexa Internet": version, reserved, origin code.
		f := strings.SplitN(versionLine, " ", 3)
		if len(f) == 3 {
			field("arc-origin", f[2])
		}
	}
	body := b.String()
	info := &record.Record{Version: c.cfg.version, Offset: r.Offset}
	info.Header = record.Header{
		{Name: record.FieldType, Value: string(record.Warcinfo)},
		{Name: record.FieldRecordID, Value: c.id(r, "warcinfo")},
		{Name: record.FieldDate, Value: r.Header.Get(record.FieldDate)},
	}
	if c.cfg.filename != "" {
		info.Header.Add(record.FieldFilename, c.cfg.filename)
	}
	info.Header.Add(record.FieldContentType, "application/warc-fields")
	info.Header.Add(record.FieldContentLength, strconv.Itoa(len(body)))
	info.Block = strings.NewReader(body)
	c.warcinfo = info.ID()
	return info
}
