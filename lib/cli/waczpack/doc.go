// Package waczpack is the waczpack command line (cmd/waczpack): create WACZ
// files (WACZ 1.1.1, see lib/wacz) from WARC and ARC input, index WARC/ARC
// files, validate, list and read WACZ files. It follows the arcport CLI
// conventions (../shared/GUIDE.md: exit 0 success, 1 failure with a
// one-line reason, 2 bad usage; stdout for data).
package waczpack
