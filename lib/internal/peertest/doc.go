// Package peertest finds, for the tests of arcport's packages, the peer
// tools they compare with (httrack, openzim's zimdump, wget, xz, zstd,
// chromium, node and the npm warcio package - warcio.js, the reader and
// indexer behind ReplayWeb.page - and the servers versitygw and
// redis-server), wherever they are installed, and says so when one is
// missing: Missing skips the test with a line that `make test`'s summary
// (scripts/testsum) collects, or fails it under CI (CI=true), where every
// peer must be there. It follows no file format spec; the formats are those
// of the packages whose tests use it.
package peertest
