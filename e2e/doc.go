// Package e2e holds end-to-end tests that build arcport's binaries and run
// them as users do, checking their output with arcport's own readers and
// with peer tools (npm warcio) when those are installed.
package e2e
