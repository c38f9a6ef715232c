package waczpack

import (
	"archive/zip"
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/arcport/arcport/lib/internal/samples"
	"github.com/arcport/arcport/lib/internal/signtest"
)

func writeKey(t *testing.T, c elliptic.Curve) string {
	t.Helper()
	k, err := ecdsa.GenerateKey(c, rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := x509.MarshalECPrivateKey(k)
	p := filepath.Join(t.TempDir(), "key.pem")
	os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: b}), 0o600)
	return p
}

// editEntry copies a zip, replacing the entry name's bytes through fn.
func editEntry(t *testing.T, src, name string, fn func([]byte) []byte) string {
	t.Helper()
	zr, err := zip.OpenReader(src)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	dst := filepath.Join(t.TempDir(), "edited.wacz")
	f, _ := os.Create(dst)
	defer f.Close()
	zw := zip.NewWriter(f)
	for _, e := range zr.File {
		rc, _ := e.Open()
		data, _ := io.ReadAll(rc)
		rc.Close()
		if e.Name == name {
			data = fn(data)
		}
		w, _ := zw.CreateHeader(&zip.FileHeader{Name: e.Name, Method: e.Method})
		w.Write(data)
	}
	zw.Close()
	return dst
}

func TestCreateSignKeyValidate(t *testing.T) {
	for _, tc := range []struct {
		curve elliptic.Curve
		warn  bool
	}{{elliptic.P384(), false}, {elliptic.P256(), true}} {
		name := tc.curve.Params().Name
		t.Run(name, func(t *testing.T) {
			key := writeKey(t, tc.curve)
			out := filepath.Join(t.TempDir(), "s.wacz")
			_, se, code := run(t, nil, "create", "-o", out, "--sign-key", key, samples.Path("example.warc.gz"))
			if code != 0 {
				t.Fatalf("create: %d %s", code, se)
			}
			if got := strings.Contains(se, "ReplayWeb.page verifies anonymous signatures with P-384 keys only"); got != tc.warn {
				t.Errorf("create stderr %q (warning expected: %v)", se, tc.warn)
			}
			so, se, code := run(t, nil, "validate", out)
			re := regexp.MustCompile(`^` + regexp.QuoteMeta(out) + `: valid WACZ 1\.1\.1\n` + regexp.QuoteMeta(out) +
				`: signed anonymously by ` + name + ` key [0-9a-f]{16} at 20\d\d-\d\d-\d\dT\d\d:\d\d:\d\dZ with arcport waczpack \S+\n`)
			if code != 0 || !re.MatchString(so) {
				t.Errorf("validate: %d %q %q", code, so, se)
			}
			if got := strings.Contains(so, "warning: anonymous key is P-256"); got != tc.warn {
				t.Errorf("validate warning: %q", so)
			}

			// tampering: exit 1, one line on stderr
			for what, bad := range map[string]string{
				"datapackage": editEntry(t, out, "datapackage.json", func(b []byte) []byte {
					return bytes.Replace(b, []byte(`"profile"`), []byte(`"title": "forged", "profile"`), 1)
				}),
				"digest": editEntry(t, out, "datapackage-digest.json", func(b []byte) []byte {
					return regexp.MustCompile(`"signature": "[A-Za-z0-9+/]{8}`).ReplaceAll(b, []byte(`"signature": "AAAAAAAA`))
				}),
			} {
				so, se, code := run(t, nil, "validate", bad)
				if code != 1 || so != "" || strings.Count(se, "\n") != 1 || !strings.Contains(se, "datapackage-digest.json") {
					t.Errorf("tampered %s: %d %q %q", what, code, so, se)
				}
				t.Logf("tampered %s: %s", what, strings.TrimSpace(se))
			}
		})
	}
}

func TestCreateSignURL(t *testing.T) {
	a := signtest.New("archive.example.org")
	srv := httptest.NewServer(a.Handler("tok"))
	defer srv.Close()
	dir := t.TempDir()
	out := filepath.Join(dir, "d.wacz")
	_, se, code := run(t, nil, "create", "-o", out, "--sign-url", srv.URL+"/sign", "--sign-token", "tok", samples.Path("example.warc.gz"))
	if code != 0 {
		t.Fatalf("create: %d %s", code, se)
	}
	so, se, code := run(t, nil, "validate", out)
	if code != 0 || !strings.Contains(so, ": signed by archive.example.org (certificate sha256 ") ||
		!strings.Contains(so, `root not in this system's trust store)`) || !strings.Contains(so, `by "CN=arcport test TSA" with authsigner test`) {
		t.Errorf("validate: %d %q %q", code, so, se)
	}
	roots := filepath.Join(dir, "roots.pem")
	os.WriteFile(roots, []byte(signtest.PEM(a.CA)), 0o644)
	so, se, code = run(t, nil, "validate", "--trust", roots, out)
	if code != 0 || !strings.Contains(so, `issued by "CN=arcport test CA", trusted root)`) {
		t.Errorf("validate --trust: %d %q %q", code, so, se)
	}
	t.Log(strings.TrimSpace(so))

	// bad token: exit 1, nothing left behind
	out2 := filepath.Join(dir, "e.wacz")
	_, se, code = run(t, nil, "create", "-o", out2, "--sign-url", srv.URL+"/sign", "--sign-token", "bad", samples.Path("example.warc.gz"))
	if code != 1 || !strings.Contains(se, "403") || strings.Count(se, "\n") != 1 {
		t.Errorf("bad token: %d %q", code, se)
	}
	if _, err := os.Stat(out2); err == nil {
		t.Errorf("%s written despite the signing failure", out2)
	}
	// usage errors
	if _, _, code := run(t, nil, "create", "-o", out2, "--sign-url", "x", "--sign-key", "y", samples.Path("example.warc.gz")); code != 2 {
		t.Errorf("--sign-url with --sign-key: exit %d, want 2", code)
	}
}

// TestSignTokenEnv: WACZ_SIGN_TOKEN gives --sign-token, and is ignored
// without --sign-url.
func TestSignTokenEnv(t *testing.T) {
	a := signtest.New("archive.example.org")
	srv := httptest.NewServer(a.Handler("envtok"))
	defer srv.Close()
	t.Setenv("WACZ_SIGN_TOKEN", "envtok")
	dir := t.TempDir()
	if _, se, code := run(t, nil, "create", "-o", filepath.Join(dir, "a.wacz"), "--sign-url", srv.URL+"/sign", samples.Path("example.warc.gz")); code != 0 {
		t.Errorf("token from the environment: %d %s", code, se)
	}
	if _, se, code := run(t, nil, "create", "-o", filepath.Join(dir, "b.wacz"), samples.Path("example.warc.gz")); code != 0 {
		t.Errorf("token in the environment, no --sign-url: %d %s", code, se)
	}
}
