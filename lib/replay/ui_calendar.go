package replay

import (
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

type calYear struct {
	Year, Count, Href string
	On                bool
}

type calCell struct {
	Day, Count int
	Heat, Href string
	Title      string
	Sel        bool
}

type calMonth struct {
	Num, Name string
	Count     string
	Cells     []calCell
}

type dayCapture struct {
	Time, Status, MIME, Size, Coll  string
	ReplayHref, RawHref, RecordHref string
}

// heat is a day's class by its capture count.
func heat(n int) string {
	switch {
	case n <= 1:
		return "h1"
	case n <= 3:
		return "h2"
	case n <= 9:
		return "h3"
	case n <= 29:
		return "h4"
	}
	return "h5"
}

// uiCalendar answers /COLL/*/URL and /COLL/TS*/URL: the years with
// captures of URL, the months of one year (the latest, or TS's) with a
// cell per day, and the captures of TS's day when TS has 8 digits or
// more. A URL in one of pywb's "*" forms (*.host, prefix*) is searched on
// the collection page instead.
func (s *Server) uiCalendar(w http.ResponseWriter, r *http.Request, coll, ts, rawURL string) {
	if _, ok := s.source(coll); !ok {
		if !ValidName(coll) && coll != "all" {
			uiError(w, r, http.StatusNotFound, "No such collection")
			return
		}
		uiError(w, r, http.StatusNotFound, "No such collection: "+coll)
		return
	}
	if len(rawURL) > MaxURL {
		uiError(w, r, http.StatusBadRequest, fmt.Sprintf("URL of %d bytes: at most %d", len(rawURL), MaxURL))
		return
	}
	// the "*" forms, before the scheme is made up
	orig := strings.TrimPrefix(strings.TrimPrefix(rawURL, "http://"), "https://")
	switch {
	case strings.HasPrefix(orig, "*."):
		uiRedirect(w, "/"+coll+"/?"+url.Values{"url": {orig[2:]}, "matchType": {"domain"}}.Encode())
		return
	case strings.HasSuffix(rawURL, "*"):
		uiRedirect(w, "/"+coll+"/?"+url.Values{"url": {strings.TrimSuffix(rawURL, "*")}, "matchType": {"prefix"}}.Encode())
		return
	}
	u := rawURL
	src, _ := s.source(coll)
	days := map[string]int{} // YYYYMMDD -> captures
	years := map[string]int{}
	var total int64
	var first, last, firstURL, lastURL, firstColl, lastColl string
	selDay := ""
	if len(ts) >= 8 {
		selDay = ts[:8]
	}
	var dayCaps []dayCapture
	dayCut := false
	scan := func(c *cdxObj) bool {
		t := c.gets(fTimestamp)
		if len(t) < 8 {
			t = padTimestamp(t, "00000101000000")
		}
		total++
		days[t[:8]]++
		years[t[:4]]++
		cu := c.gets(fURL)
		rc := coll
		if coll == "all" {
			rc = c.gets("source-coll")
		}
		if first == "" || t < first {
			first, firstURL, firstColl = t, cu, rc
		}
		if t >= last {
			last, lastURL, lastColl = t, cu, rc
		}
		if selDay != "" && t[:8] == selDay {
			if len(dayCaps) >= uiDayMax {
				dayCut = true
				return true
			}
			ct := c.gets(fTimestamp)
			dayCaps = append(dayCaps, dayCapture{
				Time: fmtTS(t)[11:], Status: c.gets(fStatus), MIME: c.gets(fMIME), Size: fmtSize(c.gets(fLength)), Coll: rc,
				ReplayHref: replayHref(rc, ct, cu), RawHref: rawHref(rc, ct, cu),
				RecordHref: recordHref(rc, ct, cu, c.gets(fFilename), c.gets(fOffset)),
			})
		}
		return true
	}
	err := eachIndexLine(src, u, "exact", uiCalendarMax, scan)
	if alt := unescapeLinked(u); err == nil && total == 0 && alt != u {
		// a link's URL as html/template or a browser escaped it
		// ("(" as %28): looked up as it was captured
		if err = eachIndexLine(src, alt, "exact", uiCalendarMax, scan); total > 0 {
			u = alt
		}
	}
	if err != nil {
		code, msg := errorStatus(err)
		uiError(w, r, code, msg)
		return
	}
	data := struct {
		uiBase
		Coll, URL                        string
		Total                            int64
		TotalStr                         string
		Cut                              bool
		First, Last, FirstHref, LastHref string
		TimeMapHref, CDXHref             string
		Years                            []calYear
		Year, YearCount                  string
		YearN                            int
		Months                           []calMonth
		Day, DayName                     string
		DayCaps                          []dayCapture
		DayCut, ShowColl                 bool
	}{
		uiBase:      uiBase{Title: "Captures of " + u, Crumbs: collCrumbs(coll, crumb{"captures", ""})},
		Coll:        coll,
		URL:         u,
		Total:       total,
		TotalStr:    fmtCount(total),
		Cut:         total >= uiCalendarMax,
		ShowColl:    coll == "all",
		TimeMapHref: "/" + coll + "/timemap/link/" + u,
		CDXHref:     "/" + coll + "/cdx?" + url.Values{"url": {u}, "output": {"json"}}.Encode(),
	}
	if total > 0 {
		data.First, data.FirstHref = fmtTS(first), replayHref(firstColl, first, firstURL)
		data.Last, data.LastHref = fmtTS(last), replayHref(lastColl, last, lastURL)
	}
	var ys []string
	for y := range years {
		ys = append(ys, y)
	}
	sort.Strings(ys)
	year := ""
	if len(ts) >= 4 {
		year = ts[:4]
	} else if len(ys) > 0 {
		year = ys[len(ys)-1]
	}
	for _, y := range ys {
		data.Years = append(data.Years, calYear{Year: y, Count: fmtCount(int64(years[y])), Href: calHref(coll, y, u), On: y == year})
	}
	if year != "" && years[year] == 0 && len(ys) > 0 {
		// a year without captures: shown among the others, empty
		data.Years = append(data.Years, calYear{Year: year, Count: "0", On: true})
		sort.Slice(data.Years, func(i, j int) bool { return data.Years[i].Year < data.Years[j].Year })
	}
	data.Year, data.YearCount, data.YearN = year, fmtCount(int64(years[year])), years[year]
	if y, err := strconv.Atoi(year); err == nil && len(ys) > 0 {
		for m := time.January; m <= time.December; m++ {
			start := time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)
			mon := calMonth{Num: fmt.Sprintf("%02d", int(m)), Name: m.String()}
			for range int(start.Weekday()) {
				mon.Cells = append(mon.Cells, calCell{})
			}
			n := 0
			for d := 1; d <= start.AddDate(0, 1, -1).Day(); d++ {
				key := fmt.Sprintf("%04d%02d%02d", y, int(m), d)
				cnt := days[key]
				n += cnt
				cell := calCell{Day: d, Count: cnt, Sel: key == selDay}
				if cnt > 0 {
					cell.Heat = heat(cnt)
					cell.Href = calHref(coll, key, u) + "#day"
					cell.Title = fmt.Sprintf("%s: %d capture", time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Format("Mon 2 Jan 2006"), cnt)
					if cnt != 1 {
						cell.Title += "s"
					}
				}
				mon.Cells = append(mon.Cells, cell)
			}
			if n > 0 {
				mon.Count = fmtCount(int64(n))
			}
			data.Months = append(data.Months, mon)
		}
	}
	if selDay != "" {
		data.Day, data.DayCaps, data.DayCut = selDay, dayCaps, dayCut
		if t, err := time.Parse("20060102", selDay); err == nil {
			data.DayName = t.Format("Monday 2 January 2006")
		} else {
			data.DayName = selDay
		}
	}
	code := http.StatusOK
	if total == 0 {
		code = http.StatusNotFound
	}
	uiRender(w, r, code, "calendar", data)
}

// unescapeLinked decodes the %XX escapes that html/template and browsers
// put in a link's URL for bytes a URL may hold as they are (quotes,
// parentheses, <, >, space, non-ASCII), others (%2F, %25, %3F...) kept.
func unescapeLinked(u string) string {
	if !strings.Contains(u, "%") {
		return u
	}
	var b []byte
	for i := 0; i < len(u); i++ {
		if u[i] == '%' && i+2 < len(u) && isHex(u[i+1]) && isHex(u[i+2]) {
			c := unhex(u[i+1])<<4 | unhex(u[i+2])
			if c <= ' ' && c != 0 || strings.IndexByte("\"'()<>\\^`{|}", c) >= 0 || c >= 0x7f {
				b = append(b, c)
				i += 2
				continue
			}
		}
		b = append(b, u[i])
	}
	if !utf8.Valid(b) {
		return u
	}
	return string(b)
}
