package record

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"hash"
	"strings"
)

// Digest is a labelled digest value as written in WARC-Block-Digest and
// WARC-Payload-Digest: "algorithm:value".
type Digest struct {
	Algorithm string // lower case: sha1, sha256, sha512, md5
	Sum       []byte
}

// String formats the digest as WARC 1.1 recommends for sha1 (base32, upper
// case) and as common practice does for the others (hex).
func (d Digest) String() string {
	if d.Algorithm == "sha1" {
		return "sha1:" + base32.StdEncoding.EncodeToString(d.Sum)
	}
	return d.Algorithm + ":" + hex.EncodeToString(d.Sum)
}

// NewHash returns a hash.Hash for a digest algorithm name (sha1, sha-1,
// sha256, sha-256, sha512, md5; any case).
func NewHash(algorithm string) (hash.Hash, error) {
	switch strings.ReplaceAll(strings.ToLower(algorithm), "-", "") {
	case "sha1":
		return sha1.New(), nil
	case "sha256":
		return sha256.New(), nil
	case "sha512":
		return sha512.New(), nil
	case "md5":
		return md5.New(), nil
	}
	return nil, fmt.Errorf("unknown digest algorithm %q", algorithm)
}

// ParseDigest parses "algorithm:value" where value is base32 (with or
// without padding), hex, or base64 (std or URL alphabet), telling the
// encodings apart by the expected digest size.
func ParseDigest(s string) (Digest, error) {
	alg, val, ok := strings.Cut(strings.TrimSpace(s), ":")
	if !ok || alg == "" || val == "" {
		return Digest{}, fmt.Errorf("bad digest %q", s)
	}
	alg = strings.ReplaceAll(strings.ToLower(alg), "-", "")
	h, err := NewHash(alg)
	if err != nil {
		return Digest{}, err
	}
	size := h.Size()
	try := func(b []byte, err error) ([]byte, bool) { return b, err == nil && len(b) == size }
	if b, ok := try(hex.DecodeString(val)); ok {
		return Digest{alg, b}, nil
	}
	up := strings.ToUpper(strings.TrimRight(val, "="))
	if b, ok := try(base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(up)); ok {
		return Digest{alg, b}, nil
	}
	raw := strings.TrimRight(val, "=")
	if b, ok := try(base64.RawStdEncoding.DecodeString(raw)); ok {
		return Digest{alg, b}, nil
	}
	if b, ok := try(base64.RawURLEncoding.DecodeString(raw)); ok {
		return Digest{alg, b}, nil
	}
	return Digest{}, fmt.Errorf("bad %s digest value %q", alg, val)
}
