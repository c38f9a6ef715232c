// Package htcache reads and writes HTTrack website-copier caches.
//
// It follows ../shared/specs/httrack-cache-format.txt ("HTTrack cache format
// specification", the cache.zip format of HTTrack 3.31 and later) and, where
// the spec is silent, the behaviour of HTTrack's own sources (htscache.c,
// htsback.c, htscoremain.c and its minizip copy).
//
// # The zip cache (hts-cache/new.zip, old.zip)
//
// One zip entry per fetched URL. The entry name is the URL as raw bytes (often
// UTF-8 without the zip UTF-8 flag, sometimes with spaces); the data, when
// present, is the original body; the local file header's extra field holds
// CRLF text lines: a status line, then X-In-Cache (always second), then
// X-StatusCode, X-StatusMessage, X-Size, Content-Type, X-Charset,
// Last-Modified, Etag, Location, Content-Disposition, X-Addr, X-Fil and
// X-Save, ending at the end of the field or at an empty line. archive/zip
// cannot see local extra fields, so this package scans local headers itself
// (Reader): that also recovers every complete entry of a cache whose crawl was
// interrupted before the central directory was written. The central directory,
// when present, is only used to cross-check and to complete sizes that a local
// header leaves out (data descriptors, ZIP64). More than 65535 entries and
// ZIP64 sizes and offsets are supported (the spec says "not currently
// supported"; HTTrack's minizip can write them).
//
// Bodies are in the zip when X-In-Cache is 1; otherwise they are the file
// named by X-Save, relative to the mirror root (the directory holding
// hts-cache/). Cache resolves both, refusing X-Save paths that leave the
// mirror root, and reports missing external files.
//
// # Crawl time
//
// The zip time of an entry is its Last-Modified, not its fetch time. The crawl
// date comes from hts-log.txt ("launched on ...") or hts-cache/doit.log
// ("File generated automatically on ..."), the time of day of each fetch from
// hts-cache/new.txt. Both are the crawling machine's local time; the zone is
// inferred from new.txt lines that carry the server's GMT Date, or given with
// WithLocation.
//
// # The pre-3.31 ndx/dat cache
//
// NdxReader reads the CACHE-1.1 ... CACHE-1.5 layout (hts-cache/new.ndx and
// new.dat: length-prefixed strings, "<len>\n<bytes>"), as reconstructed from
// htscache.c before commit 7a02d5e4 ("Remove the pre-3.31 (.dat/.ndx) cache
// import"). The CACHE-1.0 layout was a raw C struct dump and is refused.
// What was verified: the CACHE-1.5 layout (what HTTrack 3.x wrote until 3.31)
// against the real HTTrack 3.49, which still imports such caches: it reads a
// pair written to this layout, sends the stored ETags back and rebuilds pages
// from the stored bodies (TestNdxHTTrackImport). Versions 1.1 to 1.4 differ
// only by fields left out (charset before 1.3, Content-Disposition before
// 1.2, address/path/local name before 1.4, full headers before 1.5); they
// follow the source and were not checked against files from the period, none
// being at hand.
//
// # Records
//
// RecordReader implements record.Reader: one "response" record per entry with
// an HTTP head rebuilt from the metadata, WARC-Date the fetch time and
// WARC-Target-URI percent-encoded (URI). HTTrack keeps no body for redirects
// and most errors: those records have an empty body (WARC-Truncated:
// unspecified when X-Size says there was one). Entries whose external file is
// missing, or whose status is one of HTTrack's own negative codes, are
// skipped and reported.
//
// # Writing
//
// Writer writes a cache zip that HTTrack reads back: metadata in the local
// extra field exactly as cache_add() lays it out, sizes and CRC in the local
// header (so minizip's unzRepair can recover it), and a central directory.
package htcache
