// Package arc2warc is the command line of arc2warc, which converts ARC files
// (version 1 and 2, plain or gzip) to one WARC file (1.1 or 1.0) following
// the IIPC WARC implementation guidelines for the mapping (see package arc).
// The conversion itself is arc.Reader + arc.Converter + warc.Writer.
//
//	arc2warc [flags] [FILE ...]
//
// With no FILE, or FILE "-", it reads standard input. The WARC goes to -o
// FILE (written under a temporary name and renamed when complete) or to
// standard output.
//
// WARC input (told from its first bytes) is copied record by record with
// the same bytes, each record one gzip member (or zstd frame) of the
// output, whatever the input's layout (whole-file gzip, plain, per record):
// warcio recompress; --recompress insists on WARC input. --max-size SIZE
// writes numbered files PREFIX-00000.warc.gz, ... instead of -o itself,
// starting a new one before a record once a file has reached SIZE (so a
// file is at most SIZE plus one record); each starts with a warcinfo record
// (the input's own when it begins one, else one made for the file). A
// finished file is committed when the next one opens.
//
// Spec: the ARC File Format 1.0 (../shared/specs/arc-file-format.txt), WARC 1.1
// and 1.0 (ISO 28500), and the IIPC WARC Implementation Guidelines for the
// mapping, as implemented by packages arc and warc.
package arc2warc
