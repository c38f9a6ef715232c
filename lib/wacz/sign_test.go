package wacz

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/arcport/arcport/lib/internal/signtest"
)

func testKey(t *testing.T, c elliptic.Curve) *ecdsa.PrivateKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(c, rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// signedWACZ builds a WACZ from example.warc.gz signed by s.
func signedWACZ(t *testing.T, s Signer) string {
	t.Helper()
	path, _, err := buildWACZ(t, Options{Signer: s, Software: "arcport test"}, readTD(t, "example.warc.gz"))
	if err != nil {
		t.Fatal(err)
	}
	return path
}

func digestOf(t *testing.T, path string) *DigestFile {
	t.Helper()
	r, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	b, err := r.readSmall(DataPackageDigestPath)
	if err != nil {
		t.Fatal(err)
	}
	var d DigestFile
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	return &d
}

func signatureOf(t *testing.T, path string, o VerifyOptions) (*SignatureInfo, []Problem, error) {
	t.Helper()
	r, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	si, err := r.Signature(o)
	return si, r.Validate(), err
}

func TestSignAnonymousRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		curve elliptic.Curve
		name  string
		warn  bool
	}{{elliptic.P384(), "P-384", false}, {elliptic.P256(), "P-256", true}} {
		t.Run(tc.name, func(t *testing.T) {
			k := testKey(t, tc.curve)
			path := signedWACZ(t, &KeySigner{Key: k, Software: "arcport test"})
			d := digestOf(t, path)
			sd := d.SignedData
			if sd == nil || sd.Hash != d.Hash || sd.Created != "2024-05-06T07:08:09Z" || sd.Software != "arcport test" {
				t.Fatalf("signedData %+v (digest hash %s)", sd, d.Hash)
			}
			// WebCrypto form: raw r||s, SPKI public key
			sig, _ := base64.StdEncoding.DecodeString(sd.Signature)
			if want := 2 * curveBytes(tc.curve); len(sig) != want {
				t.Errorf("signature is %d bytes, want raw r||s of %d", len(sig), want)
			}
			spki, _ := base64.StdEncoding.DecodeString(sd.PublicKey)
			if pub, err := x509.ParsePKIXPublicKey(spki); err != nil || !pub.(*ecdsa.PublicKey).Equal(&k.PublicKey) {
				t.Errorf("publicKey: %v", err)
			}
			si, problems, err := signatureOf(t, path, VerifyOptions{})
			if err != nil || len(problems) != 0 {
				t.Fatalf("verify: %v; problems %v", err, problems)
			}
			if !si.Anonymous || si.Curve != tc.name || si.Encoding != "raw" || si.Created != sd.Created {
				t.Errorf("info %+v", si)
			}
			if got := len(si.Warnings) > 0; got != tc.warn {
				t.Errorf("warnings %q, want some: %v", si.Warnings, tc.warn)
			}
			t.Log(si)
		})
	}
}

func TestLoadSigningKey(t *testing.T) {
	enc := func(k *ecdsa.PrivateKey, pkcs8 bool) []byte {
		if pkcs8 {
			b, _ := x509.MarshalPKCS8PrivateKey(k)
			return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: b})
		}
		b, _ := x509.MarshalECPrivateKey(k)
		return pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: b})
	}
	p384, p256, p521 := testKey(t, elliptic.P384()), testKey(t, elliptic.P256()), testKey(t, elliptic.P521())
	if k, err := LoadSigningKey(enc(p384, false)); err != nil || !k.Equal(p384) {
		t.Errorf("P-384 SEC1: %v", err)
	}
	if k, err := LoadSigningKey(enc(p384, true)); err != nil || !k.Equal(p384) {
		t.Errorf("P-384 PKCS#8: %v", err)
	}
	if k, err := LoadSigningKey(enc(p256, true)); !errors.Is(err, ErrNotP384) || !k.Equal(p256) {
		t.Errorf("P-256: %v", err)
	}
	if _, err := LoadSigningKey(enc(p521, true)); err == nil || errors.Is(err, ErrNotP384) {
		t.Errorf("P-521: %v", err)
	}
	if _, err := LoadSigningKey([]byte("not pem")); err == nil {
		t.Error("no PEM: no error")
	}
}

func TestSignTampered(t *testing.T) {
	k := testKey(t, elliptic.P384())
	path := signedWACZ(t, &KeySigner{Key: k})
	other := testKey(t, elliptic.P384())
	otherSPKI, _ := x509.MarshalPKIXPublicKey(&other.PublicKey)
	editDigest := func(fn func(d map[string]any)) zipEdit {
		return func(n string, b []byte, m uint16) ([]byte, uint16, bool) {
			if n != DataPackageDigestPath {
				return b, m, true
			}
			var d map[string]any
			if err := json.Unmarshal(b, &d); err != nil {
				t.Fatal(err)
			}
			fn(d)
			out, _ := json.Marshal(d)
			return out, m, true
		}
	}
	sdOf := func(d map[string]any) map[string]any { return d["signedData"].(map[string]any) }
	var newDP []byte // a tampered datapackage.json, for the digest file edit
	for _, tc := range []struct {
		name string
		edit zipEdit
		want string // in the Signature error
	}{
		{"datapackage", func(n string, b []byte, m uint16) ([]byte, uint16, bool) {
			if n == DataPackagePath {
				b = bytes.Replace(b, []byte(`"created": "2024`), []byte(`"created": "2023`), 1)
				newDP = b
			}
			return b, m, true
		}, "datapackage.json hashes to"},
		{"digest hash", editDigest(func(d map[string]any) {
			d["hash"] = "sha256:" + strings.Repeat("0", 64)
		}), "hashes to"},
		{"digest hash and datapackage", func(n string, b []byte, m uint16) ([]byte, uint16, bool) {
			// an attacker edits datapackage.json and rewrites both hashes
			switch n {
			case DataPackagePath:
				b = bytes.Replace(b, []byte(`"software"`), []byte(`"title": "forged", "software"`), 1)
				newDP = b
			case DataPackageDigestPath:
				var d map[string]any
				json.Unmarshal(b, &d)
				h := NewDigestFile(newDP).Hash
				d["hash"], sdOf(d)["hash"] = h, h
				b, _ = json.Marshal(d)
			}
			return b, m, true
		}, "signature does not verify"},
		{"swapped public key", editDigest(func(d map[string]any) {
			sdOf(d)["publicKey"] = base64.StdEncoding.EncodeToString(otherSPKI)
		}), "signature does not verify"},
		{"bad signature", editDigest(func(d map[string]any) {
			sig, _ := base64.StdEncoding.DecodeString(sdOf(d)["signature"].(string))
			sig[10] ^= 1
			sdOf(d)["signature"] = base64.StdEncoding.EncodeToString(sig)
		}), "signature does not verify"},
		{"created changed", editDigest(func(d map[string]any) {
			sdOf(d)["created"] = "2025-01-01T00:00:00Z"
		}), "is not datapackage.json's created"},
		{"signedData hash", editDigest(func(d map[string]any) {
			sdOf(d)["hash"] = "sha256:" + strings.Repeat("1", 64)
		}), "is not the digest's hash"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := rewriteZip(t, path, tc.edit)
			_, problems, err := signatureOf(t, bad, VerifyOptions{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Signature: %v, want %q", err, tc.want)
			}
			found := false
			for _, p := range problems {
				found = found || p.Path == DataPackageDigestPath
			}
			if !found {
				t.Errorf("Validate: no problem with %s: %v", DataPackageDigestPath, problems)
			}
		})
	}
}

func TestSignUnsigned(t *testing.T) {
	path, _, err := buildWACZ(t, Options{}, readTD(t, "example.warc.gz"))
	if err != nil {
		t.Fatal(err)
	}
	if si, _, err := signatureOf(t, path, VerifyOptions{}); si != nil || err != nil {
		t.Errorf("unsigned: %v, %v", si, err)
	}
	if d := digestOf(t, path); d.SignedData != nil {
		t.Error("unsigned WACZ has signedData")
	}
}

func TestSignDomainAuthsign(t *testing.T) {
	a := signtest.New("archive.example.org")
	srv := httptest.NewServer(a.Handler("s3cret"))
	defer srv.Close()
	path := signedWACZ(t, &URLSigner{URL: srv.URL + "/sign", Token: "s3cret"})
	d := digestOf(t, path)
	if sd := d.SignedData; sd == nil || sd.Domain != "archive.example.org" || sd.TimeSignature == "" || sd.PublicKey != "" {
		t.Fatalf("signedData %+v", sd)
	}
	roots := x509.NewCertPool()
	roots.AddCert(a.CA)
	// the WACZ's created (2024) is before the test certificates: verify a
	// fresh signature instead, with created now
	si, problems, err := signatureOf(t, path, VerifyOptions{Roots: roots})
	if err == nil || !strings.Contains(err.Error(), "outside the domain certificate's validity") || len(problems) == 0 {
		t.Errorf("created before the certificate: %v, %v", err, problems)
	}
	now := time.Now().UTC().Truncate(time.Second)
	path, _, err = buildWACZ(t, Options{Signer: &URLSigner{URL: srv.URL + "/sign", Token: "s3cret"}, Created: now}, readTD(t, "example.warc.gz"))
	if err != nil {
		t.Fatal(err)
	}
	si, problems, err = signatureOf(t, path, VerifyOptions{Roots: roots})
	if err != nil || len(problems) != 0 {
		t.Fatalf("verify: %v; %v", err, problems)
	}
	if si.Anonymous || si.Domain != "archive.example.org" || !si.Trusted || si.Encoding != "DER" || si.TimestampBy != "CN=arcport test TSA" || si.Timestamp.Before(now) {
		t.Errorf("info %+v", si)
	}
	t.Log(si)
	// without the test root: verified, not trusted
	if si, _, err := signatureOf(t, path, VerifyOptions{}); err != nil || si.Trusted {
		t.Errorf("untrusted root: %v, %+v", err, si)
	}

	// wrong token: create fails
	if _, _, err := buildWACZ(t, Options{Signer: &URLSigner{URL: srv.URL + "/sign", Token: "nope"}}, readTD(t, "example.warc.gz")); err == nil || !strings.Contains(err.Error(), "403") {
		t.Errorf("wrong token: %v", err)
	}

	// tampering with the domain signature, the certificate, the time-stamp
	sign := func() *SignedData {
		var sd SignedData
		b, _ := json.Marshal(a.Sign(d.Hash, FormatTime(now)))
		json.Unmarshal(b, &sd)
		return &sd
	}
	other := signtest.New("other.example.org")
	for _, tc := range []struct {
		name string
		edit func(sd *SignedData)
		want string
	}{
		{"ok", func(*SignedData) {}, ""},
		{"other domain cert", func(sd *SignedData) { sd.DomainCert = signtest.PEM(other.Domain, other.CA) }, "does not verify"},
		{"broken chain", func(sd *SignedData) { sd.DomainCert = signtest.PEM(a.Domain, other.CA) }, "is not signed by"},
		{"domain", func(sd *SignedData) { sd.Domain = "evil.example" }, "is not the certificate's"},
		{"timestamp of another signature", func(sd *SignedData) {
			sd.TimeSignature = base64.StdEncoding.EncodeToString(a.Timestamp([]byte("x"), time.Now()))
		}, "not over this signature"},
		{"timestamp by another TSA", func(sd *SignedData) {
			sd.TimeSignature = base64.StdEncoding.EncodeToString(other.Timestamp([]byte(sd.Signature), time.Now()))
		}, "does not verify"},
		{"timestamp too late", func(sd *SignedData) {
			sd.TimeSignature = base64.StdEncoding.EncodeToString(a.Timestamp([]byte(sd.Signature), now.Add(time.Hour)))
		}, "not within"},
		{"timestamp garbage", func(sd *SignedData) { sd.TimeSignature = base64.StdEncoding.EncodeToString([]byte("garbage")) }, "TimeStampResp"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sd := sign()
			tc.edit(sd)
			_, err := VerifySignedData(sd, d.Hash, VerifyOptions{Roots: roots, TimestampRoots: roots})
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("got %v, want %q", err, tc.want)
			}
		})
	}
}

func TestURLSignerChecksAnswer(t *testing.T) {
	a := signtest.New("archive.example.org")
	srv := httptest.NewServer(a.Handler(""))
	defer srv.Close()
	s := &URLSigner{URL: srv.URL + "/sign"}
	if _, err := s.Sign(context.Background(), "sha256:ab", "2024-05-06T07:08:09Z"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Sign(context.Background(), "sha256:ab", ""); err != nil {
		t.Fatal(err)
	}
	bad := &URLSigner{URL: srv.URL + "/nope"}
	if _, err := bad.Sign(context.Background(), "sha256:ab", "x"); err == nil {
		t.Error("404: no error")
	}
}

// FuzzVerifySignedData feeds arbitrary time-stamp responses and signatures
// to the verifier, seeded with a real authsign-style answer: it must never
// panic, and only the untouched answer verifies.
func FuzzVerifySignedData(f *testing.F) {
	a := signtest.New("archive.example.org")
	hash := "sha256:" + strings.Repeat("ab", 32)
	created := FormatTime(time.Now().Truncate(time.Second))
	b, _ := json.Marshal(a.Sign(hash, created))
	var good SignedData
	json.Unmarshal(b, &good)
	ts, _ := base64.StdEncoding.DecodeString(good.TimeSignature)
	sig, _ := base64.StdEncoding.DecodeString(good.Signature)
	f.Add(ts, sig)
	f.Add([]byte{0x30, 0x03, 0x02, 0x01, 0x00}, []byte{})
	f.Add(ts[:len(ts)/2], sig[:10])
	f.Fuzz(func(t *testing.T, ts, sig []byte) {
		sd := good
		sd.TimeSignature = base64.StdEncoding.EncodeToString(ts)
		sd.Signature = base64.StdEncoding.EncodeToString(sig)
		VerifySignedData(&sd, hash, VerifyOptions{})
		anon := SignedData{Hash: hash, Created: created, Signature: sd.Signature, PublicKey: base64.StdEncoding.EncodeToString(ts)}
		if _, err := VerifySignedData(&anon, hash, VerifyOptions{}); err == nil {
			t.Fatalf("random key %x and signature %x verify", ts, sig)
		}
	})
}

// createdRecorder is a Signer that records the created it is asked to sign.
type createdRecorder struct{ created string }

func (c *createdRecorder) Sign(_ context.Context, hash, created string) (*SignedData, error) {
	c.created = created
	return &SignedData{Hash: hash, Created: created, Signature: "AA==", PublicKey: "AA=="}, nil
}

// TestSignCreatedAtManifest: with a signer and no Created option, the
// manifest is dated when it is written (authsign refuses a created older
// than 10 minutes, and packing may take longer), and the signed created is
// datapackage.json's.
func TestSignCreatedAtManifest(t *testing.T) {
	rec := &createdRecorder{}
	f, err := os.Create(filepath.Join(t.TempDir(), "x.wacz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := NewWriter(f, Options{Signer: rec, TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	in := readTD(t, "example.warc.gz")
	if err := w.AddInput(in.name, bytes.NewReader(in.data)); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Until(start.Truncate(time.Second).Add(1100 * time.Millisecond)))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := time.Parse(time.RFC3339, rec.created)
	if err != nil || !got.After(start.Truncate(time.Second)) {
		t.Errorf("signed created %q, want after the writer's start %s", rec.created, start.Truncate(time.Second).UTC().Format(time.RFC3339))
	}
}

// TestSignCreatedInTimestampSecond: a time-stamp whose genTime is in whole
// seconds covers that second: a created with milliseconds inside it (as
// js-wacz dates datapackage.json) is not after it; a created in the next
// second is.
func TestSignCreatedInTimestampSecond(t *testing.T) {
	a := signtest.New("archive.example.org")
	roots := x509.NewCertPool()
	roots.AddCert(a.CA)
	base := time.Now().UTC().Truncate(time.Second).Add(-time.Minute)
	hash := "sha256:" + strings.Repeat("ab", 32)
	for _, tc := range []struct {
		created string
		ok      bool
	}{
		{base.Add(700 * time.Millisecond).Format(time.RFC3339Nano), true},
		{base.Format(time.RFC3339), true},
		{base.Add(1100 * time.Millisecond).Format(time.RFC3339Nano), false},
	} {
		a.Now = func() time.Time { return base.Add(999 * time.Millisecond) } // signtest writes whole seconds
		raw, _ := json.Marshal(a.Sign(hash, tc.created))
		var sd SignedData
		json.Unmarshal(raw, &sd)
		_, err := VerifySignedData(&sd, hash, VerifyOptions{Roots: roots})
		if (err == nil) != tc.ok {
			t.Errorf("created %s, time-stamp %s: %v (want ok %v)", tc.created, base.Format(time.RFC3339), err, tc.ok)
		}
	}
}
