package mirrorget

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/arcport/arcport/lib/crawl"
	"github.com/arcport/arcport/lib/internal/cliutil"
)

// filterOptions reads the flags of the filters on content and the crawl
// limits into cfg: --accept-mime, --reject-mime, --max-size-html,
// --max-size-other, --min-size, --max-time, --max-pages, --max-bytes.
func filterOptions(c *cli.Context, o *Options, cfg *crawl.Config) error {
	for _, f := range []struct {
		flag string
		to   *[]string
	}{{"accept-mime", &cfg.AcceptMIME}, {"reject-mime", &cfg.RejectMIME}} {
		for _, p := range c.StringSlice(f.flag) {
			q, err := crawl.ParseMIMEPattern(p)
			if err != nil {
				return cliutil.Usagef("--%s: %v", f.flag, err)
			}
			*f.to = append(*f.to, q)
		}
	}
	for _, f := range []struct {
		flag string
		to   *int64
	}{{"max-size-html", &cfg.MaxSizeHTML}, {"max-size-other", &cfg.MaxSizeOther}, {"min-size", &cfg.MinSize}, {"max-bytes", &cfg.MaxBytes}} {
		if v := c.String(f.flag); v != "" {
			n, err := ParseSize(v)
			if err != nil {
				return cliutil.Usagef("--%s: %v", f.flag, err)
			}
			*f.to = n
		}
	}
	o.maxBytes = c.String("max-bytes")
	if v := c.String("max-time"); v != "" {
		d, err := parseMaxTime(v)
		if err != nil {
			return cliutil.Usagef("--max-time: %v", err)
		}
		cfg.MaxTime = d
	}
	if cfg.MaxPages = c.Int("max-pages"); cfg.MaxPages < 0 {
		return cliutil.Usagef("--max-pages must not be negative")
	}
	return nil
}

// parseMaxTime reads a duration as Go writes it (90s, 1h30m) or a number
// of seconds, as HTTrack's -E takes it.
func parseMaxTime(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n < 0 || n > 1<<33 {
			return 0, fmt.Errorf("bad duration %q", s)
		}
		return time.Duration(n) * time.Second, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("bad duration %q (want 90s, 1h30m or seconds)", s)
	}
	return d, nil
}

// readInputFile reads the start URLs of --input-file (-i): a local file,
// "-" for stdin, or an s3:// or https:// object (cliutil.OpenInput).
func readInputFile(name string) ([]string, error) {
	r, shown, err := cliutil.OpenInput(name)
	if err != nil {
		return nil, fmt.Errorf("--input-file %s: %w", shown, err)
	}
	defer r.Close()
	if shown == "-" {
		shown = "stdin"
	}
	return readURLList(r, shown)
}

// maxURLLine bounds a line of a URL list.
const maxURLLine = 1 << 20

// readURLList reads a URL list as wget's -i does: one URL a line, blank
// lines and lines starting with # ignored, surrounding spaces trimmed. A
// URL without a scheme is http://, as on the command line. A line that is
// no URL is an error naming the file and the line.
func readURLList(r io.Reader, name string) ([]string, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxURLLine)
	var urls []string
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if line == 1 {
			s = strings.TrimPrefix(s, "\ufeff") // a byte order mark
		}
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		u := s
		if !strings.Contains(u, "://") {
			u = "http://" + u
		}
		clean, _, _ := crawl.StripUserinfo(u) // never shown with its password
		if strings.ContainsAny(s, " \t") {
			return nil, cliutil.Usagef("%s:%d: bad URL %q: one URL a line, without spaces", name, line, clean)
		}
		if _, err := crawl.CanonicalURL(clean); err != nil {
			return nil, cliutil.Usagef("%s:%d: bad URL %q: %v", name, line, clean, err)
		}
		urls = append(urls, s)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("%s:%d: line longer than %d bytes", name, line+1, maxURLLine)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return urls, nil
}

// limitMessage is the line saying which limit ended the crawl.
func limitMessage(o *Options, l crawl.Limit, s crawl.Stats) string {
	switch l {
	case crawl.LimitPages:
		return fmt.Sprintf("--max-pages %d reached: stopped after %d captures", o.Crawl.MaxPages, s.Pages)
	case crawl.LimitBytes:
		return fmt.Sprintf("--max-bytes %s reached: stopped after %d captures, %d bytes received", o.maxBytes, s.Pages, s.Received)
	case crawl.LimitTime:
		return fmt.Sprintf("--max-time %v reached: stopped after %d captures", o.Crawl.MaxTime, s.Pages)
	}
	return fmt.Sprintf("%s reached: stopped after %d captures", l, s.Pages)
}
