package samples

import (
	"os"
	"path/filepath"
	"testing"
)

// TestPath finds ARC samples under testdata/arc and WARC samples under
// testdata/warc, whatever the working directory.
func TestPath(t *testing.T) {
	for _, tc := range []struct{ name, dir string }{
		{"example.arc", "arc"},
		{"example.arc.gz", "arc"},
		{"bad.arc", "arc"},
		{"example.warc", "warc"},
		{"example.warc.gz", "warc"},
		{"post-test.warc.gz", "warc"},
	} {
		p := Path(tc.name)
		if got := filepath.Base(filepath.Dir(p)); got != tc.dir {
			t.Errorf("%s: in %s, want %s", tc.name, got, tc.dir)
		}
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}
