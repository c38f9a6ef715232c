package htcache

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arcport/arcport/lib/arc"
	"github.com/arcport/arcport/lib/internal/peertest"
	"github.com/arcport/arcport/lib/record"
	"github.com/arcport/arcport/lib/warc"
)

// gardenURIs are garden's entries in cache order, with the served file for
// 200s (relative to garden-origin) and the status.
var gardenURIs = []struct{ uri, origin, status string }{
	{"http://127.0.0.1:8766/robots.txt", "", "404"},
	{"http://127.0.0.1:8766/", "index.html", "200"},
	{"http://127.0.0.1:8766/style.css", "style.css", "200"},
	{"http://127.0.0.1:8766/img/rose.gif", "img/rose.gif", "200"},
	{"http://127.0.0.1:8766/news/2024.html", "news/2024.html", "200"},
	{"http://127.0.0.1:8766/news/2025.html", "news/2025.html", "200"},
	{"http://127.0.0.1:8766/members.html?sort=name", "members.html", "200"},
	{"http://127.0.0.1:8766/old-page", "", "301"},
	{"http://127.0.0.1:8766/new-page.html", "new-page.html", "200"},
	{"http://127.0.0.1:8766/gone.html", "", "404"},
	{"http://127.0.0.1:8766/files/report.pdf", "files/report.pdf", "200"},
	{"http://127.0.0.1:8766/r%C3%A9sum%C3%A9.html", "résumé.html", "200"},
	{"http://127.0.0.1:8766/img/leaf.gif", "img/leaf.gif", "200"},
	{"http://127.0.0.1:8766/index.html", "index.html", "200"},
}

// checkResponses reads response records and compares them with garden.
func checkResponses(t *testing.T, next func() (*record.Record, error)) {
	t.Helper()
	origin := filepath.Join(garden, "..", "garden-origin")
	for i, w := range gardenURIs {
		r, err := next()
		if err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		if r.TargetURI() != w.uri {
			t.Errorf("record %d: %s, want %s", i, r.TargetURI(), w.uri)
		}
		if d, err := r.Date(); err != nil || d.Format("2006-01-02") != "2026-11-22" {
			t.Errorf("%s: date %v %v, want the crawl day", w.uri, d, err)
		}
		b, err := io.ReadAll(r.Block)
		if err != nil {
			t.Fatal(err)
		}
		head, body, _ := bytes.Cut(b, []byte("\r\n\r\n"))
		if !bytes.HasPrefix(head, []byte("HTTP/1.1 "+w.status+" ")) {
			t.Errorf("%s: status line %q", w.uri, head)
		}
		if w.origin != "" {
			want, _ := os.ReadFile(filepath.Join(origin, w.origin))
			if !bytes.Equal(body, want) {
				t.Errorf("%s: body differs from garden-origin/%s", w.uri, w.origin)
			}
		}
		if w.status == "301" && !bytes.Contains(head, []byte("\r\nLocation: /new-page.html")) {
			t.Errorf("301 without its Location: %q", head)
		}
	}
	if _, err := next(); err != io.EOF {
		t.Errorf("after the last record: %v", err)
	}
}

func TestExportWARC(t *testing.T) {
	dst := filepath.Join(t.TempDir(), "garden.warc.gz")
	if _, errs, code := run("export", "-o", dst, garden); code != 0 || errs != "" {
		t.Fatalf("exit %d: %s", code, errs)
	}
	f, err := os.Open(dst)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	wr, err := warc.NewReader(f, warc.WithVerifyDigests(true), warc.WithPolicy(record.Fail))
	if err != nil {
		t.Fatal(err)
	}
	info, err := wr.Next()
	if err != nil || info.Type() != record.Warcinfo {
		t.Fatalf("first record: %v %v", info, err)
	}
	ib, _ := io.ReadAll(info.Block)
	for _, want := range []string{"httrack-version: HTTrack3.49-4+libhtsjava.so.2\r\n",
		"httrack-command: httrack http://127.0.0.1:8766/ -q -%v0 -c8 -%c50 -A100000000\r\n"} {
		if !bytes.Contains(ib, []byte(want)) {
			t.Errorf("warcinfo lacks %q", want)
		}
	}
	checkResponses(t, wr.Next)

	// warcio.js, the indexer ReplayWeb.page uses, sees the same records.
	node, warcio := peertest.WarcioCLI(t)
	out, err := exec.Command(node, warcio, "index", dst).Output()
	if err != nil {
		t.Fatalf("warcio index: %v", err)
	}
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("warcio line %q: %v", l, err)
		}
		u, _ := m["warc-target-uri"].(string)
		got = append(got, m["warc-type"].(string)+" "+u)
	}
	want := []string{"warcinfo "}
	for _, w := range gardenURIs {
		want = append(want, "response "+w.uri)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("warcio index:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestExportARC(t *testing.T) {
	out, errs, code := run("export", "--format", "arc", garden)
	if code != 0 || errs != "" {
		t.Fatalf("exit %d: %s", code, errs)
	}
	ar, err := arc.NewReader(strings.NewReader(out), arc.WithPolicy(record.Fail))
	if err != nil {
		t.Fatal(err)
	}
	fd, err := ar.Next()
	if err != nil || fd.Type() != record.ARCFiledesc {
		t.Fatalf("first record %v %v", fd, err)
	}
	checkResponses(t, ar.Next)
}

// TestExportInterrupted: a cache cut before its central directory exports
// all 14 records and says it recovered them.
func TestExportInterrupted(t *testing.T) {
	zipb, err := os.ReadFile(filepath.Join(garden, "hts-cache", "new.zip"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "garden")
	if err := os.CopyFS(dir, os.DirFS(garden)); err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "hts-cache", "new.zip")
	os.Chmod(cut, 0o644)
	if err := os.WriteFile(cut, zipb[:bytes.Index(zipb, []byte("PK\x01\x02"))], 0o644); err != nil {
		t.Fatal(err)
	}
	out, errs, code := run("export", "--format", "warc", dir)
	if code != 0 || !strings.Contains(errs, "no central directory (interrupted crawl): recovered 14 complete entries") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	wr, err := warc.NewReader(strings.NewReader(out), warc.WithPolicy(record.Fail))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for {
		_, err := wr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 15 {
		t.Errorf("%d records, want warcinfo + 14", n)
	}
}
