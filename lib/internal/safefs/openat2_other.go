//go:build unix && !linux

package safefs

// openat2 is Linux only: elsewhere walk resolves one component at a time.
func openat2(dirfd int, path string, flags int, mode uint32) (int, error) {
	return -1, errNoOpenat2
}
