package replay

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/arcport/arcport/lib/replay/access"
)

// syncBuf is a bytes.Buffer safe for the server's goroutines.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) { s.mu.Lock(); defer s.mu.Unlock(); return s.b.Write(p) }
func (s *syncBuf) String() string              { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

const (
	testPass  = "correct horse: battery"
	testToken = "tok-3f9a1c77e2"
)

func authServer(t *testing.T) (*httptest.Server, *syncBuf) {
	t.Helper()
	sum := sha256.Sum256([]byte(testToken))
	file := "# users\nalice:sha256:" + hex.EncodeToString(func() []byte { s := sha256.Sum256([]byte(testPass)); return s[:] }()) +
		"\nbasic bob:plain-" + testPass + "\n\nbearer robot:sha256:" + hex.EncodeToString(sum[:]) + "\n"
	p := filepath.Join(t.TempDir(), "auth")
	os.WriteFile(p, []byte(file), 0o600)
	a, err := access.LoadAuth(p)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Open(t.Context(), "pywb", filepath.Join(sampleArchive(t), "cdx"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewServer(c)
	if err != nil {
		t.Fatal(err)
	}
	s.SetAuth(a)
	logb := &syncBuf{}
	s.AccessLog = logb
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return ts, logb
}

func basic(u, p string) string { return "Basic " + base64.StdEncoding.EncodeToString([]byte(u+":"+p)) }

// TestAuthHostile: the right credentials pass, every wrong, odd or huge
// one gets 401 with WWW-Authenticate, /healthz stays open, and no secret
// reaches the access log.
func TestAuthHostile(t *testing.T) {
	ts, logb := authServer(t)
	get := func(path, auth string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest("GET", ts.URL+path, nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	cdx := "/pywb/cdx?url=http://www.iana.org/&limit=1&access_token=" + testToken
	for _, ok := range []string{basic("alice", testPass), basic("bob", "plain-"+testPass), "Bearer " + testToken, "bearer  " + testToken} {
		if r := get(cdx, ok); r.StatusCode != 200 {
			t.Errorf("%.12s...: %d", ok, r.StatusCode)
		}
	}
	bad := []string{"", "Basic", "Basic ", "Basic !!!", basic("alice", ""), basic("alice", testPass+"x"), basic("bob", testPass),
		basic("alice:", testPass), basic("carol", testPass), basic("", testPass), "Basic " + base64.StdEncoding.EncodeToString([]byte("alice")),
		"Bearer", "Bearer " + testToken + "x", "Bearer " + strings.ToUpper(testToken), "Token " + testToken, basic("robot", testToken),
		"Bearer " + hex.EncodeToString(func() []byte { s := sha256.Sum256([]byte(testToken)); return s[:] }()),
		"Bearer " + strings.Repeat("A", 1<<20), basic(strings.Repeat("a", 1<<18), strings.Repeat("b", 1<<18)), "Basic \xff\xfe"}
	for _, b := range bad {
		r := get(cdx, b)
		if r.StatusCode != 401 {
			t.Errorf("%q: %d, want 401", clip(b), r.StatusCode)
		}
		if w := r.Header.Values("WWW-Authenticate"); len(w) != 2 || !strings.HasPrefix(w[0], "Basic realm=") || !strings.HasPrefix(w[1], "Bearer realm=") {
			t.Errorf("%q: WWW-Authenticate %q", clip(b), w)
		}
	}
	for _, p := range []string{"/pywb/id_/http://www.iana.org/", "/metrics", "/", "/pywb/timemap/link/http://www.iana.org/"} {
		if r := get(p, ""); r.StatusCode != 401 {
			t.Errorf("%s without credentials: %d", p, r.StatusCode)
		}
	}
	if r := get("/healthz", ""); r.StatusCode != 200 {
		t.Errorf("/healthz: %d", r.StatusCode)
	}
	log := logb.String()
	for _, secret := range []string{testPass, testToken, base64.StdEncoding.EncodeToString([]byte("alice:" + testPass))[:20]} {
		if strings.Contains(log, secret) {
			t.Errorf("the access log holds a secret %q", secret)
		}
	}
	if !strings.Contains(log, " - alice [") || !strings.Contains(log, " - robot [") || !strings.Contains(log, "access_token=REDACTED") {
		t.Errorf("access log:\n%s", clip(log))
	}
}

// combined is the combined log format.
var combined = regexp.MustCompile(`^(\S+) - (\S+) \[\d{2}/[A-Z][a-z]{2}/\d{4}:\d{2}:\d{2}:\d{2} [+-]\d{4}\] "([^"\\]|\\.)*" \d{3} (\d+|-) "([^"\\]|\\.)*" "([^"\\]|\\.)*"$`)

// TestAccessLogAndMetrics: every request a combined-format line (quotes
// and control bytes escaped, long targets cut), and /metrics counting
// requests by route and status, durations, bytes, open files.
func TestAccessLogAndMetrics(t *testing.T) {
	c, err := Open(t.Context(), "pywb", filepath.Join(sampleArchive(t), "cdx"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := NewServer(c)
	logb := &syncBuf{}
	s.AccessLog = logb
	ts := httptest.NewServer(s)
	defer ts.Close()
	paths := []string{"/pywb/cdx?url=http://www.iana.org/", "/pywb/cdx?url=http://www.iana.org/&output=bad",
		"/pywb/20140126200624id_/http://www.iana.org/", "/nope/cdx?url=x", "/healthz",
		"/pywb/cdx?url=" + strings.Repeat("a", 100000)}
	for _, p := range paths {
		aclGet(t, ts.URL+p, "Referer", `x" "y`, "User-Agent", "agent \xff")
	}
	// a raw request with a quote in its target
	conn, err := net.Dial("tcp", ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	conn.Write([]byte("GET /pywb/cdx?url=a\"b HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))
	io.Copy(io.Discard, conn)
	conn.Close()
	lines := strings.Split(strings.TrimSuffix(logb.String(), "\n"), "\n")
	if len(lines) != len(paths)+1 {
		t.Fatalf("%d lines for %d requests", len(lines), len(paths)+1)
	}
	for _, l := range lines {
		if !combined.MatchString(l) || len(l) > 6000 {
			t.Errorf("not combined: %q", clip(l))
		}
	}
	if !strings.Contains(lines[0], `"GET /pywb/cdx?url=http://www.iana.org/ HTTP/1.1" 200 `) || !strings.Contains(lines[1], `" 400 `) {
		t.Errorf("lines: %q %q", lines[0], lines[1])
	}
	_, m := aclGet(t, ts.URL+"/metrics")
	for _, want := range []string{
		`arcport_serve_requests_total{route="cdx",code="200"} 2`,
		`arcport_serve_requests_total{route="cdx",code="400"} 2`,
		`arcport_serve_requests_total{route="cdx",code="404"} 1`,
		`arcport_serve_requests_total{route="replay",code="200"} 1`,
		`arcport_serve_requests_total{route="healthz",code="200"} 1`,
		`arcport_serve_request_duration_seconds_bucket{route="cdx",le="+Inf"} 5`,
		`arcport_serve_request_duration_seconds_count{route="replay"} 1`,
		"process_open_fds ", "process_resident_memory_bytes ", "arcport_serve_index_files_open ",
	} {
		if !strings.Contains(m, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	// the exposition format: HELP/TYPE comments, then NAME{LABELS} VALUE
	sample := regexp.MustCompile(`^[a-z_]+(\{[a-z_]+="[^"]*"(,[a-z_]+="[^"]*")*\})? [0-9.e+-]+$`)
	sc := bufio.NewScanner(strings.NewReader(m))
	for sc.Scan() {
		l := sc.Text()
		if !strings.HasPrefix(l, "# HELP ") && !strings.HasPrefix(l, "# TYPE ") && !sample.MatchString(l) {
			t.Errorf("metrics line %q", l)
		}
	}
	if !regexp.MustCompile(`arcport_serve_response_bytes_total\{route="replay"\} [1-9]`).MatchString(m) {
		t.Error("no replay bytes counted")
	}
}
