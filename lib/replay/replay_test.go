package replay

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arcport/arcport/lib/wacz"
)

// TestReplayWACZ: every response capture of a WACZ (read in place) is
// replayed in id_ mode with the payload lib/wacz reads for it (transfer
// coding undone, content coding kept), the revisits' too.
func TestReplayWACZ(t *testing.T) {
	p := makeWACZ(t, "iana.warc.gz", "example.warc.gz", "dupes.warc.gz")
	ts := serveOne(t, "w", p)
	r, err := wacz.OpenFile(p)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	n, revisits := 0, 0
	caps := waczCaptures(t, p)
	originals := map[string]*wacz.Capture{}
	for _, c := range caps {
		if c.Mime != "warc/revisit" && originals[c.Digest] == nil {
			originals[c.Digest] = c
		}
	}
	for _, c := range caps {
		if strings.Contains(c.URLKey, "__wb_method=") {
			continue
		}
		src := c
		if c.Mime == "warc/revisit" {
			if src = originals[c.Digest]; src == nil {
				continue
			}
		}
		rec, err := r.Record(src)
		if err != nil {
			t.Fatalf("%s %s: %v", c.URL, c.Timestamp, err)
		}
		want, _, err := wacz.Payload(rec, false)
		if err != nil {
			t.Fatal(err)
		}
		wb, _ := io.ReadAll(want)
		resp, err := noRedirect.Get(ts.URL + "/w/" + c.Timestamp + "id_/" + c.URL)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusTemporaryRedirect || (resp.StatusCode == http.StatusNotFound && strings.HasPrefix(c.Status, "3")) {
			// another capture of this URL at this second comes first,
			// or a self-redirect is passed over
			continue
		}
		if c.Mime == "warc/revisit" {
			revisits++
		}
		if resp.Header.Get("Memento-Datetime") == "" || !bytes.Equal(got, wb) {
			t.Errorf("%s %s: %d, %d bytes, want %d", c.URL, c.Timestamp, resp.StatusCode, len(got), len(wb))
		}
		n++
	}
	if n < 100 || revisits == 0 {
		t.Errorf("%d captures replayed, %d revisits", n, revisits)
	}
	t.Logf("%d captures replayed from the WACZ, %d of them revisits", n, revisits)
}

// TestReplayHostile: a folder index naming files outside the archive
// folders (.., absolute paths, a symbolic link leaving the folder) does
// not make the server read them; odd replay URLs answer 4xx.
func TestReplayHostile(t *testing.T) {
	sa := sampleArchive(t)
	dir := t.TempDir()
	secret := filepath.Join(t.TempDir(), "secret.warc")
	os.WriteFile(secret, []byte("WARC/1.0\r\nWARC-Type: resource\r\nContent-Type: text/plain\r\nContent-Length: 6\r\n\r\nsecret\r\n\r\n"), 0o644)
	os.Symlink(secret, filepath.Join(dir, "link.warc"))
	os.Symlink(filepath.Join(sa, "warcs", "example.warc.gz"), filepath.Join(dir, "example.warc.gz"))
	lines := []string{
		"com,example)/a 20200101000000 {\"url\": \"http://example.com/a\", \"mime\": \"text/plain\", \"status\": \"200\", \"length\": \"100\", \"offset\": \"0\", \"filename\": \"../" + filepath.Base(filepath.Dir(secret)) + "/secret.warc\"}",
		"com,example)/b 20200101000000 {\"url\": \"http://example.com/b\", \"mime\": \"text/plain\", \"status\": \"200\", \"length\": \"100\", \"offset\": \"0\", \"filename\": \"" + secret + "\"}",
		"com,example)/c 20200101000000 {\"url\": \"http://example.com/c\", \"mime\": \"text/plain\", \"status\": \"200\", \"length\": \"100\", \"offset\": \"0\", \"filename\": \"link.warc\"}",
		"com,example)/d 20200101000000 {\"url\": \"http://example.com/d\", \"mime\": \"text/plain\", \"status\": \"200\", \"length\": \"-5\", \"offset\": \"99999999999\", \"filename\": \"example.warc.gz\"}",
		"com,example)/e 20200101000000 {\"url\": \"http://example.com/e\", \"mime\": \"text/plain\", \"status\": \"200\", \"length\": \"x\", \"offset\": \"0\", \"filename\": \"example.warc.gz\"}",
		"com,example)/f 20200101000000 {\"url\": \"http://example.com/f\", \"mime\": \"text/plain\", \"status\": \"200\", \"length\": \"10\", \"offset\": \"7\", \"filename\": \"example.warc.gz\"}",
	}
	os.WriteFile(filepath.Join(dir, "index.cdxj"), []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	c, err := Open(context.Background(), "h", dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewServer(c)
	if err != nil {
		t.Fatal(err)
	}
	hs := s.HTTPServer()
	ln := newLoopback(t)
	go hs.Serve(ln)
	defer hs.Close()
	base := "http://" + ln.Addr().String()
	for _, p := range []string{
		"/h/20200101000000id_/http://example.com/a", "/h/20200101000000id_/http://example.com/b",
		"/h/20200101000000id_/http://example.com/c", "/h/20200101000000id_/http://example.com/d",
		"/h/20200101000000id_/http://example.com/e", "/h/20200101000000id_/http://example.com/f",
		"/h/20200101000000id_/../../../etc/passwd", "/h/20200101000000id_/file:///etc/passwd",
		"/h/2020id_/http://example.com/" + strings.Repeat("a", 1<<20), "/nosuch/2020id_/http://example.com/a",
		"/h/99999999999999id_/http:/example.com/a", "/h/1id_/%00",
	} {
		resp, err := noRedirect.Get(base + p)
		if err != nil {
			t.Errorf("%.80s: %v", p, err)
			continue
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if bytes.Contains(b, []byte("secret")) || bytes.Contains(b, []byte("root:")) {
			t.Errorf("%.80s: %d: a file outside the archive folders was read: %q", p, resp.StatusCode, b)
		}
		if resp.StatusCode < 300 || resp.StatusCode >= 500 {
			t.Errorf("%.80s: %d %.200q", p, resp.StatusCode, b)
		}
		t.Logf("%.80s: %d", p, resp.StatusCode)
	}
}
