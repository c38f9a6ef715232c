package cdx

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"encoding/base32"
	"errors"
	"fmt"
	"hash"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/arcport/arcport/lib/httpmsg"
	"github.com/arcport/arcport/lib/internal/compio"
	"github.com/arcport/arcport/lib/record"
	"github.com/arcport/arcport/lib/surt"
)

// DefaultMaxRequestBody bounds how much of a non-GET request body the
// Indexer reads to build the __wb_method key (warcio.js keeps at most 4096
// characters of the resulting query; JSON and multipart bodies must be read
// whole to be converted).
const DefaultMaxRequestBody = 1 << 20

// maxHead bounds the HTTP head the Indexer reads from a block.
const maxHead = httpmsg.MaxHeadSize

// Option configures an Indexer.
type Option func(*Indexer)

// WithSource gives the Indexer random access to the file being indexed.
// It is used only for uncompressed WARC input, where warcio.js reports a
// record's length as its header plus Content-Length (trailing newlines
// excluded) and the header's size cannot be told from the parsed record:
// the Indexer reads the header bytes at the record's offset. Without it,
// the length of an uncompressed WARC record is its on-disk length less the
// 4 bytes of the standard CRLF CRLF trailer.
func WithSource(ra io.ReaderAt) Option { return func(ix *Indexer) { ix.src = ra } }

// WithMaxRequestBody sets how many bytes of a non-GET request body are read
// (DefaultMaxRequestBody by default).
func WithMaxRequestBody(n int) Option { return func(ix *Indexer) { ix.maxBody = n } }

// WithARCDigests sets whether entries for ARC records, which carry no
// payload digest, get one computed (SHA-1, base32, over the payload after
// the HTTP head with any chunked transfer coding removed, as lib/warc
// writes WARC-Payload-Digest). On by default.
func WithARCDigests(on bool) Option { return func(ix *Indexer) { ix.arcDigests = on } }

// WithReplayableRevisits sets whether a server-not-modified revisit whose
// HTTP status is 304 is indexed with status 200, the status of the capture
// it revisits (a 304 answers a conditional request made for an earlier
// 200). warcio.js writes 304, and ReplayWeb.page takes a revisit line
// with a 3xx status for a redirect and shows a blank page; a WACZ's index
// is written for replay. Off by default (warcio.js's lines).
func WithReplayableRevisits(on bool) Option { return func(ix *Indexer) { ix.replayRevisits = on } }

// WithFullDigest sets whether the digest field holds WARC-Payload-Digest
// whole ("sha1:B32...", as cdxj-indexer writes it) rather than the part
// after "algorithm:" (warcio.js). Off by default.
func WithFullDigest(on bool) Option { return func(ix *Indexer) { ix.fullDigest = on } }

// Indexer turns a stream of records into CDX entries, in the order and
// with the content that warcio.js `cdx-index` (CDXIndexer) gives:
//
//   - warcinfo and request records are not indexed, nor metadata and
//     resource records of Content-Type application/warc-fields (nor ARC
//     version blocks); every other record is;
//   - a request next to the response or revisit it belongs to (same
//     WARC-Target-URI, before or after it) is paired with it: when its
//     method is not GET, the body is folded into the key
//     ("...?__wb_method=post&a=1") and "method" and "requestBody" fields
//     are added;
//   - fields: url (WARC-Target-URI), mime (the HTTP Content-Type's media
//     type for response records, "warc/revisit" for revisits, the record's
//     Content-Type otherwise), status (HTTP status code of responses and
//     revisits, as JavaScript's Number() reads it), digest (the value of
//     WARC-Payload-Digest after its "algorithm:"), length, offset,
//     filename;
//   - header fields are read as the WHATWG Headers class that warcio.js
//     uses holds them: repeated fields joined by ", ", values that are not
//     Latin-1 replaced by the Latin-1 reading of their UTF-8 bytes.
//
// Entries are produced in file order, not sorted: use Sorter.
type Indexer struct {
	r          record.Reader
	filename   string
	src        io.ReaderAt
	maxBody    int
	arcDigests bool
	// replayRevisits: see WithReplayableRevisits
	replayRevisits bool
	fullDigest     bool // see WithFullDigest
	plain          bool

	last    *recInfo
	pending []pendingEntry
	ready   []*Entry
	eof     bool
	err     error

	br  *bufio.Reader
	hdr jsHeaders
	// scratch holds the lines of an HTTP head being read
	scratch []byte

	prepared func(*record.Record) *Prep
}

// Prep is what an Indexer reads of a record, read ahead of time (by a
// Preparer, on another goroutine) so that the Indexer need not read the
// record's block itself.
type Prep struct{ ri *recInfo }

// Preparer reads records as an Indexer does. It is not safe for
// concurrent use: use one per goroutine.
type Preparer struct{ ix *Indexer }

// NewPreparer returns a Preparer reading records as an Indexer made with
// the same options would.
func NewPreparer(opts ...Option) *Preparer {
	return &Preparer{ix: NewIndexer(nil, "", opts...)}
}

// Prepare reads rec (its header and as much of its block as indexing
// needs); nil when reading failed (the Indexer then reads the record
// itself, and reports the error).
func (p *Preparer) Prepare(rec *record.Record) *Prep {
	ri, err := p.ix.info(rec)
	if err != nil {
		return nil
	}
	ri.rec = nil
	return &Prep{ri: ri}
}

// WithPrepared has the Indexer ask fn for a record's Prep before reading
// the record; when fn returns one, the record's block is not read.
func WithPrepared(fn func(*record.Record) *Prep) Option {
	return func(ix *Indexer) { ix.prepared = fn }
}

// recInfo is what the Indexer keeps of a record once its block is gone.
type recInfo struct {
	rec                               *record.Record
	typ, target, date, ct, digest, cl string
	profile                           string
	hasTyp, hasTarget, hasDate, hasCT bool
	hasDigest, hasCL                  bool
	http                              *httpInfo
	body                              []byte // non-GET request body
	arcDigest                         string
	// extra counts trailer bytes warcio.js reads as part of the record
	// when the HTTP head does not end inside the block.
	extra int64
}

type httpInfo struct {
	statusline string
	headers    jsHeaders
}

type pendingEntry struct {
	e   *Entry
	rec *record.Record
	ri  *recInfo
}

// NewIndexer returns an Indexer reading records from r; filename is
// written in every entry's "filename" field.
func NewIndexer(r record.Reader, filename string, opts ...Option) *Indexer {
	ix := &Indexer{r: r, filename: filename, maxBody: DefaultMaxRequestBody, arcDigests: true}
	for _, o := range opts {
		o(ix)
	}
	if f, ok := r.(interface{ Format() compio.Format }); ok {
		ix.plain = f.Format() == compio.Plain
	}
	ix.br = readers.Get().(*bufio.Reader)
	return ix
}

// readers are the Indexers' buffered readers, given back at the end of
// the records (or an error): indexing many small files allocated and
// cleared one each.
var readers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 64<<10) }}

// Next returns the next entry, or io.EOF after the last one. Errors of the
// record reader are returned as they are.
func (ix *Indexer) Next() (*Entry, error) {
	for len(ix.ready) == 0 {
		if ix.err != nil {
			ix.putReader()
			return nil, ix.err
		}
		if ix.eof {
			ix.putReader()
			return nil, io.EOF
		}
		ix.step()
	}
	e := ix.ready[0]
	ix.ready[0] = nil
	ix.ready = ix.ready[1:]
	return e, nil
}

func (ix *Indexer) putReader() {
	if ix.br != nil {
		ix.br.Reset(nil)
		readers.Put(ix.br)
		ix.br = nil
	}
}

// step reads one record (or the end), which completes the on-disk length
// of every record before it, and runs warcio's pairing logic.
func (ix *Indexer) step() {
	rec, err := ix.r.Next()
	if err != nil && err != io.EOF {
		ix.err = err
		return
	}
	// Entries waiting for their record's length can be finished now.
	for _, p := range ix.pending {
		ix.finish(p)
	}
	ix.pending = ix.pending[:0]

	var cur *recInfo
	if err == io.EOF {
		ix.eof = true
	} else {
		if ix.prepared != nil {
			if p := ix.prepared(rec); p != nil {
				c := *p.ri
				c.rec = rec
				cur = &c
			}
		}
		if cur == nil {
			cur, err = ix.info(rec)
			if err != nil {
				ix.err = err
				return
			}
		}
	}
	last := ix.last
	ix.last = cur
	if last == nil {
		return
	}
	switch {
	case cur == nil || last.hasTarget != cur.hasTarget || last.target != cur.target:
		ix.emit(last, nil)
	case cur.typ == "request" && (last.typ == "response" || last.typ == "revisit"):
		ix.last = nil
		ix.emit(last, cur)
	case (cur.typ == "response" || cur.typ == "revisit") && last.typ == "request":
		ix.last = nil
		ix.emit(cur, last)
	default:
		ix.emit(last, nil)
	}
	if ix.eof {
		for _, p := range ix.pending {
			ix.finish(p)
		}
		ix.pending = ix.pending[:0]
	}
}

// The WARC fields info reads, as jsHeaders holds their names (lower
// case: lowerToken of record.FieldType and so on; TestInfoKeys).
const (
	keyType          = "warc-type"
	keyTargetURI     = "warc-target-uri"
	keyDate          = "warc-date"
	keyContentType   = "content-type"
	keyPayloadDigest = "warc-payload-digest"
	keyProfile       = "warc-profile"
	keyContentLength = "content-length"
)

// info reads what indexing needs from rec, consuming as little of its
// block as it can.
func (ix *Indexer) info(rec *record.Record) (*recInfo, error) {
	ri := &recInfo{rec: rec}
	h := &ix.hdr
	h.fromRecordHeader(rec.Header)
	// the fields below, as h.get gives them (repeated ones joined), in
	// one pass
	var hasProfile bool
	for i, n := range h.names {
		var v *string
		var has *bool
		switch n {
		case keyType:
			v, has = &ri.typ, &ri.hasTyp
		case keyTargetURI:
			v, has = &ri.target, &ri.hasTarget
		case keyDate:
			v, has = &ri.date, &ri.hasDate
		case keyContentType:
			v, has = &ri.ct, &ri.hasCT
		case keyPayloadDigest:
			v, has = &ri.digest, &ri.hasDigest
		case keyProfile:
			v, has = &ri.profile, &hasProfile
		case keyContentLength:
			v, has = &ri.cl, &ri.hasCL
		default:
			continue
		}
		if *has {
			*v += ", " + h.values[i]
		} else {
			*v, *has = h.values[i], true
		}
	}
	if ri.hasTarget && strings.HasPrefix(ri.target, "<") && strings.HasSuffix(ri.target, ">") {
		ri.target = ri.target[1 : len(ri.target)-1]
		ri.hasTarget = ri.target != ""
	}
	if rec.ARC != nil && rec.Type() == record.ARCFiledesc {
		ri.typ, ri.hasTyp = string(record.ARCFiledesc), true
	}

	parseHTTP := false
	switch ri.typ {
	case "response", "request":
		parseHTTP = true
	case "revisit":
		parseHTTP = jsNumber(ri.cl) > 0
	}
	wantDigest := ix.arcDigests && rec.ARC != nil && !ri.hasDigest && ri.typ != string(record.ARCFiledesc)
	if !parseHTTP && !wantDigest {
		return ri, nil
	}
	block := rec.Block
	if block == nil {
		block = bytes.NewReader(nil)
	}
	ix.br.Reset(block)
	var payload io.Writer
	var sum hash.Hash
	if wantDigest {
		sum = sha1.New()
		payload = sum
	}
	if parseHTTP {
		var hi *httpInfo
		var chunked bool
		var extra int64
		var err error
		if rec.ARC != nil {
			hi, chunked, err = ix.readHeadTolerant()
		} else {
			hi, chunked, extra, err = ix.readHead()
		}
		if err != nil {
			return nil, ix.blockErr(rec, err)
		}
		ri.http = hi
		ri.extra = extra
		if chunked && payload != nil {
			payload = &httpmsg.Dechunker{W: sum}
		}
		if hi != nil && ri.typ == "request" {
			method, _, _ := strings.Cut(hi.statusline, " ")
			if method != "GET" {
				b, err := io.ReadAll(io.LimitReader(ix.br, int64(ix.maxBody)))
				if err != nil {
					return nil, ix.blockErr(rec, err)
				}
				ri.body = b
				if payload != nil {
					payload.Write(b)
				}
			}
		}
	}
	if payload != nil {
		if _, err := io.Copy(payload, ix.br); err != nil {
			return nil, ix.blockErr(rec, err)
		}
		ri.arcDigest = base32.StdEncoding.EncodeToString(sum.Sum(nil))
	}
	return ri, nil
}

func (ix *Indexer) blockErr(rec *record.Record, err error) error {
	var p *record.Problem
	if errors.As(err, &p) {
		return err
	}
	return fmt.Errorf("%s: record at offset %d: reading block: %w", ix.filename, rec.Offset, err)
}

// readHead reads an HTTP head from ix.br as warcio.js StatusAndHeadersParser
// does: the first line (trailing whitespace removed; empty means no head),
// then everything up to and including the first CRLF CRLF after it. A
// block that ends first is read as if the record's CRLF CRLF trailer
// followed it, as it does in the file; extra tells how many bytes of that
// trailer warcio.js then counts in the record.
func (ix *Indexer) readHead() (hi *httpInfo, chunked bool, extra int64, err error) {
	// the lines go to ix.scratch: decodeText copies what is kept
	line, err := appendLineCapped(ix.scratch[:0], ix.br, maxHead)
	if err != nil && err != io.EOF {
		return nil, false, 0, err
	}
	if !bytes.HasSuffix(line, []byte("\n")) {
		extra = 2 // the line ends with the trailer's first CRLF
	}
	status := jsTrimEnd(decodeText(line))
	if status == "" || extra > 0 {
		if status == "" {
			return nil, false, extra, nil
		}
		// The head runs on into the rest of the trailer and beyond: take
		// the status line alone.
		return &httpInfo{statusline: status}, false, extra, nil
	}
	hb := line[:0]
	defer func() { ix.scratch = hb[:0] }()
	for {
		hb, err = appendLineCapped(hb, ix.br, maxHead-len(hb))
		if err != nil && err != io.EOF {
			return nil, false, 0, err
		}
		if bytes.HasSuffix(hb, []byte("\r\n\r\n")) {
			break
		}
		if err == io.EOF || len(hb) >= maxHead {
			n := len(hb)
			hb = append(hb, "\r\n\r\n"...)
			end := bytes.Index(hb, []byte("\r\n\r\n")) + 4
			hb = hb[:end]
			extra = int64(end - n)
			break
		}
	}
	hi = &httpInfo{statusline: status}
	hi.headers.parseHeaderBlock(decodeText(hb))
	te, _ := hi.headers.get("transfer-encoding")
	return hi, strings.Contains(strings.ToLower(te), "chunked"), extra, nil
}

// readHeadTolerant reads the HTTP head of an ARC record with
// httpmsg.ReadHead (bare LF line ends, as old crawlers wrote them, are
// accepted), so that the payload digest covers the entity body exactly.
func (ix *Indexer) readHeadTolerant() (*httpInfo, bool, error) {
	h, err := httpmsg.ReadHead(ix.br)
	if errors.Is(err, httpmsg.ErrNotHTTP) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	line := h.Proto + " " + h.Status
	if h.Request {
		line = h.Method + " " + h.Target + " " + h.Proto
	} else if h.Reason != "" {
		line += " " + h.Reason
	}
	hi := &httpInfo{statusline: decodeText([]byte(line))}
	for _, f := range h.Header {
		if v := jsTrim(surt.ValidUTF8(f.Value)); v != "" {
			hi.headers.set(f.Name, v)
		}
	}
	return hi, h.Chunked(), nil
}

// appendLineCapped appends to dst what it reads of br: through the next
// '\n' (included), or max bytes, or to the end of input (then returning
// io.EOF with what was read).
func appendLineCapped(dst []byte, br *bufio.Reader, max int) ([]byte, error) {
	start := len(dst)
	for {
		frag, err := br.ReadSlice('\n')
		if n := len(dst) - start; n+len(frag) > max {
			return append(dst, frag[:max-n]...), nil
		}
		dst = append(dst, frag...)
		if err == bufio.ErrBufferFull {
			continue
		}
		return dst, err
	}
}

// emit builds the entry for rec (paired with req) unless warcio.js filters
// it out; it is finished once rec's on-disk length is known.
func (ix *Indexer) emit(ri, req *recInfo) {
	switch ri.typ {
	case "request", "warcinfo", string(record.ARCFiledesc):
		return
	case "metadata", "resource":
		if ri.hasCT && ri.ct == "application/warc-fields" {
			return
		}
	}
	e := &Entry{Fields: make([]Field, 0, 9)}
	url := ""
	if ri.hasTarget {
		url = ri.target
	}
	var method, requestBody string
	if req != nil && req.http != nil {
		m, _, _ := strings.Cut(req.http.statusline, " ")
		if m != "GET" {
			method = m
			url, requestBody = postToGet(url, m, &req.http.headers, req.body)
		}
	}
	switch {
	case url != "":
		e.URLKey = surt.Key(wellFormed(url))
	case ri.hasTarget:
		e.URLKey = surt.Key(ri.target)
	}
	if ri.hasDate {
		e.Timestamp = warcioTimestamp(ri.date)
	}
	if ri.hasTarget {
		e.Fields = append(e.Fields, Field{Name: FieldURL, Value: ri.target})
	}
	switch ri.typ {
	case "revisit":
		e.Fields = append(e.Fields, Field{Name: FieldMIME, Value: "warc/revisit"})
	case "response", "request":
		if ri.http != nil {
			if ct, _ := ri.http.headers.get("content-type"); ct != "" {
				mt, _, _ := strings.Cut(ct, ";")
				e.Fields = append(e.Fields, Field{Name: FieldMIME, Value: jsTrim(mt)})
			}
		}
	default:
		if ri.hasCT {
			e.Fields = append(e.Fields, Field{Name: FieldMIME, Value: ri.ct})
		}
	}
	if ri.http != nil && (ri.typ == "response" || ri.typ == "revisit") {
		// strings.Split(statusline, " ")[1], when there is one
		st := ""
		if _, rest, ok := strings.Cut(ri.http.statusline, " "); ok {
			code, _, _ := strings.Cut(rest, " ")
			st = jsNumberString(jsNumber(code))
		}
		if ix.replayRevisits && ri.typ == "revisit" && st == "304" && strings.HasSuffix(ri.profile, "/revisit/server-not-modified") {
			st = "200"
		}
		e.Fields = append(e.Fields, Field{Name: FieldStatus, Value: st})
	}
	if ri.hasDigest && ix.fullDigest {
		e.Fields = append(e.Fields, Field{Name: FieldDigest, Value: ri.digest})
	} else if ri.hasDigest {
		// strings.SplitN(digest, ":", 3)[1], when there is one
		if _, rest, ok := strings.Cut(ri.digest, ":"); ok {
			v, _, _ := strings.Cut(rest, ":")
			e.Fields = append(e.Fields, Field{Name: FieldDigest, Value: v})
		}
	} else if ri.arcDigest != "" {
		e.Fields = append(e.Fields, Field{Name: FieldDigest, Value: ri.arcDigest})
	}
	e.Fields = append(e.Fields,
		Field{Name: FieldLength},
		Field{Name: FieldOffset, Value: strconv.FormatInt(ri.rec.Offset, 10)},
		Field{Name: FieldFilename, Value: ix.filename})
	if method != "" {
		e.Fields = append(e.Fields, Field{Name: FieldMethod, Value: method})
	}
	if requestBody != "" {
		e.Fields = append(e.Fields, Field{Name: FieldRequestBody, Value: requestBody})
	}
	ix.pending = append(ix.pending, pendingEntry{e: e, rec: ri.rec, ri: ri})
}

// finish sets the length of an entry whose record has been passed.
func (ix *Indexer) finish(p pendingEntry) {
	n := p.rec.DiskLength
	if ix.plain && p.rec.ARC == nil {
		n = ix.plainLength(p.ri)
	}
	for i := range p.e.Fields {
		if p.e.Fields[i].Name == FieldLength {
			p.e.Fields[i].Value = strconv.FormatInt(n, 10)
		}
	}
	ix.ready = append(ix.ready, p.e)
}

// plainLength is warcio.js's length of a record in an uncompressed WARC:
// the header and the Content-Length bytes that were there, without the
// newlines that follow.
func (ix *Indexer) plainLength(ri *recInfo) int64 {
	disk := ri.rec.DiskLength
	if ix.src != nil {
		if hl, ok := headerLength(ix.src, ri.rec.Offset); ok {
			cl := jsNumber(ri.cl)
			if !(cl >= 0) {
				cl = 0
			}
			n := hl + int64(cl) + ri.extra
			if cl > float64(disk) || n > disk {
				n = disk
			}
			return n
		}
	}
	if disk >= 4 {
		return disk - 4
	}
	return disk
}

// headerLength finds the size of the WARC header at off: its first line,
// then through the first CRLF CRLF.
func headerLength(ra io.ReaderAt, off int64) (int64, bool) {
	var buf []byte
	chunk := make([]byte, 4096)
	first := -1
	for len(buf) < maxHead {
		n, err := ra.ReadAt(chunk, off+int64(len(buf)))
		buf = append(buf, chunk[:n]...)
		if first < 0 {
			first = bytes.IndexByte(buf, '\n')
		}
		if first >= 0 {
			if i := bytes.Index(buf[first+1:], []byte("\r\n\r\n")); i >= 0 {
				return int64(first + 1 + i + 4), true
			}
		}
		if err != nil || n == 0 {
			return 0, false
		}
	}
	return 0, false
}

// warcioTimestamp is date.replace(/[-:T]/g, "").slice(0, 14).
func warcioTimestamp(date string) string {
	b := make([]byte, 0, 16)
	for i := 0; i < len(date) && len(b) < 14; i++ {
		c := date[i]
		if c == '-' || c == ':' || c == 'T' {
			continue
		}
		if c >= 0x80 {
			// Non-ASCII: count in UTF-16 code units, the slow way.
			rest := strings.NewReplacer("-", "", ":", "", "T", "").Replace(date[i:])
			return string(b) + utf16Slice(rest, 14-len(b))
		}
		b = append(b, c)
	}
	return string(b)
}
