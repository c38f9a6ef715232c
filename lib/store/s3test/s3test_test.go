package s3test

import (
	"crypto/tls"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestServer starts versitygw, sees a bucket made by Bucket in its posix
// directory, restarts it on the same port and sees it answer again.
func TestServer(t *testing.T) {
	s := Start(t)
	s.Bucket(t, "bkt")
	if fi, err := os.Stat(filepath.Join(s.Dir, "bkt")); err != nil || !fi.IsDir() {
		t.Fatalf("bucket dir: %v", err)
	}
	get := func() (int, string) {
		resp, err := http.Get(s.URL + "/bkt")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	// Unsigned: the real server refuses with its own S3 error.
	if code, body := get(); code != 403 || !strings.Contains(body, "<Code>AccessDenied</Code>") {
		t.Fatalf("anonymous GET: %d %s", code, body)
	}
	if err := s.Restart(); err != nil {
		t.Fatal(err)
	}
	if s.Starts() != 2 {
		t.Errorf("starts %d", s.Starts())
	}
	if code, _ := get(); code != 403 {
		t.Fatalf("after restart: %d", code)
	}
	s.Kill()
	if _, err := http.Get(s.URL + "/bkt"); err == nil {
		t.Fatal("server answers after Kill")
	}
}

// TestProxy counts requests through the proxy, answers SlowDown for the
// next two and cuts a body short.
func TestProxy(t *testing.T) {
	s := Start(t)
	p := NewProxy(t, s.URL)
	get := func() (int, string, error) {
		resp, err := http.Get(p.URL + "/bkt")
		if err != nil {
			return 0, "", err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), err
	}
	p.SlowDown(2)
	for i := 0; i < 2; i++ {
		if code, body, _ := get(); code != 503 || !strings.Contains(body, "<Code>SlowDown</Code>") {
			t.Fatalf("request %d: %d %s", i, code, body)
		}
	}
	code, body, err := get()
	if code != 404 || err != nil { // no such bucket: the real server answered
		t.Fatalf("third request: %d %v", code, err)
	}
	st := p.Stats()
	if st.Requests != 3 || st.Gets != 3 || st.Faults != 2 || st.Bytes != int64(len(body)) {
		t.Errorf("stats %+v, body %d bytes", st, len(body))
	}
}

// TestProxyCut cuts a successful response body after 10 bytes: the client
// sees the full Content-Length, 10 bytes, then an unexpected EOF.
func TestProxyCut(t *testing.T) {
	want := strings.Repeat("0123456789", 1000)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.ServeContent(w, r, "x", time.Time{}, strings.NewReader(want))
	}))
	defer ts.Close()
	p := NewProxy(t, ts.URL)
	p.Cut(1, 10)
	for i, wantErr := range []bool{true, false} {
		resp, err := http.Get(p.URL + "/x")
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.ContentLength != int64(len(want)) {
			t.Errorf("response %d: Content-Length %d", i, resp.ContentLength)
		}
		if wantErr && (!errors.Is(err, io.ErrUnexpectedEOF) || string(b) != want[:10]) {
			t.Fatalf("cut response: %q, %v", b, err)
		}
		if !wantErr && (err != nil || string(b) != want) {
			t.Fatalf("uncut response: %d bytes, %v", len(b), err)
		}
	}
	if st := p.Stats(); st.Requests != 2 || st.Faults != 1 || st.Bytes != int64(10+len(want)) {
		t.Errorf("stats %+v", st)
	}
}

// TestStartTLS: the server answers https:// with a certificate the test
// CA signed, and is refused by a client without that CA.
func TestStartTLS(t *testing.T) {
	s := StartTLS(t)
	if !strings.HasPrefix(s.URL, "https://") {
		t.Fatal(s.URL)
	}
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: s.CertPool}}}
	resp, err := c.Get(s.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 403 {
		t.Errorf("status %d", resp.StatusCode)
	}
	if _, err := (&http.Client{Transport: &http.Transport{}}).Get(s.URL + "/"); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("without the CA: %v", err)
	}
	if b, err := os.ReadFile(s.CAFile); err != nil || !strings.Contains(string(b), "BEGIN CERTIFICATE") {
		t.Errorf("CA file: %v", err)
	}
}

// TestProxyMatch: SlowDownIf and CorruptIf apply to the requests a Match
// selects only; a corrupted body has one byte, in the middle, inverted;
// Log records every request with its fault.
func TestProxyMatch(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(w, r.Body) // echo
	}))
	defer ts.Close()
	p := NewProxy(t, ts.URL)
	put := func(path string, body []byte) (int, []byte) {
		req, _ := http.NewRequest(http.MethodPut, p.URL+path, strings.NewReader(string(body)))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	body := []byte("0123456789")
	p.SlowDownIf(1, UploadPart)
	p.CorruptIf(1, PutObject)
	if code, got := put("/b/k?partNumber=1&uploadId=u", body); code != 503 {
		t.Errorf("UploadPart: %d %q", code, got)
	}
	if code, got := put("/b/k?partNumber=1&uploadId=u", body); code != 200 || string(got) != string(body) {
		t.Errorf("UploadPart again: %d %q", code, got)
	}
	want := []byte("0123456789")
	want[5] ^= 0xff
	if code, got := put("/b/k?x-id=PutObject", body); code != 200 || string(got) != string(want) {
		t.Errorf("PutObject: %d %q, want %q", code, got, want)
	}
	if _, got := put("/b/k", body); string(got) != string(body) {
		t.Errorf("second PutObject: %q", got)
	}
	var faults []string
	for _, r := range p.Log() {
		faults = append(faults, r.Method+" "+r.Query+" "+r.Fault)
	}
	if g := strings.Join(faults, ", "); g != "PUT partNumber=1&uploadId=u SlowDown, PUT partNumber=1&uploadId=u , PUT x-id=PutObject Corrupt, PUT  " {
		t.Errorf("log: %s", g)
	}
	if st := p.Stats(); st.Requests != 4 || st.Faults != 2 {
		t.Errorf("stats %+v", st)
	}
}
