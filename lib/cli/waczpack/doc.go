// Package waczpack is the waczpack command line (cmd/waczpack): create WACZ
// files (WACZ 1.1.1, see lib/wacz) from WARC and ARC input, index WARC/ARC
// files, validate, list and read WACZ files, merge WACZ files (merge) and
// add WARCs to one (add), and print one record of a WARC at an offset
// (extract, as warcio extract does, reading only that record: ranged reads
// for s3:// and http(s):// names). It follows the arcport CLI
// conventions (../shared/GUIDE.md: exit 0 success, 1 failure with a
// one-line reason, 2 bad usage; stdout for data).
package waczpack
