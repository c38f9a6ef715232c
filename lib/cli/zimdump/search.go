package zimdump

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/arcport/arcport/lib/internal/cliutil"
	"github.com/arcport/arcport/lib/zim"
	"github.com/arcport/arcport/lib/zim/xapian"
)

// searchUsage documents zimdump search.
const searchUsage = `Usage: zimdump search [--limit N] FILE QUERY...

Searches the ZIM's full-text index (X/fulltext/xapian) as libzim's Searcher
does (words without accents, stemmed in the index's language, all of them
required, ranked by BM25) and prints the pages found, best first: the path
and the title, separated by a tab.

Options:
  --limit N    at most N results (default 10; 0: all)
`

// runSearch is zimdump search, with arcport's conventions (exit 2 for bad
// usage, 1 with one line for a ZIM without a usable index).
func runSearch(args []string, stdout, stderr io.Writer) int {
	return runQuery("search", searchUsage, searchZIM, args, stdout, stderr)
}

// runQuery runs zimdump search or suggest (cmd): [--limit N] FILE QUERY...,
// the words joined into one query, and prints the path and the title of
// each result, tab-separated, best first.
func runQuery(cmd, usage string, query func(file, q string, limit int) ([]searchResult, error), args []string, stdout, stderr io.Writer) int {
	usageError := func(msg string) int {
		fmt.Fprintf(stderr, "zimdump %s: %s\nTry: zimdump %s --help\n", cmd, msg, cmd)
		return cliutil.ExitUsage
	}
	limit := 10
	var pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			pos = append(pos, args[i+1:]...)
			i = len(args)
		case a == "-h" || a == "--help":
			fmt.Fprint(stdout, usage)
			return cliutil.ExitOK
		case a == "--limit" || strings.HasPrefix(a, "--limit="):
			v, ok := strings.CutPrefix(a, "--limit=")
			if !ok {
				if i+1 >= len(args) {
					return usageError("--limit requires an argument")
				}
				i++
				v = args[i]
			}
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return usageError(fmt.Sprintf("--limit %q: a number, 0 for all", v))
			}
			limit = n
		case len(a) > 1 && a[0] == '-':
			return usageError("unknown option " + a)
		default:
			pos = append(pos, a)
		}
	}
	if len(pos) < 2 {
		return usageError("name a ZIM and a query")
	}
	res, err := query(pos[0], strings.Join(pos[1:], " "), limit)
	if err != nil {
		fmt.Fprintf(stderr, "zimdump: %s: %s\n", pos[0], oneLine(err.Error()))
		return cliutil.ExitFail
	}
	w := bufio.NewWriter(stdout)
	for _, r := range res {
		fmt.Fprintf(w, "%s\t%s\n", r.path, r.title)
	}
	if err := w.Flush(); err != nil {
		return cliutil.ExitFail
	}
	return cliutil.ExitOK
}

type searchResult struct{ path, title string }

// searchZIM opens the full-text index of a ZIM with arcport's glass reader
// and runs query on it as libzim's Searcher does (xapian.LibzimQueryTerms
// with the index's language and stop words, all terms, BM25).
func searchZIM(file, query string, limit int) ([]searchResult, error) {
	a, err := zim.Open(file)
	if err != nil {
		return nil, err
	}
	defer a.Close()
	idx, found, err := a.Find('X', "fulltext/xapian")
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, errors.New("no full-text index (X/fulltext/xapian)")
	}
	e, err := a.EntryAt(idx)
	if err != nil {
		return nil, err
	}
	blob, err := a.ReadBlob(e)
	if err != nil {
		return nil, fmt.Errorf("X/fulltext/xapian: %w", err)
	}
	db, err := xapian.Open(bytes.NewReader(blob), int64(len(blob)))
	if err != nil {
		return nil, fmt.Errorf("X/fulltext/xapian: %w", err)
	}
	lang, err := db.Metadata("language")
	if err != nil {
		return nil, fmt.Errorf("X/fulltext/xapian: %w", err)
	}
	sw, err := db.Metadata("stopwords")
	if err != nil {
		return nil, fmt.Errorf("X/fulltext/xapian: %w", err)
	}
	var stop func(string) bool
	if len(sw) > 0 {
		set := map[string]bool{}
		for _, w := range strings.Split(string(sw), "\n") {
			set[w] = true
		}
		stop = func(w string) bool { return set[w] }
	}
	terms := xapian.LibzimQueryTerms(query, xapian.StemmerFor(string(lang)), stop)
	if len(terms) == 0 {
		return nil, nil
	}
	rs, err := db.SearchTerms(terms, true, limit)
	if err != nil {
		return nil, fmt.Errorf("X/fulltext/xapian: %w", err)
	}
	out := make([]searchResult, 0, len(rs))
	for _, r := range rs {
		data, err := db.DocData(r.DocID)
		if err != nil {
			return nil, fmt.Errorf("X/fulltext/xapian: %w", err)
		}
		title, err := db.Value(r.DocID, 0)
		if err != nil {
			return nil, fmt.Errorf("X/fulltext/xapian: %w", err)
		}
		path := strings.TrimPrefix(string(data), "C/")
		// the entry's title as the ZIM has it (value 0 is libzim's
		// lowercased title without accents)
		if i, ok, err := a.Find('C', path); err == nil && ok {
			if e, err := a.EntryAt(i); err == nil {
				title = []byte(e.Title())
			}
		}
		out = append(out, searchResult{path, string(title)})
	}
	return out, nil
}
