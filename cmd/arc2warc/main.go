// Command arc2warc converts ARC files (version 1 and 2, plain or gzip) to one
// WARC file (1.1 or 1.0), following the IIPC WARC implementation guidelines.
// The logic lives in lib/arc and lib/cli/arc2warc.
//
//	arc2warc [flags] [FILE ...]
package main

import "github.com/arcport/arcport/lib/cli/arc2warc"

func main() { arc2warc.Main() }
