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
	// TargetFunc, when set, replaces Target: it returns the unescaped
	// value for link l of the document at docPath (Rewrite escapes it with
	// links.Link.Encode). A ZIM writer uses it to link captured URLs by
	// their entry path and uncaptured ones by their live URL.
	TargetFunc func(docPath string, l *links.Link) string
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
	return rw.RewriteFrom(dst, src, docPath, func(f links.Func) error {
		for _, l := range ls {
			if err := f(l); err != nil {
				return err
			}
		}
		return nil
	})
}

// RewriteFrom is Rewrite with the links reported one by one by extract, in
// source order, typically an extractor of lib/links reading the same
// document through a second reader:
//
//	rw.RewriteFrom(dst, f1, path, func(fn links.Func) error { return links.HTML(f2, base, fn) })
//
// Each link is rewritten as it comes and then forgotten, so memory stays
// small whatever the number of links in the document.
//
// When extract itself fails (a token too large, a read error), the rest of
// src is copied unchanged, dst holds a whole document, and RewriteFrom
// returns an *ExtractError saying how many links were rewritten before.
func (rw *Rewriter) RewriteFrom(dst io.Writer, src io.Reader, docPath string, extract func(links.Func) error) (int64, error) {
	bw := bufio.NewWriterSize(dst, 32<<10)
	var written, pos int64
	i, rewritten := -1, 0
	var failed error // a failure of ours, which stops extract
	err := extract(func(l links.Link) error {
		i++
		if !l.Rewritable() {
			return nil
		}
		if l.Start < pos {
			failed = fmt.Errorf("mirror: %s: link %d at offset %d overlaps the previous one (ends at %d)", docPath, i, l.Start, pos)
			return failed
		}
		n, err := io.CopyN(bw, src, l.Start-pos)
		written += n
		if err != nil {
			failed = fmt.Errorf("mirror: %s: link %d at offset %d: %w", docPath, i, l.Start, errUnexpectedEOF(err))
			return failed
		}
		if _, err := io.CopyN(io.Discard, src, l.End-l.Start); err != nil {
			failed = fmt.Errorf("mirror: %s: link %d at offset %d: %w", docPath, i, l.Start, errUnexpectedEOF(err))
			return failed
		}
		var v string
		if rw.TargetFunc != nil {
			v = rw.TargetFunc(docPath, &l)
		} else {
			v = rw.Target(docPath, &l)
		}
		m, err := bw.WriteString(l.Encode(v))
		written += int64(m)
		if err != nil {
			failed = err
			return failed
		}
		pos = l.End
		rewritten++
		return nil
	})
	if failed != nil {
		return written, failed
	}
	n, cerr := io.Copy(bw, src)
	written += n
	if cerr != nil {
		return written, cerr
	}
	if ferr := bw.Flush(); ferr != nil {
		return written, ferr
	}
	if err != nil {
		return written, &ExtractError{Doc: docPath, Rewritten: rewritten, Err: err}
	}
	return written, nil
}

// ExtractError reports that the extractor given to RewriteFrom failed: the
// output is whole, with the links found before the failure rewritten and
// the rest of the document copied unchanged.
type ExtractError struct {
	Doc       string // the document's local path
	Rewritten int    // links rewritten before the failure
	Err       error  // the extractor's error
}

func (e *ExtractError) Error() string {
	return fmt.Sprintf("mirror: %s: links after the first %d left as they were: %v", e.Doc, e.Rewritten, e.Err)
}

// Unwrap returns the extractor's error.
func (e *ExtractError) Unwrap() error { return e.Err }

func errUnexpectedEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}
