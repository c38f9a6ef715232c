package zimdump

import (
	"errors"
	"runtime"

	"github.com/arcport/arcport/lib/zim"
)

// dump is zimdump's subcmdDump: --dir must not be empty, one trailing "/"
// is dropped (trimDir), --ns is accepted and ignored (as zimdump 3.1.3
// does).
func (e *env) dump() int {
	dir := e.p.opts["dir"]
	if dir == "" {
		return e.exception(errors.New("Directory cannot be empty."))
	}
	dir = trimDir(dir, runtime.GOOS == "windows")
	e.out.Flush()
	err := e.a.Dump(dir, zim.DumpOptions{Symlinks: e.p.has("redirect"), Log: e.stderr})
	if err != nil {
		return e.exception(err)
	}
	return 0
}

// trimDir drops one trailing separator from the --dir value dir, as
// zimdump 3.1.3 drops one "/", unless what is left would name another
// folder: "/" stays the root, and with windows set (where "\" separates
// too) "C:\" and "C:/" stay the root of drive C (not "C:", the current
// folder on drive C).
func trimDir(dir string, windows bool) string {
	if len(dir) < 2 {
		return dir
	}
	last := dir[len(dir)-1]
	if last != '/' && !(windows && last == '\\') {
		return dir
	}
	rest := dir[:len(dir)-1]
	if windows && len(rest) == 2 && rest[1] == ':' {
		return dir
	}
	return rest
}
