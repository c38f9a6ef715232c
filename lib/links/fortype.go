package links

import (
	"io"
	"mime"
	"net/url"
	"strings"
)

// Extractor is the signature shared by HTML, CSS, JS and Class.
type Extractor func(r io.Reader, doc *url.URL, f Func) error

// ForType returns the extractor for a response: by its Content-Type
// (text/html and application/xhtml+xml: HTML; text/css: CSS; JavaScript
// types: JS; application/java-vm and friends: Class), or, when the type is
// missing or generic (application/octet-stream, text/plain...), by the
// extension of rawURL (.html .htm .shtml .xhtml, .css, .js .mjs, .class).
// It returns nil for anything else (images, PDF...), which holds no links to
// follow.
func ForType(contentType, rawURL string) Extractor {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		mt, _, _ = strings.Cut(contentType, ";")
		mt = strings.ToLower(strings.TrimSpace(mt))
	}
	switch mt {
	case "text/html", "application/xhtml+xml":
		return HTML
	case "text/css":
		return CSS
	case "application/javascript", "text/javascript", "application/x-javascript",
		"application/ecmascript", "text/ecmascript", "text/jscript":
		return JS
	case "application/java-vm", "application/x-java-vm", "application/java", "application/x-java-applet", "application/java-byte-code", "application/x-java-class":
		return Class
	case "", "application/octet-stream", "binary/octet-stream", "text/plain", "application/unknown",
		"application/x-unknown", "content/unknown", "unknown/unknown":
		switch Ext(rawURL) {
		case "html", "htm", "shtml", "xhtml":
			return HTML
		case "css":
			return CSS
		case "js", "mjs":
			return JS
		case "class":
			return Class
		}
	}
	return nil
}
