// Package hostile is arcport's hostile-input and interrupt suite (issue 7).
// It builds the five binaries once and runs them, as users do, on inputs
// made from the real fixtures under testdata/: truncated at many offsets,
// with bits flipped, with lying lengths and offsets, decompression bombs,
// zip-slip names, enormous header lines and endless bodies, against crawl
// targets that redirect forever, never end or hang, and under SIGINT,
// SIGTERM and SIGKILL.
//
// Every case asserts what the house rules promise (../../../shared/GUIDE.md,
// "Errors" and "Outputs"): a nonzero exit with a one-line reason naming the
// file (and the offset where the format has one), or a zero exit whose
// output reads back; never a Go panic; a bounded time and peak RSS; nothing
// written outside the target; no file under the final -o name and no temp
// file left behind after a failure or an interrupt. The formats are those of
// the specs in ../../../shared/specs/ (ARC, WARC, HTTrack cache, WACZ, ZIM).
//
// The default sweep keeps the whole package within a few minutes on two
// cores; -hostile.long widens it (every truncation offset, more bit flips,
// 10 GB bombs):
//
//	go test ./e2e/hostile/ -hostile.long -timeout 2h
package hostile
