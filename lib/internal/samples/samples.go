package samples

import (
	"path/filepath"
	"runtime"
	"strings"
)

// Path returns the path of the sample file name: testdata/arc/name for an
// ARC file (a name holding ".arc"), testdata/warc/name otherwise.
func Path(name string) string {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..", "..")
	if strings.Contains(name, ".arc") {
		return filepath.Join(root, "testdata", "arc", name)
	}
	return filepath.Join(root, "testdata", "warc", name)
}
