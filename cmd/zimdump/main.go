// Command zimdump inspects and extracts ZIM archives; it is a drop-in for
// openzim's zimdump 3.1.3 (info, list, show, dump) with arcport extensions
// (check, meta, warc, --json). The logic lives in lib/cli/zimdump.
package main

import "github.com/arcport/arcport/lib/cli/zimdump"

func main() { zimdump.Main() }
