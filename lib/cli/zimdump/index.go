package zimdump

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"

	"github.com/arcport/arcport/lib/internal/cliutil"
	"github.com/arcport/arcport/lib/internal/sysfile"
	"github.com/arcport/arcport/lib/store"
	"github.com/arcport/arcport/lib/zim"
	"github.com/arcport/arcport/lib/zim/xapian"
)

// indexUsage documents zimdump index.
const indexUsage = `Usage: zimdump index [options] OLD.zim -o NEW.zim

Writes NEW.zim: OLD.zim with the full-text and title search indexes
(X/fulltext/xapian and X/title/xapian) that zimdump create writes, made from
its HTML pages as create makes them. The clusters of OLD.zim are copied as
they are (no recompression); the indexes, the dirents, the title listings,
the header and the MD5 checksum are written anew (a new UUID). OLD.zim is
checked first (its MD5); a damaged one gives one line naming the file and the
offset, and no NEW.zim. OLD.zim may be in s3:// or http(s)://: it is read in
place by ranged requests.

Options:
  -o FILE         the ZIM to write (required; s3:// works); written under a
                  temporary name and renamed when complete
  --language L    the language words are stemmed in, ISO 639-3 (default:
                  OLD.zim's M/Language, else eng)
  --force         replace the indexes OLD.zim already has (without it, a ZIM
                  with an index is refused)
  -q              no notes on stderr
`

type indexArgs struct {
	input, output, language string
	force, quiet            bool
}

func parseIndex(args []string) (*indexArgs, error) {
	c := &indexArgs{}
	var pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			pos = append(pos, args[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			pos = append(pos, a)
			continue
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		switch name {
		case "h", "help":
			return nil, errHelp
		case "q", "quiet", "force":
			if hasVal {
				return nil, fmt.Errorf("%s takes no value", a)
			}
			if name == "force" {
				c.force = true
			} else {
				c.quiet = true
			}
			continue
		case "o", "output", "language":
		default:
			return nil, fmt.Errorf("unknown option %s", a)
		}
		if !hasVal {
			if i+1 >= len(args) {
				return nil, fmt.Errorf("%s requires an argument", a)
			}
			i++
			val = args[i]
		}
		if name == "language" {
			if strings.TrimSpace(val) == "" {
				return nil, errors.New("--language: empty value")
			}
			c.language = val
		} else {
			c.output = val
		}
	}
	switch {
	case len(pos) == 0:
		return nil, errors.New("name the ZIM to index")
	case len(pos) > 1:
		return nil, fmt.Errorf("one ZIM only (got %s)", strings.Join(pos, ", "))
	case c.output == "" || c.output == "-":
		return nil, errors.New("-o NEW.zim is required (a ZIM is not written to standard output)")
	}
	c.input = pos[0]
	return c, nil
}

// runIndex is zimdump index (arcport's conventions: 0, 1 with one line, 2
// for bad usage).
func runIndex(args []string, stdout, stderr io.Writer) int {
	c, err := parseIndex(args)
	if err == errHelp {
		fmt.Fprint(stdout, indexUsage)
		return cliutil.ExitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "zimdump index: %v\nTry: zimdump index --help\n", err)
		return cliutil.ExitUsage
	}
	note := func(format string, a ...any) {
		if !c.quiet {
			fmt.Fprintf(stderr, "zimdump: "+format+"\n", a...)
		}
	}
	if err := indexZIM(c, note); err != nil {
		fmt.Fprintf(stderr, "zimdump: %s\n", oneLine(err.Error()))
		return cliutil.ExitFail
	}
	return cliutil.ExitOK
}

// oldIndexes are the search indexes a ZIM may already hold (the last:
// libzim before 6 in the old namespace scheme).
var oldIndexes = []struct {
	ns   byte
	path string
}{{'X', "fulltext/xapian"}, {'X', "title/xapian"}, {'Z', "fulltextIndex/xapian"}}

func isOldIndex(e *zim.Entry) bool {
	for _, o := range oldIndexes {
		if e.Namespace == o.ns && e.Path == o.path {
			return true
		}
	}
	return false
}

// indexZIM writes c.output: c.input's clusters and entries with new
// search indexes.
func indexZIM(c *indexArgs, note func(string, ...any)) error {
	a, err := openInput(c.input)
	if err != nil {
		return err
	}
	defer a.Close()
	var have []string
	for _, o := range oldIndexes {
		if _, found, err := a.Find(o.ns, o.path); err != nil {
			return err
		} else if found {
			have = append(have, string(o.ns)+"/"+o.path)
		}
	}
	if len(have) > 0 && !c.force {
		return fmt.Errorf("%s already has %s (--force replaces it)", c.input, strings.Join(have, " and "))
	}
	if a.Header().HasChecksum() {
		if err := a.VerifyChecksum(); err != nil {
			return err
		}
	}
	lang := c.language
	if lang == "" {
		if l, err := a.Metadata("Language"); err == nil {
			lang, _, _ = strings.Cut(strings.TrimSpace(string(l)), ",")
		}
		if lang == "" {
			lang = "eng"
		}
	}
	ix, err := newPageIndex(lang)
	if err != nil {
		return err
	}
	front, err := buildIndexes(a, ix)
	if err != nil {
		return err
	}
	var add []zim.NewItem
	for _, k := range []struct {
		kind  string
		n     int
		write func(io.Writer) (int64, error)
	}{{"title", ix.nTitle, ix.writeTitle}, {"fulltext", ix.nFull, ix.writeFullText}} {
		if k.n == 0 {
			continue
		}
		f, err := sysfile.CreateDeleteOnClose("", "zimdump-index-*")
		if err != nil {
			return err
		}
		defer f.Close()
		n, err := k.write(f)
		if err != nil {
			return fmt.Errorf("%s: %s index: %v", c.output, k.kind, err)
		}
		add = append(add, zim.NewItem{Namespace: 'X', Path: k.kind + "/xapian", Mime: zim.XapianMime, Size: n,
			Open: func() (io.Reader, error) { _, err := f.Seek(0, io.SeekStart); return f, err }})
	}
	if len(have) > 0 {
		note("%s: replacing its %s", c.input, strings.Join(have, " and "))
	}
	out, err := cliutil.CreateOutput(c.output)
	if err != nil {
		return err
	}
	defer out.Abort()
	opts := zim.RewriteOptions{Drop: isOldIndex, Add: add}
	if a.NewNamespaceScheme() {
		opts.Front = func(e *zim.Entry) bool { return front[e.Index] }
	}
	if err := a.Rewrite(out, opts); err != nil {
		var fe *zim.FormatError
		if errors.As(err, &fe) {
			return err
		}
		return fmt.Errorf("%s: %v", c.output, err)
	}
	return out.Commit()
}

// openInput opens a ZIM, local (split parts included) or in s3:// or
// http(s):// (read in place by ranged requests, as the other commands read
// it), with a cluster cache for the pages read in path order.
func openInput(name string) (*zim.Archive, error) {
	cache := zim.WithClusterCache(16, 64<<20)
	if cliutil.IsRemote(name) {
		ra, err := cliutil.OpenAt(name)
		if err != nil {
			return nil, err
		}
		return zim.NewCloser(ra, ra.Size(), zim.WithName(store.Redact(name)), cache)
	}
	return zim.Open(name, cache)
}

// indexJob is one page on its way through the text extraction.
type indexJob struct {
	path, title, target string
	mime                string
	html                []byte
	item, front         bool
	done                chan struct{}
	full, titleDoc      *xapian.Document
}

// buildIndexes adds the pages of a to ix, in path order, as create adds
// its pages: the full-text document of every HTML item of the content
// namespace (C, or A in the old scheme) and the title document of every
// front article (the X/listing/titleOrdered/v1 members when a has that
// listing, else the HTML items) and front redirect. It returns the front
// articles by entry index. The text of pages is extracted on all CPUs;
// the documents go to the databases in path order.
func buildIndexes(a *zim.Archive, ix *pageIndex) ([]bool, error) {
	newNS := a.NewNamespaceScheme()
	contentNS := byte('C')
	if !newNS {
		contentNS = 'A'
	}
	front, haveV1, err := a.FrontArticles()
	if err != nil {
		return nil, err
	}
	if !haveV1 {
		front = make([]bool, a.EntryCount())
	}
	begin, end, err := a.NamespaceRange(contentNS)
	if err != nil {
		return nil, err
	}
	workers := runtime.GOMAXPROCS(0)
	queue := make(chan *indexJob, 4*workers)
	work := make(chan *indexJob, 4*workers)
	for range workers {
		// a stemmer cache per worker: CachedStemmer is not safe for
		// concurrent use
		stem := ix.stem
		if st := xapian.StemmerFor(ix.lang); st != nil {
			stem = xapian.CachedStemmer(st, 1<<16)
		}
		go func() {
			for j := range work {
				if j.item && strings.HasPrefix(j.mime, "text/html") {
					if d, ok := xapian.LibzimFullText(j.path, j.title, string(j.html), stem, ix.stop); ok {
						j.full = d
					}
				}
				if j.front {
					t := j.title
					if t == "" {
						t = j.path
					}
					j.titleDoc = xapian.LibzimTitle(j.path, t, j.target, stem)
				}
				j.html = nil
				close(j.done)
			}
		}()
	}
	errc := make(chan error, 1)
	go func() {
		defer close(queue)
		defer close(work)
		errc <- a.Entries(begin, end, func(e *zim.Entry) error {
			j := &indexJob{path: e.Path, title: e.RawTitle, done: make(chan struct{})}
			switch e.Kind {
			case zim.KindItem:
				mt, err := a.MimeType(e)
				if err != nil {
					return err
				}
				html := isHTMLType(mt)
				if !haveV1 && html {
					front[e.Index] = true
				}
				j.front, j.item, j.mime = front[e.Index], html, mt
				if !j.item && !j.front {
					return nil
				}
				if html {
					if j.html, err = a.ReadBlob(e); err != nil {
						return err
					}
				}
			case zim.KindRedirect:
				if !haveV1 && !newNS {
					front[e.Index] = true
				}
				if !front[e.Index] {
					return nil
				}
				t, err := a.Redirect(e)
				if err != nil {
					return err
				}
				j.front, j.target = true, t.Path
			default:
				return nil
			}
			queue <- j
			work <- j
			return nil
		})
	}()
	var addErr error
	for j := range queue {
		<-j.done
		if addErr != nil {
			continue
		}
		if j.full != nil {
			if !newNS {
				j.full.SetData([]byte("A/" + j.path))
			}
			if _, err := ix.full.Add(j.full); err != nil {
				addErr = err
				continue
			}
			ix.nFull++
		}
		if j.titleDoc != nil {
			if !newNS {
				j.titleDoc.SetData([]byte("A/" + j.path))
			}
			if _, err := ix.title.Add(j.titleDoc); err != nil {
				addErr = err
				continue
			}
			ix.nTitle++
		}
	}
	if err := <-errc; err != nil {
		return nil, err
	}
	return front, addErr
}
