package crawl

import (
	"io"
	"net/url"

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
	body, err := c.Body()
	if err != nil {
		return nil, err
	}
	defer body.Close()
	return ExtractFrom(body, c.MIME(), c.URL)
}

// Parser returns the lib/links extractor for a media type and URL, or nil
// for documents that hold no links the crawler follows.
func Parser(mime, u string) func(io.Reader, *url.URL, links.Func) error {
	switch mime {
	case "text/html", "application/xhtml+xml", "application/vnd.wap.xhtml+xml":
		return links.HTML
	case "text/css":
		return links.CSS
	case "application/javascript", "text/javascript", "application/x-javascript",
		"application/ecmascript", "text/ecmascript", "text/jscript":
		return links.JS
	case "application/java-vm", "application/java", "application/x-java-vm",
		"application/x-java-class", "application/java-byte-code":
		return links.Class
	case "", "application/octet-stream":
		if links.Ext(u) == "class" {
			return links.Class
		}
		if mime == "" {
			switch links.Ext(u) {
			case "html", "htm":
				return links.HTML
			case "css":
				return links.CSS
			}
		}
	}
	return nil
}

// ExtractFrom reads the links of a document (a decoded body) of the given
// media type found at u. It is how an update run reads the links of a page
// the server answered 304 for, from the copy kept locally.
func ExtractFrom(r io.Reader, mime, u string) ([]Link, error) {
	p := Parser(mime, u)
	if p == nil {
		return nil, nil
	}
	base, err := url.Parse(u)
	if err != nil {
		return nil, err
	}
	var out []Link
	err = p(r, base, func(l links.Link) error {
		if l.Kind == links.Base || l.URL == "" {
			return nil
		}
		src := l
		out = append(out, Link{
			URL:      l.URL,
			Embedded: l.Kind == links.Embedded,
			Redirect: l.Syntax == links.SyntaxRefresh,
			Src:      &src,
		})
		return nil
	})
	return out, err
}
