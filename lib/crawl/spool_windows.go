package crawl

import (
	"os"

	"github.com/arcport/arcport/lib/internal/sysfile"
)

// createUnlinked creates a temporary file in dir that Windows deletes when
// it is closed, even if the process is killed (FILE_FLAG_DELETE_ON_CLOSE;
// an open file cannot lose its name on Windows).
func createUnlinked(dir string) (*os.File, error) {
	return sysfile.CreateDeleteOnClose(dir, "mirrorget-spool-*")
}
