// Package compio reads and writes the compressed containers web archives use:
// gzip with one member per record (RFC 1952, WARC 1.1 annex D), one gzip
// member for a whole file, and zstd with one frame per record including the
// IIPC ".warc.zst" dictionary extension (a skippable frame with magic
// 0x184D2A5D holding the dictionary, optionally itself zstd-compressed).
//
// Readers walk a stream member by member and report each member's
// compressed offset, which CDX indexes need.
package compio
