// Package zim reads and writes openZIM archives (../shared/specs/zim-file-format.txt,
// the "ZIM file format" page of openzim.org, both the new C/M/W/X namespace
// scheme and the old A/I/M/- one).
//
// An Archive gives random access through an io.ReaderAt: entries are found
// by binary search on the path pointer list, decompressed clusters are kept
// in a bounded cache, and blobs of large clusters are streamed rather than
// loaded. Uncompressed (0 and 1), XZ (4) and zstd (5) clusters are read,
// extended clusters (offsets of 8 bytes) included. Split archives
// (foo.zimaa, foo.zimab, ...) and archives embedded at an offset inside
// another file are supported.
//
// Behaviour follows libzim 8.1.1 closely, so that a tool built on this
// package (cmd/zimdump) prints what openzim's zimdump prints, including the
// wording of the errors libzim raises (FormatError.Msg). Every length and
// offset read from the file is checked before use: a hostile archive gives
// an error naming the file and the byte offset, never a panic or an
// allocation sized by the file.
//
// A Writer writes archives as libzim 9's Creator does (format 6.2, new
// namespace scheme, zstd or XZ clusters, title listings v0 and v1,
// M/Counter, W/mainPage, MD5 checksum), streaming blob data through
// unnamed temporary files; see writer.go.
package zim
