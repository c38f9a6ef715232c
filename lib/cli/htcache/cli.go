package htcache

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/urfave/cli/v2"

	"github.com/arcport/arcport/lib/htcache"
	"github.com/arcport/arcport/lib/internal/cliutil"
	"github.com/arcport/arcport/lib/record"
	"github.com/arcport/arcport/lib/store"
)

// Main runs htcache with os.Args and exits.
func Main() { cliutil.Run(NewApp(os.Stdout, os.Stderr)) }

var (
	flagQuiet  = &cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "do not report damaged or skipped entries"}
	flagStrict = &cli.BoolFlag{Name: "strict", Usage: "stop at the first damaged entry instead of skipping it"}
	flagTZ     = &cli.StringFlag{Name: "tz", Usage: "time zone of the machine that ran the crawl (IANA name or ±hh:mm); default: inferred from new.txt, else UTC"}
	flagJSON   = &cli.BoolFlag{Name: "json", Usage: "one JSON object per line"}
	flagOut    = &cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write to `FILE` (atomically) instead of stdout"}
)

// NewApp returns the htcache application writing to stdout and stderr.
func NewApp(stdout, stderr io.Writer) *cli.App {
	return &cli.App{
		Name:      "htcache",
		Usage:     "read HTTrack caches (hts-cache/new.zip, old ndx/dat) and export them to WARC or ARC",
		Writer:    stdout,
		ErrWriter: stderr,
		Commands: []*cli.Command{
			{
				Name:      "info",
				Usage:     "HTTrack version, crawl date, entries, bytes, statuses, missing files",
				ArgsUsage: "DIR|ZIP",
				Flags:     []cli.Flag{flagJSON, flagQuiet, flagStrict, flagTZ},
				Action:    cmdInfo,
			},
			{
				Name:      "ls",
				Usage:     "one line per entry: status, size, where the body is (cache, external, none, missing), MIME type, URL",
				ArgsUsage: "DIR|ZIP",
				Flags:     []cli.Flag{flagJSON, flagQuiet, flagStrict, flagTZ},
				Action:    cmdLs,
			},
			{
				Name: "check",
				Usage: "verify the cache: every entry's data against its size and CRC-32, the central directory against the " +
					"local headers, external bodies present; one line per problem on stdout, exit 1 if any",
				ArgsUsage: "DIR|ZIP",
				Flags:     []cli.Flag{flagTZ},
				Action:    cmdCheck,
			},
			{
				Name:      "cat",
				Usage:     "write the body of URL as stored",
				ArgsUsage: "DIR|ZIP URL",
				Flags:     []cli.Flag{flagOut, flagQuiet, flagStrict},
				Action:    cmdCat,
			},
			exportCommand(),
		},
	}
}

// open opens the cache named by the first argument with the common flags.
func open(c *cli.Context, nargs int) (*htcache.Cache, error) {
	return openWith(c, nargs, nil)
}

// openWith is open with onProblem, when not nil, receiving every problem
// (-q included) unless --strict.
func openWith(c *cli.Context, nargs int, onProblem record.ProblemFunc) (*htcache.Cache, error) {
	if c.NArg() != nargs {
		return nil, cliutil.Usagef("%s: want %d argument(s), got %d", c.Command.Name, nargs, c.NArg())
	}
	var opts []htcache.Option
	if c.Bool("strict") {
		opts = append(opts, htcache.WithPolicy(record.Fail))
	} else if onProblem != nil {
		opts = append(opts, htcache.WithProblemFunc(onProblem))
	} else if c.Bool("quiet") {
		opts = append(opts, htcache.WithPolicy(record.Ignore))
	} else {
		w := c.App.ErrWriter
		opts = append(opts, htcache.WithProblemFunc(func(p *record.Problem) { fmt.Fprintf(w, "htcache: %s\n", p.Error()) }))
	}
	if tz := c.String("tz"); tz != "" {
		loc, err := parseTZ(tz)
		if err != nil {
			return nil, cliutil.Usagef("--tz: %v", err)
		}
		opts = append(opts, htcache.WithLocation(loc))
	}
	return openCache(c.Args().First(), opts...)
}

// openCache opens the cache of a mirror: a local folder (or cache file),
// or an s3://bucket/prefix/ holding the HTTrack project (listed once, the
// cache zip then read by ranges).
func openCache(name string, opts ...htcache.Option) (*htcache.Cache, error) {
	switch {
	case strings.HasPrefix(name, "s3://"):
		fsys, err := cliutil.Store().DirFS(context.Background(), name)
		if err != nil {
			return nil, err
		}
		return htcache.OpenFS(fsys, store.Redact(name), opts...)
	case cliutil.IsRemote(name):
		return nil, fmt.Errorf("%s: an HTTrack project is a folder: give a local folder or an s3:// prefix (http(s):// has no listing)", store.Redact(name))
	}
	return htcache.Open(name, opts...)
}

// parseTZ parses an IANA zone name or a ±hh:mm offset.
func parseTZ(s string) (*time.Location, error) {
	if len(s) == 6 && (s[0] == '+' || s[0] == '-') && s[3] == ':' {
		h, err1 := strconv.Atoi(s[1:3])
		m, err2 := strconv.Atoi(s[4:])
		if err1 == nil && err2 == nil && h <= 14 && m < 60 {
			off := h*3600 + m*60
			if s[0] == '-' {
				off = -off
			}
			return time.FixedZone("UTC"+s, off), nil
		}
	}
	return time.LoadLocation(s)
}

// entryJSON is one line of `ls --json`.
type entryJSON struct {
	URL          string `json:"url"`
	Name         string `json:"name"`
	Status       int    `json:"status"`
	Message      string `json:"message,omitempty"`
	Size         int64  `json:"size"`
	Body         string `json:"body"`
	MIME         string `json:"mime,omitempty"`
	Charset      string `json:"charset,omitempty"`
	LastModified string `json:"last_modified,omitempty"`
	ETag         string `json:"etag,omitempty"`
	Location     string `json:"location,omitempty"`
	Save         string `json:"save,omitempty"`
	Fetched      string `json:"fetched,omitempty"`
	Offset       int64  `json:"offset"`
	Old          bool   `json:"old_zip,omitempty"` // from old.zip (Offset is there)
}

// bodySize is the body's size for listing: the file's, or X-Size when the
// body is missing or not kept.
func bodySize(src htcache.BodySource, size int64, m *htcache.Meta) int64 {
	if (src == htcache.BodyMissing || src == htcache.BodyNone) && m.Size > 0 {
		return m.Size
	}
	return size
}

func cmdLs(c *cli.Context) error {
	hc, err := open(c, 1)
	if err != nil {
		return err
	}
	defer hc.Close()
	er, err := hc.Entries()
	if err != nil {
		return err
	}
	out := bufio.NewWriterSize(c.App.Writer, 64<<10)
	defer out.Flush()
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	for {
		e, err := er.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		src, _, size := hc.Locate(e)
		size = bodySize(src, size, &e.Meta)
		mime := e.Meta.ContentType
		if !c.Bool("json") {
			if mime == "" {
				mime = "-"
			}
			fmt.Fprintf(out, "%d\t%d\t%s\t%s\t%s\n", e.Meta.StatusCode, size, src, mime, e.URI())
			continue
		}
		j := entryJSON{URL: e.URI(), Name: e.Name, Status: e.Meta.StatusCode, Message: e.Meta.StatusMessage,
			Size: size, Body: src.String(), MIME: mime, Charset: e.Meta.Charset, LastModified: e.Meta.LastModified,
			ETag: e.Meta.ETag, Location: e.Meta.Location, Save: e.Meta.Save, Offset: e.Offset, Old: e.Old}
		if !utf8.ValidString(j.Name) {
			j.Name = j.URL // JSON cannot carry the raw bytes
		}
		if t, ok := hc.FetchTime(e); ok {
			j.Fetched = record.FormatDate(t, false)
		}
		if err := enc.Encode(j); err != nil {
			return err
		}
	}
}

// infoJSON is `info --json`.
type infoJSON struct {
	Cache            string         `json:"cache"`
	Format           string         `json:"format"`
	HTTrack          string         `json:"httrack,omitempty"`
	HTTrackBuild     string         `json:"httrack_build,omitempty"`
	Command          string         `json:"command,omitempty"`
	CrawlDate        string         `json:"crawl_date,omitempty"`
	TimeZone         string         `json:"time_zone"`
	ZoneInferred     bool           `json:"time_zone_inferred"`
	Entries          int            `json:"entries"`
	OldCache         string         `json:"old_cache,omitempty"`
	OldEntries       int            `json:"old_entries,omitempty"`
	CentralDirectory bool           `json:"central_directory"`
	CentralEntries   int64          `json:"central_entries"`
	Recovered        bool           `json:"recovered"`
	Skipped          int            `json:"skipped"`
	TruncatedAt      int64          `json:"truncated_at"`
	Bytes            int64          `json:"bytes"`
	CacheBytes       int64          `json:"cache_bytes"`
	ExternalBytes    int64          `json:"external_bytes"`
	Statuses         map[string]int `json:"statuses"`
	Bodies           map[string]int `json:"bodies"`
	Missing          []missingJSON  `json:"missing"`
}

type missingJSON struct {
	URL  string `json:"url"`
	Save string `json:"save"`
}

func cmdInfo(c *cli.Context) error {
	hc, err := open(c, 1)
	if err != nil {
		return err
	}
	defer hc.Close()
	er, err := hc.Entries()
	if err != nil {
		return err
	}
	in := infoJSON{Cache: hc.Path, OldCache: hc.OldPath, Format: string(hc.Format), HTTrack: hc.Log.Version, HTTrackBuild: hc.Log.VersionInfo,
		Command: hc.Log.CommandLine, TimeZone: hc.Log.Location.String(), ZoneInferred: hc.Log.ZoneInferred,
		Statuses: map[string]int{}, Bodies: map[string]int{}, Missing: []missingJSON{}}
	if !hc.Log.Launched.IsZero() {
		in.CrawlDate = record.FormatDate(hc.Log.Launched, false)
	}
	for {
		e, err := er.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		in.Entries++
		if e.Old {
			in.OldEntries++
		}
		in.Statuses[strconv.Itoa(e.Meta.StatusCode)]++
		src, _, size := hc.Locate(e)
		in.Bodies[src.String()]++
		switch src {
		case htcache.BodyInCache:
			in.CacheBytes += size
		case htcache.BodyExternal:
			in.ExternalBytes += size
		case htcache.BodyMissing:
			in.Missing = append(in.Missing, missingJSON{URL: e.URI(), Save: e.Meta.Save})
		}
	}
	in.Bytes = in.CacheBytes + in.ExternalBytes
	s := hc.ScanSummary()
	in.CentralDirectory, in.CentralEntries, in.Recovered, in.Skipped, in.TruncatedAt =
		s.CentralDirectory, s.CentralEntries, s.Recovered, s.Skipped, s.TruncatedAt
	out := c.App.Writer
	if c.Bool("json") {
		enc := json.NewEncoder(out)
		enc.SetEscapeHTML(false)
		return enc.Encode(in)
	}
	w := bufio.NewWriter(out)
	defer w.Flush()
	p := func(k, f string, a ...any) { fmt.Fprintf(w, "%-14s "+f+"\n", append([]any{k + ":"}, a...)...) }
	p("cache", "%s (%s)", in.Cache, in.Format)
	if in.HTTrack != "" {
		p("httrack", "%s (%s)", in.HTTrack, orDash(in.HTTrackBuild))
	} else {
		p("httrack", "unknown")
	}
	p("command", "%s", orDash(in.Command))
	zone := in.TimeZone
	if in.ZoneInferred {
		zone += ", inferred from new.txt"
	}
	p("crawl date", "%s (%s)", orDash(in.CrawlDate), zone)
	newEntries := in.Entries - in.OldEntries
	switch {
	case hc.Format == htcache.FormatNdx:
		p("entries", "%d", newEntries)
	case in.Recovered:
		p("entries", "%d recovered from local headers (no central directory: interrupted crawl)", newEntries)
	default:
		p("entries", "%d (central directory lists %d)", newEntries, in.CentralEntries)
	}
	if in.OldCache != "" {
		p("old.zip", "%d more entries from the previous crawl, not fetched again by the unfinished update (%s, %s)",
			in.OldEntries, in.OldCache, record.FormatDate(hc.OldModTime.UTC(), false))
	}
	if in.Skipped > 0 || in.TruncatedAt >= 0 {
		p("damaged", "%d skipped, incomplete entry at offset %d", in.Skipped, in.TruncatedAt)
	}
	p("bytes", "%d (in cache %d, external %d)", in.Bytes, in.CacheBytes, in.ExternalBytes)
	p("statuses", "%s", joinCounts(in.Statuses, true))
	p("bodies", "%s", joinCounts(in.Bodies, false))
	p("missing files", "%d", len(in.Missing))
	for _, m := range in.Missing {
		fmt.Fprintf(w, "  %s\t%s\n", m.URL, m.Save)
	}
	return nil
}

// cmdCheck reads the whole cache the way export does, with every entry
// verified, and prints each problem the readers report (damaged or
// truncated entries, a central directory that disagrees with the local
// headers) and each missing external body as one "FILE: record at offset
// N: reason" line on stdout. It exits 1 when there is any.
func cmdCheck(c *cli.Context) error {
	if c.NArg() != 1 {
		return cliutil.Usagef("check: want 1 argument(s), got %d", c.NArg())
	}
	out := bufio.NewWriter(c.App.Writer)
	defer out.Flush()
	n := 0
	report := func(line string) {
		n++
		out.WriteString(strings.Join(strings.Fields(line), " ") + "\n")
	}
	opts := []htcache.Option{htcache.WithVerify(true), htcache.WithPolicy(record.Warn),
		htcache.WithProblemFunc(func(p *record.Problem) { report(p.Error()) })}
	if tz := c.String("tz"); tz != "" {
		loc, err := parseTZ(tz)
		if err != nil {
			return cliutil.Usagef("--tz: %v", err)
		}
		opts = append(opts, htcache.WithLocation(loc))
	}
	hc, err := openCache(c.Args().First(), opts...)
	if err != nil {
		return err
	}
	defer hc.Close()
	er, err := hc.Entries()
	if err != nil {
		return err
	}
	for {
		e, err := er.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if src, _, _ := hc.Locate(e); src == htcache.BodyMissing {
			file := hc.Path
			if e.Old {
				file = hc.OldPath
			}
			report((&record.Problem{File: file, Offset: e.Offset, Msg: htcache.MissingBodyMsg(e)}).Error())
		}
	}
	if n > 0 {
		return &cliutil.ExitError{Code: cliutil.ExitFail}
	}
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// joinCounts formats a count map as "k: n, ..." sorted by key (numerically
// for status codes).
func joinCounts(m map[string]int, numeric bool) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if numeric {
			a, _ := strconv.Atoi(keys[i])
			b, _ := strconv.Atoi(keys[j])
			return a < b
		}
		return keys[i] < keys[j]
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s: %d", k, m[k])
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}

func cmdCat(c *cli.Context) error {
	hc, err := open(c, 2)
	if err != nil {
		return err
	}
	defer hc.Close()
	e, err := hc.Find(c.Args().Get(1))
	if err != nil {
		return err
	}
	body, _, err := hc.Body(e)
	if err != nil {
		return err
	}
	defer body.Close()
	return writeOutput(c, func(w io.Writer) error {
		_, err := io.Copy(w, body)
		return err
	})
}

// writeOutput runs f on stdout, or on -o FILE (or s3://) written whole or
// not at all.
func writeOutput(c *cli.Context, f func(io.Writer) error) error {
	name := c.String("output")
	if name == "" || name == "-" {
		bw := bufio.NewWriterSize(c.App.Writer, 256<<10)
		if err := f(bw); err != nil {
			bw.Flush()
			return err
		}
		return bw.Flush()
	}
	af, err := cliutil.CreateOutput(name)
	if err != nil {
		return err
	}
	defer af.Abort()
	bw := bufio.NewWriterSize(af, 256<<10)
	if err := f(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return af.Commit()
}
