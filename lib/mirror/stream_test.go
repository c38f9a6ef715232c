package mirror

import (
	"bytes"
	"errors"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/arcport/arcport/lib/links"
)

// TestGardenRewriteFrom rewrites the garden pages with the links extracted
// from a second reader as the rewriter goes (as mirrorget does): the output
// is byte for byte HTTrack's, as with Rewrite and a collected link list.
func TestGardenRewriteFrom(t *testing.T) {
	n, names := nameGarden(t, readNewTxt(t))
	rw := &Rewriter{Files: n, KeepQuery: true}
	for _, tc := range []struct{ url, origin string }{
		{gardenSite + "index.html", "index.html"},
		{gardenSite + "style.css", "style.css"},
		{gardenSite + "news/2025.html", "news/2025.html"},
		{gardenSite + "members.html?sort=name", "members.html"},
		{gardenSite + "r%c3%a9sum%c3%a9.html", "résumé.html"},
	} {
		local := names[tc.url]
		t.Run(local, func(t *testing.T) {
			src, err := os.ReadFile(testdata("garden-origin", filepath.FromSlash(tc.origin)))
			if err != nil {
				t.Fatal(err)
			}
			doc, _ := url.Parse(tc.url)
			extract := links.HTML
			if strings.HasSuffix(tc.origin, ".css") {
				extract = links.CSS
			}
			var out bytes.Buffer
			w, err := rw.RewriteFrom(&out, bytes.NewReader(src), local, func(f links.Func) error {
				return extract(bytes.NewReader(src), doc, f)
			})
			if err != nil {
				t.Fatal(err)
			}
			if w != int64(out.Len()) {
				t.Errorf("RewriteFrom reported %d bytes, wrote %d", w, out.Len())
			}
			want, err := os.ReadFile(testdata("garden", filepath.FromSlash(local)))
			if err != nil {
				t.Fatal(err)
			}
			if want = httrackAdditions.ReplaceAll(want, nil); !bytes.Equal(out.Bytes(), want) {
				t.Errorf("rewritten %s:\n%s\nHTTrack:\n%s", local, out.Bytes(), want)
			}
		})
	}
}

// countingWriter counts the bytes written to it.
type countingWriter struct{ n int64 }

func (c *countingWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// TestRewriteFromStreams rewrites a 1 MiB page of 100,000 identical links
// (the hostile page that took 90 bytes of memory per HTML byte when every
// link was held): each link is written out as it is reported, so when the
// last one comes nearly the whole page is already in dst, and the output is
// exactly the page with every link replaced.
func TestRewriteFromStreams(t *testing.T) {
	const count = 100000
	src := []byte("<html><body>" + strings.Repeat("<a href=x>", count))
	n := NewNamer(nil)
	if _, err := n.Name("http://h.example/d/x", "text/html"); err != nil {
		t.Fatal(err)
	}
	doc, _ := url.Parse("http://h.example/d/page.html")
	var dst countingWriter
	var hash bytes.Buffer // the output, checked at the end
	seen, writtenAtLast := 0, int64(0)
	w, err := (&Rewriter{Files: n}).RewriteFrom(io.MultiWriter(&dst, &hash), bytes.NewReader(src), "h.example/d/page.html",
		func(f links.Func) error {
			return links.HTML(bytes.NewReader(src), doc, func(l links.Link) error {
				seen++
				if seen == count {
					writtenAtLast = dst.n
				}
				return f(l)
			})
		})
	if err != nil {
		t.Fatal(err)
	}
	want := "<html><body>" + strings.Repeat("<a href=x.html>", count)
	if seen != count || w != int64(len(want)) || hash.String() != want {
		t.Fatalf("%d links, %d bytes written; output equal: %v", seen, w, hash.String() == want)
	}
	// the bufio.Writer of the rewriter holds at most 32 KiB
	if lag := int64(len(want)) - 15 - writtenAtLast; lag > 32<<10 {
		t.Errorf("when the last link came, %d of %d bytes were written (%d behind)", writtenAtLast, len(want), lag)
	}
}

// TestRewriteFromExtractError: an extractor failing half way leaves a whole
// document, links up to the failure rewritten and the rest copied as it
// was, and says so with an *ExtractError; failures of the rewriter itself
// stop the extractor and are returned as they are.
func TestRewriteFromExtractError(t *testing.T) {
	n := NewNamer(nil)
	if _, err := n.Name("http://h.example/a", "text/html"); err != nil {
		t.Fatal(err)
	}
	doc, _ := url.Parse("http://h.example/page.html")
	src := "<a href=a><a href=a><a href=a>"
	rw := &Rewriter{Files: n}
	var out bytes.Buffer
	_, err := rw.RewriteFrom(&out, strings.NewReader(src), "h.example/page.html", func(f links.Func) error {
		// the extractor's reader fails after 25 bytes: two links read
		return links.HTML(io.MultiReader(strings.NewReader(src[:25]), iotest.ErrReader(iotest.ErrTimeout)), doc, f)
	})
	var xe *ExtractError
	if !errors.As(err, &xe) || xe.Rewritten != 2 || !errors.Is(err, iotest.ErrTimeout) {
		t.Fatalf("error %v (%#v), want an ExtractError after 2 links wrapping the timeout", err, xe)
	}
	if want := "<a href=a.html><a href=a.html><a href=a>"; out.String() != want {
		t.Errorf("output %q, want %q", out.String(), want)
	}
	if want := "mirror: h.example/page.html: links after the first 2 left as they were: offset 20: timeout"; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}

	// a span past the end of the document: the rewriter's own error
	stop := errors.New("extractor went on")
	_, err = rw.RewriteFrom(io.Discard, strings.NewReader("0123"), "doc.html", func(f links.Func) error {
		if err := f(links.Link{URL: "http://h.example/a", Start: 2, End: 9, InAttr: true}); err == nil {
			return stop
		}
		return errors.New("stopped")
	})
	if err == nil || err.Error() != "mirror: doc.html: link 0 at offset 2: unexpected EOF" {
		t.Errorf("span past the end: %v", err)
	}
}
