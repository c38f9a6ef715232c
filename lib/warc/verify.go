package warc

import (
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"strings"

	"github.com/arcport/arcport/lib/record"
)

// VerifyDigests reads every record of r with digest checking on (see
// WithVerifyDigests) and returns how many records it read and every problem
// found, digest mismatches included. Problems are collected rather than
// printed; under the Fail policy (set through opts) reading stops at the
// first one, which is also returned as err.
func VerifyDigests(r io.Reader, opts ...Option) (records int, problems []*record.Problem, err error) {
	collect := func(p *record.Problem) { problems = append(problems, p) }
	opts = append(append([]Option{}, opts...), WithVerifyDigests(true), WithProblemFunc(collect))
	rd, err := NewReader(r, opts...)
	if err != nil {
		return 0, nil, err
	}
	for {
		_, err := rd.Next()
		if err == io.EOF {
			return records, problems, nil
		}
		if err != nil {
			if p, ok := err.(*record.Problem); ok && rd.policy == record.Fail {
				problems = append(problems, p)
			}
			return records, problems, err
		}
		records++
	}
}

// WithDigestFunc turns digest checking on (see WithVerifyDigests) and calls
// f with the outcome for every record whose block was read to its end
// (a truncated block is reported as a problem instead), whether or not it
// states any digest. The DigestCheck is only valid during the call.
func WithDigestFunc(f func(*DigestCheck)) Option {
	return func(r *Reader) { r.verify, r.digestFunc = true, f }
}

// DigestStatus says how a stated digest compares with the computed one.
type DigestStatus int

// Digest statuses.
const (
	// DigestAbsent: the record has no such field.
	DigestAbsent DigestStatus = iota
	// DigestMatch: the stated digest equals the computed one (for a
	// payload: the payload with any chunked transfer coding removed, as
	// WARC 1.1 section 5.9 says).
	DigestMatch
	// DigestMatchAsStored: a payload digest equal to the digest of the
	// chunked entity as stored, chunk framing included (warcio, wget).
	DigestMatchAsStored
	// DigestMismatch: the stated digest equals neither.
	DigestMismatch
	// DigestUnreadable: the value is not "algorithm:value" with a known
	// algorithm and a value of its size (reported as a problem).
	DigestUnreadable
	// DigestNotChecked: a payload digest on a record with no payload of
	// its own (a revisit's describes the record it revisits).
	DigestNotChecked
)

var statusNames = [...]string{"absent", "match", "match (as stored, chunked framing included)", "MISMATCH", "unreadable", "not checked"}

// String names the status.
func (s DigestStatus) String() string {
	if int(s) < len(statusNames) {
		return statusNames[s]
	}
	return fmt.Sprintf("DigestStatus(%d)", int(s))
}

// DigestResult is the outcome for one digest field.
type DigestResult struct {
	Stated string        // the field's value as written ("" when absent)
	Want   record.Digest // Stated parsed (when readable)
	// Computed is the digest in the stated algorithm: of the block, or of
	// the payload with any chunked transfer coding removed.
	Computed record.Digest
	// AsStored is, for a chunked payload, its digest with the chunk
	// framing left in place (otherwise equal to Computed).
	AsStored record.Digest
	Chunked  bool // the HTTP head declared Transfer-Encoding: chunked
	Status   DigestStatus
}

// ComputedLike formats the computed digest the way Stated is written:
// the same label, encoding (hex, base32, base64) and letter case, so the
// two can be compared by eye. asStored selects AsStored.
func (d *DigestResult) ComputedLike(asStored bool) string {
	c := d.Computed
	if asStored {
		c = d.AsStored
	}
	return FormatLike(d.Stated, c)
}

// DigestCheck is the digest outcome for one record.
type DigestCheck struct {
	Offset  int64 // the record's offset (see record.Record.Offset)
	URI     string
	Type    record.Type
	Block   DigestResult
	Payload DigestResult
}

// ParseStatedDigest parses a WARC-Block-Digest or WARC-Payload-Digest value
// as record.ParseDigest does ("algorithm:value", value in hex, base32 or
// base64, any case, sha-1 or sha1), and also a bare value without an
// algorithm label (seen in the wild), whose algorithm is told by its size:
// 32 hex digits md5, 40 hex digits or 32 base32 symbols sha1, 64 hex
// digits sha256, 128 sha512.
func ParseStatedDigest(v string) (record.Digest, error) {
	v = strings.TrimSpace(v)
	if strings.Contains(v, ":") {
		d, err := record.ParseDigest(v)
		if err != nil {
			alg, val, _ := strings.Cut(v, ":")
			if g := guessAlg(val); g != "" && canonAlg(alg) != g {
				return d, fmt.Errorf("the value has the size of a %s digest, not %s (wrong algorithm label?)", g, alg)
			}
		}
		return d, err
	}
	if g := guessAlg(v); g != "" {
		return record.ParseDigest(g + ":" + v)
	}
	return record.Digest{}, fmt.Errorf("no algorithm label, and the value %q is not a digest of a known size", clip(v))
}

// guessAlg names the digest algorithm whose size the value decodes to
// ("" when none does).
func guessAlg(v string) string {
	v = strings.TrimRight(v, "=")
	sizes := map[int]string{16: "md5", 20: "sha1", 32: "sha256", 64: "sha512"}
	if b, err := hex.DecodeString(v); err == nil {
		return sizes[len(b)]
	}
	if b, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(strings.ToUpper(v)); err == nil {
		return sizes[len(b)]
	}
	if b, err := base64.RawStdEncoding.DecodeString(v); err == nil {
		return sizes[len(b)]
	}
	if b, err := base64.RawURLEncoding.DecodeString(v); err == nil {
		return sizes[len(b)]
	}
	return ""
}

// FormatLike formats d the way the stated digest value is written: its
// label as written (none when it has none), hex (in its case), base32 (in
// its case, padded if it is), or base64. Without a readable stated value
// it returns d.String().
func FormatLike(stated string, d record.Digest) string {
	stated = strings.TrimSpace(stated)
	label, val, ok := strings.Cut(stated, ":")
	if !ok {
		label, val = "", stated
	}
	if len(d.Sum) == 0 {
		return ""
	}
	var enc string
	trimmed := strings.TrimRight(val, "=")
	switch {
	case len(val) == 2*len(d.Sum) && isHex(val):
		enc = hex.EncodeToString(d.Sum)
		if strings.ToLower(val) != val {
			enc = strings.ToUpper(enc)
		}
	case len(trimmed) == base32.StdEncoding.WithPadding(base32.NoPadding).EncodedLen(len(d.Sum)) && isBase32(trimmed):
		enc = base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(d.Sum)
		if len(val) != len(trimmed) {
			enc = base32.StdEncoding.EncodeToString(d.Sum)
		}
		if strings.ToUpper(val) != val {
			enc = strings.ToLower(enc)
		}
	case len(trimmed) == base64.RawStdEncoding.EncodedLen(len(d.Sum)):
		enc = base64.RawStdEncoding.EncodeToString(d.Sum)
		if strings.ContainsAny(val, "-_") {
			enc = base64.RawURLEncoding.EncodeToString(d.Sum)
		}
		if len(val) != len(trimmed) {
			enc += val[len(trimmed):]
		}
	default:
		return d.String()
	}
	if label == "" {
		return enc
	}
	return label + ":" + enc
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i] | 0x20
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

func isBase32(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		if !(c >= 'A' && c <= 'Z' || c >= '2' && c <= '7') {
			return false
		}
	}
	return true
}

// forURI is " for URI" when the record has a target URI.
func forURI(rec *record.Record) string {
	if u := rec.TargetURI(); u != "" {
		return " for " + u
	}
	return ""
}
