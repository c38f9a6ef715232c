package zimdump

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"html"
	"io"
	"io/fs"
	"math"
	"mime"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"runtime/metrics"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/arcport/arcport/lib/arc"
	"github.com/arcport/arcport/lib/htcache"
	"github.com/arcport/arcport/lib/httpmsg"
	"github.com/arcport/arcport/lib/internal/cliutil"
	"github.com/arcport/arcport/lib/internal/compio"
	"github.com/arcport/arcport/lib/internal/sysfile"
	"github.com/arcport/arcport/lib/links"
	"github.com/arcport/arcport/lib/mirror"
	"github.com/arcport/arcport/lib/record"
	"github.com/arcport/arcport/lib/wacz"
	"github.com/arcport/arcport/lib/warc"
	"github.com/arcport/arcport/lib/zim"
	"github.com/arcport/arcport/lib/zim/xapian"
)

// createUsage documents zimdump create.
const createUsage = `Usage: zimdump create -o FILE.zim [options] INPUT

Writes a ZIM (format 6.2, as libzim 9 writes it) that Kiwix opens. INPUT is
  a folder       a browsable copy (mirrorget -O DIR, httrack, wget -m): every
                 file becomes an entry under its path in the folder
  a WARC or ARC  plain, gzip or zstd: each 2xx capture becomes an entry under
                 the path a mirror gives it (host/path, as mirrorget -O)
  a WACZ         the same, for the WARCs inside
  hts-cache/     an HTTrack cache folder (or a mirror's hts-cache/new.zip)
A capture or file that cannot be read (truncated, undecodable, over
--spool-max, a symbolic link) is left out with a warning naming the file and
offset; the ZIM of the rest is written and the exit status is 1.
Links in HTML and CSS are rewritten: to captured URLs relative to the page,
to pages never captured (or errors) absolute to the live URL, and embedded
resources never captured (img src...) to "data:,", so that nothing in the
ZIM points at a missing entry or loads from the network.

Options:
  -o FILE               the ZIM to write (required; s3:// works); written
                        under a temporary name and renamed when complete
  --main-page P         the main page: a path of the folder or a URL of the
                        crawl (default: index.html, or the first HTML page)
  --title T             M/Title (default: the main page's <title>)
  --language L          M/Language, ISO 639-3 (default: the main page's
                        lang attribute, else eng)
  --creator C           M/Creator (default: the main page's host)
  --publisher P         M/Publisher (default: arcport)
  --description D       M/Description (default: "Offline copy of " + host)
  --name N              M/Name (default: the output's file name)
  --date YYYY-MM-DD     M/Date (default: today, UTC)
  --flavour F           M/Flavour
  --tags T              M/Tags (semicolon-separated)
  --illustration PNG    the 48x48 illustration (scaled when another size;
                        default: one drawn from the title)
  --compression C       zstd (default), xz or none, for text; images, video
                        and other compressed types are stored
  --level N             zstd 1-22 (default 19) or xz 0-9 (default 6)
  --cluster-size SIZE   cluster size (default 2M)
  --workers N           clusters compressed at once (default: CPUs)
  --spool-max SIZE      largest capture body taken from a crawl, decoded
                        (default 4G); a larger one is skipped with a warning
  --no-index            no full-text and title search indexes (default:
                        both, X/fulltext/xapian and X/title/xapian, as
                        libzim writes them; words stemmed in M/Language)
  -q                    no warnings (the exit status is still 1 after any)
  -v                    a summary line on stderr
`

// createArgs are the parsed arguments of zimdump create.
type createArgs struct {
	output, input string
	meta          map[string]string // M/ values given on the command line
	mainPage      string
	illustration  string
	compression   byte
	level         int
	clusterSize   int64
	workers       int
	spoolMax      int64
	quiet, verb   bool
	noIndex       bool
}

var createMetaFlags = map[string]string{"title": "Title", "language": "Language", "creator": "Creator",
	"publisher": "Publisher", "description": "Description", "name": "Name", "date": "Date",
	"flavour": "Flavour", "tags": "Tags"}

// parseCreate parses the arguments after "create". Options may come
// before or after INPUT, as --opt=value or --opt value.
func parseCreate(args []string) (*createArgs, error) {
	c := &createArgs{meta: map[string]string{}, compression: zim.CompressionZstd, clusterSize: zim.DefaultClusterSize,
		spoolMax: compio.DefaultSpoolMax}
	var pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			pos = append(pos, args[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			pos = append(pos, a)
			continue
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		switch name {
		case "q", "quiet":
			c.quiet = true
			continue
		case "v", "verbose":
			c.verb = true
			continue
		case "no-index":
			if hasVal {
				return nil, fmt.Errorf("%s takes no value", a)
			}
			c.noIndex = true
			continue
		case "h", "help":
			return nil, errHelp
		case "version":
			return nil, errVersion
		}
		if !hasVal {
			if i+1 >= len(args) {
				return nil, fmt.Errorf("%s requires an argument", a)
			}
			i++
			val = args[i]
		}
		switch name {
		case "o", "output":
			c.output = val
		case "main-page":
			c.mainPage = val
		case "illustration":
			c.illustration = val
		case "compression":
			switch strings.ToLower(val) {
			case "zstd":
				c.compression = zim.CompressionZstd
			case "xz", "lzma":
				c.compression = zim.CompressionXZ
			case "none":
				c.compression = zim.CompressionNone
			default:
				return nil, fmt.Errorf("--compression %q: zstd, xz or none", val)
			}
		case "level":
			n, err := strconv.Atoi(val)
			if err != nil || n < 0 || n > 22 {
				return nil, fmt.Errorf("--level %q: a number from 0 to 22", val)
			}
			c.level = n
		case "cluster-size":
			n, err := parseSize(val)
			if err != nil || n < 1024 || n > 1<<30 {
				return nil, fmt.Errorf("--cluster-size %q: a size from 1K to 1G", val)
			}
			c.clusterSize = n
		case "spool-max":
			n, err := compio.ParseSize(val)
			if err != nil || n <= 0 {
				return nil, fmt.Errorf("--spool-max %q: a size such as 4G", val)
			}
			c.spoolMax = n
		case "workers":
			n, err := strconv.Atoi(val)
			if err != nil || n < 1 {
				return nil, fmt.Errorf("--workers %q: a positive number", val)
			}
			c.workers = n
		default:
			m, ok := createMetaFlags[name]
			if !ok {
				return nil, fmt.Errorf("unknown option %s", a)
			}
			if strings.TrimSpace(val) == "" {
				return nil, fmt.Errorf("--%s: empty value", name)
			}
			c.meta[m] = val
		}
	}
	switch {
	case len(pos) == 0:
		return nil, errors.New("missing INPUT")
	case len(pos) > 1:
		return nil, fmt.Errorf("one INPUT only (got %s)", strings.Join(pos, ", "))
	case c.output == "" || c.output == "-":
		return nil, errors.New("-o FILE.zim is required (a ZIM is not written to standard output)")
	}
	if d, ok := c.meta["Date"]; ok {
		if _, err := time.Parse("2006-01-02", d); err != nil {
			return nil, fmt.Errorf("--date %q: YYYY-MM-DD", d)
		}
	}
	c.input = pos[0]
	return c, nil
}

var (
	errHelp    = errors.New("help")
	errVersion = errors.New("version")
)

// parseSize reads 2M, 512K, 1G, or a number of bytes.
func parseSize(s string) (int64, error) {
	mult := int64(1)
	switch strings.ToUpper(s[len(s)-1:]) {
	case "K":
		mult = 1 << 10
	case "M":
		mult = 1 << 20
	case "G":
		mult = 1 << 30
	}
	if mult > 1 {
		s = s[:len(s)-1]
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || n > math.MaxInt64/mult {
		return 0, fmt.Errorf("bad size %q", s)
	}
	return n * mult, nil
}

// runCreate runs zimdump create and returns arcport's exit status.
func runCreate(args []string, stdout, stderr io.Writer) int {
	c, err := parseCreate(args)
	if err == errHelp {
		fmt.Fprint(stdout, createUsage)
		return cliutil.ExitOK
	}
	if err == errVersion {
		fmt.Fprintln(stdout, cliutil.VersionString())
		return cliutil.ExitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "zimdump create: %v\n", err)
		fmt.Fprint(stderr, "Try: zimdump create --help\n")
		return cliutil.ExitUsage
	}
	problems := 0
	warn := func(format string, a ...any) {
		problems++
		if !c.quiet {
			fmt.Fprintf(stderr, "zimdump: "+format+"\n", a...)
		}
	}
	st, err := createZIM(c, warn)
	if err != nil {
		fmt.Fprintf(stderr, "zimdump: %s\n", oneLine(err.Error()))
		return cliutil.ExitFail
	}
	if c.verb {
		fmt.Fprintf(stderr, "zimdump: %s: %d entries (%d pages, %d redirects) from %s, %d links to the live web\n",
			c.output, st.entries, st.pages, st.redirects, c.input, st.live)
	}
	if problems > 0 {
		// as arc2warc does: what could be read is written, and the exit
		// status says that something could not
		return cliutil.ExitFail
	}
	return cliutil.ExitOK
}

// createMemoryLimit is the soft memory limit of zimdump create (set by
// Main, not by Run, which tests call in their own process).
const createMemoryLimit = 160 << 20

// limitCreateMemory sets a soft memory limit unless GOMEMLIMIT is set: the
// collector then runs before the garbage of link extraction doubles the
// heap (100 000 pages: 170 MiB RSS with it, 380 without; live memory is
// about 130 MiB there).
func limitCreateMemory() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(createMemoryLimit)
		createLimitSet = true
	}
}

// createLimitSet records that limitCreateMemory set the limit (so that
// raiseCreateMemoryLimit may move it).
var createLimitSet bool

// raiseCreateMemoryLimit lifts the soft limit above the live heap as the
// search index grows (the index is live until the end): a limit under
// the live heap would have the collector run without pause (80 000
// pages of 300 words: 48 s and 454 MB peak RSS with the limit held at
// 160 MiB, 32 s and 480 MB raised, 24 s and 805 MB without a limit).
// The limit stays 25% over the heap the last collection found live.
func raiseCreateMemoryLimit() {
	if !createLimitSet {
		return
	}
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return
	}
	live := int64(s[0].Value.Uint64())
	debug.SetMemoryLimit(max(createMemoryLimit, live+live/4))
}

// capture is one entry-to-be of the ZIM.
type capture struct {
	url       string // absolute URL (crawls) or "" (folders)
	path      string // entry path
	mime      string
	file      string // folders: the file; crawls: "" (body in the spool)
	off, size int64  // crawls: the body in the spool
}

// redirect is a captured 3xx answer.
type redirect struct{ from, to string }

// site is what an input holds, gathered before the ZIM is written.
type site struct {
	spoolMax int64
	name     string // the input, in messages
	dir      string // folders: the folder
	caps     []capture
	redirs   []redirect
	// redirEntries are the redirects to captures, as entry paths
	redirEntries []redirect
	spool        *os.File
	namer        *mirror.Namer
	saved        map[string]bool // entry paths
	byURL        map[string]int  // crawls: URL key -> index in caps
	firstDoc     int             // first HTML capture, -1 if none
	copyBuf      []byte          // fromRecords' copy buffer
}

type createStats struct{ entries, pages, redirects, live int }

// dirBase is the base URL folder files are given, so that links between
// them resolve as URLs do.
const dirBase = "http://zim.invalid/"

func createZIM(c *createArgs, warn func(string, ...any)) (createStats, error) {
	var st createStats
	var icon []byte
	if c.illustration != "" {
		var err error
		if icon, err = illustrationFrom(c.illustration); err != nil {
			return st, err
		}
	}
	s, err := gather(c, warn)
	if err != nil {
		return st, err
	}
	if s.spool != nil {
		defer s.spool.Close()
	}
	if len(s.caps) == 0 {
		return st, fmt.Errorf("%s: nothing to put in a ZIM (no file, or no 2xx capture)", c.input)
	}
	s.resolveRedirects()
	mainIdx, err := s.mainPage(c.mainPage)
	if err != nil {
		return st, err
	}
	out, err := cliutil.CreateOutput(c.output)
	if err != nil {
		return st, err
	}
	defer out.Abort()
	opts := []zim.WriterOption{zim.WithCompression(c.compression), zim.WithClusterSize(int(c.clusterSize))}
	if c.level > 0 {
		opts = append(opts, zim.WithCompressionLevel(c.level))
	}
	if c.workers > 0 {
		opts = append(opts, zim.WithWorkers(c.workers))
	}
	zw, err := zim.NewWriter(out, opts...)
	if err != nil {
		return st, err
	}
	defer zw.Abort()

	var mainTitle, mainLang string
	head := make([]byte, 256<<10)
	var ix *pageIndex
	if !c.noIndex {
		lang, err := s.indexLanguage(c, mainIdx, head)
		if err != nil {
			return st, err
		}
		if ix, err = newPageIndex(lang); err != nil {
			return st, err
		}
	}
	// entries are added in path order: the order the indexes take their
	// documents in (xapian.Indexer's), so that each page's document goes
	// to the index at once
	order := make([]int, len(s.caps))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return s.caps[order[a]].path < s.caps[order[b]].path })
	// the pages are prepared (title, links, index documents) on all CPUs,
	// and added here in path order
	pp := s.preparePages(order, mainIdx, ix)
	defer pp.close()
	for j := range pp.jobs {
		<-j.done
		cp := &s.caps[j.i]
		if j.err != nil {
			return st, j.err
		}
		if j.hasWarning {
			warn("%s", j.warning)
		}
		st.live += j.live
		isHTML := isHTMLType(cp.mime)
		if isHTML {
			if j.i == mainIdx {
				mainTitle, mainLang = j.title, j.lang
			}
			st.pages++
		}
		var r io.Reader
		var body sectionCloser
		if j.buf != nil {
			r = j.buf
		} else {
			if body, err = s.open(cp); err != nil {
				return st, err
			}
			r = body
		}
		if ix != nil && isHTML {
			if err := ix.addDocs(j.full, j.titleDoc); err != nil {
				body.Close()
				return st, fmt.Errorf("%s: index: %v", s.where(cp), err)
			}
			if ix.nTitle%1024 == 0 {
				raiseCreateMemoryLimit()
			}
		}
		err = zw.AddEntry(cp.path, j.title, cp.mime, r, isHTML)
		body.Close()
		pp.release(j)
		if err != nil {
			return st, fmt.Errorf("%s: %v", s.where(cp), err)
		}
		st.entries++
	}
	for _, rd := range s.redirEntries {
		if err := zw.AddRedirect(rd.from, "", rd.to, false); err != nil {
			warn("%s: redirect %s: %v", s.name, rd.from, err)
			continue
		}
		st.redirects++
	}
	zw.SetMainPage(s.caps[mainIdx].path)
	if err := s.addMetadata(zw, c, mainTitle, mainLang, mainIdx, icon); err != nil {
		return st, err
	}
	if ix != nil {
		// as libzim's Creator: the title index, then the full-text one,
		// each only when it has documents
		if ix.nTitle > 0 {
			if err := addIndex(zw, "title", ix.writeTitle); err != nil {
				return st, fmt.Errorf("%s: title index: %v", c.output, err)
			}
		}
		if ix.nFull > 0 {
			if err := addIndex(zw, "fulltext", ix.writeFullText); err != nil {
				return st, fmt.Errorf("%s: full-text index: %v", c.output, err)
			}
		}
	}
	if err := zw.Close(); err != nil {
		return st, fmt.Errorf("%s: %v", c.output, err)
	}
	if err := out.Commit(); err != nil {
		return st, err
	}
	return st, nil
}

// indexLanguage is the language the index stems words in: M/Language as
// addMetadata will write it (--language, else the main page's lang
// attribute, else eng), as libzim indexes in its Creator's indexing
// language, which zimwriterfs takes from M/Language.
func (s *site) indexLanguage(c *createArgs, mainIdx int, head []byte) (string, error) {
	if l := c.meta["Language"]; l != "" {
		return l, nil
	}
	cp := &s.caps[mainIdx]
	if isHTMLType(cp.mime) {
		body, err := s.open(cp)
		if err != nil {
			return "", err
		}
		n, _ := io.ReadFull(body, head[:min(int64(len(head)), cp.size)])
		body.Close()
		if l := htmlLang(head[:n]); l != "" {
			return l, nil
		}
	}
	return "eng", nil
}

// pageIndex builds X/fulltext/xapian and X/title/xapian exactly as
// xapian.Indexer builds them for the same pages (libzim's Creator's
// documents, TestCreateIndex compares the bytes), but page by page: the
// pages come in path order, the order Indexer sorts its documents into,
// so each document goes to the database writer (about 8 bytes a posting)
// at once instead of being held until the end (xapian.Document's maps:
// about four times as much).
type pageIndex struct {
	lang          string
	stem          func(string) string
	stop          func(string) bool // libzim's stop words for lang (none for "eng")
	stops         []string
	full, title   *xapian.Writer
	nFull, nTitle int
}

func newPageIndex(lang string) (*pageIndex, error) {
	p := &pageIndex{lang: lang, stops: xapian.LibzimStopWords(lang)}
	p.stop = xapian.StopperOf(p.stops)
	if st := xapian.StemmerFor(lang); st != nil {
		p.stem = xapian.CachedStemmer(st, 1<<16) // as xapian.NewIndexer
	}
	var err error
	if p.full, err = xapian.NewWriter(xapian.WriterOptions{NoTermList: true}); err != nil {
		return nil, err
	}
	if p.title, err = xapian.NewWriter(xapian.WriterOptions{NoTermList: true}); err != nil {
		return nil, err
	}
	return p, nil
}

// docs builds the documents of a front article (an HTML page) as
// xapian.Indexer's AddItem does, with libzim's two titles: the full-text
// document (nil when the page gives none) carries the item's own title
// (empty when the page has none), the title document the entry's title,
// which is the path when the page has none (libzim's Dirent::getTitle).
// It is safe for concurrent use with a stem function of each caller's
// own (xapian.CachedStemmer is not).
func (p *pageIndex) docs(path, title, mime string, content []byte, stem func(string) string) (full, titleDoc *xapian.Document) {
	if strings.HasPrefix(mime, "text/html") {
		if d, ok := xapian.LibzimFullText(path, title, string(content), stem, p.stop); ok {
			full = d
		}
	}
	if title == "" {
		title = path
	}
	return full, xapian.LibzimTitle(path, title, "", stem)
}

// addDocs adds the documents docs built, in path order.
func (p *pageIndex) addDocs(full, titleDoc *xapian.Document) error {
	if full != nil {
		if _, err := p.full.Add(full); err != nil {
			return err
		}
		p.nFull++
	}
	if _, err := p.title.Add(titleDoc); err != nil {
		return err
	}
	p.nTitle++
	return nil
}

func (p *pageIndex) writeFullText(w io.Writer) (int64, error) {
	return p.write(w, p.full, map[string]string{"valuesmap": "title:0;wordcount:1;geo.position:2", "kind": "fulltext"})
}

func (p *pageIndex) writeTitle(w io.Writer) (int64, error) {
	return p.write(w, p.title, map[string]string{"valuesmap": "title:0;targetPath:1", "kind": "title"})
}

// write adds the metadata xapian.Indexer sets (the stop words libzim picks
// by the exact language: a two-letter code's list, none for "eng") and
// writes the database.
func (p *pageIndex) write(w io.Writer, wr *xapian.Writer, meta map[string]string) (int64, error) {
	meta["data"] = "fullPath"
	meta["language"] = p.lang
	meta["stopwords"] = strings.Join(p.stops, "\n")
	for k, v := range meta {
		if err := wr.SetMetadata(k, []byte(v)); err != nil {
			return 0, err
		}
	}
	return wr.WriteTo(w)
}

// addIndex stores the database that write writes as X/<kind>/xapian,
// streamed through a pipe rather than held twice.
func addIndex(zw *zim.Writer, kind string, write func(io.Writer) (int64, error)) error {
	pr, pw := io.Pipe()
	go func() {
		_, err := write(pw)
		pw.CloseWithError(err)
	}()
	err := zw.AddXapianIndex(kind, pr)
	pr.CloseWithError(errors.New("index not stored")) // ends write if AddXapianIndex stopped reading
	return err
}

// resolveRedirects gives each redirect that leads (through at most 10
// others) to a capture an entry path, and makes links to it links to the
// capture.
func (s *site) resolveRedirects() {
	next := map[string]string{}
	for _, rd := range s.redirs {
		k := mustKey(rd.from)
		if _, ok := next[k]; !ok && k != "" {
			next[k] = rd.to
		}
	}
	for _, rd := range s.redirs {
		k := mustKey(rd.from)
		if k == "" || next[k] != rd.to {
			continue // not the first redirect of this URL
		}
		if _, ok := s.byURL[k]; ok {
			continue // captured too: the capture wins
		}
		to := rd.to
		for range 10 {
			if _, ok := s.byURL[mustKey(to)]; ok {
				break
			}
			n, ok := next[mustKey(to)]
			if !ok {
				break
			}
			to = n
		}
		tp, ok := s.lookupURL(to)
		if !ok {
			continue
		}
		p, err := s.namer.Name(rd.from, "text/html")
		if err != nil || s.saved[p] {
			continue
		}
		if err := s.namer.Alias(rd.from, to); err != nil {
			continue
		}
		s.redirEntries = append(s.redirEntries, redirect{from: p, to: tp})
		delete(next, k)
	}
}

// isHTMLType reports whether a stored MIME type is an HTML page.
func isHTMLType(mt string) bool {
	m := httpmsg.MediaType(mt)
	return m == "text/html" || m == "application/xhtml+xml"
}

// where names a capture in messages.
func (s *site) where(cp *capture) string {
	if cp.file != "" {
		return cp.file
	}
	return s.name + ": " + cp.url
}

// docURL is the URL links of a capture are resolved against.
func (s *site) docURL(cp *capture) string {
	if cp.url != "" {
		return cp.url
	}
	return dirBase + escapePath(cp.path)
}

type sectionCloser struct {
	*io.SectionReader
	f *os.File
}

func (s sectionCloser) Close() error {
	if s.f != nil {
		return s.f.Close()
	}
	return nil
}

// open returns the body of a capture.
func (s *site) open(cp *capture) (sectionCloser, error) {
	if cp.file == "" {
		return sectionCloser{io.NewSectionReader(s.spool, cp.off, cp.size), nil}, nil
	}
	f, err := os.Open(cp.file)
	if err != nil {
		return sectionCloser{}, err
	}
	return sectionCloser{io.NewSectionReader(f, 0, cp.size), f}, nil
}

// lookupURL returns the entry path of a captured URL.
func (s *site) lookupURL(u string) (string, bool) {
	if strings.HasPrefix(u, dirBase) {
		pu, err := url.Parse(u)
		if err != nil {
			return "", false
		}
		p := strings.TrimPrefix(pu.Path, "/")
		if s.saved[p] {
			return p, true
		}
		if p == "" || strings.HasSuffix(p, "/") {
			if s.saved[p+"index.html"] {
				return p + "index.html", true
			}
		}
		return "", false
	}
	p, ok := s.namer.Lookup(u)
	if !ok || !s.saved[p] {
		return "", false
	}
	return p, true
}

// target is the value a link becomes in the ZIM, and whether it leads to
// the live web.
func (s *site) target(doc string, l *links.Link) (string, bool) {
	return s.targetVia(doc, l, s.lookupURL)
}

// targetVia is target with lookupURL given (a worker's cached one).
func (s *site) targetVia(doc string, l *links.Link, lookupURL func(string) (string, bool)) (string, bool) {
	if l.Kind == links.Base {
		// the document's own URL: relative links resolve as with no
		// <base> at all (an empty href would be an "empty link")
		return zimRel(doc, doc), false
	}
	if p, ok := lookupURL(l.URL); ok {
		if keepLinkValue(doc, p, l.Value) {
			// already a link to the entry: left as it is written
			return l.Value, false
		}
		return zimRel(doc, p) + l.Fragment, false
	}
	if l.Kind == links.Embedded {
		// never captured: nothing to show offline, and no request to the
		// network from a ZIM (zimcheck: "external dependence")
		return "data:,", false
	}
	if strings.HasPrefix(l.URL, dirBase) {
		// a file the folder does not have: the page itself, where the
		// link is at least harmless
		if l.Fragment != "" {
			return l.Fragment, false
		}
		return zimRel(doc, doc), false
	}
	return l.URL + l.Fragment, true
}

// keepLinkValue reports whether v, a link's value in the entry doc, is
// already a relative link to entry p as zimRel would write one in spirit:
// a relative path (no scheme, no leading "/", no query) of characters that
// need no escaping in HTML or CSS, which resolves, inside the ZIM, to p.
// Such a link is left as its page wrote it (caf%c3%a9.html stays so).
func keepLinkValue(doc, p, v string) bool {
	if v == "" || v[0] == '/' || v[0] == '#' {
		return false
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~%/#", c) >= 0) {
			return false
		}
	}
	base, err := url.Parse(dirBase + escapePath(doc))
	if err != nil {
		return false
	}
	u, err := base.Parse(v)
	if err != nil || u.Scheme+"://"+u.Host+"/" != dirBase {
		return false
	}
	return u.Path == "/"+p
}

var emptyLink = regexp.MustCompile(`( href| src)( *= *)(""|'')`)

// fixEmptyLinks turns href="" (a link to the page itself, which link
// extractors do not report) into href="#", and src="" into src="data:,":
// zimcheck counts empty links as errors.
func fixEmptyLinks(b *bytes.Buffer) {
	if !bytes.Contains(b.Bytes(), []byte(`""`)) && !bytes.Contains(b.Bytes(), []byte(`''`)) || !emptyLink.Match(b.Bytes()) {
		return
	}
	out := emptyLink.ReplaceAllFunc(b.Bytes(), func(m []byte) []byte {
		q := m[len(m)-1:]
		v := "#"
		if bytes.HasPrefix(m, []byte(" src")) {
			v = "data:,"
		}
		return []byte(string(m[:len(m)-2]) + string(q) + v + string(q))
	})
	b.Reset()
	b.Write(out)
}

// zimRel is the relative URL from entry from to entry to, every byte but
// letters, digits and -._~ percent-encoded: no "&" or quote that HTML
// escaping would turn into an entity, which link checkers (zimcheck) do
// not decode.
func zimRel(from, to string) string {
	fd := strings.Split(path.Dir(from), "/")
	if path.Dir(from) == "." {
		fd = nil
	}
	ts := strings.Split(to, "/")
	i := 0
	for i < len(fd) && i < len(ts)-1 && fd[i] == ts[i] {
		i++
	}
	var b strings.Builder
	for range len(fd) - i {
		b.WriteString("../")
	}
	for j, seg := range ts[i:] {
		if j > 0 {
			b.WriteByte('/')
		}
		for k := 0; k < len(seg); k++ {
			c := seg[k]
			if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~", c) >= 0 {
				b.WriteByte(c)
			} else {
				fmt.Fprintf(&b, "%%%02X", c)
			}
		}
	}
	if b.Len() == 0 {
		return "./"
	}
	return b.String()
}

// mainPage picks the main page: --main-page (a path or a URL), else
// index.html, else the first HTML page, else the first entry.
func (s *site) mainPage(want string) (int, error) {
	if want != "" {
		for _, cand := range []string{want, strings.TrimPrefix(want, "/"), strings.TrimSuffix(want, "/") + "/index.html"} {
			for i := range s.caps {
				if s.caps[i].path == cand {
					return i, nil
				}
			}
		}
		if p, ok := s.lookupURL(want); ok {
			for i := range s.caps {
				if s.caps[i].path == p {
					return i, nil
				}
			}
		}
		// a redirect to a capture
		for _, rd := range s.redirs {
			if k1, _ := mirror.URLKey(rd.from); k1 != "" && k1 == mustKey(want) {
				if p, ok := s.lookupURL(rd.to); ok {
					return s.mainPage(p)
				}
			}
		}
		return 0, fmt.Errorf("%s: --main-page %q: no such entry or capture", s.name, want)
	}
	// a folder's top index.html, unless it is the index mirrorget writes
	// (a list of the start URLs): then the first start page it lists, or,
	// when it lists none, a site's index.html one level down
	for i := range s.caps {
		if s.caps[i].path != "index.html" {
			continue
		}
		first, isMG := s.mirrorgetIndex(&s.caps[i])
		if !isMG {
			return i, nil
		}
		for j := range s.caps {
			if first != "" && s.caps[j].path == first {
				return j, nil
			}
		}
	}
	for i := range s.caps {
		if d, f := path.Split(s.caps[i].path); f == "index.html" && d != "" && !strings.Contains(d[:len(d)-1], "/") {
			return i, nil
		}
	}
	if s.firstDoc >= 0 {
		return s.firstDoc, nil
	}
	return 0, nil
}

// mirrorgetIndex reports whether cp is the top index mirrorget writes,
// and the path of the first page it lists ("" if none).
func (s *site) mirrorgetIndex(cp *capture) (string, bool) {
	r, err := s.open(cp)
	if err != nil {
		return "", false
	}
	defer r.Close()
	b := make([]byte, 64<<10)
	n, _ := io.ReadFull(r, b)
	b = b[:n]
	if !bytes.Contains(b, []byte("<!-- mirrorget index -->")) {
		return "", false
	}
	m := mirrorgetIndexLink.FindSubmatch(b)
	if m == nil {
		return "", true
	}
	p, err := url.PathUnescape(html.UnescapeString(string(m[1])))
	if err != nil {
		return "", true
	}
	return p, true
}

// mirrorgetIndexLink is a start page's line in mirrorget's top index.
var mirrorgetIndexLink = regexp.MustCompile(`<li><a href="([^"]+)">`)

func mustKey(u string) string {
	k, _ := mirror.URLKey(u)
	return k
}

// gather reads the input: a folder, an HTTrack cache, a WACZ, a WARC/ARC.
func gather(c *createArgs, warn func(string, ...any)) (*site, error) {
	in := c.input
	s := &site{spoolMax: c.spoolMax, name: in, namer: mirror.NewNamer(nil), saved: map[string]bool{}, byURL: map[string]int{}, firstDoc: -1}
	if !cliutil.IsRemote(in) {
		st, err := os.Stat(in)
		if err != nil {
			return nil, err
		}
		if st.IsDir() {
			if filepath.Base(filepath.Clean(in)) == "hts-cache" {
				return s, s.fromCache(in, warn)
			}
			return s, s.fromDir(in, c.output, warn)
		}
		if strings.HasSuffix(in, ".zip") || strings.HasSuffix(in, ".ndx") {
			if filepath.Base(filepath.Dir(in)) == "hts-cache" {
				return s, s.fromCache(in, warn)
			}
		}
	}
	r, name, err := cliutil.OpenInput(in)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	s.name = name
	br := bufio.NewReaderSize(r, 64<<10)
	head, _ := br.Peek(4)
	if string(head) == "PK\x03\x04" {
		r.Close()
		return s, s.fromWACZ(in, warn)
	}
	spool, err := spoolFile()
	if err != nil {
		return nil, err
	}
	s.spool = spool
	rr, err := recordReader(br, name, warn)
	if err != nil {
		return nil, err
	}
	return s, s.fromRecords(rr, name, warn)
}

func spoolFile() (*os.File, error) {
	return sysfile.CreateDeleteOnClose("", "zimdump-create-*")
}

// recordReader opens WARC or ARC (plain, gzip, zstd) records.
func recordReader(br *bufio.Reader, name string, warn func(string, ...any)) (record.Reader, error) {
	kind, err := wacz.SniffInput(br)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	problem := func(p *record.Problem) { warn("%s", p.Error()) }
	switch kind {
	case wacz.KindARC, wacz.KindARCGzip:
		ar, err := arc.NewReader(br, arc.WithName(name), arc.WithPolicy(record.Warn), arc.WithProblemFunc(problem))
		if err != nil {
			return nil, err
		}
		return arc.NewConverter(ar, arc.WithSourceName(name)), nil
	}
	return warc.NewReader(br, warc.WithFilename(name), warc.WithPolicy(record.Warn), warc.WithProblemFunc(problem))
}

func (s *site) fromWACZ(in string, warn func(string, ...any)) error {
	ra, err := cliutil.OpenAt(in)
	if err != nil {
		return err
	}
	defer ra.Close()
	wr, err := wacz.Open(ra, ra.Size(), s.name)
	if err != nil {
		return err
	}
	spool, err := spoolFile()
	if err != nil {
		return err
	}
	s.spool = spool
	var names []string
	for _, f := range wr.Files() {
		if strings.HasPrefix(f.Name, "archive/") && !strings.HasSuffix(f.Name, "/") {
			names = append(names, f.Name)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		f, err := wr.File(n).Open()
		if err != nil {
			return fmt.Errorf("%s: %s: %v", s.name, n, err)
		}
		name := s.name + "!" + n
		rr, err := recordReader(bufio.NewReaderSize(f, 64<<10), name, warn)
		if err == nil {
			err = s.fromRecords(rr, name, warn)
		}
		f.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

func (s *site) fromCache(in string, warn func(string, ...any)) error {
	c, err := htcache.Open(in)
	if err != nil {
		return err
	}
	defer c.Close()
	rr, err := htcache.NewRecordReader(c, htcache.WithProblemFunc(func(p *record.Problem) { warn("%s", p.Error()) }))
	if err != nil {
		return err
	}
	defer rr.Close()
	spool, err := spoolFile()
	if err != nil {
		return err
	}
	s.spool = spool
	return s.fromRecords(rr, in, warn)
}

// fromRecords takes the 2xx captures (response records, and resource
// records of http(s) URLs) and the redirects of a record stream; the
// first capture of a URL wins. Bodies are stored decoded (no transfer or
// content coding) in the spool.
func (s *site) fromRecords(rr record.Reader, name string, warn func(string, ...any)) error {
	for {
		rec, err := rr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		t := rec.Type()
		if t != record.Type("response") && t != record.Type("resource") {
			continue
		}
		u := rec.TargetURI()
		key, err := mirror.URLKey(u)
		if err != nil {
			continue // not http(s)
		}
		if _, ok := s.byURL[key]; ok {
			continue
		}
		body, h, err := wacz.Payload(rec, true)
		if err != nil {
			warn("%s: record at offset %d (%s): %v (skipped)", name, rec.Offset, u, err)
			continue
		}
		ct := rec.ContentType()
		if h != nil {
			switch {
			case h.StatusCode >= 300 && h.StatusCode < 400:
				if loc := strings.TrimSpace(h.Get("Location")); loc != "" {
					if base, err := url.Parse(u); err == nil {
						if lu, err := base.Parse(loc); err == nil {
							s.redirs = append(s.redirs, redirect{from: u, to: lu.String()})
						}
					}
				}
				continue
			case h.StatusCode < 200 || h.StatusCode >= 300:
				continue // errors: links to them go to the live URL
			}
			ct = h.ContentType()
		}
		off, err := s.spool.Seek(0, io.SeekEnd)
		if err != nil {
			return err
		}
		sn := &sniffWriter{w: s.spool}
		if s.copyBuf == nil {
			s.copyBuf = make([]byte, 32<<10) // io.Copy's size, not one per record
		}
		n, err := io.CopyBuffer(sn, compio.CapReader(body, s.spoolMax), s.copyBuf)
		if err != nil {
			// a truncated or undecodable body: not worth an entry
			warn("%s: record at offset %d (%s): %v (skipped)", name, rec.Offset, u, err)
			if err := s.spool.Truncate(off); err != nil {
				return err
			}
			continue
		}
		mt := httpmsg.MediaType(ct)
		if mt == "" || mt == "application/octet-stream" || mt == "unknown/unknown" {
			mt = httpmsg.MediaType(http.DetectContentType(sn.head[:min(len(sn.head), 512)]))
		} else if mt == "text/html" {
			mt = htmlType(ct, sn.head)
		}
		p, err := s.namer.Name(u, mt)
		if err != nil {
			continue
		}
		s.byURL[key] = len(s.caps)
		s.saved[p] = true
		if s.firstDoc < 0 && isHTMLType(mt) {
			s.firstDoc = len(s.caps)
		}
		s.caps = append(s.caps, capture{url: u, path: p, mime: mt, off: off, size: n})
	}
}

// htmlType is the MIME type an HTML capture is stored with: text/html,
// or text/html;charset=X when the HTTP head names a charset other than
// UTF-8 (or ASCII) and the page does not declare one in its first 1024
// bytes, where browsers look for it: without it Kiwix would serve the
// page as text/html and the browser would guess wrong.
func htmlType(contentType string, head []byte) string {
	_, params, err := mime.ParseMediaType(contentType)
	cs := strings.ToLower(strings.TrimSpace(params["charset"]))
	if err != nil || cs == "" || cs == "utf-8" || cs == "utf8" || cs == "us-ascii" || strings.ContainsAny(cs, ";\"\x00") {
		return "text/html"
	}
	if bytes.Contains(bytes.ToLower(head), []byte("charset")) {
		return "text/html"
	}
	return "text/html;charset=" + cs
}

// sniffWriter keeps the first 1024 bytes written, for content sniffing
// and charset declarations.
type sniffWriter struct {
	w    io.Writer
	head []byte
}

func (s *sniffWriter) Write(p []byte) (int, error) {
	if len(s.head) < 1024 {
		s.head = append(s.head, p[:min(len(p), 1024-len(s.head))]...)
	}
	return s.w.Write(p)
}

// dirSkip are top-level names of a mirror folder that are not the site:
// HTTrack's and mirrorget's cache and logs.
func dirSkip(rel string) bool {
	top, _, _ := strings.Cut(rel, "/")
	return strings.HasPrefix(top, "hts-") || top == "cookies.txt" || strings.HasPrefix(path.Base(rel), ".")
}

// fromDir takes every regular file of dir but output (an earlier run's
// ZIM written into the folder).
func (s *site) fromDir(dir, output string, warn func(string, ...any)) error {
	s.dir = dir
	outAbs, _ := filepath.Abs(output)
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil || rel == "." {
			return err
		}
		rel = filepath.ToSlash(rel)
		if dirSkip(rel) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			warn("%s: symbolic link not followed (skipped)", p)
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if abs, _ := filepath.Abs(p); abs == outAbs {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		mt, err := fileMime(p)
		if err != nil {
			return err
		}
		if s.firstDoc < 0 && mt == "text/html" {
			s.firstDoc = len(s.caps)
		}
		s.saved[rel] = true
		s.caps = append(s.caps, capture{path: rel, mime: mt, file: p, size: info.Size()})
		return nil
	})
}

// extMime are the types of common web files, whatever the system's
// mime.types says.
var extMime = map[string]string{".html": "text/html", ".htm": "text/html", ".xhtml": "application/xhtml+xml",
	".css": "text/css", ".js": "application/javascript", ".mjs": "application/javascript",
	".json": "application/json", ".txt": "text/plain", ".xml": "application/xml", ".svg": "image/svg+xml",
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
	".webp": "image/webp", ".ico": "image/x-icon", ".pdf": "application/pdf", ".woff": "font/woff",
	".woff2": "font/woff2", ".ttf": "font/ttf", ".mp4": "video/mp4", ".webm": "video/webm",
	".mp3": "audio/mpeg", ".ogg": "audio/ogg", ".zip": "application/zip"}

func fileMime(p string) (string, error) {
	ext := strings.ToLower(path.Ext(p))
	if m, ok := extMime[ext]; ok {
		return m, nil
	}
	if m := mime.TypeByExtension(ext); m != "" {
		return httpmsg.MediaType(m), nil
	}
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b := make([]byte, 512)
	n, _ := io.ReadFull(f, b)
	return httpmsg.MediaType(http.DetectContentType(b[:n])), nil
}
