package mirrorget

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/urfave/cli/v2"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/arcport/arcport/lib/browser"
	"github.com/arcport/arcport/lib/crawl"
	"github.com/arcport/arcport/lib/internal/cliutil"
	"github.com/arcport/arcport/lib/internal/safefs"
	"github.com/arcport/arcport/lib/record"
)

// BrowserOptions are the settings of --browser: pages rendered in headless
// Chromium (lib/browser), every request of theirs sent through the crawler
// (crawl.Config.Render).
type BrowserOptions struct {
	Auto      bool          // --browser=auto: only pages with a <script>
	Path      string        // --browser-path ("": chromium on PATH)
	Tabs      int           // --browser-tabs
	Page      time.Duration // --page-timeout
	ScrollMax int           // --scroll-max (-1: no scrolling)
	MaxBody   int64         // --browser-max-body (0: --max-parse alone)
}

// browserValueFlags are the flags of --browser that take a value.
var browserValueFlags = []string{"browser-path", "browser-tabs", "page-timeout", "scroll-max", "browser-max-body"}

func init() {
	for _, n := range browserValueFlags {
		valueFlags[n] = true
	}
}

// browserFlags are the flags of --browser.
func browserFlags() []cli.Flag {
	return []cli.Flag{
		&cli.GenericFlag{Name: "browser", Value: &browserMode{}, DefaultText: "off",
			Usage: "render every HTML page in headless Chromium (links of the rendered DOM followed), or with `auto` (--browser=auto) only the pages holding a <script>; each request a page makes is fetched by mirrorget under its rules (scope for requisites, robots.txt, --rate, cookies, credentials, size limits) and written as received (content coding kept)"},
		&cli.StringFlag{Name: "browser-path", Usage: "with --browser: the Chromium (or Chrome) `PROGRAM`", DefaultText: "chromium on PATH"},
		&cli.IntFlag{Name: "browser-tabs", Value: 2, Usage: "with --browser: render at most `N` pages at once (tabs of one Chromium)"},
		&cli.DurationFlag{Name: "page-timeout", Value: 90 * time.Second, Usage: "with --browser: give up a page after `DURATION` (load, network idle for 2 s, scrolling); its capture and links found without the browser are kept"},
		&cli.StringFlag{Name: "browser-max-body", Value: "32m", Usage: "with --browser: hand the browser no body longer than `BYTES` decoded (suffixes k, m, g; 0: no cap but --max-parse): a longer one is fetched and recorded whole, and fails in the page"},
		&cli.IntFlag{Name: "scroll-max", Value: 40, Usage: "with --browser: scroll a page at most `N` viewports to load what loads on scroll (0: no scrolling)"},
	}
}

// browserMode is the value of --browser: off, on (the flag alone) or auto.
type browserMode struct{ mode string }

func (v *browserMode) String() string {
	if v == nil || v.mode == "" {
		return "off"
	}
	return v.mode
}

func (v *browserMode) Set(s string) error {
	switch strings.ToLower(s) {
	case "on", "1", "yes", "true":
		v.mode = "on"
	case "off", "0", "no", "false":
		v.mode = "off"
	case "auto":
		v.mode = "auto"
	default:
		return fmt.Errorf("want auto, on or off, not %q", s)
	}
	return nil
}

// IsBoolFlag lets --browser stand without a value.
func (v *browserMode) IsBoolFlag() bool { return true }

// browserOptions reads the flags of --browser (nil without it).
func browserOptions(c *cli.Context) (*BrowserOptions, error) {
	mode := "off"
	if v, ok := c.Generic("browser").(*browserMode); ok {
		mode = v.String()
	}
	for _, n := range browserValueFlags {
		if c.IsSet(n) && mode == "off" {
			return nil, cliutil.Usagef("--%s needs --browser", n)
		}
	}
	if mode == "off" {
		return nil, nil
	}
	b := &BrowserOptions{Auto: mode == "auto", Path: c.String("browser-path"), Tabs: c.Int("browser-tabs"), Page: c.Duration("page-timeout"), ScrollMax: c.Int("scroll-max")}
	var err error
	if b.MaxBody, err = ParseSize(c.String("browser-max-body")); err != nil {
		return nil, cliutil.Usagef("--browser-max-body: %v", err)
	}
	switch {
	case b.Tabs < 1:
		return nil, cliutil.Usagef("--browser-tabs must be at least 1")
	case b.Page <= 0:
		return nil, cliutil.Usagef("--page-timeout must be positive")
	case b.ScrollMax < 0:
		return nil, cliutil.Usagef("--scroll-max must not be negative")
	}
	if b.ScrollMax == 0 {
		b.ScrollMax = -1 // lib/browser: no scrolling
	}
	if err := findBrowser(b.Path); err != nil {
		return nil, cliutil.Usagef("%v", err)
	}
	return b, nil
}

// findBrowser checks that Chromium is there before the crawl starts.
func findBrowser(path string) error {
	if path != "" {
		if _, err := exec.LookPath(path); err != nil {
			return fmt.Errorf("--browser-path %s: not found or not executable", path)
		}
		return nil
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if _, err := exec.LookPath(name); err == nil {
			return nil
		}
	}
	return fmt.Errorf("--browser: no chromium on PATH (install it or give --browser-path)")
}

// startBrowser sets o.Crawl.Render to render pages in a pool of
// o.Browser.Tabs tabs, and returns the function that closes it.
func startBrowser(o *Options, stderr io.Writer) func() {
	b := o.Browser
	pool := browser.NewPool(browser.Options{Path: b.Path, UserAgent: o.Crawl.UserAgent}, b.Tabs)
	po := browser.PageOptions{Timeout: b.Page, ScrollMax: b.ScrollMax}
	// a body over --max-parse is never decoded for the browser (an
	// error in the page), one over --browser-max-body is refused to it
	if lim := b.MaxBody; lim > 0 && lim < 1<<31 {
		po.MaxBody = int(lim)
	}
	verbose := o.Verbose && !o.Quiet
	o.Crawl.Render = func(ctx context.Context, cp *crawl.Capture, fetch crawl.PageFetch) ([]crawl.Link, error) {
		if b.Auto && !hasScript(cp, o.Crawl.ParseLimit()) {
			return nil, nil // a plain fetch is all the page needs
		}
		pg, err := pool.Render(ctx, cp.URL, browser.FetchFunc(fetch), po)
		if err != nil {
			return nil, err
		}
		rp := &renderedPage{url: cp.URL, date: time.Now(), shot: pg.Screenshot, text: pageText(pg), title: pg.Title}
		if o.Mirror != "" && len(pg.Frames) > 0 {
			rp.html = pg.Frames[0].HTML
		}
		rendered.Store(cp, rp)
		if verbose {
			fmt.Fprintf(stderr, "rendered %s: %d requests (%d failed), %d scrolls, %d links, settled %v\n",
				cp.URL, pg.Requests, pg.Failed, pg.Scrolls, len(pg.Links), pg.Settled)
		} else if !pg.Settled && !o.Quiet {
			// a page that never went quiet: kept as it was at the timeout
			fmt.Fprintf(stderr, "mirrorget: %s: still loading after --page-timeout %v (%d requests): rendered as it was then\n",
				cp.URL, b.Page, pg.Requests)
		}
		links := make([]crawl.Link, 0, len(pg.Links))
		for _, l := range pg.Links {
			links = append(links, crawl.Link{URL: l.URL, Embedded: l.Tag == "iframe" || l.Tag == "frame"})
		}
		return links, nil
	}
	return func() { pool.Close() }
}

// hasScript reports whether the page of cp holds a <script> element
// (read decoded, up to limit bytes): --browser=auto renders only those.
func hasScript(cp *crawl.Capture, limit int64) bool {
	r, err := cp.Body()
	if err != nil {
		return true // let the browser make of it what it can
	}
	defer r.Close()
	b, _ := io.ReadAll(io.LimitReader(r, limit))
	return bytes.Contains(bytes.ToLower(b), []byte("<script"))
}

// rendered holds what the browser made of a page (*crawl.Capture ->
// *renderedPage) from its rendering until the sink has written the page's
// capture: the stream writes it after the page's records (renderRecords),
// the sink then forgets it.
var rendered sync.Map

// renderedPage is what is kept of a rendered page for the WARC.
type renderedPage struct {
	url   string
	date  time.Time
	shot  []byte // PNG of the viewport
	text  string // innerText of every frame
	title string // document.title as the scripts left it
	html  string // the main frame's DOM serialized (with -O only)
}

// pageText is the text of a rendered page: the innerText of its main
// frame, then that of each other frame holding any, a blank line between.
func pageText(pg *browser.Page) string {
	var parts []string
	for _, f := range pg.Frames {
		if t := strings.TrimSpace(f.Text); t != "" {
			parts = append(parts, t)
		}
	}
	if len(parts) == 0 {
		return strings.TrimSpace(pg.Text)
	}
	return strings.Join(parts, "\n\n")
}

// renderRecords returns the resource records of the page of cp when the
// browser rendered it, as Browsertrix Crawler names them: its screenshot
// (WARC-Target-URI urn:view:URL, image/png) and its text (urn:text:URL,
// text/plain; charset=utf-8; waczpack create puts it in pages.jsonl;
// WARC-JSON-Metadata {"title": ...} holds document.title as rendered),
// each WARC-Concurrent-To the page's response record respID.
func renderRecords(cp *crawl.Capture, respID string) []*record.Record {
	v, ok := rendered.Load(cp)
	if !ok {
		return nil
	}
	rp := v.(*renderedPage)
	date := record.FormatDate(rp.date, false)
	res := func(urn, ct string, block []byte) *record.Record {
		return &record.Record{
			Header: record.Header{
				{Name: record.FieldType, Value: string(record.Resource)},
				{Name: record.FieldRecordID, Value: crawl.NewRecordID()},
				{Name: record.FieldDate, Value: date},
				{Name: record.FieldTargetURI, Value: urn + rp.url},
				{Name: record.FieldConcurrentTo, Value: respID},
				{Name: record.FieldContentType, Value: ct},
				{Name: record.FieldContentLength, Value: strconv.Itoa(len(block))},
			},
			Block: bytes.NewReader(block),
		}
	}
	var out []*record.Record
	if len(rp.shot) > 0 {
		out = append(out, res("urn:view:", "image/png", rp.shot))
	}
	text := res("urn:text:", "text/plain; charset=utf-8", []byte(rp.text))
	if title := strings.Join(strings.Fields(rp.title), " "); title != "" {
		// the title as the scripts left it, for pages.jsonl: in the
		// record's JSON metadata, as Browsertrix Crawler writes its own
		meta, _ := json.Marshal(struct {
			Title string `json:"title"`
		}{title})
		text.Header = append(text.Header, record.Field{Name: record.FieldJSONMetadata, Value: string(meta)})
	}
	return append(out, text)
}

// saveRendered puts in place of the file -O saved for the page of cp the
// page as the browser rendered it: its DOM serialized, with what the
// scripts made of it (the JSON-rendered text, the images they set). Its
// links are rewritten with the other pages' by finish, to the files of
// the mirror, the JSON and XHR answers among them (saved beside it as the
// page's requests were). The scripts are left out: what they would build
// is in the DOM already (run again, they would build it twice, or clear
// it when their requests fail offline), and the document is declared
// UTF-8, as it is written.
func (m *localMirror) saveRendered(cp *crawl.Capture) error {
	v, ok := rendered.Load(cp)
	if !ok || v.(*renderedPage).html == "" || cp.Head == nil {
		return nil
	}
	rel, ok := m.namer.Lookup(cp.URL)
	if !ok || !m.saved[rel] || !m.current[rel] {
		return nil // not saved by this run (an error page, refused)
	}
	doc, err := staticDOM(v.(*renderedPage).html)
	if err != nil {
		m.logf("%s: rendered page not saved: %v", cp.URL, err)
		return nil
	}
	err = m.writeFile(rel, strings.NewReader(doc))
	if safefs.Refused(err) {
		m.refuse(cp.URL, err)
		return nil
	}
	return err
}

// browserValidators are the validators of -O for a crawl with --browser:
// none for a page, which is fetched whole again to be rendered again (a
// 304 would leave the mirror with the page as the server sends it, its
// cache holding that and not the rendered DOM); the others' as without
// the browser.
func (m *localMirror) browserValidators(u string) (string, string) {
	m.mu.Lock()
	e := m.oldEnts[u]
	m.mu.Unlock()
	if e != nil && isPage(e.Meta.ContentType, u) {
		return "", ""
	}
	return m.validators(u)
}

// staticDOM makes a document of a rendered DOM for a local copy: script
// elements (but data blocks such as JSON-LD), preloads of scripts and
// charset declarations removed, <meta charset="utf-8"> first in the head.
func staticDOM(dom string) (string, error) {
	root, err := html.Parse(strings.NewReader(dom))
	if err != nil {
		return "", err
	}
	var head *html.Node
	var drop []*html.Node
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch n.DataAtom {
			case atom.Head:
				if head == nil {
					head = n
				}
			case atom.Script:
				if isScriptType(attr(n, "type")) {
					drop = append(drop, n)
					return
				}
			case atom.Link:
				rel := strings.ToLower(attr(n, "rel"))
				if rel == "modulepreload" || rel == "preload" && strings.EqualFold(attr(n, "as"), "script") {
					drop = append(drop, n)
				}
			case atom.Meta:
				if attr(n, "charset") != "" || strings.EqualFold(attr(n, "http-equiv"), "content-type") {
					drop = append(drop, n)
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(root)
	for _, n := range drop {
		n.Parent.RemoveChild(n)
	}
	if head != nil {
		meta := &html.Node{Type: html.ElementNode, Data: "meta", DataAtom: atom.Meta, Attr: []html.Attribute{{Key: "charset", Val: "utf-8"}}}
		head.InsertBefore(meta, head.FirstChild)
	}
	var b strings.Builder
	if err := html.Render(&b, root); err != nil {
		return "", err
	}
	return b.String(), nil
}

// isScriptType reports whether a <script type> is one that runs (not a
// data block).
func isScriptType(t string) bool {
	t = strings.ToLower(strings.TrimSpace(t))
	if i := strings.IndexByte(t, ';'); i >= 0 {
		t = strings.TrimSpace(t[:i])
	}
	switch t {
	case "", "module", "text/javascript", "application/javascript", "text/ecmascript", "application/ecmascript",
		"text/jscript", "text/livescript", "application/x-javascript", "text/x-javascript":
		return true
	}
	return false
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}
