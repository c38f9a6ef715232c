//go:build !linux

package safefs

import "testing"

func modes(t *testing.T, f func(t *testing.T)) { f(t) }
