package waczpack

import (
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/arcport/arcport/lib/internal/peertest"
	"github.com/arcport/arcport/lib/internal/samples"
	"github.com/arcport/arcport/lib/internal/signtest"
)

// encryptKey has the venv's Python (cryptography, which authsign uses)
// write the domain key as authsign keeps it: PKCS#8 PEM encrypted with
// authsign's passphrase ("passphrase", signer.py's PASSPHRASE).
const encryptKey = `
import sys
from cryptography.hazmat.primitives import serialization
k = serialization.load_der_private_key(open(sys.argv[1], "rb").read(), password=None)
open(sys.argv[2], "wb").write(k.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.BestAvailableEncryption(b"passphrase")))
`

func fingerprint(c *x509.Certificate) string {
	s := sha256.Sum256(c.Raw)
	return hex.EncodeToString(s[:])
}

// startAuthsign runs webrecorder's authsign 0.6.1 server (uvicorn
// authsign.main:app) on a free loopback port with a's domain key and
// certificate in its data folder, a's RFC 3161 authority (tsa) as its
// time-stamping server and a's CA as the only trusted root of both
// kinds; it returns the server's URL.
func startAuthsign(t *testing.T, uvicorn string, a *signtest.Authority, tsa, token string) string {
	t.Helper()
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	os.Mkdir(data, 0o755)
	der, err := x509.MarshalPKCS8PrivateKey(a.DomainKey)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "key.der"), der, 0o600)
	py := filepath.Join(filepath.Dir(uvicorn), "python")
	if out, err := exec.Command(py, "-c", encryptKey, filepath.Join(dir, "key.der"), filepath.Join(data, "private-key.pem")).CombinedOutput(); err != nil {
		t.Fatalf("writing authsign's key: %v\n%s", err, out)
	}
	os.WriteFile(filepath.Join(data, "cert.pem"), []byte(signtest.PEM(a.Domain, a.CA)), 0o644)
	os.WriteFile(filepath.Join(dir, "roots.yaml"), []byte(fmt.Sprintf("domain_cert_roots:\n  - %s\ntimestamp_cert_roots:\n  - %s\n", fingerprint(a.CA), fingerprint(a.CA))), 0o644)
	os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(fmt.Sprintf(
		"signing:\n  domain: %s\n  email: test@example.org\n  port: 80\n  output: %s\n  timestamping:\n    - url: %s\ntrusted_roots: %s\n",
		a.DomainName, data, tsa, filepath.Join(dir, "roots.yaml"))), 0o644)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(uvicorn, "authsign.main:app", "--host", "127.0.0.1", "--port", fmt.Sprint(port))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CONFIG="+filepath.Join(dir, "config.yaml"), "NO_RENEW=1", "AUTH_TOKEN="+token)
	logf, _ := os.Create(filepath.Join(dir, "authsign.log"))
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		logf.Close()
		if t.Failed() {
			b, _ := os.ReadFile(filepath.Join(dir, "authsign.log"))
			t.Logf("authsign's log:\n%s", b)
		}
	})
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	for deadline := time.Now().Add(60 * time.Second); ; {
		if r, err := http.Get(url + "/docs"); err == nil {
			r.Body.Close()
			if r.StatusCode == 200 {
				return url
			}
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(filepath.Join(dir, "authsign.log"))
			t.Fatalf("authsign did not answer on %s in 60 s:\n%s", url, b)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestAuthsign checks arcport's WACZ signing and verification against
// webrecorder's own authsign 0.6.1 (py-wacz's [signing] extra), run on
// loopback with a test PKI (lib/internal/signtest: a CA, a domain
// certificate, an RFC 3161 authority served over HTTP):
//   - `waczpack create --sign-url` has the real authsign server sign;
//     `waczpack validate --trust CA` verifies that signature;
//   - py-wacz 0.6.0 `wacz validate --verify-auth --verifier-url` has
//     authsign's /verify (its Verifier: certificate chains, trusted root
//     fingerprints, the signature, the RFC 3161 token and its dates) verify
//     the WACZ authsign signed and the one signtest's double signed;
//   - a WACZ whose datapackage was changed after signing, and one signed
//     under another CA, are refused by both.
func TestAuthsign(t *testing.T) {
	uvicorn := peertest.NeedPy(t, "uvicorn")
	wacz := peertest.NeedPy(t, "wacz")
	a := signtest.New("archive.example.org")
	tsa := httptest.NewServer(a.TSAHandler())
	defer tsa.Close()
	url := startAuthsign(t, uvicorn, a, tsa.URL, "tok")
	dir := t.TempDir()
	roots := filepath.Join(dir, "roots.pem")
	os.WriteFile(roots, []byte(signtest.PEM(a.CA)), 0o644)

	byAuthsign := filepath.Join(dir, "authsign.wacz")
	if _, se, code := run(t, nil, "create", "-q", "-o", byAuthsign, "--sign-url", url+"/sign", "--sign-token", "tok", samples.Path("example.warc.gz")); code != 0 {
		t.Fatalf("create --sign-url (authsign): exit %d: %s", code, se)
	}
	double := httptest.NewServer(a.Handler(""))
	defer double.Close()
	byDouble := filepath.Join(dir, "double.wacz")
	if _, se, code := run(t, nil, "create", "-q", "-o", byDouble, "--sign-url", double.URL+"/sign", samples.Path("example.warc.gz")); code != 0 {
		t.Fatalf("create --sign-url (signtest): exit %d: %s", code, se)
	}
	other := signtest.New("archive.example.org")
	otherSrv := httptest.NewServer(other.Handler(""))
	defer otherSrv.Close()
	untrusted := filepath.Join(dir, "untrusted.wacz")
	if _, se, code := run(t, nil, "create", "-q", "-o", untrusted, "--sign-url", otherSrv.URL+"/sign", samples.Path("example.warc.gz")); code != 0 {
		t.Fatalf("create --sign-url (other CA): exit %d: %s", code, se)
	}
	tampered := editEntry(t, byAuthsign, "datapackage.json", func(b []byte) []byte {
		return []byte(strings.Replace(string(b), `"profile"`, `"title": "forged", "profile"`, 1))
	})

	pyVerify := func(path string) (string, bool) {
		c := exec.Command(wacz, "validate", "-f", path, "--verify-auth", "--verifier-url", url+"/verify")
		c.Dir = filepath.Dir(path)
		out, err := c.CombinedOutput()
		return strings.TrimSpace(string(out)), err == nil && strings.Contains(string(out), "Successfully verified signature via: "+url+"/verify") && strings.Contains(string(out), "Validation succeeded")
	}
	for _, c := range []struct {
		name, path string
		valid      bool
	}{{"authsign", byAuthsign, true}, {"signtest", byDouble, true}, {"other-CA", untrusted, false}, {"tampered", tampered, false}} {
		t.Run(c.name, func(t *testing.T) {
			so, se, code := run(t, nil, "validate", "--trust", roots, c.path)
			ours := code == 0 && strings.Contains(so, `issued by "CN=arcport test CA", trusted root)`)
			if c.name == "authsign" && !strings.Contains(so, " with authsigner 0.6.1") {
				t.Errorf("not signed by authsign 0.6.1: %s", so)
			}
			out, py := pyVerify(c.path)
			t.Logf("waczpack validate: exit %d %s%s", code, strings.TrimSpace(so), strings.TrimSpace(se))
			t.Logf("wacz validate --verify-auth: %s", strings.ReplaceAll(out, "\n", " | "))
			if ours != c.valid || py != c.valid {
				t.Errorf("waczpack validate --trust: verified %v, py-wacz --verify-auth (authsign): %v; want %v", ours, py, c.valid)
			}
		})
	}
}
