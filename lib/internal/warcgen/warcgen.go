// Package warcgen builds small WARC records byte by byte for tests: valid
// ones with digests in any algorithm and encoding, and damaged ones (a
// flipped byte, a wrong label, a cut gzip member), so that verification can
// be tested on a corpus generated where it is used rather than stored.
// It follows WARC 1.1 (../shared/specs) for the record layout.
package warcgen

import (
	"bytes"
	"compress/gzip"
	"encoding/base32"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/arcport/arcport/lib/record"
	"github.com/klauspost/compress/zstd"
)

// Field is one WARC header field.
type Field struct{ Name, Value string }

// Record returns a WARC/1.1 record: version line, the fields, a
// Content-Length for block (unless one is among the fields), the block and
// CRLF CRLF.
func Record(fields []Field, block []byte) []byte {
	var b bytes.Buffer
	b.WriteString("WARC/1.1\r\n")
	hasCL := false
	for _, f := range fields {
		fmt.Fprintf(&b, "%s: %s\r\n", f.Name, f.Value)
		hasCL = hasCL || strings.EqualFold(f.Name, "Content-Length")
	}
	if !hasCL {
		fmt.Fprintf(&b, "Content-Length: %d\r\n", len(block))
	}
	b.WriteString("\r\n")
	b.Write(block)
	b.WriteString("\r\n\r\n")
	return b.Bytes()
}

// Response returns the fields of a response record for uri with the given
// digest values ("" leaves a field out).
func Response(uri, blockDigest, payloadDigest string) []Field {
	fs := []Field{
		{"WARC-Type", "response"},
		{"WARC-Record-ID", "<urn:uuid:" + fmt.Sprintf("%08x", len(uri)) + "-0000-4000-8000-000000000000>"},
		{"WARC-Date", "2024-01-02T03:04:05Z"},
		{"WARC-Target-URI", uri},
		{"Content-Type", "application/http;msgtype=response"},
	}
	if blockDigest != "" {
		fs = append(fs, Field{Name: "WARC-Block-Digest", Value: blockDigest})
	}
	if payloadDigest != "" {
		fs = append(fs, Field{Name: "WARC-Payload-Digest", Value: payloadDigest})
	}
	return fs
}

// HTTP returns an HTTP/1.1 200 response with body; chunked sends the body
// as two chunks with Transfer-Encoding: chunked. It also returns the
// entity as stored after the head (the chunked framing included).
func HTTP(body []byte, chunked bool) (msg []byte, stored []byte) {
	var b bytes.Buffer
	b.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nServer: warcgen\r\n")
	if chunked {
		b.WriteString("Transfer-Encoding: chunked\r\n\r\n")
		half := len(body) / 2
		start := b.Len()
		fmt.Fprintf(&b, "%x\r\n%s\r\n%x\r\n%s\r\n0\r\n\r\n", half, body[:half], len(body)-half, body[half:])
		return b.Bytes(), b.Bytes()[start:]
	}
	fmt.Fprintf(&b, "Content-Length: %d\r\n\r\n", len(body))
	start := b.Len()
	b.Write(body)
	return b.Bytes(), b.Bytes()[start:]
}

// Sum returns the digest of b in algorithm alg (sha1, sha256, sha512, md5).
func Sum(alg string, b []byte) []byte {
	h, err := record.NewHash(alg)
	if err != nil {
		panic(err)
	}
	h.Write(b)
	return h.Sum(nil)
}

// B32 returns "label:" and the unpadded upper-case base32 digest of b.
func B32(label, alg string, b []byte) string {
	return label + ":" + base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(Sum(alg, b))
}

// Hex returns "label:" and the lower-case hex digest of b.
func Hex(label, alg string, b []byte) string {
	return label + ":" + hex.EncodeToString(Sum(alg, b))
}

// Gzip compresses each of recs into its own gzip member and concatenates
// them (a .warc.gz).
func Gzip(recs ...[]byte) []byte {
	var out bytes.Buffer
	for _, r := range recs {
		zw := gzip.NewWriter(&out)
		zw.Write(r)
		zw.Close()
	}
	return out.Bytes()
}

// Zstd compresses each of recs into its own zstd frame and concatenates
// them (a .warc.zst without a dictionary).
func Zstd(recs ...[]byte) []byte {
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
	if err != nil {
		panic(err)
	}
	defer enc.Close()
	var out []byte
	for _, r := range recs {
		out = enc.EncodeAll(r, out)
	}
	return out
}

// Flip returns a copy of b with the first occurrence of old (which must be
// there) replaced by new, of the same length.
func Flip(b []byte, old, new string) []byte {
	i := bytes.Index(b, []byte(old))
	if i < 0 || len(old) != len(new) {
		panic("warcgen.Flip: " + old + " not found or lengths differ")
	}
	c := bytes.Clone(b)
	copy(c[i:], new)
	return c
}

// Fields makes fields from name, value pairs.
func Fields(kv ...string) []Field {
	fs := make([]Field, 0, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		fs = append(fs, Field{Name: kv[i], Value: kv[i+1]})
	}
	return fs
}
