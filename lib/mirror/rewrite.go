package mirror

import (
	"bufio"
	"fmt"
	"io"
	"net/url"

	"github.com/arcport/arcport/lib/links"
)

// Locator gives the local path of a URL that is part of the mirror. A
// *Namer is one; a crawler may wrap it to exclude URLs it did not save.
type Locator interface {
	Lookup(rawURL string) (localPath string, ok bool)
}

// LocatorFunc adapts a function to Locator, e.g. to keep out of the mirror
// URLs that were named but not saved.
type LocatorFunc func(rawURL string) (string, bool)

// Lookup calls f.
func (f LocatorFunc) Lookup(rawURL string) (string, bool) { return f(rawURL) }

// Rewriter rewrites the links of saved documents for the local copy.
type Rewriter struct {
	// Files locates the URLs saved in the mirror. Links to them become
	// relative paths; any other http(s) link becomes its absolute URL.
	Files Locator
	// KeepQuery appends the link's original query string to a local link
	// (members099b.html?sort=name), as HTTrack does; browsers ignore it for
	// local files. Off, local links carry no query.
	KeepQuery bool
}

// Target returns the value that replaces link l in the document saved at
// docPath: a relative path (plus query when KeepQuery, plus fragment) when
// the URL is in the mirror, the absolute URL plus fragment otherwise, and ""
// for a <base href> (so the document's own location is its base again).
func (rw *Rewriter) Target(docPath string, l *links.Link) string {
	if l.Kind == links.Base {
		return ""
	}
	if rw.Files != nil {
		if p, ok := rw.Files.Lookup(l.URL); ok {
			v := RelURL(docPath, p)
			if rw.KeepQuery {
				if u, err := url.Parse(l.URL); err == nil && u.RawQuery != "" {
					v += "?" + u.RawQuery
				}
			}
			return v + l.Fragment
		}
	}
	return l.URL + l.Fragment
}

// Rewrite copies the document read from src to dst, replacing the text of
// each rewritable link (links.Link.Rewritable, spans in ascending order as
// the extractors report them) with Target, escaped for its place by
// links.Link.Encode. Every other byte is copied unchanged; the document is
// streamed, never held whole. It returns the bytes written. Links whose
// span overlaps a previous one or lies past the end of src are an error.
func (rw *Rewriter) Rewrite(dst io.Writer, src io.Reader, docPath string, ls []links.Link) (int64, error) {
	bw := bufio.NewWriterSize(dst, 32<<10)
	var written, pos int64
	for i := range ls {
		l := &ls[i]
		if !l.Rewritable() {
			continue
		}
		if l.Start < pos {
			return written, fmt.Errorf("mirror: %s: link %d at offset %d overlaps the previous one (ends at %d)", docPath, i, l.Start, pos)
		}
		n, err := io.CopyN(bw, src, l.Start-pos)
		written += n
		if err != nil {
			return written, fmt.Errorf("mirror: %s: link %d at offset %d: %w", docPath, i, l.Start, errUnexpectedEOF(err))
		}
		if _, err := io.CopyN(io.Discard, src, l.End-l.Start); err != nil {
			return written, fmt.Errorf("mirror: %s: link %d at offset %d: %w", docPath, i, l.Start, errUnexpectedEOF(err))
		}
		m, err := bw.WriteString(l.Encode(rw.Target(docPath, l)))
		written += int64(m)
		if err != nil {
			return written, err
		}
		pos = l.End
	}
	n, err := io.Copy(bw, src)
	written += n
	if err != nil {
		return written, err
	}
	return written, bw.Flush()
}

func errUnexpectedEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}
