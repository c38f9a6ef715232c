package replay

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/arcport/arcport/lib/wacz"
)

// snippet is the text around a search's match.
type snippet struct {
	Before, Match, After string
	Cut1, Cut2           bool // text left out before, after
}

type pageRow struct {
	Title, URL, When    string
	ReplayHref, CalHref string
	Extra               bool // from pages/extraPages.jsonl
	Snippet             *snippet
}

// pageFiles are a WACZ's page lists (WACZ 1.1.1): its seeds, and the
// other pages crawled (same format), listed after them.
var pageFiles = []struct {
	path  string
	extra bool
}{{wacz.PagesPath, false}, {wacz.ExtraPagesPath, true}}

// eachPage calls fn with the pages of a WACZ's page lists in order, and
// whether each is an extra page; it reports whether a list's header says
// its pages have text. A line that is not a page is passed over.
func eachPage(w *waczSource, fn func(extra bool, p *wacz.Page) error) (hasText bool, err error) {
	for _, pf := range pageFiles {
		if w.r.File(pf.path) == nil {
			continue
		}
		err := eachPageLine(w, pf.path, func(n int, line []byte) error {
			if n == 1 && strings.Contains(string(line), `"format"`) {
				var h wacz.PagesHeader
				if json.Unmarshal(line, &h) == nil {
					hasText = hasText || h.HasText
				}
				return nil
			}
			var p wacz.Page
			if err := json.Unmarshal(line, &p); err != nil {
				return nil
			}
			return fn(pf.extra, &p)
		})
		if err != nil {
			return hasText, fmt.Errorf("%s: %w", pf.path, err)
		}
	}
	return hasText, nil
}

// uiMaxQuery bounds the words searched for in the pages.
const uiMaxQuery = 1000

// pageShows are the values of /COLL/pages?show=: every page, the seeds
// (pages.jsonl), the extra pages (extraPages.jsonl).
var pageShows = []struct{ Value, Label string }{{"", "all"}, {"seeds", "seeds"}, {"extra", "extra pages"}}

// pageFilter is a link of the page lists' filter.
type pageFilter struct {
	Label, Count, Href string
	On                 bool
}

// uiPages answers /COLL/pages: the pages of a WACZ's pages/pages.jsonl
// and pages/extraPages.jsonl (show=seeds or show=extra: one of them),
// uiPageSize a page, those whose title, URL or text hold q (any case)
// when q is given. A page whose capture the access rules exclude, or
// block (as the URL search hides blocked captures from people), is not
// listed nor counted.
func (s *Server) uiPages(w http.ResponseWriter, r *http.Request, coll string, q url.Values) {
	c := s.colls[coll]
	if c == nil || c.wacz == nil {
		uiError(w, r, http.StatusNotFound, coll+": not a WACZ, no pages")
		return
	}
	if c.wacz.r.File(wacz.PagesPath) == nil && c.wacz.r.File(wacz.ExtraPagesPath) == nil {
		uiError(w, r, http.StatusNotFound, coll+": no pages/pages.jsonl in the WACZ")
		return
	}
	hasExtra := c.wacz.r.File(wacz.ExtraPagesPath) != nil
	needle := strings.TrimSpace(q.Get("q"))
	if len(needle) > uiMaxQuery {
		uiError(w, r, http.StatusBadRequest, fmt.Sprintf("q of %d bytes: at most %d", len(needle), uiMaxQuery))
		return
	}
	show := q.Get("show")
	switch show {
	case "", "seeds", "extra":
	default:
		uiError(w, r, http.StatusBadRequest, "show="+show+": one of seeds, extra (or none: all)")
		return
	}
	page, ok := pageParam(w, r, q)
	if !ok {
		return
	}
	lower := strings.ToLower(needle)
	skip := (page - 1) * uiPageSize
	var rows []pageRow
	total, matched := 0, 0
	var counts [2]int // pages listed of pages.jsonl, extraPages.jsonl
	visible := s.pageVisible(coll)
	hasText, err := eachPage(c.wacz, func(extra bool, p *wacz.Page) error {
		ts := pageTS(p.TS)
		if !visible(p.URL, ts) {
			return nil
		}
		total++
		if extra {
			counts[1]++
		} else {
			counts[0]++
		}
		if show == "seeds" && extra || show == "extra" && !extra {
			return nil
		}
		var sn *snippet
		if needle != "" {
			switch {
			case strings.Contains(strings.ToLower(p.Title), lower), strings.Contains(strings.ToLower(p.URL), lower):
			default:
				i := indexFold(p.Text, lower)
				if i < 0 {
					return nil
				}
				sn = makeSnippet(p.Text, i, len(needle))
			}
		}
		matched++
		if matched <= skip || matched > skip+uiPageSize {
			return nil
		}
		rows = append(rows, pageRow{Title: p.Title, URL: p.URL, When: fmtTS(ts), ReplayHref: replayHref(coll, ts, p.URL), CalHref: calHref(coll, "", p.URL), Extra: extra, Snippet: sn})
		return nil
	})
	if err != nil {
		uiError(w, r, http.StatusInternalServerError, coll+": "+err.Error())
		return
	}
	data := struct {
		uiBase
		Coll, Q, Show  string
		Total, Matched int
		Seeds, Extras  int
		HasText        bool
		HasExtra       bool
		Filters        []pageFilter
		Rows           []pageRow
		Pager          pager
	}{uiBase: uiBase{Title: "Pages of " + coll, Crumbs: collCrumbs(coll, crumb{"pages", ""})}, Coll: coll, Q: needle, Show: show,
		Total: total, Matched: matched, Seeds: counts[0], Extras: counts[1], HasText: hasText, HasExtra: hasExtra, Rows: rows}
	if hasExtra {
		for i, f := range pageShows {
			v := url.Values{}
			if needle != "" {
				v.Set("q", needle)
			}
			if f.Value != "" {
				v.Set("show", f.Value)
			}
			href := "/" + coll + "/pages"
			if len(v) > 0 {
				href += "?" + v.Encode()
			}
			n := []int{total, counts[0], counts[1]}[i]
			data.Filters = append(data.Filters, pageFilter{Label: f.Label, Count: fmtCount(int64(n)), Href: href, On: f.Value == show})
		}
	}
	data.Pager = makePager("/"+coll+"/pages", q, page, matched > skip+uiPageSize)
	uiRender(w, r, http.StatusOK, "pages", data)
}

// pageTS turns a page's ts (RFC 3339, or 14 digits) into a time-stamp.
func pageTS(ts string) string {
	if t, err := wacz.ParseTS(ts); err == nil {
		return t.UTC().Format("20060102150405")
	}
	var b []byte
	for i := 0; i < len(ts) && len(b) < 14; i++ {
		if ts[i] >= '0' && ts[i] <= '9' {
			b = append(b, ts[i])
		}
	}
	return string(b)
}

// indexFold is the byte offset in s of lowerNeedle, any case (ASCII and
// the simple Unicode folds that keep the length), or -1.
func indexFold(s, lowerNeedle string) int {
	if lowerNeedle == "" {
		return -1
	}
	ls := strings.ToLower(s)
	if len(ls) != len(s) {
		// a fold changed the length: find it, place it roughly
		i := strings.Index(ls, lowerNeedle)
		if i > len(s) {
			i = len(s)
		}
		return i
	}
	return strings.Index(ls, lowerNeedle)
}

// makeSnippet is up to 90 bytes either side of s[i:i+n], cut at runes.
func makeSnippet(s string, i, n int) *snippet {
	if i < 0 || i+n > len(s) {
		return nil
	}
	a := max(i-90, 0)
	for a > 0 && !utf8.RuneStart(s[a]) {
		a--
	}
	b := min(i+n+90, len(s))
	for b < len(s) && !utf8.RuneStart(s[b]) {
		b++
	}
	clean := func(x string) string { return strings.Join(strings.Fields(x), " ") }
	before, after := s[a:i], s[i+n:b]
	if strings.HasSuffix(before, " ") {
		before = clean(before) + " "
	} else {
		before = clean(before)
	}
	if strings.HasPrefix(after, " ") {
		after = " " + clean(after)
	} else {
		after = clean(after)
	}
	return &snippet{Before: before, Match: s[i : i+n], After: after, Cut1: a > 0, Cut2: b < len(s)}
}
