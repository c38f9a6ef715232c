package crawl

import (
	"bytes"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/arcport/arcport/lib/links"
)

// LinksExtractor is the default ExtractFunc: it reads the body of a 2xx
// capture with lib/links, by media type (and, for class files served as
// application/octet-stream, by extension).
func LinksExtractor(c *Capture) ([]Link, error) {
	if st := c.Status(); st < 200 || st > 299 {
		return nil, nil
	}
	if Parser(c.MIME(), c.URL) == nil {
		return nil, nil
	}
	limit := c.parseLimit
	if limit <= 0 {
		limit = DefaultMaxParse
	}
	if isClass(c.MIME(), c.URL) {
		return classLinks(func() (io.ReadCloser, error) {
			body, err := c.Body()
			if err != nil {
				return nil, err
			}
			return struct {
				io.Reader
				io.Closer
			}{NewDocReader(body, min(limit, maxClassSize)), body}, nil
		}, c.URL)
	}
	body, err := c.Body()
	if err != nil {
		return nil, err
	}
	defer body.Close()
	doc := NewDocReader(body, limit)
	ls, err := ExtractFrom(doc, c.MIME(), c.URL)
	if doc.Cut() {
		c.Warnings = append(c.Warnings, fmt.Sprintf("decoded body larger than %d bytes: links read from the first %d bytes only", limit, limit))
	}
	return ls, err
}

// DocReader reads at most a limit of bytes of a document, then reports
// io.EOF; Cut tells whether the document went on past the limit. The
// crawler reads documents for links through one (Config.ParseLimit).
type DocReader struct {
	r      io.Reader
	left   int64
	probed bool
	cut    bool
}

// NewDocReader returns a DocReader of at most limit bytes of r (limit <= 0:
// DefaultMaxParse).
func NewDocReader(r io.Reader, limit int64) *DocReader {
	if limit <= 0 {
		limit = DefaultMaxParse
	}
	return &DocReader{r: r, left: limit}
}

// Read reads from the document up to the limit.
func (d *DocReader) Read(p []byte) (int, error) {
	if d.left <= 0 {
		if !d.probed {
			d.probed = true
			var one [1]byte
			n, _ := io.ReadFull(d.r, one[:])
			d.cut = n > 0
		}
		return 0, io.EOF
	}
	if int64(len(p)) > d.left {
		p = p[:d.left]
	}
	n, err := d.r.Read(p)
	d.left -= int64(n)
	return n, err
}

// Cut reports whether reading stopped at the limit with more of the
// document left (known once Read has returned io.EOF at the limit).
func (d *DocReader) Cut() bool { return d.cut }

func isClass(mime, u string) bool { return docKind(mime, u) == "class" }

// maxClassSize bounds the class files ExtractFrom holds in memory to read
// them twice.
const maxClassSize = 16 << 20

// classLinks reads a Java class file's links against its codebase: the
// class's own URL minus its package path (a class com/example/Hands found
// at http://h/applet/com/example/Hands.class has codebase http://h/applet/),
// found by a first pass that reads the class's own name.
func classLinks(open func() (io.ReadCloser, error), u string) ([]Link, error) {
	read := func(base string) ([]links.Link, error) {
		r, err := open()
		if err != nil {
			return nil, err
		}
		defer r.Close()
		bu, err := url.Parse(base)
		if err != nil {
			return nil, err
		}
		var ls []links.Link
		err = links.Class(r, bu, func(l links.Link) error { ls = append(ls, l); return nil })
		return ls, err
	}
	ls, err := read(u)
	if err != nil && len(ls) == 0 {
		return nil, err
	}
	path := u
	if i := strings.IndexAny(path, "?#"); i >= 0 {
		path = path[:i]
	}
	for _, l := range ls {
		name := strings.TrimSuffix(l.Value, ".class")
		if l.Attr != "class" || !strings.Contains(name, "/") {
			continue
		}
		if suffix := "/" + name + ".class"; strings.HasSuffix(path, suffix) {
			if again, err2 := read(path[:len(path)-len(suffix)+1]); err2 == nil || len(again) > 0 {
				ls, err = again, err2
			}
			break
		}
	}
	return toLinks(ls), err
}

func toLinks(ls []links.Link) []Link {
	var set linkSet
	for _, l := range ls {
		set.add(l)
	}
	return set.out
}

// linkSet collects the links of one document as the extractor reports
// them, one Link per distinct (URL, Embedded, Redirect): a page repeating a
// link a million times costs one Link, so memory follows the distinct links
// of a page, not their occurrences. The mirror's rewriter does not need the
// occurrences: it extracts them again, streaming, as it rewrites.
type linkSet struct {
	out  []Link
	seen map[linkKey]struct{}
}

type linkKey struct {
	url                string
	embedded, redirect bool
}

// add is a links.Func.
func (s *linkSet) add(l links.Link) error {
	if l.Kind == links.Base || l.URL == "" {
		return nil
	}
	k := linkKey{l.URL, l.Kind == links.Embedded, l.Syntax == links.SyntaxRefresh}
	if _, dup := s.seen[k]; dup {
		return nil
	}
	if s.seen == nil {
		s.seen = map[linkKey]struct{}{}
	}
	s.seen[k] = struct{}{}
	src := l
	s.out = append(s.out, Link{URL: l.URL, Embedded: k.embedded, Redirect: k.redirect, Src: &src})
	return nil
}

// Parser returns the lib/links extractor for a media type and URL, or nil
// for documents that hold no links the crawler follows.
func Parser(mime, u string) func(io.Reader, *url.URL, links.Func) error {
	switch docKind(mime, u) {
	case "html":
		return links.HTML
	case "css":
		return links.CSS
	case "js":
		return links.JS
	case "class":
		return links.Class
	}
	return nil
}

// docKind names the kind of document a media type (and, when the type says
// little, the URL's extension) denotes: html, css, js, class or "".
func docKind(mime, u string) string {
	switch mime {
	case "text/html", "application/xhtml+xml", "application/vnd.wap.xhtml+xml":
		return "html"
	case "text/css":
		return "css"
	case "application/javascript", "text/javascript", "application/x-javascript",
		"application/ecmascript", "text/ecmascript", "text/jscript":
		return "js"
	case "application/java-vm", "application/java", "application/x-java-vm",
		"application/x-java-class", "application/java-byte-code":
		return "class"
	case "", "application/octet-stream":
		switch links.Ext(u) {
		case "class":
			return "class"
		case "html", "htm":
			if mime == "" {
				return "html"
			}
		case "css":
			if mime == "" {
				return "css"
			}
		}
	}
	return ""
}

// ExtractFrom reads the links of a document (a decoded body) of the given
// media type found at u. It is how an update run reads the links of a page
// the server answered 304 for, from the copy kept locally.
func ExtractFrom(r io.Reader, mime, u string) ([]Link, error) {
	p := Parser(mime, u)
	if p == nil {
		return nil, nil
	}
	if isClass(mime, u) {
		b, err := io.ReadAll(io.LimitReader(r, maxClassSize))
		if err != nil {
			return nil, err
		}
		return classLinks(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }, u)
	}
	base, err := url.Parse(u)
	if err != nil {
		return nil, err
	}
	var set linkSet
	err = p(r, base, set.add)
	return set.out, err
}

// DocKind names the kind of document a media type and URL denote, as the
// crawler reads it for links: "html", "css", "js", "class", or "" for
// anything else.
func DocKind(mime, u string) string { return docKind(mime, u) }
