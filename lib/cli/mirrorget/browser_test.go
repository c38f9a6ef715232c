package mirrorget

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/arcport/arcport/lib/internal/cliutil"
	"github.com/arcport/arcport/lib/internal/peertest"
)

// "--browser auto" is --browser=auto, as "--purge off" is --purge=off;
// --browser alone is --browser=on, never taking the next argument.
func TestSplitFiltersBrowser(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"mirrorget --browser auto http://h/", "mirrorget --browser=auto http://h/"},
		{"mirrorget --browser http://h/ --browser-tabs 3", "mirrorget --browser=on --browser-tabs 3 http://h/"},
		{"mirrorget --browser --browser-path c http://h/", "mirrorget --browser=on --browser-path c http://h/"},
		{"mirrorget http://h/ --browser off --page-timeout 30s --scroll-max 5 --browser-path /bin/c -*.gif",
			"mirrorget --browser=off --page-timeout 30s --scroll-max 5 --browser-path /bin/c --filter=-*.gif http://h/"},
	} {
		if got := strings.Join(SplitFilters(strings.Fields(tt.in)), " "); got != tt.want {
			t.Errorf("SplitFilters(%s)\n got %s\nwant %s", tt.in, got, tt.want)
		}
	}
}

// The flags of --browser: checked before any request, and as the crawl
// gets them.
func TestBrowserFlags(t *testing.T) {
	parse := func(args ...string) (*Options, error) {
		var o *Options
		app := App()
		app.OnUsageError = nil
		app.Action = func(c *cli.Context) (err error) { o, err = options(c); return err }
		err := app.Run(SplitFilters(append(append([]string{"mirrorget"}, args...), "http://127.0.0.1:1/")))
		return o, err
	}
	for _, args := range [][]string{
		{"--browser-tabs", "3"},
		{"--browser", "--browser-tabs", "0"},
		{"--browser", "--page-timeout", "0s"},
		{"--browser", "--scroll-max", "-1"},
		{"--browser", "--browser-path", "/nonexistent/chromium"},
		{"--browser-max-body", "1m"},
		{"--browser", "--browser-max-body", "lots"},
	} {
		_, err := parse(args...)
		var ue *cliutil.UsageError
		if !errors.As(err, &ue) {
			t.Errorf("%q: %v, want a usage error", args, err)
		}
	}
	if _, err := parse("--browser=maybe"); err == nil {
		t.Errorf("--browser=maybe accepted")
	}
	if o, err := parse(); err != nil || o.Browser != nil {
		t.Errorf("no --browser: %v, %+v", err, o)
	}
	peertest.Need(t, "true", "coreutils") // a program for --browser-path to find
	for _, tc := range []struct {
		args string
		want BrowserOptions
	}{
		{"--browser --browser-path true", BrowserOptions{Path: "true", Tabs: 2, Page: 90 * time.Second, ScrollMax: 40, MaxBody: 32 << 20}},
		{"--browser auto --browser-path true --browser-tabs 3 --page-timeout 30s --scroll-max 0 --browser-max-body 100k",
			BrowserOptions{Auto: true, Path: "true", Tabs: 3, Page: 30 * time.Second, ScrollMax: -1, MaxBody: 100 << 10}},
		{"--browser --browser-path true --browser-max-body 0", BrowserOptions{Path: "true", Tabs: 2, Page: 90 * time.Second, ScrollMax: 40}},
	} {
		o, err := parse(strings.Fields(tc.args)...)
		if err != nil || o.Browser == nil || *o.Browser != tc.want {
			t.Errorf("%s: %v, %+v, want %+v", tc.args, err, o, tc.want)
		}
	}
}

// staticDOM: the rendered DOM saved by -O keeps what the scripts built,
// not the scripts; data blocks stay; the document is declared UTF-8 once.
func TestStaticDOM(t *testing.T) {
	in := `<!DOCTYPE html><html><head><meta charset="windows-1252"><title>T</title>` +
		`<link rel="modulepreload" href="/m.js"><link rel="preload" as="script" href="/p.js"><link rel="stylesheet" href="/s.css">` +
		`<script src="/app.js"></script><script type="module">x()</script><script type="application/ld+json">{"a":1}</script></head>` +
		`<body><div id="list"><h2>Card 1 from JSON</h2><img src="/img/1.png"></div><script>document.write('x')</script></body></html>`
	out, err := staticDOM(in)
	if err != nil {
		t.Fatal(err)
	}
	for _, gone := range []string{"/app.js", "x()", "document.write", "/m.js", "/p.js", "windows-1252"} {
		if strings.Contains(out, gone) {
			t.Errorf("%q left in %s", gone, out)
		}
	}
	for _, kept := range []string{"<!DOCTYPE html>", `<head><meta charset="utf-8"/><title>T</title>`, `/s.css`, `{"a":1}`, "Card 1 from JSON", `<img src="/img/1.png"/>`} {
		if !strings.Contains(out, kept) {
			t.Errorf("%q missing from %s", kept, out)
		}
	}
}
