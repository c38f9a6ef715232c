package compio

import (
	"os"

	"github.com/arcport/arcport/lib/internal/sysfile"
)

// createUnnamed creates a file in dir that Windows deletes when it is
// closed, however the process ends (FILE_FLAG_DELETE_ON_CLOSE): the
// nearest thing to O_TMPFILE there. Its name shows in dir while it is open.
func createUnnamed(dir, pattern string) (*os.File, bool) {
	f, err := sysfile.CreateDeleteOnClose(dir, pattern)
	return f, err == nil
}
