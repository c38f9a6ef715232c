package crawl

import (
	"bytes"
	"crypto/sha1"
	"encoding/base32"
	"io"
	"strconv"

	"github.com/google/uuid"

	"github.com/arcport/arcport/lib/record"
)

// Revisit profiles (WARC 1.1 section 6.7; WARC 1.0 has the same names
// under /warc/1.0/).
const (
	ProfileServerNotModified      = "http://netpreserve.org/warc/1.1/revisit/server-not-modified"
	ProfileIdenticalPayloadDigest = "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest"
)

// Revisit describes the earlier capture a response revisits.
type Revisit struct {
	// Profile is ProfileServerNotModified (a 304 to a conditional request)
	// or ProfileIdenticalPayloadDigest (the same payload again).
	Profile string
	// RefersTo is the earlier record's WARC-Record-ID, when known;
	// RefersToURI and RefersToDate its WARC-Target-URI and WARC-Date.
	RefersTo     string
	RefersToURI  string
	RefersToDate string
	// PayloadDigest is the earlier record's WARC-Payload-Digest: the one
	// the revisit is resolved by (pywb, ReplayWeb.page, waczpack get).
	PayloadDigest string
}

// BodyDigest returns "sha1:BASE32" of the response body as received (the
// bytes after the HTTP header, as warcio and wget compute
// WARC-Payload-Digest), and whether there is a body to digest.
func (c *Capture) BodyDigest() (string, bool) {
	if c.Response == nil || c.Head == nil {
		return "", false
	}
	h := sha1.New()
	if _, err := io.Copy(h, c.Response.Section(c.BodyOffset, c.Response.Size())); err != nil {
		return "", false
	}
	return "sha1:" + base32.StdEncoding.EncodeToString(h.Sum(nil)), true
}

// NewRecordID returns a fresh WARC-Record-ID, "<urn:uuid:...>".
func NewRecordID() string { return "<urn:uuid:" + uuid.NewString() + ">" }

// WARCRecords returns the capture as a WARC response record and the
// request record concurrent to it (WARC 1.1 sections 6.3 and 6.4): blocks
// are the bytes as received and as sent, Content-Type application/http with
// msgtype, WARC-Truncated set for incomplete responses. Digests are left to
// the writer. resp is nil when no response byte was received. The blocks
// read from the capture's spool: write them before the sink returns.
func (c *Capture) WARCRecords() (req, resp *record.Record) {
	date := record.FormatDate(c.Date, false)
	req = &record.Record{
		Header: record.Header{
			{Name: record.FieldType, Value: string(record.Request)},
			{Name: record.FieldRecordID, Value: NewRecordID()},
			{Name: record.FieldDate, Value: date},
			{Name: record.FieldTargetURI, Value: c.URL},
		},
		Block: bytes.NewReader(c.Request),
	}
	if c.Response == nil {
		req.Header.Add(record.FieldContentType, "application/http;msgtype=request")
		req.Header.Add(record.FieldContentLength, strconv.Itoa(len(c.Request)))
		return req, nil
	}
	id := c.RecordID
	if id == "" {
		id = NewRecordID()
	}
	resp = &record.Record{
		Header: record.Header{
			{Name: record.FieldType, Value: string(record.Response)},
			{Name: record.FieldRecordID, Value: id},
			{Name: record.FieldDate, Value: date},
			{Name: record.FieldTargetURI, Value: c.URL},
		},
		Block: c.Response.Reader(),
	}
	if c.IP != "" {
		resp.Header.Add(record.FieldIPAddress, c.IP)
	}
	if c.Truncated != "" {
		resp.Header.Add(record.FieldTruncated, c.Truncated)
	}
	size := c.Response.Size()
	if rv := c.Revisit; rv != nil {
		// the HTTP header only (a 304 has nothing more; an identical
		// payload is left out), with the earlier record named
		resp.Header[0].Value = string(record.Revisit)
		resp.Header.Add(record.FieldProfile, rv.Profile)
		if rv.RefersTo != "" {
			resp.Header.Add(record.FieldRefersTo, rv.RefersTo)
		}
		resp.Header.Add(record.FieldRefersToTargetURI, rv.RefersToURI)
		resp.Header.Add(record.FieldRefersToDate, rv.RefersToDate)
		if rv.PayloadDigest != "" {
			resp.Header.Add(record.FieldPayloadDigest, rv.PayloadDigest)
		}
		if c.Head != nil && c.BodyOffset < size {
			size = c.BodyOffset
			resp.Block = io.LimitReader(c.Response.Reader(), size)
		}
		c.PayloadDigest = rv.PayloadDigest
	}
	if c.Revisit == nil && c.PayloadDigest != "" && c.Truncated == "" {
		resp.Header.Add(record.FieldPayloadDigest, c.PayloadDigest)
	}
	resp.Header.Add(record.FieldContentType, "application/http;msgtype=response")
	resp.Header.Add(record.FieldContentLength, strconv.FormatInt(size, 10))
	c.RecordID = resp.ID()
	req.Header.Add(record.FieldConcurrentTo, resp.ID())
	req.Header.Add(record.FieldContentType, "application/http;msgtype=request")
	req.Header.Add(record.FieldContentLength, strconv.Itoa(len(c.Request)))
	return req, resp
}
