//go:build !race

package wacz

const raceEnabled = false
