// Command mangen writes the man pages of the five binaries, DIR/BIN.1
// (make man: DIR is man/), from their command-line definitions.
//
//	go run ./scripts/mangen [DIR]
package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/arcport/arcport/lib/cli/clidoc"
)

func main() {
	dir := "man"
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "mangen:", err)
		os.Exit(1)
	}
	for _, app := range clidoc.Apps(io.Discard) {
		name := filepath.Join(dir, app.Name+".1")
		if err := os.WriteFile(name, []byte(clidoc.Man(app)), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "mangen:", err)
			os.Exit(1)
		}
		fmt.Println(name)
	}
}
