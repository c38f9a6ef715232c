//go:build race

package wacz

// raceEnabled: the race detector's shadow memory and instrumentation
// inflate allocation counts, so allocation bounds are not checked.
const raceEnabled = true
