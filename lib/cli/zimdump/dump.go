package zimdump

import (
	"errors"
	"strings"

	"github.com/arcport/arcport/lib/zim"
)

// dump is zimdump's subcmdDump: --dir must not be empty, one trailing "/"
// is dropped, --ns is accepted and ignored (as zimdump 3.1.3 does).
func (e *env) dump() int {
	dir := e.p.opts["dir"]
	if dir == "" {
		return e.exception(errors.New("Directory cannot be empty."))
	}
	dir = strings.TrimSuffix(dir, "/")
	e.out.Flush()
	err := e.a.Dump(dir, zim.DumpOptions{Symlinks: e.p.has("redirect"), Log: e.stderr})
	if err != nil {
		return e.exception(err)
	}
	return 0
}
