package mirrorget

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// authSites is a loopback site that requires HTTP Basic authentication (a)
// and links and redirects to a second loopback server on another port (b),
// which must never see the credentials.
type authSites struct {
	a, b *httptest.Server

	mu        sync.Mutex
	aAuthed   int      // requests to a with the right Authorization
	aOther    []string // requests to a without it
	bReqs     int
	bAuthSeen []string // Authorization values b received
}

const (
	authUser = "alice"
	authPass = "Xq7-s3cr3t-pw"
)

func newAuthSites(t *testing.T) *authSites {
	s := &authSites{}
	s.b = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.bReqs++
		if v := r.Header.Get("Authorization"); v != "" {
			s.bAuthSeen = append(s.bAuthSeen, r.URL.Path+" "+v)
		}
		s.mu.Unlock()
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `<html><body>b <a href="/b2.html">b2</a></body></html>`)
	}))
	s.a = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, p, ok := r.BasicAuth()
		s.mu.Lock()
		good := ok && u == authUser && p == authPass
		if good {
			s.aAuthed++
		} else {
			s.aOther = append(s.aOther, r.URL.Path+" "+r.Header.Get("Authorization"))
		}
		s.mu.Unlock()
		if !good {
			w.Header().Set("WWW-Authenticate", `Basic realm="test"`)
			http.Error(w, "authorization required", 401)
			return
		}
		switch r.URL.Path {
		case "/robots.txt":
			http.NotFound(w, r)
		case "/redir":
			http.Redirect(w, r, s.b.URL+"/r.html", http.StatusFound)
		case "/":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, `<html><body><a href="/a2.html">a2</a> <a href="%s/b.html">b</a> <a href="/redir">r</a></body></html>`, s.b.URL)
		default:
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, `<html><body>a page</body></html>`)
		}
	}))
	t.Cleanup(func() { s.a.Close(); s.b.Close() })
	return s
}

// check asserts that a saw the credentials with every request and b never.
func (s *authSites) check(t *testing.T, what string) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.aAuthed < 4 || len(s.aOther) > 0 {
		t.Errorf("%s: first origin: %d requests with the credentials, without: %q", what, s.aAuthed, s.aOther)
	}
	if s.bReqs < 3 || len(s.bAuthSeen) > 0 {
		t.Errorf("%s: second origin: %d requests, Authorization seen: %q", what, s.bReqs, s.bAuthSeen)
	}
	s.aAuthed, s.aOther, s.bReqs, s.bAuthSeen = 0, nil, 0, nil
}

// secretHits returns where the secrets occur in data, in the bytes as
// they are and, for gzip streams and zip files, decompressed.
func secretHits(name string, data []byte, secrets []string) []string {
	var hits []string
	look := func(label string, b []byte) {
		for _, sec := range secrets {
			if i := bytes.Index(b, []byte(sec)); i >= 0 {
				hits = append(hits, fmt.Sprintf("%s: %q at byte %d", label, sec, i))
			}
		}
	}
	look(name, data)
	if bytes.HasPrefix(data, []byte{0x1f, 0x8b}) {
		if zr, err := gzip.NewReader(bytes.NewReader(data)); err == nil {
			dec, _ := io.ReadAll(zr) // multistream: every member
			look(name+" (gunzipped)", dec)
		}
	}
	if bytes.HasPrefix(data, []byte("PK")) {
		if zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data))); err == nil {
			for _, f := range zr.File {
				look(name+"!"+f.Name+" (name)", []byte(f.Name))
				if rc, err := f.Open(); err == nil {
					b, _ := io.ReadAll(rc)
					rc.Close()
					look(name+"!"+f.Name, b)
				}
			}
		}
	}
	return hits
}

// treeHits runs secretHits on every file of dir and on every name in it.
func treeHits(t *testing.T, dir string, secrets []string) []string {
	var hits []string
	files := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		hits = append(hits, secretHits("path "+p, []byte(p), secrets)...)
		if d.Type().IsRegular() {
			files++
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			hits = append(hits, secretHits(p, b, secrets)...)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 3 {
		t.Errorf("%s: only %d files", dir, files)
	}
	return hits
}

func gunzipAll(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	dec, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return dec
}

// TestCredentials crawls a site requiring Basic authentication with the
// credentials given in the start URL, by --http-user/--http-password and by
// --netrc: the site's origin gets them with every request, the second
// server (another port), linked to and redirected to, never does; and no
// byte of the output (the stream on stdout or in -o FILE, the whole -O DIR
// with its hts-cache, stderr with -v) holds the password or the base64 of
// user:password. The same holds for the password of a --proxy URL.
func TestCredentials(t *testing.T) {
	bin := buildMirrorget(t)
	s := newAuthSites(t)
	basic := base64.StdEncoding.EncodeToString([]byte(authUser + ":" + authPass))
	secrets := []string{authPass, basic, authUser + ":" + authPass}
	aURL := s.a.URL + "/"
	withUser := strings.Replace(aURL, "://", "://"+authUser+":"+authPass+"@", 1)
	dir := t.TempDir()
	netrc := filepath.Join(dir, "netrc")
	os.WriteFile(netrc, []byte("# test\nmachine other.invalid login bob password nope\n\nmachine 127.0.0.1\n  login "+authUser+"\n  password \""+authPass+"\"\ndefault login x password y\n"), 0o600)

	for _, tc := range []struct {
		name   string
		args   []string
		output string // -o FILE, "" for stdout
	}{
		{"userinfo-warc-stdout", []string{"--format", "warc", withUser}, ""},
		{"userinfo-arc-o", []string{"--format", "arc", "-o", "OUT", withUser}, "out.arc.gz"},
		{"flags-warc-o", []string{"--format", "warc", "-o", "OUT", "--http-user", authUser, "--http-password", authPass, aURL}, "out.warc.gz"},
		{"netrc-warc-stdout", []string{"--format", "warc", "--netrc", netrc, aURL}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			work := t.TempDir()
			mir := filepath.Join(work, "mirror")
			args := []string{"-v", "-c", "1", "--scope", "any", "--follow-redirects", "all", "-r", "3", "-O", mir}
			for _, a := range tc.args {
				if a == "OUT" {
					a = filepath.Join(work, tc.output)
				}
				args = append(args, a)
			}
			cmd := exec.Command(bin, args...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("mirrorget %q: %v\n%s", args, err, stderr.String())
			}
			s.check(t, tc.name)
			var hits []string
			hits = append(hits, secretHits("stdout", stdout.Bytes(), secrets)...)
			hits = append(hits, secretHits("stderr", stderr.Bytes(), secrets)...)
			hits = append(hits, treeHits(t, work, secrets)...)
			for _, h := range hits {
				t.Error(h)
			}
			stream := stdout.Bytes()
			if tc.output != "" {
				stream, _ = os.ReadFile(filepath.Join(work, tc.output))
			}
			dec := gunzipAll(t, stream)
			if !bytes.Contains(dec, []byte(s.b.URL+"/r.html")) || !bytes.Contains(dec, []byte(s.b.URL+"/b.html")) {
				t.Errorf("the second server's pages are not in the stream")
			}
			if strings.Contains(tc.name, "warc") && bytes.Count(dec, []byte("\r\nAuthorization: Basic [redacted]\r\n")) < 4 {
				t.Errorf("the request records do not show the redacted Authorization field")
			}
			if !strings.Contains(stderr.String(), "a page") && !strings.Contains(stderr.String(), "/a2.html") {
				t.Errorf("-v printed no line for /a2.html:\n%s", stderr.String())
			}
		})
	}

	t.Run("proxy", func(t *testing.T) {
		const proxyPass = "Pr0xy-pw-9"
		proxyBasic := base64.StdEncoding.EncodeToString([]byte("puser:" + proxyPass))
		var mu sync.Mutex
		var got []string
		proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			got = append(got, r.Header.Get("Proxy-Authorization"))
			mu.Unlock()
			if r.URL.Path == "/robots.txt" {
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, `<html><body><a href="/p2.html">p2</a></body></html>`)
		}))
		defer proxy.Close()
		work := t.TempDir()
		pu := strings.Replace(proxy.URL, "://", "://puser:"+proxyPass+"@", 1)
		args := []string{"-v", "--format", "warc", "-O", filepath.Join(work, "m"), "--proxy", pu, "http://site.invalid/"}
		cmd := exec.Command(bin, args...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("mirrorget: %v\n%s", err, stderr.String())
		}
		mu.Lock()
		if len(got) < 2 || got[0] != "Basic "+proxyBasic {
			t.Errorf("proxy saw Proxy-Authorization %q", got)
		}
		mu.Unlock()
		ps := []string{proxyPass, proxyBasic}
		hits := append(secretHits("stdout", stdout.Bytes(), ps), secretHits("stderr", stderr.Bytes(), ps)...)
		hits = append(hits, treeHits(t, work, ps)...)
		for _, h := range hits {
			t.Error(h)
		}
		if !bytes.Contains(gunzipAll(t, stdout.Bytes()), []byte("\r\nProxy-Authorization: Basic [redacted]\r\n")) {
			t.Errorf("the request records do not show the redacted Proxy-Authorization field")
		}
		// a bad proxy URL is reported without its password
		out, err := exec.Command(bin, "--proxy", "ftp://puser:"+proxyPass+"@127.0.0.1:1/", "http://127.0.0.1:1/").CombinedOutput()
		if err == nil || bytes.Contains(out, []byte(proxyPass)) {
			t.Errorf("bad --proxy: %v, %q", err, out)
		}
	})
}
