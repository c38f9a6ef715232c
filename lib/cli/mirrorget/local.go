package mirrorget

import (
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"io/fs"
	"mime"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/arcport/arcport/lib/crawl"
	"github.com/arcport/arcport/lib/htcache"
	"github.com/arcport/arcport/lib/httpmsg"
	"github.com/arcport/arcport/lib/internal/safefs"
	"github.com/arcport/arcport/lib/links"
	"github.com/arcport/arcport/lib/mirror"
	"github.com/arcport/arcport/lib/record"
)

// localMirror keeps the browsable copy (chapter 4.4) and its HTTrack cache
// (chapter 4.5): files are written as captures arrive, holding the original
// bodies; at the end every saved page (HTML, CSS, JS) is rewritten in place
// so that links to saved files are relative and all others absolute. The
// cache keeps original bodies of pages and the validators that let the next
// run ask "has it changed?".
//
// Everything in DIR is written through a safefs.Root: a symbolic link
// planted there (to a file or a folder) or a name leaving DIR is refused,
// reported on one line naming the path, and the rest of the mirror goes
// on; finish then fails (exit status 1).
type localMirror struct {
	ctx   context.Context // when done, a body being written is dropped
	dir   string
	root  *safefs.Root
	namer *mirror.Namer
	logf  func(string, ...any)

	refMu    sync.Mutex
	refused  int   // paths refused by root
	firstRef error // the first of them

	mu      sync.Mutex // guards old*, read by crawler workers
	old     *htcache.Cache
	oldPath string
	oldEnts map[string]*htcache.Entry // previous run, by canonical URL

	noCache  bool   // hts-cache/ refused: no cache read or written
	cacheTmp string // relative to dir
	cacheF   *os.File
	cw       *htcache.Writer
	dirs     map[string]bool // directories known to exist, relative to dir

	saved   map[string]bool // local paths present and current in this run
	visited map[string]bool // URLs written to the new cache
	pages   []page          // documents to rewrite at the end
	seeds   []string

	parseLimit int64 // crawl.Config.ParseLimit: pages are read up to there
	warc       bool  // a WARC stream is written: revisits, and X-WARC-* lines in the cache
	resumed    bool  // --continue: pages of the earlier run are rewritten too

	// Purge (HTTrack -X) and error pages: see finish.
	noPurge bool                // --purge=off: an update keeps files no longer on the site
	hlog    *htsLog             // DIR/hts-log.txt
	current map[string]bool     // local paths written or kept by this run
	gone    map[string]*goneURL // URLs answering 404 or 410 whose earlier copy stands until finish
	seedOK  bool                // a start URL answered (a redirect or a page, not an error)
	kept    []string            // URLs whose earlier copy stands for want of an answer (5xx, network error...)
	written int                 // files written by this run (pages, files, error pages)
	purged  int                 // files removed or replaced by error pages at the end
}

// goneURL is a URL the previous run saved that answers 404 or 410 now:
// finish replaces its copy by the error page (or removes it) when the run
// purges, and keeps it otherwise.
type goneURL struct {
	meta *htcache.Meta
	body *prepared // the error page, nil when none is saved (a start URL, a cut body)
	ct   string    // Content-Type of the error page
	mime string
}

// newestCacheTmp is the newest temporary cache a killed run left in
// hts-cache, "" if none.
func newestCacheTmp(dir string) string {
	ents, err := os.ReadDir(filepath.Join(dir, "hts-cache"))
	if err != nil {
		return ""
	}
	best, bestT := "", time.Time{}
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), ".new.zip.tmp-") || !e.Type().IsRegular() {
			continue
		}
		if fi, err := e.Info(); err == nil && fi.Size() > 0 && fi.ModTime().After(bestT) {
			best, bestT = "hts-cache/"+e.Name(), fi.ModTime()
		}
	}
	return best
}

type page struct{ url, path, mime string }

// The cache lines naming a capture's WARC record (htcache.Meta.Extra).
const (
	xWARCDate          = "X-WARC-Date"
	xWARCRecordID      = "X-WARC-Record-ID"
	xWARCPayloadDigest = "X-WARC-Payload-Digest"
)

// warcLines are the X-WARC-* lines of a capture written to the WARC
// stream: its own record, or for a revisit the record it refers to (so that
// later revisits refer to the capture that holds the payload).
func warcLines(cp *crawl.Capture) record.Header {
	var h record.Header
	add := func(n, v string) {
		if v != "" {
			h = append(h, record.Field{Name: n, Value: v})
		}
	}
	if rv := cp.Revisit; rv != nil {
		add(xWARCDate, rv.RefersToDate)
		add(xWARCRecordID, rv.RefersTo)
		add(xWARCPayloadDigest, rv.PayloadDigest)
		return h
	}
	if cp.RecordID == "" {
		return nil
	}
	add(xWARCDate, record.FormatDate(cp.Date, false))
	add(xWARCRecordID, cp.RecordID)
	add(xWARCPayloadDigest, cp.PayloadDigest)
	return h
}

// revisitFor decides whether cp, fetched again by an update, revisits the
// capture the previous run wrote (named in its cache entry): a 304 is a
// server-not-modified revisit; a 200 whose payload digest is the earlier
// one is an identical-payload-digest revisit (WARC 1.1 section 6.7).
func (m *localMirror) revisitFor(cp *crawl.Capture) *crawl.Revisit {
	m.mu.Lock()
	e := m.oldEnts[cp.URL]
	m.mu.Unlock()
	if e == nil || e.Meta.StatusCode != 200 {
		return nil
	}
	date, id, pd := e.Meta.Extra.Get(xWARCDate), e.Meta.Extra.Get(xWARCRecordID), e.Meta.Extra.Get(xWARCPayloadDigest)
	if date == "" {
		return nil // written by HTTrack, or without a WARC stream
	}
	rv := &crawl.Revisit{RefersTo: id, RefersToURI: cp.URL, RefersToDate: date, PayloadDigest: pd}
	switch st := cp.Status(); {
	case st == 304:
		rv.Profile = crawl.ProfileServerNotModified
	case st == 200 && cp.Truncated == "" && pd != "" && cp.PayloadDigest == pd:
		rv.Profile = crawl.ProfileIdenticalPayloadDigest
	default:
		return nil
	}
	return rv
}

// prepared is a body decoded to a temporary file by prepare.
type prepared struct {
	tmp  string // relative to the mirror's folder
	size int64
	raw  bool // kept as received: decoded, it is larger than the parse limit
}

// prepare decodes a body worth keeping to a temporary file in the mirror;
// it runs in the crawler's workers, in parallel, so the serialised sink only
// renames files.
func (m *localMirror) prepare(cp *crawl.Capture) error {
	if cp.Response == nil || cp.Head == nil {
		return nil
	}
	st := cp.Status()
	if m.warc && st == 200 && cp.Truncated == "" && !cp.Robots {
		// kept in the cache, for the next run to recognise the payload
		cp.PayloadDigest, _ = cp.BodyDigest()
	}
	if m.warc {
		cp.Revisit = m.revisitFor(cp)
	}
	if !cp.Robots && (st < 200 || st > 299 && !isErrorPage(cp) || cp.Truncated != "") {
		return nil
	}
	p, warning, err := m.spoolBody(cp)
	if err != nil {
		return err
	}
	if warning != "" {
		// one warning for the page: the crawler's about its links, if
		// any, says the same of the decoded body
		ws := cp.Warnings[:0]
		for _, w := range cp.Warnings {
			if strings.HasPrefix(w, "decoded body larger than ") {
				warning = w + "; " + strings.TrimPrefix(warning, w[:strings.IndexByte(w, ':')+2])
				continue
			}
			ws = append(ws, w)
		}
		cp.Warnings = append(ws, warning)
	}
	m.root.Chmod(p.tmp, 0o644)
	cp.Value = p
	return nil
}

// discard removes the body prepare decoded for cp, when cp is not saved.
func (m *localMirror) discard(cp *crawl.Capture) {
	if p, ok := cp.Value.(*prepared); ok {
		m.root.Remove(p.tmp)
		cp.Value = nil
	}
}

// body returns the prepared body of cp, or decodes it now.
func (m *localMirror) body(cp *crawl.Capture) (*prepared, error) {
	if p, ok := cp.Value.(*prepared); ok {
		return p, nil
	}
	p, warning, err := m.spoolBody(cp)
	if warning != "" {
		m.logf("%s: %s", cp.URL, warning)
	}
	return p, err
}

func openMirror(dir string, cfg *crawl.Config, logf func(string, ...any), resume bool) (*localMirror, error) {
	m := &localMirror{ctx: context.Background(), dir: dir, namer: mirror.NewNamer(nil), logf: logf,
		oldEnts: map[string]*htcache.Entry{}, saved: map[string]bool{}, visited: map[string]bool{}, dirs: map[string]bool{},
		current: map[string]bool{}, gone: map[string]*goneURL{}, parseLimit: cfg.ParseLimit()}
	for _, s := range cfg.Seeds {
		if u, err := crawl.Canonicalize(s); err == nil {
			m.seeds = append(m.seeds, u)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	root, err := safefs.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	m.root = root
	opened := false
	defer func() {
		if !opened {
			m.hlog.close("stopped")
			root.Close()
		}
	}()
	// HTTrack's log, written anew at each run
	logF, err := root.Create(relLog)
	if safefs.Refused(err) {
		m.refuse(filepath.Join(dir, relLog), err)
	} else if err != nil {
		return nil, err
	}
	m.hlog = newHTSLog(logF, m.seeds)
	cacheDir := filepath.Join(dir, "hts-cache")
	oldZip := filepath.Join(cacheDir, "old.zip")
	err = root.MkdirAll("hts-cache", 0o755)
	var errNew, errOld error
	if err == nil {
		if _, errNew = root.Stat(relNewZip); safefs.Refused(errNew) {
			err = errNew
		} else if _, errOld = root.Stat(relOldZip); safefs.Refused(errOld) {
			err = errOld
		}
	}
	if safefs.Refused(err) {
		// the pages are still written; the cache is not
		m.refuse(dir, err)
		m.noCache = true
		m.cw = htcache.NewWriter(io.Discard)
		opened = true
		return m, nil
	}
	if err != nil {
		return nil, err
	}
	if resume {
		m.resumed = true
		if errNew != nil {
			// a run killed before its end left its cache as a
			// temporary file whose complete entries are readable
			// (local headers are patched as each entry ends): it is the
			// new.zip of that run
			if tmp := newestCacheTmp(dir); tmp != "" {
				if err := root.Rename(tmp, relNewZip); err != nil {
					return nil, err
				}
				logf("%s: recovered the cache of the stopped run", filepath.Join(dir, relNewZip))
				_, errNew = root.Stat(relNewZip)
			}
		}
	}
	switch {
	case errNew == nil && errOld == nil:
		// An update that did not finish (HTTrack's or ours) left both:
		// new.zip what it fetched again, old.zip the run before. Both
		// are read together (htcache merges them) and stay open, so
		// renaming new.zip over old.zip loses neither.
		if err := m.loadOld(cacheDir); err != nil {
			return nil, fmt.Errorf("%s: %w", cacheDir, err)
		}
		m.oldPath = oldZip
		if err := root.Rename(relNewZip, relOldZip); err != nil {
			return nil, err
		}
	case errNew == nil:
		// An update: the previous cache becomes old.zip, as HTTrack does.
		if err := root.Rename(relNewZip, relOldZip); err != nil {
			return nil, err
		}
		fallthrough
	case errOld == nil: // or what an interrupted update left
		if err := m.loadOld(oldZip); err != nil {
			return nil, fmt.Errorf("%s: %w", oldZip, err)
		}
	}
	f, tmp, err := root.CreateTemp("hts-cache", ".new.zip.tmp-*")
	if err != nil {
		return nil, err
	}
	m.cacheTmp, m.cacheF = tmp, f
	m.cw = htcache.NewWriter(f)
	opened = true
	return m, nil
}

// The cache files and the log, relative to the mirror's folder.
const (
	relNewZip = "hts-cache/new.zip"
	relOldZip = "hts-cache/old.zip"
	relLog    = "hts-log.txt"
)

// refuse reports a path refused by the root (what names the URL or the
// folder it was written for) and counts it for finish.
func (m *localMirror) refuse(what string, err error) {
	m.refMu.Lock()
	defer m.refMu.Unlock()
	m.refused++
	if m.firstRef == nil {
		m.firstRef = err
	}
	m.logf("%s: not written: %v", what, err)
}

// loadOld reads the previous run's cache (a cache file, or hts-cache/
// holding new.zip and old.zip): names to keep, validators, original
// bodies of pages.
func (m *localMirror) loadOld(p string) error {
	c, err := htcache.Open(p)
	if err != nil {
		return err
	}
	m.old, m.oldPath = c, p
	er, err := c.Entries()
	if err != nil {
		return err
	}
	for {
		e, err := er.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		key, err := crawl.Canonicalize(e.URI())
		if err != nil {
			continue
		}
		m.oldEnts[key] = e
		if e.Meta.Save == "" || e.Meta.StatusCode >= 400 {
			// an error page keeps no name: saved again, or the URL's
			// page once it is back, it is named from what it is then
			// (an image is not kept under the .html of its 404 page)
			continue
		}
		if err := m.namer.Seed(key, e.Meta.Save); err != nil {
			m.logf("%s: keeping no name for %s: %v", p, key, err)
			continue
		}
		if e.Meta.StatusCode == 200 && m.exists(e.Meta.Save) {
			m.saved[e.Meta.Save] = true
		}
	}
	return nil
}

func (m *localMirror) exists(rel string) bool {
	st, err := m.root.Stat(rel)
	return err == nil && st.Mode().IsRegular()
}

// validators gives the crawler the ETag and Last-Modified of a copy kept
// from the previous run, when its file is still there.
func (m *localMirror) validators(u string) (string, string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.oldEnts[u]
	if e == nil || e.Meta.StatusCode != 200 || e.Meta.Save == "" || !m.exists(e.Meta.Save) {
		return "", ""
	}
	if isPage(e.Meta.ContentType, u) && !e.Meta.InCache {
		return "", "" // no original to re-read the links from
	}
	return e.Meta.ETag, e.Meta.LastModified
}

// extract reads the links of a capture; for a 304 from the original body
// kept in the previous cache.
func (m *localMirror) extract(cp *crawl.Capture) ([]crawl.Link, error) {
	if cp.Status() != 304 {
		return crawl.LinksExtractor(cp)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.oldEnts[cp.URL]
	if e == nil || crawl.Parser(e.Meta.ContentType, cp.URL) == nil {
		return nil, nil
	}
	body, _, err := m.old.Body(e)
	if err != nil {
		return nil, err
	}
	defer body.Close()
	return crawl.ExtractFrom(crawl.NewDocReader(body, m.parseLimit), e.Meta.ContentType, cp.URL)
}

// isPage reports whether a document's links are rewritten in the mirror.
func isPage(mimeType, u string) bool {
	k := crawl.DocKind(mimeType, u)
	return k == "html" || k == "css" || k == "js"
}

// isErrorPage reports whether the body of cp is saved as an error page,
// as HTTrack saves one (its -o, on by default): a whole 4xx or 5xx answer
// to a link, not to a start URL nor a robots.txt.
func isErrorPage(cp *crawl.Capture) bool {
	return cp.Status() >= 400 && cp.Truncated == "" && cp.Via != "" && !cp.Robots
}

// save handles one capture: the mirror file and the cache entry.
//
// A URL whose earlier copy is in the mirror keeps it when this run gets no
// whole answer (a network error, a cut body) or an error that may pass
// (5xx, 403, 429...). When it answers 404 or 410 the copy is gone: finish
// replaces it by the error page, or removes it, if the run purges (see
// finish), and keeps it otherwise. Other errors to links are saved as error
// pages, named from their Content-Type as HTTrack names them (a missing
// logo.gif answered with an HTML page is logo.html), and links to them are
// rewritten to the local copy.
func (m *localMirror) save(cp *crawl.Capture) error {
	seed := cp.Via == "" && !cp.Robots
	if cp.Response == nil || cp.Head == nil {
		// no response (the stream logged it)
		m.hlog.printf(logError, "%q at link %s%s", errText(cp.Err), linkName(cp.URL), from(cp))
		if e := m.goodOld(cp.URL); e != nil {
			m.kept = append(m.kept, cp.URL)
			return m.keepOld(cp.URL, e)
		}
		return nil
	}
	st := cp.Status()
	if seed && st < 400 {
		m.seedOK = true
	}
	meta := metaOf(cp)
	if m.warc {
		meta.Extra = warcLines(cp)
	}
	aliased := false
	switch {
	case st == 304:
		return m.keep(cp)
	case cp.Robots:
		return m.cacheBody(cp, meta)
	case st >= 200 && st < 300 && cp.Truncated == "":
		return m.saveFile(cp, meta)
	case st >= 300 && st < 400:
		for _, l := range cp.Links {
			if l.Redirect && l.Taken && l.Canonical != "" {
				if err := m.namer.Alias(cp.URL, l.Canonical); err != nil {
					m.logf("%s: %v", cp.URL, err)
				} else {
					aliased = true
				}
			}
		}
	}
	if st >= 400 {
		m.hlog.printf(logError, "%q (%d) at link %s%s", cp.Head.Reason, st, linkName(cp.URL), from(cp))
	}
	if st >= 400 || st < 300 && cp.Truncated != "" {
		switch e := m.goodOld(cp.URL); {
		case e != nil && (st == 404 || st == 410) && !m.noPurge:
			return m.goneNow(cp, meta)
		case e != nil:
			m.hlog.printf(logWarning, "previous copy of %s kept (%s)", linkName(cp.URL), keptWhy(cp))
			m.discard(cp)
			m.kept = append(m.kept, cp.URL)
			return m.keepOld(cp.URL, e)
		case isErrorPage(cp):
			return m.saveFile(cp, meta)
		}
	}
	if !aliased {
		// (an aliased URL's name is now its target's: a redirect from
		// /index.html to / must not take the start page's file away)
		m.unsave(cp.URL)
	}
	m.discard(cp)
	return m.addEntry(cp.URL, meta, nil)
}

// goneNow holds a URL that answers 404 or 410 although the previous run
// saved it, for finish to decide.
func (m *localMirror) goneNow(cp *crawl.Capture, meta *htcache.Meta) error {
	g := &goneURL{meta: meta, ct: cp.Head.ContentType(), mime: cp.MIME()}
	if isErrorPage(cp) {
		p, err := m.body(cp)
		if err != nil {
			return err
		}
		g.body = p
	} else {
		m.discard(cp)
	}
	if old := m.gone[cp.URL]; old != nil && old.body != nil {
		m.root.Remove(old.body.tmp)
	}
	m.gone[cp.URL] = g
	return nil
}

// keptWhy says why a URL's earlier copy is kept.
func keptWhy(cp *crawl.Capture) string {
	switch st := cp.Status(); {
	case st == 404 || st == 410:
		return "--purge=off"
	case cp.Truncated != "":
		return "this answer was cut: " + cp.Truncated
	default:
		return fmt.Sprintf("answered %d %s", st, cp.Head.Reason)
	}
}

// from is HTTrack's " (from host/page)" after a link in the log.
func from(cp *crawl.Capture) string {
	if cp.Via == "" {
		return ""
	}
	return " (from " + linkName(cp.Via) + ")"
}

func errText(err error) string {
	if err == nil {
		return "no response"
	}
	return err.Error()
}

// goodOld returns the previous run's entry of u when it saved a page or a
// file (a 2xx) that is still in the mirror under u's name.
func (m *localMirror) goodOld(u string) *htcache.Entry {
	m.mu.Lock()
	e := m.oldEnts[u]
	m.mu.Unlock()
	if e == nil || e.Meta.StatusCode != 200 || e.Meta.Save == "" || !m.exists(e.Meta.Save) {
		return nil
	}
	if p, ok := m.namer.Lookup(u); !ok || p != e.Meta.Save {
		return nil // the name went to another URL
	}
	return e
}

// unsave drops a URL's old file from the set of link targets: this run
// found it gone or broken.
func (m *localMirror) unsave(u string) {
	if p, ok := m.namer.Lookup(u); ok {
		delete(m.saved, p)
	}
}

func (m *localMirror) addEntry(u string, meta *htcache.Meta, body io.Reader) error {
	m.visited[u] = true
	return m.cw.Add(u, meta, body)
}

// cacheBody keeps a body in the cache only (robots.txt).
func (m *localMirror) cacheBody(cp *crawl.Capture, meta *htcache.Meta) error {
	p, err := m.body(cp)
	if err != nil {
		return err
	}
	defer m.root.Remove(p.tmp)
	f, err := m.root.Open(p.tmp)
	if err != nil {
		return err
	}
	defer f.Close()
	meta.InCache, meta.Size = true, p.size
	return m.addEntry(cp.URL, meta, f)
}

// spoolBody writes the decoded body to a temporary file in the mirror. A
// content-coded body whose decoded form is larger than the parse limit (a
// decompression bomb, or a .tar.gz served as Content-Encoding gzip) is kept
// as received instead, with a warning.
func (m *localMirror) spoolBody(cp *crawl.Capture) (*prepared, string, error) {
	body, err := cp.Body()
	if err != nil {
		return nil, "", err
	}
	defer body.Close()
	f, tmp, err := m.root.CreateTemp("", ".mirrorget-body-*")
	if err != nil {
		return nil, "", err
	}
	var src io.Reader = ctxReader{m.ctx, body}
	limit := int64(-1)
	if codings := cp.Head.ContentEncoding(); len(codings) > 0 {
		limit = max(m.parseLimit, 1)
		src = io.LimitReader(body, limit+1)
	}
	n, cerr := io.Copy(f, src)
	if err := f.Close(); cerr == nil {
		cerr = err
	}
	if m.ctx.Err() != nil {
		m.root.Remove(tmp)
		return nil, "", fmt.Errorf("%s: not saved: %w", cp.URL, m.ctx.Err())
	}
	if cerr != nil || limit >= 0 && n > limit {
		m.root.Remove(tmp)
		p, err := m.spoolRaw(cp)
		if cerr == nil {
			return p, fmt.Sprintf("decoded body larger than %d bytes: kept in the mirror as received (Content-Encoding: %s)",
				limit, strings.Join(cp.Head.ContentEncoding(), ", ")), err
		}
		// a body that does not decode is kept as received
		return p, "", err
	}
	return &prepared{tmp: tmp, size: n}, "", nil
}

// spoolRaw writes the body as received, content codings kept, to a
// temporary file in the mirror: without its chunked framing when that reads
// back whole, else byte for byte.
func (m *localMirror) spoolRaw(cp *crawl.Capture) (*prepared, error) {
	section := func() io.Reader {
		return cp.Response.Section(cp.BodyOffset, cp.Response.Size()-cp.BodyOffset)
	}
	copyTo := func(r io.Reader) (*prepared, error) {
		f, tmp, err := m.root.CreateTemp("", ".mirrorget-body-*")
		if err != nil {
			return nil, err
		}
		n, cerr := io.Copy(f, r)
		if err := f.Close(); cerr == nil {
			cerr = err
		}
		if cerr != nil {
			m.root.Remove(tmp)
			return nil, cerr
		}
		return &prepared{tmp: tmp, size: n, raw: true}, nil
	}
	if cp.Head.Chunked() {
		if p, err := copyTo(httpmsg.NewChunkedReader(section())); err == nil {
			return p, nil
		}
	}
	return copyTo(section())
}

// saveFile writes a 2xx body to its local name. A page kept as received
// (still content-coded) is neither rewritten nor kept in the cache.
func (m *localMirror) saveFile(cp *crawl.Capture, meta *htcache.Meta) error {
	p, err := m.body(cp)
	if err != nil {
		return err
	}
	return m.saveBody(cp.URL, cp.Head.ContentType(), cp.MIME(), p, meta)
}

// saveBody renames the body p of u to its local name.
func (m *localMirror) saveBody(u, contentType, mimeType string, p *prepared, meta *htcache.Meta) error {
	rel, err := m.namer.Name(u, contentType)
	if err != nil {
		m.root.Remove(p.tmp)
		m.logf("%s: no local name: %v", u, err)
		return m.addEntry(u, meta, nil)
	}
	if d := path.Dir(rel); !m.dirs[d] {
		err = m.root.MkdirAll(d, 0o755)
		if err == nil {
			m.dirs[d] = true
		}
	}
	if err == nil {
		err = m.root.Rename(p.tmp, rel)
	}
	if err != nil {
		m.root.Remove(p.tmp)
		if safefs.Refused(err) {
			// not saved: kept in the cache as one without a local copy
			m.refuse(u, err)
			m.unsave(u)
			return m.addEntry(u, meta, nil)
		}
		return err
	}
	m.saved[rel], m.current[rel] = true, true
	m.written++
	meta.Save, meta.Size = rel, p.size
	if isPage(mimeType, u) && !p.raw {
		m.pages = append(m.pages, page{u, rel, mimeType})
		f, err := m.root.Open(rel)
		if err != nil {
			return err
		}
		defer f.Close()
		meta.InCache = true
		return m.addEntry(u, meta, f)
	}
	return m.addEntry(u, meta, nil)
}

// keep handles a 304: the local file stays; a page gets its original body
// back from the old cache so it can be rewritten again; the entry is
// carried into the new cache.
func (m *localMirror) keep(cp *crawl.Capture) error {
	m.mu.Lock()
	e := m.oldEnts[cp.URL]
	m.mu.Unlock()
	if e == nil {
		return m.addEntry(cp.URL, metaOf(cp), nil)
	}
	return m.keepOld(cp.URL, e)
}

// keepOld keeps the previous run's copy of u, e its cache entry.
func (m *localMirror) keepOld(u string, e *htcache.Entry) error {
	meta := e.Meta
	if rel := meta.Save; rel != "" && isPage(meta.ContentType, u) && meta.InCache {
		body, _, err := m.old.Body(e)
		if err != nil {
			return err
		}
		err = m.writeFile(rel, body)
		body.Close()
		switch {
		case safefs.Refused(err):
			m.refuse(u, err)
		case err != nil:
			return err
		default:
			m.pages = append(m.pages, page{u, rel, meta.ContentType})
		}
	}
	if meta.Save != "" && m.exists(meta.Save) {
		m.saved[meta.Save], m.current[meta.Save] = true, true
	}
	return m.copyOld(u, e)
}

// copyOld writes an old cache entry into the new cache unchanged.
func (m *localMirror) copyOld(u string, e *htcache.Entry) error {
	meta := e.Meta
	if !meta.InCache {
		return m.addEntry(u, &meta, nil)
	}
	body, _, err := m.old.Body(e)
	if err != nil {
		return err
	}
	defer body.Close()
	return m.addEntry(u, &meta, body)
}

// writeFile writes r to rel in the mirror, through a temporary file
// renamed into place.
func (m *localMirror) writeFile(rel string, r io.Reader) error {
	if err := m.root.MkdirAll(path.Dir(rel), 0o755); err != nil {
		return err
	}
	f, tmp, err := m.root.CreateTemp(path.Dir(rel), ".mirrorget-*")
	if err != nil {
		return err
	}
	_, cerr := io.Copy(f, r)
	if err := f.Close(); cerr == nil {
		cerr = err
	}
	if cerr == nil {
		m.root.Chmod(tmp, 0o644)
		cerr = m.root.Rename(tmp, rel)
	}
	if cerr != nil {
		m.root.Remove(tmp)
	}
	return cerr
}

// metaOf builds the HTTrack cache metadata of a capture, as HTTrack fills
// it (X-Addr host:port, X-Fil path and query).
func metaOf(cp *crawl.Capture) *htcache.Meta {
	h := cp.Head
	m := &htcache.Meta{Proto: h.Proto, LineCode: h.StatusCode, LineReason: h.Reason,
		StatusCode: h.StatusCode, StatusMessage: h.Reason, Size: -1}
	if m.Proto == "" {
		m.Proto = "HTTP/1.1"
	}
	if ct := h.ContentType(); ct != "" {
		mt, params, err := mime.ParseMediaType(ct)
		if err != nil {
			mt = h.MIME()
		}
		m.ContentType = mt
		m.Charset = params["charset"]
	}
	m.LastModified = clean(h.Get("Last-Modified"))
	m.ETag = clean(h.Get("ETag"))
	m.Location = clean(h.Get("Location"))
	m.ContentDisposition = clean(h.Get("Content-Disposition"))
	if u, err := url.Parse(cp.URL); err == nil {
		m.Addr = u.Host
		m.Fil = u.RequestURI()
	}
	return m
}

func clean(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\r' || r == '\n' || r == 0 {
			return ' '
		}
		return r
	}, s)
}

// savedFiles is the Locator of the rewrite: only files present in the
// mirror are linked locally.
type savedFiles struct{ m *localMirror }

func (s savedFiles) Lookup(u string) (string, bool) {
	p, ok := s.m.namer.Lookup(u)
	if !ok || !s.m.saved[p] {
		return "", false
	}
	return p, true
}

// finish settles the URLs gone since the previous run, purges, rewrites
// the saved pages, completes the cache and writes the top index. complete
// says the crawl ran to its end: not stopped by a signal, by --stop or by
// an error.
//
// An update purges as HTTrack's -X does: unless --purge=off, at the end of
// a complete run that is not a --continue (whose earlier run fetched URLs
// this one does not visit) and in which a start URL answered (HTTrack's
// guard against wiping a mirror of a site that is down), every file of the
// previous run that this run did not write or keep is removed (pages no
// longer linked, or out of the crawl's scope and rules now, old names of
// URLs that redirect now), folders left empty with them, each listed in
// hts-log.txt as "Purging ..."; their cache entries are dropped, and links
// to them are rewritten to the live URLs. A URL answering 404 or 410 gets
// its error page in place of its old copy; what a page kept for want of an
// answer links to is kept (keepLinked). Otherwise every file and cache
// entry of the previous run is kept.
func (m *localMirror) finish(complete bool) error {
	var first error
	keep := func(err error) {
		if err != nil && first == nil {
			first = err
		}
	}
	purging := m.old != nil
	switch {
	case !purging:
	case m.noPurge:
		purging = false
		m.hlog.printf(logInfo, "--purge=off: keeping all previously mirrored files")
	case !complete:
		purging = false
		m.hlog.printf(logWarning, "Mirror stopped before its end: keeping all previously mirrored files")
	case m.resumed:
		purging = false
		m.hlog.printf(logWarning, "Continued mirror: keeping all previously mirrored files (the next update purges)")
	case !m.seedOK:
		purging = false
		m.hlog.printf(logWarning, "No start URL could be fetched: keeping all previously mirrored files")
	}
	keep(m.settleGone(purging))
	rw := &mirror.Rewriter{Files: savedFiles{m}}
	if m.resumed && m.old != nil {
		// pages saved by the run this one continues were rewritten
		// when links to pages fetched only now led to the live site:
		// they get their original body back and are rewritten again
		keys := make([]string, 0, len(m.oldEnts))
		for k, e := range m.oldEnts {
			if !m.visited[k] && e.Meta.Save != "" && e.Meta.InCache && e.Meta.StatusCode == 200 && isPage(e.Meta.ContentType, k) {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			e := m.oldEnts[k]
			body, _, err := m.old.Body(e)
			if err != nil {
				keep(err)
				continue
			}
			err = m.writeFile(e.Meta.Save, body)
			body.Close()
			switch {
			case safefs.Refused(err):
				m.refuse(k, err)
			case err != nil:
				keep(err)
			default:
				m.saved[e.Meta.Save] = true
				m.pages = append(m.pages, page{k, e.Meta.Save, e.Meta.ContentType})
			}
		}
	}
	if purging {
		keep(m.keepLinked())
		m.purge()
	}
	done := map[string]bool{}
	work := make(chan page)
	var wg sync.WaitGroup
	var logMu sync.Mutex
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range work {
				if err := m.rewrite(rw, p); safefs.Refused(err) {
					m.refuse(p.url, err)
				} else if err != nil {
					logMu.Lock()
					m.logf("%s: %v", p.path, err)
					logMu.Unlock()
				}
			}
		}()
	}
	for _, p := range m.pages {
		if !done[p.path] {
			done[p.path] = true
			work <- p
		}
	}
	close(work)
	wg.Wait()
	// entries of the previous run not seen this time stay in the cache,
	// unless the run purged
	if m.old != nil {
		keys := make([]string, 0, len(m.oldEnts))
		for k := range m.oldEnts {
			if !m.visited[k] && !purging {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			keep(m.copyOld(k, m.oldEnts[k]))
		}
		keep(m.old.Close())
	}
	keep(m.cw.SetComment("mirrorget " + strings.Join(m.seeds, " ")))
	keep(m.cw.Close())
	switch {
	case m.noCache:
	case first == nil:
		keep(m.cacheF.Close())
		if err := m.root.Rename(m.cacheTmp, relNewZip); safefs.Refused(err) {
			m.root.Remove(m.cacheTmp)
			m.refuse(m.dir, err)
		} else {
			keep(err)
		}
		if m.oldPath != "" {
			m.root.Remove(relOldZip)
		}
	default:
		keep(m.cacheF.Close())
		m.root.Remove(m.cacheTmp)
	}
	if err := m.writeIndex(); safefs.Refused(err) {
		m.refuse(m.dir, err)
	} else {
		keep(err)
	}
	state := "mirror complete"
	if !complete {
		state = "mirror stopped"
	}
	keep(m.hlog.close(fmt.Sprintf("%s: %d files written, %d purged", state, m.written, m.purged)))
	if m.purged > 0 {
		m.logf("%s: %d file(s) no longer on the site purged (listed in %s)", m.dir, m.purged, filepath.Join(m.dir, relLog))
	}
	keep(m.root.Close())
	if first == nil && m.refused > 0 {
		first = fmt.Errorf("%s: %d path(s) refused, not written (symbolic link, or a name leaving the folder); the first: %w",
			m.dir, m.refused, m.firstRef)
	}
	return first
}

// rewrite rewrites one saved page in place. The links are extracted again
// from a second reader of the page as the rewriter copies it, so no page
// holds its links in memory, however many it has.
func (m *localMirror) rewrite(rw *mirror.Rewriter, p page) error {
	parse := crawl.Parser(p.mime, p.url)
	base, err := url.Parse(p.url)
	if parse == nil || err != nil {
		return nil
	}
	scan, err := m.root.Open(p.path)
	if err != nil {
		return err
	}
	defer scan.Close()
	in, err := m.root.Open(p.path)
	if err != nil {
		return err
	}
	defer in.Close()
	out, tmp, err := m.root.CreateTemp(path.Dir(p.path), ".mirrorget-rw-*")
	if err != nil {
		return err
	}
	// links past the parse limit stay as they are (the crawler warned
	// when it read the page)
	_, werr := rw.RewriteFrom(out, in, p.path, func(f links.Func) error {
		return parse(crawl.NewDocReader(scan, m.parseLimit), base, f)
	})
	// On an extractor failure the page is whole, its links rewritten up to
	// the failure; a page the extractor could not read at all is reported.
	var xe *mirror.ExtractError
	var report error
	if errors.As(werr, &xe) {
		werr = nil
		if xe.Rewritten == 0 {
			report = xe.Err
		}
	}
	if err := out.Close(); werr == nil {
		werr = err
	}
	if werr == nil {
		m.root.Chmod(tmp, 0o644)
		werr = m.root.Rename(tmp, p.path)
	}
	if werr != nil {
		m.root.Remove(tmp)
		return werr
	}
	return report
}

// writeIndex writes DIR/index.html pointing at the start pages, as HTTrack
// writes a top index, unless a file of that name is there already.
func (m *localMirror) writeIndex() error {
	const p = "index.html"
	if _, err := m.root.Stat(p); err == nil || !errors.Is(err, fs.ErrNotExist) {
		if err == nil {
			b, _ := m.root.ReadFile(p)
			if !strings.Contains(string(b), "<!-- mirrorget index -->") {
				return nil
			}
		} else if safefs.Refused(err) {
			return err
		} else {
			return nil
		}
	}
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<!-- mirrorget index -->\n<html><head><meta charset=\"utf-8\"><title>mirrorget</title></head><body><ul>\n")
	for _, s := range m.seeds {
		rel, ok := savedFiles{m}.Lookup(s)
		if !ok {
			continue
		}
		fmt.Fprintf(&b, "<li><a href=\"%s\">%s</a></li>\n", html.EscapeString(mirror.RelURL("index.html", rel)), html.EscapeString(s))
	}
	b.WriteString("</ul></body></html>\n")
	return m.writeFile(p, strings.NewReader(b.String()))
}
