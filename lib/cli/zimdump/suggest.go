package zimdump

import (
	"bytes"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/arcport/arcport/lib/zim"
	"github.com/arcport/arcport/lib/zim/xapian"
)

// suggestUsage documents zimdump suggest.
const suggestUsage = `Usage: zimdump suggest [--limit N] FILE QUERY...

Title suggestions from the ZIM's title index (X/title/xapian) as libzim's
SuggestionSearcher gives them (without that index: the titles that start with
the query, as libzim falls back to) (what Kiwix lists under its search box): the
query's last word completes a word of the title, the others match words (or
their stems), titles holding the words as typed, and most of all those that
start with them, come first. Prints the path and the title of each, separated
by a tab, best first.

Options:
  --limit N    at most N suggestions (default 10; 0: all)
`

// runSuggest is zimdump suggest (arcport's conventions, as search).
func runSuggest(args []string, stdout, stderr io.Writer) int {
	return runQuery("suggest", suggestUsage, suggestZIM, args, stdout, stderr)
}

// suggestZIM opens the title index of a ZIM and runs xapian.Suggest with
// the index's language (else the ZIM's M/Language, as libzim does).
func suggestZIM(file, query string, limit int) ([]searchResult, error) {
	a, err := zim.Open(file)
	if err != nil {
		return nil, err
	}
	defer a.Close()
	idx, found, err := a.Find('X', "title/xapian")
	if err != nil {
		return nil, err
	}
	if !found {
		return titlePrefix(a, query, limit)
	}
	e, err := a.EntryAt(idx)
	if err != nil {
		return nil, err
	}
	blob, err := a.ReadBlob(e)
	if err != nil {
		return nil, fmt.Errorf("X/title/xapian: %w", err)
	}
	db, err := xapian.Open(bytes.NewReader(blob), int64(len(blob)))
	if err != nil {
		return nil, fmt.Errorf("X/title/xapian: %w", err)
	}
	lang, err := db.Metadata("language")
	if err != nil {
		return nil, fmt.Errorf("X/title/xapian: %w", err)
	}
	if len(lang) == 0 {
		lang, _ = a.Metadata("Language")
	}
	ss, err := db.Suggest(query, xapian.StemmerFor(string(lang)), limit)
	if err != nil {
		return nil, fmt.Errorf("X/title/xapian: %w", err)
	}
	dataType, _ := db.Metadata("data")
	out := make([]searchResult, 0, len(ss))
	for _, s := range ss {
		path := s.Data
		if a.NewNamespaceScheme() && (len(dataType) == 0 || string(dataType) == "fullPath") && len(path) >= 2 {
			path = path[2:]
		}
		title := s.Title
		var i uint32
		var ok bool
		if a.NewNamespaceScheme() {
			i, ok, err = a.Find('C', path)
		} else {
			i, ok, err = a.FindLong(path)
		}
		if err == nil && ok {
			if e, err := a.EntryAt(i); err == nil {
				title = e.Title()
			}
		}
		out = append(out, searchResult{path, title})
	}
	return out, nil
}

// titlePrefix is libzim's suggestion without a title index
// (Archive::findByTitle): the entries of the content namespace whose title
// starts with query (bytes, case and accents as they are), in the order of
// the title index in use (X/listing/titleOrdered/v1, else all entries).
func titlePrefix(a *zim.Archive, query string, limit int) ([]searchResult, error) {
	ns := byte('C')
	if !a.NewNamespaceScheme() {
		ns = 'A'
	}
	n, _ := a.TitleIndexCount()
	at := func(i uint32) (*zim.Entry, error) {
		idx, err := a.EntryIndexByTitle(i)
		if err != nil {
			return nil, err
		}
		return a.EntryAt(idx)
	}
	var ferr error
	lo := sort.Search(int(n), func(i int) bool {
		e, err := at(uint32(i))
		if err != nil {
			ferr = err
			return true
		}
		if e.Namespace != ns {
			return e.Namespace > ns
		}
		return e.Title() >= query
	})
	if ferr != nil {
		return nil, ferr
	}
	var out []searchResult
	for i := uint32(lo); i < n && (limit == 0 || len(out) < limit); i++ {
		e, err := at(i)
		if err != nil {
			return nil, err
		}
		if e.Namespace != ns || !strings.HasPrefix(e.Title(), query) {
			break
		}
		out = append(out, searchResult{a.PathOf(e), e.Title()})
	}
	return out, nil
}
