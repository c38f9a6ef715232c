// Command mirrorget copies websites as HTTrack does ("Copying Websites",
// ../shared/specs/copying-websites.txt): it streams ARC (default) or WARC to
// stdout and, with -O DIR, keeps a browsable mirror that a second run
// updates with conditional requests. The logic lives in lib/crawl and
// lib/cli/mirrorget.
//
//	mirrorget [flags] URL ... [+PATTERN|-PATTERN ...]
package main

import "github.com/arcport/arcport/lib/cli/mirrorget"

func main() { mirrorget.Main() }
