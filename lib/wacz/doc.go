// Package wacz writes, reads and validates WACZ files: Web Archive
// Collection Zipped, version 1.1.1 of the Webrecorder specification
// (https://specs.webrecorder.net/wacz/1.1.1/), and on request
// (Options.DraftFiles) the files of the earlier seed draft
// (../shared/specs/web-archive-collection-format-draft.txt: webarchive.yaml
// and pages.csv at the root) for tools that follow it. They are opt-in
// because py-wacz 0.6.0's `wacz validate`, which archives run on deposit,
// refuses any file at the root but datapackage.json and
// datapackage-digest.json.
//
// A WACZ is a zip file holding archive/*.warc.gz (STORED, gzip per record),
// indexes/index.cdx.gz + indexes/index.idx (a ZipNum CDXJ index, STORED),
// pages/pages.jsonl, datapackage.json (the Frictionless Data Package
// manifest listing every file with its size and hash) and
// datapackage-digest.json (the sha256 of the manifest).
//
// Options.Signer signs datapackage-digest.json after the Webrecorder
// recommendation "WACZ Signing and Verification" (sign.go: anonymous ECDSA
// keys as ArchiveWeb.page and ReplayWeb.page use them, or an authsign-style
// signing server; timestamp.go reads its RFC 3161 time-stamps), and
// Reader.Signature verifies such a signature.
//
// Writer builds one from WARC and ARC input (plain, gzip, zstd). Input that
// is gzip per record is copied into the zip as it is: ZipWriter hashes each
// entry as it is written (on another goroutine), the CDX indexer of
// lib/cdx and the page Detector see each record, and only the first
// kilobytes of each gzip member are inflated (prefixInflater); a member's
// end is found from the next gzip header and the ISIZE trailer before it.
// Anything unusual hands the input over to lib/warc's reader, and a member
// holding more than one record makes the copy step back (ZipEntry.Truncate)
// and the rest be written again through lib/warc's writer. Other input is
// converted (ARC through lib/arc) and written gzip per record.
//
// Reader opens a WACZ through an io.ReaderAt and reads a capture with a
// ranged read of the STORED WARC, the way ReplayWeb.page does over HTTP
// Range requests; Validate checks everything the specification requires,
// and ValidateWith with Digests recomputes the WARC records' digests too.
// CheckArchive checks a bare WARC or ARC file (digests and structure), as
// warcio check does.
//
// Merge combines WACZ files (WARCs copied as stored, indexes merged, pages
// joined, manifest rebuilt). Appender adds WARC/ARC input to an existing
// WACZ without moving its WARCs: OpenAppend writes a local file in place
// from the first old index/pages/manifest entry on, under a journal
// (JournalPath) from which RecoverAppend restores the old WACZ after a
// crash; OpenAppendAt hands the new bytes after the unchanged prefix to
// another output (an s3:// object whose prefix the server copies).
package wacz
