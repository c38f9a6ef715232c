//go:build !unix

package zim

import "os"

const oNoFollow = 0

func writeNew(path string, b []byte) error {
	return os.WriteFile(path, b, 0o644)
}
