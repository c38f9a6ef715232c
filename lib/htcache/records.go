package htcache

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/arcport/arcport/lib/record"
)

// HTTPHead rebuilds an HTTP/1.x response head from an entry's metadata for
// a body of bodyLen bytes: the status line with the original code and
// message, then Content-Type (with "; charset=" from X-Charset unless the
// type names one), Last-Modified, ETag, Location, Content-Disposition and
// Content-Length, each when known, and the empty line. HTTrack stores bodies
// decoded, so no Content-Encoding or Transfer-Encoding is written.
func HTTPHead(m *Meta, bodyLen int64) []byte {
	var b bytes.Buffer
	proto := m.Proto
	if proto == "" {
		proto = "HTTP/1.1"
	}
	fmt.Fprintf(&b, "%s %d %s\r\n", proto, m.StatusCode, m.StatusMessage)
	field := func(name, v string) {
		if v != "" {
			b.WriteString(name)
			b.WriteString(": ")
			b.WriteString(v)
			b.WriteString("\r\n")
		}
	}
	field("Content-Type", ContentType(m))
	field("Last-Modified", m.LastModified)
	field("ETag", m.ETag)
	field("Location", m.Location)
	field("Content-Disposition", m.ContentDisposition)
	field("Content-Length", strconv.FormatInt(bodyLen, 10))
	b.WriteString("\r\n")
	return b.Bytes()
}

// ContentType returns the entry's Content-Type with its charset parameter:
// "text/html; charset=utf-8" from "text/html" and X-Charset "utf-8".
func ContentType(m *Meta) string {
	ct := m.ContentType
	if ct == "" || m.Charset == "" || strings.Contains(strings.ToLower(ct), "charset=") {
		return ct
	}
	return ct + "; charset=" + m.Charset
}

// ExportStats counts what a RecordReader did.
type ExportStats struct {
	// Records is the number of response records yielded.
	Records int
	// Internal counts entries skipped because their status code is one of
	// HTTrack's own errors (below 100: no HTTP response was received).
	Internal int
	// Missing counts entries skipped because their external body file is
	// missing.
	Missing int
	// NoBody counts records of entries for which HTTrack kept metadata but
	// no body (redirects, most errors).
	NoBody int
	// Truncated counts records whose body is shorter than X-Size (marked
	// WARC-Truncated).
	Truncated int
	// BodyBytes is the total size of the bodies yielded.
	BodyBytes int64
}

// RecordReader turns a cache into WARC-shaped records: it implements
// record.Reader. Each entry becomes a "response" record whose block is the
// HTTP head rebuilt by HTTPHead followed by the body as stored; WARC-Date is
// the fetch time (Cache.FetchTime, UTC), WARC-Target-URI the URL
// percent-encoded, WARC-Record-ID a name-based UUID (so the same cache
// always converts to the same IDs). Entries whose body is missing, and
// entries with HTTrack-internal status codes, are skipped and reported.
// In-cache bodies are checked (size, CRC-32) before their record is yielded,
// so a damaged entry never becomes a half-written record.
type RecordReader struct {
	c      *Cache
	er     EntryReader
	cfg    config
	cur    io.Closer
	first  bool
	infoID string
	// Stats counts records and skipped entries so far.
	Stats ExportStats
}

// NewRecordReader starts reading c's entries as records. WithWarcinfo adds a
// warcinfo record first; WithPolicy and WithProblemFunc apply to skipped
// entries.
func NewRecordReader(c *Cache, opts ...Option) (*RecordReader, error) {
	cfg := c.cfg
	for _, o := range opts {
		o(&cfg)
	}
	cfg.verify = true
	save := c.cfg
	c.cfg = cfg
	er, err := c.Entries()
	c.cfg = save
	if err != nil {
		return nil, err
	}
	return &RecordReader{c: c, er: er, cfg: cfg, first: cfg.warcinfo}, nil
}

// Close releases the body of the last record.
func (r *RecordReader) Close() error {
	if r.cur != nil {
		err := r.cur.Close()
		r.cur = nil
		return err
	}
	return nil
}

// Next returns the next record, or io.EOF.
func (r *RecordReader) Next() (*record.Record, error) {
	r.Close()
	if r.first {
		r.first = false
		return r.warcinfo(), nil
	}
	for {
		e, err := r.er.Next()
		if err != nil {
			return nil, err
		}
		rec, err := r.entryRecord(e)
		if err != nil {
			return nil, err
		}
		if rec != nil {
			return rec, nil
		}
	}
}

// entryRecord makes the record for e, or returns nil to skip it.
func (r *RecordReader) entryRecord(e *Entry) (*record.Record, error) {
	m := &e.Meta
	if m.StatusCode < 100 {
		r.Stats.Internal++
		return nil, r.cfg.problem(r.c.Path, e.Offset, false, true,
			fmt.Sprintf("%s: HTTrack status %d %q%s", e.URI(), m.StatusCode, m.StatusMessage, internalSuffix))
	}
	body, size, err := r.c.Body(e)
	if err != nil {
		r.Stats.Missing++
		file := r.c.Path
		if e.Old {
			file = r.c.OldPath
		}
		// worded as htcache check words it (MissingBodyMsg)
		return nil, r.cfg.problem(file, e.Offset, false, true, MissingBodyMsg(e)+"; entry not exported")
	}
	r.cur = body
	head := HTTPHead(m, size)
	t, _ := r.c.FetchTime(e)
	h := record.Header{
		{Name: record.FieldType, Value: string(record.Response)},
		{Name: record.FieldRecordID, Value: recordID(e, t)},
		{Name: record.FieldDate, Value: record.FormatDate(t, false)},
		{Name: record.FieldTargetURI, Value: e.URI()},
	}
	if r.infoID != "" {
		h.Add(record.FieldWarcinfoID, r.infoID)
	}
	h.Add(record.FieldContentType, "application/http; msgtype=response")
	h.Add(record.FieldContentLength, strconv.FormatInt(int64(len(head))+size, 10))
	if m.Size > size {
		h.Add(record.FieldTruncated, "length")
		r.Stats.Truncated++
		if src, _, _ := r.c.Locate(e); src == BodyNone {
			h.Set(record.FieldTruncated, "unspecified")
		}
	}
	if src, _, _ := r.c.Locate(e); src == BodyNone {
		r.Stats.NoBody++
	}
	r.Stats.Records++
	r.Stats.BodyBytes += size
	return &record.Record{
		Version: record.WARC11,
		Header:  h,
		Block:   io.MultiReader(bytes.NewReader(head), body),
		Offset:  e.Offset,
	}, nil
}

// recordID names a record by its source: same cache, same IDs.
func recordID(e *Entry, t time.Time) string {
	key := fmt.Sprintf("htcache\x00%s\x00%d\x00%08x\x00%d", e.Name, e.Offset, e.CRC32, t.Unix())
	return "<urn:uuid:" + uuid.NewSHA1(uuid.NameSpaceURL, []byte(key)).String() + ">"
}

// warcinfo builds the warcinfo record naming HTTrack and the command line.
func (r *RecordReader) warcinfo() *record.Record {
	l := r.c.Log
	var b bytes.Buffer
	field := func(n, v string) {
		if v != "" {
			fmt.Fprintf(&b, "%s: %s\r\n", n, strings.ReplaceAll(strings.ReplaceAll(v, "\r", " "), "\n", " "))
		}
	}
	crawler := "HTTrack Website Copier"
	if l.Version != "" {
		crawler += "/" + l.Version
	}
	field("software", crawler)
	field("software", r.cfg.software)
	field("format", "WARC File Format 1.1")
	field("conformsTo", "http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/")
	field("description", "HTTrack mirror cache converted to WARC; HTTP heads rebuilt from the cache metadata")
	field("httrack-version", l.VersionInfo)
	field("httrack-command", l.CommandLine)
	if !l.Launched.IsZero() {
		field("httrack-launched", record.FormatDate(l.Launched, false))
	}
	field("httrack-summary", l.Summary)
	field("httrack-cache", string(r.c.Format)+" "+baseRel(r.c))
	now := time.Now().UTC()
	id := "<urn:uuid:" + uuid.NewSHA1(uuid.NameSpaceURL, []byte(fmt.Sprintf("htcache-warcinfo\x00%s\x00%d", r.c.Path, now.UnixNano()))).String() + ">"
	r.infoID = id
	return &record.Record{
		Version: record.WARC11,
		Header: record.Header{
			{Name: record.FieldType, Value: string(record.Warcinfo)},
			{Name: record.FieldRecordID, Value: id},
			{Name: record.FieldDate, Value: record.FormatDate(now, false)},
			{Name: record.FieldContentType, Value: "application/warc-fields"},
			{Name: record.FieldContentLength, Value: strconv.Itoa(b.Len())},
		},
		Block: bytes.NewReader(b.Bytes()),
	}
}

// baseRel names the cache file relative to the mirror root.
func baseRel(c *Cache) string {
	p := c.Path
	if strings.HasPrefix(p, c.Root+"/") {
		return p[len(c.Root)+1:]
	}
	return p
}

// internalSuffix ends the problem RecordReader reports for an entry whose
// status is one of HTTrack's own (no HTTP response): not damage.
const internalSuffix = " (no HTTP response) not exported"

// MissingBodyMsg is the problem of an entry whose external body (its
// X-Save file) is missing, as htcache check and export word it.
func MissingBodyMsg(e *Entry) string {
	return fmt.Sprintf("body of %s: X-Save file %q is missing", e.URI(), e.Meta.Save)
}

// IsDamage reports whether a problem the readers report is damage of the
// cache, which htcache check reports and which makes htcache export exit 1
// (docs/damaged-input.md). The one problem that is not: an entry whose
// status is one of HTTrack's own (a failed fetch, no HTTP response), which
// RecordReader leaves out of the export and check does not report.
func IsDamage(p *record.Problem) bool {
	return !strings.HasSuffix(p.Msg, internalSuffix)
}
