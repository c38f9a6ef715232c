package wacz

// Signing and verification of datapackage-digest.json, after the
// Webrecorder recommendation "WACZ Signing and Verification" as its peers
// implement it:
//
//   - anonymous signing (ArchiveWeb.page; verified by wabac.js, the engine of
//     ReplayWeb.page): signedData {hash, signature, publicKey, created,
//     software}; the signature is ECDSA with SHA-256 over the UTF-8 bytes of
//     the hash string ("sha256:<hex>"), encoded as WebCrypto makes it: raw
//     r||s, each padded to the curve size, then base64; publicKey is the
//     base64 of the DER SubjectPublicKeyInfo. wabac.js imports the key as
//     P-384 only.
//   - domain signing (webrecorder/authsign, POST /sign {hash, created},
//     "Authorization: bearer TOKEN"): signedData {hash, created, software,
//     version, signature, domain, domainCert, timeSignature, timestampCert,
//     crossSignedCert}; signature is base64 DER ECDSA over the same bytes;
//     domainCert and timestampCert are PEM chains, leaf first; timeSignature
//     is a base64 RFC 3161 TimeStampResp over the ASCII of signature.
//
// py-wacz checks that signedData.created equals datapackage.json's created;
// wabac.js that signedData.hash equals the digest file's hash.

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/asn1"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"strings"
	"time"
)

// SignedData is the signedData object of datapackage-digest.json.
type SignedData struct {
	Hash      string `json:"hash"`
	Created   string `json:"created"`
	Software  string `json:"software,omitempty"`
	Version   string `json:"version,omitempty"`
	Signature string `json:"signature"`
	// PublicKey is set for anonymous signing: base64 DER SubjectPublicKeyInfo.
	PublicKey string `json:"publicKey,omitempty"`
	// Domain, DomainCert (PEM chain, leaf first) for domain signing.
	Domain          string `json:"domain,omitempty"`
	DomainCert      string `json:"domainCert,omitempty"`
	CrossSignedCert string `json:"crossSignedCert,omitempty"`
	// TimeSignature is a base64 RFC 3161 TimeStampResp over the signature;
	// TimestampCert the timestamp authority's PEM chain.
	TimeSignature string `json:"timeSignature,omitempty"`
	TimestampCert string `json:"timestampCert,omitempty"`
}

// A Signer signs the hash of datapackage.json ("sha256:<hex>") created at
// created (the datapackage.json created value).
type Signer interface {
	Sign(ctx context.Context, hash, created string) (*SignedData, error)
}

// KeySigner signs anonymously with an ECDSA private key.
type KeySigner struct {
	Key      *ecdsa.PrivateKey
	Software string
}

// ErrNotP384 is the warning LoadSigningKey returns with a P-256 key:
// signatures verify here and with authsign-style tools, but ReplayWeb.page
// imports anonymous public keys as P-384 only.
var ErrNotP384 = errors.New("the key is P-256: ReplayWeb.page verifies anonymous signatures with P-384 keys only, it will not verify this one")

// LoadSigningKey reads a PEM ECDSA private key ("EC PRIVATE KEY" or PKCS#8
// "PRIVATE KEY") on P-384 or P-256. For P-256 it returns the key together
// with ErrNotP384, a warning.
func LoadSigningKey(data []byte) (*ecdsa.PrivateKey, error) {
	for {
		var b *pem.Block
		b, data = pem.Decode(data)
		if b == nil {
			return nil, errors.New("no PEM private key found")
		}
		var key any
		var err error
		switch b.Type {
		case "EC PRIVATE KEY":
			key, err = x509.ParseECPrivateKey(b.Bytes)
		case "PRIVATE KEY":
			key, err = x509.ParsePKCS8PrivateKey(b.Bytes)
		case "ENCRYPTED PRIVATE KEY":
			return nil, errors.New("the private key is encrypted: decrypt it first (openssl pkcs8)")
		default:
			continue // e.g. EC PARAMETERS before the key
		}
		if err != nil {
			return nil, fmt.Errorf("private key: %v", err)
		}
		k, ok := key.(*ecdsa.PrivateKey)
		if !ok {
			return nil, fmt.Errorf("private key is %T, want ECDSA (P-384)", key)
		}
		switch k.Curve {
		case elliptic.P384():
			return k, nil
		case elliptic.P256():
			return k, ErrNotP384
		}
		return nil, fmt.Errorf("ECDSA key on %s: want P-384 (or P-256)", k.Curve.Params().Name)
	}
}

// Sign implements Signer.
func (s *KeySigner) Sign(_ context.Context, hash, created string) (*SignedData, error) {
	spki, err := x509.MarshalPKIXPublicKey(&s.Key.PublicKey)
	if err != nil {
		return nil, err
	}
	d := sha256.Sum256([]byte(hash))
	der, err := ecdsa.SignASN1(rand.Reader, s.Key, d[:])
	if err != nil {
		return nil, err
	}
	raw, err := derToRaw(der, curveBytes(s.Key.Curve))
	if err != nil {
		return nil, err
	}
	return &SignedData{
		Hash:      hash,
		Created:   created,
		Software:  s.Software,
		Signature: base64.StdEncoding.EncodeToString(raw),
		PublicKey: base64.StdEncoding.EncodeToString(spki),
	}, nil
}

func curveBytes(c elliptic.Curve) int { return (c.Params().BitSize + 7) / 8 }

// derToRaw turns an ASN.1 ECDSA signature into WebCrypto's r||s.
func derToRaw(der []byte, size int) ([]byte, error) {
	var sig struct{ R, S *big.Int }
	rest, err := asn1.Unmarshal(der, &sig)
	if err != nil || len(rest) != 0 {
		return nil, errors.New("malformed ECDSA signature")
	}
	r, s := sig.R, sig.S
	if r.Sign() <= 0 || s.Sign() <= 0 || len(r.Bytes()) > size || len(s.Bytes()) > size {
		return nil, errors.New("malformed ECDSA signature")
	}
	out := make([]byte, 2*size)
	r.FillBytes(out[:size])
	s.FillBytes(out[size:])
	return out, nil
}

// verifyECDSA checks sig (raw r||s as WebCrypto makes it, or DER as
// authsign makes it) over the UTF-8 bytes of msg; it says which encoding.
func verifyECDSA(pub *ecdsa.PublicKey, msg string, sig []byte) (string, bool) {
	d := sha256.Sum256([]byte(msg))
	if n := curveBytes(pub.Curve); len(sig) == 2*n {
		r := new(big.Int).SetBytes(sig[:n])
		s := new(big.Int).SetBytes(sig[n:])
		if ecdsa.Verify(pub, d[:], r, s) {
			return "raw", true
		}
	}
	if ecdsa.VerifyASN1(pub, d[:], sig) {
		return "DER", true
	}
	return "", false
}

// URLSigner asks an authsign-compatible signing server: POST URL with
// {"hash": ..., "created": ...} and, with a Token, "Authorization: bearer
// TOKEN"; the answer is the signedData.
type URLSigner struct {
	URL    string
	Token  string
	Client *http.Client // nil: http.DefaultClient
}

// Sign implements Signer.
func (s *URLSigner) Sign(ctx context.Context, hash, created string) (*SignedData, error) {
	body, _ := json.Marshal(map[string]string{"hash": hash, "created": created})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if s.Token != "" {
		req.Header.Set("Authorization", "bearer "+s.Token)
	}
	c := s.Client
	if c == nil {
		c = http.DefaultClient
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, fmt.Errorf("signing server: %v", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("signing server: %v", err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("signing server: %s: %s", resp.Status, strings.TrimSpace(string(b)))
	}
	var sd SignedData
	if err := json.Unmarshal(b, &sd); err != nil {
		return nil, fmt.Errorf("signing server: answer is not signedData JSON: %v", err)
	}
	if sd.Hash != hash || sd.Created != created {
		return nil, fmt.Errorf("signing server signed hash %q created %q, asked %q created %q", sd.Hash, sd.Created, hash, created)
	}
	if sd.Signature == "" {
		return nil, errors.New("signing server: answer has no signature")
	}
	return &sd, nil
}

// SignatureInfo says what VerifySignedData found.
type SignatureInfo struct {
	Anonymous   bool   // signed with a bare public key
	KeyID       string // anonymous: sha256 of the SPKI, hex, first 16 digits
	Curve       string // P-384 or P-256
	Encoding    string // signature encoding: "raw" (WebCrypto) or "DER"
	Domain      string // domain signing: the certificate's name
	Issuer      string // the chain's last certificate's subject
	Trusted     bool   // the chain ends at a root this system trusts
	Fingerprint string // the domain certificate's sha256, hex
	Created     string
	Software    string
	// Timestamp is the RFC 3161 time (zero when there is none or it could
	// not be read); TimestampBy the timestamp certificate's subject.
	Timestamp   time.Time
	TimestampBy string
	Warnings    []string // weaknesses that do not make the signature invalid
}

// String is one line: who signed and when.
func (si *SignatureInfo) String() string {
	var b strings.Builder
	if si.Anonymous {
		fmt.Fprintf(&b, "signed anonymously by %s key %s", si.Curve, si.KeyID)
	} else {
		fmt.Fprintf(&b, "signed by %s (certificate sha256 %s…, issued by %q", si.Domain, si.Fingerprint[:16], si.Issuer)
		if si.Trusted {
			b.WriteString(", trusted root)")
		} else {
			b.WriteString(", root not in this system's trust store)")
		}
	}
	fmt.Fprintf(&b, " at %s", si.Created)
	if !si.Timestamp.IsZero() {
		fmt.Fprintf(&b, ", timestamped %s by %q", si.Timestamp.UTC().Format(time.RFC3339), si.TimestampBy)
	}
	if si.Software != "" {
		fmt.Fprintf(&b, " with %s", si.Software)
	}
	return b.String()
}

// VerifyOptions adjust VerifySignedData.
type VerifyOptions struct {
	// Roots are the trusted roots for domain certificates (nil: the
	// system's). A chain that does not reach them still verifies, with
	// SignatureInfo.Trusted false.
	Roots *x509.CertPool
	// TimestampRoots likewise for timestamp certificates.
	TimestampRoots *x509.CertPool
	// Created is datapackage.json's created; signedData.created must equal it.
	Created string
}

// VerifySignedData checks the signedData of a digest file whose hash is
// hash (already checked against datapackage.json by the caller).
func VerifySignedData(sd *SignedData, hash string, o VerifyOptions) (*SignatureInfo, error) {
	if sd.Hash != hash {
		return nil, fmt.Errorf("signedData.hash %q is not the digest's hash %q", sd.Hash, hash)
	}
	if o.Created != "" && sd.Created != o.Created {
		return nil, fmt.Errorf("signedData.created %q is not datapackage.json's created %q", sd.Created, o.Created)
	}
	sig, err := base64.StdEncoding.DecodeString(sd.Signature)
	if err != nil || len(sig) == 0 {
		return nil, errors.New("signature is not base64")
	}
	si := &SignatureInfo{Created: sd.Created, Software: sd.Software}
	switch {
	case sd.PublicKey != "" && sd.DomainCert == "":
		si.Anonymous = true
		spki, err := base64.StdEncoding.DecodeString(sd.PublicKey)
		if err != nil {
			return nil, errors.New("publicKey is not base64")
		}
		k, err := x509.ParsePKIXPublicKey(spki)
		if err != nil {
			return nil, fmt.Errorf("publicKey: %v", err)
		}
		pub, ok := k.(*ecdsa.PublicKey)
		if !ok {
			return nil, fmt.Errorf("publicKey is %T, want ECDSA", k)
		}
		si.Curve = pub.Curve.Params().Name
		kid := sha256.Sum256(spki)
		si.KeyID = hex.EncodeToString(kid[:8])
		enc, ok := verifyECDSA(pub, hash, sig)
		if !ok {
			return nil, fmt.Errorf("signature does not verify with publicKey %s", si.KeyID)
		}
		si.Encoding = enc
		if si.Curve != "P-384" {
			si.Warnings = append(si.Warnings, "anonymous key is "+si.Curve+": ReplayWeb.page verifies P-384 keys only")
		}
		if enc != "raw" {
			si.Warnings = append(si.Warnings, "anonymous signature is DER: ReplayWeb.page (WebCrypto) expects raw r||s")
		}
	case sd.DomainCert != "":
		if err := verifyDomain(sd, hash, sig, o, si); err != nil {
			return nil, err
		}
	default:
		return nil, errors.New("signedData has neither publicKey nor domainCert")
	}
	return si, nil
}

func parseChain(p string) ([]*x509.Certificate, error) {
	var certs []*x509.Certificate
	data := []byte(p)
	for {
		var b *pem.Block
		b, data = pem.Decode(data)
		if b == nil {
			break
		}
		if b.Type != "CERTIFICATE" {
			continue
		}
		c, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			return nil, err
		}
		certs = append(certs, c)
	}
	if len(certs) == 0 {
		return nil, errors.New("no PEM certificate")
	}
	return certs, nil
}

// checkChain verifies that each certificate is signed by the next (as
// authsign does), and reports whether the chain reaches roots (at time t).
func checkChain(certs []*x509.Certificate, roots *x509.CertPool, t time.Time, usage x509.ExtKeyUsage) (bool, error) {
	for i := 0; i+1 < len(certs); i++ {
		if err := certs[i].CheckSignatureFrom(certs[i+1]); err != nil {
			return false, fmt.Errorf("certificate %d (%s) is not signed by certificate %d (%s): %v", i, certs[i].Subject, i+1, certs[i+1].Subject, err)
		}
	}
	inter := x509.NewCertPool()
	for _, c := range certs[1:] {
		inter.AddCert(c)
	}
	_, verr := certs[0].Verify(x509.VerifyOptions{Roots: roots, Intermediates: inter, CurrentTime: t, KeyUsages: []x509.ExtKeyUsage{usage}})
	return verr == nil, nil
}

func verifyDomain(sd *SignedData, hash string, sig []byte, o VerifyOptions, si *SignatureInfo) error {
	certs, err := parseChain(sd.DomainCert)
	if err != nil {
		return fmt.Errorf("domainCert: %v", err)
	}
	leaf := certs[0]
	created, err := time.Parse(time.RFC3339Nano, sd.Created)
	if err != nil {
		return fmt.Errorf("signedData.created %q: not an RFC 3339 datetime", sd.Created)
	}
	trusted, err := checkChain(certs, o.Roots, created, x509.ExtKeyUsageAny)
	if err != nil {
		return fmt.Errorf("domainCert: %v", err)
	}
	si.Trusted = trusted
	si.Issuer = certs[len(certs)-1].Subject.String()
	fp := sha256.Sum256(leaf.Raw)
	si.Fingerprint = hex.EncodeToString(fp[:])
	pub, ok := leaf.PublicKey.(*ecdsa.PublicKey)
	if !ok {
		return fmt.Errorf("domain certificate key is %T, want ECDSA", leaf.PublicKey)
	}
	si.Curve = pub.Curve.Params().Name
	enc, ok := verifyECDSA(pub, hash, sig)
	if !ok {
		return fmt.Errorf("signature does not verify with the key of the domain certificate (%s)", leaf.Subject)
	}
	si.Encoding = enc
	if enc == "DER" {
		// tested with ReplayWeb.page 2.5.3 (e2e TestReplayDomainSignedWACZ)
		si.Warnings = append(si.Warnings, "signature is DER, as authsign makes it: ReplayWeb.page checks raw r||s only and records it as not matching")
	}
	name := leaf.Subject.CommonName
	if name == "" && len(leaf.DNSNames) > 0 {
		name = leaf.DNSNames[0]
	}
	si.Domain = name
	if sd.Domain != "" && sd.Domain != name && leaf.VerifyHostname(sd.Domain) != nil {
		return fmt.Errorf("signedData.domain %q is not the certificate's %q", sd.Domain, name)
	}
	if created.Before(leaf.NotBefore) || created.After(leaf.NotAfter) {
		return fmt.Errorf("created %s is outside the domain certificate's validity (%s to %s)", sd.Created, leaf.NotBefore.UTC().Format(time.RFC3339), leaf.NotAfter.UTC().Format(time.RFC3339))
	}
	if sd.CrossSignedCert != "" {
		cs, err := parseChain(sd.CrossSignedCert)
		if err != nil {
			return fmt.Errorf("crossSignedCert: %v", err)
		}
		if _, err := checkChain(cs, nil, created, x509.ExtKeyUsageAny); err != nil {
			return fmt.Errorf("crossSignedCert: %v", err)
		}
		csPub, ok := cs[0].PublicKey.(*ecdsa.PublicKey)
		if !ok {
			return errors.New("crossSignedCert key is not ECDSA")
		}
		if _, ok := verifyECDSA(csPub, hash, sig); !ok {
			return errors.New("signature does not verify with the key of the cross-signed certificate")
		}
	}
	if sd.TimeSignature == "" {
		si.Warnings = append(si.Warnings, "no timeSignature: the signing time is not attested")
		return nil
	}
	ts, by, err := verifyTimestamp(sd, o)
	if err != nil {
		return fmt.Errorf("timeSignature: %v", err)
	}
	si.Timestamp, si.TimestampBy = ts, by
	// authsign: created no later than the timestamp, and at most 10 minutes
	// before. A genTime in whole seconds (RFC 3161 allows it, and most
	// authorities write it so) stands for that whole second: a created
	// with a fraction inside it (js-wacz dates with milliseconds) is not
	// later than it.
	late := created.After(ts)
	if late && ts.Nanosecond() == 0 && created.Truncate(time.Second).Equal(ts) {
		late = false
	}
	if late || created.Before(ts.Add(-StampDuration)) {
		return fmt.Errorf("created %s is not within %v before the timestamp %s", sd.Created, StampDuration, ts.UTC().Format(time.RFC3339))
	}
	return nil
}

// StampDuration is how long before its timestamp a signature may have been
// created (authsign's STAMP_DURATION).
const StampDuration = 10 * time.Minute

// Signature verifies the signature of datapackage-digest.json, if any: it
// returns nil, nil when the WACZ is not signed. The digest's hash is checked
// against datapackage.json first.
func (r *Reader) Signature(o VerifyOptions) (*SignatureInfo, error) {
	if r.files[DataPackageDigestPath] == nil {
		return nil, nil
	}
	b, err := r.readSmall(DataPackageDigestPath)
	if err != nil {
		return nil, err
	}
	var d DigestFile
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, fmt.Errorf("%s: %v", DataPackageDigestPath, err)
	}
	if d.SignedData == nil {
		return nil, nil
	}
	raw, err := r.readSmall(DataPackagePath)
	if err != nil {
		return nil, err
	}
	if got := NewDigestFile(raw).Hash; !strings.EqualFold(got, d.Hash) {
		return nil, fmt.Errorf("%s: hash %s, datapackage.json hashes to %s", DataPackageDigestPath, d.Hash, got)
	}
	if o.Created == "" {
		var dp struct {
			Created string `json:"created"`
		}
		json.Unmarshal(raw, &dp)
		o.Created = dp.Created
	}
	return VerifySignedData(d.SignedData, d.Hash, o)
}
