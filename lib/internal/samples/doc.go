// Package samples names, for the tests of arcport's packages, the ARC and
// WARC sample files they share: the files copied from
// ../shared/fixtures into testdata/arc (ARC File Format 1.0) and
// testdata/warc (WARC 1.0/1.1), kept once and read by lib/arc, lib/warc,
// lib/cdx and lib/wacz alike.
package samples
