package record

import (
	"io"
	"strconv"
	"strings"
	"time"
)

// Type is a WARC record type (WARC 1.1 section 6), or ARCFiledesc for an ARC
// version block as read from an ARC file.
type Type string

// Record types.
const (
	Warcinfo     Type = "warcinfo"
	Response     Type = "response"
	Resource     Type = "resource"
	Request      Type = "request"
	Metadata     Type = "metadata"
	Revisit      Type = "revisit"
	Conversion   Type = "conversion"
	Continuation Type = "continuation"
	// ARCFiledesc is the version block (filedesc:// record) at the head of
	// an ARC file. Converters turn it into warcinfo + metadata records.
	ARCFiledesc Type = "arc-filedesc"
)

// Well-known header field names (WARC 1.1 section 5).
const (
	FieldType                   = "WARC-Type"
	FieldRecordID               = "WARC-Record-ID"
	FieldDate                   = "WARC-Date"
	FieldContentLength          = "Content-Length"
	FieldContentType            = "Content-Type"
	FieldConcurrentTo           = "WARC-Concurrent-To"
	FieldBlockDigest            = "WARC-Block-Digest"
	FieldPayloadDigest          = "WARC-Payload-Digest"
	FieldIPAddress              = "WARC-IP-Address"
	FieldRefersTo               = "WARC-Refers-To"
	FieldRefersToTargetURI      = "WARC-Refers-To-Target-URI"
	FieldRefersToDate           = "WARC-Refers-To-Date"
	FieldTargetURI              = "WARC-Target-URI"
	FieldTruncated              = "WARC-Truncated"
	FieldWarcinfoID             = "WARC-Warcinfo-ID"
	FieldFilename               = "WARC-Filename"
	FieldProfile                = "WARC-Profile"
	FieldIdentifiedPayloadType  = "WARC-Identified-Payload-Type"
	FieldSegmentNumber          = "WARC-Segment-Number"
	FieldSegmentOriginID        = "WARC-Segment-Origin-ID"
	FieldSegmentTotalLength     = "WARC-Segment-Total-Length"
	FieldProtocol               = "WARC-Protocol"
	FieldCipherSuite            = "WARC-Cipher-Suite"
	FieldResourceType           = "WARC-Resource-Type"
	FieldPageID                 = "WARC-Page-ID"
	FieldJSONMetadata           = "WARC-JSON-Metadata"
	FieldIdentifiedPayloadFlags = "WARC-Identified-Payload-Flags"
)

// WARC versions as they appear on a record's first line.
const (
	WARC10 = "WARC/1.0"
	WARC11 = "WARC/1.1"
)

// Record is one archived record: a header and a block.
//
// The block is exactly Content-Length bytes (for WARC) or Archive-length bytes
// (for ARC) and is read from Block. Readers hand out Block as a stream over
// the underlying file: it is valid until the reader's next Next call.
type Record struct {
	// Version is the record's first line, "WARC/1.0" or "WARC/1.1"; for
	// records read from ARC it is "ARC/1" or "ARC/2"; writers choose their own.
	Version string
	// Header holds the header fields in file order, in WARC vocabulary.
	Header Header
	// Block is the record block. Nil means an empty block.
	Block io.Reader

	// Offset is where the record starts in its source file (the offset of
	// its gzip/zstd member for compressed files), set by readers.
	Offset int64
	// DiskLength is the number of bytes the record occupies in its source
	// file, compressed, including trailing newlines. Readers set it on the
	// same *Record once they have passed the record's end, i.e. after the
	// following call to Next (including the one that returns io.EOF).
	// It is 0 until then.
	DiskLength int64

	// ARC holds the fields of an ARC URL-record (or version block) when the
	// record was read from an ARC file; nil otherwise.
	ARC *ARCInfo
}

// ARCInfo holds an ARC URL-record's fields verbatim (ARC spec, version 1 and 2).
type ARCInfo struct {
	Version     int    // 1 or 2, from the file's version block
	URL         string // as written, may contain spaces
	IP          string
	Date        string // as written (normally 14 digits)
	ContentType string
	ResultCode  string // v2 only
	Checksum    string // v2 only
	Location    string // v2 only
	OffsetField string // v2 only, the "offset" field as written
	Filename    string // v2 only
	Length      int64  // Archive-length as parsed (after any repair)
	// Line is the URL-record line as read, without its newline.
	Line string
}

// Type returns the record's WARC-Type.
func (r *Record) Type() Type { return Type(r.Header.Get(FieldType)) }

// TargetURI returns WARC-Target-URI with any surrounding <...> (WARC 1.0
// draft / wget style) removed.
func (r *Record) TargetURI() string { return StripAngle(r.Header.Get(FieldTargetURI)) }

// ID returns WARC-Record-ID as written (with angle brackets).
func (r *Record) ID() string { return r.Header.Get(FieldRecordID) }

// ContentType returns the Content-Type field.
func (r *Record) ContentType() string { return r.Header.Get(FieldContentType) }

// Date parses WARC-Date.
func (r *Record) Date() (time.Time, error) { return ParseDate(r.Header.Get(FieldDate)) }

// ContentLength returns the parsed Content-Length, or -1 when it is missing
// or not a non-negative decimal number.
func (r *Record) ContentLength() int64 {
	v := strings.TrimSpace(r.Header.Get(FieldContentLength))
	if v == "" {
		return -1
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return -1
	}
	return n
}

// StripAngle removes one pair of surrounding angle brackets, as wget and the
// WARC 1.0 draft write WARC-Target-URI.
func StripAngle(s string) string {
	if len(s) >= 2 && s[0] == '<' && s[len(s)-1] == '>' {
		return s[1 : len(s)-1]
	}
	return s
}

// Reader is implemented by every format reader.
type Reader interface {
	// Next advances to the next record, skipping whatever is unread of the
	// current record's block. It returns io.EOF after the last record.
	Next() (*Record, error)
}

// Writer is implemented by every format writer.
type Writer interface {
	// WriteRecord writes one record, consuming its Block.
	WriteRecord(*Record) error
	// Close flushes buffered output. It does not close the underlying writer.
	Close() error
}
