// End-to-end test of WACZ signing with ReplayWeb.page: a WACZ signed with
// `waczpack create --sign-key` is opened in ReplayWeb.page (headless
// Chromium), whose engine wabac.js checks datapackage-digest.json's
// signature with WebCrypto when it loads the WACZ; the test reads what it
// recorded (IndexedDB "verification" rows, e2e/replay/verify.cjs).

package e2e

import (
	"archive/zip"
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// rwpVerifyRow is one row of wabac.js's "verification" store.
type rwpVerifyRow struct {
	ID       string `json:"id"`
	Expected any    `json:"expected"`
	Matched  any    `json:"matched"`
}

type rwpVerify struct {
	Title        string
	Coll         string
	Verification []rwpVerifyRow
	API          any
}

// wzReplayVerify serves the WACZ with ReplayWeb.page as wzReplayTitle does
// and returns what ReplayWeb.page recorded about its signature.
func wzReplayVerify(t *testing.T, waczPath, target string) rwpVerify {
	t.Helper()
	node, nodePath, rwp := wzReplayPeers(t)
	mux := http.NewServeMux()
	mux.HandleFunc("/index.html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html>
<html><head><meta charset="utf-8"><title>harness</title><script src="./ui.js"></script></head>
<body style="margin:0"><replay-web-page style="height:600px;display:block" source="/collection.wacz" url="%s" replaybase="./replay/"></replay-web-page></body></html>
`, target)
	})
	mux.HandleFunc("/collection.wacz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/wacz")
		http.ServeFile(w, r, waczPath)
	})
	files := http.FileServer(http.Dir(rwp))
	mux.Handle("/replay/", http.StripPrefix("/replay", files))
	mux.Handle("/", files)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	cmd := exec.Command(node, filepath.Join(repoRoot(), "e2e/replay/verify.cjs"), srv.URL, target, "90000")
	cmd.Env = append(os.Environ(), "NODE_PATH="+nodePath)
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	if err := cmd.Run(); err != nil {
		t.Fatalf("replay of %s failed: %v\n%s", target, err, se.String())
	}
	if os.Getenv("VERIFY_DEBUG") != "" {
		t.Log(so.String())
	}
	var res rwpVerify
	if err := json.Unmarshal(so.Bytes(), &res); err != nil {
		t.Fatalf("harness output %q: %v", so.String(), err)
	}
	t.Logf("ReplayWeb.page verification rows %+v; api verify %v", res.Verification, res.API)
	return res
}

func (v rwpVerify) row(id string) *rwpVerifyRow {
	for i := range v.Verification {
		if v.Verification[i].ID == id {
			return &v.Verification[i]
		}
	}
	return nil
}

func writeECKey(t *testing.T, c elliptic.Curve) string {
	t.Helper()
	k, err := ecdsa.GenerateKey(c, rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := x509.MarshalPKCS8PrivateKey(k)
	p := filepath.Join(t.TempDir(), "key.pem")
	if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: b}), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// digestJSON returns datapackage-digest.json of a WACZ.
func digestJSON(t *testing.T, wacz string) map[string]any {
	t.Helper()
	b, err := exec.Command("unzip", "-p", wacz, "datapackage-digest.json").Output()
	if err != nil {
		needPeer(t, "unzip", err.Error())
	}
	var d map[string]any
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	return d
}

func TestReplaySignedWACZ(t *testing.T) {
	wzReplayPeers(t)
	arc, err := os.ReadFile(sample("example.arc.gz"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()

	// P-384: ReplayWeb.page verifies the signature (matched true) and
	// shows the key, the created date and the software
	wacz := filepath.Join(dir, "signed.wacz")
	if _, stderr, code := run(t, bin(t, "waczpack"), arc, "-o", wacz, "--sign-key", writeECKey(t, elliptic.P384())); code != 0 {
		t.Fatalf("create: exit %d: %s", code, stderr)
	}
	out, stderr, code := run(t, bin(t, "waczpack"), nil, "validate", wacz)
	if code != 0 || !regexp.MustCompile(`signed anonymously by P-384 key`).Match(out) {
		t.Fatalf("validate: exit %d: %s%s", code, out, stderr)
	}
	d := digestJSON(t, wacz)
	sd := d["signedData"].(map[string]any)
	v := wzReplayVerify(t, wacz, "http://example.com/")
	if v.Title != "Example Domain" {
		t.Errorf("ReplayWeb.page shows %q", v.Title)
	}
	if r := v.row("signature"); r == nil || r.Matched != true {
		t.Errorf("ReplayWeb.page signature row %+v, want matched true", r)
	}
	for id, want := range map[string]any{"publicKey": sd["publicKey"], "created": sd["created"], "software": sd["software"], "datapackageHash": d["hash"]} {
		if r := v.row(id); r == nil || r.Expected != want {
			t.Errorf("ReplayWeb.page %s row %+v, want expected %v", id, r, want)
		}
	}

	// the collection API (what the embed's "Technical Information" shows)
	api, _ := v.API.(map[string]any)
	for k, want := range map[string]any{"publicKey": sd["publicKey"], "created": sd["created"], "software": sd["software"], "datapackageHash": d["hash"]} {
		if api == nil || api[k] != want {
			t.Errorf("ReplayWeb.page API verify.%s = %v, want %v (verify %v)", k, api[k], want, v.API)
		}
	}

	// the same WACZ with one bit of the signature flipped: matched false
	bad := filepath.Join(dir, "bad.wacz")
	badSig := []byte(sd["signature"].(string))
	if badSig[5] == 'A' {
		badSig[5] = 'B'
	} else {
		badSig[5] = 'A'
	}
	editZipEntry(t, wacz, bad, "datapackage-digest.json", func(b []byte) []byte {
		return bytes.Replace(b, []byte(sd["signature"].(string)), badSig, 1)
	})
	if _, _, code := run(t, bin(t, "waczpack"), nil, "validate", bad); code != 1 {
		t.Errorf("validate of a bad signature: exit %d, want 1", code)
	}
	v = wzReplayVerify(t, bad, "http://example.com/")
	if r := v.row("signature"); r == nil || r.Matched != false {
		t.Errorf("ReplayWeb.page signature row for a bad signature %+v, want matched false", r)
	}

	// P-256: waczpack verifies it, ReplayWeb.page cannot (it imports P-384
	// only): no signature row at all, as the create warning says
	p256 := filepath.Join(dir, "p256.wacz")
	if _, stderr, code := run(t, bin(t, "waczpack"), arc, "-o", p256, "--sign-key", writeECKey(t, elliptic.P256())); code != 0 || !bytes.Contains([]byte(stderr), []byte("P-384 keys only")) {
		t.Fatalf("create P-256: exit %d: %s", code, stderr)
	}
	v = wzReplayVerify(t, p256, "http://example.com/")
	if r := v.row("signature"); r != nil && r.Matched == true {
		t.Errorf("ReplayWeb.page verified a P-256 signature (%+v): the warning is wrong", r)
	}
}

// editZipEntry copies the zip src to dst, passing entry name through fn.
func editZipEntry(t *testing.T, src, dst, name string, fn func([]byte) []byte) {
	t.Helper()
	zr, err := zip.OpenReader(src)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	f, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zw := zip.NewWriter(f)
	for _, e := range zr.File {
		rc, _ := e.Open()
		data, _ := io.ReadAll(rc)
		rc.Close()
		if e.Name == name {
			data = fn(data)
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: e.Name, Method: e.Method})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
}

// awpSign is ArchiveWeb.page's signing (awp-sw src/keystore.ts KeyStore.sign)
// run in Node's WebCrypto: a new P-384 key, ECDSA SHA-256 over the UTF-8 of
// the hash, the key exported as SPKI; both base64.
const awpSign = `
const [hash, created] = process.argv.slice(1);
(async () => {
  const { subtle } = globalThis.crypto;
  const kp = await subtle.generateKey({ name: "ECDSA", namedCurve: "P-384" }, true, ["sign", "verify"]);
  const spki = await subtle.exportKey("spki", kp.publicKey);
  const sig = await subtle.sign({ name: "ECDSA", hash: "SHA-256" }, kp.privateKey, new TextEncoder().encode(hash));
  const b64 = (b) => Buffer.from(new Uint8Array(b)).toString("base64");
  console.log(JSON.stringify({ hash, signature: b64(sig), publicKey: b64(spki), created, software: "ArchiveWeb.page keystore (node webcrypto)" }));
})().catch((e) => { console.error(String(e)); process.exit(1); });
`

// TestValidateWebCryptoSignature: waczpack validate verifies a signature
// made as ArchiveWeb.page makes it (WebCrypto, raw r||s), put into a
// waczpack WACZ's datapackage-digest.json as awp-sw writes it.
func TestValidateWebCryptoSignature(t *testing.T) {
	node := needCmd(t, "node", "nodejs")
	arc, err := os.ReadFile(sample("example.arc.gz"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	wacz := filepath.Join(dir, "plain.wacz")
	if _, stderr, code := run(t, bin(t, "waczpack"), arc, "-o", wacz); code != 0 {
		t.Fatalf("create: exit %d: %s", code, stderr)
	}
	d := digestJSON(t, wacz)
	dpRaw, err := exec.Command("unzip", "-p", wacz, "datapackage.json").Output()
	if err != nil {
		needPeer(t, "unzip", err.Error())
	}
	var dp struct{ Created string }
	json.Unmarshal(dpRaw, &dp)
	out, err := exec.Command(node, "-e", awpSign, d["hash"].(string), dp.Created).Output()
	if err != nil {
		t.Fatalf("node webcrypto: %v", err)
	}
	var sd map[string]any
	if err := json.Unmarshal(out, &sd); err != nil {
		t.Fatal(err)
	}
	signed := filepath.Join(dir, "awp.wacz")
	editZipEntry(t, wacz, signed, "datapackage-digest.json", func([]byte) []byte {
		b, _ := json.MarshalIndent(map[string]any{"path": "datapackage.json", "hash": d["hash"], "signedData": sd}, "", "  ")
		return b
	})
	so, se, code := run(t, bin(t, "waczpack"), nil, "validate", signed)
	if code != 0 || !bytes.Contains(so, []byte(": signed anonymously by P-384 key ")) || !bytes.Contains(so, []byte("with ArchiveWeb.page keystore")) {
		t.Errorf("validate: exit %d: %s%s", code, so, se)
	}
	t.Logf("%s", so)
	// another key's signature over another hash: exit 1, one line
	out2, err := exec.Command(node, "-e", awpSign, "sha256:"+strings.Repeat("0", 64), dp.Created).Output()
	if err != nil {
		t.Fatal(err)
	}
	var sd2 map[string]any
	json.Unmarshal(out2, &sd2)
	sd2["hash"] = d["hash"]
	forged := filepath.Join(dir, "forged.wacz")
	editZipEntry(t, wacz, forged, "datapackage-digest.json", func([]byte) []byte {
		b, _ := json.MarshalIndent(map[string]any{"path": "datapackage.json", "hash": d["hash"], "signedData": sd2}, "", "  ")
		return b
	})
	so, se, code = run(t, bin(t, "waczpack"), nil, "validate", forged)
	if code != 1 || len(so) != 0 || strings.Count(se, "\n") != 1 || !strings.Contains(se, "signature does not verify") {
		t.Errorf("forged: exit %d: %q %q", code, so, se)
	}
}

// TestReplayDomainSignedWACZ: a WACZ signed as authsign signs (domain
// certificate, base64 DER ECDSA signature; made here with crypto/x509, the
// time-stamp left out) is validated by waczpack and opened in
// ReplayWeb.page, which shows the domain and the certificate fingerprint.
func TestReplayDomainSignedWACZ(t *testing.T) {
	wzReplayPeers(t)
	arc, err := os.ReadFile(sample("example.arc.gz"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	wacz := filepath.Join(dir, "plain.wacz")
	if _, stderr, code := run(t, bin(t, "waczpack"), arc, "-o", wacz); code != 0 {
		t.Fatalf("create: exit %d: %s", code, stderr)
	}
	d := digestJSON(t, wacz)
	dpRaw, _ := exec.Command("unzip", "-p", wacz, "datapackage.json").Output()
	var dp struct{ Created string }
	json.Unmarshal(dpRaw, &dp)

	caKey, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	from := time.Now().Add(-time.Hour)
	caT := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "e2e CA"}, NotBefore: from, NotAfter: from.Add(48 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, _ := x509.CreateCertificate(rand.Reader, caT, caT, &caKey.PublicKey, caKey)
	ca, _ := x509.ParseCertificate(caDER)
	leafDER, err := x509.CreateCertificate(rand.Reader, &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "signer.example.org"},
		DNSNames: []string{"signer.example.org"}, NotBefore: from, NotAfter: from.Add(48 * time.Hour)}, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.Sum256([]byte(d["hash"].(string)))
	der, _ := ecdsa.SignASN1(rand.Reader, key, h[:])
	var rs struct{ R, S *big.Int }
	asn1.Unmarshal(der, &rs)
	raw := make([]byte, 64)
	rs.R.FillBytes(raw[:32])
	rs.S.FillBytes(raw[32:])
	for _, enc := range []struct {
		name  string
		sig   []byte
		rwpOK bool
	}{{"DER", der, false}, {"raw", raw, true}} {
		sig := enc.sig
		// PEM certificates separated by a blank line, as ACME serves the chain
		// (wabac.js splits domainCert on "\n\n")
		chain := string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: leafDER})) + "\n" + string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}))
		sd := map[string]any{"hash": d["hash"], "created": dp.Created, "software": "authsigner e2e", "version": "0.1.0",
			"signature": base64.StdEncoding.EncodeToString(sig), "domain": "signer.example.org", "domainCert": chain}
		signed := filepath.Join(dir, "domain-"+enc.name+".wacz")
		editZipEntry(t, wacz, signed, "datapackage-digest.json", func([]byte) []byte {
			b, _ := json.MarshalIndent(map[string]any{"path": "datapackage.json", "hash": d["hash"], "signedData": sd}, "", "  ")
			return b
		})
		so, se, code := run(t, bin(t, "waczpack"), nil, "validate", signed)
		if code != 0 || !bytes.Contains(so, []byte(": signed by signer.example.org (certificate sha256 ")) || !bytes.Contains(so, []byte("warning: no timeSignature")) {
			t.Errorf("validate: exit %d: %s%s", code, so, se)
		}
		t.Logf("%s", so)

		v := wzReplayVerify(t, signed, "http://example.com/")
		fp := sha256.Sum256(leafDER)
		if r := v.row("domain"); r == nil || r.Expected != "signer.example.org" || r.Matched != "signer.example.org" {
			t.Errorf("ReplayWeb.page domain row %+v", r)
		}
		if r := v.row("certFingerprint"); r == nil || r.Expected != hex.EncodeToString(fp[:]) {
			t.Errorf("ReplayWeb.page certFingerprint row %+v, want %x", r, fp)
		}
		// wabac.js hands the decoded signature to WebCrypto, which takes raw
		// r||s only: authsign's DER signatures are recorded as not matching
		if r := v.row("signature"); r == nil || r.Matched != enc.rwpOK {
			t.Errorf("ReplayWeb.page signature row for a %s signature: %+v, want matched %v", enc.name, r, enc.rwpOK)
		}
	}
}
