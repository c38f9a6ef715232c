// Package cdx reads and writes capture indexes of WARC and ARC files:
//
//   - CDXJ lines, "urlkey timestamp {json}", as warcio.js (`warcio
//     cdx-index`, the indexer inside ReplayWeb.page) and pywb write them;
//     Indexer produces, from a record.Reader, exactly the lines warcio.js
//     2.4 prints for the same WARC (same records, same pairing of request
//     and response records, same fields in the same order, POST/PUT
//     requests folded into the key with __wb_method=...), and Reader parses
//     CDXJ back, reporting bad lines by number;
//   - CDX-11 lines (" CDX N b a m s k r M S V g": urlkey, timestamp, url,
//     mime, status, digest, redirect, meta, length, offset, filename);
//   - a byte-order external merge sort for indexes larger than memory
//     (Sorter);
//   - ZipNum indexes as WACZ 1.1.1 stores them (indexes/index.cdx.gz: gzip
//     members of N lines each; indexes/index.idx: a "!meta 0
//     {"format": "cdxj-gzip-1.0", ...}" line, then one "urlkey timestamp
//     {"offset": ..., "length": ..., "digest": ...}" line per member),
//     written by ZipNumWriter exactly as cdxj-indexer / py-wacz write them
//     and searched by ZipNum with a binary search in the idx and a ranged
//     read of the members that can hold the key;
//   - ZipNum clusters as pywb's ZipNumIndexSource and Common Crawl's
//     cc-index read them (cluster.go): parts cdx-NNNNN.gz cut by key
//     range, a cluster.idx of "urlkey timestamp<TAB>part<TAB>offset<TAB>
//     length<TAB>number" lines, a cluster.loc mapping parts to paths;
//     written in one process (ClusterWriter) or part by part by
//     independent tasks that agree on the split keys by sampling the same
//     sorted runs (Sampler, PartWriter, JoinParts), searched with pywb's
//     cdx-server match rules (SearchRange) and closest order
//     (SortLinesByClosest).
//
// Keys are SURTs from package surt. Specifications: WACZ 1.1.1
// (https://specs.webrecorder.net/wacz/1.1.1/), the CDXJ format note of
// pywb, and the CDX file format of the Internet Archive; where these are
// silent, warcio.js and cdxj-indexer are the reference.
package cdx
