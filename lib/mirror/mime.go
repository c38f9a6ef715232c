package mirror

import (
	"mime"
	"strings"
)

// mimeExt maps a media type to the extension a local copy gets; the other
// extensions listed are accepted as agreeing with the type (no renaming).
var mimeExt = map[string][]string{
	"text/html":                     {"html", "htm"},
	"application/xhtml+xml":         {"xhtml", "html", "htm", "xht"},
	"text/css":                      {"css"},
	"application/javascript":        {"js", "mjs"},
	"text/javascript":               {"js", "mjs"},
	"application/x-javascript":      {"js", "mjs"},
	"application/ecmascript":        {"js"},
	"text/ecmascript":               {"js"},
	"application/json":              {"json", "map"},
	"application/ld+json":           {"jsonld", "json"},
	"application/manifest+json":     {"webmanifest", "json"},
	"text/xml":                      {"xml", "xsl", "xslt", "rss", "atom", "svg"},
	"application/xml":               {"xml", "xsl", "xslt", "rss", "atom", "svg"},
	"application/rss+xml":           {"rss", "xml"},
	"application/atom+xml":          {"atom", "xml"},
	"text/csv":                      {"csv"},
	"text/calendar":                 {"ics"},
	"text/vtt":                      {"vtt"},
	"text/markdown":                 {"md", "markdown"},
	"image/gif":                     {"gif"},
	"image/jpeg":                    {"jpg", "jpeg", "jpe", "jfif"},
	"image/pjpeg":                   {"jpg", "jpeg"},
	"image/png":                     {"png"},
	"image/apng":                    {"png", "apng"},
	"image/webp":                    {"webp"},
	"image/avif":                    {"avif"},
	"image/svg+xml":                 {"svg", "svgz"},
	"image/x-icon":                  {"ico"},
	"image/vnd.microsoft.icon":      {"ico"},
	"image/bmp":                     {"bmp"},
	"image/x-ms-bmp":                {"bmp"},
	"image/tiff":                    {"tif", "tiff"},
	"image/x-xbitmap":               {"xbm"},
	"application/pdf":               {"pdf"},
	"application/postscript":        {"ps", "eps", "ai"},
	"application/rtf":               {"rtf"},
	"application/msword":            {"doc", "dot"},
	"application/vnd.ms-excel":      {"xls"},
	"application/vnd.ms-powerpoint": {"ppt", "pps"},
	"application/vnd.openxmlformats-officedocument.wordprocessingml.document":   {"docx"},
	"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet":         {"xlsx"},
	"application/vnd.openxmlformats-officedocument.presentationml.presentation": {"pptx"},
	"application/vnd.oasis.opendocument.text":                                   {"odt"},
	"application/zip":               {"zip"},
	"application/gzip":              {"gz", "tgz"},
	"application/x-gzip":            {"gz", "tgz"},
	"application/x-tar":             {"tar"},
	"application/x-bzip2":           {"bz2"},
	"application/x-xz":              {"xz"},
	"application/x-7z-compressed":   {"7z"},
	"application/vnd.rar":           {"rar"},
	"application/x-rar-compressed":  {"rar"},
	"application/x-shockwave-flash": {"swf"},
	"application/java-vm":           {"class"},
	"application/x-java-applet":     {"class"},
	"application/x-java-vm":         {"class"},
	"application/java":              {"class"},
	"application/java-archive":      {"jar"},
	"application/x-java-archive":    {"jar"},
	"application/wasm":              {"wasm"},
	"application/epub+zip":          {"epub"},
	"audio/mpeg":                    {"mp3", "mpga", "mp2"},
	"audio/mp4":                     {"m4a", "mp4"},
	"audio/wav":                     {"wav"},
	"audio/x-wav":                   {"wav"},
	"audio/wave":                    {"wav"},
	"audio/basic":                   {"au", "snd"},
	"audio/ogg":                     {"ogg", "oga", "opus"},
	"audio/webm":                    {"weba", "webm"},
	"audio/midi":                    {"mid", "midi"},
	"audio/x-midi":                  {"mid", "midi"},
	"audio/x-aiff":                  {"aif", "aiff"},
	"audio/x-pn-realaudio":          {"ram", "rm", "ra"},
	"audio/x-ms-wma":                {"wma"},
	"video/mp4":                     {"mp4", "m4v"},
	"video/webm":                    {"webm"},
	"video/ogg":                     {"ogv", "ogg"},
	"video/mpeg":                    {"mpg", "mpeg", "mpe"},
	"video/quicktime":               {"mov", "qt"},
	"video/x-msvideo":               {"avi"},
	"video/x-ms-wmv":                {"wmv"},
	"video/x-flv":                   {"flv"},
	"font/woff":                     {"woff"},
	"font/woff2":                    {"woff2"},
	"font/ttf":                      {"ttf"},
	"font/otf":                      {"otf"},
	"application/font-woff":         {"woff"},
	"application/font-woff2":        {"woff2"},
	"application/x-font-ttf":        {"ttf"},
	"application/x-font-otf":        {"otf"},
	"application/vnd.ms-fontobject": {"eot"},
}

// genericTypes say nothing about the content: the URL's name is kept.
var genericTypes = map[string]bool{
	"application/octet-stream": true, "binary/octet-stream": true, "application/unknown": true,
	"application/x-unknown": true, "content/unknown": true, "unknown/unknown": true,
	"application/x-download": true, "application/force-download": true, "application/download": true,
}

// dynamicExt are server-side extensions that say nothing about what is
// served: always replaced by the type's extension.
var dynamicExt = map[string]bool{
	"cgi": true, "php": true, "php3": true, "php4": true, "php5": true, "phtml": true, "asp": true,
	"aspx": true, "asmx": true, "ashx": true, "jsp": true, "jspx": true, "jhtml": true, "pl": true,
	"py": true, "rb": true, "cfm": true, "cfml": true, "do": true, "action": true, "shtml": true,
	"dll": true, "exe": true, "fcgi": true, "nsf": true, "lasso": true, "srf": true,
}

// knownExt is every extension of the table, for deciding whether a name's
// trailing ".token" is an extension to replace or part of the name
// (/article-1.884291 served as HTML becomes article-1.884291.html).
var knownExt = func() map[string]bool {
	m := map[string]bool{"txt": true, "text": true}
	for _, exts := range mimeExt {
		for _, e := range exts {
			m[e] = true
		}
	}
	return m
}()

// MediaType returns the lower-case media type of a Content-Type value,
// without parameters ("" if none).
func MediaType(contentType string) string {
	if contentType == "" {
		return ""
	}
	if mt, _, err := mime.ParseMediaType(contentType); err == nil {
		return mt
	}
	mt, _, _ := strings.Cut(contentType, ";")
	return strings.ToLower(strings.TrimSpace(mt))
}

// IsHTML reports whether a Content-Type is HTML or XHTML.
func IsHTML(contentType string) bool {
	mt := MediaType(contentType)
	return mt == "text/html" || mt == "application/xhtml+xml"
}

// splitExt splits a file name at its last dot ("" ext when none, or when
// the dot starts the name).
func splitExt(name string) (stem, ext string) {
	i := strings.LastIndexByte(name, '.')
	if i <= 0 || i == len(name)-1 {
		return name, ""
	}
	return name[:i], name[i+1:]
}

// ExtFor returns the extension a file of this Content-Type is given when its
// URL name has none that agrees, or "" when the type is unknown or generic.
func ExtFor(contentType string) string {
	if exts := mimeExt[MediaType(contentType)]; len(exts) > 0 {
		return exts[0]
	}
	return ""
}

// FileName applies the MIME type to a file name as HTTrack does: a name
// whose extension agrees with the type is kept; a server-side or known but
// different extension is replaced (index.cgi -> index.html, x.php -> x.css);
// otherwise the type's extension is appended (page -> page.html,
// article-1.884291 -> article-1.884291.html). Unknown and generic types
// (application/octet-stream...) keep the name; text/plain only adds .txt to
// a name without extension.
func FileName(name, contentType string) string {
	mt := MediaType(contentType)
	if mt == "" || genericTypes[mt] {
		return name
	}
	stem, ext := splitExt(name)
	lext := strings.ToLower(ext)
	if mt == "text/plain" {
		if ext == "" {
			return name + ".txt"
		}
		return name
	}
	exts, ok := mimeExt[mt]
	if !ok {
		return name
	}
	for _, e := range exts {
		if lext == e {
			return name
		}
	}
	switch {
	case ext == "":
		return name + "." + exts[0]
	case dynamicExt[lext] || knownExt[lext]:
		return stem + "." + exts[0]
	}
	return name + "." + exts[0]
}
