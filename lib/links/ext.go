package links

import "strings"

// Known extensions for the script and class heuristics (chapter 4.2.2: "strings
// terminating with a known extension, such as .gif or .html"), with the kind
// of link they usually are: pages and downloads are navigational, what a page
// loads (images, style sheets, scripts, media, fonts, applets) is embedded.
var knownExt = map[string]Kind{
	// pages
	"html": Navigational, "htm": Navigational, "shtml": Navigational, "xhtml": Navigational,
	"php": Navigational, "php3": Navigational, "php4": Navigational, "phtml": Navigational,
	"asp": Navigational, "aspx": Navigational, "jsp": Navigational, "cgi": Navigational,
	"pl": Navigational, "cfm": Navigational, "xml": Navigational, "rss": Navigational,
	// downloads
	"txt": Navigational, "pdf": Navigational, "doc": Navigational, "docx": Navigational,
	"xls": Navigational, "xlsx": Navigational, "ppt": Navigational, "pptx": Navigational,
	"rtf": Navigational, "zip": Navigational, "gz": Navigational, "tgz": Navigational,
	"tar": Navigational, "exe": Navigational, "ps": Navigational,
	// page requisites
	"css": Embedded, "js": Embedded, "mjs": Embedded, "json": Embedded,
	"gif": Embedded, "jpg": Embedded, "jpeg": Embedded, "jpe": Embedded, "png": Embedded,
	"bmp": Embedded, "ico": Embedded, "svg": Embedded, "webp": Embedded, "avif": Embedded,
	"tif": Embedded, "tiff": Embedded, "xbm": Embedded,
	"swf": Embedded, "class": Embedded, "jar": Embedded, "cab": Embedded,
	"mp3": Embedded, "mp4": Embedded, "m4a": Embedded, "m4v": Embedded, "wav": Embedded,
	"au": Embedded, "snd": Embedded, "aif": Embedded, "aiff": Embedded, "mid": Embedded,
	"midi": Embedded, "ogg": Embedded, "oga": Embedded, "ogv": Embedded, "webm": Embedded,
	"avi": Embedded, "mov": Embedded, "mpg": Embedded, "mpeg": Embedded, "wmv": Embedded,
	"wma": Embedded, "flv": Embedded, "rm": Embedded, "ram": Embedded, "ra": Embedded,
	"woff": Embedded, "woff2": Embedded, "ttf": Embedded, "otf": Embedded, "eot": Embedded,
	"vtt": Embedded,
}

// Ext returns the lower-case extension of the last path segment of a URL or
// path (without query or fragment), or "" if there is none.
func Ext(s string) string {
	if i := strings.IndexAny(s, "?#"); i >= 0 {
		s = s[:i]
	}
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		s = s[i+1:]
	}
	i := strings.LastIndexByte(s, '.')
	if i <= 0 || i == len(s)-1 {
		return ""
	}
	return strings.ToLower(s[i+1:])
}

// KindOf guesses the kind of a link from its extension: Embedded for images,
// style sheets, scripts, media, fonts and applets, Navigational otherwise.
func KindOf(u string) Kind {
	if k, ok := knownExt[Ext(u)]; ok {
		return k
	}
	return Navigational
}

// LooksLikeURL is the string analyser of chapter 4.2.2: s looks like a link
// when it starts with http:// or https://, or when its path ends with a known
// extension after a non-empty name; it must hold no whitespace, quotes,
// brackets or other characters that show it is code or text.
func LooksLikeURL(s string) bool {
	if len(s) < 3 || len(s) > 2048 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c == 0x7f {
			return false
		}
		switch c {
		case '"', '\'', '`', '<', '>', '(', ')', '{', '}', '[', ']', '\\', '*', '$', '^', '|', ',', ';', '!':
			return false
		}
	}
	low := strings.ToLower(s)
	if strings.HasPrefix(low, "http://") || strings.HasPrefix(low, "https://") {
		return len(s) > len("https://")
	}
	if _, rest, ok := splitScheme(s); ok && !strings.HasPrefix(rest, "//") {
		// "mailto:x.html", "about:a.html", "text:x.gif"
		if i := strings.IndexByte(s, ':'); i >= 0 && !strings.ContainsAny(s[:i], "/.") {
			return false
		}
	}
	ext := Ext(s)
	if _, ok := knownExt[ext]; !ok {
		return false
	}
	p := s
	if i := strings.IndexAny(p, "?#"); i >= 0 {
		p = p[:i]
	}
	name := p[strings.LastIndexByte(p, '/')+1:]
	return len(name) > len(ext)+1
}
