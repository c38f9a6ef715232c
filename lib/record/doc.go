// Package record is arcport's one capture model: every reader (WARC, ARC,
// HTTrack cache, ZIM) yields *Record values and every writer takes them.
//
// The model is WARC-shaped, because WARC (ISO 28500, WARC 1.1) is the superset
// of the formats arcport handles: a record is an ordered list of header fields
// in WARC vocabulary (WARC-Type, WARC-Target-URI, WARC-Date, ...) plus a block
// read as a stream. ARC-only facts (v2 result code, checksum, location, ...)
// ride along in Record.ARC. Nothing in the model holds a whole block in memory.
//
// Date handling follows WARC 1.1 section 5.4 (W3C-ISO8601, UTC, optional
// fraction) and the 14-digit timestamps of ARC and CDX.
package record
