// Package xapian reads and writes Xapian "glass" databases in the
// single-file form that libzim stores inside a ZIM (X/fulltext/xapian,
// X/title/xapian), in pure Go.
//
// There is no written specification of the glass format; this package
// follows the source of Xapian 1.4 (github.com/xapian/xapian, branch
// RELEASE/1.4 at v1.4.32, compared with tag v1.4.22, the version Debian's
// libxapian30 and the tests' peers have: the glass format, pack.h,
// bitstream.cc, the term generator and the stemmers agree, 1.4.32 only
// validating more; the CJK n-grams follow v1.4.22's cjk-tokenizer.cc):
//
//   - xapian-core/backends/glass/glass_version.cc: the version header
//     (magic "\x0f\x0dXapian Glass", format 2016-03-14, UUID, revision,
//     one root info per table, database statistics), which a single-file
//     database keeps in block 0;
//   - glass_table.h/.cc: B-tree blocks (11-byte header, item directory,
//     leaf and branch items, tags split into components, raw-deflate
//     compression of tags longer than compress_min);
//   - glass_freelist.cc/.h: the freelist serialisation in each root info;
//   - glass_postlist.cc: chunked posting lists and the document length
//     list, user metadata keys;
//   - glass_termlist.cc, glass_termlisttable.cc: per-document term lists;
//   - glass_positionlist.cc and common/bitstream.cc: positions by binary
//     interpolative coding;
//   - glass_docdata.h, glass_values.cc: document data, value streams and
//     value statistics;
//   - glass_compact.cc: how xapian-compact --single-file lays out the file;
//   - common/pack.h: the integer and string encodings.
//
// The text pipeline follows xapian-core/queryparser/termgenerator_internal.cc,
// cjk-tokenizer.cc and unicode/utf8itor.cc (TermGenerator),
// xapian-core/languages/english.sbl, french.sbl, german.sbl, spanish.sbl,
// italian.sbl, portuguese.sbl and russian.sbl (the Snowball stemmers, StemEnglish ... StemRussian),
// geospatial/geoencode.cc (SerialiseLatLong), weight/bm25weight.cc
// (SearchTerms), and libzim's src/search.cpp (LibzimQueryTerms), src/tools.cpp (RemoveAccents, CountWords), src/xapian/htmlparse.cc
// and myhtmlparse.cc (ParseHTML), src/writer/defaultIndexData.h,
// xapianWorker.cpp and xapianIndexer.cpp (LibzimFullText, LibzimTitle).
//
// What libzim writes into these databases is described by libzim's
// src/writer/xapianIndexer.cpp, xapianWorker.cpp and creator.cpp
// (github.com/openzim/libzim). See docs/zim-search.md for the format notes
// and for what is still missing.
//
// The reader (Open) treats its input as hostile: every error is one line
// wrapping ErrCorrupt or the I/O error, and memory is bounded by the block
// cache and WithMaxTag.
package xapian
