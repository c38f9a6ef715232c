package safefs

import "testing"

// modes runs f with openat2 and with the per-component fallback.
func modes(t *testing.T, f func(t *testing.T)) {
	t.Run("openat2", f)
	t.Run("walk", func(t *testing.T) {
		was := noOpenat2.Load()
		noOpenat2.Store(true)
		defer noOpenat2.Store(was)
		f(t)
	})
}
