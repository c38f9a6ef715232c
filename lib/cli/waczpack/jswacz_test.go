package waczpack

import (
	"bytes"
	"fmt"
	"math/rand"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arcport/arcport/lib/internal/peertest"
	"github.com/arcport/arcport/lib/internal/samples"
	"github.com/arcport/arcport/lib/internal/signtest"
	"github.com/arcport/arcport/lib/internal/warcgen"
)

// jsWACZ returns the js-wacz CLI that `make peers` installs in scripts/npm.
func jsWACZ(t *testing.T) (node, cli string) {
	t.Helper()
	node = peertest.Need(t, "node", "nodejs")
	cli = filepath.Join(filepath.Dir(filepath.Dir(filepath.Dir(samples.Path("x.warc")))), "scripts/npm/node_modules/@harvard-lil/js-wacz/bin/cli.js")
	if _, err := os.Stat(cli); err != nil {
		peertest.Missing(t, "@harvard-lil/js-wacz", "not in scripts/npm/node_modules")
	}
	return node, cli
}

// TestJSWACZSignedValidates: a WACZ made and signed by js-wacz (Harvard
// LIL's reference WACZ writer) against an authsign-compatible server (the
// signtest double of webrecorder/authsign) validates here: digests,
// manifest hash and the domain signature, with the signer's domain, its
// certificate chain and the time-stamp reported; a manifest edited after
// signing fails.
func TestJSWACZSignedValidates(t *testing.T) {
	node, cli := jsWACZ(t)
	a := signtest.New("archive.example.org")
	srv := httptest.NewServer(a.Handler("tok"))
	defer srv.Close()
	dir := t.TempDir()
	out := filepath.Join(dir, "js.wacz")
	// a WARC over 64 KiB besides the fixture: js-wacz hashes files by
	// 64 KiB chunks (see wacz.jsWACZHash)
	in := filepath.Join(dir, "in")
	os.Mkdir(in, 0o755)
	os.WriteFile(filepath.Join(in, "example.warc.gz"), mustRead(t, "example.warc.gz"), 0o644)
	var recs [][]byte
	rnd := rand.New(rand.NewSource(1))
	for i := range 8 {
		body := make([]byte, 30<<10+i) // random: the gzip members stay as large
		rnd.Read(body)
		msg, _ := warcgen.HTTP(body, false)
		recs = append(recs, warcgen.Record(warcgen.Response(fmt.Sprintf("http://big.example/%d", i), warcgen.B32("sha1", "sha1", msg), warcgen.B32("sha1", "sha1", body)), msg))
	}
	big := warcgen.Gzip(recs...)
	if len(big) < 3*64<<10 {
		t.Fatalf("big.warc.gz is %d bytes: want several 64 KiB chunks", len(big))
	}
	os.WriteFile(filepath.Join(in, "big.warc.gz"), big, 0o644)
	// js-wacz sends --signing-token as the Authorization header verbatim
	cmd := exec.Command(node, cli, "create", "-f", filepath.Join(in, "*.warc.gz"), "-o", out,
		"--title", "signed by js-wacz", "--signing-url", srv.URL+"/sign", "--signing-token", "bearer tok", "--log-level", "error")
	var se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &se, &se
	if err := cmd.Run(); err != nil {
		t.Fatalf("js-wacz create: %v\n%s", err, se.String())
	}
	if dp := zipEntry(t, out, "datapackage.json"); !strings.Contains(dp, `"software": "@harvard-lil/js-wacz`) {
		t.Fatalf("not a js-wacz WACZ:\n%s", dp)
	}
	if dg := zipEntry(t, out, "datapackage-digest.json"); !strings.Contains(dg, `"domain": "archive.example.org"`) {
		t.Fatalf("js-wacz did not store the server's signature:\n%s", dg)
	}
	roots := filepath.Join(dir, "roots.pem")
	os.WriteFile(roots, []byte(signtest.PEM(a.CA)), 0o644)
	so, stderr, code := run(t, nil, "validate", "--trust", roots, out)
	t.Log(strings.TrimSpace(so + stderr))
	if strings.Count(so, "harvard-lil/js-wacz#127") != 2 {
		t.Errorf("want the js-wacz hash warning for both WARCs:\n%s", so)
	}
	if code != 0 || !strings.Contains(so, out+": valid WACZ 1.1.1\n") ||
		!strings.Contains(so, out+": signed by archive.example.org (certificate sha256 ") ||
		!strings.Contains(so, `issued by "CN=arcport test CA", trusted root)`) ||
		!strings.Contains(so, `by "CN=arcport test TSA" with authsigner test`) {
		t.Errorf("validate: exit %d\n%s%s", code, so, stderr)
	}
	// edited after signing
	forged := editEntry(t, out, "datapackage.json", func(b []byte) []byte {
		return bytes.Replace(b, []byte("signed by js-wacz"), []byte("forged by someone"), 1)
	})
	so, stderr, code = run(t, nil, "validate", "--trust", roots, forged)
	if code != 1 || !strings.Contains(stderr, "datapackage-digest.json") {
		t.Errorf("forged js-wacz WACZ: exit %d %q %q", code, so, stderr)
	}
}
