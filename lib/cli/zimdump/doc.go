// Package zimdump is the zimdump command line (cmd/zimdump is its main).
// Its info, list, show and dump commands take the same arguments and print
// the same output as openzim's zimdump 3.1.3 (zim-tools, libzim 8.1.1),
// exit codes included; check, meta, warc and --json are arcport
// extensions. The ZIM format is read by lib/zim
// (../shared/specs/zim-file-format.txt).
package zimdump
