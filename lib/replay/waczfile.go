package replay

import (
	"io"
	"net/http"
	"net/url"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/arcport/arcport/lib/store"
)

// A WACZ collection serves the WACZ file itself at /COLL/file/NAME.wacz
// (NAME.wacz: the base name of its source) for clients that read a WACZ
// by ranges, such as ReplayWeb.page: GET and HEAD through
// http.ServeContent (Accept-Ranges, Content-Length, single and multiple
// Range requests, 416, If-None-Match / If-Range on the ETag,
// If-Modified-Since on a local file's time), CORS for any origin, and
// OPTIONS preflights. The bytes are read through the store the
// collection reads the WACZ with (a local file, s3://, http(s)://).

// waczFileInfo is what the file route serves for a WACZ collection.
type waczFileInfo struct {
	name    string    // base name: the last segment of the route
	etag    string    // quoted; "" if unknown
	modTime time.Time // zero if unknown (remote)
}

// waczBaseName is the file name of a WACZ source: the last segment of
// its path (for a URL, without its query string).
func waczBaseName(src string) string {
	if store.IsRemote(src) {
		if u, err := url.Parse(src); err == nil && u.Path != "" {
			return path.Base(u.Path)
		}
		if i := strings.IndexAny(src, "?#"); i >= 0 {
			src = src[:i]
		}
		return path.Base(src)
	}
	return filepath.Base(src)
}

// localETag is a local file's ETag: its size and modification time, as
// nginx makes one.
func localETag(size int64, mod time.Time) string {
	return `"` + strconv.FormatInt(mod.Unix(), 16) + "-" + strconv.FormatInt(size, 16) + `"`
}

// FileURL returns the path the collection's WACZ file is served at
// ("/COLL/file/NAME.wacz"), or "" if the collection is not a WACZ.
func (c *Collection) FileURL() string {
	if c.wacz == nil {
		return ""
	}
	return "/" + c.Name + "/file/" + url.PathEscape(c.wacz.file.name)
}

// setCORS lets pages of any origin read the answer and its range
// headers.
func setCORS(h http.Header) {
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Access-Control-Expose-Headers", "Content-Range, Content-Length, Accept-Ranges, ETag, Last-Modified, Content-Type")
}

// serveWACZFile answers /{coll}/file/{name}.
func (s *Server) serveWACZFile(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	setCORS(h)
	c, ok := s.colls[r.PathValue("coll")]
	if !ok || c.wacz == nil || r.PathValue("name") != c.wacz.file.name {
		jsonError(w, http.StatusNotFound, "No Resource Found")
		return
	}
	switch r.Method {
	case http.MethodOptions:
		h.Set("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS")
		if rh := r.Header.Get("Access-Control-Request-Headers"); rh != "" && len(rh) < 1024 {
			h.Set("Access-Control-Allow-Headers", rh)
		} else {
			h.Set("Access-Control-Allow-Headers", "Range, If-None-Match, If-Range, If-Modified-Since")
		}
		h.Set("Access-Control-Max-Age", "86400")
		h.Set("Allow", "GET, HEAD, OPTIONS")
		h.Set("Content-Length", "0")
		w.WriteHeader(http.StatusNoContent)
		return
	case http.MethodGet, http.MethodHead:
	default:
		h.Set("Allow", "GET, HEAD, OPTIONS")
		jsonError(w, http.StatusMethodNotAllowed, "Method Not Allowed")
		return
	}
	f := c.wacz.file
	h.Set("Content-Type", "application/zip")
	if f.etag != "" {
		h.Set("ETag", f.etag)
	}
	rs := io.NewSectionReader(c.wacz.zd.ra, 0, c.wacz.zd.size)
	http.ServeContent(w, r, f.name, f.modTime, rs)
}

// quoteETag returns an ETag as HTTP writes it: quoted, unless it is
// already ("x" or W/"x"); "" stays "".
func quoteETag(e string) string {
	if e == "" || strings.HasPrefix(e, `"`) || strings.HasPrefix(e, `W/"`) {
		return e
	}
	return strconv.Quote(e)
}
