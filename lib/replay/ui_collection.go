package replay

import (
	"bufio"
	"bytes"
	"errors"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/arcport/arcport/lib/replay/access"
	"github.com/arcport/arcport/lib/wacz"
)

// --- what the pages show of a collection -----------------------------------

// collInfo is what the pages show of a collection besides its captures:
// a WACZ's title, description and whether it has page lists.
type collInfo struct {
	title, desc string
	hasPages    bool // pages/pages.jsonl or pages/extraPages.jsonl
	hasText     bool
}

// collStats are a collection's counts as one class of users sees them
// (statsKey), made in the background once (for a folder of index files
// again when older than countFresh, of WARCs warcFolderFresh; with access
// rules, whose dates move with the clock, after countFresh too).
type collStats struct {
	mu      sync.Mutex
	running bool
	done    bool
	at      time.Time
	wait    chan struct{} // closed when the running count ends
	n       atomic.Int64
	info    collInfo
	infoAt  time.Time
	pages   int64 // the pages listed (pageCount)
	pagesAt time.Time
}

const (
	countFresh      = 10 * time.Minute
	warcFolderFresh = 30 * time.Second
	countMax        = 200_000_000
)

// countSlots bounds the counts made at once (a server of many
// collections does not read all their indexes together).
var countSlots = make(chan struct{}, 2)

// uiStats holds the counts per collection and class of users.
var uiStats sync.Map // statsKey -> *collStats

// statsKey names what one class of users sees of a collection: its
// access rules, the user they see (a guard clone's: every user no rule
// names is one class) and whether captures that are not "allow" are
// hidden. Without rules every user sees the same counts.
type statsKey struct {
	c      *Collection
	acc    *access.Access
	user   access.User
	strict bool
}

func statsFor(k statsKey) *collStats {
	v, _ := uiStats.LoadOrStore(k, &collStats{})
	return v.(*collStats)
}

// statsKey is the key of collection name's counts as s's user sees them.
func (s *Server) statsKey(name string) statsKey {
	k := statsKey{c: s.colls[name], acc: s.accessFor(name)}
	if k.acc != nil {
		k.strict = s.strict
		if k.acc.HasRules() {
			k.user = s.user
		}
	}
	return k
}

// captureCount returns collection name's capture count as s's user sees
// it (the excluded captures not counted, nor those s hides), waiting for
// it until deadline; done is false when the count is not finished (n is
// then what has been counted so far).
func (s *Server) captureCount(name string, deadline time.Time) (n int64, done bool) {
	k := s.statsKey(name)
	st := statsFor(k)
	st.mu.Lock()
	// a folder's files change: counted again; a file is counted once
	stale := false
	switch k.c.Kind {
	case "warc-folder":
		stale = time.Since(st.at) > warcFolderFresh
	case "index-folder":
		stale = time.Since(st.at) > countFresh
	}
	if k.acc != nil && time.Since(st.at) > countFresh {
		stale = true
	}
	if !st.running && (!st.done || stale) {
		st.running = true
		st.wait = make(chan struct{})
		go s.countAll(name, st)
	}
	wait, running, done := st.wait, st.running, st.done
	st.mu.Unlock()
	if running && !done {
		select {
		case <-wait:
		case <-time.After(time.Until(deadline)):
		}
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.n.Load(), st.done
}

// countAll counts the collection's captures: every index line that is a
// capture (not a header or a !meta line) that the access rules let s's
// user see (the filter of the CDX API and the URL search).
func (s *Server) countAll(name string, st *collStats) {
	countSlots <- struct{}{}
	defer func() { <-countSlots }()
	st.mu.Lock()
	first := !st.done // the first count shows its progress
	st.mu.Unlock()
	var n int64
	if src, ok := s.source(name); ok {
		eachIndexLine(src, "", "", countMax, func(*cdxObj) bool {
			n++
			if first && n%4096 == 0 {
				st.n.Store(n)
			}
			return true
		})
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	st.n.Store(n)
	st.done, st.running, st.at = true, false, time.Now()
	close(st.wait)
}

// info returns the collection's title, description and page lists (a
// WACZ's), read again after countFresh.
func (c *Collection) info() collInfo {
	st := statsFor(statsKey{c: c})
	st.mu.Lock()
	defer st.mu.Unlock()
	if !st.infoAt.IsZero() && time.Since(st.infoAt) < countFresh {
		return st.info
	}
	var ci collInfo
	if c.wacz != nil {
		if dp, err := c.wacz.r.DataPackage(); err == nil {
			ci.title, ci.desc = dp.Title, dp.Description
		}
		for _, pf := range pageFiles {
			if c.wacz.r.File(pf.path) == nil {
				continue
			}
			ci.hasPages = true
			eachPageLine(c.wacz, pf.path, func(n int, line []byte) error {
				if n == 1 && bytes.Contains(line, []byte(`"format"`)) {
					ci.hasText = ci.hasText || bytes.Contains(line, []byte(`"hasText":true`)) || bytes.Contains(line, []byte(`"hasText": true`))
				}
				return errStopPages
			})
		}
	}
	st.info, st.infoAt = ci, time.Now()
	return ci
}

// errStopPages ends eachPageLine early.
var errStopPages = errors.New("stop")

// pageCount returns the pages of collection name's WACZ (pages.jsonl and
// extraPages.jsonl) that /COLL/pages lists to s's user, counted again
// after countFresh.
func (s *Server) pageCount(name string) int64 {
	k := s.statsKey(name)
	if k.c == nil || k.c.wacz == nil {
		return 0
	}
	st := statsFor(k)
	st.mu.Lock()
	defer st.mu.Unlock()
	if !st.pagesAt.IsZero() && time.Since(st.pagesAt) < countFresh {
		return st.pages
	}
	var n int64
	visible := s.pageVisible(name)
	eachPage(k.c.wacz, func(_ bool, p *wacz.Page) error {
		if visible(p.URL, pageTS(p.TS)) {
			n++
		}
		return nil
	})
	st.pages, st.pagesAt = n, time.Now()
	return n
}

// --- index scans -------------------------------------------------------------

// canonKey is how query.rangeFor caches a key range per canonicaliser.
func canonKey(c canonFunc) uintptr { return reflect.ValueOf(c).Pointer() }

// eachIndexLine calls fn with the capture lines of src in index order,
// all of them when u is "" (every key range set to everything, every
// ZipNum block on one page), else those matchType finds for u; it stops
// after max lines or when fn returns false.
func eachIndexLine(src indexSource, u, matchType string, max int64, fn func(*cdxObj) bool) error {
	return eachIndexLineAfter(src, u, matchType, "", max, fn)
}

// eachIndexLineAfter is eachIndexLine from the first key past after (the
// lines of after itself skipped) when after is not "".
func eachIndexLineAfter(src indexSource, u, matchType, after string, max int64, fn func(*cdxObj) bool) error {
	q := &query{params: map[string]string{"url": u, "matchType": matchType, "pageSize": "1000000000", "limit": strconv.FormatInt(max, 10)}, done: new([]func())}
	defer func() {
		for _, f := range *q.done {
			f()
		}
	}()
	if u == "" {
		q.params["url"], q.params["matchType"] = "*", "prefix"
	}
	if u == "" || after != "" {
		// the key ranges the sources ask for, set beforehand (runQuery
		// still applies what wraps the sources): everything, or the
		// query's, from past after
		q.keys = map[uintptr][2]string{}
		for _, c := range []canonFunc{pywbCanon, warcioCanon} {
			start, end := "", "\xff"
			if u != "" {
				var err error
				if start, end, err = calcSearchRange(u, matchType, c); err != nil {
					return err
				}
			}
			if after != "" && after+"!" > start {
				// a line is "KEY TS ...": past every line of after
				start = after + "!"
			}
			q.keys[canonKey(c)] = [2]string{start, end}
		}
	}
	it, err := runQuery(src, q)
	if err == errNotFound {
		return nil
	}
	if err != nil {
		return err
	}
	for n := int64(0); n < max; {
		c, err := it()
		if err != nil || c == nil {
			return err
		}
		if c.idx || c.info {
			continue
		}
		k := c.gets(fURLKey)
		if k == "" || k[0] == '!' || k[0] == ' ' || c.gets(fTimestamp) == "" {
			continue
		}
		n++
		if !fn(c) {
			return nil
		}
	}
	return nil
}

// eachPageLine calls fn with the lines of a WACZ's page list at path
// (pages/pages.jsonl, pages/extraPages.jsonl), numbered from 1; fn's
// errStopPages ends it without an error.
func eachPageLine(w *waczSource, path string, fn func(n int, line []byte) error) error {
	f := w.r.File(path)
	if f == nil {
		return errNotFound
	}
	rc, err := f.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	sc := bufio.NewScanner(rc)
	sc.Buffer(make([]byte, 64<<10), wacz.MaxPagesLine)
	n := 0
	for sc.Scan() {
		n++
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if err := fn(n, line); err != nil {
			if err == errStopPages {
				return nil
			}
			return err
		}
	}
	return sc.Err()
}

// --- / -------------------------------------------------------------------------

type homeRow struct {
	Name, Kind, Source, Title, File string
	Count, Pages                    string
	HasPages                        bool
}

func (s *Server) uiHome(w http.ResponseWriter, r *http.Request) {
	deadline := time.Now().Add(1500 * time.Millisecond)
	data := struct {
		uiBase
		Colls    []homeRow
		Total    string
		Counting bool
	}{uiBase: uiBase{Title: "Collections", Crumbs: []crumb{{"collections", ""}}}}
	var total int64
	all := true
	for _, n := range s.names {
		c := s.colls[n]
		cnt, done := s.captureCount(n, deadline)
		total += cnt
		ci := c.info()
		row := homeRow{Name: n, Kind: c.Kind, Source: redactSource(c.Source), Title: ci.title, File: c.FileURL(), Count: fmtCount(cnt), HasPages: ci.hasPages}
		if ci.hasPages {
			row.Pages = fmtCount(s.pageCount(n))
		}
		if !done {
			row.Count = "≥ " + row.Count
			all = false
			data.Counting = true
		}
		data.Colls = append(data.Colls, row)
	}
	if len(s.names) > 1 {
		data.Total = fmtCount(total)
		if !all {
			data.Total = "≥ " + data.Total
		}
	}
	uiRender(w, r, http.StatusOK, "home", data)
}

// --- /COLL/ ------------------------------------------------------------------

type matchOption struct {
	Value, Label string
	On           bool
}

// urlRow is one URL found: its captures in the page's scan.
type urlRow struct {
	URL, MIME, Status            string
	Colls                        []string
	Count                        string
	First, Last                  string
	CalHref, FirstHref, LastHref string
	n                            int64
	key                          string
}

func (s *Server) uiCollection(w http.ResponseWriter, r *http.Request, coll string, q url.Values) {
	u := strings.TrimSpace(q.Get("url"))
	mt := q.Get("matchType")
	if len(u) > MaxURL {
		uiError(w, r, http.StatusBadRequest, "url of "+strconv.Itoa(len(u))+" bytes: at most "+strconv.Itoa(MaxURL))
		return
	}
	// pywb's "*" forms
	if mt == "" {
		switch {
		case strings.HasPrefix(u, "*."):
			u, mt = u[2:], "domain"
		case strings.HasSuffix(u, "*"):
			u, mt = strings.TrimSuffix(u, "*"), "prefix"
		default:
			mt = "exact"
		}
	}
	switch mt {
	case "exact", "prefix", "host", "domain":
	default:
		uiError(w, r, http.StatusBadRequest, "matchType="+mt+": one of exact, prefix, host, domain")
		return
	}
	page, ok := pageParam(w, r, q)
	if !ok {
		return
	}
	after := q.Get("after")
	if len(after) > MaxURL {
		uiError(w, r, http.StatusBadRequest, "after= of "+strconv.Itoa(len(after))+" bytes: at most "+strconv.Itoa(MaxURL))
		return
	}
	if u != "" && mt == "exact" {
		// one URL: its calendar
		uiRedirect(w, calHref(coll, "", fixScheme(u)))
		return
	}
	src, _ := s.source(coll)
	data := struct {
		uiBase
		Coll string
		Info struct {
			Title, Description, Kind, Source, Count, Pages string
			HasPages                                       bool
			CountN, PagesN                                 int64
		}
		URL        string
		MatchType  string
		MatchTypes []matchOption
		Found      string
		Rows       []*urlRow
		Pager      pager
		Cut        bool
		Scanned    string
	}{uiBase: uiBase{Title: coll, Crumbs: collCrumbs(coll)}, Coll: coll, URL: u, MatchType: mt}
	for _, m := range [][2]string{{"exact", "exact URL"}, {"prefix", "URLs starting with"}, {"host", "host"}, {"domain", "domain and subdomains"}} {
		data.MatchTypes = append(data.MatchTypes, matchOption{m[0], m[1], m[0] == mt})
	}
	deadline := time.Now().Add(time.Second)
	if c := s.colls[coll]; c != nil {
		ci := c.info()
		n, done := s.captureCount(coll, deadline)
		data.Info.Title, data.Info.Description, data.Info.Kind, data.Info.Source = ci.title, ci.desc, c.Kind, redactSource(c.Source)
		data.Info.HasPages = ci.hasPages
		if ci.hasPages {
			data.Info.PagesN = s.pageCount(coll)
			data.Info.Pages = fmtCount(data.Info.PagesN)
		}
		data.Info.Count, data.Info.CountN = fmtCount(n), n
		if !done {
			data.Info.Count = "≥ " + data.Info.Count
		}
	} else {
		var total int64
		data.Info.Kind = strconv.Itoa(len(s.names)) + " collections"
		all := true
		for _, n := range s.names {
			c, done := s.captureCount(n, deadline)
			total += c
			all = all && done
		}
		data.Info.Count, data.Info.CountN = fmtCount(total), total
		if !all {
			data.Info.Count = "≥ " + data.Info.Count
		}
	}
	// the URLs of the page: consecutive captures of a key make a row;
	// the next page starts past the last key (after=KEY)
	var rows []*urlRow
	more := false
	var scanned int64
	qu := u
	if u != "" && !strings.Contains(u, "://") && mt == "prefix" {
		qu = fixScheme(u)
	}
	err := eachIndexLineAfter(src, qu, mt, after, uiScanMax, func(c *cdxObj) bool {
		scanned++
		key := c.gets(fURLKey)
		if len(rows) > 0 && rows[len(rows)-1].key == key {
			row := rows[len(rows)-1]
			row.n++
			ts, cu := c.gets(fTimestamp), c.gets(fURL)
			rc := coll
			if coll == "all" {
				rc = c.gets("source-coll")
				if !slices.Contains(row.Colls, rc) {
					row.Colls = append(row.Colls, rc)
				}
			}
			row.Last, row.LastHref = ts, replayHref(rc, ts, cu)
			if !c.isRevisit() {
				// the latest capture's type and status, not a revisit's
				row.MIME, row.Status = c.gets(fMIME), c.gets(fStatus)
			}
			return true
		}
		if len(rows) == uiPageSize {
			more = true
			return false
		}
		ts, cu := c.gets(fTimestamp), c.gets(fURL)
		rc := coll
		if coll == "all" {
			rc = c.gets("source-coll")
		}
		row := &urlRow{URL: cu, key: key, n: 1, First: ts, FirstHref: replayHref(rc, ts, cu), CalHref: calHref(coll, "", cu), MIME: c.gets(fMIME), Status: c.gets(fStatus)}
		if coll == "all" {
			row.Colls = []string{rc}
		}
		rows = append(rows, row)
		return true
	})
	if err != nil {
		code, msg := errorStatus(err)
		uiError(w, r, code, msg)
		return
	}
	data.Cut = scanned >= uiScanMax
	data.Scanned = fmtCount(scanned)
	for _, row := range rows {
		row.Count = fmtCount(row.n)
		row.First = fmtTS(row.First)
		if row.n > 1 {
			row.Last = fmtTS(row.Last)
		} else {
			row.Last, row.LastHref = "", ""
		}
	}
	data.Rows = rows
	n := (page-1)*uiPageSize + len(rows)
	switch {
	case more:
		data.Found = "URLs " + fmtCount(int64((page-1)*uiPageSize+1)) + "–" + fmtCount(int64(n)) + " of more"
	case page > 1:
		data.Found = "URLs " + fmtCount(int64((page-1)*uiPageSize+1)) + "–" + fmtCount(int64(n))
	default:
		data.Found = fmtCount(int64(len(rows))) + " URL"
		if len(rows) != 1 {
			data.Found += "s"
		}
	}
	data.Pager = pager{Page: page}
	if page > 1 || after != "" {
		first := url.Values{}
		for k, v := range q {
			if k != "after" && k != "page" {
				first[k] = v
			}
		}
		data.Pager.Prev, data.Pager.First = "/"+coll+"/", true
		if len(first) > 0 {
			data.Pager.Prev += "?" + first.Encode()
		}
	}
	if more && len(rows) > 0 {
		next := url.Values{}
		for k, v := range q {
			next[k] = v
		}
		next.Set("after", rows[len(rows)-1].key)
		next.Set("page", strconv.Itoa(page+1))
		data.Pager.Next = "/" + coll + "/?" + next.Encode()
	}
	uiRender(w, r, http.StatusOK, "collection", data)
}
