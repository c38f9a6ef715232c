// Package peertest finds, for the tests of arcport's packages, the peer
// tools they compare with: node and the npm warcio package (warcio.js, the
// reader and indexer behind ReplayWeb.page) that scripts/peers.sh installs
// in scripts/npm/node_modules. It follows no file format spec; the formats
// are those of the packages whose tests use it.
package peertest
