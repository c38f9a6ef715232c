package xapian

import (
	"io"
	"sort"
	"strings"
)

// Indexer builds the two databases libzim's Creator stores in a ZIM
// (creator.cpp, xapianHandler.cpp, xapianIndexer.cpp): X/fulltext/xapian,
// one document per HTML item with text (LibzimFullText), and
// X/title/xapian, one per front article or front redirection with a title
// (LibzimTitle). Documents go in in path order, as libzim's title index
// walks its sorted entries. Not safe for concurrent use.
type Indexer struct {
	lang  string
	stops []string
	stem  func(string) string
	stop  func(string) bool
	full  []indexed
	title []indexed
}

type indexed struct {
	path string
	doc  *Document
}

// NewIndexer returns an Indexer for the language of the ZIM's Language
// metadata (ISO 639-3, "eng": the stemmer comes from StemmerFor) and the
// stop words to drop from the full-text index (nil: none);
// LibzimStopWords(language) gives the ones libzim would use.
func NewIndexer(language string, stopwords []string) *Indexer {
	ix := &Indexer{lang: language, stops: stopwords}
	if st := StemmerFor(language); st != nil {
		ix.stem = CachedStemmer(st, 1<<16)
	}
	ix.stop = StopperOf(stopwords)
	return ix
}

// NewLibzimIndexer is NewIndexer with the stop words libzim's Creator
// uses when configured with language (LibzimStopWords: none for an ISO
// 639-3 code such as "eng").
func NewLibzimIndexer(language string) *Indexer {
	return NewIndexer(language, LibzimStopWords(language))
}

// AddItem indexes an item of the C namespace: its text when mimetype is
// text/html, its title when front is set.
func (ix *Indexer) AddItem(path, title, mimetype string, content []byte, front bool) {
	if strings.HasPrefix(mimetype, "text/html") {
		if d, ok := LibzimFullText(path, title, string(content), ix.stem, ix.stop); ok {
			ix.full = append(ix.full, indexed{path, d})
		}
	}
	if front && title != "" {
		ix.title = append(ix.title, indexed{path, LibzimTitle(path, title, "", ix.stem)})
	}
}

// AddRedirect indexes a redirection's title when front is set.
func (ix *Indexer) AddRedirect(path, title, target string, front bool) {
	if front && title != "" {
		ix.title = append(ix.title, indexed{path, LibzimTitle(path, title, target, ix.stem)})
	}
}

// HasFullText and HasTitle report whether there is anything to write
// (libzim adds no X/…/xapian entry for an empty database).
func (ix *Indexer) HasFullText() bool { return len(ix.full) > 0 }

// HasTitle: see HasFullText.
func (ix *Indexer) HasTitle() bool { return len(ix.title) > 0 }

// WriteFullText writes X/fulltext/xapian.
func (ix *Indexer) WriteFullText(w io.Writer) (int64, error) {
	return ix.write(w, ix.full, map[string]string{
		"valuesmap": "title:0;wordcount:1;geo.position:2", "kind": "fulltext",
	})
}

// WriteTitle writes X/title/xapian.
func (ix *Indexer) WriteTitle(w io.Writer) (int64, error) {
	return ix.write(w, ix.title, map[string]string{"valuesmap": "title:0;targetPath:1", "kind": "title"})
}

func (ix *Indexer) write(w io.Writer, docs []indexed, meta map[string]string) (int64, error) {
	sort.SliceStable(docs, func(i, j int) bool { return docs[i].path < docs[j].path })
	wr, err := NewWriter(WriterOptions{NoTermList: true})
	if err != nil {
		return 0, err
	}
	for _, d := range docs {
		if _, err := wr.Add(d.doc); err != nil {
			return 0, err
		}
	}
	meta["data"] = "fullPath"
	meta["language"] = ix.lang
	meta["stopwords"] = strings.Join(ix.stops, "\n")
	for k, v := range meta {
		if err := wr.SetMetadata(k, []byte(v)); err != nil {
			return 0, err
		}
	}
	return wr.WriteTo(w)
}
