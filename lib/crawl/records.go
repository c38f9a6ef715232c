package crawl

import (
	"bytes"
	"strconv"

	"github.com/google/uuid"

	"github.com/arcport/arcport/lib/record"
)

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
	resp = &record.Record{
		Header: record.Header{
			{Name: record.FieldType, Value: string(record.Response)},
			{Name: record.FieldRecordID, Value: NewRecordID()},
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
	resp.Header.Add(record.FieldContentType, "application/http;msgtype=response")
	resp.Header.Add(record.FieldContentLength, strconv.FormatInt(c.Response.Size(), 10))
	req.Header.Add(record.FieldConcurrentTo, resp.ID())
	req.Header.Add(record.FieldContentType, "application/http;msgtype=request")
	req.Header.Add(record.FieldContentLength, strconv.Itoa(len(c.Request)))
	return req, resp
}
