package waczpack

import (
	"bufio"
	"context"
	"encoding/base64"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/arcport/arcport/lib/internal/cliutil"
	"github.com/arcport/arcport/lib/internal/samples"
)

// sampleArchiveDir is pywb's sample collection in the shared fixtures.
func sampleArchiveDir(t *testing.T) string {
	t.Helper()
	testdata := filepath.Dir(filepath.Dir(samples.Path("x.warc")))
	p, _ := filepath.Abs(filepath.Join(filepath.Dir(testdata), "..", "shared", "fixtures", "pywb", "sample_archive"))
	if _, err := os.Stat(filepath.Join(p, "cdx", "iana.cdx")); err != nil {
		t.Skipf("no %s", p)
	}
	return p
}

var servingRE = regexp.MustCompile(`serving \d+ collection\(s\) on (http://127\.0\.0\.1:\d+)/`)

// startServe runs `waczpack serve ARGS` in this process and returns the
// base URL it prints and a function that ends its context (as SIGINT
// does in the binary) and returns its exit status.
func startServe(t *testing.T, args ...string) (string, func() int) {
	t.Helper()
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	app := App(strings.NewReader(""), io.Discard, pw)
	cliutil.Prepare(app)
	code := make(chan int, 1)
	go func() {
		err := app.RunContext(ctx, append([]string{"waczpack"}, Reorder(append([]string{"serve", "--listen", "127.0.0.1:0"}, args...))...))
		code <- cliutil.Report("waczpack", err, pw)
		pw.Close()
	}()
	sc := bufio.NewScanner(pr)
	var base string
	for sc.Scan() {
		if m := servingRE.FindStringSubmatch(sc.Text()); m != nil {
			base = m[1]
			break
		}
		t.Logf("stderr: %s", sc.Text())
	}
	go io.Copy(io.Discard, pr)
	if base == "" {
		cancel()
		t.Fatalf("serve printed no address (exit %d)", <-code)
	}
	t.Cleanup(cancel)
	return base, func() int {
		cancel()
		select {
		case c := <-code:
			return c
		case <-time.After(15 * time.Second):
			t.Fatal("serve did not stop within 15 s of its context's end")
		}
		return -1
	}
}

func getBody(t *testing.T, u string) (int, string, string) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(b)
}

// TestServe: waczpack serve answers /healthz, lists its collections, the
// CDX API of a named and an unnamed source and of all, and ends when its
// context ends (SIGINT in the binary) with status 0.
func TestServe(t *testing.T) {
	sa := sampleArchiveDir(t)
	base, stop := startServe(t, filepath.Join(sa, "cdx"), "--collection", "zn="+filepath.Join(sa, "zipcdx", "zipnum-sample.idx"), "--cache-dir", t.TempDir())
	if c, _, b := getBody(t, base+"/healthz"); c != 200 || b != "ok\n" {
		t.Errorf("/healthz: %d %q", c, b)
	}
	if _, _, b := getBody(t, base+"/"); !strings.Contains(b, "cdx\tindex-folder\t") || !strings.Contains(b, "zn\tzipnum\t") {
		t.Errorf("/: %q", b)
	}
	c, ct, b := getBody(t, base+"/zn/cdx?url=http://www.iana.org/&output=text&fl=timestamp,source")
	if want := "20140126200624 zn\n20140127171238 zn\n20140127171238 zn\n"; c != 200 || ct != "text/plain" || b != want {
		t.Errorf("/zn/cdx: %d %s %q, want %q", c, ct, b, want)
	}
	c, _, b = getBody(t, base+"/cdx/cdx?url=http://www.iana.org/&output=text&fl=timestamp,source")
	if want := "20140126200624 cdx:iana.cdx\n20140127171238 cdx:dupes.cdx\n20140127171238 cdx:dupes.cdx\n"; c != 200 || b != want {
		t.Errorf("/cdx/cdx: %d %q, want %q", c, b, want)
	}
	c, _, b = getBody(t, base+"/all/cdx?url=http://www.iana.org/&output=text&fl=timestamp,source&limit=4")
	if want := "20140126200624 cdx:iana.cdx\n20140126200624 zn\n20140127171238 cdx:dupes.cdx\n20140127171238 zn\n"; c != 200 || b != want {
		t.Errorf("/all/cdx: %d %q, want %q", c, b, want)
	}
	// a capture replayed (id_) from a collection and from all: the
	// payload as archived (5678 bytes, de-chunked), Memento-Datetime
	for _, p := range []string{"/cdx/20140126200624id_/http://www.iana.org/", "/all/20140126200624id_/http://www.iana.org/"} {
		resp, err := http.Get(base + p)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || len(b) != 5678 || resp.Header.Get("Memento-Datetime") != "Sun, 26 Jan 2014 20:06:24 GMT" || resp.Header.Get("X-Archive-Orig-Server") != "Apache" {
			t.Errorf("%s: %d, %d bytes, %v", p, resp.StatusCode, len(b), resp.Header)
		}
	}
	if c, _, b := getBody(t, base+"/zn/cdx?url=x&output=foo"); c != 400 || b != `{"message": "output=foo not supported"}` {
		t.Errorf("bad output: %d %q", c, b)
	}
	if c, _, _ := getBody(t, base+"/nosuch/cdx?url=x"); c != 404 {
		t.Errorf("unknown collection: %d", c)
	}
	// the context ends: the server stops, exit 0, nothing listens
	if c := stop(); c != 0 {
		t.Errorf("exit %d after the context ended", c)
	}
	if _, err := http.Get(base + "/healthz"); err == nil {
		t.Errorf("still listening on %s", base)
	}
}

// TestServeBadSources: one line on stderr, exit 1 for a source that
// cannot be opened, 2 for bad usage; nothing listens.
func TestServeBadSources(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o644)
	os.Mkdir(filepath.Join(dir, "empty"), 0o755)
	os.WriteFile(filepath.Join(dir, "bad.wacz"), []byte("not a zip"), 0o644)
	os.WriteFile(filepath.Join(dir, "lonely.idx"), []byte("a 1\tp\t0\t1\t1\n"), 0o644)
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"serve"}, 2, "serve needs at least one SRC"},
		{[]string{"serve", filepath.Join(dir, "missing")}, 1, "missing: no such file or directory"},
		{[]string{"serve", filepath.Join(dir, "notes.txt")}, 1, "not a .wacz, .idx, .summary, .cdx or .cdxj file, nor a folder"},
		{[]string{"serve", filepath.Join(dir, "empty")}, 1, "no WARC, ARC, CDX, CDXJ or ZipNum index files in this folder"},
		{[]string{"serve", filepath.Join(dir, "bad.wacz")}, 1, "not a readable zip file"},
		{[]string{"serve", filepath.Join(dir, "lonely.idx")}, 1, "no .loc file beside it"},
		{[]string{"serve", "--collection", "all=" + filepath.Join(dir, "x.cdx")}, 2, `"all": not a collection name`},
		{[]string{"serve", "--collection", "noequals"}, 2, `want NAME=SRC`},
		{[]string{"serve", "--collection", "a=" + filepath.Join(dir, "x.cdx"), "--collection", "a=" + filepath.Join(dir, "y.cdx")}, 2, `two sources named "a"`},
		{[]string{"serve", "--listen", "127.0.0.1:99999", filepath.Join(dir, "empty")}, 1, ""},
		{[]string{"serve", "https://example.invalid/x.cdxj"}, 1, "a remote source is a .wacz, a ZipNum .idx, or a prefix ending in / holding cluster.idx"},
	} {
		so, se, code := run(t, nil, tc.args...)
		if code != tc.code || so != "" || strings.Count(se, "\n") != 1 || !strings.Contains(se, tc.msg) {
			t.Errorf("%q: exit %d, stderr %q; want exit %d, one line with %q", tc.args, code, se, tc.code, tc.msg)
		}
	}
}

// TestServeSignal: the binary (this test binary, re-run as waczpack)
// stops on SIGTERM and on SIGINT: the request in flight is answered,
// "stopped" is printed, exit status 0.
func TestServeSignal(t *testing.T) {
	if os.Getenv("WACZPACK_SERVE_CHILD") == "1" {
		args := strings.Split(os.Getenv("WACZPACK_SERVE_ARGS"), "\x1f")
		os.Exit(Run(args, os.Stdin, os.Stdout, os.Stderr))
	}
	sa := sampleArchiveDir(t)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestServeSignal$")
		cmd.Env = append(os.Environ(), "WACZPACK_SERVE_CHILD=1", "WACZPACK_SERVE_ARGS="+strings.Join([]string{"serve", "--listen", "127.0.0.1:0", filepath.Join(sa, "cdx")}, "\x1f"))
		stderr, _ := cmd.StderrPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(stderr)
		var base string
		var lines []string
		for sc.Scan() {
			lines = append(lines, sc.Text())
			if m := servingRE.FindStringSubmatch(sc.Text()); m != nil {
				base = m[1]
				break
			}
		}
		if base == "" {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("no address: %q", lines)
		}
		if c, _, _ := getBody(t, base+"/healthz"); c != 200 {
			t.Errorf("/healthz: %d", c)
		}
		cmd.Process.Signal(sig)
		rest, _ := io.ReadAll(stderr)
		err := cmd.Wait()
		if err != nil || !strings.Contains(string(rest), "stopped") {
			t.Errorf("%v: %v, stderr after the signal %q", sig, err, rest)
		}
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) {
			if _, err := http.Get(base + "/healthz"); err != nil {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		if _, err := http.Get(base + "/healthz"); err == nil {
			t.Errorf("%v: still listening on %s", sig, base)
		}
		t.Logf("%v: stopped, exit 0", sig)
	}
}

// TestServeAccess: --auth-file, --acl (a file for one collection),
// --acl-default, --embargo, --access-log: 401 without credentials,
// /healthz open, pywb's rules (exclude: no lines; block: 451), the access
// log's lines; and their usage errors.
func TestServeAccess(t *testing.T) {
	sa := sampleArchiveDir(t)
	dir := t.TempDir()
	auth := filepath.Join(dir, "auth")
	os.WriteFile(auth, []byte("alice:s3cret-pw\nbearer ops:tok-123\n"), 0o600)
	acl := filepath.Join(dir, "rules.aclj")
	os.WriteFile(acl, []byte("org,iana)/about - {\"access\": \"block\"}\norg,iana)/_css - {\"access\": \"exclude\"}\n"), 0o644)
	logf := filepath.Join(dir, "access.log")
	base, stop := startServe(t, "--collection", "a="+filepath.Join(sa, "cdx"), "--collection", "b="+filepath.Join(sa, "cdx"),
		"--auth-file", auth, "--acl", "a="+acl, "--embargo", "b=after=2014012700", "--access-log", logf)
	get := func(p, a string) (int, string) {
		req, _ := http.NewRequest("GET", base+p, nil)
		if a != "" {
			req.Header.Set("Authorization", a)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	const bearer = "Bearer tok-123"
	if c, _ := get("/a/cdx?url=http://www.iana.org/", ""); c != 401 {
		t.Errorf("no credentials: %d", c)
	}
	if c, _ := get("/healthz", ""); c != 200 {
		t.Errorf("/healthz: %d", c)
	}
	if c, b := get("/a/cdx?url=http://www.iana.org/_css/*&output=text", bearer); c != 200 || b != "" {
		t.Errorf("excluded: %d %q", c, b)
	}
	if c, b := get("/a/20140126200706id_/http://www.iana.org/about", bearer); c != 451 || !strings.Contains(b, "Access Blocked") {
		t.Errorf("blocked: %d %q", c, b)
	}
	if c, b := get("/b/cdx?url=http://www.iana.org/_css/*&output=text&limit=1", "Basic "+base64.StdEncoding.EncodeToString([]byte("alice:s3cret-pw"))); c != 200 || b == "" {
		t.Errorf("b (no rules for these): %d %q", c, b)
	}
	if c, b := get("/b/cdx?url=http://example.com/&output=text&fl=timestamp", bearer); c != 200 || strings.Contains(b, "2014012717") {
		t.Errorf("b embargoed after 2014012700: %d %q", c, b)
	}
	if code := stop(); code != 0 {
		t.Errorf("exit %d", code)
	}
	log, _ := os.ReadFile(logf)
	if n := strings.Count(string(log), "\n"); n != 6 || strings.Contains(string(log), "tok-123") || !strings.Contains(string(log), " - ops [") || !strings.Contains(string(log), "\" 451 ") {
		t.Errorf("access log (%d lines):\n%s", n, log)
	}
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--auth-file", filepath.Join(dir, "missing")}, "missing: no such file"},
		{[]string{"--auth-file", acl}, "line 1: want USER:SECRET"},
		{[]string{"--acl", filepath.Join(dir, "missing.aclj")}, "missing.aclj: no such file"},
		{[]string{"--acl", auth}, "auth:1: want SURT - {JSON}"},
		{[]string{"--acl", acl, "--acl-default", "deny"}, `default access "deny"`},
		{[]string{"--acl-default", "block"}, "--acl-default needs --acl or --embargo"},
		{[]string{"--embargo", "sooner=1y"}, "want before=, after=, newer= or older="},
		{[]string{"--embargo", "older=1x"}, "a span is e.g. 1y6m"},
	} {
		_, se, code := run(t, nil, append([]string{"serve", filepath.Join(sa, "cdx")}, tc.args...)...)
		if code != 2 || !strings.Contains(se, tc.msg) || strings.Contains(se, "s3cret") {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", tc.args, code, se, tc.msg)
		}
	}
}
