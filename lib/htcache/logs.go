package htcache

import (
	"bufio"
	"io"
	"io/fs"
	"os"
	"regexp"
	"sort"
	"strings"
	"time"
)

// CrawlLog is what HTTrack's logs say about the crawl that wrote a cache.
type CrawlLog struct {
	// Version is HTTrack's version ("3.49-4"), from hts-log.txt's first
	// line or the zip comment; VersionInfo the whole token as logged
	// ("HTTrack3.49-4+libhtsjava.so.2").
	Version     string
	VersionInfo string
	// Launched is when the crawl started (hts-log.txt "launched on", else
	// doit.log "File generated automatically on"), in Location. Zero when
	// no log says.
	Launched time.Time
	// CommandLine is the command as logged: hts-log.txt's second line
	// without its parentheses, else "httrack " + doit.log's first line.
	CommandLine string
	// Summary is the "mirror complete in ..." line (zip comment or log).
	Summary string
	// Location is the crawling machine's time zone: given with
	// WithLocation, inferred from new.txt (ZoneInferred), or UTC.
	Location     *time.Location
	ZoneInferred bool
	// Sources lists the log files read, relative to the mirror root.
	Sources []string

	fetched map[string]time.Time // unescaped URL -> fetch time
}

// Fetched returns when the URL (raw or escaped) was fetched according to
// hts-cache/new.txt, and whether it is listed there.
func (l *CrawlLog) Fetched(url string) (time.Time, bool) {
	if l == nil || l.fetched == nil {
		return time.Time{}, false
	}
	t, ok := l.fetched[unescape(url)]
	if !ok && !hasScheme(url) {
		t, ok = l.fetched["http://"+unescape(url)]
	}
	return t, ok
}

// FetchedCount is the number of URLs new.txt dates.
func (l *CrawlLog) FetchedCount() int { return len(l.fetched) }

var (
	reLaunched = regexp.MustCompile(`^HTTrack(\S+?)(\+\S*)? launched on (.+?) at (.*)$`)
	reDoit     = regexp.MustCompile(`^File generated automatically on (.+?), do NOT edit`)
	reComplete = regexp.MustCompile(`HTTrack Website Copier/(\S+) mirror complete`)
)

const logDateLayout = "Mon, 02 Jan 2006 15:04:05"

// maxLogLine bounds lines read from logs (longer ones are cut).
const maxLogLine = 64 << 10

// readLines calls f for each line of the file (CR/LF stripped, cut at
// maxLogLine), stopping when f returns false.
func readLines(fsys fs.FS, name string, f func(string) bool) error {
	fh, err := fsys.Open(name)
	if err != nil {
		return err
	}
	defer fh.Close()
	br := bufio.NewReaderSize(fh, 64<<10)
	for {
		line, err := readLine(br)
		if line != "" || err == nil {
			if !f(line) {
				return nil
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// readLine reads one line, dropping the part beyond maxLogLine.
func readLine(br *bufio.Reader) (string, error) {
	var b []byte
	for {
		frag, err := br.ReadSlice('\n')
		if len(b) < maxLogLine {
			room := maxLogLine - len(b)
			if len(frag) > room {
				frag = frag[:room]
			}
			b = append(b, frag...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return strings.TrimRight(string(b), "\r\n"), err
	}
}

// ReadCrawlLog reads hts-log.txt, hts-cache/doit.log and hts-cache/new.txt
// under the mirror root (each optional). comment is the cache zip's comment
// (HTTrack's final log line) or "". loc, when not nil, is the crawl
// machine's time zone; otherwise it is inferred from new.txt.
func ReadCrawlLog(root, comment string, loc *time.Location) *CrawlLog {
	return readCrawlLog(os.DirFS(root), comment, loc)
}

// readCrawlLog is ReadCrawlLog for the mirror root fsys.
func readCrawlLog(fsys fs.FS, comment string, loc *time.Location) *CrawlLog {
	l := &CrawlLog{Location: loc}
	if m := reComplete.FindStringSubmatch(comment); m != nil {
		l.Version = m[1]
		l.Summary = firstLine(comment)
	}
	var launched, doitDate string
	if readLines(fsys, "hts-log.txt", func(s string) bool {
		if m := reLaunched.FindStringSubmatch(s); m != nil {
			l.Version = m[1]
			l.VersionInfo = "HTTrack" + m[1] + m[2]
			launched = m[3]
			l.CommandLine = ""
			return true
		}
		if launched != "" && l.CommandLine == "" && strings.HasPrefix(s, "(") {
			l.CommandLine = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(s, "("), ")"))
		}
		if m := reComplete.FindStringSubmatch(s); m != nil {
			l.Summary = s
		}
		return true
	}) == nil {
		l.Sources = append(l.Sources, "hts-log.txt")
	}
	first := true
	var doitCmd string
	if readLines(fsys, "hts-cache/doit.log", func(s string) bool {
		if first {
			doitCmd, first = s, false
			return true
		}
		if m := reDoit.FindStringSubmatch(s); m != nil {
			doitDate = m[1]
			return false
		}
		return true
	}) == nil {
		l.Sources = append(l.Sources, "hts-cache/doit.log")
	}
	if l.CommandLine == "" && doitCmd != "" {
		l.CommandLine = "httrack " + doitCmd
	}
	if launched == "" {
		launched = doitDate
	}

	// new.txt: time of day of each fetch, plus GMT dates for the zone.
	var rows []txtRow
	if readLines(fsys, "hts-cache/new.txt", func(s string) bool {
		f := strings.Split(s, "\t")
		if len(f) < 8 || len(f[0]) != 8 || f[0][2] != ':' || f[0][5] != ':' {
			return true
		}
		r := txtRow{clock: f[0], url: f[7]}
		if g, ok := strings.CutPrefix(f[6], "date:"); ok {
			r.gmt = unescape(g)
		}
		rows = append(rows, r)
		return true
	}) == nil {
		l.Sources = append(l.Sources, "hts-cache/new.txt")
	}

	if l.Location == nil {
		l.Location = time.UTC
		ref := time.Time{}
		if launched != "" { // the crawl's day, as if UTC: within 14 h of the truth
			ref, _ = time.Parse(logDateLayout, launched)
		}
		if off, ok := inferOffset(rows, ref); ok {
			l.ZoneInferred = true
			if off != 0 {
				l.Location = time.FixedZone(formatOffset(off), off)
			}
		}
	}
	if launched != "" {
		if t, err := time.ParseInLocation(logDateLayout, launched, l.Location); err == nil {
			l.Launched = t
		}
	}
	if !l.Launched.IsZero() && len(rows) > 0 {
		l.fetched = make(map[string]time.Time, len(rows))
		day := time.Date(l.Launched.Year(), l.Launched.Month(), l.Launched.Day(), 0, 0, 0, 0, l.Location)
		prev := l.Launched
		for _, r := range rows {
			c, err := time.Parse("15:04:05", r.clock)
			if err != nil {
				continue
			}
			t := time.Date(day.Year(), day.Month(), day.Day(), c.Hour(), c.Minute(), c.Second(), 0, l.Location)
			for t.Before(prev.Add(-12 * time.Hour)) { // past midnight
				day = day.AddDate(0, 0, 1)
				t = t.AddDate(0, 0, 1)
			}
			prev = t
			l.fetched[unescape(r.url)] = t
		}
	}
	return l
}

// readTxtTimes dates the lines of a new.txt kept as old.txt (the crawl
// before an update that did not finish), whose crawl start is gone from
// the logs: each time of day is taken on the day that puts it at or before
// end, the end of that crawl (the modification time of old.zip), and
// later lines never before earlier ones.
func readTxtTimes(fsys fs.FS, name string, end time.Time, loc *time.Location) map[string]time.Time {
	var rows []txtRow
	if readLines(fsys, name, func(s string) bool {
		f := strings.Split(s, "\t")
		if len(f) >= 8 && len(f[0]) == 8 && f[0][2] == ':' && f[0][5] == ':' {
			rows = append(rows, txtRow{clock: f[0], url: f[7]})
		}
		return true
	}) != nil || len(rows) == 0 {
		return nil
	}
	end = end.In(loc)
	out := make(map[string]time.Time, len(rows))
	next := end.Add(time.Minute) // slack: the zip is closed after the last line
	for i := len(rows) - 1; i >= 0; i-- {
		c, err := time.Parse("15:04:05", rows[i].clock)
		if err != nil {
			continue
		}
		t := time.Date(next.Year(), next.Month(), next.Day(), c.Hour(), c.Minute(), c.Second(), 0, loc)
		if t.After(next) {
			t = t.AddDate(0, 0, -1)
		}
		next = t
		if _, dup := out[unescape(rows[i].url)]; !dup { // the last fetch of a URL wins
			out[unescape(rows[i].url)] = t
		}
	}
	return out
}

// txtRow is one line of new.txt: time of day, URL, GMT date if logged.
type txtRow struct {
	clock, url, gmt string
}

// inferOffset guesses the crawl machine's UTC offset from new.txt lines
// whose "date:" column holds the server's GMT Date (HTTrack logs it when a
// response has no ETag and no Last-Modified): the local clock minus that date
// is the offset, give or take seconds. It takes the most frequent offset,
// rounded to 15 minutes, among samples within 90 s of such a multiple.
//
// The column holds Last-Modified instead when the response has one (and no
// ETag): such a date, days or years old, would pass for an offset, so with
// ref (the crawl start read as UTC, zero if unknown) dates more than 38
// hours from it are not samples.
func inferOffset(rows []txtRow, ref time.Time) (int, bool) {
	counts := map[int]int{}
	for _, r := range rows {
		if r.gmt == "" {
			continue
		}
		g, err := time.Parse(time.RFC1123, r.gmt)
		if err != nil {
			continue
		}
		if !ref.IsZero() && (g.Sub(ref) > 38*time.Hour || ref.Sub(g) > 38*time.Hour) {
			continue
		}
		c, err := time.Parse("15:04:05", r.clock)
		if err != nil {
			continue
		}
		local := c.Hour()*3600 + c.Minute()*60 + c.Second()
		gmt := g.Hour()*3600 + g.Minute()*60 + g.Second()
		d := local - gmt
		for d > 14*3600 {
			d -= 86400
		}
		for d < -14*3600 {
			d += 86400
		}
		q := (d + 450*sign(d)) / 900 * 900
		if abs(d-q) > 90 {
			continue
		}
		counts[q]++
	}
	if len(counts) == 0 {
		return 0, false
	}
	keys := make([]int, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if counts[keys[i]] != counts[keys[j]] {
			return counts[keys[i]] > counts[keys[j]]
		}
		return abs(keys[i]) < abs(keys[j])
	})
	return keys[0], true
}

func sign(x int) int {
	if x < 0 {
		return -1
	}
	return 1
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func formatOffset(off int) string {
	s := "+"
	if off < 0 {
		s, off = "-", -off
	}
	h, m := off/3600, off%3600/60
	return "UTC" + s + string(rune('0'+h/10)) + string(rune('0'+h%10)) + ":" + string(rune('0'+m/10)) + string(rune('0'+m%10))
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return strings.TrimRight(s, "\r")
}
