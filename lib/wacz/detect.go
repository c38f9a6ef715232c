package wacz

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/arcport/arcport/lib/httpmsg"
	"github.com/arcport/arcport/lib/record"
	"github.com/klauspost/compress/gzip"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Limits of page detection: how much of a record block is kept to find the
// title (without Detector.Full: the page is read up to its </title>) or
// the whole page (with Full), and how much title and text is kept.
const (
	titleScanLimit = 64 << 10
	textScanLimit  = 8 << 20
	MaxTitle       = 1024
	MaxText        = 256 << 10
)

// Detector finds the pages of a collection among its records: HTML
// responses with status 200 (not redirects, not documents requested as
// frames), or resource records of type text/html. It reads their <title>
// and, with Text set, their visible text. Feed it each record's block with
// Begin / End as the block streams by.
//
// Frames are told apart by the Sec-Fetch-Dest header of their request
// record (browser-based crawls write it) and by the <iframe> and <frame>
// tags of the pages read. Without Full, a page is read only up to its
// </title> (cheap: most of a page's bytes need not be inflated), so only
// frames declared before it are seen; with Full (and with Text) pages are
// read whole.
type Detector struct {
	// Text asks for the page text (for pages.jsonl "text").
	Text bool
	// Full reads pages whole (to find every frame they embed).
	Full bool

	pages  []*Page
	byURL  map[string]*Page
	frames map[string]bool // requested as frames (Sec-Fetch-Dest)
	framed map[string]bool // src of a frame in some page
	buf    bytes.Buffer
	limit  int
	active bool
	done   bool // the record turned out not to matter (not an HTML 200)
	jobs   chan *pageJob
	done2  []*pageJob // deferred, in record order
	wg     sync.WaitGroup
	typ    record.Type
	headOK bool          // buf holds a complete HTTP head
	head   *httpmsg.Head // the head read from buf (200, HTML) when complete
	body   int           // where the HTTP body starts in buf (-1: unknown)
	last   *Page         // the page End made for the latest record
	titled bool          // </title> seen (enough without Full)

	// Past MemLimit bytes of pages (0: DefaultPageMemory) the pages found
	// so far go to an external sort in TempDir (see pageSpill), and byURL
	// forgets them: the first page of each URL is then found at the end.
	MemLimit int
	TempDir  string
	// Requested are the URLs whose first page Lookup must still find after
	// the pages went to disk (the --url and --pages requests).
	Requested map[string]bool
	memSize   int
	seq       int64
	seqOf     map[*Page]int64
	spill     *pageSpill
	spilled   int              // pages moved to the spill
	kept      map[string]*Page // first page of a Requested URL, once spilled
	pending   sync.WaitGroup   // deferred jobs not yet done
	jobErr    error            // the first damaged member a job found

	isText bool              // the current record is a urn:text: resource
	texts  map[string]string // page URL -> text of its first urn:text: record
	titles map[string]string // page URL -> title of its first urn:text: record
}

// TextURN is the WARC-Target-URI prefix of a resource record holding the
// text of the page named after it, as a browser rendered it (Browsertrix
// Crawler's "urn:text:" + page URL, mirrorget --browser): its text goes to
// the page's pages.jsonl entry, with or without Text.
const TextURN = "urn:text:"

// NewDetector returns an empty Detector; text asks for page text, full
// for whole pages to be read (text implies it).
func NewDetector(text, full bool) *Detector {
	return &Detector{Text: text, Full: full || text, byURL: map[string]*Page{}, frames: map[string]bool{}, framed: map[string]bool{},
		seqOf: map[*Page]int64{}, kept: map[string]*Page{}}
}

// Begin starts a record. It returns the writer to copy the record's block to,
// or nil when the record cannot be a page (nothing needs to be fed then).
func (d *Detector) Begin(rec *record.Record) io.Writer {
	d.checkMemory()
	d.active, d.done, d.headOK, d.titled, d.body = false, false, false, false, -1
	d.head = nil
	d.isText = false
	d.buf.Reset()
	if rec.TargetURI() == "" {
		return nil
	}
	ct := httpmsg.MediaType(rec.ContentType())
	switch rec.Type() {
	case record.Request:
		if ct != "application/http" {
			return nil
		}
		d.limit = 64 << 10
	case record.Response:
		if ct != "application/http" {
			return nil
		}
		d.limit = d.scanLimit()
	case record.Resource:
		if strings.HasPrefix(rec.TargetURI(), TextURN) {
			d.isText = true
			d.limit = MaxText + 4
			break
		}
		if !isHTML(ct) {
			return nil
		}
		d.limit = d.scanLimit()
	default:
		return nil
	}
	d.active = true
	d.typ = rec.Type()
	if d.typ == record.Resource {
		d.body = 0
	}
	return detectorSink{d}
}

func (d *Detector) scanLimit() int {
	if d.Full {
		return textScanLimit
	}
	return titleScanLimit
}

type detectorSink struct{ d *Detector }

func (s detectorSink) Write(p []byte) (int, error) {
	d := s.d
	if d.done || d.titled {
		return len(p), nil
	}
	start := d.buf.Len()
	if room := d.limit - start; room > 0 {
		d.buf.Write(p[:min(room, len(p))])
	}
	if !d.headOK && (d.typ == record.Response || d.typ == record.Request) {
		b := d.buf.Bytes()
		if i := headEnd(b); i >= 0 {
			d.headOK = true
			d.body = i
			if d.typ == record.Request {
				d.done = true
			} else if h, err := httpmsg.ParseHead(b); err != nil || h.Request || h.StatusCode != 200 || !isHTML(h.MIME()) {
				d.done = true
			} else if h.Complete {
				// pageContent would read the same head from the page
				// (the same bytes up to its blank line): endPrep keeps it
				d.head = h
			}
		}
	}
	if !d.Full && !d.done && !d.isText && d.body >= 0 {
		// look for </title> in what just came (and the few bytes before)
		from := max(d.body, start-8)
		if hasFold(d.buf.Bytes()[from:], "</title") {
			d.titled = true
		}
	}
	return len(p), nil
}

// headEnd returns where the HTTP head in b ends (after its blank line), or
// -1.
func headEnd(b []byte) int {
	// the first of CRLF CRLF and LF LF: in one pass over the line ends
	// (two bytes.Index read on through the body for the one not there)
	for p := 0; ; p++ {
		k := bytes.IndexByte(b[p:], '\n')
		if k < 0 {
			return -1
		}
		p += k
		if p+1 < len(b) && b[p+1] == '\n' {
			return p + 2
		}
		if p >= 1 && p+2 < len(b) && b[p-1] == '\r' && b[p+1] == '\r' && b[p+2] == '\n' {
			return p + 3
		}
	}
}

// hasFold reports whether b contains s (lower case ASCII), ignoring case.
func hasFold(b []byte, s string) bool { return indexFold(b, s) >= 0 }

// Wants reports whether the detector still needs bytes of the current
// record's block: a reader that can skip the rest of a block (without
// decompressing it) asks before reading on.
func (d *Detector) Wants() bool {
	return d.active && !d.done && !d.titled && d.buf.Len() < d.limit
}

// End finishes the record started with Begin, once its whole block was fed.
func (d *Detector) End(rec *record.Record) { d.apply(rec, d.endPrep(rec)) }

// detectPrep is what the detector makes of one record by itself (Begin,
// the block fed while it Wants, End's reading of it). What becomes of it
// depends on the records before (frames, pages found already): apply.
type detectPrep struct {
	active    bool // Begin took the record
	frameDest bool // a request for a frame (Sec-Fetch-Dest)
	page      bool // an HTML 200 response or resource
	text      bool // a urn:text: resource, its text in info.text
	info      htmlInfo
	ok        bool // info was read
}

// endPrep ends the record started with Begin and returns what was made of
// it.
func (d *Detector) endPrep(rec *record.Record) detectPrep {
	if !d.active {
		return detectPrep{}
	}
	d.active = false
	pp := detectPrep{active: true}
	if d.isText {
		d.isText = false
		pp.text = true
		pp.info.text = renderedText(d.buf.Bytes())
		pp.info.title = renderedTitle(rec)
		return pp
	}
	switch rec.Type() {
	case record.Request:
		h, err := httpmsg.ParseHead(d.buf.Bytes())
		if err == nil && h.Request {
			switch strings.ToLower(h.Get("Sec-Fetch-Dest")) {
			case "iframe", "frame", "embed", "object":
				pp.frameDest = true
			}
		}
		return pp
	case record.Response:
		if d.done {
			return pp
		}
	}
	pp.page = true
	doc := d.buf.Bytes()
	if d.titled {
		// Read up to </title>: what came after it in the same piece of
		// input (its size differs between the readers) must not count,
		// neither frames nor bytes that would make the page Windows-1252.
		doc = cutAfterTitle(doc, d.body)
	}
	if h := d.head; h != nil && rec.Type() == record.Response && h.Len <= int64(len(doc)) {
		pp.info, pp.ok = pageBody(h, bytes.NewReader(doc[h.Len:]), d.Text)
		return pp
	}
	pp.info, pp.ok = pageContent(rec.Type(), bytes.NewReader(doc), d.Text)
	return pp
}

// cutAfterTitle returns doc up to the end of the first </title> tag at or
// after from (doc whole when it has none, or the tag is not closed).
func cutAfterTitle(doc []byte, from int) []byte {
	i := indexFold(doc[from:], "</title")
	if i < 0 {
		return doc
	}
	j := bytes.IndexByte(doc[from+i:], '>')
	if j < 0 {
		return doc
	}
	return doc[:from+i+j+1]
}

// indexFold returns the index of the first s (lower case ASCII) in b,
// ignoring case, or -1.
func indexFold(b []byte, s string) int {
	for i := 0; i+len(s) <= len(b); {
		k := bytes.IndexByte(b[i:], s[0])
		if k < 0 {
			return -1
		}
		i += k
		if i+len(s) <= len(b) && bytes.EqualFold(b[i:i+len(s)], []byte(s)) {
			return i
		}
		i++
	}
	return -1
}

// Prepared takes what a Detector with the same settings made of rec on
// another goroutine (Begin, the block fed, endPrep) in place of Begin, the
// block and End.
func (d *Detector) prepared(rec *record.Record, pp detectPrep) {
	d.checkMemory()
	d.active = false
	d.apply(rec, pp)
}

// apply adds what was made of rec to the detector's state.
func (d *Detector) apply(rec *record.Record, pp detectPrep) {
	d.last = nil
	if !pp.active {
		return
	}
	u := rec.TargetURI()
	if rec.Type() == record.Request {
		if pp.frameDest {
			d.frames[u] = true
		}
		return
	}
	if pp.text {
		pu := strings.Clone(strings.TrimPrefix(u, TextURN))
		if d.texts == nil {
			d.texts = map[string]string{}
		}
		if _, ok := d.texts[pu]; !ok && pp.info.text != "" {
			d.texts[pu] = pp.info.text
		}
		if _, ok := d.titles[pu]; !ok && pp.info.title != "" {
			if d.titles == nil {
				d.titles = map[string]string{}
			}
			d.titles[pu] = pp.info.title
		}
		return
	}
	if !pp.page {
		return
	}
	p := d.newPage(rec)
	if p == nil {
		return
	}
	if !pp.ok {
		d.drop(p)
		return
	}
	d.memSize -= pageBytes(p)
	p.Title, p.Text = pp.info.title, pp.info.text
	d.memSize += pageBytes(p)
	d.addFrames(u, pp.info.frames)
	d.last = p
}

// Forget drops the page End made for the latest record (when the record is
// to be read again, whole, by another reader).
func (d *Detector) Forget() {
	if d.last != nil {
		d.drop(d.last)
		d.last = nil
	}
}

// newPage adds the page of rec (nil when its URL has a page already or its
// date is bad); its title comes later.
func (d *Detector) newPage(rec *record.Record) *Page {
	// a copy: the record's field values are cut from its whole header,
	// which a page kept for the rest of the run would keep alive
	u := strings.Clone(rec.TargetURI())
	if _, seen := d.byURL[u]; seen {
		return nil
	}
	t, err := rec.Date()
	if err != nil {
		return nil
	}
	p := &Page{URL: u, TS: FormatTime(t)}
	p.ID = PageID(p.TS, u)
	d.pages = append(d.pages, p)
	d.byURL[u] = p
	d.seqOf[p] = d.seq
	d.seq++
	d.memSize += pageBytes(p)
	return p
}

// drop removes the page just added (its record turned out not to be one).
func (d *Detector) drop(p *Page) {
	if n := len(d.pages); n > 0 && d.pages[n-1] == p {
		d.pages = d.pages[:n-1]
		delete(d.byURL, p.URL)
		delete(d.seqOf, p)
		d.memSize -= pageBytes(p)
	}
}

func (d *Detector) addFrames(page string, frames []string) {
	if len(frames) == 0 {
		return
	}
	base, _ := url.Parse(page)
	for _, f := range frames {
		if r := resolveRef(base, f); r != "" {
			d.framed[r] = true
		}
	}
}

// pageContent reads a block as page detection does: for a response, the
// HTTP head must say 200 and HTML, and the body is de-chunked and decoded;
// a resource block is the document itself. A cut-off or damaged body still
// gives what could be read.
// headReaders are the readers pageContent reads an HTTP head with.
var headReaders = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 4096) }}

func pageContent(typ record.Type, block io.Reader, text bool) (htmlInfo, bool) {
	if typ == record.Response {
		br := headReaders.Get().(*bufio.Reader)
		br.Reset(block)
		defer func() { br.Reset(nil); headReaders.Put(br) }()
		h, err := httpmsg.ReadHead(br)
		if err != nil || h.Request || h.StatusCode != 200 || !isHTML(h.MIME()) {
			return htmlInfo{}, false
		}
		return pageBody(h, br, text)
	}
	return pageBody(nil, block, text)
}

// pageBody is pageContent past the HTTP head h (nil: no head), read
// already: body is what follows it.
func pageBody(h *httpmsg.Head, body io.Reader, text bool) (htmlInfo, bool) {
	if h != nil {
		if h.Chunked() {
			body = httpmsg.NewChunkedReader(body)
		}
		codings := h.ContentEncoding()
		for i := len(codings) - 1; i >= 0; i-- {
			dec, err := httpmsg.Decoder(body, codings[i])
			if err != nil {
				return htmlInfo{}, true
			}
			defer dec.Close()
			body = dec
		}
	}
	buf := contentPool.Get().(*bytes.Buffer)
	buf.Reset()
	defer contentPool.Put(buf)
	buf.ReadFrom(io.LimitReader(body, textScanLimit)) // what could be read
	return scanHTML(buf.Bytes(), text), true
}

var contentPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// pageJob is page detection of one record left to a worker: the record's
// gzip member, inflated there.
type pageJob struct {
	p      *Page
	typ    record.Type
	member []byte
	hdrLen int64
	off    int64 // of the member, for errors
	info   htmlInfo
	ok     bool
	err    error
}

// Defer hands the current record's page detection to a worker goroutine,
// which inflates member (the record's gzip member, hdrLen bytes of WARC
// header first) itself. It returns false when the record is not deferred
// (call End then). Results are in once Wait returns.
func (d *Detector) Defer(rec *record.Record, member []byte, hdrLen, off int64) bool {
	if !d.active || d.done || d.isText || rec.Type() != record.Response && rec.Type() != record.Resource {
		return false
	}
	d.active = false
	p := d.newPage(rec)
	if p == nil {
		return true
	}
	if d.jobs == nil {
		d.jobs = make(chan *pageJob, 64)
		workers := max(runtime.GOMAXPROCS(0)-1, 1)
		for range workers {
			d.wg.Add(1)
			go d.work()
		}
	}
	job := &pageJob{p: p, typ: rec.Type(), member: member, hdrLen: hdrLen, off: off}
	d.done2 = append(d.done2, job)
	d.pending.Add(1)
	d.jobs <- job
	return true
}

func (d *Detector) work() {
	defer d.wg.Done()
	var zr *gzip.Reader
	for job := range d.jobs {
		var err error
		if zr == nil {
			zr, err = gzip.NewReader(bytes.NewReader(job.member))
		} else {
			err = zr.Reset(bytes.NewReader(job.member))
		}
		if err == nil {
			zr.Multistream(false)
			if _, err = io.CopyN(io.Discard, zr, job.hdrLen); err == nil {
				job.info, job.ok = pageContent(job.typ, zr, d.Text)
				// the rest of the member: its CRC is checked at its end
				_, err = io.Copy(io.Discard, zr)
			}
		}
		if err != nil {
			job.err = fmt.Errorf("gzip member at offset %d: %v", job.off, err)
		}
		job.member = nil
		d.pending.Done()
	}
}

// Wait waits for deferred page detection and merges its results. It
// returns the first damaged gzip member a worker found.
func (d *Detector) Wait() error {
	if d.jobs != nil {
		close(d.jobs)
		d.wg.Wait()
		d.jobs = nil
	}
	d.settle()
	return d.jobErr
}

// settle merges the results of the deferred jobs, all of which are done.
func (d *Detector) settle() {
	gone := map[*Page]bool{}
	for _, job := range d.done2 {
		if job.err != nil && d.jobErr == nil {
			d.jobErr = job.err
		}
		if !job.ok {
			gone[job.p] = true
			continue
		}
		d.memSize -= pageBytes(job.p)
		job.p.Title, job.p.Text = job.info.title, job.info.text
		d.memSize += pageBytes(job.p)
		d.addFrames(job.p.URL, job.info.frames)
	}
	d.done2 = nil
	if len(gone) > 0 {
		kept := d.pages[:0]
		for _, p := range d.pages {
			if gone[p] {
				delete(d.byURL, p.URL)
				delete(d.seqOf, p)
				d.memSize -= pageBytes(p)
				continue
			}
			kept = append(kept, p)
		}
		clear(d.pages[len(kept):])
		d.pages = kept
	}
}

// checkMemory moves the pages found so far to the spill once they hold
// more than MemLimit bytes. Deferred jobs are waited for first (at most
// the job queue's length), so that every page moved is final. The page
// of the latest record stays (Forget may still drop it).
func (d *Detector) checkMemory() {
	limit := d.MemLimit
	if limit <= 0 {
		limit = DefaultPageMemory
	}
	if d.memSize <= limit {
		return
	}
	d.pending.Wait()
	d.settle()
	if d.spill == nil {
		d.spill = newPageSpill(d.TempDir)
	}
	var keep []*Page
	for _, p := range d.pages {
		if p == d.last {
			keep = append(keep, p)
			continue
		}
		if d.Requested[p.URL] && d.kept[p.URL] == nil {
			d.kept[p.URL] = p
		}
		if err := d.spill.add(p, d.seqOf[p]); err != nil && d.jobErr == nil {
			d.jobErr = fmt.Errorf("page list: %v", err)
		}
		d.spilled++
		delete(d.byURL, p.URL)
		delete(d.seqOf, p)
	}
	clear(d.pages)
	d.pages = append(d.pages[:0], keep...)
	d.memSize = 0
	for _, p := range d.pages {
		d.memSize += pageBytes(p)
	}
}

// Pages returns the pages found, in the order their records came, without
// the documents that were requested as frames (Sec-Fetch-Dest of their
// request record) or that some page embeds with <iframe> or <frame>. It
// holds every page in memory: EachPage does not.
func (d *Detector) Pages() []*Page {
	var out []*Page
	d.EachPage(func(p *Page) error { out = append(out, p); return nil })
	return out
}

// EachPage calls fn with each page Pages would return, in the same order,
// reading back the pages moved to disk (call it once, after Wait).
func (d *Detector) EachPage(fn0 func(*Page) error) error {
	fn := fn0
	if len(d.texts) > 0 || len(d.titles) > 0 {
		fn = func(p *Page) error {
			if t, ok := d.texts[p.URL]; ok {
				p.Text = t
			}
			if t, ok := d.titles[p.URL]; ok {
				p.Title = t
			}
			return fn0(p)
		}
	}
	keep := func(p *Page) bool { return !d.frames[p.URL] && !d.framed[p.URL] }
	if d.spill == nil {
		for _, p := range d.pages {
			if keep(p) {
				if err := fn(p); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for _, p := range d.pages {
		if err := d.spill.add(p, d.seqOf[p]); err != nil {
			return fmt.Errorf("page list: %v", err)
		}
	}
	d.pages, d.byURL, d.seqOf = nil, map[string]*Page{}, map[*Page]int64{}
	sp := d.spill
	d.spill = nil
	return sp.each(d.TempDir, keep, fn)
}

// resolveRef resolves a link against the page URL, dropping the fragment;
// "" for what is not an http(s) URL.
func resolveRef(base *url.URL, ref string) string {
	if base == nil {
		return ""
	}
	r, err := url.Parse(ref)
	if err != nil {
		return ""
	}
	abs := base.ResolveReference(r)
	if abs.Scheme != "http" && abs.Scheme != "https" {
		return ""
	}
	abs.Fragment = ""
	abs.RawFragment = ""
	return abs.String()
}

// RenderedText returns the text of the first urn:text: record of page URL
// u, if the input had one.
func (d *Detector) RenderedText(u string) (string, bool) {
	t, ok := d.texts[u]
	return t, ok
}

// RenderedTitle returns the title of the first urn:text: record of page
// URL u that has one (document.title as rendered), if the input had one.
func (d *Detector) RenderedTitle(u string) (string, bool) {
	t, ok := d.titles[u]
	return t, ok
}

// renderedTitle is the title a urn:text: record carries in its
// WARC-JSON-Metadata field ({"title": ...}, mirrorget --browser), made one
// line and cut to MaxTitle.
func renderedTitle(rec *record.Record) string {
	m := rec.Header.Get(record.FieldJSONMetadata)
	if m == "" {
		return ""
	}
	var v struct {
		Title string `json:"title"`
	}
	if json.Unmarshal([]byte(m), &v) != nil {
		return ""
	}
	return collapse(strings.ToValidUTF8(v.Title, "\uFFFD"), MaxTitle)
}

// renderedText is the text of a urn:text: block for pages.jsonl: bytes
// that are not UTF-8 replaced, control characters but line breaks and tabs
// made spaces, trimmed, cut to MaxText bytes on a rune boundary. Line
// breaks are kept, as Browsertrix Crawler keeps them.
func renderedText(b []byte) string {
	s := strings.ToValidUTF8(string(b), "\uFFFD")
	s = strings.Map(func(r rune) rune {
		if r != '\n' && r != '\t' && unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	s = strings.TrimSpace(s)
	if len(s) > MaxText {
		i := MaxText
		for i > 0 && !utf8.RuneStart(s[i]) {
			i--
		}
		s = strings.TrimSpace(s[:i])
	}
	return s
}

// Lookup returns the page found for URL u, if any (frames included).
func (d *Detector) Lookup(u string) *Page {
	if p := d.kept[u]; p != nil {
		return p
	}
	return d.byURL[u]
}

func isHTML(mime string) bool {
	return mime == "text/html" || mime == "application/xhtml+xml" || mime == "application/xhtml"
}

// ExtractHTML returns the <title> of an HTML document and, with text set,
// its visible text (script, style and similar elements left out, white space
// collapsed), each cut to MaxTitle / MaxText bytes. Bytes that are not UTF-8
// are read as Windows-1252.
func ExtractHTML(doc []byte, text bool) (title, body string) {
	h := scanHTML(doc, text)
	return h.title, h.text
}

// htmlInfo is what page detection takes from an HTML document.
type htmlInfo struct {
	title, text string
	frames      []string // src of iframe and frame elements, as written
}

func scanHTML(doc []byte, text bool) htmlInfo {
	if !utf8.Valid(doc) {
		doc = fromWindows1252(doc)
	}
	var info htmlInfo
	z := html.NewTokenizer(bytes.NewReader(doc))
	var tb, xb strings.Builder
	inTitle, gotTitle := false, false
	skip := 0 // depth inside elements whose text is not shown
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			info.title, info.text = collapse(tb.String(), MaxTitle), collapse(xb.String(), MaxText)
			info.frames = findFrames(doc)
			return info
		case html.StartTagToken, html.SelfClosingTagToken:
			name, _ := z.TagName()
			a := atom.Lookup(name)
			switch a {
			case atom.Title:
				if tt == html.StartTagToken && !gotTitle && skip == 0 {
					inTitle = true
				}
			case atom.Iframe:
				if tt == html.StartTagToken {
					skip++
				}
			case atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Svg, atom.Math, atom.Object:
				if tt == html.StartTagToken {
					skip++
				}
			case atom.Br, atom.P, atom.Div, atom.Li, atom.Tr, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
				xb.WriteByte(' ')
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			switch atom.Lookup(name) {
			case atom.Title:
				if inTitle {
					inTitle, gotTitle = false, true
					if !text {
						info.title = collapse(tb.String(), MaxTitle)
						info.frames = findFrames(doc)
						return info
					}
				}
			case atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Svg, atom.Math, atom.Iframe, atom.Object:
				if skip > 0 {
					skip--
				}
			}
		case html.TextToken:
			if inTitle {
				if tb.Len() < 4*MaxTitle {
					tb.Write(runePrefix(z.Text(), 4*MaxTitle-tb.Len()))
				}
			} else if text && skip == 0 && xb.Len() < 2*MaxText {
				xb.Write(runePrefix(z.Text(), 2*MaxText-xb.Len()))
				xb.WriteByte(' ')
			}
		}
	}
}

// runePrefix returns b cut to at most n bytes on a rune boundary (one
// text token of a page can be as long as the page: the text kept before
// collapse is bounded by its limit, not by the token).
func runePrefix(b []byte, n int) []byte {
	if len(b) <= n {
		return b
	}
	for n > 0 && !utf8.RuneStart(b[n]) {
		n--
	}
	return b[:n]
}

// findFrames returns the src of every <iframe> and <frame> tag of doc,
// found by a byte search (much cheaper than tokenising the whole document)
// and read with the tokenizer from the tag on.
func findFrames(doc []byte) []string {
	var out []string
	for i := 0; i < len(doc) && len(out) < 1000; {
		j := bytes.IndexByte(doc[i:], '<')
		if j < 0 {
			break
		}
		i += j + 1
		rest := doc[i:]
		n := 0
		switch {
		case len(rest) > 6 && bytes.EqualFold(rest[:6], []byte("iframe")):
			n = 6
		case len(rest) > 5 && bytes.EqualFold(rest[:5], []byte("frame")):
			n = 5
		default:
			continue
		}
		if c := rest[n]; c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '/' && c != '>' {
			continue
		}
		z := html.NewTokenizer(bytes.NewReader(doc[i-1 : min(len(doc), i-1+8192)]))
		if tt := z.Next(); tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		for {
			k, v, more := z.TagAttr()
			if string(k) == "src" {
				if src := strings.TrimSpace(string(v)); src != "" {
					out = append(out, src)
				}
				break
			}
			if !more {
				break
			}
		}
	}
	return out
}

// collapse turns control characters (NUL, DEL, C1: never visible text,
// and six bytes each once JSON-escaped) into spaces, runs of white space
// into one space, trims, and cuts s to at most n bytes on a rune boundary.
func collapse(s string, n int) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		i := n
		for i > 0 && !utf8.RuneStart(s[i]) {
			i--
		}
		s = s[:i]
	}
	return s
}

var cp1252 = [32]rune{
	0x20AC, 0x81, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x8D, 0x017D, 0x8F,
	0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x9D, 0x017E, 0x0178,
}

func fromWindows1252(b []byte) []byte {
	out := make([]byte, 0, len(b)+len(b)/8)
	for _, c := range b {
		switch {
		case c < 0x80:
			out = append(out, c)
		case c < 0xA0:
			out = utf8.AppendRune(out, cp1252[c-0x80])
		default:
			out = utf8.AppendRune(out, rune(c))
		}
	}
	return out
}

// pageSet orders the final page list: seeds first (in the order given),
// then requested or detected pages in capture order.
type pageSet struct {
	list  []*Page
	byURL map[string]bool
}

func (s *pageSet) add(p *Page) {
	if s.byURL == nil {
		s.byURL = map[string]bool{}
	}
	key := p.TS + " " + p.URL
	if s.byURL[key] || s.byURL[p.URL] && !p.Seed {
		return
	}
	s.byURL[key] = true
	s.byURL[p.URL] = true
	s.list = append(s.list, p)
}

// captureTimes keeps the capture times of the URLs asked for with --url
// and --pages (responses, resources and revisits), so those requests can be
// matched to a capture. Other URLs are not kept: memory stays proportional
// to the requests, not to the archive.
type captureTimes struct {
	want  map[string]bool // every variant of every requested URL
	times map[string][]time.Time
}

func newCaptureTimes(reqs []string) *captureTimes {
	c := &captureTimes{want: map[string]bool{}, times: map[string][]time.Time{}}
	for _, r := range reqs {
		for _, v := range urlVariants(r) {
			c.want[v] = true
		}
	}
	return c
}

func (c *captureTimes) add(u string, t time.Time) {
	if c.want[u] {
		c.times[u] = append(c.times[u], t)
	}
}

// find returns the capture of u closest to want (the first one when want is
// zero), trying the other scheme (http/https) and a trailing slash too.
func (c *captureTimes) find(u string, want time.Time) (string, time.Time, bool) {
	for _, cand := range urlVariants(u) {
		ts := c.times[cand]
		if len(ts) == 0 {
			continue
		}
		if want.IsZero() {
			s := append([]time.Time(nil), ts...)
			sort.Slice(s, func(i, j int) bool { return s[i].Before(s[j]) })
			return cand, s[0], true
		}
		best := ts[0]
		for _, t := range ts[1:] {
			if absDur(t.Sub(want)) < absDur(best.Sub(want)) {
				best = t
			}
		}
		return cand, best, true
	}
	return "", time.Time{}, false
}

func absDur(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

func urlVariants(u string) []string {
	out := []string{u}
	add := func(s string) {
		for _, o := range out {
			if o == s {
				return
			}
		}
		out = append(out, s)
	}
	base := []string{u}
	if rest, ok := strings.CutPrefix(u, "http://"); ok {
		base = append(base, "https://"+rest)
	} else if rest, ok := strings.CutPrefix(u, "https://"); ok {
		base = append(base, "http://"+rest)
	}
	for _, b := range base {
		add(b)
		if strings.Count(b, "/") == 2 {
			add(b + "/")
		}
	}
	return out
}
