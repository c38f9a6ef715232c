// Package signtest is a test double of webrecorder/authsign: a test CA, a
// domain certificate and a time-stamping certificate made with crypto/x509,
// an RFC 3161 time-stamp authority built with encoding/asn1, and an HTTP
// handler answering POST /sign as authsign does. For tests only.
package signtest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"io"
	"math/big"
	"net/http"
	"strings"
	"time"
)

// Authority holds the test PKI.
type Authority struct {
	CA, Domain, TSA          *x509.Certificate
	CAKey, DomainKey, TSAKey *ecdsa.PrivateKey
	DomainName               string
	// Now is the clock of the time-stamp authority (nil: time.Now).
	Now func() time.Time
}

func newKey(c elliptic.Curve) *ecdsa.PrivateKey {
	k, err := ecdsa.GenerateKey(c, rand.Reader)
	if err != nil {
		panic(err)
	}
	return k
}

func mustCert(tmpl, parent *x509.Certificate, pub *ecdsa.PublicKey, key *ecdsa.PrivateKey) *x509.Certificate {
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, pub, key)
	if err != nil {
		panic(err)
	}
	c, err := x509.ParseCertificate(der)
	if err != nil {
		panic(err)
	}
	return c
}

// New makes a CA (P-384), a domain certificate for domain (P-256, as
// authsign's keys) and a time-stamping certificate (P-256), valid from an
// hour ago for a week.
func New(domain string) *Authority {
	a := &Authority{DomainName: domain, CAKey: newKey(elliptic.P384()), DomainKey: newKey(elliptic.P256()), TSAKey: newKey(elliptic.P256())}
	from, to := time.Now().Add(-time.Hour), time.Now().Add(7*24*time.Hour)
	ca := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "arcport test CA"},
		NotBefore: from, NotAfter: to, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	a.CA = mustCert(ca, ca, &a.CAKey.PublicKey, a.CAKey)
	a.Domain = mustCert(&x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: domain}, DNSNames: []string{domain},
		NotBefore: from, NotAfter: to, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}, a.CA, &a.DomainKey.PublicKey, a.CAKey)
	a.TSA = mustCert(&x509.Certificate{
		SerialNumber: big.NewInt(3), Subject: pkix.Name{CommonName: "arcport test TSA"},
		NotBefore: from, NotAfter: to, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageTimeStamping},
	}, a.CA, &a.TSAKey.PublicKey, a.CAKey)
	return a
}

// PEM encodes certificates as one PEM chain.
func PEM(certs ...*x509.Certificate) string {
	var b strings.Builder
	for _, c := range certs {
		pem.Encode(&b, &pem.Block{Type: "CERTIFICATE", Bytes: c.Raw})
	}
	return b.String()
}

var (
	oidSignedData    = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 7, 2}
	oidTSTInfo       = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 16, 1, 4}
	oidContentType   = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 3}
	oidMessageDigest = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 4}
	oidSHA256        = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 2, 1}
	oidECDSASHA256   = asn1.ObjectIdentifier{1, 2, 840, 10045, 4, 3, 2}
)

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

func set(content []byte) asn1.RawValue {
	return asn1.RawValue{Class: asn1.ClassUniversal, Tag: asn1.TagSet, IsCompound: true, Bytes: content}
}

func ctx0(content []byte) asn1.RawValue {
	return asn1.RawValue{Class: asn1.ClassContextSpecific, Tag: 0, IsCompound: true, Bytes: content}
}

// Timestamp returns a DER RFC 3161 TimeStampResp over sha256(data) at t,
// signed by the TSA certificate.
func (a *Authority) Timestamp(data []byte, t time.Time) []byte {
	h := sha256.Sum256(data)
	return a.timestamp(h[:], nil, t)
}

// messageImprint is RFC 3161's MessageImprint.
type messageImprint struct {
	HashAlgorithm pkix.AlgorithmIdentifier
	HashedMessage []byte
}

// timestamp returns a TimeStampResp over a SHA-256 hash at t, with the
// request's nonce when it had one; the token carries the TSA's
// certificate and the CA's.
func (a *Authority) timestamp(h []byte, nonce *big.Int, t time.Time) []byte {
	sha := pkix.AlgorithmIdentifier{Algorithm: oidSHA256}
	tst := must(asn1.Marshal(struct {
		Version        int
		Policy         asn1.ObjectIdentifier
		MessageImprint messageImprint
		SerialNumber   *big.Int
		GenTime        time.Time `asn1:"generalized"`
		Nonce          *big.Int  `asn1:"optional"`
	}{1, asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 99999, 1}, messageImprint{sha, h}, big.NewInt(t.UnixNano()), t.UTC().Truncate(time.Second), nonce}))
	type attribute struct {
		Type   asn1.ObjectIdentifier
		Values asn1.RawValue
	}
	md := sha256.Sum256(tst)
	attrs := append(
		must(asn1.Marshal(attribute{oidContentType, set(must(asn1.Marshal(oidTSTInfo)))})),
		must(asn1.Marshal(attribute{oidMessageDigest, set(must(asn1.Marshal(md[:])))}))...)
	signedAttrs := must(asn1.Marshal(set(attrs)))
	sh := sha256.Sum256(signedAttrs)
	sig := must(ecdsa.SignASN1(rand.Reader, a.TSAKey, sh[:]))
	sid := must(asn1.Marshal(struct {
		Issuer asn1.RawValue
		Serial *big.Int
	}{asn1.RawValue{FullBytes: a.TSA.RawIssuer}, a.TSA.SerialNumber}))
	si := must(asn1.Marshal(struct {
		Version            int
		SID                asn1.RawValue
		DigestAlgorithm    pkix.AlgorithmIdentifier
		SignedAttrs        asn1.RawValue
		SignatureAlgorithm pkix.AlgorithmIdentifier
		Signature          []byte
	}{1, asn1.RawValue{FullBytes: sid}, sha, ctx0(attrs), pkix.AlgorithmIdentifier{Algorithm: oidECDSASHA256}, sig}))
	sd := must(asn1.Marshal(struct {
		Version          int
		DigestAlgorithms asn1.RawValue
		EncapContentInfo struct {
			EContentType asn1.ObjectIdentifier
			EContent     asn1.RawValue
		}
		Certificates asn1.RawValue
		SignerInfos  asn1.RawValue
	}{3, set(must(asn1.Marshal(sha))), struct {
		EContentType asn1.ObjectIdentifier
		EContent     asn1.RawValue
	}{oidTSTInfo, ctx0(must(asn1.Marshal(tst)))}, ctx0(append(append([]byte(nil), a.TSA.Raw...), a.CA.Raw...)), set(si)}))
	ci := must(asn1.Marshal(struct {
		ContentType asn1.ObjectIdentifier
		Content     asn1.RawValue
	}{oidSignedData, ctx0(sd)}))
	return must(asn1.Marshal(struct {
		Status struct{ Status int }
		Token  asn1.RawValue
	}{struct{ Status int }{0}, asn1.RawValue{FullBytes: ci}}))
}

// Sign answers an authsign sign request as authsign does: the hash signed
// with the domain key (base64 DER), the signature time-stamped.
func (a *Authority) Sign(hash, created string) map[string]any {
	h := sha256.Sum256([]byte(hash))
	sig := base64.StdEncoding.EncodeToString(must(ecdsa.SignASN1(rand.Reader, a.DomainKey, h[:])))
	now := time.Now
	if a.Now != nil {
		now = a.Now
	}
	ts := a.Timestamp([]byte(sig), now())
	return map[string]any{
		"hash": hash, "created": created, "version": "0.1.0", "software": "authsigner test",
		"signature": sig, "domain": a.DomainName, "domainCert": PEM(a.Domain, a.CA),
		"timeSignature": base64.StdEncoding.EncodeToString(ts), "timestampCert": PEM(a.TSA, a.CA),
	}
}

// TSAHandler serves RFC 3161 time-stamp requests (POST, DER
// TimeStampReq, as rfc3161ng's RemoteTimestamper sends them to a public
// authority): a SHA-256 imprint, an optional nonce echoed in the token.
func (a *Authority) TSAHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Version        int
			MessageImprint messageImprint
			ReqPolicy      asn1.ObjectIdentifier `asn1:"optional"`
			Nonce          *big.Int              `asn1:"optional"`
			CertReq        bool                  `asn1:"optional"`
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<16))
		if r.Method != http.MethodPost || err != nil {
			http.Error(w, "POST a TimeStampReq", http.StatusBadRequest)
			return
		}
		if _, err := asn1.Unmarshal(body, &req); err != nil || !req.MessageImprint.HashAlgorithm.Algorithm.Equal(oidSHA256) || len(req.MessageImprint.HashedMessage) != sha256.Size {
			http.Error(w, "not a SHA-256 TimeStampReq", http.StatusBadRequest)
			return
		}
		now := time.Now
		if a.Now != nil {
			now = a.Now
		}
		w.Header().Set("Content-Type", "application/timestamp-reply")
		w.Write(a.timestamp(req.MessageImprint.HashedMessage, req.Nonce, now()))
	})
}

// Handler serves POST /sign (JSON {hash, created}), checking
// "Authorization: bearer TOKEN" when token is not empty; 403 otherwise.
func (a *Authority) Handler(token string) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /sign", func(w http.ResponseWriter, r *http.Request) {
		if token != "" && r.Header.Get("Authorization") != "bearer "+token {
			http.Error(w, `{"detail":"Invalid auth token"}`, http.StatusForbidden)
			return
		}
		var req struct{ Hash, Created string }
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Hash == "" {
			http.Error(w, `{"detail":"bad request"}`, http.StatusUnprocessableEntity)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(a.Sign(req.Hash, req.Created))
	})
	return mux
}
