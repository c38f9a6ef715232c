package hostile

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"

	"github.com/arcport/arcport/lib/htcache"
)

const secret = "TOP-SECRET-8c1f0e"

// TestHtcacheXSaveSlip: cache entries whose X-Save (where HTTrack stored an
// external body) leaves the mirror: "../", absolute, "a/../../",
// backslashes, a symlink pointing out. htcache export (WARC and ARC), ls and
// cat never read the secret file beside the mirror, and the one honest
// entry is exported.
func TestHtcacheXSaveSlip(t *testing.T) {
	ht := bin(t, "htcache")
	c := newCase(t)
	secretPath := c.put(t, "secret.txt", []byte(secret))
	root := filepath.Join(c.in, "mirror")
	os.MkdirAll(filepath.Join(root, "hts-cache"), 0o755)
	os.MkdirAll(filepath.Join(root, "site"), 0o755)
	os.WriteFile(filepath.Join(root, "site", "ok.txt"), []byte("fine body"), 0o644)
	if err := os.Symlink(secretPath, filepath.Join(root, "site", "link.txt")); err != nil {
		t.Fatal(err)
	}
	saves := []string{"site/ok.txt", "../secret.txt", secretPath, "site/../../secret.txt", `..\secret.txt`,
		"site/link.txt", "/../../secret.txt", "site/%2e%2e/%2e%2e/secret.txt", filepath.Join(filepath.Base(root), "..", "secret.txt")}
	f, err := os.Create(filepath.Join(root, "hts-cache", "new.zip"))
	if err != nil {
		t.Fatal(err)
	}
	zw := htcache.NewWriter(f)
	for i, s := range saves {
		m := htcache.Meta{Proto: "HTTP/1.1", LineCode: 200, LineReason: "OK", StatusCode: 200, StatusMessage: "OK",
			Size: int64(len(secret)), ContentType: "text/plain", Save: s}
		if err := zw.Add(fmt.Sprintf("http://slip.test/%d", i), &m, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	c.freeze(t)
	for _, args := range [][]string{
		{"export", "-o", filepath.Join(c.out, "x.warc.gz"), root},
		{"export", "--format", "arc", root},
		{"ls", "--json", root},
		{"cat", root, "http://slip.test/1"},
		{"cat", root, "http://slip.test/5"},
	} {
		res := c.cmd(ht, args...).exec(t)
		what := strings.Join(args[:1], " ")
		if !check(t, what, res, expect{name: "new.zip"}) || !c.contained(t, what, res) {
			continue
		}
		out := res.out
		if bytes.HasPrefix(out, []byte{0x1f, 0x8b}) {
			out, _ = gunzipAll(out)
		}
		if bytes.Contains(out, []byte(secret)) || strings.Contains(res.stderr, secret) {
			t.Errorf("%s: the secret beside the mirror leaked\n  %s", cmdline(&run{bin: ht, args: args}), res)
		}
		if args[0] == "export" && args[1] == "-o" {
			b, err := os.ReadFile(filepath.Join(c.out, "x.warc.gz"))
			if err != nil {
				t.Fatalf("export: %v\n  %s", err, res)
			}
			n, err := readValid(b, false)
			if err != nil {
				t.Errorf("export: %v", err)
			}
			dec, _ := gunzipAll(b)
			if bytes.Contains(dec, []byte(secret)) {
				t.Errorf("export: the secret is in the WARC")
			}
			if !bytes.Contains(dec, []byte("fine body")) || n != 2 {
				t.Errorf("export: %d records (want warcinfo + the honest entry)\n  %s", n, res)
			}
			os.Remove(filepath.Join(c.out, "x.warc.gz"))
		}
	}
}

// gunzipAll inflates concatenated gzip members.
func gunzipAll(b []byte) ([]byte, error) {
	r, err := gzip.NewReader(bytes.NewReader(b)) // reads every member
	if err != nil {
		return nil, err
	}
	return io.ReadAll(r)
}

// TestWACZSlip: a WACZ whose zip holds "../", absolute and backslash
// names, and whose datapackage.json lists a resource at "../secret.txt"
// (with the secret's true hash, and a fresh datapackage-digest.json):
// waczpack validate fails naming the bad path, and validate, ls and get
// read nothing outside the WACZ or write anything.
func TestWACZSlip(t *testing.T) {
	wp := bin(t, "waczpack")
	orig := sampleWACZ(t)
	zr, err := zip.NewReader(bytes.NewReader(orig), int64(len(orig)))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	sum := sha256.Sum256([]byte(secret))
	var dp map[string]any
	for _, f := range zr.File {
		switch f.Name {
		case "datapackage.json":
			rc, _ := f.Open()
			b, _ := io.ReadAll(rc)
			rc.Close()
			if err := json.Unmarshal(b, &dp); err != nil {
				t.Fatal(err)
			}
			continue
		case "datapackage-digest.json":
			continue
		}
		w, err := zw.CreateRaw(&f.FileHeader)
		if err != nil {
			t.Fatal(err)
		}
		r, _ := f.OpenRaw()
		io.Copy(w, r)
	}
	for _, name := range []string{"../escape.txt", "/abs/escape.txt", `..\escape2.txt`, "archive/../../escape3.txt"} {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store})
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, "escape")
	}
	dp["resources"] = append(dp["resources"].([]any), map[string]any{
		"name": "secret.txt", "path": "../secret.txt", "hash": "sha256:" + hex.EncodeToString(sum[:]), "bytes": len(secret)})
	dpb, _ := json.MarshalIndent(dp, "", "  ")
	w, _ := zw.Create("datapackage.json")
	w.Write(dpb)
	dsum := sha256.Sum256(dpb)
	w, _ = zw.Create("datapackage-digest.json")
	fmt.Fprintf(w, "{\n  \"path\": \"datapackage.json\",\n  \"hash\": \"sha256:%s\"\n}\n", hex.EncodeToString(dsum[:]))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}

	c := newCase(t)
	c.put(t, "secret.txt", []byte(secret))
	p := c.put(t, "slip.wacz", buf.Bytes())
	c.freeze(t)
	res := c.cmd(wp, "validate", p).exec(t)
	t.Logf("validate says: %s", res.stderr)
	if check(t, "validate", res, expect{name: "slip.wacz", mustFail: true}) && !strings.Contains(res.stderr+string(res.out), "../secret.txt") {
		t.Errorf("validate: the reason does not name the resource path ../secret.txt\n  %s", res)
	}
	c.contained(t, "validate", res)
	for _, args := range [][]string{{"ls", "--json", p}, {"get", p, "http://www.iana.org/"}, {"get", p, "../secret.txt"}} {
		res := c.cmd(wp, args...).exec(t)
		e := expect{name: "slip.wacz"}
		if args[2] == "../secret.txt" {
			e.name = "../secret.txt" // a lookup miss names the URL
		}
		if !check(t, args[0], res, e) || !c.contained(t, args[0], res) {
			continue
		}
		if bytes.Contains(res.out, []byte(secret)) {
			t.Errorf("%s: printed the secret beside the WACZ", args[0])
		}
	}
}
