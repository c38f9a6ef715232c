// Command htcache reads HTTrack website-copier caches (hts-cache/new.zip and
// the pre-3.31 ndx/dat pair) and exports them to WARC or ARC. The logic lives
// in lib/cli/htcache.
package main

import "github.com/arcport/arcport/lib/cli/htcache"

func main() { htcache.Main() }
