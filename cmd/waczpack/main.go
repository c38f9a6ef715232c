// Command waczpack makes WACZ web archive collections (WACZ 1.1.1) from WARC
// and ARC files or a pipe, and validates, lists and reads them. The logic
// lives in lib/wacz and lib/cli/waczpack.
package main

import "github.com/arcport/arcport/lib/cli/waczpack"

func main() { waczpack.Main() }
