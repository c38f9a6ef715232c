package htcache

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arcport/arcport/lib/internal/cliutil"
	"github.com/arcport/arcport/lib/internal/peertest"
	"github.com/urfave/cli/v2"
)

var update = flag.Bool("update", false, "rewrite golden files (refused under CI)")

var (
	garden = filepath.Join("..", "..", "..", "testdata", "htcache", "garden")
	golden = filepath.Join("..", "..", "..", "testdata", "htcache", "golden")
)

// run runs htcache with args and returns stdout, stderr and the exit status.
func run(args ...string) (string, string, int) {
	var out, errb bytes.Buffer
	app := NewApp(&out, &errb)
	app.ExitErrHandler = func(*cli.Context, error) {}
	err := app.Run(append([]string{"htcache"}, args...))
	code := cliutil.Report("htcache", err, &errb)
	return out.String(), errb.String(), code
}

// TestGolden compares htcache info and ls (text and JSON) on the garden
// mirror with the golden files. The goldens were written by htcache itself,
// so they, and the output, are first checked against an independent
// source: HTTrack's own log of the crawl, hts-cache/new.txt (URLs,
// statuses, sizes, MIME types, ETags, local files, times, counts and
// totals). -update rewrites the goldens from an output that passes that
// check; it is refused under CI.
func TestGolden(t *testing.T) {
	if *update && peertest.CI() {
		t.Fatal("-update under CI: goldens are rewritten by hand and reviewed, never by CI")
	}
	cases := []struct {
		file string
		args []string
	}{
		{"info.txt", []string{"info", garden}},
		{"info.json", []string{"info", "--json", garden}},
		{"ls.txt", []string{"ls", garden}},
		{"ls.json", []string{"ls", "--json", garden}},
	}
	outs, goldens := map[string]string{}, map[string]string{}
	for _, c := range cases {
		out, errs, code := run(c.args...)
		if code != 0 || errs != "" {
			t.Fatalf("%v: exit %d, stderr %q", c.args, code, errs)
		}
		outs[c.file] = strings.ReplaceAll(out, garden, "GARDEN")
	}
	checkGoldenAgainstNewTxt(t, "output", outs)
	if *update {
		if t.Failed() {
			t.Fatal("-update: the output does not agree with new.txt; goldens left as they are")
		}
		if err := os.MkdirAll(golden, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			if err := os.WriteFile(filepath.Join(golden, c.file), []byte(outs[c.file]), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, c := range cases {
		p := filepath.Join(golden, c.file)
		want, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		goldens[c.file] = string(want)
		if outs[c.file] != string(want) {
			t.Errorf("%v:\n%s\nwant (%s):\n%s", c.args, outs[c.file], p, want)
		}
	}
	checkGoldenAgainstNewTxt(t, "golden", goldens)
}

func TestCat(t *testing.T) {
	origin := filepath.Join(garden, "..", "garden-origin")
	for _, c := range []struct{ url, file string }{
		{"http://127.0.0.1:8766/résumé.html", "résumé.html"},
		{"http://127.0.0.1:8766/r%C3%A9sum%C3%A9.html", "résumé.html"},
		{"http://127.0.0.1:8766/members.html?sort=name", "members.html"},
		{"http://127.0.0.1:8766/files/report.pdf", "files/report.pdf"},
	} {
		out, errs, code := run("cat", garden, c.url)
		want, _ := os.ReadFile(filepath.Join(origin, c.file))
		if code != 0 || out != string(want) {
			t.Errorf("cat %s: exit %d (%s), %d bytes, want %d", c.url, code, errs, len(out), len(want))
		}
	}
	// -o writes atomically.
	dst := filepath.Join(t.TempDir(), "leaf.gif")
	if _, errs, code := run("cat", "-o", dst, garden, "http://127.0.0.1:8766/img/leaf.gif"); code != 0 {
		t.Fatal(errs)
	}
	got, _ := os.ReadFile(dst)
	want, _ := os.ReadFile(filepath.Join(origin, "img", "leaf.gif"))
	if !bytes.Equal(got, want) {
		t.Errorf("cat -o: %d bytes", len(got))
	}
}

func TestErrors(t *testing.T) {
	for _, c := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"cat", garden, "http://127.0.0.1:8766/nope"}, 1, `"http://127.0.0.1:8766/nope": URL not in cache`},
		{[]string{"info"}, 2, "want 1 argument(s), got 0"},
		{[]string{"ls", "/nonexistent/dir"}, 1, "no such file"},
		{[]string{"info", "--tz", "Mars/Olympus", garden}, 2, "--tz"},
	} {
		_, errs, code := run(c.args...)
		if code != c.code || !strings.Contains(errs, c.stderr) {
			t.Errorf("%v: exit %d, stderr %q; want %d, %q", c.args, code, errs, c.code, c.stderr)
		}
	}
}
