// Package wacz writes, reads and validates WACZ files: Web Archive
// Collection Zipped, version 1.1.1 of the Webrecorder specification
// (https://specs.webrecorder.net/wacz/1.1.1/), plus the files of the earlier
// seed draft (../shared/specs/web-archive-collection-format-draft.txt:
// webarchive.yaml and pages.csv at the root) for tools that follow it.
//
// A WACZ is a zip file holding archive/*.warc.gz (STORED, gzip per record),
// indexes/ (CDXJ, or ZipNum index.cdx.gz + index.idx), pages/pages.jsonl,
// datapackage.json (the Frictionless Data Package manifest listing every
// file with its size and hash) and datapackage-digest.json (the hash of the
// manifest).
//
// ZipWriter writes the zip sequentially and hashes each entry as it is
// written; WARC data already gzipped record by record is copied into the zip
// as it is, without recompression. Reader opens a WACZ through an
// io.ReaderAt and reads a capture with a ranged read of the STORED WARC, the
// way ReplayWeb.page does over HTTP Range requests; Validate checks
// everything the specification requires.
package wacz
