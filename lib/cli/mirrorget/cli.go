// Package mirrorget is the command line of mirrorget, the HTTrack-style
// crawler of "Copying Websites" (../shared/specs/copying-websites.txt): it
// wires lib/crawl to an ARC (lib/arc) or WARC (lib/warc) stream on stdout
// and, with -O DIR, to a browsable mirror (lib/mirror) with an HTTrack cache
// (lib/htcache) that a second run uses to update the copy with conditional
// requests.
package mirrorget

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/arcport/arcport/lib/crawl"
	"github.com/arcport/arcport/lib/frontier"
	"github.com/arcport/arcport/lib/internal/cliutil"
	"github.com/arcport/arcport/lib/internal/tailfile"
	"github.com/arcport/arcport/lib/record"
	"github.com/arcport/arcport/lib/store"
)

// Main runs mirrorget with os.Args and exits.
func Main() {
	os.Args = SplitFilters(os.Args)
	cliutil.Run(App())
}

// filterPrefix marks scan rules moved out of the way of the flag parser.
const filterPrefix = "--filter="

// SplitFilters rewrites HTTrack scan rules given as bare arguments ("+*.gif",
// "-*/cgi-bin/*") into --filter=RULE flags, so that "-*.gif" is not taken
// for a flag. An argument is a rule when it starts with + or with a single -
// and holds one of * / . that no flag name has. Arguments after "--" are
// left alone.
//
// Flags may follow the URLs, as with HTTrack ("mirrorget URL -O DIR"): the
// flag parser reads flags only before the first URL, so flags (with their
// values) and rules are moved in front of the URLs, keeping their order.
func SplitFilters(args []string) []string {
	if len(args) == 0 {
		return args
	}
	var flags, rest []string
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "-X0" { // HTTrack's spelling of --purge=off
			a = "--purge=off"
		}
		if (a == "-X" || a == "--purge" || a == "--purge-old") && i+1 < len(args) && isOnOff(args[i+1]) {
			i++
			a = "--purge=" + args[i] // "--purge off": not a start URL "off"
		}
		if a == "--browser" { // "--browser auto"; alone, it takes no value
			if a = "--browser=on"; i+1 < len(args) && (isOnOff(args[i+1]) || args[i+1] == "auto") {
				i++
				a = "--browser=" + args[i]
			}
		}
		if a == "--" {
			rest = append(rest, args[i:]...)
			break
		}
		rule := strings.HasPrefix(a, "+") ||
			(strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && !strings.Contains(a, "=") && strings.ContainsAny(a, "*/."))
		switch {
		case rule && len(a) > 1:
			flags = append(flags, filterPrefix+a)
		case strings.HasPrefix(a, "-") && len(a) > 1:
			flags = append(flags, a)
			if valueFlags[strings.TrimLeft(a, "-")] && i+1 < len(args) {
				i++
				flags = append(flags, args[i])
			}
		default:
			rest = append(rest, a)
		}
	}
	return append(append([]string{args[0]}, flags...), rest...)
}

// valueFlags are the flags that take a value as the next argument.
var valueFlags = map[string]bool{"O": true, "o": true, "format": true, "c": true, "rate": true, "max-rate": true,
	"r": true, "ext-depth": true, "scope": true, "filter": true, "robots": true, "user-agent": true, "header": true,
	"cookies": true, "proxy": true, "timeout": true, "retries": true, "max-size": true, "follow-redirects": true,
	"max-parse": true, "min-rate": true, "max-request-time": true, "part-size": true,
	"http-user": true, "http-password": true, "netrc": true, "max-robots-size": true, "max-url-length": true,
	"max-segment-repeat": true, "max-path-segments": true, "max-redirects": true,
	"state": true, "frontier": true, "crawl-id": true, "lease": true, "worker": true, "warc-dir": true,
	"warc-prefix": true, "warc-max-size": true, "warc-max-age": true, "dedup-index": true, "max-connections": true,
	"accept-mime": true, "reject-mime": true, "max-size-html": true, "max-size-other": true, "min-size": true,
	"i": true, "input-file": true, "max-time": true, "max-pages": true, "max-bytes": true}

// App returns the urfave/cli application.
func App() *cli.App {
	cli.VersionFlag = &cli.BoolFlag{Name: "version", Usage: "print the version"}
	return &cli.App{
		Name:      "mirrorget",
		Usage:     "copy websites as HTTrack does, streaming ARC or WARC and keeping a browsable mirror",
		UsageText: "mirrorget [flags] URL ... [+PATTERN|-PATTERN ...]",
		Description: `Crawls from the start URLs, within the start URL's directory by default, and
writes every capture to stdout as ARC (default) or WARC (request and response
records), record by record, so it pipes into waczpack. With -O DIR it also keeps
an HTTrack-style browsable copy in DIR and an HTTrack cache in DIR/hts-cache; a
second run over the same DIR updates the copy with conditional requests.

Scan rules follow HTTrack: +PATTERN takes matching URLs, -PATTERN refuses them,
the last matching rule wins; * is any text, *[file] a name without /, *[path]
a path, *[a-z,0-9] a run of those characters (e.g. "-*.gif" "+*/docs/*").`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "O", Usage: "keep a browsable mirror and its cache in `DIR` (updated when it exists)"},
			&cli.StringFlag{Name: "format", Value: "arc", Usage: "stream format: arc or warc"},
			&cli.StringFlag{Name: "o", Usage: "write the stream to `FILE` instead of stdout"},
			&cli.IntFlag{Name: "c", Value: 4, Usage: "simultaneous connections, in total and per host"},
			&cli.Float64Flag{Name: "rate", Usage: "at most `R` requests per second to each host (0: no limit)"},
			&cli.StringFlag{Name: "max-rate", Usage: "bandwidth cap in `BYTES` per second (suffixes k, m: 500k)"},
			&cli.IntFlag{Name: "r", Value: -1, Usage: "depth: follow at most `N` links from a start URL (-1: unlimited)"},
			&cli.IntFlag{Name: "ext-depth", Usage: "follow links out of scope `N` hops"},
			&cli.StringFlag{Name: "scope", Value: "prefix", Usage: "prefix (start URL's directory), host, domain or any"},
			&cli.StringSliceFlag{Name: "filter", Usage: "scan rule `RULE`: +PATTERN or -PATTERN (also given as a bare argument)"},
			&cli.StringFlag{Name: "robots", Value: "on", Usage: "obey robots.txt: on or off"},
			&cli.StringFlag{Name: "user-agent", Value: crawl.DefaultUserAgent(), Usage: "User-Agent `STRING`", DefaultText: "mirrorget/VERSION (+https://github.com/arcport/arcport)"},
			&cli.StringSliceFlag{Name: "header", Usage: "extra request field `\"Name: value\"` (repeatable)"},
			&cli.StringFlag{Name: "cookies", Usage: "Netscape cookies.txt `FILE` to send cookies from"},
			&cli.StringFlag{Name: "proxy", Usage: "http proxy `URL` (http://[user:pass@]host:port; the password is sent as Proxy-Authorization and recorded redacted)"},
			&cli.StringFlag{Name: "http-user", Usage: "HTTP Basic authentication `USER` for the start URLs' origins (scheme, host and port) only"},
			&cli.StringFlag{Name: "http-password", Usage: "HTTP Basic authentication `PASSWORD` (with --http-user; visible to other users in ps: prefer --netrc); never written to any output: request records hold \"Authorization: Basic [redacted]\""},
			&cli.StringFlag{Name: "netrc", Usage: "read credentials for the start URLs' hosts from the netrc `FILE` (machine/default, login, password), sent to the start URLs' origins only"},
			&cli.DurationFlag{Name: "timeout", Value: 30 * time.Second, Usage: "connect and idle timeout (HTTrack -T)"},
			&cli.StringFlag{Name: "min-rate", Value: strconv.Itoa(crawl.DefaultMinRate), Usage: "traffic jam control (HTTrack -J): cut a transfer bringing less than `BYTES` per second over a --timeout period (suffixes k, m; 0: off)"},
			&cli.DurationFlag{Name: "max-request-time", Value: crawl.DefaultMaxRequestTime, Usage: "cut a request lasting longer than `DURATION` from its sending, whatever its rate (0: no limit; --max-time bounds the whole crawl)"},
			&cli.IntFlag{Name: "retries", Value: 2, Usage: "retries after network errors, 429 and 5xx"},
			&cli.StringFlag{Name: "max-size", Value: "1g", Usage: "truncate response bodies after `BYTES` (suffixes k, m, g; 0: no limit); a cut record is marked WARC-Truncated: length"},
			&cli.StringFlag{Name: "max-size-html", Usage: "truncate HTML pages after `BYTES`, as --max-size does every body (HTTrack -mN,N2's N2; the smaller limit applies)"},
			&cli.StringFlag{Name: "max-size-other", Usage: "truncate every body but HTML pages after `BYTES` (HTTrack -mN's N)"},
			&cli.StringFlag{Name: "min-size", Usage: "do not write successful responses whose body is smaller than `BYTES` (nor follow their links), shown with -v"},
			&cli.StringSliceFlag{Name: "accept-mime", Usage: "write only successful responses whose Content-Type matches `PATTERN` (text/html, image/*; repeatable): the others are not written nor their links followed, shown with -v; links are in pages, so add text/html to go past the start URLs"},
			&cli.StringSliceFlag{Name: "reject-mime", Usage: "do not write responses whose Content-Type matches `PATTERN` (image/*; repeatable), nor follow their links; rejecting text/html stops the crawl at the start URLs"},
			&cli.StringFlag{Name: "input-file", Aliases: []string{"i"}, Usage: "read start URLs from `FILE`, one a line (blank lines and # comments ignored; - for stdin; also s3:// or https://), besides the arguments"},
			&cli.StringFlag{Name: "max-time", Usage: "stop the crawl after `DURATION` (90s, 1h30m, or seconds; HTTrack -E): fetches under way are cut, the output is closed whole, exit 0"},
			&cli.IntFlag{Name: "max-pages", Usage: "stop the crawl after `N` captures (responses of any status written; robots.txt not counted), exit 0"},
			&cli.StringFlag{Name: "max-bytes", Usage: "stop the crawl once `BYTES` of responses were received (HTTrack -M, wget --quota): no fetch starts then, those under way finish, exit 0"},
			&cli.StringFlag{Name: "max-robots-size", Value: "500k", Usage: "receive and read at most `BYTES` of a robots.txt and obey the rules read up to there (RFC 9309 allows 500 KiB)"},
			&cli.IntFlag{Name: "max-url-length", Value: crawl.DefaultTraps.MaxURLLength, Usage: "do not follow links whose URL is longer than `N` bytes, reported with -v (0: no limit)"},
			&cli.IntFlag{Name: "max-segment-repeat", Value: crawl.DefaultTraps.MaxRepeat, Usage: "link-trap guard: do not follow links whose path holds one segment more than `N` times, reported with -v (0: no limit)"},
			&cli.IntFlag{Name: "max-path-segments", Value: crawl.DefaultTraps.MaxSegments, Usage: "link-trap guard: do not follow links whose path has more than `N` segments, reported with -v (0: no limit)"},
			&cli.IntFlag{Name: "max-redirects", Value: 10, Usage: "follow at most `N` redirects in a row (HTTP 3xx and meta refresh) from a URL, reported with -v (0: follow none)"},
			&cli.StringFlag{Name: "max-parse", Value: "64m", Usage: "read at most `BYTES` of a decoded page for links and keep a content-coded body decoded in the mirror only up to there (never more than --max-size)"},
			&cli.StringFlag{Name: "follow-redirects", Value: "in-scope", Usage: "in-scope, all or none"},
			&cli.StringFlag{Name: "state", Usage: "keep the crawl's state (queue, seen URLs, hosts) in `DIR` as it runs, so that --continue carries on after a stop or a crash (with -O: DIR/hts-cache)"},
			&cli.BoolFlag{Name: "continue", Usage: "carry on the crawl kept by --state or -O (HTTrack's --continue): no URL already written is fetched again"},
			&cli.StringFlag{Name: "frontier", Usage: "share the crawl with other workers through the Redis server at `URL` (redis://[:PASSWORD@]HOST:PORT/DB)"},
			&cli.StringFlag{Name: "crawl-id", Usage: "with --frontier: the crawl's `NAME` (its keys in Redis are under {NAME}:)"},
			&cli.DurationFlag{Name: "lease", Value: frontier.DefaultLease, Usage: "with --frontier or --state: a taken URL returns to the queue if its worker is silent for `DURATION`"},
			&cli.StringFlag{Name: "worker", Usage: "this worker's `NAME` in leases and file names", DefaultText: "HOST-PID"},
			&cli.StringFlag{Name: "warc-dir", Usage: "write the captures to files in `DIR`, PREFIX-TIMESTAMP-SERIAL-WORKER.warc.gz each with a .cdxj beside it, rotated at --warc-max-size"},
			&cli.StringFlag{Name: "warc-prefix", Usage: "file name `PREFIX` for --warc-dir", DefaultText: "the crawl id, else mirrorget"},
			&cli.StringFlag{Name: "warc-max-size", Value: "1g", Usage: "start a new --warc-dir file past `BYTES` (suffixes k, m, g)"},
			&cli.DurationFlag{Name: "warc-max-age", Value: time.Minute, Usage: "with --warc-dir s3://: complete a file after `DURATION` (a capture is durable, and its URL done, only once its object is complete)"},
			&cli.StringFlag{Name: "dedup-index", Usage: "with --format warc: a capture whose payload digest is that of a capture in the CDXJ `FILE` (or of an earlier one of this crawl; with --frontier, of any worker's) is written as an identical-payload-digest revisit"},
			&cli.IntFlag{Name: "max-connections", Usage: "this worker's connections in total (`N`): -c then bounds each host", DefaultText: "-c"},
			&cli.GenericFlag{Name: "purge", Aliases: []string{"X", "purge-old"}, Value: &onOff{on: true}, DefaultText: "on",
				Usage: "with -O, an update removes the files of the previous run no longer on the site (404/410, not linked) and lists them in DIR/hts-log.txt, as HTTrack's -X; `off` (-X0) keeps them"},
			&cli.BoolFlag{Name: "status", Usage: "print the counters of the crawl named by --frontier/--crawl-id, --state or -O, and exit"},
			&cli.BoolFlag{Name: "stop", Usage: "ask every worker of that crawl to finish what it fetches and exit, and exit"},
			&cli.BoolFlag{Name: "q", Usage: "quiet: no progress, no warnings"},
			&cli.BoolFlag{Name: "v", Usage: "verbose: one line per capture on stderr; with --status, every host"},
		}, browserFlags()...),
		Action: action,
	}
}

// ParseSize parses a byte count with an optional k, m or g suffix (powers
// of 1024).
func ParseSize(s string) (int64, error) {
	s = strings.TrimSpace(strings.ToLower(s))
	s = strings.TrimSuffix(s, "b")
	mult := int64(1)
	switch {
	case strings.HasSuffix(s, "k"):
		mult, s = 1<<10, s[:len(s)-1]
	case strings.HasSuffix(s, "m"):
		mult, s = 1<<20, s[:len(s)-1]
	case strings.HasSuffix(s, "g"):
		mult, s = 1<<30, s[:len(s)-1]
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("bad size %q", s)
	}
	return n * mult, nil
}

// Options are mirrorget's settings once the flags are read.
type Options struct {
	Crawl    crawl.Config
	Format   string // arc or warc
	Output   string // file, "" for stdout
	Mirror   string // -O DIR
	Quiet    bool
	Verbose  bool
	Progress bool

	State       string        // --state DIR
	Continue    bool          // --continue
	Frontier    string        // --frontier redis://...
	CrawlID     string        // --crawl-id
	Lease       time.Duration // --lease
	Worker      string        // --worker
	WarcDir     string        // --warc-dir
	WarcPrefix  string        // --warc-prefix
	WarcMaxSize int64         // --warc-max-size
	WarcMaxAge  time.Duration // --warc-max-age
	PerHost     int           // -c
	DedupIndex  string        // --dedup-index
	Status      bool          // --status
	Stop        bool          // --stop
	NoPurge     bool          // --purge=off (HTTrack -X0): an update keeps the files no longer on the site

	Browser *BrowserOptions // --browser (nil without it)

	maxBytes string // --max-bytes as given, for messages
}

func options(c *cli.Context) (*Options, error) {
	o := &Options{Format: strings.ToLower(c.String("format")), Output: c.String("o"), Mirror: c.String("O"),
		Quiet: c.Bool("q"), Verbose: c.Bool("v")}
	if o.Format != "arc" && o.Format != "warc" {
		return nil, cliutil.Usagef("bad --format %q (want arc or warc)", o.Format)
	}
	o.State, o.Continue, o.Frontier, o.CrawlID = c.String("state"), c.Bool("continue"), c.String("frontier"), c.String("crawl-id")
	o.Lease, o.Worker, o.WarcDir, o.Status, o.Stop = c.Duration("lease"), c.String("worker"), c.String("warc-dir"), c.Bool("status"), c.Bool("stop")
	o.WarcPrefix, o.WarcMaxAge = c.String("warc-prefix"), c.Duration("warc-max-age")
	if v, ok := c.Generic("purge").(*onOff); ok {
		o.NoPurge = !v.on
	}
	o.DedupIndex = c.String("dedup-index")
	if o.DedupIndex != "" && o.Format != "warc" {
		return nil, cliutil.Usagef("--dedup-index writes revisit records: it needs --format warc")
	}
	if !c.IsSet("warc-prefix") {
		o.WarcPrefix = "mirrorget" // --warc-prefix's DefaultText
		if o.CrawlID != "" {
			o.WarcPrefix = o.CrawlID
		}
	}
	if strings.ContainsAny(o.WarcPrefix+o.Worker, "/\\") || o.WarcPrefix == "" {
		return nil, cliutil.Usagef("--warc-prefix and --worker must be plain names")
	}
	var err error
	if o.WarcMaxSize, err = ParseSize(c.String("warc-max-size")); err != nil || o.WarcMaxSize == 0 {
		return nil, cliutil.Usagef("--warc-max-size: bad size %q", c.String("warc-max-size"))
	}
	if o.Lease < time.Second {
		return nil, cliutil.Usagef("--lease must be at least 1s")
	}
	switch {
	case o.Frontier != "" && !strings.HasPrefix(o.Frontier, "redis://") && !strings.HasPrefix(o.Frontier, "rediss://"):
		return nil, cliutil.Usagef("--frontier: want redis://HOST:PORT/DB")
	case o.Frontier != "" && o.CrawlID == "":
		return nil, cliutil.Usagef("--frontier needs --crawl-id NAME")
	case o.Frontier != "" && o.State != "":
		return nil, cliutil.Usagef("--frontier and --state: the crawl's state is in one or the other")
	case o.Continue && o.State == "" && o.Mirror == "" && o.Frontier == "":
		return nil, cliutil.Usagef("--continue needs the state of the crawl: --state DIR or -O DIR")
	case (o.Status || o.Stop) && o.State == "" && o.Mirror == "" && o.Frontier == "":
		return nil, cliutil.Usagef("--status and --stop need --frontier and --crawl-id, --state DIR or -O DIR")
	case o.WarcDir != "" && o.Output != "":
		return nil, cliutil.Usagef("-o and --warc-dir: one output or the other")
	case o.Frontier != "" && o.Mirror != "":
		return nil, cliutil.Usagef("-O and --frontier: a mirror is one machine's; workers write --warc-dir")
	}
	cfg := crawl.DefaultConfig()
	cfg.Seeds = c.Args().Slice()
	if f := c.String("input-file"); f != "" {
		urls, err := readInputFile(f)
		if err != nil {
			return nil, err
		}
		cfg.Seeds = append(cfg.Seeds, urls...)
	}
	if len(cfg.Seeds) == 0 && !o.Status && !o.Stop {
		return nil, cliutil.Usagef("no start URL")
	}
	// credentials come off the start URLs before anything else sees them
	seedCreds := make([]*crawl.Credential, len(cfg.Seeds))
	for i, s := range cfg.Seeds {
		if !strings.Contains(s, "://") {
			s = "http://" + s // as HTTrack and wget accept
		}
		clean, cred, ok := crawl.StripUserinfo(s)
		cfg.Seeds[i] = clean
		if ok {
			seedCreds[i] = &cred
		}
	}
	if cfg.Auth, err = credentials(c, cfg.Seeds, seedCreds); err != nil {
		return nil, err
	}
	if cfg.Scope, err = crawl.ParseScopeMode(c.String("scope")); err != nil {
		return nil, cliutil.Usagef("%v", err)
	}
	if cfg.Filters, err = crawl.ParseFilters(c.StringSlice("filter")); err != nil {
		return nil, cliutil.Usagef("%v", err)
	}
	if cfg.Redirects, err = crawl.ParseRedirectPolicy(c.String("follow-redirects")); err != nil {
		return nil, cliutil.Usagef("%v", err)
	}
	switch strings.ToLower(c.String("robots")) {
	case "on", "yes", "true", "1":
		cfg.Robots = true
	case "off", "no", "false", "0":
		cfg.Robots = false
	default:
		return nil, cliutil.Usagef("bad --robots %q (want on or off)", c.String("robots"))
	}
	cfg.Connections = c.Int("c")
	if cfg.Connections < 1 {
		return nil, cliutil.Usagef("-c must be at least 1")
	}
	o.PerHost = cfg.Connections
	if c.IsSet("max-connections") {
		n := c.Int("max-connections")
		if n < 1 {
			return nil, cliutil.Usagef("--max-connections must be at least 1")
		}
		cfg.Connections, cfg.PerHost = n, min(n, o.PerHost)
	}
	cfg.Rate = c.Float64("rate")
	if cfg.Rate < 0 {
		return nil, cliutil.Usagef("--rate must not be negative")
	}
	if s := c.String("max-rate"); s != "" {
		if cfg.MaxRate, err = ParseSize(s); err != nil {
			return nil, cliutil.Usagef("--max-rate: %v", err)
		}
	}
	if cfg.MaxSize, err = ParseSize(c.String("max-size")); err != nil {
		return nil, cliutil.Usagef("--max-size: %v", err)
	}
	if err := filterOptions(c, o, &cfg); err != nil {
		return nil, err
	}
	if cfg.MaxRobotsSize, err = ParseSize(c.String("max-robots-size")); err != nil || cfg.MaxRobotsSize == 0 {
		return nil, cliutil.Usagef("--max-robots-size: bad size %q", c.String("max-robots-size"))
	}
	// Traps: 0 on the command line is no limit, which Traps spells -1
	for _, b := range []struct {
		flag string
		v    *int
	}{{"max-url-length", &cfg.Traps.MaxURLLength}, {"max-segment-repeat", &cfg.Traps.MaxRepeat}, {"max-path-segments", &cfg.Traps.MaxSegments}} {
		switch n := c.Int(b.flag); {
		case n < 0:
			return nil, cliutil.Usagef("--%s must not be negative", b.flag)
		case n == 0:
			*b.v = -1
		default:
			*b.v = n
		}
	}
	switch n := c.Int("max-redirects"); {
	case n < 0:
		return nil, cliutil.Usagef("--max-redirects must not be negative")
	case n == 0:
		cfg.Redirects = crawl.RedirectsNone
	default:
		cfg.MaxRedirects = n
	}
	if cfg.MaxParse, err = ParseSize(c.String("max-parse")); err != nil || cfg.MaxParse == 0 {
		return nil, cliutil.Usagef("--max-parse: bad size %q", c.String("max-parse"))
	}
	cfg.MaxDepth = c.Int("r")
	cfg.ExtDepth = c.Int("ext-depth")
	if cfg.ExtDepth < 0 {
		return nil, cliutil.Usagef("--ext-depth must not be negative")
	}
	cfg.UserAgent = c.String("user-agent")
	for _, h := range c.StringSlice("header") {
		name, value, ok := strings.Cut(h, ":")
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if !ok || name == "" || strings.ContainsAny(name, " \t") || strings.ContainsAny(value, "\r\n") {
			return nil, cliutil.Usagef("bad --header %q (want \"Name: value\")", h)
		}
		cfg.Header = append(cfg.Header, record.Field{Name: name, Value: value})
	}
	if p := c.String("proxy"); p != "" {
		if !strings.Contains(p, "://") {
			p = "http://" + p
		}
		u, err := url.Parse(p)
		if err != nil || u.Scheme != "http" || u.Host == "" {
			shown, _, _ := crawl.StripUserinfo(p) // never print the proxy's password
			return nil, cliutil.Usagef("bad --proxy %q (want http://host:port)", shown)
		}
		cfg.Proxy = u
	}
	if f := c.String("cookies"); f != "" {
		r, name, err := cliutil.OpenInput(f)
		if err != nil {
			return nil, err
		}
		cfg.Jar = crawl.NewJar()
		err = crawl.LoadCookies(cfg.Jar, r, name)
		r.Close()
		if err != nil {
			return nil, err
		}
	}
	cfg.Timeout = c.Duration("timeout")
	if cfg.MinRate, err = ParseSize(c.String("min-rate")); err != nil {
		return nil, cliutil.Usagef("--min-rate: %v", err)
	}
	switch d := c.Duration("max-request-time"); {
	case d < 0:
		return nil, cliutil.Usagef("--max-request-time must not be negative")
	case d == 0:
		cfg.MaxRequestTime = -1 // no limit
	default:
		cfg.MaxRequestTime = d
	}
	cfg.Retries = c.Int("retries")
	if cfg.Retries < 0 {
		return nil, cliutil.Usagef("--retries must not be negative")
	}
	if o.Browser, err = browserOptions(c); err != nil {
		return nil, err
	}
	o.Crawl = cfg
	o.Progress = !o.Quiet && cliutil.IsTerminal(os.Stderr)
	return o, nil
}

// credentials returns the credentials sent to the origins of the start
// URLs seeds: a start URL's own userinfo (creds[i]), else --http-user and
// --http-password, else the --netrc entry of the host; a password missing
// from the first two is looked up in the netrc file for that login.
func credentials(c *cli.Context, seeds []string, creds []*crawl.Credential) (map[string]crawl.Credential, error) {
	var nrc *crawl.Netrc
	if f := c.String("netrc"); f != "" {
		r, name, err := cliutil.OpenInput(f)
		if err != nil {
			return nil, err
		}
		nrc, err = crawl.ParseNetrc(r, name)
		r.Close()
		if err != nil {
			return nil, err
		}
	}
	flagUser, flagPass := c.String("http-user"), c.String("http-password")
	auth := map[string]crawl.Credential{}
	for i, s := range seeds {
		u, err := crawl.CanonicalURL(s)
		if err != nil {
			continue // crawl.New reports it
		}
		origin := crawl.Origin(u)
		if _, done := auth[origin]; done {
			continue
		}
		var cred crawl.Credential
		switch {
		case creds[i] != nil:
			cred = *creds[i]
			if cred.Password == "" {
				cred.Password = flagPass
			}
		case c.IsSet("http-user") || c.IsSet("http-password"):
			cred = crawl.Credential{User: flagUser, Password: flagPass}
		case nrc != nil:
			if nc, ok := nrc.Lookup(u.Hostname(), ""); ok {
				auth[origin] = nc
			}
			continue
		default:
			continue
		}
		if cred.Password == "" && nrc != nil {
			if nc, ok := nrc.Lookup(u.Hostname(), cred.User); ok {
				cred.Password = nc.Password
			}
		}
		auth[origin] = cred
	}
	return auth, nil
}

func action(c *cli.Context) error {
	o, err := options(c)
	if err != nil {
		return err
	}
	ctx, stop := notifySignals(c.Context)
	defer stop()
	return Run(ctx, o, os.Stdout, os.Stderr)
}

// signalCause is the cause of a context cancelled by a signal; it unwraps
// to context.Canceled.
type signalCause struct{ sig os.Signal }

func (s *signalCause) Error() string { return "interrupted by " + s.sig.String() }
func (s *signalCause) Unwrap() error { return context.Canceled }

// partialOutput removes the -o temporary file (or aborts the s3:// upload)
// while Run writes it; a second signal calls it before exiting.
var partialOutput atomic.Pointer[func()]

// notifySignals returns a context cancelled, with a *signalCause, by the
// first SIGINT or SIGTERM. After that signal the crawl winds down cleanly
// (within a second or so: fetches are cut, a record being written is
// dropped); a second signal exits at once, with status 130 or 143, after
// removing the partial -o file (a wind-down can be stuck writing to a
// pipe nobody reads).
func notifySignals(parent context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-sigs:
			cancel(&signalCause{s})
		case <-done:
			return
		}
		select {
		case s := <-sigs:
			if p := partialOutput.Load(); p != nil {
				(*p)()
			}
			fmt.Fprintf(os.Stderr, "mirrorget: %v again: stopped at once\n", s)
			if s == syscall.SIGTERM {
				os.Exit(143)
			}
			os.Exit(130)
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel(nil)
	}
}

// exitStatus is the status of a run interrupted with ctx's cancellation:
// 143 for SIGTERM, 130 for SIGINT or any other cancellation, as a shell
// reports 128+signal (the convention of lib/internal/cliutil).
func exitStatus(ctx context.Context) int {
	var sc *signalCause
	if errors.As(context.Cause(ctx), &sc) && sc.sig == syscall.SIGTERM {
		return 143
	}
	return 130
}

// Run crawls with o, writing the stream to stdout (unless o.Output names a
// file) and messages to stderr. A cancelled ctx (Ctrl-C) ends the crawl
// cleanly: fetches under way are cut, a capture being written is dropped
// whole (see stream), the stream holds complete records only and the mirror's pages
// are rewritten; Run then returns an ExitError with status 130, or 143 when
// the cancellation's cause is SIGTERM (see notifySignals).
func Run(ctx context.Context, o *Options, stdout, stderr io.Writer) error {
	logf := func(format string, a ...any) {
		if !o.Quiet {
			fmt.Fprintf(stderr, "mirrorget: "+format+"\n", a...)
		}
	}
	if o.Status || o.Stop {
		return statusOrStop(ctx, o, stdout)
	}
	// The crawl's state: in Redis, in --state DIR or DIR/hts-cache, or
	// (a plain stream) in memory.
	var fr frontier.Frontier
	var freshState bool
	if o.Frontier != "" || (o.stateDir() != "" && checkStateDir(o) == nil) {
		// (a mirror whose hts-cache is refused keeps no cache and no
		// state; openMirror reports it)
		f, fresh, err := openFrontier(ctx, o)
		if err != nil {
			return err
		}
		defer func() {
			if fr != nil {
				fr.Close()
			}
		}()
		fr, freshState = f, fresh
		if o.Continue && fresh {
			logf("--continue: no crawl kept in %s: starting one", o.stateDir())
		}
		o.Crawl.Frontier, o.Crawl.Worker, o.Crawl.Lease, o.Crawl.Logf = f, o.Worker, o.Lease, logf
		if o.Crawl.Worker == "" {
			o.Crawl.Worker = crawl.DefaultWorker()
		}
	}
	resumable := fr != nil && o.Frontier == ""
	rec := recovered{}
	var rot *rotator
	if o.WarcDir != "" {
		remote := cliutil.IsRemote(o.WarcDir)
		switch {
		case remote && !strings.HasPrefix(o.WarcDir, "s3://"):
			return cliutil.Usagef("--warc-dir %s: a folder or an s3:// prefix", store.Redact(o.WarcDir))
		case remote && !strings.HasSuffix(o.WarcDir, "/"):
			o.WarcDir += "/"
		case !remote:
			if err := os.MkdirAll(o.WarcDir, 0o755); err != nil {
				return err
			}
		}
		rot = &rotator{ctx: ctx, dir: o.WarcDir, remote: remote, prefix: o.WarcPrefix, worker: o.Crawl.Worker, format: o.Format,
			max: o.WarcMaxSize, maxAge: o.WarcMaxAge, idle: 2 * time.Second, cfg: &o.Crawl, logf: logf}
		if rot.worker == "" {
			rot.worker = crawl.DefaultWorker()
		}
		if err := rot.recoverOpen(rec); err != nil {
			return err
		}
	}
	var out io.Writer = stdout
	var file *os.File
	var tmpName string
	var upload store.Writer // -o s3://: completed at the end, also after a signal
	var tail *tailfile.File // the stream's output in front of the upload
	var stOut outFile       // file or tail
	switch {
	case cliutil.IsRemote(o.Output) && fr != nil:
		return cliutil.Usagef("-o %s with --state, -O or --frontier: an object is written only when whole, so a crawl that can stop half way writes to --warc-dir s3://PREFIX/ (files completed as it goes)", store.Redact(o.Output))
	case cliutil.IsRemote(o.Output):
		w, err := cliutil.Store().Create(context.Background(), o.Output)
		if err != nil {
			return err
		}
		upload, tail = w, tailfile.New(w, 8<<20, "")
		out, stOut = tail, tail
		abort := func() { w.Abort() }
		partialOutput.Store(&abort)
		defer partialOutput.Store(nil)
		defer w.Abort() // no-op after Commit
	case rot != nil:
		out = nil
	case o.Output != "" && o.Output != "-" && fr != nil:
		// a resumable crawl writes -o to .NAME.part, which a --continue
		// after a kill cuts back to its last whole capture and keeps
		part := partName(o.Output)
		if _, err := os.Lstat(part); err == nil {
			if !o.Continue {
				return fmt.Errorf("%s: left by a crawl that did not finish: add --continue (or remove it)", part)
			}
			cut, err := recoverFile(part, o.Format, rec)
			if err != nil {
				return fmt.Errorf("%s: %w", part, err)
			}
			kept := numbered(o.Output)
			if err := os.Rename(part, kept); err != nil {
				return err
			}
			logf("%s: the stopped run's output, kept up to its last whole capture (%d bytes cut)", kept, cut)
		}
		f, err := os.OpenFile(part, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return err
		}
		file, tmpName, out, stOut = f, part, f, f
		if err := syncDir(filepath.Dir(part)); err != nil {
			return err
		}
	case o.Output != "" && o.Output != "-":
		dir := filepath.Dir(o.Output)
		f, err := os.CreateTemp(dir, "."+filepath.Base(o.Output)+".tmp-*")
		if err != nil {
			return err
		}
		file, tmpName, out, stOut = f, f.Name(), f, f
		remove := func() { os.Remove(tmpName) }
		partialOutput.Store(&remove)
		defer partialOutput.Store(nil)
	case o.Mirror != "" && isTerminal(stdout):
		out = nil // a mirror only: no binary stream to a terminal
	case isTerminal(stdout):
		return cliutil.Usagef("refusing to write %s to a terminal: use -o FILE, a pipe, or -O DIR", strings.ToUpper(o.Format))
	}
	var st *stream
	if out != nil {
		name := "mirrorget." + o.Format
		if o.Output != "" && o.Output != "-" {
			name = filepath.Base(o.Output)
		}
		st = newStream(ctx, out, stOut, o.Format, name, &o.Crawl)
	}
	var mir *localMirror
	if o.Mirror != "" {
		var err error
		mir, err = openMirror(o.Mirror, &o.Crawl, logf, o.Continue && !freshState)
		if err != nil {
			return err
		}
		mir.ctx, mir.noPurge = ctx, o.NoPurge
		mir.warc = o.Format == "warc" && (st != nil || rot != nil)
		o.Crawl.Validators = mir.validators
		if o.Browser != nil {
			o.Crawl.Validators = mir.browserValidators
		}
		o.Crawl.Extract = mir.extract
		o.Crawl.Prepare = mir.prepare
	}
	if o.Verbose {
		o.Crawl.OnSkip = func(u, reason string) { fmt.Fprintf(stderr, "skip %s (%s)\n", u, reason) }
	}
	var firstFetchErr string      // the first network error, for the exit reason
	filtered := map[string]bool{} // links refused by a scan rule, shown once with -v
	sink := crawl.SinkFunc(func(cp *crawl.Capture) error {
		if cp.Err != nil && firstFetchErr == "" {
			firstFetchErr = fmt.Sprintf("%s: %v", cp.URL, cp.Err)
		}
		if !o.Quiet {
			if cp.Err != nil {
				fmt.Fprintf(stderr, "mirrorget: %s: %v\n", cp.URL, cp.Err)
			}
			for _, w := range cp.Warnings {
				fmt.Fprintf(stderr, "mirrorget: %s: %s\n", cp.URL, w)
			}
		}
		if o.Verbose {
			fmt.Fprintf(stderr, "%d %s %d %s\n", cp.Status(), cp.MIME(), sizeOf(cp), cp.URL)
			for _, l := range cp.Links {
				// links refused by a cap or a scan rule: the other
				// refusals (scope, depth) are the crawl's shape
				switch {
				case strings.HasPrefix(l.Reason, "filter "):
					if filtered[l.Canonical] {
						continue
					}
					filtered[l.Canonical] = true
				case strings.HasPrefix(l.Reason, "trap: ") || l.Reason == "too many redirects":
				default:
					continue
				}
				fmt.Fprintf(stderr, "skip %s (%s)\n", shorten(l.Canonical, 200), l.Reason)
			}
		}
		if rot != nil {
			if err := rot.write(cp); err != nil {
				return err
			}
		}
		if st != nil {
			if err := st.write(cp); err != nil {
				if mir != nil {
					mir.discard(cp)
				}
				return err
			}
		}
		if mir != nil {
			if err := mir.save(cp); err != nil {
				return err
			}
			if err := mir.saveRendered(cp); err != nil {
				return err
			}
		}
		rendered.Delete(cp) // written (or not to be)
		return nil
	})
	// deduplication by payload digest across URLs: --dedup-index, and
	// the Redis frontier's digests shared by all workers
	if o.Format == "warc" && (st != nil || rot != nil) && (o.DedupIndex != "" || o.Frontier != "") {
		base, err := loadDedupIndex(o.DedupIndex)
		if err != nil {
			return err
		}
		var dd deduper = base
		if r, ok := fr.(*frontier.Redis); ok {
			dd = &redisDedup{r: r, base: base}
		}
		prev := o.Crawl.Prepare
		o.Crawl.Prepare = func(cp *crawl.Capture) error {
			if prev != nil {
				if err := prev(cp); err != nil {
					return err
				}
			}
			return dedupPrepare(ctx, dd, cp)
		}
	}
	if fr != nil {
		if len(rec) > 0 {
			o.Crawl.Recovered = rec.has
		}
		if rot != nil && rot.remote {
			// an S3 file is durable when complete: the workers go on
			// meanwhile, and each file's URLs are done once it is
			o.Crawl.CommitAsync, o.Crawl.Epoch, o.Crawl.Durable = true, rot.epoch, rot.durable
		}
		o.Crawl.Commit = func(final bool) error {
			switch {
			case rot != nil:
				return rot.commit()
			case mir != nil && mir.cacheF != nil:
				return syncFS(mir.cacheF) // the mirror and a stream beside it
			case file != nil:
				return file.Sync()
			}
			return nil
		}
	}
	if o.Browser != nil {
		defer startBrowser(o, stderr)()
	}
	cr, err := crawl.New(o.Crawl, sink)
	if err != nil {
		return cliutil.Usagef("%v", err)
	}
	var prog *progress
	if o.Progress {
		prog = startProgress(cr, stderr)
	}
	runErr := cr.Run(ctx)
	if prog != nil {
		prog.stop()
	}
	interrupted := errors.Is(runErr, context.Canceled) && ctx.Err() != nil
	if interrupted {
		runErr = nil
	}
	var limit *crawl.LimitError
	if errors.As(runErr, &limit) {
		runErr = nil // a clean end: the output is whole, the state kept
	}
	var firstErr error
	keep := func(err error) {
		if err != nil && firstErr == nil {
			firstErr = err
		}
	}
	keep(runErr)
	if mir != nil {
		// an update purges only after a crawl that ran to its end (not
		// stopped by a signal, --stop or a --max-* limit)
		complete := runErr == nil && !interrupted && limit == nil
		if complete && fr != nil {
			over, err := fr.Over(context.Background())
			complete = err == nil && over
		}
		keep(mir.finish(complete))
	}
	if st != nil {
		keep(st.close())
	}
	if rot != nil {
		keep(rot.close())
	}
	if file != nil {
		keep(file.Sync())
		keep(file.Chmod(0o644))
		keep(file.Close())
		final := o.Output
		if fr != nil {
			final = numbered(o.Output)
		}
		if err := os.Rename(tmpName, final); err != nil {
			os.Remove(tmpName)
			keep(err)
		}
	}
	if resumable && o.Mirror != "" && o.State == "" && firstErr == nil && !interrupted {
		// the mirror is whole: the next run over it is an update
		if over, err := fr.Over(context.Background()); err == nil && over {
			fr.Close()
			fr = nil
			keep(os.Remove(filepath.Join(o.stateDir(), frontier.BoltFile)))
		}
	}
	if lost := cr.LostLeases(); lost > 0 && !o.Quiet {
		logf("%d URL(s) kept longer than --lease %v: another worker may have fetched them too", lost, o.Lease)
	}
	if upload != nil {
		// as for a file: a crawl cut by a signal is kept (whole records)
		keep(tail.Close())
		if firstErr == nil {
			keep(upload.Commit())
		}
	}
	s := cr.Stats()
	if !o.Quiet && (o.Verbose || interrupted) {
		fmt.Fprintf(stderr, "mirrorget: %d captures (%d failed), %d bytes in %v\n", s.Done, s.Failed, s.Bytes, time.Since(s.Started).Round(time.Millisecond))
	}
	if limit != nil && !o.Quiet {
		msg := limitMessage(o, limit.Limit, s)
		if resumable {
			msg += "; --continue carries the crawl on"
		}
		logf("%s", msg)
	}
	if firstErr != nil {
		return firstErr
	}
	if !interrupted && s.Done > 0 && s.Failed == s.Done {
		// as wget's status 4: not one URL could be fetched
		return fmt.Errorf("no URL could be fetched (%d network errors; first: %s)", s.Failed, firstFetchErr)
	}
	if interrupted {
		return &cliutil.ExitError{Code: exitStatus(ctx), Msg: fmt.Sprintf("mirrorget: interrupted after %d captures; the stream holds complete records only", s.Done)}
	}
	return nil
}

// shorten cuts s to n bytes at most, marking the cut with "...".
func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-3] + "..."
}

func sizeOf(cp *crawl.Capture) int64 {
	if cp.Response == nil {
		return 0
	}
	return cp.Response.Size()
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && cliutil.IsTerminal(f)
}
