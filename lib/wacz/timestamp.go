package wacz

// RFC 3161 time-stamp responses as authsign stores them in timeSignature:
// base64 of a DER TimeStampResp whose token (CMS SignedData, RFC 5652)
// carries a TSTInfo over sha256 of the ASCII of signedData.signature.

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/base64"
	"errors"
	"fmt"
	"math/big"
	"time"
)

var (
	oidSignedData    = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 7, 2}
	oidTSTInfo       = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 16, 1, 4}
	oidContentType   = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 3}
	oidMessageDigest = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 4}
	oidSHA256        = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 2, 1}
	oidSHA384        = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 2, 2}
	oidSHA512        = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 2, 3}
	oidSHA1          = asn1.ObjectIdentifier{1, 3, 14, 3, 2, 26}
)

type tsResp struct {
	Status asn1.RawValue
	Token  asn1.RawValue `asn1:"optional"`
}

type tsContentInfo struct {
	ContentType asn1.ObjectIdentifier
	Content     asn1.RawValue `asn1:"tag:0"` // [0] EXPLICIT: Bytes is the content
}

type tsSignedData struct {
	Version          int
	DigestAlgorithms asn1.RawValue
	EncapContentInfo struct {
		EContentType asn1.ObjectIdentifier
		EContent     asn1.RawValue `asn1:"optional,tag:0"` // [0] EXPLICIT OCTET STRING
	}
	Certificates asn1.RawValue `asn1:"optional,tag:0"`
	CRLs         asn1.RawValue `asn1:"optional,tag:1"`
	SignerInfos  asn1.RawValue
}

type tsSignerInfo struct {
	Version            int
	SID                asn1.RawValue
	DigestAlgorithm    pkix.AlgorithmIdentifier
	SignedAttrs        asn1.RawValue `asn1:"optional,tag:0"`
	SignatureAlgorithm pkix.AlgorithmIdentifier
	Signature          []byte
	UnsignedAttrs      asn1.RawValue `asn1:"optional,tag:1"`
}

type tsAttribute struct {
	Type   asn1.ObjectIdentifier
	Values asn1.RawValue
}

type tsMessageImprint struct {
	HashAlgorithm pkix.AlgorithmIdentifier
	HashedMessage []byte
}

type tsTSTInfo struct {
	Version        int
	Policy         asn1.ObjectIdentifier
	MessageImprint tsMessageImprint
	SerialNumber   *big.Int
	GenTime        time.Time `asn1:"generalized"`
}

func hashFor(oid asn1.ObjectIdentifier) (crypto.Hash, error) {
	switch {
	case oid.Equal(oidSHA256):
		return crypto.SHA256, nil
	case oid.Equal(oidSHA384):
		return crypto.SHA384, nil
	case oid.Equal(oidSHA512):
		return crypto.SHA512, nil
	case oid.Equal(oidSHA1):
		return crypto.SHA1, nil
	}
	return 0, fmt.Errorf("unsupported digest algorithm %v", oid)
}

func digest(h crypto.Hash, b []byte) []byte {
	w := h.New()
	w.Write(b)
	return w.Sum(nil)
}

// verifyTimestamp checks sd.TimeSignature against sd.TimestampCert and
// returns the time it attests and who attests it.
func verifyTimestamp(sd *SignedData, o VerifyOptions) (time.Time, string, error) {
	var zero time.Time
	der, err := base64.StdEncoding.DecodeString(sd.TimeSignature)
	if err != nil {
		return zero, "", errors.New("not base64")
	}
	certs, err := parseChain(sd.TimestampCert)
	if err != nil {
		return zero, "", fmt.Errorf("timestampCert: %v", err)
	}
	var resp tsResp
	if _, err := asn1.Unmarshal(der, &resp); err != nil {
		return zero, "", fmt.Errorf("not a TimeStampResp: %v", err)
	}
	var status int
	if _, err := asn1.Unmarshal(resp.Status.Bytes, &status); err != nil || status > 1 {
		return zero, "", fmt.Errorf("status %d: not granted", status)
	}
	var ci tsContentInfo
	if _, err := asn1.Unmarshal(resp.Token.FullBytes, &ci); err != nil || !ci.ContentType.Equal(oidSignedData) {
		return zero, "", errors.New("no SignedData time-stamp token")
	}
	var sgd tsSignedData
	if _, err := asn1.Unmarshal(ci.Content.Bytes, &sgd); err != nil {
		return zero, "", fmt.Errorf("SignedData: %v", err)
	}
	if !sgd.EncapContentInfo.EContentType.Equal(oidTSTInfo) {
		return zero, "", errors.New("token content is not a TSTInfo")
	}
	var econtent []byte
	if _, err := asn1.Unmarshal(sgd.EncapContentInfo.EContent.Bytes, &econtent); err != nil {
		return zero, "", fmt.Errorf("TSTInfo: %v", err)
	}
	var tst tsTSTInfo
	if _, err := asn1.Unmarshal(econtent, &tst); err != nil {
		return zero, "", fmt.Errorf("TSTInfo: %v", err)
	}
	mh, err := hashFor(tst.MessageImprint.HashAlgorithm.Algorithm)
	if err != nil {
		return zero, "", err
	}
	if !bytes.Equal(digest(mh, []byte(sd.Signature)), tst.MessageImprint.HashedMessage) {
		return zero, "", errors.New("the time-stamp is not over this signature")
	}
	var si tsSignerInfo
	if _, err := asn1.Unmarshal(sgd.SignerInfos.Bytes, &si); err != nil {
		return zero, "", fmt.Errorf("SignerInfo: %v", err)
	}
	dh, err := hashFor(si.DigestAlgorithm.Algorithm)
	if err != nil {
		return zero, "", err
	}
	if len(si.SignedAttrs.FullBytes) == 0 {
		return zero, "", errors.New("SignerInfo has no signed attributes")
	}
	var md []byte
	for rest := si.SignedAttrs.Bytes; len(rest) > 0; {
		var a tsAttribute
		if rest, err = asn1.Unmarshal(rest, &a); err != nil {
			return zero, "", fmt.Errorf("signed attributes: %v", err)
		}
		if a.Type.Equal(oidMessageDigest) {
			if _, err := asn1.Unmarshal(a.Values.Bytes, &md); err != nil {
				return zero, "", errors.New("messageDigest attribute")
			}
		}
	}
	if md == nil || !bytes.Equal(md, digest(dh, econtent)) {
		return zero, "", errors.New("messageDigest does not match the TSTInfo")
	}
	// the signature is over the DER of the attributes as a SET
	signed := append([]byte{0x31}, si.SignedAttrs.FullBytes[1:]...)
	tsa := certs[0]
	h := digest(dh, signed)
	switch pub := tsa.PublicKey.(type) {
	case *ecdsa.PublicKey:
		if !ecdsa.VerifyASN1(pub, h, si.Signature) {
			return zero, "", fmt.Errorf("token signature does not verify with %s", tsa.Subject)
		}
	case *rsa.PublicKey:
		if rsa.VerifyPKCS1v15(pub, dh, h, si.Signature) != nil && rsa.VerifyPSS(pub, dh, h, si.Signature, nil) != nil {
			return zero, "", fmt.Errorf("token signature does not verify with %s", tsa.Subject)
		}
	default:
		return zero, "", fmt.Errorf("timestamp certificate key %T not supported", tsa.PublicKey)
	}
	if _, err := checkChain(certs, o.TimestampRoots, tst.GenTime, x509.ExtKeyUsageTimeStamping); err != nil {
		return zero, "", fmt.Errorf("timestampCert: %v", err)
	}
	return tst.GenTime, tsa.Subject.String(), nil
}
