package zimdump

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arcport/arcport/lib/internal/peertest"
	"github.com/arcport/arcport/lib/internal/zimtest"
	"github.com/arcport/arcport/lib/record"
	"github.com/arcport/arcport/lib/warc"
	"github.com/arcport/arcport/lib/zim"
)

// TestWarc converts fixtures to WARC and reads the result back with
// lib/warc (digests verified, any problem fatal): one warcinfo record,
// then one record per user entry whose block is the entry's exact bytes
// (resource) or an HTTP 302 to the resolved target (response). The output
// is reproducible. warcio.js (a peer: peertest.Warcio) must index every
// record at the offset, with the type and target URI, lib/warc read.
func TestWarc(t *testing.T) {
	node, cli := peertest.WarcioCLI(t)
	for _, f := range []string{"nons/wikibooks_be_all_nopic_2017-02.zim", "withns/small.zim"} {
		zf := filepath.Join(fixtures, f)
		out := filepath.Join(t.TempDir(), "x.warc.gz")
		if r := ours("warc", "-o", out, zf); r.rc != 0 || r.stdout != "" {
			t.Fatalf("%s: %+v", f, r)
		}
		a, err := zim.Open(zf)
		if err != nil {
			t.Fatal(err)
		}
		fh, err := os.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		wr, err := warc.NewReader(fh, warc.WithVerifyDigests(true), warc.WithPolicy(record.Fail))
		if err != nil {
			t.Fatal(err)
		}
		base := warcBase(a, zf)
		n := 0
		var listed []string // offset, type and target URI of each record, as warcio.js lists them
		for {
			rec, err := wr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s record %d: %v", f, n, err)
			}
			body, _ := io.ReadAll(rec.Block)
			listed = append(listed, warcioLine(rec.Offset, string(rec.Type()), rec.TargetURI()))
			if n == 0 {
				if rec.Type() != record.Warcinfo || !bytes.Contains(body, []byte("zim-uuid: "+a.Header().UUIDString())) {
					t.Fatalf("%s: first record %s %q", f, rec.Type(), body)
				}
				n++
				continue
			}
			n++
			p, err := urlPath(rec.TargetURI(), base)
			if err != nil {
				t.Fatal(err)
			}
			e, err := a.EntryByPath(p)
			if err != nil {
				t.Fatalf("%s: %s: %v", f, rec.TargetURI(), err)
			}
			if e.IsRedirect() {
				tgt, _ := a.Resolve(e)
				want := "HTTP/1.1 302 Found\r\nLocation: " + base + escapePath(a.PathOf(tgt)) + "\r\nContent-Length: 0\r\n\r\n"
				if rec.Type() != record.Response || string(body) != want {
					t.Errorf("%s: redirect %s: %s %q", f, p, rec.Type(), body)
				}
				continue
			}
			want, _ := a.ReadBlob(e)
			mt, _ := a.MimeType(e)
			if rec.Type() != record.Resource || rec.ContentType() != mt || !bytes.Equal(body, want) {
				t.Errorf("%s: %s: type %s content-type %s, %d bytes (want %d)", f, p, rec.Type(), rec.ContentType(), len(body), len(want))
			}
		}
		fh.Close()
		if n != int(a.UserEntryCount())+1 {
			t.Errorf("%s: %d records, want %d", f, n, a.UserEntryCount()+1)
		}
		again := filepath.Join(t.TempDir(), "y.warc.gz")
		ours("warc", "-o", again, zf)
		b1, _ := os.ReadFile(out)
		b2, _ := os.ReadFile(again)
		if !bytes.Equal(b1, b2) {
			t.Errorf("%s: output not reproducible", f)
		}
		idx, err := exec.Command(node, cli, "index", out, "-f", "offset,warc-type,warc-target-uri").Output()
		if err != nil {
			t.Fatalf("%s: warcio index: %v", f, err)
		}
		var got []string
		for _, l := range strings.Split(strings.TrimSuffix(string(idx), "\n"), "\n") {
			var e struct {
				Offset json.Number `json:"offset"`
				Type   string      `json:"warc-type"`
				URI    string      `json:"warc-target-uri"`
			}
			if err := json.Unmarshal([]byte(l), &e); err != nil {
				t.Fatalf("%s: warcio index line %q: %v", f, l, err)
			}
			off, _ := e.Offset.Int64()
			got = append(got, warcioLine(off, e.Type, e.URI))
		}
		if len(got) != n || strings.Join(got, "\n") != strings.Join(listed, "\n") {
			t.Errorf("%s: warcio.js lists %d records, lib/warc read %d:\n%s\nlib/warc:\n%s", f, len(got), n, strings.Join(got, "\n"), strings.Join(listed, "\n"))
		}
		a.Close()
	}
}

// warcioLine is one record as the warc_test compares it with warcio.js.
func warcioLine(off int64, typ, uri string) string { return fmt.Sprintf("%d %s %s", off, typ, uri) }

// urlPath turns a WARC-Target-URI back into the archive path.
func urlPath(uri, base string) (string, error) {
	rest := strings.TrimPrefix(uri, base)
	segs := strings.Split(rest, "/")
	for i, s := range segs {
		u, err := pathUnescape(s)
		if err != nil {
			return "", err
		}
		segs[i] = u
	}
	return strings.Join(segs, "/"), nil
}

func pathUnescape(s string) (string, error) { return url.PathUnescape(s) }

// TestWarcSpoolMax: an entry of 3 MiB (a few KB of zstd in the archive)
// with --spool-max 2M stops `zimdump warc` with exit 1 and one line
// naming the file, the entry's dirent offset and the cap; no output file,
// nothing in TMPDIR. With the default cap it converts.
func TestWarcSpoolMax(t *testing.T) {
	zf := writeZim(t, zimtest.Spec{
		Clusters: []zimtest.Cluster{{Comp: 5}},
		Entries: []zimtest.Entry{
			{NS: 'C', Path: "big", Mime: "text/plain", Data: make([]byte, 3<<20)},
			{NS: 'C', Path: "small", Mime: "text/plain", Data: []byte("x")},
		},
	})
	a, err := zim.Open(zf)
	if err != nil {
		t.Fatal(err)
	}
	idx, found, err := a.Find('C', "big")
	if err != nil || !found {
		t.Fatal(found, err)
	}
	ent, err := a.EntryAt(idx)
	a.Close()
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	out := filepath.Join(t.TempDir(), "x.warc.gz")
	r := ours("warc", "--spool-max=2M", "-o", out, zf)
	want := fmt.Sprintf("zimdump: %s: offset %d: entry C/big: record block declared as %d bytes, more than the spool limit of 2 MiB (raise it with --spool-max)\n", zf, ent.Offset, 3<<20)
	if r.rc != 1 || r.stderr != want || r.stdout != "" {
		t.Errorf("--spool-max=2M: %+v\nwant stderr %q", r, want)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("%s exists", out)
	}
	if r := ours("warc", "--spool-max=lots", "-o", out, zf); r.rc != 1 || !strings.Contains(r.stderr, "--spool-max: bad size") {
		t.Errorf("--spool-max=lots: %+v", r)
	}
	if r := ours("warc", "-o", out, zf); r.rc != 0 {
		t.Errorf("default cap: %+v", r)
	}
	if ents, _ := os.ReadDir(tmp); len(ents) > 0 {
		t.Errorf("left %s in TMPDIR", ents[0].Name())
	}
}
