package mirrorget

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/arcport/arcport/lib/internal/cliutil"
)

func TestSplitFilters(t *testing.T) {
	tests := []struct{ in, want string }{
		{"mirrorget http://h/ -*.gif +*/docs/*", "mirrorget --filter=-*.gif --filter=+*/docs/* http://h/"},
		{"mirrorget -O ./out.d http://h/ -*/cgi-bin/*", "mirrorget -O ./out.d --filter=-*/cgi-bin/* http://h/"},
		{"mirrorget http://h/ -O ./out.d -c 2 http://i/ -q", "mirrorget -O ./out.d -c 2 -q http://h/ http://i/"},
		{"mirrorget http://h/ --header X-A:b --format=warc", "mirrorget --header X-A:b --format=warc http://h/"},
		{"mirrorget http://h/ --user-agent -*.x", "mirrorget --user-agent -*.x http://h/"},
		{"mirrorget -c 2 -q --rate 1.5 http://h/", "mirrorget -c 2 -q --rate 1.5 http://h/"},
		{"mirrorget --header=X-A:b -o a.warc http://h/ -- -*.gif", "mirrorget --header=X-A:b -o a.warc http://h/ -- -*.gif"},
		{"mirrorget http://h/ +www.example.com/*", "mirrorget --filter=+www.example.com/* http://h/"},
		{"mirrorget -v -r 2 http://h/", "mirrorget -v -r 2 http://h/"},
		{"mirrorget http://h/ --accept-mime image/* --reject-mime */x-* -*.gif", "mirrorget --accept-mime image/* --reject-mime */x-* --filter=-*.gif http://h/"},
		{"mirrorget -i - --max-time 2s --max-pages 5 --max-bytes 1m", "mirrorget -i - --max-time 2s --max-pages 5 --max-bytes 1m"},
		{"mirrorget http://h/ --input-file urls.txt --min-size 1k --max-size-html 1m --max-size-other 5m",
			"mirrorget --input-file urls.txt --min-size 1k --max-size-html 1m --max-size-other 5m http://h/"},
	}
	for _, tt := range tests {
		got := strings.Join(SplitFilters(strings.Fields(tt.in)), " ")
		if got != tt.want {
			t.Errorf("SplitFilters(%s)\n got %s\nwant %s", tt.in, got, tt.want)
		}
	}
}

func TestParseSize(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"500", 500, true}, {"500k", 500 << 10, true}, {"2M", 2 << 20, true}, {"1g", 1 << 30, true},
		{"10kb", 10 << 10, true}, {"", 0, false}, {"-1", 0, false}, {"1.5m", 0, false}, {"lots", 0, false},
		{"99999999999g", 0, false},
	}
	for _, tt := range tests {
		got, err := ParseSize(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseSize(%q) = %d, %v", tt.in, got, err)
		}
	}
}

// Bad usage is reported as such (exit status 2) before any request.
func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"mirrorget"},
		{"mirrorget", "--format", "zip", "http://127.0.0.1:1/"},
		{"mirrorget", "--scope", "planet", "http://127.0.0.1:1/"},
		{"mirrorget", "--robots", "maybe", "http://127.0.0.1:1/"},
		{"mirrorget", "--follow-redirects", "some", "http://127.0.0.1:1/"},
		{"mirrorget", "--header", "no colon", "http://127.0.0.1:1/"},
		{"mirrorget", "--proxy", "socks5://h:1", "http://127.0.0.1:1/"},
		{"mirrorget", "--max-rate", "fast", "http://127.0.0.1:1/"},
		{"mirrorget", "--min-rate", "slow", "http://127.0.0.1:1/"},
		{"mirrorget", "--max-request-time", "-1s", "http://127.0.0.1:1/"},
		{"mirrorget", "--max-parse", "0", "http://127.0.0.1:1/"},
		{"mirrorget", "-c", "0", "http://127.0.0.1:1/"},
		{"mirrorget", "--filter", "-mime:image/*", "http://127.0.0.1:1/"},
		{"mirrorget", "-o", "/dev/null", "ftp://example.com/"},
		{"mirrorget", "--accept-mime", "image", "http://127.0.0.1:1/"},
		{"mirrorget", "--reject-mime", "text/html; charset=utf-8", "http://127.0.0.1:1/"},
		{"mirrorget", "--min-size", "small", "http://127.0.0.1:1/"},
		{"mirrorget", "--max-size-html", "-1", "http://127.0.0.1:1/"},
		{"mirrorget", "--max-size-other", "1x", "http://127.0.0.1:1/"},
		{"mirrorget", "--max-time", "soon", "http://127.0.0.1:1/"},
		{"mirrorget", "--max-time", "-2s", "http://127.0.0.1:1/"},
		{"mirrorget", "--max-pages", "-1", "http://127.0.0.1:1/"},
		{"mirrorget", "--max-bytes", "lots", "http://127.0.0.1:1/"},
	} {
		app := App()
		app.OnUsageError = nil
		err := app.Run(SplitFilters(args))
		var ue *cliutil.UsageError
		if !errors.As(err, &ue) {
			t.Errorf("%q: %v, want a usage error", args, err)
		}
	}
}

// TestLimitFlags: the transfer and parse limits as the crawl gets them,
// by default and as given.
func TestLimitFlags(t *testing.T) {
	for _, tc := range []struct {
		args     string
		minRate  int64
		maxTime  time.Duration
		maxParse int64
		limit    int64 // Config.ParseLimit
	}{
		{"", 100, 10 * time.Minute, 64 << 20, 64 << 20},
		{"--min-rate 1k --max-request-time 90s --max-parse 8m", 1024, 90 * time.Second, 8 << 20, 8 << 20},
		{"--min-rate 0 --max-request-time 0 --max-size 1m", 0, -1, 64 << 20, 1 << 20},
	} {
		var o *Options
		app := App()
		app.Action = func(c *cli.Context) (err error) { o, err = options(c); return err }
		args := append([]string{"mirrorget"}, strings.Fields(tc.args)...)
		if err := app.Run(append(args, "http://127.0.0.1:1/")); err != nil {
			t.Fatalf("%s: %v", tc.args, err)
		}
		cfg := o.Crawl
		if cfg.MinRate != tc.minRate || cfg.MaxRequestTime != tc.maxTime || cfg.MaxParse != tc.maxParse || cfg.ParseLimit() != tc.limit {
			t.Errorf("%q: min rate %d, request time %v, max parse %d, parse limit %d", tc.args, cfg.MinRate, cfg.MaxRequestTime, cfg.MaxParse, cfg.ParseLimit())
		}
	}
}
