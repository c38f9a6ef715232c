// Package zimdump is the zimdump command line (cmd/zimdump is its main).
// Its info, list, show and dump commands take the same arguments and print
// the same output as openzim's zimdump 3.1.3 (zim-tools, libzim 8.1.1),
// exit codes included; check, meta, warc and --json are arcport
// extensions. The ZIM format is read by lib/zim
// (../shared/specs/zim-file-format.txt).
//
// create (create.go) writes a ZIM with lib/zim's Writer from a folder, a
// WARC/ARC, a WACZ or an HTTrack cache: captures named as lib/mirror names
// them, links rewritten by lib/mirror's Rewriter for a ZIM (entries,
// live URLs, data: for embedded resources never captured), metadata
// defaulted from the main page. It follows arcport's CLI conventions, not
// docopt's, since openzim's zimdump has no such command.
package zimdump
