package warc

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha1"
	"encoding/base32"
	"fmt"
	"io"
	"net/http/httputil"
	"strconv"
	"strings"
	"testing"
)

// This file reads a written WARC record back the plain way the WARC 1.1
// spec describes it, with the standard library only (no lib/warc, no
// lib/httpmsg), and computes its digests, so that tests compare the
// writer's WARC-Block-Digest and WARC-Payload-Digest with values that do
// not come from the code under test.

// indepRecord is one record as read by indepRead.
type indepRecord struct {
	fields map[string]string // lower-cased names; the first value of each
	block  []byte
}

// indepRead reads the record at off in data (a plain WARC, or one gzip
// member per record when gz).
func indepRead(t testing.TB, data []byte, off int64, gz bool) indepRecord {
	t.Helper()
	var r io.Reader = bytes.NewReader(data[off:])
	if gz {
		zr, err := gzip.NewReader(r)
		if err != nil {
			t.Fatalf("offset %d: %v", off, err)
		}
		zr.Multistream(false)
		r = zr
	}
	br := bufio.NewReader(r)
	rec := indepRecord{fields: map[string]string{}}
	first := true
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("offset %d: WARC header: %v", off, err)
		}
		line = strings.TrimRight(line, "\r\n")
		if first {
			if !strings.HasPrefix(line, "WARC/") {
				t.Fatalf("offset %d: no WARC record: %q", off, line)
			}
			first = false
			continue
		}
		if line == "" {
			break
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			t.Fatalf("offset %d: header line %q", off, line)
		}
		if k := strings.ToLower(name); rec.fields[k] == "" {
			rec.fields[k] = strings.TrimSpace(value)
		}
	}
	n, err := strconv.ParseInt(rec.fields["content-length"], 10, 64)
	if err != nil {
		t.Fatalf("offset %d: Content-Length %q", off, rec.fields["content-length"])
	}
	rec.block = make([]byte, n)
	if _, err := io.ReadFull(br, rec.block); err != nil {
		t.Fatalf("offset %d: block of %d bytes: %v", off, n, err)
	}
	return rec
}

// indepSHA1 is a WARC digest: "sha1:" and the SHA-1 of b in base 32.
func indepSHA1(b []byte) string {
	s := sha1.Sum(b)
	return "sha1:" + base32.StdEncoding.EncodeToString(s[:])
}

// indepHTTPBody splits an HTTP message into its head and its entity body
// as WARC 1.1 defines the payload: after the blank line ending the head,
// with the chunked transfer coding removed (when the chunks decode; the
// body as stored when they do not). ok is false when there is no blank line.
func indepHTTPBody(msg []byte) (head string, body []byte, ok bool) {
	i, n := bytes.Index(msg, []byte("\r\n\r\n")), 4
	if j := bytes.Index(msg, []byte("\n\n")); j >= 0 && (i < 0 || j < i) {
		i, n = j, 2
	}
	if i < 0 {
		return "", nil, false
	}
	head, body = string(msg[:i]), msg[i+n:]
	chunked := false
	for _, l := range strings.Split(head, "\n") {
		name, value, _ := strings.Cut(strings.TrimRight(l, "\r"), ":")
		if strings.EqualFold(strings.TrimSpace(name), "Transfer-Encoding") && strings.Contains(strings.ToLower(value), "chunked") {
			chunked = true
		}
	}
	if chunked {
		if de, err := io.ReadAll(httputil.NewChunkedReader(bytes.NewReader(body))); err == nil {
			body = de
		}
	}
	return head, body, true
}

// indepPayloadDigest is the WARC-Payload-Digest a record of type typ with
// Content-Type ct and this block should carry, computed here: for HTTP
// requests and responses (application/http) the SHA-1 of the entity body;
// for resource and conversion records that of the block; "" for the rest
// (revisits name the payload of another record and are not computed).
func indepPayloadDigest(typ, ct string, block []byte) (string, error) {
	isHTTP := strings.HasPrefix(strings.ToLower(strings.TrimSpace(ct)), "application/http")
	switch typ {
	case "response", "request":
		if !isHTTP {
			return "", nil
		}
		_, body, ok := indepHTTPBody(block)
		if !ok {
			return "", fmt.Errorf("HTTP message without the blank line ending its head")
		}
		return indepSHA1(body), nil
	case "resource", "conversion":
		return indepSHA1(block), nil
	}
	return "", nil
}
