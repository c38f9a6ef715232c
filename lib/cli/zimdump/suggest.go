package zimdump

import (
	"fmt"
	"io"

	"github.com/arcport/arcport/lib/internal/cliutil"
)

func runSuggest(args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "zimdump suggest: not yet")
	return cliutil.ExitFail
}
