package e2e

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/arcport/arcport/lib/record"
	"github.com/arcport/arcport/lib/warc"
)

// TestAddReplay: `waczpack add` appends two WARCs to a WACZ in place: the
// old WARC keeps every byte at its offset, the WACZ validates, and
// ReplayWeb.page replays the old page and the added ones.
func TestAddReplay(t *testing.T) {
	wzReplayPeers(t)
	dir := t.TempDir()
	wp := bin(t, "waczpack")
	site := filepath.Join(dir, "site.wacz")
	if _, se, code := run(t, wp, nil, "create", "-q", "-o", site, sample("example.arc.gz")); code != 0 {
		t.Fatalf("create: %s", se)
	}
	orig, _ := os.ReadFile(site)
	third := writeHTMLWARC(t, dir, "third.warc.gz", "http://third.example/", "Added Third")
	_, se, code := run(t, wp, nil, "add", "-v", site, filepath.Join(repoRoot(), "testdata/warc/example-iana.org-chunked.warc"), third)
	if code != 0 {
		t.Fatalf("add: exit %d: %s", code, se)
	}
	t.Log(strings.TrimSpace(se))
	var kept int64
	if _, err := fmt.Sscanf(se[strings.Index(se, ": ")+2:], "%d bytes kept in place", &kept); err != nil || kept <= 0 {
		t.Fatalf("no kept bytes in %q", se)
	}
	now, _ := os.ReadFile(site)
	if !bytes.Equal(now[:kept], orig[:kept]) {
		t.Errorf("the first %d bytes (the old WARC) changed", kept)
	}
	if so, se, code := run(t, wp, nil, "validate", site); code != 0 {
		t.Fatalf("validate: %s%s", so, se)
	}
	for _, c := range []struct{ url, title string }{
		{"http://example.com/", "Example Domain"},
		{"http://www.iana.org/", "Internet Assigned Numbers Authority"},
		{"http://third.example/", "Added Third"},
	} {
		if got := wzReplayTitle(t, site, c.url); got != c.title {
			t.Errorf("ReplayWeb.page shows %q for %s after add, want %q", got, c.url, c.title)
		}
	}
}

// writeHTMLWARC writes a WARC.gz with one HTML response.
func writeHTMLWARC(t *testing.T, dir, name, uri, title string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	w := warc.NewWriter(f)
	html := "<!doctype html><html><head><title>" + title + "</title></head><body><p>" + title + "</p></body></html>"
	http := "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: " + itoa(len(html)) + "\r\n\r\n" + html
	err = w.WriteRecord(&record.Record{
		Header: record.Header{
			{Name: record.FieldType, Value: "response"},
			{Name: record.FieldDate, Value: "2021-05-06T07:08:09Z"},
			{Name: record.FieldTargetURI, Value: uri},
			{Name: record.FieldContentType, Value: "application/http; msgtype=response"},
		},
		Block: strings.NewReader(http),
	})
	if err != nil || w.Close() != nil || f.Close() != nil {
		t.Fatal(err)
	}
	return p
}

// writeBigWARC writes an uncompressed WARC of about size bytes: responses
// of 1 MiB of words, which add must compress (slow enough to be killed
// in the middle).
func writeBigWARC(t *testing.T, path string, size int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	rnd := rand.New(rand.NewSource(1))
	words := strings.Fields("archive record capture crawl page index digest payload header block offset member replay signature journal")
	var body bytes.Buffer
	for n := 0; n < size; n += body.Len() {
		body.Reset()
		for body.Len() < 1<<20 {
			body.WriteString(words[rnd.Intn(len(words))])
			body.WriteString(fmt.Sprintf(" %d\n", rnd.Int63()))
		}
		http := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n", body.Len())
		fmt.Fprintf(bw, "WARC/1.1\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:%08d-0000-4000-8000-000000000000>\r\nWARC-Date: 2022-01-01T00:00:00Z\r\nWARC-Target-URI: http://big.example/%d.txt\r\nContent-Type: application/http; msgtype=response\r\nContent-Length: %d\r\n\r\n%s",
			n>>20, n>>20, len(http)+body.Len(), http)
		bw.Write(body.Bytes())
		bw.WriteString("\r\n\r\n")
	}
	if err := bw.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

// killMidAdd starts `waczpack add site big` and kills it with SIGKILL once
// the WACZ has grown by grow bytes past its old size.
func killMidAdd(t *testing.T, wp, site, big string, grow int64) {
	t.Helper()
	st, _ := os.Stat(site)
	cmd := exec.Command(wp, "add", "-q", site, big)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	for {
		select {
		case err := <-exited:
			t.Fatalf("add ended (%v) before it wrote %d bytes: it could not be killed in the middle", err, grow)
		default:
		}
		if now, err := os.Stat(site); err == nil && now.Size() > st.Size()+grow {
			break
		}
		time.Sleep(2 * time.Millisecond)
	}
	cmd.Process.Kill()
	<-exited
	if _, err := os.Stat(filepath.Join(filepath.Dir(site), "."+filepath.Base(site)+".add")); err != nil {
		t.Fatalf("no journal after the kill: %v", err)
	}
}

// TestAddKilled: `waczpack add` killed with SIGKILL while it writes leaves
// a journal; the next validate rolls the WACZ back to its old bytes (and
// says so), so does the next ls, and so does the next add, which then
// completes.
func TestAddKilled(t *testing.T) {
	dir := t.TempDir()
	wp := bin(t, "waczpack")
	site := filepath.Join(dir, "site.wacz")
	if _, se, code := run(t, wp, nil, "create", "-q", "-o", site, sample("example.warc.gz")); code != 0 {
		t.Fatalf("create: %s", se)
	}
	orig, _ := os.ReadFile(site)
	big := filepath.Join(dir, "big.warc")
	writeBigWARC(t, big, 96<<20)

	killMidAdd(t, wp, site, big, 4<<20)
	so, se, code := run(t, wp, nil, "validate", site)
	if code != 0 || !strings.Contains(se, "an interrupted add was rolled back") || !strings.Contains(string(so), "valid WACZ") {
		t.Fatalf("validate after the kill: exit %d\n%s%s", code, so, se)
	}
	if now, _ := os.ReadFile(site); sha256.Sum256(now) != sha256.Sum256(orig) {
		t.Fatalf("rolled back to %d bytes that differ from the original %d", len(now), len(orig))
	}

	killMidAdd(t, wp, site, big, 8<<20)
	ls, se, code := run(t, wp, nil, "ls", site)
	if code != 0 || !strings.Contains(se, "an interrupted add was rolled back") || !bytes.Contains(ls, []byte("http://example.com/")) {
		t.Fatalf("ls after the kill: exit %d\n%s%s", code, ls, se)
	}
	if now, _ := os.ReadFile(site); sha256.Sum256(now) != sha256.Sum256(orig) {
		t.Fatalf("ls rolled back to %d bytes that differ from the original %d", len(now), len(orig))
	}

	killMidAdd(t, wp, site, big, 12<<20)
	got, se, code := run(t, wp, nil, "get", site, "http://example.com/")
	if code != 0 || !strings.Contains(se, "an interrupted add was rolled back") || !bytes.Contains(got, []byte("Example Domain")) {
		t.Fatalf("get after the kill: exit %d\n%.300s%s", code, got, se)
	}
	if now, _ := os.ReadFile(site); sha256.Sum256(now) != sha256.Sum256(orig) {
		t.Fatalf("get rolled back to %d bytes that differ from the original %d", len(now), len(orig))
	}

	killMidAdd(t, wp, site, big, 6<<20)
	merged := filepath.Join(t.TempDir(), "merged.wacz")
	_, se, code = run(t, wp, nil, "merge", "-q", "-o", merged, site)
	if code != 0 || !strings.Contains(se, "an interrupted add was rolled back") {
		t.Fatalf("merge after the kill: exit %d: %s", code, se)
	}
	if ls, _, _ := run(t, wp, nil, "ls", merged); !bytes.Contains(ls, []byte("http://example.com/")) || bytes.Contains(ls, []byte("big.example")) {
		t.Errorf("captures of the merge after the rollback:\n%s", ls)
	}

	killMidAdd(t, wp, site, big, 16<<20)
	_, se, code = run(t, wp, nil, "add", site, filepath.Join(repoRoot(), "testdata/warc/example-iana.org-chunked.warc"))
	if code != 0 || !strings.Contains(se, "an interrupted add was rolled back") {
		t.Fatalf("add after the kill: exit %d: %s", code, se)
	}
	if so, se, code := run(t, wp, nil, "validate", site); code != 0 || se != "" {
		t.Fatalf("validate after add: exit %d\n%s%s", code, so, se)
	}
	ls, _, _ = run(t, wp, nil, "ls", site)
	if !bytes.Contains(ls, []byte("http://www.iana.org/")) || bytes.Contains(ls, []byte("big.example")) {
		t.Errorf("captures after the rollback and add:\n%s", ls)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("files left beside the WACZ: %v", entries)
	}
}

// TestAddS3ServerCopy: `waczpack add s3://coll/big.wacz more.warc.gz`
// replaces the object by one whose unchanged prefix (the old WARCs, 10+
// MB) the server copies (UploadPartCopy): only the old WACZ's directory,
// index, pages and manifest are downloaded and only the new WARC, index,
// pages, manifest and directory uploaded. The result validates, keeps the
// old bytes and finds the new page.
func TestAddS3ServerCopy(t *testing.T) {
	e := newS3(t, "coll")
	dir := t.TempDir()
	wp := bin(t, "waczpack")
	big := filepath.Join(dir, "big.warc")
	writeBigWARC(t, big, 24<<20)
	local := filepath.Join(dir, "big.wacz")
	if _, se, code := run(t, wp, nil, "create", "-q", "-o", local, big, sample("example.warc.gz")); code != 0 {
		t.Fatalf("create: %s", se)
	}
	orig, _ := os.ReadFile(local)
	e.put(t, "coll", "big.wacz", orig)
	third := writeHTMLWARC(t, dir, "third.warc.gz", "http://third.example/", "Added Third")
	e.proxy.Reset()
	_, se, code := e.run(t, "waczpack", nil, "add", "-v", "s3://coll/big.wacz", third)
	if code != 0 {
		t.Fatalf("add: exit %d: %s", code, se)
	}
	t.Log(strings.TrimSpace(se))
	var kept int64
	if i := strings.Index(se, ": "); i < 0 {
		t.Fatalf("no summary: %q", se)
	} else if _, err := fmt.Sscanf(se[i+2:], "%d bytes copied by the server", &kept); err != nil || kept < 5<<20 {
		t.Fatalf("no server-side copy in %q", se)
	}
	var copies, uploaded int64
	for _, r := range e.proxy.Log() {
		if r.Method != "PUT" {
			continue
		}
		if r.Header.Get("X-Amz-Copy-Source") != "" {
			copies++
		} else if n, _ := strconv.ParseInt(r.Header.Get("Content-Length"), 10, 64); n > 0 {
			uploaded += n
		}
	}
	st := e.proxy.Stats()
	t.Logf("WACZ of %d bytes: %d requests, %d bytes downloaded, %d uploaded, %d copy request(s)", len(orig), st.Requests, st.Bytes, uploaded, copies)
	if copies != 1 || uploaded > 256<<10 || st.Bytes > 256<<10 {
		t.Errorf("%d copies, %d bytes uploaded, %d downloaded: want the prefix copied by the server and little else moved", copies, uploaded, st.Bytes)
	}
	now := e.object(t, "coll", "big.wacz")
	if int64(len(now)) <= kept || !bytes.Equal(now[:kept], orig[:kept]) {
		t.Fatalf("the first %d bytes differ from the old WACZ's", kept)
	}
	added := filepath.Join(dir, "added.wacz")
	os.WriteFile(added, now, 0o644)
	if so, se, code := run(t, wp, nil, "validate", added); code != 0 {
		t.Fatalf("validate: %s%s", so, se)
	}
	for _, u := range []string{"http://third.example/", "http://example.com/", "http://big.example/3.txt"} {
		if got, se, code := run(t, wp, nil, "get", added, u); code != 0 || len(got) == 0 {
			t.Errorf("get %s: exit %d: %s", u, code, se)
		}
	}
	if u := e.uploads(t, "coll"); len(u) != 0 {
		t.Errorf("incomplete uploads left: %v", u)
	}
}
