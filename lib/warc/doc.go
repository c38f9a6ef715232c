// Package warc reads and writes WARC files: WARC 1.1 (IIPC, "The WARC Format
// 1.1", ISO 28500:2017) and WARC 1.0 (ISO 28500:2009), tolerating the
// WARC/0.17 and WARC/0.18 drafts on reading.
//
// Reader walks plain files, gzip files with one member per record (WARC 1.1
// annex D), gzip files compressed as one member, and zstd files with one
// frame per record including the IIPC .warc.zst dictionary extension. It
// reports each record's offset (of its gzip member or zstd frame) and
// on-disk length for CDX indexes, hands the block out as a stream bounded by
// Content-Length, strips <...> around WARC-Target-URI through
// record.TargetURI, and follows an error policy (record.Warn, Ignore, Fail)
// for malformed input: missing or bad Content-Length, truncated blocks,
// garbage between records (resynchronised on the next "WARC/" line), blocks
// not followed by CRLF CRLF, members holding more than one record, unknown
// versions, header fields the Writer would refuse (a bare CR or white space
// in a name, read as '-'; a bare CR in a value, read as a space). With WithVerifyDigests it checks WARC-Block-Digest and
// WARC-Payload-Digest as the block streams by.
//
// Records inside a gzip member (or zstd frame) that holds more than one
// record all carry the member's offset and a DiskLength of 0: they cannot
// be addressed individually (warcio calls such files "non-chunked gzip").
//
// Writer writes one gzip member (or zstd frame, or nothing for plain) per
// record, compressing members in parallel and writing them in order. It
// fills WARC-Record-ID, WARC-Date, WARC-Block-Digest, WARC-Payload-Digest
// (sha1, base32) and Content-Length where absent. The payload digest of an
// application/http block is taken over the entity body with the chunked
// transfer coding removed (WARC 1.1 section 5.9: the payload is the
// "entity-body" of RFC 2616), falling back to the body as stored when it
// does not de-chunk.
//
// Given digests are copied as they are (even when wrong); Content-Length is
// always the length of the block actually read, whatever the record said.
// Blocks up to MaxMemoryBlock are held in memory and compressed in
// parallel; larger ones are spilled to a temporary file and compressed in
// the caller's goroutine once the queue has drained, so memory stays flat.
//
// API notes beyond the brief (all additive): WithVerifyDigests(bool) is the
// digest-checking option and VerifyDigests(r, opts...) a helper that reads a
// whole WARC collecting records and problems; Digester and KindOf are
// exported for packages that compute digests themselves; Reader.Format and
// Reader.Problems report the container and the problem count; reading a
// Block after Next returns ErrStaleBlock; Writer.Flush waits until every
// record given so far is written; WithTempDir chooses where large blocks
// are spilled. WithDigestFunc hands the digest outcome of every record to
// a function (DigestCheck: stated and computed digests, which payload
// convention matched: WARC 1.1's de-chunked payload or the entity as
// stored, as warcio and wget write it); ParseStatedDigest also takes a
// digest without its algorithm label, and FormatLike shows a computed
// digest the way the stated one is written (hex or base32, case, label).
package warc
