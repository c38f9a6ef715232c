package warc

import (
	"crypto/sha1"
	"hash"
	"strings"

	"github.com/arcport/arcport/lib/httpmsg"
	"github.com/arcport/arcport/lib/record"
)

// PayloadKind says what a record's payload is, for WARC-Payload-Digest.
type PayloadKind int

// Payload kinds.
const (
	// NoPayload: the record type carries no payload digest (warcinfo,
	// metadata, continuation, and revisits whose block is not HTTP).
	NoPayload PayloadKind = iota
	// HTTPPayload: the block is an HTTP message (application/http); the
	// payload is the entity body after the head, with any chunked
	// transfer coding removed (WARC 1.1 section 5.9 and 6.3.2).
	HTTPPayload
	// BlockPayload: the payload is the whole block (resource, conversion,
	// and non-HTTP response or request records).
	BlockPayload
)

// KindOf returns the payload kind of a record of type t whose block has
// Content-Type ct.
func KindOf(t record.Type, ct string) PayloadKind {
	isHTTP := httpmsg.MediaType(ct) == "application/http"
	switch t {
	case record.Response, record.Request, record.Revisit:
		if isHTTP {
			return HTTPPayload
		}
		if t == record.Revisit {
			return NoPayload
		}
		return BlockPayload
	case record.Resource, record.Conversion:
		return BlockPayload
	}
	return NoPayload
}

// Digester computes a record's block digest and payload digest while the
// block streams through Write, holding nothing but the HTTP head (at most
// httpmsg.MaxHeadSize bytes). For an HTTP payload using the chunked transfer
// coding it computes both the de-chunked digest (what WARC 1.1 asks for) and
// the digest of the body as stored (what warcio and some crawlers write).
//
// A Digester is reusable through Reset; the zero value is not usable.
type Digester struct {
	kind PayloadKind

	block   hash.Hash // nil when not wanted
	payload hash.Hash // de-chunked payload (or the body when not chunked)
	raw     hash.Hash // body as stored, only used when chunked
	algBlk  string
	algPay  string

	// HTTP head scanning.
	head     []byte
	inBody   bool
	headOver bool
	nl       bool
	chunked  bool
	dc       httpmsg.Dechunker

	blockLen int64
	bodyLen  int64
}

// NewDigester returns a Digester for a block of the given payload kind.
// blockAlg and payloadAlg name the digest algorithms (see record.NewHash);
// an empty name skips that digest.
func NewDigester(kind PayloadKind, blockAlg, payloadAlg string) (*Digester, error) {
	d := &Digester{}
	if err := d.reset(kind, blockAlg, payloadAlg); err != nil {
		return nil, err
	}
	return d, nil
}

// newSHA1Digester returns a Digester with sha1 for both digests, the
// writer's case; its hashes are reused across Reset calls.
func newSHA1Digester() *Digester {
	return &Digester{block: sha1.New(), payload: sha1.New(), raw: sha1.New(), algBlk: "sha1", algPay: "sha1"}
}

// resetSHA1 prepares a Digester made by newSHA1Digester for a new block.
func (d *Digester) resetSHA1(kind PayloadKind) {
	d.kind = kind
	d.block.Reset()
	d.payload.Reset()
	d.raw.Reset()
	d.clearState()
}

// Reset prepares d for a new block with new algorithms.
func (d *Digester) Reset(kind PayloadKind, blockAlg, payloadAlg string) error {
	return d.reset(kind, blockAlg, payloadAlg)
}

func (d *Digester) reset(kind PayloadKind, blockAlg, payloadAlg string) error {
	d.kind = kind
	d.block, d.payload, d.raw = nil, nil, nil
	d.algBlk, d.algPay = "", ""
	var err error
	if blockAlg != "" {
		if d.block, err = record.NewHash(blockAlg); err != nil {
			return err
		}
		d.algBlk = canonAlg(blockAlg)
	}
	if payloadAlg != "" && kind != NoPayload {
		if d.payload, err = record.NewHash(payloadAlg); err != nil {
			return err
		}
		d.raw, _ = record.NewHash(payloadAlg)
		d.algPay = canonAlg(payloadAlg)
	}
	d.clearState()
	return nil
}

func canonAlg(a string) string { return strings.ReplaceAll(strings.ToLower(a), "-", "") }

func (d *Digester) clearState() {
	d.head = d.head[:0]
	d.inBody, d.headOver, d.nl, d.chunked = false, false, false, false
	d.blockLen, d.bodyLen = 0, 0
	d.dc = httpmsg.Dechunker{}
	if d.payload != nil {
		d.dc.W = d.payload
	}
}

// Write feeds block bytes. It never fails.
func (d *Digester) Write(p []byte) (int, error) {
	d.blockLen += int64(len(p))
	if d.block != nil {
		d.block.Write(p)
	}
	if d.payload == nil {
		return len(p), nil
	}
	switch d.kind {
	case BlockPayload:
		if !d.shared() {
			d.payload.Write(p)
		}
		d.bodyLen += int64(len(p))
	case HTTPPayload:
		body := p
		if !d.inBody {
			body = d.scanHead(p)
		}
		if len(body) > 0 {
			d.bodyLen += int64(len(body))
			if d.chunked {
				d.raw.Write(body)
				d.dc.Write(body)
			} else {
				d.payload.Write(body)
			}
		}
	}
	return len(p), nil
}

// scanHead consumes head bytes of p and returns what follows the head.
func (d *Digester) scanHead(p []byte) []byte {
	for i, c := range p {
		switch c {
		case '\n':
			if d.nl {
				d.appendHead(p[:i+1])
				d.inBody = true
				d.chunked = !d.headOver && headIsChunked(d.head)
				return p[i+1:]
			}
			d.nl = true
		case '\r':
		default:
			d.nl = false
		}
	}
	d.appendHead(p)
	return nil
}

func (d *Digester) appendHead(p []byte) {
	if d.headOver {
		return
	}
	if len(d.head)+len(p) > httpmsg.MaxHeadSize {
		d.headOver = true
		return
	}
	d.head = append(d.head, p...)
}

// headIsChunked reports whether an HTTP head has "Transfer-Encoding: ...
// chunked", without allocating.
func headIsChunked(h []byte) bool {
	const name = "transfer-encoding:"
	for len(h) > 0 {
		line := h
		if i := indexByte(h, '\n'); i >= 0 {
			line, h = h[:i], h[i+1:]
		} else {
			h = nil
		}
		if len(line) > len(name) && equalFoldASCII(line[:len(name)], name) && containsFoldASCII(line[len(name):], "chunked") {
			return true
		}
	}
	return false
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func equalFoldASCII(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range b {
		if lower(b[i]) != s[i] {
			return false
		}
	}
	return true
}

func containsFoldASCII(b []byte, s string) bool {
	for i := 0; i+len(s) <= len(b); i++ {
		if equalFoldASCII(b[i:i+len(s)], s) {
			return true
		}
	}
	return false
}

// shared reports whether the payload digest is the block digest (payload =
// block, same algorithm), so the block is hashed once.
func (d *Digester) shared() bool {
	return d.kind == BlockPayload && d.block != nil && d.algBlk == d.algPay
}

// BlockLen returns the number of block bytes written so far.
func (d *Digester) BlockLen() int64 { return d.blockLen }

// BodyLen returns the number of payload bytes as stored (for HTTP: the
// bytes after the head, before de-chunking).
func (d *Digester) BodyLen() int64 { return d.bodyLen }

// BlockDigest returns the digest of the block written so far.
func (d *Digester) BlockDigest() (record.Digest, bool) {
	if d.block == nil {
		return record.Digest{}, false
	}
	return record.Digest{Algorithm: d.algBlk, Sum: d.block.Sum(nil)}, true
}

// Chunked reports whether the HTTP head declared the chunked transfer coding.
func (d *Digester) Chunked() bool { return d.chunked }

// PayloadDigest returns the payload digest: for HTTP blocks over the entity
// body with the chunked transfer coding removed, falling back to the body as
// stored when de-chunking fails. ok is false for records without a payload.
func (d *Digester) PayloadDigest() (dg record.Digest, ok bool) {
	if d.payload == nil || d.kind == NoPayload {
		return record.Digest{}, false
	}
	if d.shared() {
		return record.Digest{Algorithm: d.algPay, Sum: d.block.Sum(nil)}, true
	}
	if d.chunked && (d.dc.Err() != nil || !d.dc.Done()) {
		return record.Digest{Algorithm: d.algPay, Sum: d.raw.Sum(nil)}, true
	}
	return record.Digest{Algorithm: d.algPay, Sum: d.payload.Sum(nil)}, true
}

// RawPayloadDigest returns the digest of the payload as stored, with any
// transfer coding left in place. It equals PayloadDigest unless the body
// is chunked.
func (d *Digester) RawPayloadDigest() (dg record.Digest, ok bool) {
	if !d.chunked {
		return d.PayloadDigest()
	}
	return record.Digest{Algorithm: d.algPay, Sum: d.raw.Sum(nil)}, true
}

// appendSHA1B32 appends "sha1:" and the base32 form of a sha1 hash's sum to
// dst; scratch is reused to hold the sum.
func appendSHA1B32(dst []byte, h hash.Hash, scratch *[]byte) []byte {
	*scratch = h.Sum((*scratch)[:0])
	dst = append(dst, "sha1:"...)
	return appendBase32(dst, *scratch)
}

const b32alpha = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"

// appendBase32 appends the unpadded RFC 4648 base32 form of a 20-byte sum
// (which needs no padding: 160 bits = 32 symbols).
func appendBase32(dst, src []byte) []byte {
	for len(src) >= 5 {
		v := uint64(src[0])<<32 | uint64(src[1])<<24 | uint64(src[2])<<16 | uint64(src[3])<<8 | uint64(src[4])
		for i := 7; i >= 0; i-- {
			dst = append(dst, b32alpha[(v>>(uint(i)*5))&31])
		}
		src = src[5:]
	}
	return dst
}
