// Package arc reads and writes ARC files, the Internet Archive's container
// format that WARC (ISO 28500) succeeded, and converts ARC records to WARC.
//
// It follows the ARC File Format specification, version 1.0 (Mike Burner and
// Brewster Kahle, Internet Archive, 1996; ../shared/specs/arc-file-format.txt)
// for ARC version 1 (5-field URL records) and version 2 (10-field URL
// records), plain or gzip-compressed (one member per record, as Heritrix and
// Alexa wrote them, or one member for the whole file).
//
// The conversion to WARC follows the IIPC "WARC Implementation Guidelines"
// (section on ARC to WARC migration): the filedesc:// version block becomes a
// warcinfo record describing the conversion plus a metadata record holding
// the original version block; HTTP captures become response records, dns:
// captures text/dns resource records, anything else resource records.
//
// # Reading
//
// NewReader yields *record.Record values (record.Reader) whose Header is in
// WARC vocabulary (WARC-Type, WARC-Target-URI, WARC-Date, WARC-IP-Address,
// Content-Type, Content-Length) and whose ARC field keeps the URL-record as
// written. The reader is tolerant by default (record.Warn): it repairs what
// is safe and skips what is not, reporting every repair and every skip with
// the file name and byte offset. With record.Fail it stops at the first
// defect. Defects handled:
//
//   - lengths that are not a number ("-1", "abc"): the block is taken up to
//     the next URL-record line;
//   - dates longer or shorter than 14 digits (cut or completed), or not a
//     date (the version block's date is used);
//   - spaces inside URLs: the last 4 (v1) or 9 (v2) fields never contain
//     spaces, so the URL is everything before them; it is percent-encoded in
//     WARC-Target-URI;
//   - version blocks whose length does or does not count the trailing blank
//     line (both are found in the wild and are accepted silently);
//   - missing or extra newlines between records;
//   - declared lengths that end inside a record: the reader looks ahead and
//     resynchronises on the next URL-record line, shortening or extending the
//     block; bytes that belong to no record are skipped and reported;
//   - blocks cut short by the end of the file: a block that fits in the read
//     buffer is handed out shortened (damage, salvaged: the problem is
//     neither Repaired nor Skipped, counted in Stats.Damaged); a larger one
//     is streamed, and its Read returns a *record.Problem (Skipped) when the
//     input ends early, so that the consumer can drop the record;
//   - impossible lengths (negative, not a number): the block is taken up to
//     the next URL-record line, reported as damage (Stats.Damaged), not as
//     a repair.
//
// # Converting
//
// NewConverter wraps a Reader (any record.Reader of ARC records) and yields
// WARC records ready for warc.Writer: IDs (random, or name-based with
// WithDeterministicIDs), WARC-Warcinfo-ID on every record, warcinfo and
// metadata records for each version block. arc2warc, waczpack and htcache
// use it.
//
// # Writing
//
// NewWriter writes ARC version 1 files, one gzip member per record (or
// plain), from WARC-model response and resource records: a version block
// first (its length counting the blank line that ends it, as in the
// specification's example and Heritrix), then one URL record per capture
// whose content type is the media type of the HTTP Content-Type for
// responses. Version blocks read from another ARC file are copied.
//
// # Offsets
//
// Record.Offset is the offset of the record's URL-record line in a plain
// file, or of the gzip member holding it in a compressed file. In a file
// compressed as a single member all records share that member's offset; the
// uncompressed offset is then given in problem reports.
package arc
